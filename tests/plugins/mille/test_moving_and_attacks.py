"""docs/rules/mille.md 4, 5 and 6: moving (with 4.3's order of checks), hazards, remedies."""

from __future__ import annotations

import pytest
from gamenight.sdk import IllegalAction
from gamenight_mille.rules import MilleRules

from .conftest import card, hand, seat, state


def refusal(rules: MilleRules, game, action: str) -> str | None:
    return rules.refusal(game, action)


def play(rules: MilleRules, game, action: str):
    return rules.apply(game, action)


# -- Moving -----------------------------------------------------------------------


def test_a_seat_needs_a_go_before_its_first_miles(rules: MilleRules):
    game = state(seat(hand("100", "Go"), p="25"), picked=True)
    assert refusal(rules, game, "use:1") == "cannot move now"
    after = play(rules, game, "use:2")
    assert after.seats[0].battle == card("Go")
    assert after.turn == 1


def test_miles_are_added_when_go_is_on_top(rules: MilleRules):
    game = state(seat(hand("100", "75"), p="50", battle="Go", mileage=100), picked=True)
    after = play(rules, game, "use:1")
    assert after.seats[0].mileage == 200


def test_right_of_way_is_a_permanent_go_when_no_hazard_is_on_top(rules: MilleRules):
    fresh = state(seat(hand("100"), p="25", safeties=("Right of Way",)), picked=True)
    assert refusal(rules, fresh, "use:1") is None
    on_remedy = state(seat(hand("100"), p="25", battle="Gasoline", safeties=("Right of Way",)), picked=True)
    assert refusal(rules, on_remedy, "use:1") is None
    on_hazard = state(seat(hand("100"), p="25", battle="Flat Tire", safeties=("Right of Way",)), picked=True)
    assert refusal(rules, on_hazard, "use:1") == "cannot move now"


def test_under_a_speed_limit_only_25_and_50_may_be_played(rules: MilleRules):
    game = state(seat(hand("75", "100", "200", "50"), p="25", battle="Go", speed="Speed Limit"), picked=True)
    for slot in ("1", "2", "3"):
        assert refusal(rules, game, f"use:{slot}") == "limit of 50"
    assert refusal(rules, game, "use:4") is None
    assert refusal(rules, game, "use:P") is None


def test_right_of_way_with_a_speed_limit_keeps_the_limit_until_it_is_played(rules: MilleRules):
    # No Speed Limit may be played on a seat with Right of Way: it is protected.
    protected = state(
        seat(hand("Speed Limit"), p="25"), other=seat(hand("25"), safeties=("Right of Way",)), picked=True
    )
    assert refusal(rules, protected, "use:1") == "opponent is protected"
    # Right of Way played while limited lifts the limit and lets the seat move at full speed.
    limited = state(seat(hand("Right of Way", "100"), p="75", battle="Go", speed="Speed Limit"), picked=True)
    after = play(rules, limited, "use:1")
    assert after.seats[0].speed == -1 and after.turn == 0
    slot = after.seats[0].hand.index(card("100"))
    assert refusal(rules, after._replace(picked=True), f"use:{slot}") is None


def test_the_trip_must_be_exactly_700(rules: MilleRules):
    game = state(seat(hand("100", "75"), p="50", battle="Go", mileage=650), picked=True)
    assert refusal(rules, game, "use:1") == "puts you over 700"
    assert refusal(rules, game, "use:2") == "puts you over 700"
    assert play(rules, game, "use:P").seats[0].mileage == 700


def test_at_most_two_200s_per_hand(rules: MilleRules):
    game = state(seat(hand("200"), p="200", battle="Go", mileage=400, two_hundreds=2), picked=True)
    assert refusal(rules, game, "use:1") == "only two 200's per hand"
    one = state(seat(hand("200"), p="200", battle="Go", mileage=200, two_hundreds=1), picked=True)
    assert play(rules, one, "use:1").seats[0].two_hundreds == 2


def test_the_200_limit_is_checked_before_the_speed_limit_and_the_trip(rules: MilleRules):
    game = state(
        seat(hand("200"), p="25", battle="Stop", speed="Speed Limit", mileage=600, two_hundreds=2), picked=True
    )
    assert refusal(rules, game, "use:1") == "only two 200's per hand"
    game2 = state(seat(hand("200"), p="25", battle="Stop", speed="Speed Limit", mileage=600), picked=True)
    assert refusal(rules, game2, "use:1") == "limit of 50"


# -- Remedies ---------------------------------------------------------------------


