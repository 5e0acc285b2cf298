"""The room and the terminal it needs: none at all is said in one line (exit 2), and a room whose
stderr goes to a file (``gamenight 2>err.log``) is drawn on stdout's terminal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

LOBBY = "choose a game"


def room_argv(tmp_path: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "gamenight",
        "--config",
        str(tmp_path / "config.toml"),
        "--saves",
        str(tmp_path / "saves"),
    ]


@pytest.mark.parametrize("language", ["en", "ja"])
def test_without_a_terminal_the_room_says_so_in_one_line_and_exits_2(tmp_path: Path, language: str) -> None:
    # stdin at its end, stdout to a file: the room waited for keys that never came, for ever.
    env = {**os.environ, "LANG": "C.UTF-8", "GAMENIGHT_LANG": language}
    env.pop("TEXTUAL_DRIVER", None)
    with (tmp_path / "out.txt").open("wb") as out:
        try:
            done = subprocess.run(
                room_argv(tmp_path), stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE, env=env, timeout=60
            )
        except subprocess.TimeoutExpired:
            pytest.fail("the room kept running without a terminal")
    err = done.stderr.decode()
    assert done.returncode == 2 and len(err.splitlines()) == 1
    assert ("端末" if language == "ja" else "needs a terminal") in err
    assert (tmp_path / "out.txt").read_bytes() == b""
    plugins = subprocess.run(
        [sys.executable, "-m", "gamenight", "plugins", "--json"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert plugins.returncode == 0 and b"yatzy" in plugins.stdout  # the commands need no terminal


def test_without_a_terminal_a_replay_says_so_too(tmp_path: Path) -> None:
    from gamenight.match import SeatConfig, play_headless
    from gamenight.plugins import load_registry
    from gamenight.saves import save_match

    game = load_registry().game("yatzy")
    path = save_match(
        play_headless(game, [SeatConfig("A", "random"), SeatConfig("B", "random")], seed=1), tmp_path / "y.toml"
    )
    env = {**os.environ, "LANG": "C.UTF-8", "GAMENIGHT_LANG": "en"}
    env.pop("TEXTUAL_DRIVER", None)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "gamenight", "replay", str(path)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=env,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the replay kept running without a terminal")
    assert done.returncode == 2 and b"needs a terminal" in done.stderr and done.stdout == b""


def test_a_room_with_stderr_in_a_file_is_drawn_on_the_terminal(terminals, tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("[general]\nbot_delay = 99\n", encoding="utf-8")
    log = tmp_path / "err.log"
    # as a shell runs `gamenight 2>err.log`: stdin and stdout the terminal, stderr the file
    argv = ["sh", "-c", 'exec "$0" "$@" 2>"$ERR_LOG"', *room_argv(tmp_path), "--lang", "en"]
    terminal = terminals(argv, 80, 24, env={"LANG": "C.UTF-8", "GAMENIGHT_LANG": "en", "ERR_LOG": str(log)})
    terminal.wait_for("Yatzy", 40)  # the lobby, on the terminal
    assert LOBBY in terminal.text()
    terminal.send("q")
    assert terminal.wait_exit(20) == 0
    said = log.read_text(encoding="utf-8")
    assert "bot_delay" in said  # the config warning is in the file the user sent stderr to
    assert "\x1b[" not in said  # and no drawing
