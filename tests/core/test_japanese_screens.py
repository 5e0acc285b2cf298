"""Japanese screens a newcomer sees whole and translated, at 80×24."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from gamenight.app import GameNightApp
from gamenight.config import Config
from gamenight.i18n import set_language, translator
from gamenight.plugins import load_registry
from gamenight.testing import settle
from gamenight.widgets.key_bar import KeyBar
from textual.widgets import OptionList, Select

from tests.core.tour import screen_text

REGISTRY = load_registry()


@pytest.fixture
def japanese():
    set_language("ja")
    yield
    set_language("en")


def room(folder: str) -> GameNightApp:
    return GameNightApp(
        registry=REGISTRY,
        config=Config.load(Path(folder) / "config.toml"),
        saves_dir=Path(folder) / "saves",
        bot_delay=0,
        theme_name="gamenight",
    )


async def test_the_lobby_shows_every_games_japanese_title_whole(japanese):
    with tempfile.TemporaryDirectory() as folder:
        app = room(folder)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            games = app.screen.query_one("#games", OptionList)
            shown = [str(games.get_option_at_index(i).prompt) for i in range(games.option_count)]
            for game in REGISTRY.games.values():
                title = translator(game.id)(game.title)
                assert any(line.startswith(title) for line in shown), (title, shown)  # "バトル・オブ・リッツ"
            assert not any("…" in line for line in shown), shown


async def test_an_open_select_offers_its_escape_key_in_japanese(japanese):
    with tempfile.TemporaryDirectory() as folder:
        app = room(folder)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.open_setup("yatzy")
            await pilot.pause()
            select = app.screen.query(Select).first()
            select.focus()
            await pilot.press("enter")  # the menu opens
            await pilot.pause()
            assert select.expanded
            bar = str(app.screen.query_one(KeyBar).render())
            assert "Dismiss menu" not in bar
            assert "メニューを閉じる" in bar, bar


async def test_sevens_bot_descriptions_are_japanese(japanese):
    with tempfile.TemporaryDirectory() as folder:
        app = room(folder)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            games = app.screen.query_one("#games", OptionList)
            ids = [games.get_option_at_index(i).id for i in range(games.option_count)]
            games.highlighted = ids.index("seven")
            await pilot.pause()
            about = "\n".join(line[33:] for line in screen_text(app))
            assert "ボット" in about
            assert not re.search(r"Queen", about), about  # "Q は取っておきます", as the description says "Q は"
