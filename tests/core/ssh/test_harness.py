"""The tests' own terminal (:class:`~tests.core.ssh.conftest.Terminal`): what a program writes
reaches that terminal's screen whole, also right after another terminal was closed.

Closing a terminal used to close its pty's master descriptor under its reader thread.  When the
thread was not inside ``read()`` at that moment (still feeding a backlog to pyte, or not yet
scheduled on a busy machine), its next ``read()`` took the *number* again -- and the next pty
opened got that number.  The old reader then took a share of the new terminal's bytes: its
screen came out torn (a cursor move to row 321 on a 30-row screen, a dialog's box without its
text), which the end-to-end test saw after Bob's terminal closed and Alice's opened.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pyte

from tests.core.ssh.conftest import Terminal

PAYLOAD = b"".join(b"\x1b[%d;1Hline %04d " % (n % 24 + 1, n) + b"x" * 60 for n in range(3000))
"""Cursor moves and text, as a room draws them: 3000 lines of about 80 bytes."""
WRITER = (
    "import os, sys; sys.stdin.buffer.readline(); payload = open(sys.argv[1], 'rb').read()\n"
    "for at in range(0, len(payload), 997): os.write(1, payload[at:at + 997])"
)
"""Waits for a line, then writes the payload in many small writes (as a room's output arrives)."""


class HeldTerminal(Terminal):
    """A terminal whose reader stops, once, after its first bytes (as a descheduled thread would)."""

    CLOSE_WAIT = 0.5  # close() does not wait the hold out

    def __init__(self, argv: list[str]) -> None:
        self.holding = threading.Event()
        self.release = threading.Event()
        self.held_once = False
        super().__init__(argv, 80, 24)

    def _fed(self, arrived: float) -> None:
        if not self.held_once:
            self.held_once = True
            self.holding.set()
            self.release.wait(30)


def test_a_closed_terminals_reader_takes_nothing_of_the_next_terminal(tmp_path: Path) -> None:
    (tmp_path / "payload").write_bytes(PAYLOAD)
    first = HeldTerminal([sys.executable, "-c", "import os, time; os.write(1, b'ready'); time.sleep(60)"])
    try:
        assert first.holding.wait(30), "the first terminal's reader never got its first bytes"
        first.close()  # its reader is not in read() now, and will call it again when it goes on
        second = Terminal([sys.executable, "-c", WRITER, str(tmp_path / "payload")], 80, 24)
        try:
            first.release.set()  # the first reader goes on
            second.send("go\r")
            second.wait_exit()
            second._reader.join(30)  # it reads what is left, then the end of the pty
            with second._lock:
                received = bytes(second.received)
            start = received.find(PAYLOAD[:40])
            assert start >= 0, received[:200]
            missing = len(PAYLOAD) - len(received[start:])
            assert received[start:] == PAYLOAD, f"{missing} bytes of {len(PAYLOAD)} missing"
        finally:
            second.close()
    finally:
        first.release.set()


COLOURED = b"".join(
    b"\x1b[%d;%dH\x1b[38;5;%dm\x1b[48;2;%d;40;90m\x1b[1;4mcell %04d\x1b[0m "
    % (n % 24 + 1, n % 7 * 10 + 1, n % 256, n % 256, n)
    for n in range(400)
)
"""Cursor moves, colours (256 and true colour) and styles around text, as a room draws them."""


def reference_screen(payload: bytes) -> pyte.Screen:
    screen = pyte.Screen(80, 24)
    pyte.ByteStream(screen).feed(payload)
    return screen


def written(tmp_path: Path, payload: bytes, attributes: bool) -> Terminal:
    """A terminal that has read all of ``payload``, written in many small writes."""
    (tmp_path / "payload").write_bytes(payload)
    terminal = Terminal([sys.executable, "-c", WRITER, str(tmp_path / "payload")], 80, 24, attributes=attributes)
    terminal.send("go\r")
    terminal.wait_exit()
    terminal._reader.join(30)
    return terminal


def test_a_screen_without_attributes_shows_the_text_a_full_one_shows(tmp_path: Path) -> None:
    reference = reference_screen(COLOURED)
    plain = written(tmp_path, COLOURED, attributes=False)
    full = written(tmp_path, COLOURED, attributes=True)
    try:
        assert plain.text() == full.text() == "\n".join(reference.display)
        assert plain.text().count("cell ") > 20
        # The full screen keeps the colours and styles; the plain one has none.
        assert full.screen.buffer[0] == reference.buffer[0]
        cells = [char for row in full.screen.buffer.values() for char in row.values() if char.data != " "]
        assert all(char.bold and char.underscore and char.fg != "default" for char in cells)
        plain_cells = [char for row in plain.screen.buffer.values() for char in row.values()]
        assert not any(char.bold or char.underscore or char.fg != "default" for char in plain_cells)
    finally:
        plain.close()
        full.close()


def test_a_colour_sequence_cut_between_two_reads_is_taken_out_whole() -> None:
    payload = b"ab\x1b[38;2;1;2;3mcd\x1b[0m\x1b[5;7Hef\x1b[1m\x1b"
    terminal = Terminal([sys.executable, "-c", "pass"])
    try:
        for cut in range(len(payload) + 1):
            terminal._pending = b""
            out = terminal._for_screen(payload[:cut]) + terminal._for_screen(payload[cut:])
            assert out + terminal._pending == b"ab" + b"cd" + b"\x1b[5;7Hef" + b"\x1b", cut
    finally:
        terminal.close()


def test_the_screens_text_is_made_again_only_after_new_bytes(tmp_path: Path, monkeypatch) -> None:
    terminal = written(tmp_path, PAYLOAD[:20_000], attributes=False)
    made = []
    display = pyte.Screen.display
    monkeypatch.setattr(
        type(terminal.screen), "display", property(lambda screen: made.append(1) or display.fget(screen))
    )
    try:
        first = terminal.text()
        assert all(terminal.text() == first for _ in range(50))
        assert len(made) == 1
        terminal.resize(70, 20)  # (a change that is no read)
        assert terminal.text() != first and len(made) == 2
    finally:
        terminal.close()


MIXED = (
    "\x1b[2J\x1b[1;1Hplain text, then box │─┼ and suits ♠♥ and \x1b[31mcolour\x1b[0m"
    "\x1b[2;75Hwraps past the last column\x1b[3;1H漢字 wide, e\u0301 combined"
    "\x1b[4;1Habcdef\x1b[4;3H\x1b[4hINSERTED\x1b[4l\x1b[5;1H\x1b(0lqqk\x1b(B after DEC graphics"
    "\x1b[24;70Hscrolls off the bottom line\r\nnext\x1b[6;80Hx\x1b[6;80Hyz"
).encode()
"""Text runs a screen draws at once beside the cases it leaves to pyte: wide and combining characters,
runs past the line's end, insert mode, another character set."""


def test_the_screen_draws_what_pyte_draws_cell_for_cell() -> None:
    from tests.core.ssh.conftest import _TolerantScreen

    for payload, sizes in ((MIXED, (1, 7, 997)), (COLOURED[:5000], (7, 997)), (PAYLOAD[:5000], (7, 997))):
        for size in sizes:
            ours, theirs = _TolerantScreen(80, 24), pyte.Screen(80, 24)
            our_stream, their_stream = pyte.ByteStream(ours), pyte.ByteStream(theirs)
            for at in range(0, len(payload), size):
                our_stream.feed(payload[at : at + size])
                their_stream.feed(payload[at : at + size])
                if payload is MIXED or at % 997 < size:
                    assert ours.buffer == theirs.buffer, (payload[:20], size, at)
                    assert (ours.cursor.x, ours.cursor.y, ours.cursor.attrs) == (
                        theirs.cursor.x,
                        theirs.cursor.y,
                        theirs.cursor.attrs,
                    )
            assert ours.buffer == theirs.buffer and ours.display == theirs.display


def test_a_run_of_plain_text_is_drawn_at_once(monkeypatch) -> None:
    from tests.core.ssh.conftest import _TolerantScreen

    theirs = pyte.Screen(80, 24)
    pyte.ByteStream(theirs).feed(PAYLOAD[:20_000])
    widths = []
    width = pyte.screens.wcwidth
    monkeypatch.setattr(pyte.screens, "wcwidth", lambda char: widths.append(char) or width(char))
    ours = _TolerantScreen(80, 24)
    pyte.ByteStream(ours).feed(PAYLOAD[:20_000])
    assert widths == []  # not a character at a time through pyte's draw (20,000 of them)
    assert ours.buffer == theirs.buffer
