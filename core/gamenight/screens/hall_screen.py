"""The hall of fame of a hosted room's server: a game's best scores and its latest finished games.

The room asks the table service (:class:`~gamenight.tables.protocol.HallQuery`)
and shows the bounded answer; the server keeps the records, the room never
reads them.  A player who chose not to show their name is "anonymous".
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from gamenight.i18n import _
from gamenight.records.text import game_labels, score_text, top_ten_text
from gamenight.screens.room import InTheRoom
from gamenight.tables import protocol as p
from gamenight.text import safe_text
from gamenight.ui.bindings import translate_bindings
from gamenight.widgets.key_bar import KeyBar

__all__ = ["HallScreen", "hall_text"]

HALL_ASKS_PER_SECOND = 1
HALL_ASKS_BURST = 4
"""A room asks for at most this many halls at once, then one a second (the service allows five, then
one a second): holding ``→`` walks through the games without being refused."""


class HallScreen(InTheRoom, Screen):
    """The server's top ten of ``game`` (the game highlighted in the lobby) and its latest games,
    asked for when the screen opens; ``←``/``→`` show the previous or next of ``games`` (the lobby's
    list, in its order)."""

    BINDINGS = [
        # priority: the scrolling body, focused, would take the arrows to scroll sideways
        Binding("left", "other_game(-1)", _("Previous game"), priority=True),
        Binding("right", "other_game(1)", _("Next game"), priority=True),
        Binding("r", "refresh_hall", _("Refresh")),
        Binding("escape,q", "app.pop_screen", _("Back")),
    ]

    DEFAULT_CSS = """
    HallScreen #hall-title {
        dock: top; height: 1; background: $primary; color: $text; padding: 0 1; text-style: bold;
    }
    HallScreen #hall-body { height: 1fr; padding: 0 1; border: round $panel; }
    HallScreen #hall-text { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, game: str, games: list[str] | None = None) -> None:
        super().__init__()
        translate_bindings(self, _)
        self.game = game
        self.games = list(games) if games else [game]
        """The games ``←``/``→`` go through (the lobby's list)."""
        self._answers: dict[str, p.HallOfFame] = {}
        """The answers got while the screen is open, by game: going back to a game asks no more."""
        self._asking: str | None = None
        """The game asked for and not answered yet: one question at a time."""
        self._pace = p.RateLimiter(rate=HALL_ASKS_PER_SECOND, burst=HALL_ASKS_BURST)
        """Below the service's own limit (which refuses, then hangs up on, a faster room)."""
        self.answer: p.HallOfFame | None = None
        """The service's last answer (tests read it)."""

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="hall-title", markup=False)
        with VerticalScroll(id="hall-body"):
            yield Static(_("Asking the server…"), id="hall-text")
        yield KeyBar()

    def on_mount(self) -> None:
        self._ask()

    def _title(self) -> str:
        """The title bar: the hall, and which game's (the text below may not name it: a server
        without records says only that)."""
        title, _bots = game_labels(self.app.registry, self.game)
        return f"{_('Hall of fame — this server')} · {safe_text(title, 40)}"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "other_game":
            return len(self.games) > 1
        return True

    def action_other_game(self, step: int) -> None:
        """Show the previous (``-1``) or next (``1``) game's hall, round the list."""
        index = self.games.index(self.game) if self.game in self.games else 0
        self.game = self.games[(index + step) % len(self.games)]
        self.query_one("#hall-title", Static).update(self._title())
        answer = self._answers.get(self.game)
        if answer is not None:
            self._show(answer)
            return
        self.answer = None
        self.query_one("#hall-text", Static).update(_("Asking the server…"))
        self._ask()

    def action_refresh_hall(self) -> None:
        self._answers.pop(self.game, None)
        self._ask()

    def _ask(self) -> None:
        """Ask for the shown game's hall: once the last question is answered, and at the pace allowed."""
        client = getattr(self.app, "tables", None)
        if client is None:
            self.query_one("#hall-text", Static).update(_("The server cannot be asked now."))
            return
        if self._asking is not None:
            return  # its answer asks again for the game shown by then
        if not self._pace.allow():
            self.set_timer(1 / HALL_ASKS_PER_SECOND, self._ask)
            return
        self._asking = self.game
        self.run_worker(client.send(p.HallQuery(self.game)), exit_on_error=False)

    def _show(self, answer: p.HallOfFame) -> None:
        self.answer = answer
        self.query_one("#hall-text", Static).update(hall_text(answer, self.app.registry))

    def table_message(self, message: Any) -> None:
        """A message from the table service (the app hands every one to the screens)."""
        if not isinstance(message, p.HallOfFame):
            return
        if message.game == self._asking:
            self._asking = None
        if message.game in self.games or message.game == self.game:
            self._answers[message.game] = message
        if message.game == self.game:
            self._show(message)
        elif self.game not in self._answers:
            self._ask()  # the person moved on while it was asked

    def tables_changed(self) -> None:
        if getattr(self.app, "tables", None) is None and self.app.screen is self:
            self.app.pop_screen()


def hall_text(answer: p.HallOfFame, registry: Any) -> Text:
    """The answer as text: the top ten as BSD's games print it, then the latest games, newest first."""
    if not answer.available:
        return Text(_("This server keeps no records."))
    title, _bots = game_labels(registry, answer.game)
    text = Text()
    text.append(_("{game}: the best scores on this server", game=safe_text(title, 40)) + "\n", style="bold")
    if answer.top:
        anonymous = _("anonymous")
        entries = [
            _Score(entry.rank, entry.score, safe_text(entry.name, 32) or anonymous, entry.finished)
            for entry in answer.top[: p.HALL_SIZE]
        ]
        text.append(top_ten_text(entries) + "\n")
    else:
        text.append(_("No games yet.") + "\n")
    text.append("\n" + _("Latest games") + "\n", style="bold")
    if not answer.recent:
        text.append(_("No games yet."))
    for game in answer.recent[: p.HALL_SIZE]:
        game_title, bots = game_labels(registry, game.game)
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(datetime.fromtimestamp(game.finished).strftime("%Y-%m-%d %H:%M"))
        line.append(f"  {safe_text(game_title, 20)}:", style="bold")
        for seat in game.seats[:16]:
            if seat.bot:
                name = safe_text(bots.get(seat.bot, seat.bot), 20)
            else:
                name = safe_text(seat.name, 32) or _("anonymous")
            line.append(" ")
            line.append(f"{name} {score_text(seat.score)}", style="bold" if seat.won else "")
        text.append(line)
        text.append("\n")
    return text


class _Score:
    """One line of the top ten, as :func:`~gamenight.records.text.top_ten_text` reads it."""

    def __init__(self, rank: int, score: float, name: str, finished: float) -> None:
        self.rank, self.score, self.name, self.finished = rank, score, name, finished
