"""The SEVEN table's widgets: a seat's panel, the green table, your hand and the play log."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from gamenight.sdk import fit_cells
from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from .rules import SUIT_SYMBOLS, card_label, suit_of

__all__ = ["HandView", "SeatPanel", "TablePanel", "card_text", "even_rows", "fit_cells", "suit_text", "wrap_words"]

RED_SUITS = (1, 3)


RED = Style(color="bright_red", bold=True)
"""Hearts and diamonds: ANSI bright red, 4.5:1 or more on the blue windows, the table and black in every
theme (plain red was 1.2-3.6:1).  A Style, not the string "bright_red", which Textual does not read."""
BLACK = Style(bold=True)


def card_text(card: int, style: str = "") -> Text:
    """A card as coloured text: hearts and diamonds red."""
    colour = RED if suit_of(card) in RED_SUITS else BLACK
    return Text(card_label(card), style=colour + Style.parse(style) if style else colour)


def suit_text(suit: int) -> Text:
    """A suit symbol, red for hearts and diamonds."""
    return Text(SUIT_SYMBOLS[suit], style=RED if suit in RED_SUITS else BLACK)


def wrap_words(text: str, width: int) -> list[str]:
    """``text`` broken between words into lines of at most ``width`` cells (a longer word is cut with …)."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        word = fit_cells(word, width)
        if line and cell_len(line) + 1 + cell_len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines


class SeatPanel(Static):
    """One other seat: its name (border title), running total (border subtitle), hand size and what it
    did last -- or at the end of a deal its whole hand, wrapped over as many lines as it needs (the
    panels in a row then all take the height of the tallest)."""

    def __init__(self, seat: int) -> None:
        super().__init__("", classes="seat")
        self.seat = seat
        self._shown: tuple[str, list[str], bool] = ("", [], False)
        self._lines: list[str] = []
        self._rows = 0
        """Lines to show at least (to match the tallest panel of the row)."""
        self._painted = ""

    def show(
        self, name: str, lines: list[str], to_move: bool, winner: bool, total: str = "", wrap_last: bool = False
    ) -> None:
        """Redraw: ``to_move`` highlights the panel, ``winner`` marks it; ``wrap_last`` wraps the last line."""
        self._shown = (name, lines, wrap_last)
        self.border_subtitle = total
        self.set_class(to_move, "to-move")
        self.set_class(winner, "winner")
        self._fit()

    @property
    def natural_rows(self) -> int:
        """Lines the panel needs at its width."""
        return len(self._lines)

    def pad_to(self, rows: int) -> None:
        """Show at least ``rows`` lines."""
        if rows != self._rows:
            self._rows = rows
            self._paint()

    def _fit(self) -> None:
        name, lines, wrap_last = self._shown
        width = max(4, (self.size.width or 18) - 4)
        # the title lies on the top border: the whole width but its corners, a line and a space either side
        self.border_title = fit_cells(name, max(4, (self.outer_size.width or 22) - 6))
        fitted = [fit_cells(line, width + 2) for line in (lines[:-1] if wrap_last else lines)]
        if wrap_last and lines:
            fitted.extend(wrap_words(lines[-1], width + 2))
        self._lines = fitted
        self._paint()

    def _paint(self) -> None:
        lines = self._lines + [""] * (self._rows - len(self._lines))
        text = "\n".join(lines)
        if text == self._painted:
            return
        # A move changes a line's words, not the panel's height (its width is the row's share): only a
        # new number of lines lays the screen out; at a shared table each layout is a frame over SSH.
        self.update(text, layout=len(lines) != self._painted.count("\n") + 1 or not self._painted)
        self._painted = text

    def on_resize(self, _event: events.Resize) -> None:
        """Re-fit the name and lines to the new width at once (not at the next move)."""
        self._fit()
        if self.parent is not None:
            even_rows(self.parent.query_children(SeatPanel))


def even_rows(panels) -> None:
    """Give every shown panel of a row the height of the tallest."""
    panels = [panel for panel in panels if panel.display]
    rows = max((panel.natural_rows for panel in panels), default=0)
    for panel in panels:
        panel.pad_to(rows)


class HandView(Widget, can_focus=True):
    """Your hand: the Draw (or Pass) line, then every card, wrapped into rows so that a long hand
    (17 cards and more) shows whole.  ``↑``/``←`` and ``↓``/``→`` move, ``Home``/``End`` jump,
    a click chooses (``Return`` too: the table's key, named in its key bar)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,left", "move(-1)", "Previous", show=False),
        Binding("down,right", "move(1)", "Next", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
    ]

    class Selected(Message):
        """An item was chosen: ``item_id`` is ``"draw"``, ``"pass"`` or a card code."""

        def __init__(self, item_id: str) -> None:
            super().__init__()
            self.item_id = item_id

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[tuple[str, Text]] = []
        """``(id, text)``: the head line, then the cards."""
        self.highlighted = 0
        self._spots: list[tuple[int, int, int]] = []
        """For each item, where it was drawn: ``(row, first column, end column)``."""

    @property
    def ids(self) -> list[str]:
        """The items' ids, in order."""
        return [item_id for item_id, _text in self.items]

    @property
    def highlighted_id(self) -> str | None:
        """The id of the highlighted item."""
        return self.items[self.highlighted][0] if self.items else None

    def show(self, items: Sequence[tuple[str, Text]], highlighted: int) -> None:
        """Show ``items`` with ``highlighted`` (an index) under the cursor."""
        self.items = list(items)
        self.highlighted = max(0, min(highlighted, len(self.items) - 1))
        self.refresh()

    def render(self) -> Text:
        width = max(4, self.content_size.width or 30)
        rows: list[Text] = []
        spots: list[tuple[int, int, int]] = []
        for index, (_item_id, text) in enumerate(self.items):
            shown = text.copy()
            if index == self.highlighted:
                shown.stylize("reverse" if self.has_focus else "underline")
            size = cell_len(shown.plain)
            if index == 0:
                rows.append(shown)
                spots.append((0, 0, size))
                rows.append(Text())
                continue
            row = rows[-1]
            if row.plain and cell_len(row.plain) + 1 + size > width:
                row = Text()
                rows.append(row)
            start = cell_len(row.plain) + (1 if row.plain else 0)
            if row.plain:
                row.append(" ")
            row.append_text(shown)
            spots.append((len(rows) - 1, start, start + size))
        self._spots = spots
        return Text("\n").join(rows)

    def _move_to(self, index: int) -> None:
        if self.items:
            self.highlighted = index % len(self.items)
            self.refresh()

    def action_move(self, step: int) -> None:
        """The previous or next item (wrapping around)."""
        self._move_to(self.highlighted + step)

    def action_jump(self, index: int) -> None:
        """The first or (``-1``) the last item."""
        self._move_to(index if index >= 0 else len(self.items) - 1)

    def action_choose(self) -> None:
        """Choose the highlighted item."""
        if self.items:
            self.post_message(self.Selected(self.items[self.highlighted][0]))

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        """A click on an item highlights and chooses it."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        for index, (row, start, end) in enumerate(self._spots):
            if row == offset.y and start <= offset.x < end:
                event.stop()
                self.highlighted = index
                self.refresh()
                self.action_choose()
                return


class TablePanel(Static):
    """The green table: the top card, the called suit, a pending 7, the piles, the shuffle notice."""

    def show(self, lines: list[Text]) -> None:
        """Redraw with the given lines (its size is fixed: a repaint, never a layout)."""
        text = Text("\n").join(lines)
        if self.content != text:
            self.update(text, layout=False)
