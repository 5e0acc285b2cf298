"""The widgets of the LITS table: the board with its ghost piece, and the piece palette."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.events import Click, MouseMove
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from .rules import COLUMNS, PLACEMENTS, SIZE, LitsState, bit

ROW_LABEL = 3
"""Cells of the row labels left of the grid ("10 ")."""


class Board(Widget):
    """The 10×10 grid: marks, placed pieces by shape colour, the last move and a ghost.

    Each cell is two columns wide.  Moving the mouse over a cell and clicking
    it post :class:`Board.Hovered` and :class:`Board.Clicked`.
    """

    can_focus = True

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "board--label",
        "board--empty",
        "board--mark-x",
        "board--mark-o",
        "board--shape-l",
        "board--shape-i",
        "board--shape-t",
        "board--shape-s",
        "board--last",
        "board--ghost-ok",
        "board--ghost-bad",
    }

    DEFAULT_CSS = """
    Board { width: 27; height: 13; border: round $panel; padding: 0 1; }
    Board:focus { border: round $accent; }
    Board > .board--label { color: $text-muted; }
    Board > .board--empty { color: $text-muted; }
    Board > .board--mark-x { color: $lits-mark-x; text-style: bold; }
    Board > .board--mark-o { color: $lits-mark-o; text-style: bold; }
    Board > .board--shape-l { background: $lits-shape-l; color: $background; }
    Board > .board--shape-i { background: $lits-shape-i; color: $background; }
    Board > .board--shape-t { background: $lits-shape-t; color: $background; }
    Board > .board--shape-s { background: $lits-shape-s; color: $background; }
    Board > .board--last { text-style: bold underline; }
    Board > .board--ghost-ok { background: $lits-ghost; color: $background; text-style: bold; }
    Board > .board--ghost-bad { background: $lits-ghost-bad; color: $background; text-style: bold; }
    """

    class Hovered(Message):
        """The mouse is over the cell (row, col)."""

        def __init__(self, row: int, col: int) -> None:
            super().__init__()
            self.row = row
            self.col = col

    class Clicked(Message):
        """The cell (row, col) was clicked."""

        def __init__(self, row: int, col: int) -> None:
            super().__init__()
            self.row = row
            self.col = col

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state: LitsState | None = None
        self.ghost: list[tuple[int, int]] = []
        self.ghost_legal = True

    def show(self, state: LitsState, ghost: list[tuple[int, int]], ghost_legal: bool) -> None:
        """Draw ``state`` with the ghost cells (empty list: no ghost)."""
        self.state = state
        self.ghost = ghost
        self.ghost_legal = ghost_legal
        self.refresh()

    def render(self) -> Text:
        text = Text(no_wrap=True)
        label = self.get_component_rich_style("board--label")
        text.append(" " * ROW_LABEL + " ".join(COLUMNS) + "\n", label)
        if self.state is None:
            return text
        state = self.state
        shape_of: dict[tuple[int, int], str] = {}
        for pid, _seat in state.moves:
            for cell in PLACEMENTS[pid].cells:
                shape_of[cell] = PLACEMENTS[pid].shape
        last = set(PLACEMENTS[state.moves[-1][0]].cells) if state.moves else set()
        ghost = set(self.ghost)
        ghost_style = self.get_component_rich_style(
            "board--ghost-ok" if self.ghost_legal else "board--ghost-bad", partial=True
        )
        for row in range(SIZE):
            text.append(f"{row + 1:>2} ", label)
            for col in range(SIZE):
                glyph, style = self._cell(state, row, col, shape_of.get((row, col)))
                if (row, col) in last:
                    style += self.get_component_rich_style("board--last", partial=True)
                if (row, col) in ghost:
                    style = style + ghost_style
                text.append(glyph, style)
                text.append(" ", style if (row, col) in ghost or (row, col) in shape_of else Style())
            if row < SIZE - 1:
                text.append("\n")
        return text

    def _cell(self, state: LitsState, row: int, col: int, shape: str | None) -> tuple[str, Style]:
        cell = bit(row, col)
        if state.x_marks & cell:
            glyph, style = "×", self.get_component_rich_style("board--mark-x")
        elif state.o_marks & cell:
            glyph, style = "○", self.get_component_rich_style("board--mark-o")
        else:
            glyph, style = "·", self.get_component_rich_style("board--empty")
        if shape is not None:
            # a covered mark stays visible, in the piece's colours
            style = self.get_component_rich_style(f"board--shape-{shape.lower()}")
            glyph = glyph if glyph != "·" else " "
        return glyph, style

    def cell_at(self, x: int, y: int) -> tuple[int, int] | None:
        """The (row, col) under content offset (x, y), if any."""
        row, col = y - 1, (x - ROW_LABEL) // 2
        if x < ROW_LABEL or not (0 <= row < SIZE and 0 <= col < SIZE):
            return None
        return row, col

    def on_mouse_move(self, event: MouseMove) -> None:
        offset = event.get_content_offset(self)
        cell = None if offset is None else self.cell_at(offset.x, offset.y)
        if cell is not None:
            self.post_message(self.Hovered(*cell))

    def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        cell = None if offset is None else self.cell_at(offset.x, offset.y)
        if cell is not None:
            event.stop()
            self.post_message(self.Clicked(*cell))


class ShapeChip(Static):
    """One shape of the palette with how many are left; a click selects it."""

    class Chosen(Message):
        """The player clicked the chip of ``shape``."""

        def __init__(self, shape: str) -> None:
            super().__init__()
            self.shape = shape

    def __init__(self, shape: str) -> None:
        super().__init__("", id=f"chip-{shape.lower()}", classes=f"chip shape-{shape.lower()}")
        self.shape = shape

    def show(self, left: int, selected: bool) -> None:
        """Update the count and the selection mark."""
        text = f"{'▸' if selected else ' '}{self.shape} {left}"
        if self.content != text:
            self.update(text, layout=False)  # a chip's size is fixed (6×1): a repaint
        self.set_class(selected, "selected")
        self.set_class(left == 0, "spent")

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Chosen(self.shape))
