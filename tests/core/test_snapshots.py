"""SVG snapshots of the room's own screens at 80×24 (update: pytest --snapshot-update)."""

from __future__ import annotations

from pathlib import Path

import pytest
from gamenight.app import GameNightApp
from gamenight.config import Config
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.testing import settle

REGISTRY = load_registry()


def room(tmp_path: Path, **kwargs) -> GameNightApp:
    return GameNightApp(
        registry=REGISTRY,
        config=Config.load(tmp_path / "config.toml"),
        saves_dir=tmp_path / "saves",
        bot_delay=0,
        theme_name="gamenight",
        **kwargs,
    )


def test_lobby(snap_compare, tmp_path):
    assert snap_compare(room(tmp_path), terminal_size=(80, 24))


def test_lobby_sixteen_colours(snap_compare, tmp_path):
    app = room(tmp_path)
    app.theme = "gamenight-16"
    assert snap_compare(app, press=["down"], terminal_size=(80, 24))


def test_yatzy_setup(snap_compare, tmp_path):
    assert snap_compare(room(tmp_path, start_game="yatzy"), terminal_size=(80, 24))


def test_yatzy_end_dialog_with_running_totals(snap_compare, tmp_path):
    game = REGISTRY.game("yatzy")
    match = Match(game, [SeatConfig("Urd", "greedy"), SeatConfig("Skuld", "random")], {}, seed=7)

    async def finish(pilot):
        await settle(pilot)

    assert snap_compare(room(tmp_path, start_match=match), run_before=finish, terminal_size=(80, 24))


def test_too_small_message(snap_compare, tmp_path):
    assert snap_compare(room(tmp_path), terminal_size=(60, 20))


@pytest.mark.parametrize("game_id", sorted(REGISTRY.games))
def test_table_after_another_games_table(snap_compare, tmp_path, game_id):
    """Each table drawn after another game's table was open in the same room (Mate first; Yatzy before Mate)."""
    from tests.core.tour import new_match

    first = "yatzy" if game_id == "mate" else "mate"

    async def other_game_first(pilot):
        app = pilot.app
        app.open_match(new_match(REGISTRY.game(first)))
        await settle(pilot)
        while len(app.screen_stack) > 1:
            app.pop_screen()
            await pilot.pause()
        app.open_match(new_match(REGISTRY.game(game_id)))
        await settle(pilot)

    assert snap_compare(room(tmp_path), run_before=other_game_first, terminal_size=(80, 24))
