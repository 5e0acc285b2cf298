"""Yatzy's row of dice with holds: drawn with pips, clicked to toggle a hold.

Set :attr:`DiceRow.faces` and :attr:`DiceRow.held` and listen for
:class:`DiceRow.Toggled` (a click on a die).  Keys are the screen's business;
the widget only draws and reports clicks.  It lived in the room's core
(``gamenight.widgets.dice``) until SDK 1.0; only Yatzy used it, so it is
Yatzy's now (docs/plugins.md, "Widgets").  Its colours are the theme's
``$text`` and ``$accent``: the old ``die-face``/``die-held`` theme variables
were never read by any stylesheet and are gone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

__all__ = ["DiceRow", "pips"]

_PIPS = {
    0: ("   ", "   ", "   "),
    1: ("   ", " ● ", "   "),
    2: ("●  ", "   ", "  ●"),
    3: ("●  ", " ● ", "  ●"),
    4: ("● ●", "   ", "● ●"),
    5: ("● ●", " ● ", "● ●"),
    6: ("● ●", "● ●", "● ●"),
}

DIE_WIDTH = 5
GAP = 1


def pips(face: int) -> tuple[str, str, str]:
    """The three pip lines of a die face (0 draws a blank face)."""
    return _PIPS[face]


def _centre(text: str, width: int) -> str:
    """``text`` centred in ``width`` terminal cells (cut if longer; wide characters count 2)."""
    text = set_cell_size(text, min(cell_len(text), width))
    room = width - cell_len(text)
    return " " * (room // 2) + text + " " * (room - room // 2)


class DiceRow(Widget):
    """Dice side by side, each with its key number and a HOLD mark under it."""

    DEFAULT_CSS = """
    DiceRow { height: 6; width: auto; }
    DiceRow > .dice-row--die { color: $text; }
    DiceRow > .dice-row--held { color: $accent; text-style: bold; }
    DiceRow > .dice-row--key { color: $text-muted; }
    DiceRow > .dice-row--blank { color: $text-disabled; }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "dice-row--die",
        "dice-row--held",
        "dice-row--key",
        "dice-row--blank",
    }

    faces: reactive[tuple[int, ...]] = reactive((0, 0, 0, 0, 0))
    """Face of each die (0 while not rolled): a repaint, the row's size is fixed (its count of dice)."""
    held: reactive[tuple[bool, ...]] = reactive((False,) * 5)
    """Which dice are held."""

    class Toggled(Message):
        """A die was clicked: toggle its hold."""

        def __init__(self, dice: DiceRow, index: int) -> None:
            super().__init__()
            self.dice = dice
            self.index = index

        @property
        def control(self) -> DiceRow:
            """The dice row that was clicked."""
            return self.dice

    def __init__(self, count: int = 5, hold_label: str = "HOLD", **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.count = count
        self.hold_label = hold_label
        self.set_reactive(DiceRow.faces, (0,) * count)
        self.set_reactive(DiceRow.held, (False,) * count)

    def show(self, faces: Sequence[int], held: Sequence[bool]) -> None:
        """Show ``faces`` (empty: blank dice) with ``held`` marks."""
        self.faces = tuple(faces) if faces else (0,) * self.count
        self.held = tuple(held)

    def get_content_width(self, container: object, viewport: object) -> int:
        return self.count * (DIE_WIDTH + GAP) - GAP

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return 6

    def render(self) -> Text:
        styles = {name: self.get_component_rich_style(name) for name in self.COMPONENT_CLASSES}
        lines = [Text() for _ in range(6)]
        for index, face in enumerate(self.faces):
            held = index < len(self.held) and self.held[index]
            style = styles["dice-row--held" if held else "dice-row--die" if face else "dice-row--blank"]
            top, bottom = ("┏━━━┓", "┗━━━┛") if held else ("┌───┐", "└───┘")
            side = "┃" if held else "│"
            body = [top, *(side + line + side for line in pips(face)), bottom]
            separator = " " * GAP if index else ""
            for line, text in zip(lines, body, strict=False):
                line.append(separator + text, style)
            label = self.hold_label if held else str(index + 1)
            lines[5].append(
                separator + _centre(label, DIE_WIDTH), styles["dice-row--held" if held else "dice-row--key"]
            )
        return Text("\n").join(lines)

    def on_click(self, event: events.Click) -> None:
        index, offset = divmod(event.x, DIE_WIDTH + GAP)
        if 0 <= index < self.count and offset < DIE_WIDTH:
            self.post_message(self.Toggled(self, index))
