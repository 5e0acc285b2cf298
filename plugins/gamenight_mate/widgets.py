"""Widgets of the Mate table: card chips, the move-by-move table and the match sheet."""

from __future__ import annotations

from collections.abc import Sequence

from gamenight.i18n import translator
from rich.cells import set_cell_size
from rich.table import Table
from rich.text import Text
from textual.message import Message
from textual.widgets import Static

from .rules import LEADERS, MOVES, PLAYS, MateState, PlayResult, card_suit, pretty, stronger

_ = translator("mate")

__all__ = ["ActionChip", "CardChip", "MatchSheet", "MoveTable", "leaders_of"]


class ActionChip(Static):
    """A one-line clickable chip standing for an action (a card, or "none")."""

    class Chosen(Message):
        """A chip was clicked."""

        def __init__(self, chip: ActionChip) -> None:
            super().__init__()
            self.chip = chip

    def __init__(self, label: str = "", action: str = "", **kwargs: object) -> None:
        super().__init__(label, **kwargs)  # type: ignore[arg-type]
        self.action = action

    def on_click(self) -> None:
        if self.action:
            self.post_message(self.Chosen(self))


class CardChip(ActionChip):
    """One face-up card of a hand (``row`` is "top" or "bottom", ``slot`` its place)."""

    def __init__(self, row: str, slot: int, **kwargs: object) -> None:
        super().__init__(classes="chip", **kwargs)
        self.row = row
        self.slot = slot

    def show_card(self, card: str, *, playable: bool, cursor: bool, replay: bool = False) -> None:
        """Show ``card`` (hidden for ``""``) with its highlight classes; ↻ marks a move-10 replay."""
        self.action = card
        self.display = bool(card)
        label = pretty(card) if card else ""
        self.update(f"↻{label}" if replay else label)
        self.set_class(bool(card) and card_suit(card) in "HD", "red")
        self.set_class(playable, "playable")
        self.set_class(cursor, "cursor")


def leaders_of(state: MateState) -> list[int]:
    """The seat that led each move so far (docs/rules/mate.md 2.4: the stronger card leads the next)."""
    leader = LEADERS[state.play]
    leaders = []
    for move in range(max(len(state.played[0]), len(state.played[1]))):
        leaders.append(leader)
        if move < len(state.played[0]) and move < len(state.played[1]):
            lead, answer = state.played[leader][move], state.played[1 - leader][move]
            if not stronger(lead, answer):
                leader = 1 - leader
    return leaders


class MoveTable(Static):
    """Each seat's played cards in order, one column per move; leads underlined."""

    def show(self, state: MateState, seats: Sequence[int], names: Sequence[str]) -> None:
        """Draw the moves of ``state`` with ``seats`` as rows (top first)."""
        leaders = leaders_of(state)
        current = len(leaders) - 1 if state.lead is not None else -1
        text = Text(no_wrap=True, overflow="crop")
        text.append(set_cell_size(_("move"), 7), style="dim")
        for move in range(1, MOVES + 1):
            style = "bold" if move == state.move and state.phase == "play" else "dim"
            text.append(f"{move:>4}", style=style)
        for seat in seats:
            text.append("\n")
            text.append(set_cell_size(names[seat][:6], 7))
            for move in range(MOVES):
                if move >= len(state.played[seat]):
                    text.append(f"{'·':>4}", style="dim")
                    continue
                card = state.played[seat][move]
                style = "red" if card_suit(card) in "HD" else ""
                if leaders[move] == seat:
                    style += " underline"
                if move == current:
                    style += " reverse bold"
                text.append(" " * (4 - len(pretty(card))))
                text.append(pretty(card), style=style.strip())
        self.update(text)


class MatchSheet(Static):
    """The four plays of the match: who leads, the points of each seat, the totals."""

    def show(self, state: MateState, names: Sequence[str]) -> None:
        """Draw the sheet for ``state``'s finished plays."""
        table = Table(box=None, padding=(0, 1), show_edge=False, expand=False, title=_("Match sheet"))
        table.add_column(_("Play"), no_wrap=True)
        for name in names:
            table.add_column(name[:6], justify="right", no_wrap=True)
        results: list[PlayResult] = list(state.results)
        for play in range(PLAYS):
            label = f"{play + 1} {'AB'[LEADERS[play]]}"
            if play < len(results):
                points = results[play].points()
                row = [str(points[0]), str(points[1])]
            else:
                row = ["·", "·"]
            style = "bold" if play == state.play and state.phase != "ended" else None
            table.add_row(label, *row, style=style)
        table.add_section()
        totals = state.totals
        table.add_row(_("Total"), str(totals[0]), str(totals[1]), style="bold")
        self.update(table)
