"""End to end: the real OpenSSH client, the real game room, a real pseudo-terminal.

Alice connects, sees the lobby, plays a few keys, resizes her window, starts
a game against a bot that moves first (so the game is autosaved: shared tables are off, so the game
is local), and vanishes.  When she reconnects the lobby offers
to resume the autosave.  Bob, with another key and a 16-colour terminal, gets
his own empty room and never sees Alice's game.
"""

from __future__ import annotations

import fcntl
import os
import struct
import termios
import time
from pathlib import Path

import asyncssh
from gamenight.i18n import translator
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.ssh.identity import key_user_id

from tests.core.ssh.conftest import Terminal, make_key, needs_ssh, ssh_argv, wait_until
from tests.core.ssh.processes import process_alive

LOBBY = "choose a game"
DOWN, UP, HOME, ESC = "\x1b[B", "\x1b[A", "\x1b[H", "\x1b"
RESUME_OFFER = "You have an unfinished game of"


def pty_size(pid: int) -> tuple[int, int]:
    """(cols, rows) of the terminal on ``pid``'s stdin, read through /proc."""
    fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NOCTTY)
    try:
        rows, cols, _, _ = struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))
    finally:
        os.close(fd)
    return cols, rows


def playable_game() -> tuple[int, str]:
    """The lobby position and title of the first game for two or more whose screen opens."""
    registry = load_registry()
    games = sorted(registry.games.values(), key=lambda game: translator(game.id)(game.title).lower())
    for index, game in enumerate(games):
        if game.screen is None or game.min_seats < 2:
            continue
        try:
            game.screen(Match(game, [SeatConfig(f"p{n}") for n in range(game.min_seats)], {}))
        except Exception:
            continue
        return index, translator(game.id)(game.title)
    raise AssertionError(f"no installed two-player game has a screen that opens: {sorted(registry.games)}")


