"""docs/rules/mille.md 8, 9, 10 and 11: the extension, the end of a hand, scoring, the game to 5000."""

from __future__ import annotations

import pytest
from gamenight.sdk import CHANCE, TERMINAL, IllegalAction
from gamenight_mille.rules import (
    EXTENSION,
    GAME_OVER,
    HAND_OVER,
    PLAY,
    MilleRules,
    deal_action,
    full_deck,
    hand_lines,
    hand_totals,
    score_window,
)

from .conftest import cards, hand, seat, state

FINISH = seat(hand("100", "Go", "Stop"), p="200", battle="Go", mileage=500, two_hundreds=0)


def lines(game) -> dict[str, tuple[int, int]]:
    return dict(hand_lines(game))


def finish(rules: MilleRules, game, slot: str = "P", extend: bool = False):
    after = rules.apply(game, f"use:{slot}")
    assert after.phase == EXTENSION and rules.to_move(after) == game.turn
    assert rules.legal_actions(after) == ["extend", "stop"]
    return rules.apply(after, "extend" if extend else "stop")


# -- reaching 700 and the extension ---------------------------------------------------


def test_reaching_700_asks_the_seat_that_did_it_about_an_extension(rules: MilleRules):
    game = state(FINISH, other=seat(hand("25"), mileage=100), picked=True)
    after = rules.apply(game, "use:P")
    assert after.phase == EXTENSION and rules.to_move(after) == 0
    assert rules.refusal(after, "draw") is not None
    with pytest.raises(IllegalAction):
        rules.apply(after, "use:1")


def test_stopping_at_700_ends_the_hand_and_scores_the_trip(rules: MilleRules):
    game = state(FINISH, other=seat(hand("25"), mileage=100), picked=True)
    over = finish(rules, game)
    assert over.phase == HAND_OVER and rules.to_move(over) == CHANCE
    got = lines(over)
    assert got["Milestones Played"] == (700, 100)
    assert got["Trip Completed"] == (400, 0)
    assert got["Safe Trip"] == (0, 0)  # a 200 was played
    assert got["Delayed Action"] == (0, 0)
    assert got["Extension"] == (0, 0)
    assert got["Shut-Out"] == (0, 0)
    assert hand_totals(over) == (1100, 100)
    assert over.totals == (1100, 100)


def test_safe_trip_is_300_for_a_trip_without_any_200(rules: MilleRules):
    me = seat(hand("100", "Go"), p="100", battle="Go", mileage=600)
    over = finish(rules, state(me, other=seat(hand("25"), mileage=50), picked=True))
    assert lines(over)["Safe Trip"] == (300, 0)


def test_shut_out_is_500_when_the_opponent_played_no_miles(rules: MilleRules):
    me = seat(hand("100", "Go"), p="100", battle="Go", mileage=600)
    over = finish(rules, state(me, other=seat(hand("25")), picked=True))
    assert lines(over)["Shut-Out"] == (500, 0)


def test_delayed_action_is_300_for_a_trip_completed_after_the_deck_ran_out(rules: MilleRules):
    me = seat(hand("100", "Go"), battle="Go", mileage=600)
    over = finish(rules, state(me, other=seat(hand("25"), mileage=25), deck=()), slot="1")
    assert lines(over)["Delayed Action"] == (300, 0)


def test_delayed_action_counts_a_finish_right_after_drawing_the_last_card(rules: MilleRules):
    me = seat(hand("100", "Go", "Stop", "Stop", "Stop", "Stop"), battle="Go", mileage=600)
    game = state(me, other=seat(hand("25"), mileage=25), deck=cards("25"))
    drawn = rules.apply(game, "draw")
    assert drawn.phase == PLAY and not drawn.deck
    over = finish(rules, drawn, slot="1")
    assert lines(over)["Delayed Action"] == (300, 0)


def test_an_extension_makes_the_trip_1000_for_both_and_passes_the_turn(rules: MilleRules):
    game = state(FINISH, other=seat(hand("25"), mileage=100), picked=True)
    extended = finish(rules, game, extend=True)
    assert extended.phase == PLAY and extended.trip == 1000 and extended.extended
    assert rules.to_move(extended) == 1


def test_completing_the_extension_scores_200_more_and_ends_the_hand_at_once(rules: MilleRules):
    me = seat(hand("100", "Go"), p="200", battle="Go", mileage=800, two_hundreds=1)
    game = state(me, other=seat(hand("25"), mileage=300), picked=True, trip=1000, extended=True)
    over = rules.apply(game, "use:P")
    assert over.phase == HAND_OVER
    got = lines(over)
    assert got["Trip Completed"] == (400, 0) and got["Extension"] == (200, 0)


def test_the_opponent_may_reach_1000_first_after_an_extension(rules: MilleRules):
    other = seat(hand("200"), p="200", battle="Go", mileage=800)
    game = state(seat(hand("25"), mileage=700, battle="Go"), other=other, turn=1, picked=True, trip=1000, extended=True)
    over = rules.apply(game, "use:P")
    assert over.phase == HAND_OVER
    assert lines(over)["Trip Completed"] == (0, 400) and lines(over)["Extension"] == (0, 200)


def test_if_nobody_reaches_1000_after_an_extension_nobody_scores_the_trip(rules: MilleRules):
    me = seat(hand("Stop"), mileage=700, battle="Stop")
    other = seat(hand("Stop"), mileage=300, battle="Stop")
    game = state(me, other=other, deck=(), trip=1000, extended=True)
    over = rules.apply(game, "discard:1")
    assert over.phase == HAND_OVER
    got = lines(over)
    assert got["Trip Completed"] == (0, 0) and got["Safe Trip"] == (0, 0) and got["Milestones Played"] == (700, 300)


