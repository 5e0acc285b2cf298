"""The lobby is painted before the plugins are looked for; keys pressed meanwhile are not lost."""

from __future__ import annotations

import threading

import gamenight.plugins
import pytest
from gamenight.app import GameNightApp
from gamenight.screens.help_screen import HelpScreen
from gamenight.screens.lobby_screen import LobbyScreen
from gamenight.screens.setup_screen import SetupScreen
from gamenight.testing import settle


def held_back(monkeypatch, registry) -> threading.Event:
    """Make the room's plugin search wait until the returned event is set."""
    release = threading.Event()

    def slow_load_registry():
        assert release.wait(10), "the test never released the plugin search"
        return registry

    monkeypatch.setattr(gamenight.plugins, "load_registry", slow_load_registry)
    return release


def room(config, tmp_path, **kwargs) -> GameNightApp:
    """The room as `gamenight` starts it: no registry given, so it looks for plugins itself."""
    return GameNightApp(config=config, saves_dir=tmp_path / "saves", bot_delay=0, **kwargs)


def prompts(app) -> list[str]:
    games = app.screen.query_one("#games")
    return [str(games.get_option_at_index(i).prompt) for i in range(games.option_count)]


async def until(pilot, condition) -> None:
    for _ in range(1500):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError("the condition never came true")


async def test_the_lobby_shows_looking_for_games_then_the_games(monkeypatch, nim_registry, config, tmp_path):
    release = held_back(monkeypatch, nim_registry)
    app = room(config, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen) and not app.registry_loaded
        assert prompts(app) == ["Looking for games…"]
        release.set()
        await until(pilot, lambda: app.registry_loaded)
        await settle(pilot)
        assert any("Nim" in prompt for prompt in prompts(app))
        await pilot.press("enter")
        assert isinstance(app.screen, SetupScreen)


@pytest.mark.parametrize(("key", "screen"), [("h", HelpScreen), ("enter", SetupScreen)])
async def test_a_key_pressed_while_looking_acts_once_the_games_are_in(
    monkeypatch, nim_registry, config, tmp_path, key, screen
):
    release = held_back(monkeypatch, nim_registry)
    app = room(config, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press(key)
        assert isinstance(app.screen, LobbyScreen)  # nothing to open yet: the key waits
        release.set()
        await until(pilot, lambda: isinstance(app.screen, screen))
        await settle(pilot)
        assert app.screen.game.id == "nim"


async def test_a_plugin_theme_named_in_the_config_is_applied_when_the_plugins_arrive(
    monkeypatch, nim_registry, config, tmp_path
):
    import dataclasses

    themed = dataclasses.replace(nim_registry, themes=[{"name": "plugin-dusk", "primary": "#884400", "dark": True}])
    release = held_back(monkeypatch, themed)
    app = room(config, tmp_path, theme_name="plugin-dusk")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.theme == "gamenight"  # not known yet: the default meanwhile, and no complaint
        release.set()
        await until(pilot, lambda: app.registry_loaded)
        await settle(pilot)
        assert app.theme == "plugin-dusk"


async def test_an_unknown_theme_is_reported_once_the_plugins_are_in(monkeypatch, nim_registry, config, tmp_path):
    release = held_back(monkeypatch, nim_registry)
    app = room(config, tmp_path, theme_name="no-such-theme")
    notes = []
    app.notify = lambda message, **kwargs: notes.append(message)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        release.set()
        await until(pilot, lambda: app.registry_loaded)
        assert app.theme == "gamenight"
        assert any("no-such-theme" in note for note in notes)
