"""Goofspiel's rules, clause by clause (the help page, rules.en.md)."""

from __future__ import annotations

import pytest
from gamenight.sdk import CHANCE, TERMINAL, IllegalAction, PublicEvent, fill_seat_names

from gamenight_example.rules import GoofspielRules

RULES = GoofspielRules()


def play(state, *actions):
    for action in actions:
        state = RULES.apply(state, action)
    return state


def test_every_seat_holds_ace_to_king_and_the_prizes_wait_face_down():
    state = RULES.new_game(3, {})
    assert all(hand == frozenset(range(1, 14)) for hand in state.hands)
    assert state.prizes_left == frozenset(range(1, 14)) and state.prize is None
    assert RULES.to_move(state) == CHANCE


def test_the_cards_option_plays_ace_up_to_that_number():
    state = RULES.new_game(2, {"cards": 5})
    assert state.hands[0] == frozenset(range(1, 6)) and state.prizes_left == frozenset(range(1, 6))


def test_a_round_turns_up_a_prize_then_each_seat_bids_a_card_from_its_hand():
    state = play(RULES.new_game(2, {}), "prize:7")
    assert state.prize == 7 and RULES.to_move(state) == 0
    assert RULES.legal_actions(state) == [f"bid:{v}" for v in range(1, 14)]
    state = play(state, "bid:9")
    assert RULES.to_move(state) == 1 and "bid:9" in RULES.legal_actions(state)


def test_the_single_highest_bid_takes_the_prize_and_every_bid_card_is_spent():
    state = play(RULES.new_game(3, {}), "prize:7", "bid:9", "bid:3", "bid:12")
    assert state.scores == (0, 0, 7)
    assert [9 in state.hands[0], 3 in state.hands[1], 12 in state.hands[2]] == [False, False, False]
    assert state.history[-1].winner == 2 and RULES.to_move(state) == CHANCE


def test_a_tie_for_highest_discards_the_prize_even_if_a_lower_bid_is_single():
    state = play(RULES.new_game(3, {}), "prize:7", "bid:9", "bid:9", "bid:2")
    assert state.scores == (0, 0, 0) and state.pot == 0 and state.history[-1].winner is None


def test_with_ties_carry_over_the_pot_goes_to_the_next_rounds_winner():
    state = play(RULES.new_game(2, {"carry": True}), "prize:7", "bid:9", "bid:9")
    assert state.pot == 7
    state = play(state, "prize:2", "bid:1", "bid:5")
    assert state.scores == (0, 9) and state.pot == 0


def test_a_card_not_in_the_hand_or_a_prize_already_shown_is_refused_and_changes_nothing():
    state = play(RULES.new_game(2, {}), "prize:7", "bid:9", "bid:4")
    with pytest.raises(IllegalAction):
        RULES.apply(state, "prize:7")
    state = play(state, "prize:3")
    for bad in ("bid:9", "bid:14", "bid:x", "prize:5", ""):
        with pytest.raises(IllegalAction):
            RULES.apply(state, bad)
    assert state.hands[0] == frozenset(range(1, 14)) - {9}


def test_the_game_ends_after_the_last_prize_and_the_most_points_wins():
    state = RULES.new_game(2, {"cards": 5})
    for value in range(1, 6):  # seat 0 bids each prize's own value, seat 1 the next lower card
        state = play(state, f"prize:{value}", f"bid:{value}", f"bid:{6 - value}")
    assert RULES.to_move(state) == TERMINAL
    outcome = RULES.outcome(state)
    assert outcome.scores == (4.0 + 5.0, 1.0 + 2.0) and outcome.winners == (0,)


def test_a_seat_sees_who_has_bid_but_not_what_and_only_its_own_hand():
    state = play(RULES.new_game(2, {}), "prize:7", "bid:9")
    view = RULES.view(state, 1)
    assert view.has_bid == (True, False) and view.my_bid is None
    assert view.unplayed[0] == tuple(range(1, 14))  # the face-down 9 is still "unplayed" to seat 1
    assert RULES.view(state, 0).my_bid == 9 and 9 not in RULES.view(state, 0).hand


def test_the_log_hides_a_bid_until_the_round_is_shown():
    state = play(RULES.new_game(2, {}), "prize:7")
    assert "9" not in RULES.describe_action(state, "bid:9", 0)
    state = play(state, "bid:9")
    said = fill_seat_names(RULES.describe_action(state, "bid:4", 1), ["Ann", "Ben"])
    assert said == "Ben bids face down. Bids 9, 4: Ann takes 7."


def test_the_events_say_who_bid_and_show_the_cards_only_when_the_round_is():
    state = play(RULES.new_game(2, {}), "prize:7")
    assert RULES.public_events(state, "bid:9", 0) == [PublicEvent("bid", {"seat": 0})]
    state = play(state, "bid:9")
    assert RULES.public_events(state, "bid:9", 1) == [
        PublicEvent("bid", {"seat": 1}),
        PublicEvent("show", {"bids": [9, 9], "winner": None, "worth": 7}),
    ]


def test_a_refusal_is_data_the_screen_translates():
    state = play(RULES.new_game(2, {}), "prize:7", "bid:9")
    with pytest.raises(IllegalAction) as refused:
        RULES.apply(state, "bid:99")
    assert refused.value.code == "not-in-hand" and str(refused.value) == "Bid one of the cards in your hand."
    assert refused.value.template == "Bid one of the cards in your hand."


def test_a_pot_still_standing_after_the_last_round_is_lost():
    state = RULES.new_game(2, {"cards": 5, "carry": True})
    for value in range(1, 6):  # every round tied
        state = play(state, f"prize:{value}", f"bid:{value}", f"bid:{value}")
    assert RULES.to_move(state) == TERMINAL and state.pot == 15
    assert RULES.outcome(state).scores == (0.0, 0.0) and RULES.outcome(state).winners == (0, 1)