def test_a_remedy_goes_only_on_its_own_hazard_and_a_go_is_then_needed(rules: MilleRules):
    game = state(seat(hand("Gasoline", "Spare Tire", "100"), p="Go", battle="Flat Tire"), picked=True)
    assert refusal(rules, game, "use:1") == 'can\'t play "Gasoline"'
    assert refusal(rules, game, "use:P") == 'cannot play "Go" on a "Flat Tire"'
    fixed = play(rules, game, "use:2")
    assert fixed.seats[0].battle == card("Spare Tire")
    assert not fixed.seats[0].can_move


def test_a_remedy_lets_a_seat_with_right_of_way_move_at_once(rules: MilleRules):
    game = state(seat(hand("Repairs"), p="25", battle="Accident", safeties=("Right of Way",)), picked=True)
    assert play(rules, game, "use:1").seats[0].can_move


@pytest.mark.parametrize("top", [None, "Stop", "Gasoline", "Spare Tire", "Repairs"])
def test_go_may_be_played_on_an_empty_pile_a_stop_or_a_remedy(rules: MilleRules, top):
    game = state(seat(hand("Go"), p="25", battle=top), picked=True)
    assert play(rules, game, "use:1").seats[0].can_move


@pytest.mark.parametrize("top", ["Go", "Out of Gas", "Flat Tire", "Accident"])
def test_go_is_refused_on_a_go_or_an_unrepaired_hazard(rules: MilleRules, top):
    game = state(seat(hand("Go"), p="25", battle=top), picked=True)
    assert refusal(rules, game, "use:1") == f'cannot play "Go" on a "{top}"'


def test_end_of_limit_goes_only_on_ones_own_speed_limit(rules: MilleRules):
    game = state(seat(hand("End of Limit"), p="25", battle="Go"), picked=True)
    assert refusal(rules, game, "use:1") == "not limited"
    limited = state(seat(hand("End of Limit"), p="25", battle="Go", speed="Speed Limit"), picked=True)
    assert play(rules, limited, "use:1").seats[0].speed == card("End of Limit")


# -- Hazards ----------------------------------------------------------------------


@pytest.mark.parametrize("hazard", ["Out of Gas", "Flat Tire", "Accident", "Stop"])
def test_a_battle_hazard_needs_a_moving_opponent(rules: MilleRules, hazard):
    still = state(seat(hand(hazard), p="25"), other=seat(hand("25")), picked=True)
    assert refusal(rules, still, "use:1") == "opponent cannot go"
    moving = state(seat(hand(hazard), p="25"), other=seat(hand("25"), battle="Go"), picked=True)
    after = play(rules, moving, "use:1")
    assert after.seats[1].battle == card(hazard) and not after.seats[1].can_move
    assert after.seats[1].fresh_battle


@pytest.mark.parametrize(
    ("hazard", "safety"),
    [
        ("Out of Gas", "Extra Tank"),
        ("Flat Tire", "Puncture Proof"),
        ("Accident", "Driving Ace"),
        ("Stop", "Right of Way"),
        ("Speed Limit", "Right of Way"),
    ],
)
def test_a_hazard_cannot_hit_a_seat_protected_by_its_safety(rules: MilleRules, hazard, safety):
    game = state(seat(hand(hazard), p="25"), other=seat(hand("25"), battle="Go", safeties=(safety,)), picked=True)
    assert refusal(rules, game, "use:1") == "opponent is protected"


def test_hazards_may_hit_a_right_of_way_seat_with_a_remedy_on_top(rules: MilleRules):
    other = seat(hand("25"), battle="Spare Tire", safeties=("Right of Way",))
    game = state(seat(hand("Accident"), p="25"), other=other, picked=True)
    assert play(rules, game, "use:1").seats[1].battle == card("Accident")


def test_a_speed_limit_may_hit_a_stopped_opponent_but_not_a_limited_one(rules: MilleRules):
    stopped = state(seat(hand("Speed Limit"), p="25"), other=seat(hand("25"), battle="Stop"), picked=True)
    after = play(rules, stopped, "use:1")
    assert after.seats[1].speed == card("Speed Limit") and after.seats[1].fresh_speed
    again = after._replace(
        turn=0, picked=True, seats=(after.seats[0]._replace(hand=hand("Speed Limit")), after.seats[1])
    )
    assert refusal(rules, again, "use:1") == "opponent has limit"


def test_using_or_discarding_a_non_safety_ends_the_turn(rules: MilleRules):
    game = state(seat(hand("25", "Go"), p="50"), picked=True)
    assert play(rules, game, "use:2").turn == 1
    assert play(rules, game, "discard:1").turn == 1
    assert play(rules, game, "discard:1").discards == (card("25"),)


def test_an_illegal_use_raises_and_changes_nothing(rules: MilleRules):
    game = state(seat(hand("100"), p="25"), picked=True)
    before = game
    with pytest.raises(IllegalAction, match="cannot move now"):
        rules.apply(game, "use:1")
    assert game == before
