"""A score sheet with one column per seat: labelled rows, a highlighted column and a cursor.

Games fill it with :class:`ScoreRow` values and listen for
:class:`ScoreTable.Selected` (a click on a row).  Each cell carries a style
name, so a game can show filled scores, suggestions (what a box *would*
score) and totals differently while the look stays the theme's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Region
from textual.message import Message
from textual.widget import Widget

__all__ = ["ScoreCell", "ScoreRow", "ScoreTable"]


@dataclass(frozen=True)
class ScoreCell:
    """One cell: its text and how to show it.

    ``kind`` is ``"score"`` (written), ``"suggest"`` (what it would score now),
    ``"muted"`` (a zero suggestion, an empty cell) or ``"total"``.
    """

    text: str = ""
    kind: str = "score"


@dataclass(frozen=True)
class ScoreRow:
    """A row of the sheet: a label and a cell per seat.

    ``selectable`` rows can take the cursor and be clicked; ``rule_above``
    draws a line above the row (between sections).
    """

    label: str
    cells: tuple[ScoreCell, ...]
    selectable: bool = False
    rule_above: bool = False


class ScoreTable(Widget, can_focus=False):
    """Rows of labelled scores, one column per seat; the active seat's column stands out."""

    DEFAULT_CSS = """
    ScoreTable { width: auto; height: auto; }
    ScoreTable > .score-table--header { text-style: bold; color: $text; }
    ScoreTable > .score-table--active-header { text-style: bold reverse; color: $accent; }
    ScoreTable > .score-table--label { color: $text; }
    ScoreTable > .score-table--score { color: $text; }
    ScoreTable > .score-table--suggest { color: $accent; text-style: bold; }
    ScoreTable > .score-table--muted { color: $text-muted; }
    ScoreTable > .score-table--total { color: $text; text-style: bold; }
    ScoreTable > .score-table--cursor { background: $accent 40%; }
    ScoreTable > .score-table--rule { color: $text-muted; }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "score-table--header",
        "score-table--active-header",
        "score-table--label",
        "score-table--score",
        "score-table--suggest",
        "score-table--muted",
        "score-table--total",
        "score-table--cursor",
        "score-table--rule",
    }

    class Selected(Message):
        """A selectable row was clicked."""

        def __init__(self, table: ScoreTable, row: int) -> None:
            super().__init__()
            self.table = table
            self.row = row

        @property
        def control(self) -> ScoreTable:
            """The table that was clicked."""
            return self.table

    MAX_COLUMN_WIDTH = 12
    """A column grows to show its seat's name whole ("ボット1" needs 8 cells with its gap), up to this width;
    a longer name ends in "…"."""

    def __init__(self, label_width: int = 16, column_width: int = 7, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.label_width = label_width
        self.column_width = column_width
        """The narrowest column (a column is wider when its header needs it)."""
        self.widths: tuple[int, ...] = ()
        """Each column's width, from its header."""
        self.headers: tuple[str, ...] = ()
        self.rows: tuple[ScoreRow, ...] = ()
        self.active_column: int | None = None
        self.cursor_row: int | None = None
        self._line_rows: list[int | None] = []

    def show(
        self,
        headers: Sequence[str],
        rows: Sequence[ScoreRow],
        active_column: int | None = None,
        cursor_row: int | None = None,
    ) -> None:
        """Replace the contents: column ``headers``, ``rows``, the active column and cursor row.

        The screen is laid out only when the table's size changes (a new seat, a name wider than its
        column, a row more); a move's new figures are a repaint."""
        size = (self.total_width, self.get_content_height(self.size, self.size, self.size.width))
        self.headers = tuple(headers)
        self.widths = tuple(
            min(max(self.column_width, cell_len(name) + 1), self.MAX_COLUMN_WIDTH) for name in self.headers
        )
        self.rows = tuple(rows)
        self.active_column = active_column
        self.cursor_row = cursor_row
        # An explicit width lets a scrolling parent scroll sideways past many seats.
        if self.styles.width is None or self.styles.width.value != self.total_width:
            self.styles.width = self.total_width
        resized = (self.total_width, self.get_content_height(self.size, self.size, self.size.width)) != size
        self.refresh(layout=resized or not self.widths)

    @property
    def total_width(self) -> int:
        """Cells from the labels' left edge to the last column's right edge."""
        return self.label_width + sum(self.widths)

    def column_region(self, column: int) -> Region:
        """Where ``column`` is drawn (for scrolling it into view)."""
        return Region(self.label_width + sum(self.widths[:column]), 0, self.widths[column], 1)

    def get_content_width(self, container: object, viewport: object) -> int:
        return self.total_width

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return 1 + len(self.rows) + sum(1 for row in self.rows if row.rule_above)

    def _cell(self, text: str, width: int, align_right: bool = True) -> str:
        if cell_len(text) > width - 1:  # cut on purpose, and marked so
            text = set_cell_size(text, width - 2).rstrip() + "…"
        text = set_cell_size(text, min(cell_len(text), width - 1))
        padding = " " * (width - cell_len(text))
        return padding + text if align_right else text + padding

    def render(self) -> Text:
        style = {name: self.get_component_rich_style(name) for name in self.COMPONENT_CLASSES}
        lines: list[Text] = []
        self._line_rows = [None]
        header = Text(self._cell("", self.label_width, False))
        for column, name in enumerate(self.headers):
            active = column == self.active_column
            header.append(
                self._cell(name, self.widths[column]),
                style["score-table--active-header" if active else "score-table--header"],
            )
        lines.append(header)
        total_width = self.total_width
        for index, row in enumerate(self.rows):
            if row.rule_above:
                lines.append(Text("─" * total_width, style["score-table--rule"]))
                self._line_rows.append(None)
            cursor = index == self.cursor_row
            line = Text(self._cell(row.label, self.label_width, False), style["score-table--label"])
            for column, cell in enumerate(row.cells):
                cell_style = style[f"score-table--{cell.kind}"]
                if cursor and column == self.active_column:
                    cell_style = cell_style + style["score-table--cursor"]
                width = self.widths[column] if column < len(self.widths) else self.column_width
                line.append(self._cell(cell.text, width), cell_style)
            if cursor:
                line.stylize(Style(bold=True), 0, self.label_width)
            lines.append(line)
            self._line_rows.append(index)
        return Text("\n").join(lines)

    def row_at(self, y: int) -> int | None:
        """The row drawn on line ``y`` of the widget (``None`` for the header and rules)."""
        return self._line_rows[y] if 0 <= y < len(self._line_rows) else None

    def on_click(self, event: events.Click) -> None:
        row = self.row_at(event.y)
        if row is not None and self.rows[row].selectable:
            self.post_message(self.Selected(self, row))
