"""The room in a real pseudo-terminal, as `gamenight` runs on a player's machine."""

from __future__ import annotations

import sys
from pathlib import Path

from .conftest import wait_until

LOBBY = "choose a game"


def test_invalid_utf8_typed_into_the_room_does_not_stop_its_keyboard(terminals, tmp_path: Path) -> None:
    # Textual's Linux driver decoded stdin strictly: its input thread died at the first bad byte.
    argv = [sys.executable, "-m", "gamenight", "--config", str(tmp_path / "config.toml"),
            "--saves", str(tmp_path / "saves"), "--lang", "en"]
    terminal = terminals(argv, 80, 24, env={"LANG": "C.UTF-8", "GAMENIGHT_LANG": "en"})
    terminal.wait_for("Yatzy", 40)  # the games are listed
    terminal.send(b"\xff\xfe\xc3(")  # not UTF-8 at all, then a broken two-byte sequence
    terminal.send("h")
    wait_until(lambda: LOBBY not in terminal.text(), 20, "the rules screen after the bad bytes")
    assert "Rules:" in terminal.text()
    terminal.send("q")
    terminal.wait_for(LOBBY, 20)
    terminal.send("q")
    assert terminal.wait_exit(20) == 0
