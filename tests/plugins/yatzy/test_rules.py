"""docs/rules/yatzy.md, clause by clause."""

from __future__ import annotations

import random

import pytest
from gamenight.sdk import CHANCE, TERMINAL, IllegalAction
from gamenight_yatzy.plugin import GAME
from gamenight_yatzy.rules import (
    BOXES,
    FIRST_ROLL,
    base_scores,
    preview,
    scoring_boxes,
)

from .conftest import RULES, full_sheet, rolled, sheet


def score_of(dice: str, box: str) -> int:
    return base_scores([int(face) for face in dice])[BOXES.index(box)]


def play_turn(state, dice: str, box: str):
    """Roll ``dice`` and score them in ``box``."""
    state = RULES.apply(state, FIRST_ROLL)
    state = RULES.apply(state, "dice:" + dice)
    return RULES.apply(state, "score:" + box)


# -- yatzy.md 1.1: "1–8 seats (solo included)" ----------------------------------


@pytest.mark.parametrize("seats", [1, 2, 8])
def test_one_to_eight_seats_may_play(seats):
    state = RULES.new_game(seats, {})
    assert len(state.sheets) == seats
    assert RULES.to_move(state) == 0


@pytest.mark.parametrize("seats", [0, 9])
def test_no_game_for_zero_or_nine_seats(seats):
    with pytest.raises(ValueError):
        RULES.new_game(seats, {})


def test_the_game_descriptor_offers_one_to_eight_seats_and_the_joker_option():
    assert (GAME.min_seats, GAME.max_seats) == (1, 8)
    assert GAME.default_options() == {"joker": False}


# -- yatzy.md 2.1: "A turn starts by rolling all 5 dice" (13 rounds: 1.2) --------


def test_a_round_starts_by_rolling_all_five_dice():
    state = RULES.new_game(2, {})
    assert RULES.legal_actions(state) == [FIRST_ROLL]
    with pytest.raises(IllegalAction):
        RULES.apply(state, "roll:10000")
    with pytest.raises(IllegalAction):
        RULES.apply(state, "score:chance")


def test_rolling_is_a_chance_node_whose_outcome_is_validated():
    state = RULES.apply(RULES.new_game(1, {}), FIRST_ROLL)
    assert RULES.to_move(state) == CHANCE
    assert RULES.legal_actions(state) == []
    for bad in ("dice:1234", "dice:123456", "dice:12370", "score:chance", "roll:00000"):
        with pytest.raises(IllegalAction):
            RULES.apply(state, bad)
    after = RULES.apply(state, "dice:31462")
    assert after.dice == (3, 1, 4, 6, 2)
    assert RULES.to_move(after) == 0


def test_sampled_dice_are_fair_and_reproducible():
    state = RULES.apply(RULES.new_game(1, {}), FIRST_ROLL)
    draws = [RULES.sample_chance(state, random.Random(seed)) for seed in range(3000)]
    assert draws[:50] == [RULES.sample_chance(state, random.Random(seed)) for seed in range(50)]
    faces = [int(face) for action in draws for face in action[5:]]
    for face in range(1, 7):
        assert abs(faces.count(face) / len(faces) - 1 / 6) < 0.02
    for action in draws[:100]:
        RULES.apply(state, action)  # every sampled outcome is legal


def test_seats_take_turns_and_the_game_ends_after_thirteen_rounds():
    state = RULES.new_game(2, {})
    for round_number in range(13):
        for seat in (0, 1):
            assert RULES.to_move(state) == seat
            state = play_turn(state, "11111" if round_number == 0 else "12345", BOXES[round_number])
    assert RULES.to_move(state) == TERMINAL
    assert RULES.legal_actions(state) == []
    with pytest.raises(IllegalAction):
        RULES.apply(state, FIRST_ROLL)


# -- yatzy.md 2.2: "Then up to two re-rolls of any subset" ---------------------------


def test_any_subset_may_be_rerolled_twice_then_the_dice_must_be_scored():
    state = RULES.apply(RULES.apply(RULES.new_game(1, {}), FIRST_ROLL), "dice:11111")
    assert {a for a in RULES.legal_actions(state) if a.startswith("roll:")} == {
        "roll:" + format(mask, "05b") for mask in range(31)
    }
    for dice in ("11112", "11113"):
        state = RULES.apply(RULES.apply(state, "roll:11110"), "dice:" + dice)
    assert state.rolls == 3
    assert all(action.startswith("score:") for action in RULES.legal_actions(state))
    with pytest.raises(IllegalAction):
        RULES.apply(state, "roll:00000")


def test_held_dice_keep_their_faces():
    state = RULES.apply(rolled("62345"), "roll:10001")
    with pytest.raises(IllegalAction):
        RULES.apply(state, "dice:12341")
    assert RULES.apply(state, "dice:61115").dice == (6, 1, 1, 1, 5)


def test_holding_every_die_is_not_a_roll():
    with pytest.raises(IllegalAction):
        RULES.apply(rolled("12345"), "roll:11111")


