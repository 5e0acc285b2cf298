"""The game room: ``GameNightApp``.

``textual run gamenight.app:GameNightApp`` works (every argument has a
default); the ``gamenight`` command passes what the command line says.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import sys
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import platformdirs
from rich.terminal_theme import TerminalTheme
from textual import events
from textual.app import App
from textual.binding import Binding
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen, Screen
from textual.widget import Widget

from gamenight import linebreak
from gamenight.config import Config
from gamenight.i18n import _, detect_language, set_language
from gamenight.plugins import Registry
from gamenight.save_store import SaveStore
from gamenight.screens.lobby_screen import LobbyScreen
from gamenight.text import NOTICE_PATH_CELLS, hosted, public_host, safe_text, shown_path
from gamenight.themes import (
    DEFAULT_THEME,
    ansi_fallbacks,
    check_game_variables,
    load_themes,
    resolve_game_variables,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from gamenight.match import Match
    from gamenight.sdk import GameInfo
    from gamenight.tables.client import TableClient
    from gamenight.tables.local import LocalTables
    from gamenight.tables.protocol import ServiceMessage

__all__ = ["MIN_HEIGHT", "MIN_WIDTH", "GameNightApp", "crash_log_path"]

MIN_WIDTH, MIN_HEIGHT = 80, 24

linebreak.install()  # Japanese breaks between phrases, never before "、。）」" (every widget of the room)

THEME_VARIABLE_DEFAULTS = {
    "table-felt": "#15422a",
    "card-face": "#f4f1e8",
    "card-red": "#960a22",
    "card-black": "#1a1a1a",
    "card-back": "#2a4d8f",
    "highlight": "#f0b429",
}
"""CSS variables every theme provides, shared by every card or board game (a theme's
``[variables]`` overrides them).  A game's own colours are its ``GameInfo.theme_variables``,
named ``<game id>-…``, added to these when the game is registered."""

ANSI_ON_DARK = TerminalTheme(
    (12, 12, 12),
    (217, 217, 217),
    [
        (26, 26, 26),
        (255, 128, 128),
        (152, 224, 36),
        (253, 151, 31),
        (157, 101, 255),
        (255, 128, 200),
        (88, 209, 235),
        (196, 197, 181),
    ],
    [
        (98, 94, 76),
        (255, 150, 150),
        (166, 226, 46),
        (230, 219, 116),
        (174, 129, 255),
        (255, 150, 210),
        (102, 217, 239),
        (246, 246, 239),
    ],
)
"""How a dark truecolour theme draws the 16 ANSI colours that games use in Rich text ("red" cards,
"yellow" notes): Textual's Monokai, with red and magenta lightened (Monokai's #f4005f was under
3:1 on the card tables) -- see tests/core/test_contrast.py."""

CRASH_LOG_LIMIT = 256 * 1024
"""The crash log is started afresh when it grows past this many bytes."""


def crash_log_path() -> Path:
    """Where an unexpected error's traceback is written: ``$GAMENIGHT_CRASH_LOG`` or the user log dir."""
    override = os.environ.get("GAMENIGHT_CRASH_LOG")
    if override:
        return Path(override)
    return Path(platformdirs.user_log_dir("gamenight")) / "crash.log"


TABLES_FD_VARIABLE = "GAMENIGHT_TABLES_FD"
"""Names a connected SOCK_STREAM socket to the server's table service (set by ``serve-ssh``)."""

TABLES_CONNECT_TIMEOUT = 10.0


class TableMessage(Message):
    """A message from the table service, posted to the app (and handed to every screen that wants it)."""

    def __init__(self, message: ServiceMessage) -> None:
        super().__init__()
        self.message = message


class TablesConnected(Message):
    """The connection to the table service came up, or (``connected`` False) ended."""

    def __init__(self, connected: bool) -> None:
        super().__init__()
        self.connected = connected


class _Notice(NamedTuple):
    """A notice (Textual's toast) as :meth:`GameNightApp.notify` was asked for it."""

    message: str
    title: str
    severity: SeverityLevel
    timeout: float
    markup: bool


RECONNECT = "GAMENIGHT_RECONNECT"
"""From serve-ssh: a new keyless guest's user name with its reconnect code (``name+code``)."""
_RECONNECT_LOGIN = re.compile(r"[^\s+@]{1,64}\+[a-z0-9]{4,16}")


PUBLIC_HOST = "GAMENIGHT_PUBLIC_HOST"
"""From serve-ssh, with :data:`RECONNECT`: the address players reach the server at (``--public-host``)."""


def reconnect_login(value: str) -> str:
    """``value`` when it is a user name with a reconnect code ("ann+k7qxr9m2"), else ""."""
    value = value.strip()
    return value if _RECONNECT_LOGIN.fullmatch(value) and safe_text(value, limit=90) == value else ""


