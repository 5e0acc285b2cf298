"""Chat at a shared table over real SSH: escape sequences never reach another terminal.

One ``python -m gamenight.ssh`` and two real OpenSSH clients (pyte screens,
80x24).  Ann and Ben sit at a Mille table; Ann opens the chat line (Ctrl+T)
and types -- as a client can send any bytes -- a line that carries an OSC
title change, a CSI colour, a right-to-left override and C1 controls between
plain words.  Ben's status line shows the words; his terminal's byte stream
never carries any of those sequences, and its title never changes.  The OSC
string is dropped whole on the server's input path (it is no key): Textual
would otherwise read ``ESC ]`` as Alt+] and type the rest of it into Ann's
prompt.
"""

from __future__ import annotations

from pathlib import Path

from tests.core.ssh.conftest import Terminal, needs_ssh, wait_until
from tests.core.ssh.test_shared_tables import People, Table, open_and_join

OSC_TITLE = "\x1b]0;pwned-title\x07"
OSC_ST = "\x1b]2;stolen-title\x1b\\"
DCS = "\x1bPq#0;2;0;0;0dcs-data\x1b\\"
APC = "\x1b_apc-data\x1b\\"
CSI_COLOUR = "\x1b[31;5;7m"
BIDI = "\u202e"
C1 = "\u009b31m\u0085\u009d0;c1-title\u009c"
LINE = f"hello {OSC_TITLE}one {CSI_COLOUR}two{BIDI} {OSC_ST}three {DCS}{APC}{C1}four bye"
NEVER = (
    b"pwned",
    b"stolen",
    b"dcs-data",
    b"apc-data",
    b"c1-title",
    CSI_COLOUR.encode(),
    BIDI.encode(),
    b"\xc2\x9b",
    b"\xc2\x85",
    b"\xc2\x9d",
    b"\xc2\x9c",
)


def status_line(terminal: Terminal) -> str:
    return terminal.text().splitlines()[-2]


@needs_ssh
def test_chat_over_real_ssh_carries_words_never_escape_sequences(start_server, terminals, tmp_path: Path) -> None:
    people = People(tmp_path, terminals, ("ann", "ben"))
    server = people.start(start_server)
    ann, ben = people.connect("ann"), people.connect("ben")
    open_and_join(ann, ben)
    Table(server.data_dir, [ann, ben]).check("the first deal on both screens")
    title_before = ben.screen.title

    ann.send("\x14")  # Ctrl+T: the chat line
    ann.wait_for("Say to the table:", 20)
    ann.send(LINE.encode())
    wait_until(lambda: "bye" in ann.text(), 20, "the typed line in Ann's prompt")
    typed = next(line for line in ann.text().splitlines() if "bye" in line)
    for word in ("pwned", "stolen", "dcs-data", "apc-data", "c1-title", "0;"):
        assert word not in typed, f"a control string was typed into the prompt as keys: {typed!r}"
    ann.send("\r")

    wait_until(lambda: "ann: hello" in status_line(ben), 20, "Ann's line on Ben's status line")
    shown = status_line(ben)
    for word in ("hello", "one", "two", "three", "four", "bye"):
        assert word in shown, shown
    wait_until(lambda: "ann: hello" in status_line(ann), 20, "Ann's own line")
    raw = bytes(ben.received)
    for sequence in NEVER:
        assert sequence not in raw, f"{sequence!r} reached Ben's terminal"
    assert ben.screen.title == title_before and "title" not in ben.screen.title
    assert BIDI not in ben.text()
