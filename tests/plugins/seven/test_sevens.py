"""docs/rules/seven.md 4: a penalty of 3 that stacks to 6, 9, 12 and only a 7 answers."""

from __future__ import annotations

import pytest
from gamenight.sdk import CHANCE, IllegalAction

from .conftest import cards, pile, table

STOCK = "2S 3S 4S 5S 6S 8S 9S TS JS KS 2H 3H 4H 5H 6H"


def test_a_seven_makes_the_next_seat_draw_three_and_end_its_turn(rules):
    state = rules.apply(table(["7C 2D", "3D 9H", "4D"], top="5C", stock=STOCK), "7C")
    assert state.penalty == 3 and state.turn == 1
    assert rules.legal_actions(state) == ["draw"]
    state = rules.apply(state, "draw")
    assert len(state.hands[1]) == 5 and state.turn == 2 and state.penalty == 0
    event = state.events[-1]
    assert (event.kind, event.seat, event.count, event.call) == ("penalty", 1, 3, 3)


def test_while_a_penalty_is_pending_only_a_seven_may_be_played(rules):
    state = rules.apply(table(["7C 2D", "7H 5C QS 9C", "4D"], top="5C", stock=STOCK), "7C")
    assert set(rules.legal_actions(state)) == {"7H", "draw"}
    for action in ("5C", "9C", "QS:H"):
        with pytest.raises(IllegalAction, match="Only a 7"):
            rules.apply(state, action)


def test_a_queen_cannot_be_played_onto_a_pending_seven(rules):
    state = rules.apply(table(["7C 2D", "QS 9H", "4D"], top="5C", stock=STOCK), "7C")
    with pytest.raises(IllegalAction, match="Only a 7"):
        rules.apply(state, "QS:H")


def test_sevens_stack_to_six_nine_and_twelve(rules):
    state = table(["7C 2D", "7H 3D", "7S 4D", "7D 5D", "6D 8D"], top="5C", stock=STOCK * 1)
    for seat, seven, penalty in ((0, "7C", 3), (1, "7H", 6), (2, "7S", 9), (3, "7D", 12)):
        assert state.turn == seat
        state = rules.apply(state, seven)
        assert state.penalty == penalty
    assert state.turn == 4 and rules.legal_actions(state) == ["draw"]
    state = rules.apply(state, "draw")
    assert len(state.hands[4]) == 2 + 12 and state.turn == 0 and state.penalty == 0


def test_after_a_penalty_is_taken_a_seven_starts_a_new_penalty_of_three(rules):
    state = rules.apply(table(["7C 2D", "3D 9H", "7D 4D"], top="5C", stock=STOCK), "7C")
    state = rules.apply(state, "draw")
    state = rules.apply(state, "7D")
    assert state.penalty == 3


def test_a_stacked_penalty_beyond_the_stock_reshuffles_the_discards_and_draws_on(rules):
    # Stock of 2, discards below the top: 6 cards.  A penalty of 6 needs a reshuffle.
    state = table(["7C 2D", "7H 3D", "4D 9S", "5D"], top="5C", stock="KS 8S", discards="2H 3H 4H 5H 6H 8H")
    state = rules.apply(rules.apply(state, "7C"), "7H")
    state = rules.apply(state, "draw")
    assert rules.to_move(state) == CHANCE and state.owed == 4 and len(state.hands[2]) == 4
    view = rules.view(state, 0)
    assert view.shuffling
    state = rules.apply(state, "shuffle:" + "2H3H4H5H6H8H5C7C")
    assert len(state.hands[2]) == 2 + 6 and state.turn == 3 and state.penalty == 0
    assert state.stock == pile("2H 3H 4H 5H") and state.discards == pile("7H")
    assert rules.view(state, 3).shuffling


def test_a_penalty_beyond_every_card_left_is_paid_as_far_as_cards_exist(rules):
    # Nothing in the stock, one card under the top: the 12-card penalty draws 3 cards in all.
    state = table(["7C 2D", "7H 3D", "7S 4D", "7D 5D", "6D 8D"], top="5C", stock="KS")
    for seven in ("7C", "7H", "7S", "7D"):
        state = rules.apply(state, seven)
    state = rules.apply(state, "draw")  # KS, then the discards 5C 7C 7H 7S need a reshuffle
    assert rules.to_move(state) == CHANCE
    state = rules.apply(state, "shuffle:5C7C7H7S")
    assert len(state.hands[4]) == 2 + 5 and state.stock == () and state.discards == pile("7D")
    assert state.turn == 0 and state.penalty == 0
    event = state.events[-1]
    assert (event.kind, event.count, event.call) == ("penalty", 5, 12)


def test_a_seven_as_the_last_card_wins_and_the_penalty_is_not_drawn(rules):
    state = rules.apply(table(["7C", "3D 9H", "4D"], top="5C", stock=STOCK), "7C")
    assert state.winner == 0 and state.hands[1] == cards("3D 9H")
