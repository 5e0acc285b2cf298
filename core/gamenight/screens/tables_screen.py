"""Shared tables: every open and running table on this server, live; open, join, watch."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import ModalScreen, Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from gamenight.i18n import _, translator
from gamenight.screens.room import InTheRoom
from gamenight.tables import protocol as p
from gamenight.tables.errors import refusal_text
from gamenight.text import safe_text
from gamenight.ui.bindings import translate_bindings
from gamenight.ui.choice_list import ChoiceList
from gamenight.widgets.key_bar import KeyBar

if TYPE_CHECKING:
    from gamenight.sdk import GameInfo

__all__ = ["GamePicker", "TablesScreen", "seat_text", "table_line"]

TIMER_CHOICES = (0, 30, 60, 300)
"""The move timers a table may have (seconds; 0: none)."""


def timer_text(seconds: float) -> str:
    if not seconds:
        return _("no timer")
    if seconds >= 60:
        return _("{minutes} min a move", minutes=int(seconds // 60))
    return _("{seconds} s a move", seconds=int(seconds))


def seat_text(seat: p.SeatInfo) -> str:
    """One seat as the list shows it: a person's name, a bot, or a free seat."""
    name = safe_text(seat.name, limit=32)
    if seat.person and not seat.taken:
        return _("free")
    if seat.away:
        return _("{name} (away)", name=name)
    if seat.bot:
        return _("{name} (bot)", name=name)
    return name


def option_value_text(option: Any, value: object, t: Any) -> str:
    """A table's option value as the setup screen shows it: a switch as Yes/No, a choice by its
    (translated) label; ``option`` is the game's option (None: not a known one, shown as sent)."""
    if isinstance(value, bool):
        return _("Yes") if value else _("No")
    if option is not None and option.kind == "choice":
        label = next((text for choice, text in option.choices if choice == value), None)
        if label is not None:
            return t(label)
    return str(value)


def status_text(info: p.TableInfo) -> str:
    if info.status == "waiting":
        return _("waiting")
    if info.status == "over":
        return _("over")
    if 0 <= info.to_move < len(info.seats):
        return _("playing: {name} to move", name=safe_text(info.seats[info.to_move].name, limit=32))
    return _("playing")


def table_line(info: p.TableInfo, title: str) -> Text:
    """The list's entry of one table: game and status, then who sits where."""
    text = Text()
    text.append(safe_text(title, limit=30), "bold")
    text.append(f"  {status_text(info)}")
    if info.watchers:
        text.append("  " + _("{count} watching", count=info.watchers))
    text.append("\n  " + ", ".join(seat_text(seat) for seat in info.seats))
    return text


