"""Widgets of the Mate table: card chips, the move-by-move table and the match sheet."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gamenight.sdk import repaint, translator
from rich.cells import cell_len, set_cell_size
from rich.style import Style
from rich.text import Text
from textual.message import Message
from textual.widgets import Static

from .rules import LEADERS, MOVES, PLAYS, MateState, PlayResult, card_suit, pretty, stronger

_ = translator("mate")

__all__ = ["ActionChip", "CardChip", "MatchSheet", "MoveTable", "leaders_of"]


def show_if(widget: Static, shown: bool) -> None:
    """Show or hide ``widget``; only a change lays the screen out."""
    if widget.display != shown:
        widget.display = shown


class ActionChip(Static):
    """A one-line clickable chip standing for an action (a card, or "none")."""

    class Chosen(Message):
        """A chip was clicked."""

        def __init__(self, chip: ActionChip) -> None:
            super().__init__()
            self.chip = chip

    def __init__(self, label: str = "", action: str = "", **kwargs: Any) -> None:
        super().__init__(label, **kwargs)
        self.action = action

    def on_click(self) -> None:
        if self.action:
            self.post_message(self.Chosen(self))


class CardChip(ActionChip):
    """One face-up card of a hand (``row`` is "top" or "bottom", ``slot`` its place)."""

    def __init__(self, row: str, slot: int, **kwargs: Any) -> None:
        super().__init__(classes="chip", **kwargs)
        self.row = row
        self.slot = slot

    def show_card(self, card: str, *, playable: bool, cursor: bool, replay: bool = False) -> None:
        """Show ``card`` (hidden for ``""``) with its highlight classes; ↻ marks a move-10 replay."""
        self.action = card
        # A card played leaves its chip blank on the felt, in its place: hiding it laid the screen out
        # at every card played (a frame over SSH in every room at a shared table).
        self.set_class(not card, "gone")
        label = pretty(card) if card else ""
        repaint(self, f"↻{label}" if replay else label)
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


NAME_CELLS = 11
"""The widest seat name the move table shows whole (its ten moves take 40 of the felt's 52 cells)."""


def fit_name(name: str, cells: int) -> str:
    """``name`` whole if it fits in ``cells``, else cut and ended with "…"."""
    if cell_len(name) <= cells:
        return name
    return set_cell_size(name, cells - 1).rstrip() + "…"


class MoveTable(Static):
    """Each seat's played cards in order, one column per move; leads underlined."""

    def show(self, state: MateState, seats: Sequence[int], names: Sequence[str]) -> None:
        """Draw the moves of ``state`` with ``seats`` as rows (top first)."""
        leaders = leaders_of(state)
        current = len(leaders) - 1 if state.lead is not None else -1
        text = Text(no_wrap=True, overflow="crop")
        # the names column is as wide as the longer name (up to NAME_CELLS; a longer one ends in "…")
        label = max(7, min(NAME_CELLS, max(cell_len(names[seat]) for seat in seats)) + 1)
        text.append(set_cell_size(_("move"), label), style="dim")
        for move in range(1, MOVES + 1):
            style = "bold" if move == state.move and state.phase == "play" else "dim"
            text.append(f"{move:>4}", style=style)
        for seat in seats:
            text.append("\n")
            text.append(set_cell_size(fit_name(names[seat], label - 1), label))
            for move in range(MOVES):
                if move >= len(state.played[seat]):
                    text.append(f"{'·':>4}", style="dim")
                    continue
                card = state.played[seat][move]
                # Bright red: plain red was 2.7:1 on the felt and 3.6:1 on a 16-colour black (a Style:
                # Textual does not read the string "bright_red").
                card_style = Style(color="bright_red") if card_suit(card) in "HD" else Style()
                if leaders[move] == seat:
                    card_style += Style(underline=True)
                if move == current:
                    card_style += Style(reverse=True, bold=True)
                text.append(" " * (4 - len(pretty(card))))
                text.append(pretty(card), style=card_style)
        repaint(self, text)


class MatchSheet(Static):
    """The four plays of the match: the points of each seat (the leader's underlined), the totals."""

    WIDTH = 24
    """Cells inside the side panel: "プレイ カペレン サクソン" fits whole; longer names end in "…"."""

    def show(self, state: MateState, names: Sequence[str]) -> None:
        """Draw the sheet for ``state``'s finished plays."""
        results: list[PlayResult] = list(state.results)
        rows: list[tuple[str, list[str], str, int | None]] = []
        for play in range(PLAYS):
            points = [str(p) for p in results[play].points()] if play < len(results) else ["·", "·"]
            style = "bold" if play == state.play and state.phase != "ended" else ""
            rows.append((str(play + 1), points, style, LEADERS[play]))
        totals = state.totals
        rows.append((_("Total"), [str(totals[0]), str(totals[1])], "bold", None))
        head = _("Play")
        label_cells = max(cell_len(head), *(cell_len(label) for label, _points, _style, _leader in rows))
        room = max(self.WIDTH - label_cells - len(names), 2 * len(names))
        widths = [max(cell_len(name), 4) for name in names]
        while sum(widths) > room:  # narrow the widest name until the columns fit
            widest = widths.index(max(widths))
            widths[widest] -= 1
        text = Text(no_wrap=True, overflow="crop")
        text.append(_("Match sheet").center(label_cells + sum(widths) + len(names)).rstrip() + "\n", style="italic")
        text.append(pad_right(head, label_cells))
        for name, width in zip(names, widths, strict=True):
            shown = fit_name(name, width)
            text.append(" " * (1 + width - cell_len(shown)) + shown)
        for index, (label, points, style, leader) in enumerate(rows):
            text.append("\n")
            if index == PLAYS:
                text.append("─" * (label_cells + sum(widths) + len(names)) + "\n", style="dim")
            text.append(pad_right(label, label_cells), style=style)
            for seat, (point, width) in enumerate(zip(points, widths, strict=True)):
                text.append(" " * (1 + width - len(point)), style=style)
                text.append(point, style=f"{style} underline".strip() if seat == leader else style)
        repaint(self, text)


def pad_right(text: str, cells: int) -> str:
    """``text`` padded with spaces to ``cells`` terminal cells."""
    return text + " " * max(0, cells - cell_len(text))
