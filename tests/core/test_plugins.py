import json
import sys
import types
from importlib.metadata import EntryPoint

from gamenight import hookimpl
from gamenight.cli import main
from gamenight.plugins import load_registry
from gamenight.sdk import BotSpec

from tests.core.nim import NIM, FirstBot, NimPlugin


def module(name, **attributes):
    mod = types.ModuleType(name)
    mod.__dict__.update(attributes)
    sys.modules[name] = mod
    return mod


def test_a_plugin_that_fails_to_import_is_reported_and_the_rest_load(tmp_path):
    module("nim_ok_plugin", register_games=hookimpl(lambda register: register(NIM)))
    entries = [
        EntryPoint("broken", "no_such_module_xyz.plugin", "gamenight"),
        EntryPoint("nim", "nim_ok_plugin", "gamenight"),
    ]
    registry = load_registry(entry_points=entries)
    assert "nim" in registry.games
    broken = next(r for r in registry.plugins if r.name == "broken")
    assert "No module named 'no_such_module_xyz'" in broken.error


def test_a_hook_that_raises_is_reported_and_others_still_register():
    class Raising:
        @hookimpl
        def register_games(self, register):
            raise RuntimeError("boom in hook")

    registry = load_registry(extra_plugins={"raising": Raising(), "nim": NimPlugin()}, entry_points=[])
    assert "nim" in registry.games
    raising = next(r for r in registry.plugins if r.name == "raising")
    assert "register_games failed: RuntimeError: boom in hook" in raising.error


def test_a_misspelt_hook_is_reported():
    class Misspelt:
        @hookimpl
        def register_gamez(self, register):
            pass

    registry = load_registry(extra_plugins={"misspelt": Misspelt(), "nim": NimPlugin()}, entry_points=[])
    assert "unknown hook" in next(r for r in registry.plugins if r.name == "misspelt").error
    assert "nim" in registry.games


def test_extra_bots_join_the_game_and_bad_ones_are_reported():
    class Bots:
        @hookimpl
        def register_bots(self, register):
            register("nim", BotSpec("third", "Third", lambda r, s, o: FirstBot(), 2))
            register("chess", BotSpec("deep", "Deep", lambda r, s, o: FirstBot()))

    registry = load_registry(extra_plugins={"nim": NimPlugin(), "bots": Bots()}, entry_points=[])
    assert [b.id for b in registry.game("nim").bots] == ["first", "perfect", "third"]
    record = next(r for r in registry.plugins if r.name == "bots")
    assert record.bots == ["nim:third", "chess:deep"]
    assert "unknown game 'chess'" in record.error


def test_plugins_json_lists_the_installed_yatzy_with_the_documented_keys(capsys):
    assert main(["plugins", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    yatzy = next(r for r in records if "yatzy" in r["games"])
    assert yatzy["name"] == "gamenight" and yatzy["error"] is None
    assert {"name", "version", "games", "bots", "themes", "error"} <= set(yatzy)


def test_a_bot_for_another_game_brings_its_own_translations():
    from gamenight.i18n import set_language, translator

    class Bots:
        @hookimpl
        def register_bots(self, register):
            register(
                "nim",
                BotSpec("careful", "Careful", lambda r, s, o: FirstBot(), 5, translations={"ja": {"Careful": "慎重"}}),
            )

    load_registry(extra_plugins={"nim": NimPlugin(), "bots": Bots()}, entry_points=[])
    set_language("ja")
    assert translator("nim")("Careful") == "慎重"


def test_a_plugin_for_another_sdk_version_is_reported_and_the_rest_load():
    from gamenight.sdk import API_VERSION, api_mismatch

    major, minor = (int(part) for part in API_VERSION.split("."))

    def nim_wanting(version):
        plugin = NimPlugin()
        plugin.GAMENIGHT_API = version
        return plugin

    registry = load_registry(
        extra_plugins={
            "newer": nim_wanting(f"{major}.{minor + 1}"),
            "next-major": nim_wanting(f"{major + 1}.0"),
            "garbage": nim_wanting("\x1b[31m1"),
            "current": nim_wanting(API_VERSION),
        },
        entry_points=[],
    )
    errors = {record.name: record.error for record in registry.plugins}
    assert errors["current"] is None and "nim" in registry.games
    assert errors["newer"] == f"not loaded: it needs gamenight SDK {major}.{minor + 1}; this room has SDK {API_VERSION}"
    assert errors["next-major"] == f"not loaded: it needs gamenight SDK {major + 1}.0; this room has SDK {API_VERSION}"
    assert "GAMENIGHT_API must be a string like" in errors["garbage"]
    assert api_mismatch("1.0", have="1.2") is None and api_mismatch("1.3", have="1.2") is not None
    assert api_mismatch("0.9", have="1.2") is not None and api_mismatch(1.0) is not None


def test_every_built_in_plugin_names_the_sdk_version_it_is_written_for():
    import gamenight_lits.plugin
    import gamenight_mate.plugin
    import gamenight_mille.plugin
    import gamenight_seven.plugin
    import gamenight_yatzy.plugin
    from gamenight.sdk import API_VERSION

    for module in (
        gamenight_lits.plugin,
        gamenight_mate.plugin,
        gamenight_mille.plugin,
        gamenight_seven.plugin,
        gamenight_yatzy.plugin,
    ):
        assert module.GAMENIGHT_API == API_VERSION, module.__name__
    import gamenight

    assert gamenight.API_VERSION == API_VERSION