NOTICES_HELD = 8
"""Notices kept back while a dialog is open (the oldest go first): more would not fit on the screen anyway."""


def _room_command_palette() -> type:
    """Textual's command palette, made to close once only (built on first use: Textual's import is lazy)."""
    from textual.await_complete import AwaitComplete
    from textual.command import CommandPalette
    from textual.widgets import Button, Input, OptionList

    class RoomCommandPalette(CommandPalette):
        """The palette, closed once only.

        Keys typed fast can queue a second selection behind the first; Textual's
        palette then dismissed itself again -- popping whatever screen was on top
        (the lobby: the room ended with ScreenStackError) -- and ran the command
        twice. Once closing, it takes no further selection, and it never pops a
        screen other than itself.
        """

        _palette_closing = False  # not "_closing": every MessagePump has one of its own
        _LATE = (OptionList.OptionSelected, Input.Submitted, Button.Pressed)

        async def _on_message(self, message) -> None:
            # Checked when the message is handled, not when it was posted: a second selection is
            # usually already queued (behind the first) by the time the palette starts closing.
            if self._palette_closing and isinstance(message, self._LATE):
                message.stop()
                return
            await super()._on_message(message)

        def dismiss(self, result=None) -> AwaitComplete:
            if self._palette_closing or self.app.screen is not self:
                self._palette_closing = True
                return AwaitComplete.nothing()
            self._palette_closing = True
            return super().dismiss(result)

    return RoomCommandPalette


