"""The plugin as the room sees it: registration, options, texts."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import gamenight_lits
from gamenight.match import SeatConfig, play_headless
from gamenight.plugins import load_registry
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


def _message_ids() -> set[str]:
    ids = set()
    for path in PLUGIN_DIR.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "_"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                ids.add(node.args[0].value)
    return ids


def test_every_message_has_a_japanese_translation() -> None:
    with (PLUGIN_DIR / "locale" / "ja.toml").open("rb") as handle:
        catalogue = tomllib.load(handle)
    labels = {GAME.title, GAME.description, *(b.label for b in GAME.bots), *(b.description for b in GAME.bots)}
    labels |= {o.label for o in GAME.options} | {o.description for o in GAME.options}
    labels |= {label for o in GAME.options for _v, label in o.choices} | set(GAME.seat_names)
    wanted = _message_ids() | labels
    assert wanted - catalogue.keys() == set()


def test_the_help_exists_in_english_and_japanese() -> None:
    assert "Pie rule" in GAME.help["en"]
    assert "パイルール" in GAME.help["ja"]
