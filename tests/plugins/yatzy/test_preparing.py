"""Starting a game whose bot prepares first (Yatzy's Optimal), driven by real key presses."""

from __future__ import annotations

import dataclasses
import threading

import pytest
from gamenight.app import GameNightApp
from gamenight.config import Config
from gamenight.plugins import load_registry
from gamenight.screens.lobby_screen import LobbyScreen
from gamenight.screens.preparing_screen import PreparingScreen
from gamenight.screens.setup_screen import SetupScreen
from gamenight.testing import settle
from gamenight_yatzy.screen import YatzyScreen


def slow_optimal_registry(release: threading.Event, calls: list):
    """The installed games, with Yatzy's Optimal bot preparing until ``release`` is set."""
    registry = load_registry()
    game = registry.games["yatzy"]

    def prepare(options, progress):
        calls.append(dict(options))
        progress(0.25)
        assert release.wait(10), "the test never released the preparation"
        progress(1.0)

    bots = tuple(dataclasses.replace(bot, prepare=prepare) if bot.id == "optimal" else bot for bot in game.bots)
    registry.games["yatzy"] = dataclasses.replace(game, bots=bots)
    return registry


async def open_yatzy_setup(pilot, app) -> None:
    assert isinstance(app.screen, LobbyScreen)
    while app.screen.query_one("#games").highlighted_option.id != "yatzy":
        await pilot.press("down")
    await pilot.press("enter")
    assert isinstance(app.screen, SetupScreen)


async def test_return_in_setup_starts_the_game_after_the_optimal_bot_prepared(tmp_path):
    release, calls = threading.Event(), []
    app = GameNightApp(
        registry=slow_optimal_registry(release, calls),
        config=Config.load(tmp_path / "c.toml"),
        saves_dir=tmp_path / "saves",
        bot_delay=0,
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_yatzy_setup(pilot, app)
        await pilot.press("enter")  # Return in the first name field: Start
        await pilot.pause()
        assert isinstance(app.screen, PreparingScreen)
        release.set()
        await settle(pilot)
        await pilot.pause()
        assert isinstance(app.screen, YatzyScreen), type(app.screen).__name__
        assert calls == [{"joker": False}]
        assert [seat.bot for seat in app.screen.match.seats] == [None, "optimal"]


async def test_keys_pressed_while_preparing_do_not_cancel_the_start(tmp_path):
    release, calls = threading.Event(), []
    app = GameNightApp(
        registry=slow_optimal_registry(release, calls),
        config=Config.load(tmp_path / "c.toml"),
        saves_dir=tmp_path / "saves",
        bot_delay=0,
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_yatzy_setup(pilot, app)
        await pilot.press("enter", "enter", "space", "escape")  # an impatient player
        await pilot.pause()
        assert isinstance(app.screen, PreparingScreen)
        release.set()
        await settle(pilot)
        await pilot.pause()
        assert isinstance(app.screen, YatzyScreen), type(app.screen).__name__
        assert len(calls) == 1


async def test_resuming_from_the_saves_list_waits_for_the_preparation_then_opens(tmp_path):
    """The saves list also closes itself before the table opens: the same path as setup's Return."""
    from gamenight.match import Match, SeatConfig
    from gamenight.save_store import SaveStore

    release, calls = threading.Event(), []
    registry = slow_optimal_registry(release, calls)
    match = Match(registry.games["yatzy"], [SeatConfig("Ann"), SeatConfig("Bot 1", "optimal")], {}, seed=3)
    match.apply("roll:00000")
    match.run_chance()  # the dice drawn from the seed: a save's chance must be the seed's
    match.apply("score:chance")
    chance_total = match.state.sheets[0][12]
    SaveStore(tmp_path / "saves").save(match, "evening")
    app = GameNightApp(
        registry=registry, config=Config.load(tmp_path / "c.toml"), saves_dir=tmp_path / "saves", bot_delay=0
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PreparingScreen)
        release.set()
        await settle(pilot)
        await pilot.pause()
        assert isinstance(app.screen, YatzyScreen), type(app.screen).__name__
        assert app.screen.match.state.sheets[0][12] == chance_total > 0


async def test_a_newcomers_first_optimal_game_opens_from_the_shipped_table(tmp_path, monkeypatch):
    from gamenight_yatzy import strategy

    monkeypatch.setenv("GAMENIGHT_YATZY_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setattr(strategy, "build_table", lambda *a, **k: pytest.fail("a newcomer waited for a build"))
    strategy.load_table.cache_clear()
    app = GameNightApp(
        registry=load_registry(), config=Config.load(tmp_path / "c.toml"), saves_dir=tmp_path / "saves", bot_delay=0
    )
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await open_yatzy_setup(pilot, app)
            await pilot.press("enter")
            await settle(pilot)
            await pilot.pause()
            assert isinstance(app.screen, YatzyScreen), type(app.screen).__name__
            await pilot.press("space", "enter")  # Ann's first turn; then the Optimal bot plays its own
            await settle(pilot)
            assert [entry.seat for entry in app.screen.match.log].count(1) >= 2
    finally:
        strategy.load_table.cache_clear()
    assert not (tmp_path / "empty-cache").exists()
