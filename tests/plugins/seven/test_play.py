"""docs/rules/seven.md 3: matching, drawing, skipping, calling."""

from __future__ import annotations

import pytest
from gamenight.sdk import TERMINAL, IllegalAction

from .conftest import cards, pile, table


def test_a_card_matching_the_top_cards_suit_or_rank_may_be_played(rules):
    state = table(["5H 9C KD 2S", "3D", "4D"], top="5C", stock="8D 8H")
    assert set(rules.legal_actions(state)) == {"5H", "9C", "draw"}


def test_after_a_play_the_turn_passes_to_the_next_seat(rules):
    state = rules.apply(table(["5H 9C KD", "3D", "4D"], top="5C"), "9C")
    assert state.turn == 1 and state.discards[-1] == pile("9C")[0] and state.hands[0] == cards("5H KD")


def test_a_queen_may_be_played_on_anything_and_calls_a_suit(rules):
    state = table(["QS 2D", "3D 4D", "4H"], top="5C", stock="8D")
    assert {"QS:S", "QS:H", "QS:C", "QS:D"} <= set(rules.legal_actions(state))
    state = rules.apply(state, "QS:H")
    assert state.called == 1 and state.turn == 1


def test_after_a_queen_the_next_seat_must_play_the_called_suit_or_a_queen(rules):
    state = rules.apply(table(["QS 2D", "3S 4H QC 9S", "4H"], top="5C", stock="8D"), "QS:H")
    legal = set(rules.legal_actions(state))
    assert "4H" in legal and {"QC:S", "QC:H", "QC:C", "QC:D"} <= legal
    assert "3S" not in legal and "9S" not in legal  # the Queen's own suit no longer counts
    with pytest.raises(IllegalAction, match="called suit"):
        rules.apply(state, "3S")


def test_a_queen_on_a_queen_calls_again(rules):
    state = rules.apply(table(["QS 2D", "QC 4H", "4H 5D"], top="5C", stock="8D"), "QS:H")
    state = rules.apply(state, "QC:D")
    assert state.called == 3 and state.turn == 2
    assert set(rules.legal_actions(state)) == {"5D", "draw"}


def test_a_queen_needs_a_call_unless_it_is_the_last_card(rules):
    state = table(["QS 2D", "3D"], top="5C", stock="8D")
    with pytest.raises(IllegalAction, match="Call a suit"):
        rules.apply(state, "QS")
    last = table(["QS", "3D"], top="5C", stock="8D")
    assert rules.legal_actions(last) == ["QS", "draw"]
    with pytest.raises(IllegalAction, match="last card"):
        rules.apply(last, "QS:H")
    assert rules.to_move(rules.apply(last, "QS")) == TERMINAL


def test_an_ace_skips_the_next_seat(rules):
    state = rules.apply(table(["AC 2D", "3D", "4D"], top="5C", stock="8D"), "AC")
    assert state.turn == 2
    assert ("skip", 1) in [(e.kind, e.seat) for e in state.events]


def test_with_two_seats_an_ace_gives_the_player_another_turn(rules):
    state = rules.apply(table(["AC 2C 9H", "3D"], top="5C", stock="8D"), "AC")
    assert state.turn == 0


def test_an_ace_as_the_last_card_wins_the_deal(rules):
    state = rules.apply(table(["AC", "3D QS", "4D"], top="5C", stock="8D"), "AC")
    assert rules.to_move(state) == TERMINAL and state.winner == 0
    assert rules.scores(state) == (12, -11, -1)


def test_a_seat_may_draw_at_will_and_its_turn_goes_on(rules):
    state = rules.apply(table(["5H 9C", "3D"], top="5C", stock="8D 2S"), "draw")
    assert state.turn == 0 and state.hands[0] == cards("5H 9C 2S") and state.stock == pile("8D")
    assert "draw" in rules.legal_actions(state)


def test_a_seat_with_no_playable_card_can_only_draw_one_card_at_a_time(rules):
    state = table(["2H 9D", "3D"], top="5C", stock="4S KC 8D 3S")
    assert rules.legal_actions(state) == ["draw"]
    state = rules.apply(state, "draw")  # draws 3S: still nothing to play
    assert rules.legal_actions(state) == ["draw"] and state.turn == 0
    state = rules.apply(state, "draw")  # 8D
    state = rules.apply(state, "draw")  # KC matches the suit
    assert set(rules.legal_actions(state)) == {"KC", "draw"}
    with pytest.raises(IllegalAction):
        rules.apply(state, "pass")


def test_the_log_shows_plays_and_how_many_cards_were_drawn_but_not_which(rules):
    state = rules.apply(table(["2H 9D", "3D"], top="5C", stock="KC"), "draw")
    event = state.events[-1]
    assert (event.kind, event.seat, event.count, event.card) == ("draw", 0, 1, -1)


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ("KD", "matches neither"),
        ("3S", "do not hold"),
        ("ZZ", "not a card"),
        ("QS", "Call a suit"),
        ("pass", "pass only"),
        ("QS:X", "not a card"),
        ("", "not a card"),
    ],
)
def test_an_invalid_play_is_rejected_with_a_reason_and_nothing_changes(rules, action, reason):
    state = table(["5H KD QS", "3D"], top="5C", stock="8D")
    before = tuple(state)
    with pytest.raises(IllegalAction, match=reason):
        rules.apply(state, action)
    assert tuple(state) == before


def test_nothing_may_be_played_after_the_deal_ends(rules):
    state = rules.apply(table(["5H", "3D"], top="5C", stock="8D"), "5H")
    with pytest.raises(IllegalAction, match="over"):
        rules.apply(state, "draw")
    assert rules.legal_actions(state) == []
