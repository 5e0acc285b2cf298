"""The SEVEN table's widgets: a seat's panel, the green table and the play log."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static

from .rules import SUIT_SYMBOLS, card_label, suit_of

__all__ = ["SeatPanel", "TablePanel", "card_text", "fit_cells", "suit_text"]

RED_SUITS = (1, 3)


def card_text(card: int, style: str = "") -> Text:
    """A card as coloured text: hearts and diamonds red."""
    colour = "bold red" if suit_of(card) in RED_SUITS else "bold"
    return Text(card_label(card), style=f"{colour} {style}".strip())


def suit_text(suit: int) -> Text:
    """A suit symbol, red for hearts and diamonds."""
    return Text(SUIT_SYMBOLS[suit], style="bold red" if suit in RED_SUITS else "bold")


def fit_cells(text: str, width: int) -> str:
    """``text`` cut to ``width`` terminal cells (wide characters count 2), with … if cut."""
    if cell_len(text) <= width:
        return text
    out = ""
    for char in text:
        if cell_len(out + char) > width - 1:
            break
        out += char
    return out + "…"


class SeatPanel(Static):
    """One other seat: its name (border title), hand size and what it did last."""

    def __init__(self, seat: int) -> None:
        super().__init__("", classes="seat")
        self.seat = seat

    def show(self, name: str, lines: list[str], to_move: bool, winner: bool) -> None:
        """Redraw: ``to_move`` highlights the panel, ``winner`` marks it."""
        width = max(4, (self.size.width or 18) - 4)
        self.border_title = fit_cells(name, width)
        self.set_class(to_move, "to-move")
        self.set_class(winner, "winner")
        self.update("\n".join(fit_cells(line, width + 2) for line in lines))


class TablePanel(Static):
    """The green table: the top card, the called suit, a pending 7, the piles, the shuffle notice."""

    def show(self, lines: list[Text]) -> None:
        """Redraw with the given lines."""
        self.update(Text("\n").join(lines))
