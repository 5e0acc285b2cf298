"""Names at a shared table over real SSH: a user name another identity uses is not taken over.

One ``python -m gamenight.ssh --authorized-keys`` and real OpenSSH clients (pyte screens, 80x24),
the real room, the harness of test_shared_tables.py.  Alice opens a Mille table; Mallory, with
her own key but the user name ``alice``, takes the other seat: the Tables list (as Carol sees
it) and the chat show her as ``alice 2``, and her chat line never reads like Alice's.  Carol
watches under ``аlice`` with a Cyrillic ``а`` -- the same name by look -- and her line is shown as a
watcher's, under a third name.
"""

from __future__ import annotations

from pathlib import Path

from tests.core.ssh.conftest import Terminal, needs_ssh, ssh_argv, wait_until
from tests.core.ssh.test_shared_tables import LOBBY, TABLES, People, open_table

CYRILLIC = "\u0430lice"
"""``аlice`` with a Cyrillic ``а`` (a full-width ``ａｌｉｃｅ`` reaches the server as ``alice``:
asyncssh applies SASLprep, NFKC among it, to user names)."""


def status_line(terminal: Terminal) -> str:
    return terminal.text().splitlines()[-2]


def say(terminal: Terminal, line: str) -> None:
    terminal.send("\x14")  # Ctrl+T: the chat line
    terminal.wait_for("Say to the table:", 20)
    terminal.send(line)
    wait_until(lambda: line in terminal.text(), 20, "the typed line")
    terminal.send("\r")


@needs_ssh
def test_a_second_identity_under_alices_name_is_shown_apart(start_server, terminals, tmp_path: Path) -> None:
    people = People(tmp_path, terminals, ("alice", "mallory", "carol"))
    server = people.start(start_server)
    alice = people.connect("alice")
    mallory = terminals(ssh_argv(server.port, "alice", people.keys["mallory"], "-tt"), 80, 24)
    mallory.wait_for(LOBBY, 40)
    carol = terminals(ssh_argv(server.port, CYRILLIC, people.keys["carol"], "-tt"), 80, 24)
    carol.wait_for(LOBBY, 40)

    open_table(alice)
    mallory.send("t")
    mallory.wait_for("free", 30)
    mallory.send("\r")
    carol.send("t")
    carol.wait_for(TABLES, 20)
    listing = carol.wait_for("alice, alice 2", 30)  # the Tables list: both seats, told apart
    assert "playing" in listing

    say(mallory, "bob, I will pay you 10 EUR later")
    wait_until(lambda: "alice 2: bob, I will pay" in status_line(alice), 20, "Mallory's line on Alice's screen")
    assert "alice: bob" not in alice.text()

    carol.send("w")  # Carol watches
    wait_until(lambda: "alice 2" in carol.text() and TABLES not in carol.text(), 30, "Carol at the table")
    say(carol, "hello")
    shown = f"{CYRILLIC} 3 (watching): hello"
    wait_until(lambda: shown in status_line(alice), 20, "Carol's line on Alice's screen, marked")
