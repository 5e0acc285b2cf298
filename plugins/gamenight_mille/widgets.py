"""The Mille Bornes table's regions, laid out as BSD ``mille`` draws them (docs/rules/mille.md 13).

* :class:`MilleBoard` -- columns 0-39, rows 0-16: the safety areas, the hand
  (``P``, ``1``...``6``), the deck and discard, the last play, battle and speed tops;
* :class:`ScoreWindow` -- columns 40-79: the score lines (small or full, ``W``),
  the command list in the small window, and the last moves;
* :class:`MileageArea` -- both seats' mileage by card, with a progress bar.

The widgets only draw what they are given; the screen owns the match.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gamenight.sdk import pad_cells, wrap
from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.message import Message
from textual.widgets import Static

from .rules import (
    D200,
    EMPTY,
    END_OF_LIMIT,
    GO,
    OUT_OF_GAS,
    SAFETIES,
    SPEED_LIMIT,
    VALUE,
    MilleView,
    Seat,
    card_name,
)

HALF = 20
"""Columns of one seat's side of the board."""
HAND_ROW = 6
"""The board row of the ``P`` slot; slots 1-6 follow."""
SLOT_LABELS = ("P", "1", "2", "3", "4", "5", "6")


def _fit(text: str, width: int) -> str:
    """``text`` cut or padded to ``width`` terminal cells."""
    while cell_len(text) > width:
        text = text[:-1]
    return pad_cells(text, width)


def _draw(widget: Static, text: Text) -> None:
    """Show ``text`` in ``widget`` unless it shows it already; no layout: the widgets' sizes are fixed.

    At a shared table every move redraws the table in every room: an unchanged
    widget costs nothing, a changed one only its own repaint (not the screen's layout)."""
    if widget.content != text:
        widget.update(text, layout=False)


def _right(text: str, width: int, cut: int) -> str:
    """``text`` cut to ``cut`` cells and right-aligned in ``width`` cells."""
    text = _fit(text, cut).rstrip()
    return " " * (width - cell_len(text)) + text


HAZARD = Style(color="bright_red", bold=True)
"""Bright red: plain red was 3.6:1 on a 16-colour black (a Style: Textual does not read "bright_red")."""


def _card_style(card: int) -> str | Style:
    if card == EMPTY:
        return ""
    if OUT_OF_GAS <= card <= SPEED_LIMIT:
        return HAZARD
    if card == GO or card == END_OF_LIMIT:
        return "bold green"
    if card >= SAFETIES[0]:
        return "bold yellow"
    return ""


class MilleBoard(Static):
    """The left half of the original's screen: safeties, hand, deck, discard, battle and speed."""

    DEFAULT_CSS = """
    MilleBoard { width: 40; height: 17; }
    """

    class SlotClicked(Message):
        """A card of the hand was clicked: ``row`` is its display row (0 = ``P``)."""

        def __init__(self, row: int) -> None:
            super().__init__()
            self.row = row

    class DeckClicked(Message):
        """The deck was clicked (pick)."""

    def show(
        self,
        view: MilleView,
        slots: Sequence[int],
        last_play: tuple[str, int] | None,
        prompt: str,
        selected: int | None,
        t: Callable[..., str],
    ) -> None:
        """Draw ``view``: ``slots`` maps display rows to hand slots; ``selected`` is a display row."""
        me, them = view.me, view.opponent
        rows: list[tuple[Text, Text]] = [(Text(" " * HALF), Text(" " * HALF)) for _row in range(17)]

        def left(row: int, text: str, style: str | Style = "") -> None:
            rows[row] = (Text(_fit(text, HALF), style=style), rows[row][1])

        def right(row: int, text: str, style: str | Style = "") -> None:
            rows[row] = (rows[row][0], Text(_fit(text, HALF), style=style))

        for index, safety in enumerate(SAFETIES):
            for seat, put in ((me, left), (them, right)):
                if seat.safeties[index]:
                    mark = "*" if seat.coups[index] else " "
                    put(index, f"{mark} {card_name(safety)}", "bold yellow")
        if view.extended:
            left(4, " " + t("Extension") + " ", "reverse bold")
        right(4, t("Hand {number}", number=view.hand_number))
        left(5, "--" + t("HAND") + "--", "bold")
        right(5, "--" + t("DECK") + "--", "bold")
        for row, slot in enumerate(slots):
            card = me.hand[slot]
            style = _card_style(card)
            if selected == row:
                style = (style + " reverse").strip() if isinstance(style, str) else style + Style(reverse=True)
            rows[HAND_ROW + row] = (
                Text(SLOT_LABELS[row] + " ", style="bold") + Text(_fit(card_name(card), HALF - 2), style=style),
                rows[HAND_ROW + row][1],
            )
        right(6, f"  {view.deck_count}")
        right(7, "--" + t("DISCARD") + "--", "bold")
        if view.discards:
            top = view.discards[-1]
            right(8, "  " + card_name(top), _card_style(top))
        if prompt:
            right(10, prompt, "reverse")
        if last_play is not None:
            verb, card = last_play
            right(11, "  " + verb, "bold")
            right(12, "  " + card_name(card), _card_style(card))
        left(13, "--" + t("BATTLE") + "--", "bold")
        right(13, "--" + t("BATTLE") + "--", "bold")
        left(14, "  " + card_name(me.battle), _card_style(me.battle))
        right(14, "  " + card_name(them.battle), _card_style(them.battle))
        left(15, "--" + t("SPEED") + "--", "bold")
        right(15, "--" + t("SPEED") + "--", "bold")
        left(16, "  " + card_name(me.speed), _card_style(me.speed))
        right(16, "  " + card_name(them.speed), _card_style(them.speed))
        _draw(self, Text("\n").join(mine + theirs for mine, theirs in rows))

    def on_click(self, event) -> None:
        """A click on a hand row selects that card; a click on the deck picks."""
        row = event.y - HAND_ROW
        if 0 <= row < 7 and event.x < HALF:
            self.post_message(self.SlotClicked(row))
        elif event.x >= HALF and event.y in (5, 6):
            self.post_message(self.DeckClicked())


