"""docs/rules/seven.md 5: the reshuffle, the exhausted piles, the blocked deal."""

from __future__ import annotations

import random

import pytest
from gamenight.sdk import CHANCE, TERMINAL, IllegalAction
from gamenight_seven.rules import describe

from .conftest import cards, pile, table


def test_drawing_from_an_empty_stock_reshuffles_the_discards_except_the_top_card(rules):
    state = table(["2H 9D", "3D"], top="5C", discards="KS 8S 4D")
    state = rules.apply(state, "draw")
    assert rules.to_move(state) == CHANCE
    action = rules.sample_chance(state, random.Random(1))
    assert action.startswith("shuffle:") and sorted(action[8:][i : i + 2] for i in range(0, 6, 2)) == [
        "4D",
        "8S",
        "KS",
    ]
    state = rules.apply(state, action)
    assert state.discards == pile("5C") and len(state.stock) == 2 and len(state.hands[0]) == 3
    assert state.turn == 0 and rules.to_move(state) == 0


def test_the_table_shows_shuffling_until_the_next_card_is_played(rules):
    state = rules.apply(table(["2H 9D 5D", "3D"], top="5C", discards="KS 8S 4D"), "draw")
    assert describe(state, "shuffle:KS8S4D", "Table") == "Table: Shuffling"
    state = rules.apply(state, "shuffle:KS8S4D")
    assert all(rules.view(state, seat).shuffling for seat in (0, 1))
    state = rules.apply(state, "5D")
    assert not rules.view(state, 1).shuffling


@pytest.mark.parametrize("action", ["shuffle:KS8S", "shuffle:KS8S4D5C", "shuffle:KS8S9D", "shuffle:KSKS4D", "7S"])
def test_a_reshuffle_that_is_not_exactly_the_discards_below_the_top_is_refused(rules, action):
    state = rules.apply(table(["2H 9D", "3D"], top="5C", discards="KS 8S 4D"), "draw")
    with pytest.raises(IllegalAction):
        rules.apply(state, action)
    assert rules.to_move(state) == CHANCE


def test_with_both_piles_exhausted_a_seat_that_cannot_play_passes(rules):
    state = table(["2H 9D", "3D 8H", "4H"], top="5C")
    assert rules.legal_actions(state) == ["pass"]
    with pytest.raises(IllegalAction, match="Nothing is left to draw"):
        rules.apply(state, "draw")
    state = rules.apply(state, "pass")
    assert state.turn == 1 and state.passes == 1


def test_with_both_piles_exhausted_a_seat_that_can_play_must_play(rules):
    state = table(["2C 9D", "3D"], top="5C")
    assert rules.legal_actions(state) == ["2C"]


def test_a_play_ends_a_run_of_passes(rules):
    state = rules.apply(table(["2H 9D", "5D 8H", "4H"], top="5C"), "pass")
    state = rules.apply(state, "5D")
    assert state.passes == 0


def test_every_seat_passing_in_a_row_blocks_the_deal_and_the_lowest_penalty_wins(rules):
    state = table(["2H 9D 7H", "3D 8H", "4H 7D"], top="5C")
    for _ in range(3):
        state = rules.apply(state, "pass")
    assert rules.to_move(state) == TERMINAL and state.blocked_from == 0
    assert state.winner == 1  # penalties: 7, 2, 6
    assert rules.scores(state) == (-7, 13, -6)
    assert rules.view(state, 2).blocked


def test_a_blocked_tie_goes_to_the_earliest_seat_in_turn_order_from_the_blocked_seat(rules):
    state = table(["2H 9D", "3D 8H", "4H 6D"], top="5C", turn=1)
    for _ in range(3):
        state = rules.apply(state, "pass")
    assert state.blocked_from == 1 and state.winner == 1
    state = table(["2H 9D", "3D 8H", "4H 6D"], top="5C", turn=2)
    for _ in range(3):
        state = rules.apply(state, "pass")
    assert state.blocked_from == 2 and state.winner == 2


def test_a_penalty_that_finds_no_cards_counts_as_a_pass(rules):
    state = table(["2H 9D", "3D 8H", "4H 6D"], top="7C", turn=1, penalty=3)
    state = rules.apply(state, "draw")  # nothing to draw: the 3 are void
    assert state.hands[1] == cards("3D 8H") and state.passes == 1 and state.turn == 2
    state = rules.apply(state, "pass")
    state = rules.apply(state, "pass")
    assert rules.to_move(state) == TERMINAL