class GamePicker(ModalScreen[str | None]):
    """Which game the new shared table is for."""

    BINDINGS = [Binding("escape", "cancel", _("Back"))]

    DEFAULT_CSS = """
    GamePicker { align: center middle; }
    GamePicker #picker { width: 44; height: auto; max-height: 18; border: round $primary; background: $surface; }
    """

    def __init__(self, games: list[GameInfo]) -> None:
        super().__init__()
        translate_bindings(self, _)
        self.games = games

    def compose(self) -> ComposeResult:
        options = [Option(safe_text(translator(game.id)(game.title), limit=40), id=game.id) for game in self.games]
        picker = ChoiceList(*options, id="picker")
        picker.border_title = _("New table: which game?")
        yield picker
        yield KeyBar()  # the chooser's keys, not those of the screen under it

    def on_mount(self) -> None:
        picker = self.query_one(OptionList)
        picker.highlighted = 0 if self.games else None
        picker.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class TablesScreen(InTheRoom, Screen):
    """The shared tables of this server: Return joins, w watches, n opens one, c joins by code."""

    BINDINGS = [
        Binding("enter", "join", _("Join"), tooltip=_("Take a free seat at the highlighted table"), priority=True),
        Binding("w", "watch", _("Watch"), tooltip=_("Watch the highlighted table (no one's hand is shown)")),
        Binding("n", "new", _("New table"), tooltip=_("Open a table: the game's setup, seats open for people or bots")),
        Binding("c", "code", _("Code"), tooltip=_("Join a private table by the short code its host shared")),
        Binding("f1,question_mark", "help", _("Help")),
        Binding("escape", "app.pop_screen", _("Back")),
    ]

    DEFAULT_CSS = """
    TablesScreen #tables-title {
        dock: top; height: 1; background: $primary; color: $text; padding: 0 1; text-style: bold;
    }
    TablesScreen #tables-body { height: 1fr; }
    TablesScreen #tables { width: 1fr; height: 1fr; border: round $primary; border-title-color: $text; }
    TablesScreen #table-about { width: 30; height: 1fr; padding: 0 1; border: round $panel; }
    """

    AUTO_FOCUS = "#tables"

    def __init__(self) -> None:
        super().__init__()
        translate_bindings(self, _)
        self._list_stale = False
        """A newer list came while a table covered this screen: it is shown when the screen is back."""

    def compose(self) -> ComposeResult:
        yield Static(_("gamenight — shared tables"), id="tables-title")
        with Horizontal(id="tables-body"):
            tables = OptionList(id="tables")
            tables.border_title = _("Tables")
            yield tables
            yield Static("", id="table-about", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        self.show_tables()
        client = self.app.tables
        if client is not None:
            self.run_worker(client.send(p.ListTables()), exit_on_error=False)

    @property
    def infos(self) -> list[p.TableInfo]:
        client = self.app.tables
        return list(client.tables) if client is not None else []

    def _title(self, info: p.TableInfo) -> str:
        game = self.app.registry.games.get(info.game)
        return translator(info.game)(game.title) if game is not None else info.game

    def show_tables(self) -> None:
        """List the tables again (kept on the one highlighted), from the service's latest list."""
        widget = self.query_one("#tables", OptionList)
        current = self._highlighted()
        widget.clear_options()
        infos = self.infos
        if infos:
            widget.add_options([Option(table_line(info, self._title(info)), id=info.table) for info in infos])
            ids = [info.table for info in infos]
            widget.highlighted = ids.index(current) if current in ids else 0
        else:
            widget.add_option(Option(_("No open tables yet: press n to open one."), id="", disabled=True))
        self._show_about()
        self.refresh_bindings()  # Join and Watch: dimmed while there is no table to join or watch

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("join", "watch") and self.is_mounted:
            return True if self._highlighted() is not None else None  # None: in the bar, dimmed
        return True

    def _highlighted(self) -> str | None:
        widget = self.query_one("#tables", OptionList)
        if widget.highlighted is None or widget.option_count == 0:
            return None
        return widget.get_option_at_index(widget.highlighted).id or None

    def _info(self, table_id: str | None) -> p.TableInfo | None:
        return next((info for info in self.infos if info.table == table_id), None)

    def _show_about(self) -> None:
        info = self._info(self._highlighted())
        about = self.query_one("#table-about", Static)
        if info is None:
            about.update(_("Press n to open a table, c to join one by its code."))
            return
        lines = [self._title(info), status_text(info), ""]
        lines += [_("Seat {number}: {who}", number=n + 1, who=seat_text(seat)) for n, seat in enumerate(info.seats)]
        lines += ["", timer_text(info.timer), _("{count} watching", count=info.watchers)]
        game = self.app.registry.games.get(info.game)
        t = translator(info.game)
        for key, value in info.options.items():
            option = next((o for o in game.options if o.key == key), None) if game is not None else None
            label = t(option.label) if option is not None else key
            lines.append(f"{safe_text(label, limit=40)}: {safe_text(option_value_text(option, value, t), limit=40)}")
        about.update("\n".join(lines))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_about()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_join()

    def on_screen_resume(self) -> None:
        if self.app.tables is None:  # the connection went while a table covered this screen
            self.app.pop_screen()
            return
        if self._list_stale:
            self._list_stale = False
            self.show_tables()

    def table_message(self, message: Any) -> None:
        """A message from the table service (the app hands every one to the screens)."""
        if isinstance(message, p.TableList):
            if self.app.screen is self:
                self.show_tables()
            else:  # under the table one sits at: no work for a list nobody sees (it comes at every move)
                self._list_stale = True
        elif isinstance(message, p.Error) and self.app.screen is self:
            self.notify(refusal_text(message.code, message.message), severity="error", markup=False)

    def tables_changed(self) -> None:
        if self.app.tables is None and self.app.screen is self:
            self.app.pop_screen()

    def _send(self, message: Any) -> None:
        client = self.app.tables
        if client is None:
            self.notify(_("Shared tables are not available now."), severity="error", markup=False)
            return
        self.run_worker(client.send(message), exit_on_error=False)

    def action_join(self) -> None:
        if (table := self._highlighted()) is not None:
            self._send(p.Join(table))

    def action_watch(self) -> None:
        if (table := self._highlighted()) is not None:
            self._send(p.Watch(table))

    def action_code(self) -> None:
        from gamenight.dialogs import TextPrompt

        def typed(code: str | None) -> None:
            code = "".join(ch for ch in (code or "") if ch.isascii() and ch.isalnum())[:16]
            if code:
                self._send(p.Join("", code=code))

        self.app.push_screen(TextPrompt(_("The table's code:"), ""), typed)

    def action_new(self) -> None:
        games = sorted(
            (game for game in self.app.registry.games.values() if game.bots and game.screen is not None),
            key=lambda game: translator(game.id)(game.title).lower(),
        )

        def picked(game_id: str | None) -> None:
            if game_id:
                from gamenight.screens.setup_screen import SetupScreen

                self.app.push_screen(SetupScreen(self.app.registry.game(game_id), shared=True))

        self.app.push_screen(GamePicker(games), picked)

    def action_help(self) -> None:
        from gamenight.dialogs import MessageDialog

        self.app.push_screen(
            MessageDialog(
                _("Shared tables"),
                _(
                    "Everyone on this server sees these tables. Return takes a free seat, w watches "
                    "(no hand is shown), n opens a table (each seat open for a person or a bot; public, "
                    "or private with a short code to share), c joins a private table by its code. "
                    "At the table Ctrl+T says a line to everyone there. If your connection drops, your "
                    "seat waits for you; connect again to take it back."
                ),
            )
        )