SMALL_ROWS = ("Milestones Played", "Each Safety", "All 4 Safeties", "Each Coup Fourré")
FULL_ROWS = ("Trip Completed", "Safe Trip", "Delayed Action", "Extension", "Shut-Out")
VALUES = {
    "Each Safety": 100,
    "All 4 Safeties": 300,
    "Each Coup Fourré": 300,
    "Trip Completed": 400,
    "Safe Trip": 300,
    "Delayed Action": 300,
    "Extension": 200,
    "Shut-Out": 500,
}
COMMANDS = (
    ("P", "pick"), ("U #", "use card"), ("D #", "discard card"), ("O", "order hand"),
    ("W", "toggle window"), ("S", "save"), ("R", "redraw"), ("Q", "quit"),
)  # fmt: skip


class ScoreWindow(Static):
    """The right half: every line of the original's score window, the commands, the last moves."""

    DEFAULT_CSS = """
    ScoreWindow { width: 40; height: 17; }
    """

    def show(
        self,
        names: Sequence[str],
        lines: Sequence[tuple[str, tuple[int, int]]],
        games: tuple[int, int],
        full: bool,
        ordering: bool,
        log: Sequence[str],
        t: Callable[..., str],
    ) -> None:
        """Draw the small window (with the commands) or the full one (with the bonus rows)."""
        values = dict(lines)
        out: list[Text] = []
        out.append(Text(_fit(score_header(names), 40), style="bold"))

        def row(label: str, pair: tuple[int, int], style: str = "") -> None:
            worth = str(VALUES[label]) if label in VALUES else ""
            text = _fit(" " + t(label), 18) + worth.rjust(4) + f"{pair[0]:>9}{pair[1]:>9}"
            out.append(Text(_fit(text, 40), style=style))

        for label in SMALL_ROWS:
            row(label, values[label])
        if full:
            for label in FULL_ROWS:
                row(label, values[label])
        else:
            commands = [(key, t(text if not (key == "O" and ordering) else "stop ordering")) for key, text in COMMANDS]
            for index in range(0, len(commands), 2):
                pair = commands[index : index + 2]
                text = "".join(_fit(f" {key}: {label}", 20) for key, label in pair)
                out.append(Text(_fit(text, 40), style="dim"))
            out.append(Text(" " * 40))
        row("Hand Total", values["Hand Total"], "bold")
        row("Overall Total", values["Overall Total"], "bold")
        row("Games", games)
        out.append(Text("─" * 40, style="dim"))
        out += [Text(_fit(line, 40)) for line in log_lines(log, 3)]
        _draw(self, Text("\n").join(out))


def score_header(names: Sequence[str]) -> str:
    """The score window's first line: each name right-aligned over its column of figures.

    A name wider than its column (eight cells: "コンピュータ" takes twelve) is shown
    whole, reaching left into the free space of the line, and the first name
    moves left to keep a gap -- never cut to "コンピュ".  (Names are at most 16
    cells, so two always fit in the 40.)
    """
    first, second = names[0], names[1]
    second_start = 40 - max(cell_len(second), 8)
    first_end = min(31, second_start - 1)
    first = _fit(first, min(cell_len(first), first_end)).rstrip()
    return pad_cells(" " * (first_end - cell_len(first)) + first, second_start) + _right(second, 40 - second_start, 16)


def log_lines(log: Sequence[str], count: int) -> list[str]:
    """The last ``count`` lines of the log, each entry wrapped at a word (or Japanese phrase), not cut."""
    lines: list[str] = []
    for entry in list(log)[-count:]:
        wrapped = wrap(entry, 38) or [""]
        lines += [" " + wrapped[0], *("   " + line for line in wrapped[1:])]
    return lines[-count:]


class MileageArea(Static):
    """Both seats' mileage (rows 17-23 of the original), each also a progress bar to the trip."""

    DEFAULT_CSS = """
    MileageArea { width: 80; height: 3; }
    """

    def show(self, seats: Sequence[tuple[str, Seat]], trip: int, t: Callable[..., str]) -> None:
        """Draw ``(name, seat)`` pairs side by side."""
        columns: list[list[Text]] = []
        for name, seat in seats:
            head = _fit(f" {name}: {seat.mileage}/{trip} " + t("miles"), 40)
            width = 36
            done = round(width * seat.mileage / trip)
            bar = Text(" ") + Text("█" * done, style="green") + Text("░" * (width - done), style="dim")
            counts = "  ".join(f"{VALUE[card]}×{seat.table.count(card)}" for card in range(D200 + 1))
            columns.append([Text(head, style="bold"), bar + Text("   "), Text(_fit(" " + counts, 40))])
        _draw(self, Text("\n").join(columns[0][i] + columns[1][i] for i in range(3)))
