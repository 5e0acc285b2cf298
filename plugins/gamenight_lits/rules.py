"""Battle of LITS: the pure rules engine (docs/rules/lits.md).

The board is a 100-bit Python int, bit ``10 * row + col`` per cell.  Every
placement of every shape (all rotations and mirror images, everywhere on the
board) is precomputed once as a cell mask.  To check one placement
(:func:`why_illegal`) the three placement rules are a few integer operations:

1. contact: ``grow(cells) & covered`` (not for the very first piece);
2. no full 2×2: one shift-and test over the would-be covered board;
3. no edge contact with the same shape: ``cells & grow(cells of that shape)``.

To list them all (:func:`legal_placements`) the same rules are applied to
every anchor of an orientation at once, on shifted copies of the board.

Actions are short strings: ``"L:r3c4:o5"`` places shape L in its orientation
5 with its anchor (the piece's first cell in reading order) on row 3, column
4 (both from 0); ``"swap"``/``"keep"`` answer the pie rule; ``"layout:<hex>"``
is the chance outcome that deals a random layout (the × cells as a hex int).
"""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from gamenight.sdk import CHANCE, TERMINAL, Action, IllegalAction, Outcome, PublicEvent, Rules

from .texts import COLUMNS as COLUMNS  # re-exported: the names live with the texts
from .texts import cell_name as cell_name
from .texts import describe_choice_event, describe_event, say

SIZE = 10
CELLS = SIZE * SIZE
FULL = (1 << CELLS) - 1
SHAPES = "LITS"
PIECES_PER_SHAPE = 5
MARKS_PER_SEAT = 30
CROSS = 0
"""The symbol of the first seat's marks (×) until a pie swap; the other one is ○."""
SWAP, KEEP = "swap", "keep"
LAYOUT_PREFIX = "layout:"


def bit(row: int, col: int) -> int:
    """The mask of one cell."""
    return 1 << (SIZE * row + col)


_COL0 = sum(bit(r, 0) for r in range(SIZE))
_COL9 = sum(bit(r, SIZE - 1) for r in range(SIZE))
_SQUARE_CORNERS = sum(bit(r, c) for r in range(SIZE - 1) for c in range(SIZE - 1))
"""Top-left cells of the 81 2×2 squares."""


def grow(mask: int) -> int:
    """``mask`` plus its edge neighbours."""
    return mask | ((mask << 1) & ~_COL0 & FULL) | ((mask >> 1) & ~_COL9) | ((mask << SIZE) & FULL) | (mask >> SIZE)


def full_squares(covered: int) -> int:
    """Top-left cells of the fully covered 2×2 squares of ``covered``."""
    return covered & (covered >> 1) & (covered >> SIZE) & (covered >> (SIZE + 1)) & _SQUARE_CORNERS


# -- shapes and their orientations ------------------------------------------

_BASE = {
    "L": ((0, 0), (1, 0), (2, 0), (2, 1)),
    "I": ((0, 0), (1, 0), (2, 0), (3, 0)),
    "T": ((0, 0), (0, 1), (0, 2), (1, 1)),
    "S": ((0, 1), (0, 2), (1, 0), (1, 1)),
}


