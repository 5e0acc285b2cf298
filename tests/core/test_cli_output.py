"""The command line prints outside text (plugin errors, arguments) as plain text, never as markup or escapes."""

from __future__ import annotations

import json

import pytest
from gamenight.cli import main
from gamenight.plugins import PluginRecord, load_registry

from tests.core.nim import NimPlugin

HOSTILE_ERROR = "failed to load: RuntimeError: \x1b]0;PWNED\x07\x1b[31mred [/red] [bold]boom (evil.py:3)"


@pytest.fixture
def broken_registry(monkeypatch):
    """Nim, and a plugin whose error holds terminal escapes and Rich markup."""

    def registry():
        found = load_registry(extra_plugins={"nim": NimPlugin()}, entry_points=[])
        found.plugins.append(
            PluginRecord(name="evil[/red]", distribution="gamenight-evil", version="0.1", errors=[HOSTILE_ERROR])
        )
        return found

    monkeypatch.setattr("gamenight.plugins.load_registry", registry)
    monkeypatch.setenv("COLUMNS", "80")


def test_plugins_prints_a_hostile_error_as_plain_text_and_exits_1(broken_registry, capsys):
    assert main(["plugins"]) == 1
    out, err = capsys.readouterr()
    assert "\x1b" not in out and "\x07" not in out and "Traceback" not in err
    assert "evil[/red]: failed to load: RuntimeError:" in out and "red [/red] [bold]boom" in out


def test_plugins_json_exits_1_when_a_plugin_failed(broken_registry, capsys):
    assert main(["plugins", "--json"]) == 1
    records = json.loads(capsys.readouterr().out)
    assert [record["error"] for record in records] == [None, HOSTILE_ERROR]


def test_plugins_exits_0_when_every_plugin_loaded(monkeypatch, nim_registry, capsys):
    monkeypatch.setattr("gamenight.plugins.load_registry", lambda: nim_registry)
    assert main(["plugins"]) == 0
    assert main(["plugins", "--json"]) == 0


