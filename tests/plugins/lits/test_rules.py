"""docs/rules/lits.md, clause by clause."""

from __future__ import annotations

import random

import pytest
from gamenight.i18n import register_catalogue, set_language
from gamenight.sdk import CHANCE, TERMINAL, IllegalAction, fill_seat_names
from gamenight_lits.plugin import GAME
from gamenight_lits.rules import (
    ACTIONS,
    CELLS,
    KEEP,
    LAYOUTS,
    MARKS_PER_SEAT,
    ORIENTATIONS,
    PLACEMENTS,
    SWAP,
    LitsRules,
    Placement,
    Violation,
    bit,
    layout_is_valid,
    legal_placements,
    point_mirror,
    why_illegal,
)

from .conftest import FIRST_I, OPENING, play, random_position


def mirror_cell(r: int, c: int) -> tuple[int, int]:
    return 9 - r, 9 - c


# -- lits.md 1: board and layouts --------------------------------------------------


def test_there_are_at_least_four_named_layouts() -> None:
    assert len(LAYOUTS) >= 4


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_every_named_layout_gives_30_marks_each_point_symmetric(name: str) -> None:
    x_marks, o_marks = LAYOUTS[name]
    assert x_marks.bit_count() == o_marks.bit_count() == MARKS_PER_SEAT
    assert not x_marks & o_marks  # so 40 cells are blank
    for r in range(10):
        for c in range(10):
            mr, mc = mirror_cell(r, c)
            assert bool(x_marks & bit(r, c)) == bool(o_marks & bit(mr, mc))


def test_a_random_layout_is_a_chance_outcome_that_is_point_symmetric(rules: LitsRules) -> None:
    state = rules.new_game(2, {"layout": "random"})
    assert rules.to_move(state) == CHANCE
    assert rules.legal_actions(state) == []
    action = rules.sample_chance(state, random.Random(7))
    dealt = rules.apply(state, action)
    assert rules.to_move(dealt) == 0
    assert dealt.x_marks.bit_count() == dealt.o_marks.bit_count() == 30
    assert dealt.o_marks == point_mirror(dealt.x_marks)
    assert not dealt.x_marks & dealt.o_marks


def test_random_layouts_follow_the_seed(rules: LitsRules) -> None:
    state = rules.new_game(2, {"layout": "random"})
    assert rules.sample_chance(state, random.Random(3)) == rules.sample_chance(state, random.Random(3))
    assert rules.sample_chance(state, random.Random(3)) != rules.sample_chance(state, random.Random(4))


@pytest.mark.parametrize(
    "action",
    [
        "layout:zz",
        "layout:",
        "L:r0c0:o0",
        f"layout:{(1 << 29) - 1:x}",  # 29 marks
        f"layout:{bit(0, 0) | bit(9, 9) | ((1 << 29) - 1) << 20:x}",  # (0,0) and its mirror both ×
        f"layout:{1 << CELLS:x}",
    ],
)
def test_an_invalid_random_layout_is_refused(rules: LitsRules, action: str) -> None:
    state = rules.new_game(2, {"layout": "random"})
    with pytest.raises(IllegalAction):
        rules.apply(state, action)


def test_layout_validity_demands_30_marks_with_distinct_mirrors() -> None:
    rows = sum(bit(r, c) for r in range(3) for c in range(10))  # rows 0-2; mirrors in rows 7-9
    assert layout_is_valid(rows)
    assert layout_is_valid(rows ^ bit(2, 9) | bit(7, 0))  # (7,0) mirrors the freed (2,9)
    assert not layout_is_valid(rows ^ bit(2, 9) | bit(7, 9))  # (7,9) mirrors (2,0), a ×
    assert not layout_is_valid(rows ^ bit(2, 9))  # 29 marks


# -- lits.md 2: pieces ---------------------------------------------------------------


def test_shapes_come_in_every_rotation_and_mirror_image() -> None:
    assert {shape: len(forms) for shape, forms in ORIENTATIONS.items()} == {"L": 8, "I": 2, "T": 4, "S": 4}
    # 8 L forms of 3×2 boxes fit 8·9 ways, and so on.
    assert len(PLACEMENTS) == 8 * 72 + 2 * 70 + 4 * 72 + 4 * 72


def test_rotating_four_times_or_mirroring_twice_is_the_identity() -> None:
    for shape, forms in ORIENTATIONS.items():
        for orientation in range(len(forms)):
            p = Placement(shape, 4, 4, orientation)
            assert p.rotated().rotated().rotated().rotated() == p
            assert p.mirrored().mirrored() == p
            assert {frozenset(q.cells) for q in (p, p.rotated(), p.mirrored())}  # all valid forms


def test_action_strings_are_short_and_have_one_spelling() -> None:
    assert FIRST_I.action == "I:r0c0:o1"
    assert Placement.parse("I:r0c0:o1") == FIRST_I
    assert len(set(ACTIONS)) == len(ACTIONS)
    assert all(len(a) <= 9 for a in ACTIONS)
    for bad in ("I:r00c0:o1", "I:r0c0:o2", "Q:r0c0:o0", "I:r0c0", "I:x0c0:o1", "swapp"):
        assert Placement.parse(bad) is None


