"""The key bar: the screen's keys on one line, clickable."""

from __future__ import annotations

from gamenight.app import GameNightApp
from gamenight.i18n import set_language
from gamenight.screens.help_screen import HelpScreen
from gamenight.screens.lobby_screen import LobbyScreen
from gamenight.widgets.key_bar import KeyBar
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import Screen


def bar_text(app) -> str:
    return str(app.screen.query_one(KeyBar).render())


async def test_the_lobby_bar_lists_its_keys_and_the_palette_at_the_right(nim_registry, config, tmp_path):
    app = GameNightApp(registry=nim_registry, config=config, saves_dir=tmp_path / "saves", bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = bar_text(app)
        for label in ("h Rules", "r Resume", "s Settings", "p Plugins", "q Quit"):
            assert label in text
        assert text.rstrip().endswith("^p palette") and len(text) == 80


async def test_the_palette_entry_speaks_the_rooms_language(nim_registry, config, tmp_path):
    set_language("ja")
    app = GameNightApp(registry=nim_registry, config=config, saves_dir=tmp_path / "saves", bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert bar_text(app).rstrip().endswith("^p コマンド")


async def test_clicking_an_entry_presses_its_key(nim_registry, config, tmp_path):
    app = GameNightApp(registry=nim_registry, config=config, saves_dir=tmp_path / "saves", bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        column = bar_text(app).index("Rules")
        await pilot.click(KeyBar, offset=(column, 0))
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)
        assert "Back" not in bar_text(app) and "Rules" in bar_text(app)  # the bar follows the screen


class _Keys(Screen):
    BINDINGS = [
        Binding("a", "add", "Add"),
        Binding("b", "blocked", "Blocked"),
        Binding("x", "hidden", "Hidden", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.added = 0

    def compose(self) -> ComposeResult:
        yield KeyBar()

    def action_add(self) -> None:
        self.added += 1

    def check_action(self, action: str, parameters) -> bool | None:
        return None if action == "blocked" else True  # None: shown, dimmed, refused


class _KeysApp(App):
    def __init__(self) -> None:
        super().__init__()
        self.bells = 0

    def on_mount(self) -> None:
        self.push_screen(_Keys())

    def bell(self) -> None:
        self.bells += 1


async def test_disabled_entries_are_dim_and_refuse_clicks_hidden_ones_are_not_shown():
    app = _KeysApp()
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        rendered = app.screen.query_one(KeyBar).render()
        text = str(rendered)
        assert "a Add" in text and "b Blocked" in text and "Hidden" not in text
        start = text.index("Blocked")
        assert any("dim" in str(span.style) for span in rendered.spans if span.start <= start < span.end)
        await pilot.click(KeyBar, offset=(start, 0))
        await pilot.click(KeyBar, offset=(text.index("Add"), 0))
        await pilot.pause()
        assert app.screen.added == 1 and app.bells == 1


async def test_the_new_table_game_picker_shows_its_own_keys():
    """The picker of a new shared table's game is a dialog over the Tables screen: its key bar shows
    its own keys, not "⏎ Join  w Watch  n New table …" of the screen beneath it."""
    from gamenight.plugins import load_registry
    from gamenight.screens.tables_screen import GamePicker
    from textual import events
    from textual.app import App

    registry = load_registry()
    chosen: list[str | None] = []

    class Room(App):
        def on_mount(self) -> None:
            games = [registry.game(game) for game in ("yatzy", "lits", "mate")]
            self.push_screen(GamePicker(games), chosen.append)

    app = Room()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        bar = str(app.screen.query_one(KeyBar).render())
        assert "⏎ Choose" in bar and "esc Back" in bar, bar
        # "↓↓⏎" in one write, as an SSH client sends it: the keys reach the room together, and Return
        # must choose the row the arrows went to (a screen's priority Return chose the first row)
        for key in ("down", "down", "enter"):
            app.post_message(events.Key(key, None))
        await pilot.pause()
        await pilot.pause()
    assert chosen == ["mate"]