def _normalise(cells: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    top = min(r for r, _c in cells)
    left = min(c for _r, c in cells)
    return tuple(sorted((r - top, c - left) for r, c in cells))


def _rotated(cells: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    return _normalise([(c, -r) for r, c in cells])


def _mirrored(cells: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    return _normalise([(r, -c) for r, c in cells])


def _orientations(shape: str) -> list[tuple[tuple[int, int], ...]]:
    found: list[tuple[tuple[int, int], ...]] = []
    for flip in (False, True):
        cells = _normalise(list(_BASE[shape]))
        if flip:
            cells = _mirrored(cells)
        for _turn in range(4):
            if cells not in found:
                found.append(cells)
            cells = _rotated(cells)
    return found


ORIENTATIONS: dict[str, tuple[tuple[tuple[int, int], ...], ...]] = {
    shape: tuple(
        # offsets from the anchor, the piece's first cell in reading order
        tuple((r - cells[0][0], c - cells[0][1]) for r, c in cells)
        for cells in _orientations(shape)
    )
    for shape in SHAPES
}
"""Distinct orientations per shape: L 8, I 2, T 4, S 4 (S and its mirror Z)."""

ROTATE: dict[str, tuple[int, ...]] = {}
"""``ROTATE[shape][o]``: the orientation a quarter turn clockwise from ``o``."""
MIRROR: dict[str, tuple[int, ...]] = {}
"""``MIRROR[shape][o]``: the orientation mirrored left-right from ``o``."""
for _shape in SHAPES:
    _forms = _orientations(_shape)
    ROTATE[_shape] = tuple(_forms.index(_rotated(form)) for form in _forms)
    MIRROR[_shape] = tuple(_forms.index(_mirrored(form)) for form in _forms)


@dataclass(frozen=True)
class Placement:
    """A piece on the board: shape, orientation and anchor (may lie off the board)."""

    shape: str
    row: int
    col: int
    orientation: int = 0

    @property
    def cells(self) -> list[tuple[int, int]]:
        """The four cells it covers (possibly off the board)."""
        return [(self.row + dr, self.col + dc) for dr, dc in ORIENTATIONS[self.shape][self.orientation]]

    @property
    def on_board(self) -> bool:
        """True when all four cells are on the board."""
        return all(0 <= r < SIZE and 0 <= c < SIZE for r, c in self.cells)

    @property
    def mask(self) -> int:
        """The cell mask (only meaningful when :attr:`on_board`)."""
        return sum(bit(r, c) for r, c in self.cells)

    @property
    def action(self) -> Action:
        """The action string, e.g. ``"L:r3c4:o5"``."""
        return f"{self.shape}:r{self.row}c{self.col}:o{self.orientation}"

    def rotated(self) -> Placement:
        """A quarter turn clockwise about the anchor."""
        return replace(self, orientation=ROTATE[self.shape][self.orientation])

    def mirrored(self) -> Placement:
        """Mirrored left-right about the anchor."""
        return replace(self, orientation=MIRROR[self.shape][self.orientation])

    def with_shape(self, shape: str) -> Placement:
        """The same anchor with another shape (first orientation)."""
        return Placement(shape, self.row, self.col, 0)

    @classmethod
    def parse(cls, action: str) -> Placement | None:
        """The placement named by ``action``, or ``None`` if it is not a placement string."""
        parts = action.split(":")
        if len(parts) != 3 or parts[0] not in ORIENTATIONS:
            return None
        where, orient = parts[1], parts[2]
        if not (where.startswith("r") and "c" in where and orient.startswith("o")):
            return None
        row_text, col_text = where[1:].split("c", 1)
        if not (row_text.isdigit() and col_text.isdigit() and orient[1:].isdigit()):
            return None
        orientation = int(orient[1:])
        if orientation >= len(ORIENTATIONS[parts[0]]):
            return None
        placement = cls(parts[0], int(row_text), int(col_text), orientation)
        return placement if placement.action == action else None  # one spelling per placement


# -- the placement table ------------------------------------------------------

PLACEMENTS: list[Placement] = []
"""Every on-board placement; its index is its id (ordered by shape, anchor, orientation)."""
MASK: list[int] = []
SHAPE_OF: list[int] = []
ACTIONS: list[Action] = []
PLACEMENT_ID: dict[Action, int] = {}
for _index, _shape in enumerate(SHAPES):  # plain arithmetic here: this runs at import, 3,600 candidates
    for _row in range(SIZE):
        for _col in range(SIZE):
            for _orient, _piece in enumerate(ORIENTATIONS[_shape]):
                _cells = [(_row + _dr, _col + _dc) for _dr, _dc in _piece]
                if all(0 <= _r < SIZE and 0 <= _c < SIZE for _r, _c in _cells):
                    _action = f"{_shape}:r{_row}c{_col}:o{_orient}"  # == Placement.action
                    PLACEMENT_ID[_action] = len(PLACEMENTS)
                    PLACEMENTS.append(Placement(_shape, _row, _col, _orient))
                    MASK.append(sum(1 << (SIZE * _r + _c) for _r, _c in _cells))
                    SHAPE_OF.append(_index)
                    ACTIONS.append(_action)


# -- bit-parallel generation ----------------------------------------------------------
#
# For one orientation, the set of *anchors* where the piece breaks a rule is a
# union of shifted boards: the piece overlaps X at anchor a iff a + d is in X
# for one of its cell offsets d.  So all placements of one orientation are
# tested at once with a few dozen big-int operations instead of one by one.

_COLUMN_OK = {dc: sum(bit(r, c) for r in range(SIZE) for c in range(SIZE) if 0 <= c + dc < SIZE) for dc in range(-4, 5)}
"""Anchors whose column plus ``dc`` stays on the board (a shift must not wrap a row)."""


def _shift_table(offsets: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    return tuple((SIZE * dr + dc, _COLUMN_OK[dc]) for dr, dc in offsets)


def _orientation_tables() -> tuple[list[tuple[int, int]], list[tuple[Any, ...]]]:
    """Shifts of the covered board shared by all orientations, and per shape its orientations.

    A row per orientation: indices of its cells among the shape's shifts, the
    cells' offsets from the anchor, the squares it would complete (as the
    offsets of the square's other cells, when there are one or two of them),
    the anchors where it fits on the board, and anchor cell -> placement id.
    """
    offsets: list[tuple[int, int]] = []

    def index_in(offset: tuple[int, int], pool: list[tuple[int, int]]) -> int:
        if offset not in pool:
            pool.append(offset)
        return pool.index(offset)

    tables = []
    for index, shape in enumerate(SHAPES):
        shape_offsets: list[tuple[int, int]] = []  # shifts of this shape's blocked board
        rows = []
        for orientation, piece in enumerate(ORIENTATIONS[shape]):
            cells = set(piece)
            rests = []  # the other cells of the 2×2 squares of which the piece takes two or three
            for r, c in cells:
                for top in (r - 1, r):
                    for left in (c - 1, c):
                        square = {(top, left), (top + 1, left), (top, left + 1), (top + 1, left + 1)}
                        rest = tuple(sorted(index_in(d, offsets) for d in square - cells))
                        if len(rest) < 3 and rest not in rests:
                            rests.append(rest)
            ids = {}
            for row in range(SIZE):
                for col in range(SIZE):
                    action = f"{shape}:r{row}c{col}:o{orientation}"  # == Placement(...).action
                    if action in PLACEMENT_ID:
                        ids[SIZE * row + col] = PLACEMENT_ID[action]
            rows.append(
                (
                    tuple(index_in(d, shape_offsets) for d in sorted(cells)),
                    tuple(SIZE * dr + dc for dr, dc in sorted(cells)),  # all >= 0: the anchor comes first
                    tuple(rests),
                    sum(1 << cell for cell in ids),
                    ids,
                )
            )
        tables.append((index, _shift_table(shape_offsets), tuple(rows)))
    return offsets, tables


_OFFSETS, _SHAPE_TABLES = _orientation_tables()
_EVERY_PLACEMENT = tuple(range(len(PLACEMENTS)))
_OFFSET_SHIFTS = _shift_table(_OFFSETS)
_NOT_COL0 = FULL & ~_COL0
_NOT_COL9 = FULL & ~_COL9
_NOT_ROW0 = FULL & ~((1 << SIZE) - 1)
_NOT_ROW9 = (1 << (CELLS - SIZE)) - 1


def last_square_cells(covered: int) -> int:
    """Empty cells that would complete a 2×2 square whose other three cells are covered."""
    c = covered
    top_left = (c >> 1) & (c >> SIZE) & (c >> (SIZE + 1)) & _NOT_COL9 & _NOT_ROW9
    top_right = (c << 1) & (c >> (SIZE - 1)) & (c >> SIZE) & _NOT_COL0 & _NOT_ROW9
    bottom_left = (c << SIZE) & (c << (SIZE - 1)) & (c >> 1) & _NOT_COL9 & _NOT_ROW0
    bottom_right = (c << (SIZE + 1)) & (c << SIZE) & (c << 1) & _NOT_COL0 & _NOT_ROW0
    return (top_left | top_right | bottom_left | bottom_right) & ~c


def _anchor_sets(covered: int, shapes: Sequence[int], remaining: Sequence[int]) -> list[tuple[Any, int, int]]:
    """Per orientation: (its table row, anchors legal but for contact, anchors in contact)."""
    near = [((covered >> k) if k >= 0 else ((covered << -k) & FULL)) & ok for k, ok in _OFFSET_SHIFTS]
    frontier = grow(covered) & ~covered
    last = last_square_cells(covered)  # rule 2 where the piece takes one cell of a square
    out = []
    for index, shape_shifts, rows in _SHAPE_TABLES:
        if not remaining[index]:
            continue
        avoid = covered | grow(shapes[index]) | last  # no overlap; rule 3
        hit = [((avoid >> k) if k >= 0 else ((avoid << -k) & FULL)) & ok for k, ok in shape_shifts]
        edge = [((frontier >> k) if k >= 0 else ((frontier << -k) & FULL)) & ok for k, ok in shape_shifts]
        for row in rows:
            a, b, c, d = row[0]
            anchors = row[3] & ~(hit[a] | hit[b] | hit[c] | hit[d])
            for rest in row[2]:  # rule 2 where it takes two or three cells of a square
                anchors &= ~(near[rest[0]] & near[rest[1]] if len(rest) == 2 else near[rest[0]])
            # rule 1: a piece off the covered cells touches them iff it meets the frontier
            touching = anchors & (edge[a] | edge[b] | edge[c] | edge[d]) if covered else anchors
            out.append((row, anchors, touching))
    return out


def legal_placements(covered: int, shapes: Sequence[int], remaining: Sequence[int]) -> list[int]:
    """Ids of the placements legal on this board (docs/rules/lits.md 3.2, 3.3 and 3.4), ascending."""
    if not covered and all(remaining):
        return list(_EVERY_PLACEMENT)  # the first piece may go anywhere
    legal: list[int] = []
    append = legal.append
    for row, _anchors, touching in _anchor_sets(covered, shapes, remaining):
        ids = row[4]
        while touching:
            low = touching & -touching
            touching ^= low
            append(ids[low.bit_length() - 1])
    legal.sort()
    return legal


def scan(covered: int, shapes: tuple[int, ...], remaining: tuple[int, ...]) -> tuple[list[int], int]:
    """The legal placement ids, and every cell any placement could still ever cover.

    Rules 2 and 3 and the supply only tighten as pieces go down, so a cell
    outside the second value can never be covered: the marks on it are safe
    for good (docs/rules/lits.md 6.2).  Contact is the one rule that loosens, so it is
    left out of the second value.
    """
    legal: list[int] = []
    append = legal.append
    reach = 0
    for row, anchors, touching in _anchor_sets(covered, shapes, remaining):
        for k in row[1]:
            reach |= anchors << k
        ids = row[4]
        while touching:
            low = touching & -touching
            touching ^= low
            append(ids[low.bit_length() - 1])
    return legal, reach & FULL


# -- layouts -------------------------------------------------------------------

_LAYOUT_ART = {
    "weave": """
        X.O.X.O.X.
        .XO.XO.XO.
        O.X.OX.O.X
        XO.XO.X.OX
        .O.X.OX.OX
        OX.OX.O.X.
        OX.O.XO.XO
        O.X.OX.O.X
        .XO.XO.XO.
        .O.X.O.X.O
    """,
    "fortress": """
        XX.OO..XX.
        X..OX..X.O
        .OO..XX.XO
        O..XX.OOO.
        OX.X.XO.OX
        OX.XO.O.OX
        .XXX.OO..X
        XO.OO..XX.
        X.O..OX..O
        .OO..XX.OO
    """,
    "rivers": """
        XOX.X.OX.X
        ..........
        OXOXOXOXOX
        ..O.OX.X..
        XOXO.OXOXO
        XOXOX.XOXO
        ..O.OX.X..
        OXOXOXOXOX
        ..........
        O.OX.O.OXO
    """,
    "scatter": """
        OOXX.....X
        XOOOOXX.XX
        XX.O.X.X..
        O.OXO.O...
        OXXO.X..X.
        .O..O.XOOX
        ...X.XOX.X
        ..O.O.X.OO
        OO.OOXXXXO
        O.....OOXX
    """,
}


def _parse_art(art: str) -> tuple[int, int]:
    rows = art.split()
    x_marks = sum(bit(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "X")
    o_marks = sum(bit(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "O")
    return x_marks, o_marks


LAYOUTS: dict[str, tuple[int, int]] = {name: _parse_art(art) for name, art in _LAYOUT_ART.items()}
"""Named fixed layouts: ``name -> (× cells, ○ cells)``, all point-symmetric."""
RANDOM_LAYOUT = "random"
DEFAULT_LAYOUT = "weave"


def point_mirror(mask: int) -> int:
    """``mask`` turned half a turn: (r, c) -> (9 − r, 9 − c), i.e. bit i -> bit 99 − i."""
    return int(format(mask, f"0{CELLS}b")[::-1], 2)


def random_layout(rng: random.Random) -> int:
    """× cells of a random point-symmetric layout (docs/rules/lits.md 1.3 and 1.4).

    The 100 cells fall into 50 mirror pairs; 30 pairs get marks, and in each
    a coin decides which cell is × (its partner is then ○).
    """
    pairs = rng.sample(range(CELLS // 2), MARKS_PER_SEAT)
    return sum(1 << (CELLS - 1 - i if rng.random() < 0.5 else i) for i in pairs)


def layout_is_valid(x_marks: int) -> bool:
    """30 × cells whose mirror images (the ○ cells) are all different cells."""
    return 0 <= x_marks <= FULL and x_marks.bit_count() == MARKS_PER_SEAT and not x_marks & point_mirror(x_marks)


# -- state -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LitsState:
    """A position.  ``turn`` is a seat, CHANCE (random layout pending) or TERMINAL."""

    layout: str
    x_marks: int
    o_marks: int
    turn: int
    covered: int = 0
    shapes: tuple[int, int, int, int] = (0, 0, 0, 0)
    """Cells covered by each shape (L, I, T, S)."""
    remaining: tuple[int, int, int, int] = (PIECES_PER_SHAPE,) * 4
    moves: tuple[tuple[int, int], ...] = ()
    """``(placement id, seat)`` of each piece, in order."""
    pie_pending: bool = False
    swapped: bool = False
    legal: tuple[int, ...] = ()
    """Legal placement ids for the seat to move (cached when the turn is set)."""

    def symbol(self, seat: int) -> int:
        """The symbol ``seat`` owns now: CROSS (×) or 1 (○)."""
        return seat ^ int(self.swapped)

    def marks(self, seat: int) -> int:
        """Cells of ``seat``'s marks."""
        return self.x_marks if self.symbol(seat) == CROSS else self.o_marks

    def uncovered(self, seat: int) -> int:
        """How many of ``seat``'s marks no piece covers (its score)."""
        return (self.marks(seat) & ~self.covered).bit_count()

    @property
    def last_placer(self) -> int | None:
        """The seat that placed the last piece."""
        return self.moves[-1][1] if self.moves else None


class Violation(enum.Enum):
    """Why a placement is illegal; the three named rules come first."""

    NO_CONTACT = "contact"
    SQUARE = "square"
    SAME_SHAPE = "same-shape"
    OVERLAP = "overlap"
    OFF_BOARD = "off-board"
    NONE_LEFT = "none-left"
    NOT_NOW = "not-now"

    def message(self, shape: str = "") -> str:
        """The translated explanation shown to the player (:mod:`.texts` translates)."""
        return say(self.error(shape))

    def error(self, shape: str = "") -> IllegalAction:
        """The refusal as data: the violation's value as its code, the rule as its sentence."""
        if self is Violation.NO_CONTACT:
            return IllegalAction.because(self.value, "Rule 1: the piece must touch a placed piece along an edge.")
        if self is Violation.SQUARE:
            return IllegalAction.because(self.value, "Rule 2: the piece would fill a 2×2 square.")
        if self is Violation.SAME_SHAPE:
            return IllegalAction.because(
                self.value, "Rule 3: the piece would touch another {shape} along an edge.", shape=shape
            )
        if self is Violation.OVERLAP:
            return IllegalAction.because(self.value, "The piece overlaps a placed piece.")
        if self is Violation.OFF_BOARD:
            return IllegalAction.because(self.value, "The piece does not fit on the board.")
        if self is Violation.NONE_LEFT:
            return IllegalAction.because(self.value, "No {shape} pieces are left.", shape=shape)
        return IllegalAction.because(self.value, "No piece can be placed now.")


def why_illegal(state: LitsState, placement: Placement) -> Violation | None:
    """``None`` if ``placement`` is legal now, else the first rule it breaks."""
    if state.turn < 0 or state.pie_pending:
        return Violation.NOT_NOW
    if not placement.on_board:
        return Violation.OFF_BOARD
    index = SHAPES.index(placement.shape)
    if not state.remaining[index]:
        return Violation.NONE_LEFT
    mask = placement.mask
    if mask & state.covered:
        return Violation.OVERLAP
    if state.covered and not (grow(mask) & ~mask & state.covered):
        return Violation.NO_CONTACT
    if full_squares(state.covered | mask):
        return Violation.SQUARE
    if grow(mask) & state.shapes[index]:
        return Violation.SAME_SHAPE
    return None


class LitsRules(Rules):
    """Battle of LITS for two seats (docs/rules/lits.md)."""

    watchable = True
    """Perfect information: a watcher sees what the seats see."""

    def new_game(self, seats: int, options: Mapping[str, Any]) -> LitsState:
        """Fixed layouts start at once; ``random`` waits for the chance deal."""
        layout = str(options.get("layout", DEFAULT_LAYOUT))
        if layout == RANDOM_LAYOUT:
            return LitsState(layout=layout, x_marks=0, o_marks=0, turn=CHANCE)
        x_marks, o_marks = LAYOUTS[layout]
        return self._with_turn(LitsState(layout=layout, x_marks=x_marks, o_marks=o_marks, turn=0), 0)

    def to_move(self, state: LitsState) -> int:
        """The seat to move, CHANCE or TERMINAL."""
        return state.turn

    def legal_actions(self, state: LitsState) -> list[Action]:
        """Placement strings, or ``swap``/``keep`` when the pie rule is pending."""
        if state.turn < 0:
            return []
        if state.pie_pending:
            return [SWAP, KEEP]
        return [ACTIONS[pid] for pid in state.legal]

    def sample_chance(self, state: LitsState, rng: random.Random) -> Action:
        """A random point-symmetric layout."""
        return f"{LAYOUT_PREFIX}{random_layout(rng):x}"

    def apply(self, state: LitsState, action: Action) -> LitsState:
        """The state after ``action``; IllegalAction says which rule it breaks."""
        if state.turn == TERMINAL:
            raise IllegalAction.because("game-over", "The game is over.")
        if state.turn == CHANCE:
            return self._deal(state, action)
        if state.pie_pending:
            return self._pie(state, action)
        pid = PLACEMENT_ID.get(action, -1)
        if pid in state.legal:
            return self._place(state, pid)
        placement = Placement.parse(action)
        if placement is None:
            raise IllegalAction.because(
                "not-a-placement", "{action!r} is not a placement like L:r3c4:o0.", action=action
            )
        violation = why_illegal(state, placement) or Violation.NOT_NOW
        raise violation.error(placement.shape)

    @staticmethod
    def _place(state: LitsState, pid: int) -> LitsState:
        """Put down placement ``pid`` (known legal) and pass the turn."""
        index = SHAPE_OF[pid]
        mask = MASK[pid]
        covered = state.covered | mask
        shapes = list(state.shapes)
        shapes[index] |= mask
        remaining = list(state.remaining)
        remaining[index] -= 1
        moves = (*state.moves, (pid, state.turn))
        first = len(moves) == 1  # the pie rule: the second seat now chooses a side
        legal = () if first else tuple(legal_placements(covered, shapes, remaining))
        turn = 1 if first else (1 - state.turn if legal else TERMINAL)  # lits.md 5.1
        return LitsState(
            state.layout,
            state.x_marks,
            state.o_marks,
            turn,
            covered,
            (shapes[0], shapes[1], shapes[2], shapes[3]),
            (remaining[0], remaining[1], remaining[2], remaining[3]),
            moves,
            first,
            state.swapped,
            legal,
        )

    def _pie(self, state: LitsState, action: Action) -> LitsState:
        # lits.md 4.2: whoever holds ○ afterwards places next.
        if action not in (SWAP, KEEP):
            raise IllegalAction.because("pie-rule-pending", "Choose swap or keep (the pie rule).")
        swapped = action == SWAP
        decided = replace(state, pie_pending=False, swapped=swapped)
        return self._with_turn(decided, 0 if swapped else 1)

    def _deal(self, state: LitsState, action: Action) -> LitsState:
        text = action[len(LAYOUT_PREFIX) :] if action.startswith(LAYOUT_PREFIX) else ""
        try:
            x_marks = int(text, 16) if text else -1
        except ValueError:
            x_marks = -1
        if not layout_is_valid(x_marks):
            raise IllegalAction.because("bad-layout", "{action!r} is not a valid symmetric layout.", action=action)
        dealt = replace(state, x_marks=x_marks, o_marks=point_mirror(x_marks))
        return self._with_turn(dealt, 0)

    @staticmethod
    def _with_turn(state: LitsState, seat: int) -> LitsState:
        # lits.md 5.1: the game ends when the seat to move cannot place.
        legal = tuple(legal_placements(state.covered, state.shapes, state.remaining))
        return replace(state, turn=seat if legal else TERMINAL, legal=legal)

    def view(self, state: LitsState, seat: int) -> LitsState:
        """Perfect information: everyone sees the whole board."""
        return state

    def current_scores(self, state: LitsState) -> tuple[float, ...]:
        """Uncovered own marks per seat."""
        return (float(state.uncovered(0)), float(state.uncovered(1)))

    def outcome(self, state: LitsState) -> Outcome:
        """More uncovered own marks wins; a tie goes to the last placer."""
        scores = self.current_scores(state)
        if scores[0] != scores[1]:
            winners: tuple[int, ...] = (0 if scores[0] > scores[1] else 1,)
        else:
            winners = (state.last_placer,) if state.last_placer is not None else (0, 1)
        covered = tuple(float((state.marks(s) & state.covered).bit_count()) for s in (0, 1))
        last = tuple("✓" if s == state.last_placer else "" for s in (0, 1))
        return Outcome(
            scores=scores,
            winners=winners,
            lines=(("Uncovered marks", scores), ("Covered marks", covered), ("Placed the last piece", last)),
        )

    def public_events(self, before: LitsState, action: Action, seat: int) -> list[PublicEvent]:
        """A layout dealt, the pie rule answered, or a piece placed (``shape``, ``row``, ``col``)."""
        if seat == CHANCE:
            return [PublicEvent("layout")]
        if action in (SWAP, KEEP):
            return [PublicEvent(action, {"seat": seat})]
        placement = Placement.parse(action)
        if placement is None:
            return [PublicEvent(PublicEvent.ACTION, {"seat": seat, "text": action})]
        return [
            PublicEvent(
                "place",
                {"seat": seat, "shape": placement.shape, "row": placement.row, "col": placement.col},
            )
        ]

    def describe_action(self, state: LitsState, action: Action, seat: int) -> str:
        """A sentence such as "Kei places L on e4", translated (the seat as a :func:`seat_token`)."""
        return " ".join(describe_event(event) for event in self.public_events(state, action, seat))

    def describe_choice(self, state: LitsState, action: Action, seat: int) -> str:
        """The coach's words for a choice of the seat to move ("Place L on e4 e5 e6 f6"), translated."""
        events = self.public_events(state, action, seat)
        placement = Placement.parse(action)
        if placement is not None and placement.on_board:  # the cells, not only the anchor: a choice of one
            cells = [list(cell) for cell in sorted(placement.cells)]
            events = [PublicEvent("place", {**events[0].params, "cells": cells})]
        return " ".join(describe_choice_event(event) for event in events)
