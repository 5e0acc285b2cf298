"""The plugin as the room sees it: registration, options, texts."""

from __future__ import annotations

from pathlib import Path

import gamenight_lits
from gamenight.match import SeatConfig, play_headless
from gamenight.plugins import load_registry
from gamenight.testing import declared_texts, missing_translations
from gamenight_lits.plugin import GAME
from gamenight_lits.rules import LAYOUTS

PLUGIN_DIR = Path(gamenight_lits.__file__).parent


def test_the_entry_point_registers_lits() -> None:
    registry = load_registry()
    assert registry.games["lits"].title == "Battle of LITS"
    assert [bot.id for bot in registry.games["lits"].bots] == ["random", "greedy", "expert"]


def test_the_layout_option_offers_the_named_layouts_and_random() -> None:
    (option,) = GAME.options
    assert option.key == "layout"
    assert [value for value, _label in option.choices] == [*LAYOUTS, "random"]
    assert GAME.parse_options({"layout": "random"}) == {"layout": "random"}


def test_a_headless_game_with_a_random_layout_plays_through() -> None:
    seats = [SeatConfig("a", "random"), SeatConfig("b", "greedy")]
    match = play_headless(GAME, seats, {"layout": "random"}, seed=5)
    assert match.over
    assert match.log[0].seat == -1 and match.log[0].action.startswith("layout:")


def test_every_message_has_a_japanese_translation() -> None:
    assert missing_translations(PLUGIN_DIR, GAME.translations["ja"], also=declared_texts(GAME)) == []


def test_the_help_exists_in_english_and_japanese() -> None:
    assert "Pie rule" in GAME.help["en"]
    assert "パイルール" in GAME.help["ja"]