# -- yatzy.md 2.3: "the seat scores the dice in one unused box" ----------------------


def test_a_used_box_cannot_be_scored_again():
    state = rolled("12345", sheet(chance=20))
    assert "score:chance" not in RULES.legal_actions(state)
    with pytest.raises(IllegalAction):
        RULES.apply(state, "score:chance")


def test_dice_that_do_not_qualify_score_zero_in_any_open_box():
    state = RULES.apply(rolled("12346"), "score:full_house")
    assert state.sheets[0][BOXES.index("full_house")] == 0
    assert RULES.apply(rolled("12346"), "score:yatzy").sheets[0][BOXES.index("yatzy")] == 0


def test_every_open_box_may_be_chosen():
    assert scoring_boxes(sheet(ones=1, sixes=18), (2, 2, 3, 4, 5), False) == tuple(
        box for box in range(13) if box not in (0, 5)
    )


# -- yatzy.md 3: boxes -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "box", "points"),
    [
        ("11215", "ones", 3),
        ("11215", "twos", 2),
        ("33335", "threes", 12),
        ("44644", "fours", 16),
        ("12346", "fives", 0),
        ("66666", "sixes", 30),
        ("33345", "three_kind", 18),
        ("33335", "three_kind", 17),
        ("33245", "three_kind", 0),
        ("22223", "four_kind", 11),
        ("55555", "four_kind", 25),
        ("22233", "four_kind", 0),
        ("22333", "full_house", 25),
        ("62626", "full_house", 25),
        ("22334", "full_house", 0),
        ("12343", "small_straight", 30),
        ("65432", "small_straight", 30),
        ("36546", "small_straight", 30),
        ("12456", "small_straight", 0),
        ("13456", "small_straight", 30),
        ("12345", "large_straight", 40),
        ("62345", "large_straight", 40),
        ("12346", "large_straight", 0),
        ("44444", "yatzy", 50),
        ("44443", "yatzy", 0),
        ("12356", "chance", 17),
    ],
)
def test_each_box_scores_as_the_rules_say(dice, box, points):
    assert score_of(dice, box) == points


def test_a_large_straight_is_also_a_small_straight():
    assert score_of("23456", "small_straight") == 30


def test_upper_bonus_35_needs_63_in_the_six_upper_boxes():
    just_under = full_sheet(ones=3, twos=6, threes=9, fours=12, fives=15, sixes=17)
    exactly = full_sheet(ones=3, twos=6, threes=9, fours=12, fives=15, sixes=18)
    assert RULES.outcome(final(just_under)).scores == (62.0,)
    assert RULES.outcome(final(exactly)).scores == (63.0 + 35,)


def test_the_upper_bonus_counts_upper_boxes_only():
    lower_heavy = full_sheet(ones=1, chance=30, three_kind=30, four_kind=30)
    assert RULES.outcome(final(lower_heavy)).scores == (91.0,)


def final(the_sheet, bonuses: int = 0):
    return rolled("12345", the_sheet, bonuses=bonuses)._replace(dice=(), rolls=0)


def test_the_outcome_itemises_upper_bonus_lower_and_yatzy_bonus():
    the_sheet = full_sheet(ones=3, twos=6, threes=9, fours=12, fives=15, sixes=18, yatzy=50, chance=20)
    outcome = RULES.outcome(final(the_sheet, bonuses=2))
    assert outcome.scores == (63 + 35 + 70 + 200,)
    assert dict(outcome.lines) == {
        "Upper section": (63.0,),
        "Upper bonus": (35.0,),
        "Lower section": (70.0,),
        "Yatzy bonus": (200.0,),
    }


def test_the_top_total_wins_and_ties_share():
    state = RULES.new_game(3, {})._replace(sheets=(full_sheet(chance=20), full_sheet(chance=25), full_sheet(chance=25)))
    assert RULES.outcome(state).winners == (1, 2)
    assert RULES.outcome(state).win_share(1) == 0.5
    assert dict(RULES.outcome(state).lines)["Place"] == (3.0, 1.0, 1.0)  # the final ranking


def test_a_solo_game_has_no_place_line():
    assert "Place" not in dict(RULES.outcome(final(full_sheet(chance=20))).lines)


# -- yatzy.md 4.1: "each further Yatzy rolled earns a bonus of 100" ------------------------


def test_a_further_yatzy_earns_100_once_the_yatzy_box_holds_50_and_is_still_scored():
    state = RULES.apply(rolled("33333", sheet(yatzy=50)), "score:threes")
    assert state.bonuses == (1,)
    assert state.sheets[0][BOXES.index("threes")] == 15
    assert RULES.current_scores(state) == (50.0 + 15 + 100,)


def test_the_yatzy_bonus_is_earned_whatever_box_the_yatzy_goes_in():
    assert RULES.apply(rolled("33333", sheet(yatzy=50)), "score:ones").bonuses == (1,)


def test_no_yatzy_bonus_when_the_yatzy_box_holds_zero():
    assert RULES.apply(rolled("33333", sheet(yatzy=0)), "score:threes").bonuses == (0,)