def test_there_is_only_one_extension_per_hand(rules: MilleRules):
    other = seat(hand("100"), p="100", battle="Go", mileage=600)
    game = state(seat(hand("25"), mileage=700, battle="Go"), other=other, turn=1, picked=True, trip=1000, extended=True)
    after = rules.apply(game, "use:P")  # the opponent reaches 700: play simply goes on
    assert after.phase == PLAY and after.trip == 1000


# -- the deck running out ------------------------------------------------------------


def test_play_goes_on_from_the_hands_once_the_deck_is_out(rules: MilleRules):
    me = seat(hand("25", "Stop"), battle="Go", mileage=100)
    game = state(me, other=seat(hand("50"), battle="Go"), deck=())
    assert "draw" not in rules.legal_actions(game)
    assert rules.refusal(game, "draw") == "no more cards"
    after = rules.apply(game, "use:1")  # no pick needed
    assert after.seats[0].mileage == 125 and after.turn == 1


def test_the_hand_ends_when_the_deck_is_out_and_neither_seat_can_use_a_card(rules: MilleRules):
    me = seat(hand("Gasoline", "75"), battle="Stop")
    other = seat(hand("Repairs", "100"), battle="Stop")
    game = state(me, other=other, deck=cards("Spare Tire"))
    assert rules.apply(game, "draw").phase == HAND_OVER  # even before the last card is discarded


def test_a_seat_that_cannot_use_a_card_discards_while_the_other_plays_on(rules: MilleRules):
    me = seat(hand("Gasoline", "75"), battle="Stop")
    other = seat(hand("25", "25"), battle="Go")
    game = state(me, other=other, deck=())
    assert rules.legal_actions(game) == ["discard:1", "discard:2"]
    after = rules.apply(game, "discard:1")
    assert after.phase == PLAY and after.turn == 1


def test_a_seat_with_an_empty_hand_is_skipped(rules: MilleRules):
    me = seat(hand("25"), battle="Go")
    other = seat(hand(), battle="Go")
    game = state(me, other=other, deck=())
    # seat 0 plays its 25 and then has nothing; seat 1 has nothing: the hand is over.
    assert rules.apply(game, "use:1").phase == HAND_OVER
    two = state(seat(hand("25", "25"), battle="Go"), other=seat(hand(), battle="Go"), deck=())
    after = rules.apply(two, "use:1")
    assert after.phase == PLAY and after.turn == 0  # the empty hand was skipped


def test_a_safety_in_hand_keeps_the_hand_alive(rules: MilleRules):
    me = seat(hand("Extra Tank", "75"), battle="Stop")
    other = seat(hand("Repairs"), battle="Stop")
    game = state(me, other=other, deck=cards("Spare Tire"))
    drawn = rules.apply(game, "draw")
    assert drawn.phase == PLAY


# -- the game to 5000 --------------------------------------------------------------------


def test_a_hand_end_below_5000_pauses_with_the_score_window_then_deals_again(rules: MilleRules):
    game = state(FINISH, other=seat(hand("25"), mileage=100), picked=True, hand_number=1)
    over = finish(rules, game)
    pause = rules.interlude(over)
    assert pause is not None and pause.key == "hand-1"
    labels = [label for label, _values in pause.lines]
    assert labels == [
        "Milestones Played",
        "Each Safety",
        "All 4 Safeties",
        "Each Coup Fourré",
        "Trip Completed",
        "Safe Trip",
        "Delayed Action",
        "Extension",
        "Shut-Out",
        "Hand Total",
        "Overall Total",
    ]
    assert pause.scores == (1100.0, 100.0)
    dealt = rules.apply(over, deal_action(full_deck()))
    assert dealt.phase == PLAY and dealt.hand_number == 2 and dealt.totals == (1100, 100)
    assert dealt.seats[0].mileage == 0 and rules.interlude(dealt) is None


def test_the_game_ends_at_the_end_of_the_hand_that_reaches_5000(rules: MilleRules):
    game = state(FINISH, other=seat(hand("25"), mileage=100), picked=True, totals=(4000, 4500))
    over = finish(rules, game)
    assert over.phase == GAME_OVER and rules.to_move(over) == TERMINAL
    outcome = rules.outcome(over)
    assert outcome.scores == (5100.0, 4600.0) and outcome.winners == (0,)
    assert dict(outcome.lines)["Overall Total"] == (5100.0, 4600.0)


def test_the_higher_total_wins_even_if_the_other_seat_passed_5000_first(rules: MilleRules):
    game = state(FINISH, other=seat(hand("25"), mileage=100), picked=True, totals=(3500, 4950))
    over = finish(rules, game)
    assert over.totals == (4600, 5050)
    assert rules.outcome(over).winners == (1,)


def test_a_tie_at_5000_plays_another_hand(rules: MilleRules):
    game = state(FINISH, other=seat(hand("25"), mileage=100), picked=True, totals=(4000, 5000))
    over = finish(rules, game)
    assert over.totals == (5100, 5100)
    assert over.phase == HAND_OVER and rules.to_move(over) == CHANCE


def test_the_score_window_sums_to_the_hand_total_and_adds_the_overall_total(rules: MilleRules):
    me = seat(
        hand("Right of Way", "25"), p="50", battle="Go", mileage=300, coups=("Extra Tank",), safeties=("Extra Tank",)
    )
    game = state(me, other=seat(hand("25"), mileage=75), picked=True, totals=(1000, 2000))
    window = dict(score_window(game))
    assert window["Hand Total"] == (300 + 100 + 300, 75)
    assert window["Overall Total"] == (1700, 2075)
    assert rules.current_scores(game) == (1700.0, 2075.0)


def test_the_target_is_an_option(rules: MilleRules):
    assert rules.new_game(2, {"target": 1000}).target == 1000