def test_five_of_each_shape_are_shared(rules: LitsRules) -> None:
    assert rules.new_game(2, {}).remaining == (5, 5, 5, 5)


# -- lits.md 3: a turn, the three placement rules (3.2, 3.3, 3.4) ------------------------


def test_the_first_piece_may_go_anywhere(rules: LitsRules) -> None:
    state = rules.new_game(2, {})
    assert len(rules.legal_actions(state)) == len(PLACEMENTS)


def test_rule_1_a_piece_must_touch_a_placed_piece_along_an_edge(rules: LitsRules) -> None:
    state = play(rules, *OPENING)
    far = Placement("T", 5, 5, 0)
    assert why_illegal(state, far) is Violation.NO_CONTACT
    with pytest.raises(IllegalAction, match="Rule 1"):
        rules.apply(state, far.action)
    corner_only = Placement("L", 1, 4, 0)  # (1,4) meets the I at (0,3) by a corner only
    assert why_illegal(state, corner_only) is Violation.NO_CONTACT
    assert why_illegal(state, Placement("L", 0, 4, 0)) is None


def test_rule_2_no_2x2_square_may_be_fully_covered(rules: LitsRules) -> None:
    state = play(rules, *OPENING)
    square = Placement("T", 1, 0, 0)  # (1,0),(1,1),(1,2),(2,1) fills (0,0)-(1,1)
    assert why_illegal(state, square) is Violation.SQUARE
    with pytest.raises(IllegalAction, match="Rule 2"):
        rules.apply(state, square.action)


def test_rule_3_no_edge_contact_with_a_piece_of_the_same_shape(rules: LitsRules) -> None:
    state = play(rules, *OPENING)
    same = Placement("I", 1, 3, 0)  # vertical below (0,3)
    assert why_illegal(state, same) is Violation.SAME_SHAPE
    with pytest.raises(IllegalAction, match="Rule 3: the piece would touch another I"):
        rules.apply(state, same.action)
    assert why_illegal(state, Placement("L", 1, 3, 0)) is None  # another shape may touch


def test_rule_3_same_shapes_may_touch_at_corners(rules: LitsRules) -> None:
    state = play(rules, *OPENING, Placement("T", 1, 2, 3))  # (1,2),(2,2),(2,3),(3,2)
    second_i = Placement("I", 1, 4, 0)  # (1,4)..(4,4): edge to the T, corner to the I at (0,3)
    assert why_illegal(state, second_i) is None
    assert rules.apply(state, second_i.action).remaining == (5, 3, 4, 5)


def test_a_piece_may_not_overlap_or_leave_the_board(rules: LitsRules) -> None:
    state = play(rules, *OPENING)
    assert why_illegal(state, Placement("L", 0, 1, 0)) is Violation.OVERLAP
    assert why_illegal(state, Placement("I", 8, 0, 0)) is Violation.OFF_BOARD
    assert why_illegal(state, Placement("I", -1, 0, 0)) is Violation.OFF_BOARD


def test_covering_marks_of_either_seat_is_allowed(rules: LitsRules) -> None:
    state = rules.new_game(2, {})
    x_cells = [(r, c) for r in range(10) for c in range(10) if state.x_marks & bit(r, c)]
    o_cells = [(r, c) for r in range(10) for c in range(10) if state.o_marks & bit(r, c)]
    assert x_cells and o_cells
    legal = set(rules.legal_actions(state))
    covers = {"x": False, "o": False}
    for action in legal:
        cells = set(Placement.parse(action).cells)
        covers["x"] |= bool(cells & set(x_cells))
        covers["o"] |= bool(cells & set(o_cells))
    assert covers == {"x": True, "o": True}


# -- lits.md 4: the pie rule --------------------------------------------------------------


def test_after_the_first_piece_the_second_seat_chooses_swap_or_keep(rules: LitsRules) -> None:
    state = play(rules, FIRST_I)
    assert rules.to_move(state) == 1
    assert rules.legal_actions(state) == [SWAP, KEEP]
    assert why_illegal(state, Placement("L", 1, 0, 0)) is Violation.NOT_NOW
    with pytest.raises(IllegalAction, match="swap or keep"):
        rules.apply(state, "L:r1c0:o0")


def test_keep_leaves_marks_and_the_second_seat_places_next(rules: LitsRules) -> None:
    state = play(rules, FIRST_I, KEEP)
    assert rules.to_move(state) == 1
    assert state.marks(0) == state.x_marks and state.marks(1) == state.o_marks


def test_swap_gives_x_to_the_second_seat_and_the_first_seat_places_next_as_o(rules: LitsRules) -> None:
    state = play(rules, FIRST_I, SWAP)
    assert rules.to_move(state) == 0
    assert state.marks(1) == state.x_marks and state.marks(0) == state.o_marks
    assert state.moves == ((state.moves[0][0], 0),)  # the first piece stays
    assert rules.current_scores(state) == (state.uncovered(0), state.uncovered(1))
    after = rules.apply(state, "L:r0c4:o0")
    assert rules.to_move(after) == 1
    assert rules.legal_actions(after) != [SWAP, KEEP]  # only once