def test_the_first_yatzy_scores_50_and_no_bonus():
    state = RULES.apply(rolled("55555"), "score:yatzy")
    assert state.sheets[0][BOXES.index("yatzy")] == 50
    assert state.bonuses == (0,)


def test_yatzy_bonuses_add_up():
    state = rolled("22222", sheet(yatzy=50))
    state = RULES.apply(state, "score:twos")
    state = play_turn(state, "44444", "fours")
    assert state.bonuses == (2,)


# -- yatzy.md 3.4: "five of a kind is not a Full House" ----------------------------------------


def test_five_of_a_kind_is_not_a_full_house():
    assert score_of("44444", "full_house") == 0
    assert RULES.apply(rolled("44444", sheet(yatzy=50)), "score:full_house").sheets[0][8] == 0


def test_without_the_joker_option_a_yatzy_may_go_in_any_open_box():
    state = rolled("44444", sheet(yatzy=0))
    assert {a for a in RULES.legal_actions(state) if a.startswith("score:")} == {
        "score:" + name for name in BOXES if name != "yatzy"
    }
    assert preview(state.sheets[0], state.dice)[BOXES.index("large_straight")] == 0


# -- yatzy.md 5.1: "turns on the official Hasbro joker rule" -------------------------------------


def test_joker_a_yatzy_must_fill_its_open_upper_box():
    state = rolled("44444", sheet(yatzy=0), joker=True)
    assert [a for a in RULES.legal_actions(state) if a.startswith("score:")] == ["score:fours"]
    with pytest.raises(IllegalAction):
        RULES.apply(state, "score:chance")
    assert RULES.apply(state, "score:fours").sheets[0][3] == 20


def test_joker_with_its_upper_box_filled_scores_full_house_and_straights_in_full():
    state = rolled("44444", sheet(fours=12, yatzy=50), joker=True)
    shown = preview(state.sheets[0], state.dice, joker=True)
    assert {BOXES[box]: points for box, points in shown.items()} == {
        "three_kind": 20,
        "four_kind": 20,
        "full_house": 25,
        "small_straight": 30,
        "large_straight": 40,
        "chance": 20,
    }
    after = RULES.apply(state, "score:large_straight")
    assert after.sheets[0][BOXES.index("large_straight")] == 40
    assert after.bonuses == (1,)  # the box holds 50: the Yatzy bonus as well


def test_joker_applies_when_the_yatzy_box_holds_zero_too():
    state = rolled("22222", sheet(twos=4, yatzy=0), joker=True)
    assert RULES.apply(state, "score:full_house").sheets[0][BOXES.index("full_house")] == 25


def test_joker_may_not_zero_an_upper_box_while_a_lower_box_is_open():
    state = rolled("22222", full_sheet(ones=None, chance=None), joker=True)
    assert [a for a in RULES.legal_actions(state) if a.startswith("score:")] == ["score:chance"]


def test_joker_with_every_lower_box_filled_zeroes_an_open_upper_box():
    state = rolled("22222", full_sheet(ones=None, fives=None), joker=True)
    assert [a for a in RULES.legal_actions(state) if a.startswith("score:")] == ["score:ones", "score:fives"]
    assert RULES.apply(state, "score:fives").sheets[0][4] == 0


def test_joker_does_not_apply_while_the_yatzy_box_is_open():
    state = rolled("44444", sheet(fours=12), joker=True)
    assert preview(state.sheets[0], state.dice, joker=True)[BOXES.index("full_house")] == 0
    assert len([a for a in RULES.legal_actions(state) if a.startswith("score:")]) == 12


# -- yatzy.md 2.4: "what each open box would score" ----------------------------------------------


def test_preview_lists_what_each_open_box_would_score():
    shown = preview(sheet(ones=2, chance=20), (2, 2, 3, 3, 3))
    assert shown == {
        1: 4,
        2: 9,
        3: 0,
        4: 0,
        5: 0,
        6: 13,
        7: 0,
        8: 25,
        9: 0,
        10: 0,
        11: 0,
    }
    assert preview(sheet(), ()) == {}


# -- texts ------------------------------------------------------------------------------------------


def test_actions_are_described_in_sentences():
    state = rolled("44124")
    assert RULES.describe_action(state, "roll:11001", 0) == "Keeps 4 4 4 and rolls 2 dice."
    assert RULES.describe_action(state, "score:fours", 0) == "Scores 12 in Fours."
    assert RULES.describe_action(state, "dice:44444", CHANCE) == "The dice show 4 4 4 4 4."
    yatzy = rolled("33333", sheet(yatzy=50))
    assert RULES.describe_action(yatzy, "score:threes", 0) == "Scores 15 in Threes. Yatzy bonus +100!"


def test_the_view_is_the_whole_state_because_nothing_is_hidden():
    state = rolled("12345")
    assert RULES.view(state, 0) == state
    assert hash(RULES.view(state, 0)) == hash(state)
