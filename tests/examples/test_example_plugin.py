"""examples/gamenight-example installed with pip into a fresh venv, as a third party would ship it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.examples.conftest import ONE_WORKER
from tests.examples.freshenv import EXAMPLE

pytestmark = ONE_WORKER


def test_pip_installed_the_package_into_the_fresh_venv_only(plugin_env):
    where = plugin_env.run("-c", "import gamenight_example; print(gamenight_example.__file__)").stdout.strip()
    assert Path(where).is_relative_to(plugin_env.site)
    assert not any(EXAMPLE.glob("build")) and not any(EXAMPLE.glob("src/*.egg-info"))  # the source stays clean


def test_gamenight_plugins_lists_the_example_with_its_game_bot_and_theme(plugin_env, plugin_records):
    record = plugin_records["example"]
    assert record == {
        "name": "gamenight-example",
        "entry_point": "example",
        "version": "1.0.0",
        "games": ["goofspiel"],
        "bots": ["goofspiel:random", "goofspiel:matcher", "yatzy:cautious"],  # its game's own, then Yatzy's
        "themes": ["example-dusk"],
        "error": None,
    }
    table = plugin_env.run("-m", "gamenight", "plugins", check=False).stdout  # 1: broken neighbours
    assert "gamenight-example" in table and "goofspiel" in table


def test_its_game_starts_in_the_room_and_takes_a_key(room_report):
    report = room_report
    assert report["lobby"] == "LobbyScreen" and "goofspiel" in report["games"]
    assert "example-dusk" in report["themes"] and not any("example-dusk" in e for e in report["theme_errors"])
    assert (report["setup"], report["table"]) == ("SetupScreen", "GoofspielScreen")
    assert report["seats"][1][1] == "matcher"
    assert report["log"][:2] == [report["log"][0], "0 bid:13"] and report["log"][0].startswith("-1 prize:")


def test_its_bots_play_in_the_arena_its_own_game_and_the_built_in_yatzy(plugin_env):
    for game, seats in (("goofspiel", "matcher,random"), ("yatzy", "cautious,random")):
        result = json.loads(
            plugin_env.run(
                "-m", "gamenight", "arena", game, "--seats", seats, "--games", "12", "--seed", "1", "--json"
            ).stdout
        )
        assert result["games"] == 12 and result["seats"][0]["wins"] > result["seats"][1]["wins"], result


def test_its_own_conformance_tests_pass_in_the_fresh_venv(plugin_env):
    copy = plugin_env.path / "src" / EXAMPLE.name
    done = plugin_env.run("-m", "pytest", "-q", "-p", "no:randomly", "tests", cwd=copy, timeout=180)
    assert " passed" in done.stdout and "failed" not in done.stdout and "skipped" not in done.stdout


def test_its_translations_come_from_its_installed_locale_folders_with_read_translations(plugin_env):
    """The recommended way (gamenight.sdk.read_translations), read from the installed package data."""
    probe = """
import json
from gamenight.i18n import gettext, set_language
import gamenight_example.plugin as plugin
from gamenight.plugins import load_registry
load_registry()
set_language("ja")
print(json.dumps({
    "game": sorted(plugin.GAME.translations), "bot": sorted(plugin.CAUTIOUS_YATZY.translations),
    "title": gettext("Goofspiel", "goofspiel"), "bot_label": gettext("Cautious (example plugin)", "yatzy"),
    "lazy": type(plugin.GAME.translations).__name__ != "dict",
}))
"""
    report = json.loads(plugin_env.run("-c", probe).stdout)
    assert report["game"] == ["ja"] and report["bot"] == ["ja"]  # no stray "yatzy.ja" language
    assert report["title"] == "グーフシュピール" and report["bot_label"] == "慎重（サンプルプラグイン）"
    assert report["lazy"]


def test_its_source_loads_translations_only_through_read_translations():
    source = (EXAMPLE / "src" / "gamenight_example" / "plugin.py").read_text("utf-8")
    assert "load_catalogue_file" not in source and "gamenight.i18n" not in source
    assert source.count("read_translations(") == 2
