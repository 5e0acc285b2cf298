"""Property tests: the fast generator against a slow, straightforward reference.

The reference knows nothing of bit masks: it builds every shape's forms by
turning and flipping cell lists, and checks docs/rules/lits.md's three rules (3.2, 3.3
and 3.4) cell by cell on a dict board.
"""

from __future__ import annotations

from gamenight.sdk import TERMINAL
from gamenight_lits.rules import PLACEMENTS, LitsRules, LitsState, Placement, Violation, why_illegal
from hypothesis import given, settings
from hypothesis import strategies as st

from .conftest import random_position

BASE = {
    "L": [(0, 0), (1, 0), (2, 0), (2, 1)],
    "I": [(0, 0), (1, 0), (2, 0), (3, 0)],
    "T": [(0, 0), (0, 1), (0, 2), (1, 1)],
    "S": [(0, 1), (0, 2), (1, 0), (1, 1)],
}
RULES = LitsRules()


def forms(shape: str) -> set[frozenset[tuple[int, int]]]:
    """Every rotation and mirror image, shifted to the top-left corner."""
    out = set()
    cells = BASE[shape]
    for _flip in range(2):
        for _turn in range(4):
            cells = [(c, -r) for r, c in cells]
            top, left = min(r for r, _ in cells), min(c for _, c in cells)
            out.add(frozenset((r - top, c - left) for r, c in cells))
        cells = [(r, -c) for r, c in cells]
    return out


def board_of(state: LitsState) -> dict[tuple[int, int], str]:
    """Covered cell -> shape letter, from the placed pieces."""
    board = {}
    for pid, _seat in state.moves:
        placement = PLACEMENTS[pid]
        for cell in placement.cells:
            board[cell] = placement.shape
    return board


def reference_legal(
    state: LitsState,
    shape: str,
    cells: frozenset[tuple[int, int]],
    board: dict[tuple[int, int], str] | None = None,
) -> bool:
    board = board_of(state) if board is None else board
    if sum(PLACEMENTS[pid].shape == shape for pid, _seat in state.moves) >= 5:
        return False
    if any(not (0 <= r < 10 and 0 <= c < 10) or (r, c) in board for r, c in cells):
        return False

    def neighbours(r: int, c: int) -> list[tuple[int, int]]:
        return [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]

    edge = {n for r, c in cells for n in neighbours(r, c)} - cells
    if board and not any(n in board for n in edge):  # rule 1
        return False
    for r in range(9):  # rule 2
        for c in range(9):
            square = {(r, c), (r + 1, c), (r, c + 1), (r + 1, c + 1)}
            if all(cell in board or cell in cells for cell in square):
                return False
    return not any(board.get(n) == shape for n in edge)  # rule 3


def reference_all_legal(state: LitsState) -> set[tuple[str, frozenset[tuple[int, int]]]]:
    found = set()
    board = board_of(state)
    for shape in BASE:
        for form in forms(shape):
            for dr in range(10):
                for dc in range(10):
                    cells = frozenset((r + dr, c + dc) for r, c in form)
                    if reference_legal(state, shape, cells, board):
                        found.add((shape, cells))
    return found


positions = st.builds(
    lambda seed, steps, layout: random_position(RULES, seed, steps, layout),
    st.integers(0, 10**6),
    st.integers(0, 30),
    st.sampled_from(["weave", "fortress", "rivers", "scatter", "random"]),
)


@settings(max_examples=25, deadline=None)
@given(positions)
def test_generated_placements_are_exactly_the_legal_ones(state: LitsState) -> None:
    if state.pie_pending:
        state = RULES.apply(state, "keep")
    generated = {(PLACEMENTS[pid].shape, frozenset(PLACEMENTS[pid].cells)) for pid in state.legal}
    assert len(generated) == len(state.legal)  # no placement twice
    if state.turn == TERMINAL:
        assert reference_all_legal(state) == set()
    else:
        assert generated == reference_all_legal(state)
        assert [Placement.parse(a) for a in RULES.legal_actions(state)] == [PLACEMENTS[p] for p in state.legal]


@settings(max_examples=150, deadline=None)
@given(
    positions,
    st.sampled_from("LITS"),
    st.integers(0, 7),
    st.integers(-3, 12),
    st.integers(-3, 12),
)
def test_why_illegal_agrees_with_the_reference_and_apply(
    state: LitsState, shape: str, orientation: int, row: int, col: int
) -> None:
    if state.pie_pending or state.turn == TERMINAL:
        return
    placement = Placement(shape, row, col, orientation % len(forms(shape)))
    violation = why_illegal(state, placement)
    assert (violation is None) == reference_legal(state, shape, frozenset(placement.cells))
    if violation is None:
        after = RULES.apply(state, placement.action)
        assert after.covered == state.covered | placement.mask
    elif violation is not Violation.OFF_BOARD:
        try:
            RULES.apply(state, placement.action)
        except ValueError as error:
            assert str(error) == violation.message(shape)
        else:
            raise AssertionError("an illegal placement was applied")


def test_the_reference_knows_the_same_forms_as_the_engine() -> None:
    engine = {(p.shape, frozenset(p.cells)) for p in PLACEMENTS}
    reference = {
        (shape, frozenset((r + dr, c + dc) for r, c in form))
        for shape in BASE
        for form in forms(shape)
        for dr in range(10)
        for dc in range(10)
        if all(r + dr < 10 and c + dc < 10 for r, c in form)
    }
    assert engine == reference
