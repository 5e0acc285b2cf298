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
