"""Setting up a game: how many seats, who sits where (person or bot), names, options."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, Static

from gamenight.config import validate_name
from gamenight.i18n import _, translator
from gamenight.match import Match, SeatConfig, new_seed
from gamenight.screens.room import InTheRoom
from gamenight.sdk import GameInfo, Option
from gamenight.ui.bindings import translate_bindings
from gamenight.ui.checkbox import Checkbox
from gamenight.widgets.key_bar import KeyBar

if TYPE_CHECKING:
    from gamenight.tables.protocol import OpenTable

HUMAN = "human"
TIMERS = (0, 30, 60, 300)
"""A shared table's move timer choices (seconds; 0: none)."""


class SetupScreen(InTheRoom, Screen):
    """Choose seats and options, then Start (Return on a field, or the button)."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", _("Back")),
        Binding("ctrl+r", "start", _("Start")),
        Binding("f1", "rules", _("Rules")),
    ]

    DEFAULT_CSS = """
    SetupScreen #setup-title {
        dock: top; height: 1; background: $primary; color: $text; padding: 0 1; text-style: bold;
    }
    SetupScreen VerticalScroll { height: 1fr; padding: 0 1; }
    SetupScreen .row { height: 3; }
    SetupScreen .row Label { width: 12; padding: 1 1 0 0; }
    SetupScreen .seat-name { width: 24; }
    SetupScreen .seat-host { width: 24; padding: 1 1 0 0; }
    SetupScreen .seat-kind { width: 30; }
    SetupScreen #seat-count { width: 20; }
    SetupScreen .option-int { width: 16; }
    SetupScreen .section { text-style: bold; padding: 1 0 0 0; }
    SetupScreen #setup-error { color: $text-error; height: auto; }
    SetupScreen Checkbox { margin: 0 0 0 12; }  /* one line each, under the seats' fields */
    SetupScreen #buttons { height: 3; margin-top: 1; }
    SetupScreen #buttons Button { margin-right: 2; }
    """

    def __init__(self, game: GameInfo, shared: bool = False) -> None:
        super().__init__()
        self.game = game
        self.shared = shared
        """A shared table: seats open for a person or a bot, public/private, a move timer."""
        self.t = translator(game.id)
        translate_bindings(self, _)

    @property
    def seat_count(self) -> int:
        """The number of seats chosen."""
        if self.game.min_seats == self.game.max_seats:
            return self.game.min_seats
        value = self.query_one("#seat-count", Select).value
        return int(value) if isinstance(value, int) else self.game.default_seats

    def compose(self) -> ComposeResult:
        game, t = self.game, self.t
        heading = _("New shared table: {title}", title=t(game.title)) if self.shared else None
        yield Static(heading or _("New game: {title}", title=t(game.title)), id="setup-title")
        names = self.app.config.seat_names(game.id, [t(n) for n in game.seat_names], game.max_seats)
        strongest = max(game.bots, key=lambda bot: bot.strength).id if game.bots else HUMAN
        person = _("Open for a person") if self.shared else _("Person")
        kinds = [(person, HUMAN)] + [
            (f"{_('Bot')}: {t(bot.label)}", bot.id) for bot in sorted(game.bots, key=lambda b: b.strength)
        ]
        with VerticalScroll():
            if game.min_seats != game.max_seats:
                with Horizontal(classes="row"):
                    yield Label(_("Seats"))
                    yield Select(
                        [(str(n), n) for n in range(game.min_seats, game.max_seats + 1)],
                        value=game.default_seats,
                        allow_blank=False,
                        id="seat-count",
                    )
            for seat in range(game.max_seats):
                with Horizontal(classes="row seat-row", id=f"seat-row-{seat}"):
                    yield Label(_("Seat {number}", number=seat + 1))
                    name = Input(names[seat], classes="seat-name", id=f"name-{seat}", max_length=32)
                    if self.shared:  # a person's name comes from the server; the first person seat is the host's
                        name.display = False
                        yield Static(_("you (host)") if seat == 0 else "", classes="seat-host")
                    yield name
                    yield Select(
                        # A shared table's seat 1 is the host's own: a person, never a bot.
                        [(_("Person"), HUMAN)] if self.shared and seat == 0 else kinds,
                        value=HUMAN if seat == 0 else strongest,
                        allow_blank=False,
                        classes="seat-kind",
                        id=f"kind-{seat}",
                    )
            if self.shared:
                yield Checkbox(_("Public (listed for everyone; else a code to share)"), True, id="public")
                with Horizontal(classes="row"):
                    yield Label(_("Move timer"))
                    yield Select(
                        [(_("Off"), 0), (_("30 s"), 30), (_("60 s"), 60), (_("5 min"), 300)],
                        value=0,
                        allow_blank=False,
                        id="timer",
                    )
            if game.options:
                yield Static(_("Options"), classes="section")
            for option in game.options:
                yield from self._option_widget(option)
            yield Static("", id="setup-error")
            with Horizontal(id="buttons"):
                yield Button(_("Start"), id="start", variant="primary")
                yield Button(_("Back"), id="back")
        yield KeyBar()

    def _option_widget(self, option: Option) -> ComposeResult:
        label = self.t(option.label)
        widget_id = f"option-{option.key}"
        if option.kind == "bool":
            yield Checkbox(
                label, bool(option.default), id=widget_id, tooltip=self.t(option.description) or None, compact=True
            )
        elif option.kind == "choice":
            with Horizontal(classes="row"):
                yield Label(label)
                yield Select(
                    [(self.t(text), value) for value, text in option.choices],
                    value=option.default,
                    allow_blank=False,
                    id=widget_id,
                )
        else:
            with Horizontal(classes="row"):
                yield Label(label)
                yield Input(str(option.default), id=widget_id, type="integer", classes="option-int")

    def on_mount(self) -> None:
        self._show_seats()
        if self.shared:
            self.query_one(f"#kind-{0}", Select).focus()
        else:
            self.query_one(f"#name-{0}", Input).focus()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "seat-count":
            self._show_seats()

    def _show_seats(self) -> None:
        for seat in range(self.game.max_seats):
            self.query_one(f"#seat-row-{seat}").display = seat < self.seat_count

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_start()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "start":
            self.action_start()
        else:
            self.app.pop_screen()

    def action_rules(self) -> None:
        from gamenight.screens.help_screen import HelpScreen

        self.app.push_screen(HelpScreen(self.game))

    def chosen_seats(self) -> list[SeatConfig]:
        """The seats as filled in; raises ``ValueError`` naming the first bad name."""
        seats = []
        for seat in range(self.seat_count):
            name = self.query_one(f"#name-{seat}", Input).value.strip()
            problem = validate_name(name)
            if problem is not None:
                raise ValueError(_("Seat {number}: {problem}", number=seat + 1, problem=problem))
            kind = self.query_one(f"#kind-{seat}", Select).value
            seats.append(SeatConfig(name, None if kind == HUMAN else str(kind)))
        return seats

    def chosen_options(self) -> dict[str, object]:
        """The options as set."""
        values: dict[str, object] = {}
        for option in self.game.options:
            widget = self.query_one(f"#option-{option.key}")
            assert isinstance(widget, Checkbox | Select | Input)  # as _option_widget made it
            values[option.key] = widget.value
        return values

    def action_start(self) -> None:
        error = self.query_one("#setup-error", Static)
        if self.shared:
            self._open_shared(error)
            return
        try:
            seats = self.chosen_seats()
            if self._solo_at_server(seats, error):
                return
            match = Match(
                self.game,
                seats,
                self.game.parse_options(self.chosen_options()),
                seed=new_seed(),
            )
        except ValueError as problem:
            error.update(str(problem))
            self.app.bell()
            return
        error.update("")
        self.app.pop_screen()
        self.app.open_match(match)

    def _solo_at_server(self, seats: list[SeatConfig], error: Static) -> bool:
        """In a hosted room, one person against bots plays at a solo table of the table service:
        chance and bots run on the server (which keeps the game and its record), never in this
        room.  True when the request went (the table's snapshot opens it); False: play here."""
        client = getattr(self.app, "tables", None)
        if client is None or client.closed.is_set() or sum(seat.is_human for seat in seats) != 1:
            return False  # no server, or several people at this keyboard: a local game, as ever
        from gamenight.tables.protocol import MAX_BOT_DELAY, OpenTable, SeatSpec

        options = {}
        for key, value in self.game.parse_options(self.chosen_options()).items():
            if not isinstance(value, bool | int | str):
                return False  # an option the service cannot take: this game stays local
            options[key] = value
        delay = min(MAX_BOT_DELAY, max(0.0, float(getattr(self.app, "bot_delay", 0.5))))
        request = OpenTable(
            self.game.id,
            [SeatSpec("person") if seat.is_human else SeatSpec("bot", str(seat.bot)) for seat in seats],
            options,
            public=False,
            solo=True,
            bot_delay=delay,
        )
        error.update("")
        self.run_worker(client.send(request), exit_on_error=False)  # its snapshot opens the table (the app)
        return True

    def table_message(self, message) -> None:
        """A refusal of the table this setup asked for (a solo or shared one) is said here."""
        from gamenight.tables.errors import refusal_text
        from gamenight.tables.protocol import Error

        if isinstance(message, Error) and message.code == "bad-table" and self.is_current:
            self.query_one("#setup-error", Static).update(refusal_text(message.code, message.message))

    def shared_table(self) -> OpenTable:
        """The :class:`OpenTable` request as filled in; ``ValueError`` when it cannot be sent."""
        from gamenight.tables.protocol import OpenTable, SeatSpec

        seats = []
        for seat in range(self.seat_count):
            kind = self.query_one(f"#kind-{seat}", Select).value
            seats.append(SeatSpec("person") if kind == HUMAN else SeatSpec("bot", str(kind)))
        if seats[0].kind != "person":
            raise ValueError(_("Seat 1 is yours: it must be open for a person."))
        options = {}
        for key, value in self.game.parse_options(self.chosen_options()).items():
            if not isinstance(value, bool | int | str):
                raise ValueError(_("The option {key} cannot be sent to the table service.", key=key))
            options[key] = value
        timer = self.query_one("#timer", Select).value
        return OpenTable(
            self.game.id,
            seats,
            options,
            public=self.query_one("#public", Checkbox).value,
            timer=timer if timer in TIMERS else 0,
        )

    def _open_shared(self, error: Static) -> None:
        client = getattr(self.app, "tables", None)
        try:
            request = self.shared_table()
            if client is None:
                raise ValueError(_("Shared tables are not available now."))
        except ValueError as problem:
            error.update(str(problem))
            self.app.bell()
            return
        error.update("")
        self.run_worker(client.send(request), exit_on_error=False)  # its snapshot opens the table (the app)
