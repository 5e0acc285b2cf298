"""Saved games, newest first; Return resumes one.

In a room connected to a table service the person's games kept on the server
(solo tables: one person against bots, played there) come first; Return goes
back to that table.  The save files below them are this room's own and never
count for the server's hall of fame.
"""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from gamenight.i18n import _
from gamenight.screens.room import InTheRoom
from gamenight.text import hosted, safe_text
from gamenight.ui.bindings import translate_bindings
from gamenight.widgets.key_bar import KeyBar

KEPT_PREFIX = "kept:"
"""Option ids of the games kept on the server: this prefix and the table id."""


class SavesScreen(InTheRoom, Screen):
    """Pick a save file to resume (or, in a hosted room, a game kept on the server)."""

    BINDINGS = [
        # Before the list's own (hidden) Return, so that the key bar names it.
        Binding("enter", "resume", _("Resume"), tooltip=_("Resume the highlighted game"), priority=True),
        Binding("escape", "app.pop_screen", _("Back")),
    ]

    DEFAULT_CSS = """
    SavesScreen #saves-title { dock: top; height: 1; background: $primary; color: $text; padding: 0 1; }
    SavesScreen #saves-note { height: auto; padding: 0 1; }
    SavesScreen OptionList { height: 1fr; border: round $primary; }
    """

    def __init__(self) -> None:
        super().__init__()
        translate_bindings(self, _)
        self.kept: list = []
        """The person's games kept on the server (``TableInfo`` each), once the service answered."""

    @property
    def _client(self):
        client = getattr(self.app, "tables", None)
        return None if client is None or client.closed.is_set() else client

    def compose(self) -> ComposeResult:
        # A hosted room's folder is a path on the server (its users' folders): no business of a visitor's.
        title = _("Saved games") if hosted() else _("Saved games in {folder}", folder=safe_text(self.app.saves.folder))
        yield Static(title, id="saves-title", markup=False)
        if self._client is not None:
            yield Static(
                _(
                    "Games kept on the server come first. Save files are this room's own: "
                    "they never count for the hall of fame."
                ),
                id="saves-note",
                markup=False,
            )
        yield OptionList(*self._options())
        yield KeyBar()

    def on_mount(self) -> None:
        client = self._client
        if client is not None:
            from gamenight.tables.protocol import ListKept

            self.run_worker(client.send(ListKept()), exit_on_error=False)

    def _options(self) -> list[Option]:
        options = [Option(Text(self._kept_line(info)), id=f"{KEPT_PREFIX}{info.table}") for info in self.kept]
        files = self.app.saves.list()
        at_server = self._client is not None
        for path in files:
            # Anyone who can write to the folder names these files: plain text, made safe, never markup.
            line = f"{safe_text(path.name):<44} {datetime.fromtimestamp(path.stat().st_mtime):%Y-%m-%d %H:%M}"
            if at_server:
                line += " " + _("(local)")
            options.append(Option(Text(line), id=str(path)))
        return options or [Option(_("No saved games yet."), disabled=True)]

    def _kept_line(self, info) -> str:
        game = self.app.registry.games.get(info.game)
        title = safe_text(game.title if game is not None else info.game, limit=30)
        bots = ", ".join(safe_text(seat.name, limit=20) for seat in info.seats if seat.bot and not seat.person)
        line = _("On the server: {game}", game=title)
        return f"{line} — {bots}" if bots else line

    def table_message(self, message) -> None:
        """The service's answers (the app passes every message to the screens)."""
        from gamenight.tables.protocol import KeptTables

        if isinstance(message, KeptTables):
            self.kept = list(message.tables)
            listing = self.query_one(OptionList)
            listing.clear_options()
            listing.add_options(self._options())
            listing.highlighted = 0  # the first kept game (or the newest save), ready for Return
            self.refresh_bindings()  # Resume comes into the key bar when the first game does

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "resume":  # in the key bar when there is something to resume
            try:
                return any(not option.disabled for option in self.query_one(OptionList).options)
            except NoMatches:  # asked before the list is composed
                return False
        return True

    def action_resume(self) -> None:
        """Return: resume the highlighted save (or go back to the highlighted game kept on the server)."""
        self.query_one(OptionList).action_select()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        option_id = event.option.id
        if not option_id:
            return
        if option_id.startswith(KEPT_PREFIX):
            client = self._client
            if client is None:
                self.notify(_("Shared tables are not available now."), severity="warning", markup=False)
                return
            from gamenight.tables.protocol import Join

            # Back to that table: its snapshot opens it (the app), in place of this list.
            self.app.run_worker(client.send(Join(option_id[len(KEPT_PREFIX) :])), exit_on_error=False)
            return
        from pathlib import Path

        self.app.pop_screen()
        self.app.resume(Path(option_id))