def test_plugins_at_80_columns_splits_no_word(broken_registry, capsys):
    assert main(["plugins"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 80
    words = {word for line in lines for word in line.replace("│", " ").replace("┃", " ").split()}
    # the table, or (Nim's two bots make it 82 columns wide) a block per plugin: every word whole
    assert {"Plugin", "Distribution", "Version", "Games", "Bots", "Themes", "Status"} <= words or {
        "Games:",
        "Bots:",
    } <= words
    assert {"failed", "ok", "gamenight-evil", "first", "perfect"} <= words


@pytest.mark.parametrize(
    "argv, shown",
    [
        (["arena", "[/red]", "--seats", "first,first"], "no game '[/red]'"),
        (["arena", "nim", "--seats", "first,[/red]"], "no bot '[/red]'"),
        (["arena", "nim", "--seats", "first,first", "--option", "[/x]"], "--option takes K=V, not '[/x]'"),
        (["arena", "nim", "--seats", "first,first", "--option", "[/x]=1"], "no option '[/x]'"),
        (["arena", "nim", "--seats", "first,first", "--option", "sticks=[/x]"], "not '[/x]'"),
        (["arena", "nim", "--seats", "first,first", "--option", "sticks=\x1b]0;PWNED\x07"], "not '"),
    ],
)
def test_arena_refuses_markup_and_escapes_in_arguments_with_a_message_and_code_2(
    argv, shown, monkeypatch, nim_registry, capsys
):
    monkeypatch.setattr("gamenight.plugins.load_registry", lambda: nim_registry)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("gamenight arena: ") and shown in err
    assert "\x1b" not in err and "\x07" not in err and "Traceback" not in err


def test_arena_says_how_many_seats_a_game_takes_naturally(monkeypatch, capsys):
    assert main(["arena", "lits", "--seats", "random,random,random", "--games", "1"]) == 2
    assert "lits takes 2 seats, not 3" in capsys.readouterr().err
    assert main(["arena", "seven", "--seats", "random", "--games", "1"]) == 2
    assert "seven takes 2–5 seats, not 1" in capsys.readouterr().err


def test_arena_table_shows_a_plugin_bot_id_as_plain_text(monkeypatch, capsys):
    from gamenight.sdk import BotSpec

    from tests.core.nim import FirstBot

    def registry():
        class Bots:
            from gamenight import hookimpl

            @hookimpl
            def register_bots(self, register):
                register("nim", BotSpec("[/b]", "Odd", lambda r, s, o: FirstBot()))

        return load_registry(extra_plugins={"nim": NimPlugin(), "bots": Bots()}, entry_points=[])

    monkeypatch.setattr("gamenight.plugins.load_registry", registry)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["arena", "nim", "--seats", "[/b],first", "--games", "2"]) == 0
    assert "[/b]" in capsys.readouterr().out


@pytest.mark.parametrize("language", ["en", "ja"])
def test_an_unknown_game_prints_one_line_and_exits_2_without_opening_the_room(
    monkeypatch, nim_registry, capsys, language
):
    from gamenight.app import GameNightApp

    monkeypatch.setattr("gamenight.plugins.load_registry", lambda: nim_registry)
    started = []
    monkeypatch.setattr(GameNightApp, "run", lambda self: started.append(self))
    monkeypatch.setattr("gamenight.cli._terminal_problem", lambda: None, raising=False)  # a terminal
    assert main(["--lang", language, "nosuchgame"]) == 2
    out, err = capsys.readouterr()
    assert not started and out == ""
    assert len(err.splitlines()) == 1 and "'nosuchgame'" in err and "nim" in err
    assert ("インストール済み" if language == "ja" else "installed: nim") in err


def test_room_options_before_a_command_run_the_command(monkeypatch, nim_registry, capsys, tmp_path):
    from gamenight.app import GameNightApp

    monkeypatch.setattr("gamenight.plugins.load_registry", lambda: nim_registry)
    monkeypatch.setattr(GameNightApp, "run", lambda self: pytest.fail("the room opened"))
    (tmp_path / "config.toml").write_text('[general]\nlanguage = "ja"\n', encoding="utf-8")
    assert main(["--config", str(tmp_path / "config.toml"), "plugins"]) == 0
    out = capsys.readouterr().out
    assert "gamenight プラグイン" in out and "nim" in out  # the plugins table, in the config's language
    assert main(["--lang", "en", "plugins", "--json"]) == 0
    assert [record["games"] for record in json.loads(capsys.readouterr().out)] == [["nim"]]


def test_records_help_says_95_percent_once(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["records", "--help"])
    out = capsys.readouterr().out
    assert exited.value.code == 0 and "95% interval" in out and "%%" not in out


@pytest.mark.parametrize("language", ["en", "ja"])
def test_plugins_too_wide_for_80_columns_keep_every_name_whole(monkeypatch, nim_registry, capsys, language):
    from gamenight.i18n import set_language

    def registry():
        found = load_registry(extra_plugins={"nim": NimPlugin()}, entry_points=[])
        found.plugins.append(
            PluginRecord(
                name="example",
                distribution="gamenight-example",
                version="0.1.0",
                games=["goofspiel"],
                bots=["goofspiel-high", "goofspiel-random"],
                themes=["example-night"],
            )
        )
        return found

    monkeypatch.setattr("gamenight.plugins.load_registry", registry)
    monkeypatch.setattr("gamenight.cli.detect_language", lambda *_args: language)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["plugins"]) == 0
    set_language("en")
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 80
    words = {word.strip(",:") for line in lines for word in line.replace("│", " ").split()}
    assert {"gamenight-example", "goofspiel-high", "goofspiel-random", "example-night", "nim"} <= words
    assert not any(line.startswith("│") and not line.rstrip().endswith("│") for line in lines)  # no lost edge


@pytest.mark.parametrize("language", ["en", "ja"])
def test_plugins_lists_the_bots_of_a_plugins_own_game(monkeypatch, nim_registry, capsys, language):
    """Nim's plugin registers one game with two bots of its own: both are in the Bots column (and the JSON)."""
    monkeypatch.setattr("gamenight.plugins.load_registry", lambda: nim_registry)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["--lang", language, "plugins"]) == 0
    rows = [line.replace("│", " ").split() for line in capsys.readouterr().out.splitlines()]
    header = next(row for row in rows if "Games" in row or "ゲーム" in row)
    assert ("ボット" if language == "ja" else "Bots") in header
    ok = "正常" if language == "ja" else "ok"
    assert ["nim", "nim", "nim", "first", ok] in rows and ["perfect"] in rows  # its one game's bots, one a line
    assert main(["plugins", "--json"]) == 0
    (nim,) = json.loads(capsys.readouterr().out)
    assert nim["games"] == ["nim"] and nim["bots"] == ["nim:first", "nim:perfect"]
