"""Settings: language, theme, bot speed, the coach and each game's player names, saved to the config file."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, Static

from gamenight.config import ConfigError, validate_name
from gamenight.i18n import LANGUAGES, _, get_language, translator
from gamenight.screens.room import InTheRoom
from gamenight.text import NOTICE_PATH_CELLS, safe_text, shown_path
from gamenight.ui.bindings import translate_bindings
from gamenight.ui.checkbox import Checkbox
from gamenight.widgets.key_bar import KeyBar


class SettingsScreen(InTheRoom, Screen):
    """Edit the config; Save writes it atomically (never over a malformed file)."""

    BINDINGS = [Binding("escape", "app.pop_screen", _("Back")), Binding("ctrl+s", "save", _("Save"))]

    AUTO_FOCUS = "#language"
    """The first setting has the keys: Textual's default focused the scrolling form itself, where
    Return and the arrows did nothing a newcomer could see until Tab."""

    DEFAULT_CSS = """
    SettingsScreen #settings-title {
        dock: top; height: 1; background: $primary; color: $text; padding: 0 1; text-style: bold;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    SettingsScreen VerticalScroll { padding: 0 1; }
    SettingsScreen .row { height: 3; }
    SettingsScreen .row Label { width: 16; padding: 1 1 0 0; }
    SettingsScreen .row Select { width: 32; }
    SettingsScreen .row Input { width: 32; }
    SettingsScreen .row #warn-points, SettingsScreen .row #warn-chance { width: 12; }
    SettingsScreen .row .unit { width: 1fr; padding: 1 0 0 1; }
    SettingsScreen #hall-of-fame-name { width: auto; }
    SettingsScreen #settings-message { height: auto; }
    SettingsScreen #settings-message.error { color: $text-error; }
    SettingsScreen #settings-buttons { height: 3; }
    """

    def __init__(self) -> None:
        super().__init__()
        translate_bindings(self, _)
        self._saved_notice = ""

    LANGUAGE_NAMES = {"en": "English", "ja": "日本語"}

    def compose(self) -> ComposeResult:
        config = self.app.config
        games = sorted(self.app.registry.games.values(), key=lambda g: g.id)
        yield Static(_("Settings — {path}", path=shown_path(config.path)), id="settings-title", markup=False)
        with VerticalScroll():
            with Horizontal(classes="row"):
                yield Label(_("Language"))
                yield Select(
                    [(self.LANGUAGE_NAMES[code], code) for code in LANGUAGES],
                    value=get_language(),
                    allow_blank=False,
                    id="language",
                )
            with Horizontal(classes="row"):
                yield Label(_("Theme"))
                yield Select(
                    [(name, name) for name in sorted(self.app.available_themes)],
                    value=self.app.theme,
                    allow_blank=False,
                    id="theme",
                )
            with Horizontal(classes="row"):
                yield Label(_("Bot delay (s)"))
                yield Input(str(self.app.bot_delay), id="bot-delay", type="number")
            coach = config.coach
            with Horizontal(classes="row"):
                yield Label(_("Coach"))
                yield Select(
                    [
                        (_("Off: only when asked (?)"), "off"),
                        (_("Warn before a costly move"), "warn"),
                        (_("Always show the best moves"), "always"),
                    ],
                    value=coach.mode,
                    allow_blank=False,
                    id="coach-mode",
                )
            with Horizontal(classes="row"):
                yield Label(_("Warn from"))
                yield Input(f"{coach.warn_points:g}", id="warn-points", type="number")
                yield Static(_("points lost"), classes="unit", markup=False)
            with Horizontal(classes="row"):
                yield Label(_("or from"))
                yield Input(f"{coach.warn_chance:g}", id="warn-chance", type="number")
                yield Static(_("% less chance to win"), classes="unit", markup=False)
            with Horizontal(classes="row"):
                yield Label(_("Hall of fame"))
                yield Checkbox(
                    _("Show my name in a server's hall of fame"), config.hall_of_fame_name, id="hall-of-fame-name"
                )
            if games:
                with Horizontal(classes="row"):
                    yield Label(_("Names for"))
                    yield Select(
                        [(translator(g.id)(g.title), g.id) for g in games],
                        value=games[0].id,
                        allow_blank=False,
                        id="names-game",
                    )
                for seat in range(max(g.max_seats for g in games)):
                    with Horizontal(classes="row name-row", id=f"name-row-{seat}"):
                        yield Label(f"player.{seat + 1}")
                        yield Input("", id=f"player-{seat}", max_length=32)
            yield Static("", id="settings-message", markup=False)
            with Horizontal(id="settings-buttons"):
                yield Button(_("Save"), id="save", variant="primary")
                yield Button(_("Back"), id="back")
        yield KeyBar()

    def on_unmount(self) -> None:
        if self._saved_notice:
            self.app.notify(self._saved_notice, markup=False)

    def on_mount(self) -> None:
        # What the dialog showed at first: only what the person changes from this is saved, so a
        # value given on the command line (--lang, --theme, --bot-delay), a default name or a bad
        # name in the file that the person never touched is not written.
        self._shown = {
            "language": str(self.query_one("#language", Select).value),
            "theme": str(self.query_one("#theme", Select).value),
            "bot_delay": self.query_one("#bot-delay", Input).value.strip(),
            "hall_of_fame_name": self.query_one("#hall-of-fame-name", Checkbox).value,
            "coach_mode": str(self.query_one("#coach-mode", Select).value),
            "warn_points": self.query_one("#warn-points", Input).value.strip(),
            "warn_chance": self.query_one("#warn-chance", Input).value.strip(),
        }
        self._shown_names: dict[str, list[str]] = {}
        self._typed_names: dict[str, list[str]] = {}
        self._names_game: str | None = None
        self._load_names()

    def _game(self):
        if not self.query("#names-game"):
            return None
        return self.app.registry.games.get(str(self.query_one("#names-game", Select).value))

    def _keep_typed_names(self) -> None:
        """Remember the names typed for the game the inputs show (before they show another)."""
        if self._names_game is not None:
            count = len(self._shown_names[self._names_game])
            self._typed_names[self._names_game] = [
                self.query_one(f"#player-{seat}", Input).value for seat in range(count)
            ]

    def _load_names(self) -> None:
        game = self._game()
        if game is None or game.id == self._names_game:
            return
        self._keep_typed_names()
        t = translator(game.id)
        if game.id not in self._shown_names:
            self._shown_names[game.id] = self.app.config.seat_names(
                game.id, [t(n) for n in game.seat_names], game.max_seats
            )
        names = self._typed_names.get(game.id, self._shown_names[game.id])
        for seat, row in enumerate(self.query(".name-row")):
            row.display = seat < game.max_seats
            if seat < game.max_seats:
                self.query_one(f"#player-{seat}", Input).value = names[seat]
        self._names_game = game.id

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "names-game":
            self._load_names()
        elif event.select.id == "theme":
            self.app.theme = str(event.value)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "save":
            self.action_save()
        else:
            self.app.pop_screen()

    def _say(self, text: str, error: bool = False) -> None:
        message = self.query_one("#settings-message", Static)
        message.update(text)
        message.set_class(error, "error")
        message.call_after_refresh(message.scroll_visible, animate=False)  # below the fold at 80x24
        if error:
            self.app.bell()

    def _changed_names(self) -> dict[tuple[str, int], str] | None:
        """Every name the person changed, by (game, seat); ``None`` after saying why one is refused."""
        self._keep_typed_names()
        changed = {}
        for game_id, typed in self._typed_names.items():
            for seat, (typed_name, shown) in enumerate(zip(typed, self._shown_names[game_id], strict=True)):
                name = typed_name.strip()
                if shown in (typed_name, name):
                    continue
                problem = validate_name(name)
                if problem is not None:
                    self._say(f"[{game_id}] player.{seat + 1}: {problem}", error=True)
                    return None
                changed[game_id, seat] = name
        return changed

    def action_save(self) -> None:
        config = self.app.config
        language = str(self.query_one("#language", Select).value)
        theme = str(self.query_one("#theme", Select).value)
        delay_text = self.query_one("#bot-delay", Input).value.strip()
        delay = None
        if delay_text != self._shown["bot_delay"]:
            try:
                delay = float(delay_text)
            except ValueError:
                delay = -1.0
            if not 0 <= delay <= 5:
                self._say(_("Bot delay must be a number of seconds from 0 to 5."), error=True)
                return
        coach: dict[str, str | float] = {}
        mode = str(self.query_one("#coach-mode", Select).value)
        if mode != self._shown["coach_mode"]:
            coach["mode"] = mode
        for key in ("warn_points", "warn_chance"):
            text = self.query_one(f"#{key.replace('_', '-')}", Input).value.strip()
            if text == self._shown[key]:
                continue
            try:
                value = float(text)
            except ValueError:
                value = -1.0
            if not 0 <= value <= 100:
                self._say(_("A coach threshold must be a number from 0 to 100."), error=True)
                return
            coach[key] = value
        names = self._changed_names()
        if names is None:
            return
        shown = self.query_one("#hall-of-fame-name", Checkbox).value
        if shown != self._shown["hall_of_fame_name"]:
            config.set_general("hall_of_fame_name", shown)
        if language != self._shown["language"]:
            config.set_general("language", language)
        if theme != self._shown["theme"]:
            config.set_general("theme", theme)
        if delay is not None:
            config.set_general("bot_delay", delay)
        for key, setting in coach.items():
            config.set_coach(key, setting)
        for (game_id, seat), name in names.items():
            config.set_name(game_id, seat, name)
        if not config.unsaved and config.error is None:
            self._say(_("Nothing to save: no setting was changed."))
            return
        try:
            config.save()
        except (ConfigError, OSError) as error:
            self._say(safe_text(error), error=True)
            return
        if delay is not None:
            self.app.bot_delay = delay
        tables = self.app.tables
        if shown != self._shown["hall_of_fame_name"] and tables is not None:
            from gamenight.tables.protocol import HallName

            self.run_worker(tables.send(HallName(shown)), exit_on_error=False)
        text = _("Settings saved to {path}.", path=shown_path(config.path))
        if language != self._shown["language"]:
            text += " " + _("A new language applies from the next start.")
        notice = text.replace(shown_path(config.path), shown_path(config.path, NOTICE_PATH_CELLS))
        self._shown.update(language=language, theme=theme, bot_delay=delay_text, hall_of_fame_name=shown)
        self._shown.update(
            coach_mode=mode,
            warn_points=self.query_one("#warn-points", Input).value.strip(),
            warn_chance=self.query_one("#warn-chance", Input).value.strip(),
        )
        for (game_id, seat), name in names.items():
            self._shown_names[game_id][seat] = name
        self._say(text)
        # Said again as a notice once the settings are left: here, a toast covered this very line.
        self._saved_notice = notice
