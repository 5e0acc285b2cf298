"""Plugins that raise on import or in a hook are reported; the room and the other plugins work."""

from __future__ import annotations

import json

from tests.examples.conftest import BROKEN_IN_HOOK, BROKEN_ON_IMPORT, ONE_WORKER

pytestmark = ONE_WORKER


def test_gamenight_plugins_reports_both_errors_and_the_others_load_cleanly(plugin_records):
    records = dict(plugin_records)
    on_import, in_hook = records.pop("broken_import"), records.pop("broken_hook")
    assert on_import["name"] == "gamenight-broken-import" and on_import["version"] == "0.1.0"
    assert on_import["error"].startswith("failed to load: RuntimeError: " + BROKEN_ON_IMPORT)
    assert in_hook["name"] == "gamenight-broken-hook" and in_hook["games"] == []
    assert in_hook["error"].startswith("register_games failed: ValueError: " + BROKEN_IN_HOOK)
    assert {name: record["error"] for name, record in records.items()} == dict.fromkeys(records)
    assert "example" in records and len(records) >= 2


def test_the_table_form_names_both_broken_plugins_and_exits_1_so_scripts_notice(plugin_env):
    for argv in (("plugins",), ("plugins", "--json")):
        listed = plugin_env.run("-m", "gamenight", *argv, check=False)
        assert listed.returncode == 1 and "Traceback" not in listed.stderr
        assert BROKEN_ON_IMPORT in listed.stdout and BROKEN_IN_HOOK in listed.stdout


def test_the_room_starts_reports_them_in_the_lobby_and_a_good_game_plays(room_report):
    report = room_report
    assert report["lobby"] == "LobbyScreen"
    assert "broken_import" in report["notices"] and "broken_hook" in report["notices"]
    assert any("broken-theme" in error for error in report["theme_errors"])
    assert "broken-theme" not in report["themes"] and "example-dusk" in report["themes"]
    assert report["table"] == "GoofspielScreen" and "0 bid:13" in report["log"]


def test_a_built_in_game_still_plays(plugin_env):
    result = json.loads(
        plugin_env.run(
            "-m", "gamenight", "arena", "mate", "--seats", "random,random", "--games", "2", "--seed", "3", "--json"
        ).stdout
    )
    assert result["games"] == 2 and sum(seat["wins"] for seat in result["seats"]) == 2
