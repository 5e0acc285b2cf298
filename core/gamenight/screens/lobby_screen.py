"""The lobby: the games found, saved games, settings, plugins."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from gamenight.i18n import _, translator
from gamenight.save_store import AUTOSAVE_PREFIX
from gamenight.screens.room import InTheRoom
from gamenight.text import reconnect_command, safe_text, seat_count
from gamenight.ui.bindings import translate_bindings
from gamenight.widgets.key_bar import KeyBar

if TYPE_CHECKING:
    from gamenight.sdk import GameInfo


LIST_TEXT = 30
"""Cells of text in a line of the games list (its 34 columns less the border and the option's padding)."""


def seats_text(game: GameInfo) -> str:
    """ "2 seats" or "1–8 seats"."""
    return seat_count(game.min_seats, game.max_seats)


class LobbyScreen(InTheRoom, Screen):
    """Choose a game (Return), read its rules (h), resume a save (r)."""

    BINDINGS = [
        Binding("enter", "play", _("Play"), show=True),
        Binding("h,f1", "rules", _("Rules")),
        Binding("r", "resume", _("Resume")),
        Binding("s", "settings", _("Settings")),
        Binding("p", "plugins", _("Plugins")),
        Binding("t", "tables", _("Tables"), tooltip=_("Tables shared with the other people on this server")),
        Binding("c", "records", _("Records"), tooltip=_("Games played, wins, ratings and high scores")),
        Binding("f", "hall", _("Hall of fame"), tooltip=_("This server's best scores and latest games")),
        Binding("q", "app.quit", _("Quit")),
    ]

    AUTO_FOCUS = ""  # the list takes focus when the games are in (on_mount / show_games)

    DEFAULT_CSS = """
    LobbyScreen #lobby-title {
        dock: top; height: 1; background: $primary; color: $text; padding: 0 1; text-style: bold;
    }
    LobbyScreen #lobby-body { height: 1fr; }
    LobbyScreen #games { width: 34; height: 1fr; border: round $primary; border-title-color: $text; }
    LobbyScreen #about { width: 1fr; height: 1fr; padding: 0 1; border: round $panel; }
    LobbyScreen #notices { height: auto; max-height: 3; padding: 0 1; color: $text-warning; }
    """

    def __init__(self) -> None:
        super().__init__()
        translate_bindings(self, _)
        self._pending_action: str | None = None
        self._hosted_bar = False
        """Whether the key bar is the hosted one (see :meth:`_fit_bar`)."""

    def compose(self) -> ComposeResult:
        yield Static(_("gamenight — choose a game"), id="lobby-title")
        with Horizontal(id="lobby-body"):
            games = OptionList(*self._game_options(), id="games")
            games.border_title = _("Games")
            yield games
            yield Static("", id="about")
        notices = self._notices()
        yield Static(notices, id="notices", markup=False).set_styles(f"display: {'block' if notices else 'none'};")
        yield KeyBar()

    @property
    def games(self) -> list[GameInfo]:
        """Installed games, by title."""
        games = self.app.registry.games.values()
        return sorted(games, key=lambda game: translator(game.id)(game.title).lower())

    def _game_options(self) -> list[Option]:
        if not self.app.registry_loaded:
            return [Option(_("Looking for games…"), id="", disabled=True)]
        options = []
        games = self.games
        titles = [safe_text(translator(game.id)(game.title)) for game in games]
        seats = [seats_text(game) for game in games]
        # The title column is as wide as the longest title ("バトル・オブ・リッツ" takes 20 cells) while
        # the seat counts still fit in the list's LIST_TEXT cells; a longer title ends in "…".
        room = LIST_TEXT - 1 - max((cell_len(text) for text in seats), default=0)
        width = min(max((cell_len(text) for text in titles), default=0), room)
        for game, title_text, seats_line in zip(games, titles, seats, strict=True):
            title = Text(title_text, style="bold")
            title.truncate(width, overflow="ellipsis", pad=True)
            # Not dim: dim text on the highlighted row was below WCAG AA in every theme.
            options.append(Option(Text.assemble(title, " ", seats_line), id=game.id))
        if not options:
            options.append(Option(_("No games are installed."), id="", disabled=True))
        return options

    def _notices(self) -> str:
        failures = self.app.registry.failures
        notices = []
        login = getattr(self.app, "reconnect_as", "")
        if login:  # a new keyless guest: how to come back as themselves (hosted rooms only)
            # the whole command where serve-ssh knows its address, else words: never a host to fill in
            host = getattr(self.app, "reconnect_host", "")
            way = reconnect_command(login, host) if host else _("next time, log in as {login}", login=login)
            notices.append(_("★ Note your reconnect code: {way_back}", way_back=way))
        if failures:
            names = ", ".join(safe_text(record.name, limit=40) for record in failures)
            notices.append(_("⚠ Plugins with problems: {names} (press p for details)", names=names))
        if len(self.app.theme_errors) == 1:
            notices.append(_("⚠ A theme file could not be loaded (press p)."))
        elif self.app.theme_errors:
            notices.append(_("⚠ {count} theme files could not be loaded (press p).", count=len(self.app.theme_errors)))
        if len(self.app.theme_notices) == 1:
            notices.append(_("⚠ A theme variable is renamed or unknown (press p)."))
        elif self.app.theme_notices:
            notices.append(
                _("⚠ {count} theme variables renamed or unknown (press p).", count=len(self.app.theme_notices))
            )
        return "\n".join(notices)

    def on_mount(self) -> None:
        self._fit_bar()
        games = self.query_one("#games", OptionList)
        games.highlighted = 0 if self.games else None
        if self.app.registry_loaded:
            games.focus()
            self.call_after_refresh(self._offer_autosave)
        # else: unfocused until the games are in, so Return reaches action_play and waits there

    def show_games(self) -> None:
        """List the games again (the app calls this when its plugins have been found)."""
        games = self.query_one("#games", OptionList)
        games.clear_options()
        games.add_options(self._game_options())
        games.highlighted = 0 if self.games else None
        games.focus()
        notices = self._notices()
        note = self.query_one("#notices", Static)
        note.update(notices)
        note.display = bool(notices)
        pending, self._pending_action = self._pending_action, None
        if pending is not None and self.app.screen is self:
            self.call_after_refresh(self.run_action, pending)
        else:
            self.call_after_refresh(self._offer_autosave)

    def _offer_autosave(self) -> None:
        if getattr(self.app, "start_save", None) or getattr(self.app, "start_match", None):
            return
        autosaves = [p for p in self.app.saves.list() if p.name.startswith(AUTOSAVE_PREFIX)]
        if not autosaves or self.app.screen is not self:
            return
        newest = autosaves[0]
        game_id = newest.stem.removeprefix(AUTOSAVE_PREFIX)
        game = self.app.registry.games.get(game_id)
        title = translator(game_id)(game.title) if game else game_id
        when = datetime.fromtimestamp(newest.stat().st_mtime).strftime("%Y-%m-%d %H:%M")

        from gamenight.dialogs.yes_no_dialog import YesNoDialog

        def answer(resume: bool | None) -> None:
            if resume:
                self.app.resume(newest)

        self.app.push_screen(
            YesNoDialog(
                _("You have an unfinished game of {title} (autosaved {when}). Resume it?", title=title, when=when)
            ),
            answer,
        )

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        game = self.app.registry.games.get(event.option.id or "")
        about = self.query_one("#about", Static)
        if game is None:
            about.update("")
            return
        about.update(self._about(game))

    def _about(self, game: GameInfo) -> Group:
        t = translator(game.id)
        head = Text()
        head.append(safe_text(t(game.title)), "bold")
        head.append(f"   {seats_text(game)}\n\n", "dim")
        head.append(safe_text(t(game.description)))
        parts: list[RenderableType] = [head]
        bots = sorted(game.bots, key=lambda bot: bot.strength)
        if bots:
            parts.append(Text(f"\n{_('Bots')}", "bold"))
            grid = Table.grid(padding=(0, 2, 0, 0))  # a description wraps under itself, not under the name
            grid.add_column(no_wrap=True, style="bold")
            grid.add_column(style="dim")
            for bot in bots:
                description = safe_text(t(bot.description)) if bot.description else ""
                grid.add_row(Text(f"  {safe_text(t(bot.label))}"), Text(description))  # Text: no markup read
            parts.append(grid)
        tail = Text()
        if game.options:
            tail.append(f"\n{_('Options')}\n", "bold")
            for option in game.options:
                tail.append(f"  {t(option.label)}\n")
        saves = [p for p in self.app.saves.list() if p.name.startswith(f"{game.id}-")]
        if saves:
            tail.append(f"\n{_('{count} saved game(s): press r', count=len(saves))}\n", "italic")
        tail.append(f"\n{_('Return: play   h: rules')}", "dim")
        if getattr(self.app, "tables", None) is not None:
            tail.append(f"\n{_('f: this server’s hall of fame')}", "dim")
        parts.append(tail)
        return Group(*parts)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.app.open_setup(event.option.id)

    def _highlighted_game(self) -> str | None:
        games = self.query_one("#games", OptionList)
        if games.highlighted is None:
            return None
        return games.get_option_at_index(games.highlighted).id or None

    def _wait_for_games(self, action: str) -> bool:
        """True (and ``action`` kept for later) while the plugins are still being looked for."""
        if self.app.registry_loaded:
            return False
        self._pending_action = action  # a key pressed that early is not lost: it acts when the list is in
        return True

    def action_play(self) -> None:
        if self._wait_for_games("play"):
            return
        if game_id := self._highlighted_game():
            self.app.open_setup(game_id)

    def action_rules(self) -> None:
        from gamenight.screens.help_screen import HelpScreen

        if self._wait_for_games("rules"):
            return
        if game_id := self._highlighted_game():
            self.app.push_screen(HelpScreen(self.app.registry.game(game_id)))

    def action_resume(self) -> None:
        from gamenight.screens.saves_screen import SavesScreen

        self.app.push_screen(SavesScreen())

    def action_settings(self) -> None:
        self.app.open_settings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("tables", "hall"):
            return getattr(self.app, "tables", None) is not None  # only in a room connected to shared tables
        return True

    def _fit_bar(self) -> None:
        """In a hosted room the bar shows ``t`` Tables and ``f`` Hall of fame, and leaves ``p`` Plugins out.

        At 80 columns in English the hosted bar had no room for ``f``; the server's plugins are its
        host's business, and ``p`` still works (the lobby's notices name it when a plugin failed)."""
        hosted = getattr(self.app, "tables", None) is not None
        if hosted == self._hosted_bar:
            return
        self._hosted_bar = hosted
        table = self._bindings.key_to_bindings
        table["p"] = [dataclasses.replace(binding, show=not hosted) for binding in table["p"]]

    def tables_changed(self) -> None:
        """The connection to the shared tables came or went (the app calls this)."""
        self._fit_bar()
        self.refresh_bindings()
        game = self.app.registry.games.get(self._highlighted_game() or "")
        if game is not None:
            self.query_one("#about", Static).update(self._about(game))

    def action_tables(self) -> None:
        if getattr(self.app, "tables", None) is None:
            return
        from gamenight.screens.tables_screen import TablesScreen

        self.app.push_screen(TablesScreen())

    def action_hall(self) -> None:
        game_id = self._highlighted_game()
        if getattr(self.app, "tables", None) is None or game_id is None:
            return
        from gamenight.screens.hall_screen import HallScreen

        self.app.push_screen(HallScreen(game_id, [game.id for game in self.games]))

    def action_records(self) -> None:
        self.app.open_records(self._highlighted_game() if self.app.registry_loaded else None)

    def action_plugins(self) -> None:
        from gamenight.screens.plugins_screen import PluginsScreen

        self.app.push_screen(PluginsScreen())
