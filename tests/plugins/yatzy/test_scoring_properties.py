"""Property tests (hypothesis) for Yatzy scoring."""

from __future__ import annotations

from collections import Counter

from gamenight_yatzy.rules import BOXES, base_scores, preview, scoring_boxes
from hypothesis import given
from hypothesis import strategies as st

from .conftest import RULES, rolled

dice_strategy = st.lists(st.integers(1, 6), min_size=5, max_size=5).map(tuple)
sheet_strategy = st.lists(st.one_of(st.none(), st.integers(0, 50)), min_size=13, max_size=13).map(tuple)


@given(dice_strategy, st.permutations(range(5)))
def test_scores_do_not_depend_on_the_order_of_the_dice(dice, order):
    assert base_scores(dice) == base_scores(tuple(dice[i] for i in order))


@given(dice_strategy)
def test_upper_boxes_sum_to_the_dice_total_like_chance(dice):
    scores = base_scores(dice)
    assert sum(scores[:6]) == sum(dice) == scores[BOXES.index("chance")]


@given(dice_strategy)
def test_kinds_score_the_total_or_nothing_and_four_implies_three(dice):
    scores = dict(zip(BOXES, base_scores(dice), strict=True))
    most = max(Counter(dice).values())
    assert scores["three_kind"] == (sum(dice) if most >= 3 else 0)
    assert scores["four_kind"] == (sum(dice) if most >= 4 else 0)
    assert scores["four_kind"] == 0 or scores["three_kind"] == scores["four_kind"]


@given(dice_strategy)
def test_fixed_boxes_score_their_value_or_zero(dice):
    scores = dict(zip(BOXES, base_scores(dice), strict=True))
    assert scores["full_house"] in (0, 25)
    assert scores["small_straight"] in (0, 30)
    assert scores["large_straight"] in (0, 40)
    assert scores["yatzy"] in (0, 50)
    assert scores["full_house"] == (25 if sorted(Counter(dice).values()) == [2, 3] else 0)
    assert scores["yatzy"] == (50 if len(set(dice)) == 1 else 0)


@given(dice_strategy)
def test_a_large_straight_is_five_distinct_consecutive_faces_and_implies_a_small(dice):
    scores = dict(zip(BOXES, base_scores(dice), strict=True))
    consecutive = len(set(dice)) == 5 and max(dice) - min(dice) == 4
    assert (scores["large_straight"] == 40) == consecutive
    assert scores["large_straight"] == 0 or scores["small_straight"] == 30


@given(dice_strategy)
def test_a_small_straight_means_four_consecutive_faces(dice):
    faces = set(dice)
    has_run = any({start, start + 1, start + 2, start + 3} <= faces for start in (1, 2, 3))
    assert (base_scores(dice)[BOXES.index("small_straight")] == 30) == has_run


@given(sheet_strategy, dice_strategy, st.booleans())
def test_preview_covers_exactly_the_boxes_the_rules_allow(the_sheet, dice, joker):
    shown = preview(the_sheet, dice, joker)
    assert set(shown) == set(scoring_boxes(the_sheet, dice, joker))
    assert all(the_sheet[box] is None for box in shown)
    if None in the_sheet:
        assert shown  # some box always takes the dice


@given(sheet_strategy.filter(lambda s: None in s), dice_strategy, st.booleans())
def test_scoring_a_previewed_box_writes_exactly_the_previewed_points(the_sheet, dice, joker):
    state = rolled("".join(map(str, dice)), the_sheet, joker=joker)
    for box, points in preview(the_sheet, dice, joker).items():
        after = RULES.apply(state, "score:" + BOXES[box])
        assert after.sheets[0][box] == points
        assert after.sheets[0][:box] + after.sheets[0][box + 1 :] == the_sheet[:box] + the_sheet[box + 1 :]