def test_scores_are_own_uncovered_marks(rules: LitsRules) -> None:
    state = play(rules, *OPENING)
    covered_x = (state.x_marks & state.covered).bit_count()
    covered_o = (state.o_marks & state.covered).bit_count()
    assert covered_x + covered_o > 0
    assert rules.current_scores(state) == (30 - covered_x, 30 - covered_o)


# -- lits.md 2.2: "can no longer be played by anyone" -------------------------------


def test_a_shape_that_runs_out_is_playable_by_nobody(rules: LitsRules) -> None:
    for seed in range(200):
        state = random_position(rules, seed, 40)
        if 0 in state.remaining:
            break
    else:
        pytest.fail("no random game used up a shape")
    # replay up to the moment the shape ran out, then check every later position
    rng = random.Random(seed)
    state = rules.new_game(2, {"layout": "weave"})
    seen_exhausted = False
    while rules.to_move(state) != TERMINAL:
        for index, shape in enumerate("LITS"):
            if state.remaining[index] == 0 and not state.pie_pending:
                seen_exhausted = True
                assert not any(a.startswith(shape) for a in rules.legal_actions(state))
                probe = Placement(shape, 0, 0, 0)
                assert why_illegal(state, probe) in (Violation.NONE_LEFT, Violation.OFF_BOARD)
                with pytest.raises(IllegalAction, match=f"No {shape} pieces are left"):
                    for p in PLACEMENTS:
                        if p.shape == shape:
                            rules.apply(state, p.action)
        state = rules.apply(state, rng.choice(rules.legal_actions(state)))
    assert seen_exhausted
    assert all(r >= 0 for r in state.remaining)


# -- lits.md 5: the end and the tie-break ----------------------------------------------


def test_the_game_ends_when_the_seat_to_move_cannot_place(rules: LitsRules) -> None:
    for seed in range(20):
        rng = random.Random(seed)
        state = rules.new_game(2, {})
        while rules.to_move(state) != TERMINAL:
            before = state
            state = rules.apply(state, rng.choice(rules.legal_actions(state)))
        assert legal_placements(state.covered, state.shapes, state.remaining) == []
        assert rules.legal_actions(state) == []
        assert legal_placements(before.covered, before.shapes, before.remaining)
        with pytest.raises(IllegalAction, match="over"):
            rules.apply(state, "L:r0c0:o0")


def test_more_uncovered_marks_win(rules: LitsRules) -> None:
    state = random_position(rules, 1, 100)
    outcome = rules.outcome(state)
    if outcome.scores[0] != outcome.scores[1]:
        assert outcome.winners == ((0,) if outcome.scores[0] > outcome.scores[1] else (1,))
    assert outcome.scores == (state.uncovered(0), state.uncovered(1))


def test_a_tie_goes_to_the_seat_that_placed_the_last_piece(rules: LitsRules) -> None:
    ties = 0
    for seed in range(300):
        state = random_position(rules, seed, 100)
        assert rules.to_move(state) == TERMINAL
        outcome = rules.outcome(state)
        if outcome.scores[0] == outcome.scores[1]:
            ties += 1
            assert outcome.winners == (state.moves[-1][1],)
            last_row = dict(outcome.lines)["Placed the last piece"]  # the end dialog marks who it was
            assert last_row == tuple("✓" if seat == state.moves[-1][1] else "" for seat in (0, 1))
        else:
            assert len(outcome.winners) == 1
        if ties >= 3:
            break
    assert ties >= 3


# -- bad input and texts ------------------------------------------------------------------


def test_an_illegal_placement_changes_nothing_and_says_why(rules: LitsRules) -> None:
    state = play(rules, *OPENING)
    snapshot = (state.covered, state.shapes, state.remaining, state.moves, state.turn)
    for action, reason in [
        ("T:r5c5:o0", "Rule 1"),
        ("T:r1c0:o0", "Rule 2"),
        ("I:r1c3:o0", "Rule 3"),
        ("L:r0c1:o0", "overlaps"),
        ("nonsense", "not a placement"),
    ]:
        with pytest.raises(IllegalAction, match=reason):
            rules.apply(state, action)
    assert (state.covered, state.shapes, state.remaining, state.moves, state.turn) == snapshot


def test_messages_and_descriptions_are_translated(rules: LitsRules) -> None:
    state = play(rules, *OPENING)
    register_catalogue("lits", GAME.translations)
    try:
        set_language("ja")
        assert "ルール 1" in Violation.NO_CONTACT.message()
        assert fill_seat_names(rules.describe_action(state, "L:r1c4:o0", 0), ["ケイ"]) == "ケイ が L を e2 に置きます。"
    finally:
        set_language("en")
    assert fill_seat_names(rules.describe_action(state, "L:r1c4:o0", 0)) == "Seat 1 places L on e2."
    assert fill_seat_names(rules.describe_action(state, SWAP, 1), ["Ann", "Ben"]) == "Ben swaps sides and takes ×."
