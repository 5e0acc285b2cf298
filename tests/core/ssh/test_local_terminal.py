"""The room in a real pseudo-terminal, as `gamenight` runs on a player's machine."""

from __future__ import annotations

import sys
from pathlib import Path

from .conftest import wait_until

LOBBY = "choose a game"


def open_room(terminals, tmp_path: Path):
    """``gamenight`` in English in an 80x24 pseudo-terminal, its config and saves in ``tmp_path``."""
    argv = [sys.executable, "-m", "gamenight", "--config", str(tmp_path / "config.toml")]
    argv += ["--saves", str(tmp_path / "saves"), "--lang", "en"]
    return terminals(argv, 80, 24, env={"LANG": "C.UTF-8", "GAMENIGHT_LANG": "en"})


def test_invalid_utf8_typed_into_the_room_does_not_stop_its_keyboard(terminals, tmp_path: Path) -> None:
    # Textual's Linux driver decoded stdin strictly: its input thread died at the first bad byte.
    terminal = open_room(terminals, tmp_path)
    terminal.wait_for("Yatzy", 40)  # the games are listed
    terminal.send(b"\xff\xfe\xc3(")  # not UTF-8 at all, then a broken two-byte sequence
    terminal.send("h")
    wait_until(lambda: LOBBY not in terminal.text(), 20, "the rules screen after the bad bytes")
    assert "Rules:" in terminal.text()
    terminal.send("q")
    terminal.wait_for(LOBBY, 20)
    terminal.send("q")
    assert terminal.wait_exit(20) == 0


def test_the_palette_opened_again_in_a_tiny_window_does_not_crash_the_room(terminals, tmp_path: Path) -> None:
    # Ctrl+P, shrink to 40x10, Ctrl+P again raised DuplicateIds and printed a traceback.
    terminal = open_room(terminals, tmp_path)
    terminal.wait_for("Yatzy", 40)
    terminal.send(b"\x10")  # Ctrl+P
    terminal.wait_for("Search for commands", 20)
    terminal.resize(40, 10)
    terminal.wait_for("enlarge", 20)
    terminal.send(b"\x10")
    terminal.send(b"\x10")
    terminal.resize(80, 24)
    terminal.wait_for("Search for commands", 20)  # the palette that was open is back, alone
    assert terminal.process.poll() is None
    terminal.send(b"\x1b")
    terminal.wait_for(LOBBY, 20)
    terminal.send(b"\x11")  # Ctrl+Q
    assert terminal.wait_exit(20) == 0
    assert b"Traceback" not in terminal.received and b"DuplicateIds" not in terminal.received


CRASHING_ROOM = """
import sys
from pathlib import Path
from textual.binding import Binding
from gamenight.app import GameNightApp
from gamenight.config import Config

class Crashing(GameNightApp):
    BINDINGS = [*GameNightApp.BINDINGS, Binding("f9", "boom", "boom", priority=True)]

    def action_boom(self):
        raise RuntimeError("boom in /srv/secret/gamenight/room.py")

home = Path(sys.argv[1])
app = Crashing(config=Config.load(home / "config.toml"), saves_dir=home / "saves", start_game="yatzy")
app.run()
sys.exit(app.return_code)
"""


def _crash(terminals, tmp_path: Path, hosted: bool):
    env = {"LANG": "C.UTF-8", "GAMENIGHT_LANG": "en", "GAMENIGHT_CRASH_LOG": str(tmp_path / "crash.log")}
    if hosted:
        env["GAMENIGHT_HOSTED"] = "1"
    terminal = terminals([sys.executable, "-c", CRASHING_ROOM, str(tmp_path)], 80, 24, env=env)
    terminal.wait_for("Seats", 40)
    terminal.send(b"\x1b[20~")  # F9
    assert terminal.wait_exit(20) == 1
    terminal._reader.join(5)
    shown = bytes(terminal.received).decode("utf-8", "replace")
    assert "gamenight stopped because of an unexpected error." in shown
    assert "Traceback" not in shown and "/srv/secret" not in shown and "RuntimeError" not in shown
    log = (tmp_path / "crash.log").read_text()
    assert "Traceback" in log and "RuntimeError: boom in /srv/secret/gamenight/room.py" in log
    return shown


def test_a_crash_shows_a_short_message_and_logs_the_traceback(terminals, tmp_path: Path) -> None:
    shown = _crash(terminals, tmp_path, hosted=False)
    assert str(tmp_path / "crash.log") in shown.replace("\r\n", "").replace("\n", "")


def test_a_hosted_crash_shows_no_path_at_all(terminals, tmp_path: Path) -> None:
    shown = _crash(terminals, tmp_path, hosted=True)
    assert "logged for the host" in shown and str(tmp_path) not in shown