@needs_ssh
def test_play_resize_vanish_and_resume_over_real_ssh(start_server, terminals, tmp_path: Path) -> None:
    alice, bob = make_key(tmp_path, "alice"), make_key(tmp_path, "bob")
    authorized = tmp_path / "authorized_keys"
    authorized.write_text(alice.with_suffix(".pub").read_text() + bob.with_suffix(".pub").read_text())
    # Shared tables off: a local game.  With a table service, one person against a bot would be a
    # solo table there, kept by the server, not autosaved here (tests/core/ssh/test_solo_table_e2e.py).
    server = start_server("--authorized-keys", str(authorized), "--tables", "off")
    alice_id = key_user_id(asyncssh.read_public_key(str(alice.with_suffix(".pub"))))
    alice_saves = server.data_dir / "users" / alice_id / "saves"

    # Alice: the lobby, in her terminal's size and colours.
    terminal = terminals(ssh_argv(server.port, "alice", alice, "-tt"), 90, 28)
    terminal.wait_for(LOBBY, 40)
    start = server.wait_event(lambda e: e["event"] == "session_start")
    assert (start["user_id"], start["term"], start["colours"]) == (alice_id, "xterm-256color", "256")
    room = start["pid"]
    assert pty_size(room) == (90, 28)

    # A few keys: the rules of the highlighted game, and back.
    terminal.send("h")
    wait_until(lambda: LOBBY not in terminal.text(), 20, "the rules screen")
    terminal.send("\x1b")
    terminal.wait_for(LOBBY, 20)

    # Resize: the room's pty follows and the lobby is redrawn to the new size.
    terminal.resize(120, 40)
    wait_until(lambda: pty_size(room) == (120, 40), 10, "the room's pty to be resized")
    wait_until(lambda: "Quit" in terminal.text().splitlines()[39], 20, "the footer on the new last line")

    # Start a game with a bot in seat 1 and Alice in seat 2: the bot's first move is autosaved,
    # then the game waits for her.
    index, title = playable_game()
    terminal.send(DOWN * index + "\r")  # the setup screen, focus on seat 1's name
    terminal.wait_for(f"New game: {title}", 30)

    def seat_line(number: int) -> str:
        return next((line for line in terminal.text().splitlines() if f"Seat {number}" in line), "")

    def menu_open() -> bool:
        return sum("Bot:" in line for line in terminal.text().splitlines()) >= 3

    terminal.send("\t\r")  # seat 1's kind: open the menu
    wait_until(menu_open, 20, "seat 1's menu")
    terminal.send(DOWN + "\r")  # Person -> the first bot
    wait_until(lambda: "Bot:" in seat_line(1) and not menu_open(), 20, "a bot in seat 1")
    terminal.send("\t\t\r")  # seat 2's kind
    wait_until(menu_open, 20, "seat 2's menu")
    terminal.send(HOME + "\r")  # the first choice: Person
    wait_until(lambda: "Person" in seat_line(2) and not menu_open(), 20, "Alice in seat 2")
    terminal.send("\x12")  # ctrl+r: start
    autosave = wait_until(
        lambda: next(iter(alice_saves.glob("autosave-*.toml")), None), 30, "the autosave of the game in progress"
    )
    saved = autosave.read_bytes()

    # Alice's client vanishes mid-game: her room ends, her game is kept.
    terminal.kill()
    server.wait_event(lambda e: e["event"] == "disconnect" and e.get("user_id") == alice_id)
    wait_until(lambda: not process_alive(room), 15, "Alice's room to end")
    assert autosave.read_bytes() == saved

    # Bob, on a 16-colour terminal, gets his own empty room: no offer of Alice's game.
    bob_terminal = Terminal(ssh_argv(server.port, "bob", bob, "-tt"), 80, 24, env={"TERM": "xterm"})
    try:
        bob_terminal.wait_for(LOBBY, 40)
        bob_start = server.wait_event(lambda e: e["event"] == "session_start" and e["user_id"] != alice_id)
        assert bob_start["colours"] == "16"
        assert "gamenight-16" in Path(f"/proc/{bob_start['pid']}/cmdline").read_text()
        # Junk a broken client could send (bogus reports, invalid UTF-8, NULs, clipboard escapes):
        # the room shrugs it off and still answers keys. Textual's parser gives up on an escape
        # sequence it does not know and reads what follows as keys, so a stray "c" of the OSC 52
        # payload may open the records (the lobby's c): Esc leads back to the lobby.
        bob_terminal.send(b"\x1b[999;999R\xff\xfe\x00\x1b]52;c;QUFB\x07\xc3" * 300)
        time.sleep(1)
        presses = iter(range(10_000))

        def answers_keys() -> bool:
            before = bob_terminal.text()
            if LOBBY not in before:
                bob_terminal.send(ESC)
            else:
                bob_terminal.send(DOWN if next(presses) % 8 < 4 else UP)  # never stuck at the list's end
            time.sleep(0.5)
            after = bob_terminal.text()
            return after != before and LOBBY in after

        wait_until(answers_keys, 90, "Bob's lobby to answer a key after the junk")
        assert RESUME_OFFER not in bob_terminal.text() and LOBBY in bob_terminal.text()
        bob_saves = server.data_dir / "users" / bob_start["user_id"] / "saves"
        assert not list(bob_saves.glob("*.toml"))
        # A resize storm: the room ends up at the last size, redrawn, still alive.
        for step in range(60):
            bob_terminal.resize(40 + step * 3 % 120, 10 + step % 40)
        bob_terminal.resize(100, 30)
        wait_until(lambda: pty_size(bob_start["pid"]) == (100, 30), 10, "Bob's room at the last size")
        wait_until(lambda: "Quit" in bob_terminal.text().splitlines()[29], 20, "Bob's lobby redrawn")
        assert process_alive(bob_start["pid"])
    finally:
        bob_terminal.close()

    # Alice again: the lobby offers to resume her game.
    again = terminals(ssh_argv(server.port, "alice", alice, "-tt"), 100, 30)
    # An upper bound, not a speed: alone it takes about 2 s.  (A screen that came out garbled here
    # under the full suite's load was Bob's closed terminal's reader taking a share of this one's
    # bytes: see tests/core/ssh/test_harness.py.)
    screen = again.wait_for(RESUME_OFFER, 90)
    assert title in screen.replace("\n", " ") or title[:10] in screen
    assert autosave.read_bytes() == saved