class GameNightApp(App):
    """The room: lobby, setup, tables, settings."""

    TITLE = "gamenight"
    CSS_PATH = str(Path(__file__).with_name("app.tcss"))
    BINDINGS = [Binding("ctrl+q", "quit", _("Quit"), show=False, priority=True)]

    def __init__(
        self,
        registry: Registry | None = None,
        config: Config | None = None,
        saves_dir: Path | None = None,
        theme_name: str | None = None,
        bot_delay: float | None = None,
        start_game: str | None = None,
        start_save: Path | None = None,
        start_match: Match | None = None,
        tables_socket: str | None = None,
        tables_streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None,
        records_path: Path | None = None,
        start_replay: Path | None = None,
        start_replay_game: int | None = None,
    ) -> None:
        self.tables: TableClient | None = None
        """The connection to the server's shared tables, once up (None: no shared tables)."""
        self._tables_socket = tables_socket
        self._local_tables: LocalTables | None = None
        self._tables_streams = tables_streams
        self._tables_fd = (
            os.environ.get(TABLES_FD_VARIABLE) if tables_socket is None and tables_streams is None else None
        )
        self.config = config if config is not None else Config.load()
        if config is None:
            set_language(detect_language(self.config.language))
            self.config = Config.load(self.config.path)  # its messages in the language just chosen
        if registry is None and (start_game or start_save or start_match or start_replay):
            from gamenight.plugins import load_registry

            registry = load_registry()  # the first screen needs the games at once
        self.registry_loaded = registry is not None
        """False while the plugins are still being looked for (see :meth:`on_mount`)."""
        self.registry = registry if registry is not None else Registry()
        self.game_theme_variables: dict[str, str] = {}
        self.held_notices: list[_Notice] = []
        """Notices kept back while a dialog is open: shown when it closes (see :meth:`notify`)."""
        self.reconnect_as = reconnect_login(os.environ.pop(RECONNECT, ""))
        """A new keyless guest's user name with its reconnect code (``ann+k7qxr9m2``), from serve-ssh;
        "" for everyone else.  Shown where it hides no play: the lobby's notices, a shared table's
        title bar, and "Reconnect code" in the command palette (never a toast over the table)."""
        self.reconnect_host = public_host(os.environ.pop(PUBLIC_HOST, "")) if self.reconnect_as else ""
        """The address players reach the server at (``games.example.org:2222``), when serve-ssh knows it; ""
        otherwise (the way back is then said without one: never a made-up host to copy)."""
        self.server_notice = ""
        """The server's message for this session (a new guest's welcome), kept for the palette."""
        self._notices_shown: list[tuple[_Notice, float]] = []
        """Notices on screen now, with when (monotonic) each was shown."""
        self.shared_saves: dict[str, Path] = {}
        """Each shared table's latest finished game, as kept among the saves (its end dialog reviews it)."""
        """The registered games' own CSS variables with their defaults (``lits-shape-l``)."""
        from gamenight.compat.textual_internals import keep_wide_characters_whole

        keep_wide_characters_whole()  # Japanese on a layer over other widgets (the coach panel) drawn whole
        super().__init__()
        self.ansi_theme_dark = ANSI_ON_DARK
        if saves_dir is None:
            from gamenight.paths import default_saves_dir

            saves_dir = default_saves_dir(self.config)
        self.saves = SaveStore(Path(saves_dir))
        if records_path is None:
            from gamenight.records.store import default_records_path

            records_path = default_records_path()
        self.records_path = Path(records_path)
        """The records database (see :mod:`gamenight.records.store`)."""
        self._records = None
        self._records_off = False
        self._records_told = False
        self.bot_delay = bot_delay if bot_delay is not None else self.config.bot_delay
        self.start_game = start_game
        self.start_save = start_save
        self.start_match = start_match
        self.start_replay = start_replay
        self.start_replay_game = start_replay_game
        """Which game of ``start_replay`` (from 0); ``None``: the room asks when the save holds several."""
        self.startup_messages: list[str] = []
        if self.config.error:
            self.startup_messages.append(self.config.error)
        # Themes are registered before the CSS is parsed, or their variables are unresolved.
        user_themes = Path(platformdirs.user_config_dir("gamenight")) / "themes"
        loaded = load_themes(self.registry.themes, self.config.path.parent / "themes")
        if self.config.path.parent / "themes" != user_themes:
            more = load_themes([], user_themes)
            loaded.errors.extend(more.errors)
            loaded.broken = more.broken | loaded.broken
        self.theme_errors = loaded.errors
        self.theme_notices: list[str] = []
        """Deprecated or unknown ``[variables]`` names in a theme (the theme still loads)."""
        self._broken_themes = loaded.broken
        self._shipped_themes = set(loaded.shipped)
        # Only gamenight's themes are offered (Ctrl+P → Theme, the settings): Textual registers its ~20
        # built-in ones in every app, and none was checked against the games' tables (with
        # catppuccin-latte SEVEN's hand was grey on purple).  A theme of ours may take one's name.
        from textual.theme import BUILTIN_THEMES

        for name in BUILTIN_THEMES:
            self.unregister_theme(name)
        for theme in loaded.themes.values():
            self.register_theme(theme)
        if self.registry_loaded:
            self._take_game_variables()
        self._wanted_theme = theme_name or self.config.theme or DEFAULT_THEME
        if self._wanted_theme in self.available_themes:
            self.theme = self._wanted_theme
        else:  # perhaps a plugin's theme: decided when the plugins are in
            self.theme = DEFAULT_THEME
            if self.registry_loaded:
                self.startup_messages.append(self._unknown_theme_text())

    def _unknown_theme_text(self) -> str:
        problem = self._broken_themes.get(self._wanted_theme)
        if problem is not None:
            return _(
                "The theme {name!r} could not be loaded; using {default}. {problem}",
                name=self._wanted_theme,
                default=DEFAULT_THEME,
                problem=problem,
            )
        return _("Unknown theme {name!r}; using {default}.", name=self._wanted_theme, default=DEFAULT_THEME)

    # -- notices ------------------------------------------------------------------

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Textual's notice (a toast at the bottom right), never drawn over a dialog.

        A toast sat over whatever dialog was open: "saved to…" on the result dialog's border,
        the config's warnings on the startup "Resume it?" question.  While a dialog (any modal
        screen) is open a notice is held, and the ones already showing are taken back with the
        time they had left; all of them show when the dialog closes.
        """
        notice = _Notice(message, title, severity, self.NOTIFICATION_TIMEOUT if timeout is None else timeout, markup)
        if self._dialog_open():
            self._hold(notice)
        else:
            self._show_notice(notice)

    def _dialog_open(self) -> bool:
        try:
            return isinstance(self.screen, ModalScreen)
        except Exception:  # no screen yet (the room is starting)
            return False

    def _hold(self, notice: _Notice) -> None:
        self.held_notices.append(notice)
        del self.held_notices[:-NOTICES_HELD]

    def _show_notice(self, notice: _Notice) -> None:
        now = time.monotonic()
        self._notices_shown = [(shown, at) for shown, at in self._notices_shown if at + shown.timeout > now]
        self._notices_shown.append((notice, now))
        super().notify(
            notice.message, title=notice.title, severity=notice.severity, timeout=notice.timeout, markup=notice.markup
        )

    def _screen_changed(self, screen: Screen) -> None:
        """A dialog opened: take the notices back from the screen; the dialogs are closed: show them."""
        if isinstance(screen, ModalScreen):
            if not self._notices_shown:
                return
            now = time.monotonic()
            showing = [notice._replace(timeout=notice.timeout - (now - at)) for notice, at in self._notices_shown]
            self.held_notices[:0] = [notice for notice in showing if notice.timeout >= 1]  # older than any held
            del self.held_notices[:-NOTICES_HELD]
            self._notices_shown = []
            self.clear_notifications()
            for below in self.screen_stack[:-1]:  # the screen the dialog dims keeps no toast of its own
                for toast in below.query("Toast"):
                    holder = toast.parent  # the toast's own holder goes with it
                    (holder if isinstance(holder, Widget) else toast).remove()
            return
        held, self.held_notices = self.held_notices, []
        for notice in held:
            self._show_notice(notice)

    def get_driver_class(self):
        """Textual's driver, its input thread made tolerant of invalid UTF-8 (see gamenight.compat)."""
        from gamenight.compat.textual_internals import tolerate_undecodable_input

        driver_class = super().get_driver_class()
        tolerate_undecodable_input(driver_class)
        return driver_class

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """The games' own colours and the room's shared ones, each theme's ``[variables]`` over them.

        Under a 16-colour theme (``ansi = true``) a default given in RGB falls back to the nearest of
        the terminal's 16 colours (:func:`gamenight.themes.ansi_fallbacks`): a plugin's colours work
        there without the theme naming them."""
        defaults = {**self.game_theme_variables, **THEME_VARIABLE_DEFAULTS}
        theme = self.get_theme(self.theme) if self.theme else None
        if theme is not None and theme.ansi:
            return ansi_fallbacks(defaults)
        return defaults

    def _take_game_variables(self) -> None:
        """Register the games' theme variables; rename old names in the themes, report unknown ones.

        A game whose declaration is bad is reported on its plugin's record and
        left out of the room (its stylesheet would not parse without them).
        """
        from textual.theme import BUILTIN_THEMES

        reserved = set(THEME_VARIABLE_DEFAULTS)
        for builtin in BUILTIN_THEMES.values():
            reserved |= set(builtin.variables)
        base = self.get_theme(DEFAULT_THEME) or BUILTIN_THEMES["textual-dark"]
        reserved |= set(base.to_color_system().generate())  # Textual's own: $text-muted, $primary, …
        declared: dict[str, str] = {}
        for game_id, game in list(self.registry.games.items()):
            problem = check_game_variables(game_id, game.theme_variables, reserved)
            if problem is None:
                declared.update(game.theme_variables)
                continue
            del self.registry.games[game_id]
            for record in self.registry.plugins:
                if game_id in record.games:
                    record.games.remove(game_id)
                    record.errors.append(f"game {game_id!r} not registered: {problem}")
        self.game_theme_variables = declared
        seen = set(self.theme_notices)
        common = reserved | set(declared)
        for theme in self.available_themes.values():
            if set(theme.variables) <= common:
                continue  # the usual case: no old or unknown name (and no colour system to build)
            known = reserved | set(theme.to_color_system().generate())
            notices, unknown = resolve_game_variables(theme, known, declared, self.registry.games)
            if unknown and theme.name not in self._shipped_themes:
                notices.append(
                    _("{theme}: no game declares variables.{names}", theme=theme.name, names=", ".join(unknown))
                )
            for notice in notices:
                if notice not in seen:
                    seen.add(notice)
                    self.theme_notices.append(notice)

    def get_system_commands(self, screen: Screen):
        for command in super().get_system_commands(screen):  # Textual's own: Theme, Quit, Keys, …
            yield command._replace(title=_(command.title), help=_(command.help))
        from gamenight.commands import system_commands

        yield from system_commands(self, screen)

    def action_command_palette(self) -> None:
        """Textual's command palette, its prompt in the room's language."""
        from textual.command import CommandPalette

        from gamenight.screens.too_small_screen import TooSmallScreen

        RoomCommandPalette = _room_command_palette()

        if not self.use_command_palette or isinstance(self.screen, TooSmallScreen):
            return  # nothing to choose from while the room asks for a bigger window
        if CommandPalette.is_open(self) or any(screen.id == "--command-palette" for screen in self.screen_stack):
            return  # already open (perhaps under another screen): a second one would clash with it
        self.push_screen(RoomCommandPalette(id="--command-palette", placeholder=_("Search for commands…")))

    def search_themes(self) -> None:
        """Ctrl+P → Theme: gamenight's themes (see ``__init__``), the prompt in the room's language."""
        from textual.theme import ThemeProvider

        RoomCommandPalette = _room_command_palette()
        self.push_screen(RoomCommandPalette(providers=[ThemeProvider], placeholder=_("Search for themes…")))

    def get_default_screen(self) -> Screen:
        """The lobby is the bottom screen: every other screen returns to it."""
        return LobbyScreen()

    def on_mount(self) -> None:
        self.screen_change_signal.subscribe(self, self._screen_changed, immediate=True)
        config_path = shown_path(self.config.path)
        for message in self.startup_messages + self.config.warnings:
            # may quote the command line; the config file's path is shortened, its name kept whole
            message = message.replace(config_path, shown_path(self.config.path, NOTICE_PATH_CELLS))
            self.notify(message, severity="warning", timeout=12, markup=False)
        notice = os.environ.pop("GAMENIGHT_NOTICE", "")  # from serve-ssh: a new guest's reconnect code
        self.server_notice = safe_text(notice, limit=600)
        if notice and not self.reconnect_as:
            self.notify(self.server_notice, title=_("From the server"), timeout=120, markup=False)
        # else the code is in the lobby's notices and a shared table's title: a two-minute toast of five
        # lines hid the newest moves of a table's log (bottom right) while the guest played
        if not self.registry_loaded:
            # Paint the lobby first; plugins are imported in a thread so the room
            # answers keys while a slow plugin loads ("Looking for games...").
            self.call_after_refresh(
                self.run_worker, self._load_registry, thread=True, name="plugins", exit_on_error=False
            )
        if self.start_match is not None:
            self.open_match(self.start_match)
        elif self.start_save is not None:
            self.resume(self.start_save)
        elif self.start_game is not None:
            self.open_setup(self.start_game)
        elif self.start_replay is not None:
            self.open_replay_file(self.start_replay, self.start_replay_game, choose=True)
        self.call_after_refresh(self._check_size)
        self._watch_terminal()
        if self._tables_fd is not None or self._tables_socket is not None or self._tables_streams is not None:
            self.run_worker(self._connect_tables(), name="tables", exit_on_error=False)

    HANGUP_CHECK_SECONDS = 2.0

    def _watch_terminal(self) -> None:
        """End the room when its terminal hangs up and no SIGHUP says so.

        A terminal whose other side is gone (an SSH server killed outright, which cannot hang
        up its rooms; a pty whose session leader ignores SIGHUP) reads as end of file for ever:
        Textual's input thread then spins on it, a whole core for a room nobody can reach.
        Every few seconds the room asks the terminal for its settings, which a hung-up terminal
        refuses, and then ends as the hangup would have ended it (each move is saved already).
        """
        if self.is_headless:  # Pilot; the browser's rooms have no tty on stdin (below)
            return
        stdin = sys.__stdin__
        try:
            fd = stdin.fileno() if stdin is not None else -1
            if fd < 0 or not os.isatty(fd):
                return
        except (OSError, ValueError):
            return

        def check() -> None:
            import termios

            try:
                termios.tcgetattr(fd)
            except (termios.error, OSError):
                signal.signal(signal.SIGHUP, signal.SIG_DFL)
                os.kill(os.getpid(), signal.SIGHUP)

        self.set_interval(self.HANGUP_CHECK_SECONDS, check, name="hangup")

    # -- shared tables ----------------------------------------------------------

    async def _open_tables_streams(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._tables_streams is not None:
            return self._tables_streams
        if self._tables_socket is not None:
            try:
                return await asyncio.open_unix_connection(self._tables_socket, limit=1 << 20)
            except (FileNotFoundError, ConnectionRefusedError):  # nobody serves there: this room does
                from gamenight.plugins import load_registry
                from gamenight.tables.local import LocalTables

                registry = self.registry if self.registry_loaded else await asyncio.to_thread(load_registry)
                self._local_tables = await LocalTables(registry, Path(self._tables_socket)).start()
                return await asyncio.open_unix_connection(self._tables_socket, limit=1 << 20)
        fd_text = (self._tables_fd or "").strip()
        if not fd_text.isdigit():
            raise ValueError(_("{variable} is not a file descriptor number", variable=TABLES_FD_VARIABLE))
        sock = socket.socket(fileno=int(fd_text))  # OSError when it is closed or not a socket
        if sock.type != socket.SOCK_STREAM:
            sock.detach()
            raise ValueError(_("{variable} does not name a stream socket", variable=TABLES_FD_VARIABLE))
        return await asyncio.open_connection(sock=sock, limit=1 << 20)

    async def _connect_tables(self) -> None:
        """Connect to the table service; on any failure say so and go on without shared tables."""
        from gamenight.tables.client import TableClient
        from gamenight.tables.protocol import HallName, ListTables

        try:
            reader, writer = await asyncio.wait_for(self._open_tables_streams(), TABLES_CONNECT_TIMEOUT)
            client = TableClient(reader, writer)

            def forward(message: ServiceMessage) -> None:
                self.post_message(TableMessage(message))

            client.listeners.append(forward)
            self.tables = client  # a returning player's snapshot may come right after the welcome
            await client.connect()
            await client.wait_for(lambda c: c.name, timeout=TABLES_CONNECT_TIMEOUT)
            await client.send(HallName(self.config.hall_of_fame_name))
            await client.send(ListTables())
        except (OSError, ValueError, TimeoutError, ConnectionError) as error:
            self.tables = None
            reason = str(error) or type(error).__name__
            self.notify(
                _("Shared tables are not available: {reason}", reason=safe_text(reason, limit=200)),
                severity="warning",
                timeout=12,
                markup=False,
            )
            return
        self.post_message(TablesConnected(True))
        try:
            await client.closed.wait()
        except asyncio.CancelledError:  # the room is closing: hang up, so the service sees the seat drop
            client.writer.close()
            raise
        self.tables = None
        self.notify(_("The connection to the shared tables was lost."), severity="warning", timeout=12, markup=False)
        self.post_message(TablesConnected(False))

    def on_table_message(self, event: TableMessage) -> None:
        from gamenight.tables import protocol as p

        message = event.message
        if isinstance(message, p.Snapshot):
            self.open_remote_table()  # joined, watching, or back at one's seat after reconnecting
        elif isinstance(message, p.Finished):
            self._keep_finished(message)
        elif isinstance(message, p.Error) and message.code == "solo-closed":  # said wherever the person is
            from gamenight.tables.errors import refusal_text

            self.notify(refusal_text(message.code, message.message), severity="warning", timeout=12, markup=False)
        for screen in list(self.screen_stack):
            handler = getattr(screen, "table_message", None)
            if handler is not None:
                handler(event.message)

    def on_tables_connected(self, event: TablesConnected) -> None:
        for screen in list(self.screen_stack):
            handler = getattr(screen, "tables_changed", None)
            if handler is not None:
                handler()

    # -- plugins ----------------------------------------------------------------

    def _load_registry(self) -> None:
        from gamenight.plugins import load_registry

        try:
            registry = load_registry()
        except Exception as error:  # load_registry reports plugin faults itself; this is ours
            self.call_from_thread(
                self.notify,
                _("Could not look for games: {error}", error=safe_text(error)),
                severity="error",
                timeout=12,
                markup=False,
            )
            registry = Registry()
        self.call_from_thread(self.registry_arrived, registry)

    def registry_arrived(self, registry: Registry) -> None:
        """Take the plugins found: their themes, then the lobby's list of games."""
        self.registry = registry
        self.registry_loaded = True
        if registry.themes:
            loaded = load_themes(registry.themes)
            self.theme_errors.extend(loaded.errors)
            self._broken_themes = loaded.broken | self._broken_themes
            for theme in loaded.themes.values():
                if theme.name not in self.available_themes:
                    self.register_theme(theme)
            self._shipped_themes |= loaded.shipped
        self._take_game_variables()
        if self._wanted_theme in self.available_themes:
            if self.theme != self._wanted_theme:
                self.theme = self._wanted_theme
            else:
                self.refresh_css(animate=False)  # the games' variables, and renamed ones, take effect
        else:
            self.notify(self._unknown_theme_text(), severity="warning", timeout=12, markup=False)
        for screen in self.screen_stack:
            if isinstance(screen, LobbyScreen):
                screen.show_games()
        if self.tables is not None and self.tables.snapshot is not None:
            self.open_remote_table()  # a snapshot that came while the games were being looked for

    # -- navigation used by the screens ---------------------------------------

    def open_setup(self, game_id: str) -> None:
        """Show the setup screen of ``game_id`` (with a message if unknown)."""
        from gamenight.screens.setup_screen import SetupScreen

        try:
            game = self.registry.game(game_id)
        except KeyError as error:
            self.notify(safe_text(error.args[0]), severity="error", timeout=10, markup=False)
            return
        self.push_screen(SetupScreen(game))

    def open_match(self, match: Match, save_path: Path | None = None) -> None:
        """Show the table of ``match`` (after any one-time bot preparation, with a progress bar)."""
        from gamenight.screens.preparing_screen import PreparingScreen, specs_to_prepare

        specs = specs_to_prepare(match)
        if specs:

            def prepared(error: str | None) -> None:
                if error is not None:
                    self.notify(
                        _("A bot could not prepare: {error}", error=safe_text(error)),
                        severity="error",
                        timeout=12,
                        markup=False,
                    )
                    return
                self._show_match(match, save_path)

            self.push_screen(PreparingScreen(match, specs, then=prepared))
            return
        self._show_match(match, save_path)

    def _show_match(self, match: Match, save_path: Path | None) -> None:
        if match.game.screen is None:
            self.notify(
                _("{game} has no screen to play on.", game=safe_text(match.game.title)), severity="error", markup=False
            )
            return
        make = match.game.screen

        def build() -> Screen:
            from gamenight.ui.game_screen import GameScreen

            screen = make(match)
            if isinstance(screen, GameScreen):  # the one kind of screen that saves
                screen.save_path = save_path
            return screen

        self._push_game_screen(build)

    def open_remote_table(self) -> None:
        """Show the shared table this room sits at (or watches) through its game's usual screen."""
        from gamenight.tables import protocol as p
        from gamenight.tables.client import RemoteTable
        from gamenight.ui.game_screen import GameScreen

        client = self.tables
        if client is None or client.snapshot is None or not self.registry_loaded:
            return  # without the games yet: registry_arrived opens it
        if any(isinstance(screen, GameScreen) and screen.remote for screen in self.screen_stack):
            return
        game = self.registry.games.get(client.snapshot.table.game)
        if game is None or game.screen is None:
            self.notify(
                _("{game} is not installed in this room.", game=safe_text(client.snapshot.table.game)),
                severity="error",
                markup=False,
            )
            self.run_worker(client.send(p.Leave()), exit_on_error=False)
            return
        from gamenight.screens.tables_screen import TablesScreen
        from gamenight.screens.too_small_screen import TooSmallScreen

        while len(self.screen_stack) > 1 and not isinstance(self.screen, (TooSmallScreen, TablesScreen)):
            self.pop_screen()  # dialogs and the table's setup: the table is what matters now
        if not isinstance(self.screen, (TooSmallScreen, TablesScreen)) and not client.snapshot.table.solo:
            self.push_screen(TablesScreen())  # (back at one's seat after reconnecting: straight from the lobby)
        # Under the table, the Tables list: leaving the table, or closing its finished game, comes back to
        # it, to join or open another.  A solo table (one person against bots) sits on the lobby instead.
        make = game.screen
        # A RemoteTable stands in for the Match a game's screen is given (the view of one seat, no state).
        self._push_game_screen(lambda: make(cast("Match", RemoteTable(client, game))))

    def _keep_finished(self, message) -> None:
        """Write a finished shared game to this person's saves, once the rules replay it (see docs/hosting.md)."""
        from gamenight.saves import SaveError

        try:
            path = self.saves.keep_shared(self.registry, message.table, message.save)
        except (SaveError, OSError, ValueError) as error:
            self.notify(
                _("The shared game could not be saved: {reason}", reason=safe_text(error, limit=200)),
                severity="warning",
                markup=False,
            )
            return
        self.notify(_("The game was saved to {path}", path=shown_path(path, NOTICE_PATH_CELLS)), markup=False)
        self.shared_saves[message.table] = path
        self._record_shared(path)

    def _record_shared(self, path: Path) -> None:
        """Keep a finished shared game in this person's own records too (the server keeps its own;
        nothing is sent back to it).  Never raises: a failure is told once, as for a local game."""
        try:
            store = self.records_store()
            if store is not None:
                from gamenight.records.store import record_from_match
                from gamenight.saves import load_match

                store.add(record_from_match(load_match(self.registry, path)))
        except Exception as error:
            self._records_notice(_("This game could not be recorded: {error}", error=safe_text(error)), error)

    def open_help(self, game: GameInfo, extra: str = "") -> None:
        """Show ``game``'s rules and keys (and ``extra`` Markdown after them)."""
        from gamenight.screens.help_screen import HelpScreen

        self.push_screen(HelpScreen(game, extra=extra))

    def open_settings(self) -> None:
        """Show the settings screen."""
        from gamenight.screens.settings_screen import SettingsScreen

        self.push_screen(SettingsScreen())

    def open_records(self, game_id: str | None = None) -> None:
        """Show the records screen (at ``game_id``'s figures when it has any)."""
        from gamenight.screens.records_screen import RecordsScreen

        self.push_screen(RecordsScreen(game_id))

    def open_replay(self, replay: Any) -> None:
        """Show ``replay`` (a :class:`gamenight.replay.Replay`) on its game's own screen, read-only."""
        from gamenight.screens.replay_screen import replay_screen

        self._push_game_screen(lambda: replay_screen(replay))

    def _push_game_screen(self, make: Callable[[], Screen]) -> None:
        """Show the screen ``make`` builds; a plugin's screen failing to build must not end the room."""
        try:
            screen = make()
        except Exception as error:
            self.notify(
                _("The game's screen failed to open: {error}", error=safe_text(error)),
                severity="error",
                timeout=12,
                markup=False,
            )
            return
        self.push_screen(screen)

    def open_replay_file(self, path: Path, game_number: int | None = None, choose: bool = False) -> bool:
        """Replay a save file's game (its ``game_number``-th, from 0; by default its latest).

        With ``choose`` and no ``game_number``, a save holding several games first asks which.
        A file that cannot be replayed gets a message saying why.
        """
        from gamenight.replay import Replay, ReplayError

        try:
            if choose and game_number is None:
                games = Replay.save_games(self.registry, Path(path))
                if len(games) > 1:
                    from gamenight.screens.replay_screen import ReplayGameChooser

                    def chosen(number: int | None) -> None:
                        if number is not None:
                            self.open_replay_file(path, number)

                    self.push_screen(ReplayGameChooser(games), chosen)
                    return True
            replay = Replay.from_save(self.registry, Path(path), game_number)
        except ReplayError as error:
            from gamenight.dialogs.message_dialog import MessageDialog

            self.push_screen(MessageDialog(_("Cannot replay"), str(error)))
            return False
        self.open_replay(replay)
        return True

    def resume(self, path: Path) -> bool:
        """Load a save and open it; a bad file gets a message and is left untouched."""
        from gamenight.saves import SaveError

        try:
            match = self.saves.load(self.registry, Path(path))
        except SaveError as error:
            from gamenight.dialogs.message_dialog import MessageDialog

            self.push_screen(MessageDialog(_("Cannot resume"), str(error)))
            return False
        if match.table:  # a shared table's game: a record of what was played there, not a game to go on with
            self.notify(
                _("This game was played at a shared table: its save opens as a replay, not as a game to resume."),
                markup=False,
            )
            return self.open_replay_file(Path(path), choose=True)
        autosave = Path(path).resolve() == self.saves.autosave_path(match.game.id).resolve()
        self.open_match(match, None if autosave else Path(path))
        return True

    # -- records ----------------------------------------------------------------

    def records_store(self):
        """The open records (:class:`gamenight.records.store.RecordsStore`), or None when the room keeps none.

        A file that cannot be used is reported once; the room then goes on without records.
        """
        if self._records is None and not self._records_off:
            from gamenight.records.store import RecordsStore, RecordsUnavailable

            try:
                self._records = RecordsStore.open(self.records_path)
            except RecordsUnavailable as error:
                self._records_off = True
                self._records_notice(str(error), error)
        return self._records

    def record_finished_game(self, match: Match) -> None:
        """Keep ``match``'s finished game in the records.  Never raises: a failure is logged and told once."""
        from gamenight.match import Match

        if not isinstance(match, Match):  # a shared table's game is recorded where it is played
            return
        try:
            store = self.records_store()
            if store is not None:
                from gamenight.records.store import record_from_match

                store.add(record_from_match(match))
        except Exception as error:
            self._records_notice(_("This game could not be recorded: {error}", error=safe_text(error)), error)

    def _records_notice(self, text: str, error: BaseException) -> None:
        self._log_crash(error, heading="gamenight could not keep a record")
        if not self._records_told:
            self._records_told = True
            self.notify(safe_text(text, 500), severity="warning", timeout=12, markup=False)

    # -- an unexpected error ----------------------------------------------------

    def _handle_exception(self, error: Exception) -> None:
        """End the room with a short message: the game kept, the traceback in a log, never on screen.

        Textual would print a traceback with the server's paths and local
        variables to whoever is at the terminal -- over SSH, a stranger.
        """
        self._return_code = 1
        if self._exception is None:  # what Textual does, so Pilot tests still see the error
            self._exception = error
            self._exception_event.set()
        kept = self._autosave_everything()
        logged = self._log_crash(error)
        lines = [_("gamenight stopped because of an unexpected error.")]
        if kept:
            lines.append(_("Your game is kept in its autosave: resume it from the lobby."))
        if logged is not None and not hosted():
            lines.append(_("Details were written to {path}", path=str(logged)))
        elif logged is not None:
            lines.append(_("The details were logged for the host."))
        from rich.text import Text

        self.panic(Text("\n".join(lines)))

    def _autosave_everything(self) -> bool:
        """Autosave every game in progress on the screen stack; True if any was kept."""
        from gamenight.match import Match
        from gamenight.ui.game_screen import GameScreen

        kept = False
        for screen in self.screen_stack:
            # Only a local game is the room's to keep: a shared table is kept by the table service,
            # and a replay is a file already.
            if isinstance(screen, GameScreen) and isinstance(screen.match, Match) and not screen.match.over:
                try:
                    self.saves.autosave(screen.match)
                    kept = True
                except Exception:  # the room is going down anyway; keep what can be kept
                    continue
        return kept

    def _log_crash(self, error: BaseException, heading: str = "gamenight crashed") -> Path | None:
        """Append the traceback to the crash log; its path, or None if it could not be written."""
        path = crash_log_path()
        text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        stamp = time.strftime("%Y-%m-%d %H:%M:%S %z")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            mode = "w" if path.exists() and path.stat().st_size > CRASH_LOG_LIMIT else "a"
            with path.open(mode, encoding="utf-8") as log:
                log.write(f"--- {heading} at {stamp} ---\n{text}\n")
        except OSError:
            return None
        return path

    # -- size guard ----------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        self._check_size(event.size.width, event.size.height)

    def _check_size(self, width: int | None = None, height: int | None = None) -> None:
        from gamenight.screens.too_small_screen import TooSmallScreen

        if width is None or height is None:
            width, height = self.size
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        showing = isinstance(self.screen, TooSmallScreen)
        if small and not showing:
            self.push_screen(TooSmallScreen())
        elif not small and showing:
            self.pop_screen()
        elif small and showing:
            self.screen.refresh()
