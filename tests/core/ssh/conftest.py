"""Helpers for the serve-ssh tests: a server in a subprocess, keys, and a terminal to watch.

The server runs as ``python -m gamenight.ssh`` on 127.0.0.1 with ``--port 0``
and a temporary data dir; its JSON log lines are collected so tests can wait
for events (``session_start``, ``limit`` ...).  :class:`Terminal` runs a
program (the real OpenSSH client) in a pseudo-terminal and keeps its screen
with the pyte terminal emulator.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pyte
import pytest

FAKE_ROOM = Path(__file__).with_name("fake_room.py")
FAKE_COMMAND = f"{sys.executable} {FAKE_ROOM} {{saves}} {{colours}}"
SSH = shutil.which("ssh")
SSH_OPTIONS = [
    "-F",
    "/dev/null",
    "-o",
    "StrictHostKeyChecking=no",
    "-o",
    "UserKnownHostsFile=/dev/null",
    "-o",
    "LogLevel=ERROR",
    "-o",
    "IdentitiesOnly=yes",
    "-o",
    "ConnectTimeout=10",
]

READ_POLL = 0.1
"""Seconds the reader of a :class:`Terminal` waits for bytes before it looks whether it is closed."""

_SGR = re.compile(rb"\x1b\[[0-9;:]*m")
"""A colour or style sequence (Select Graphic Rendition)."""
_PARTIAL_CSI = re.compile(rb"\x1b(\[[0-9;:]*)?\Z")
"""The start of an escape sequence cut at the end of a read."""

needs_ssh = pytest.mark.skipif(SSH is None, reason="the OpenSSH client (ssh) is not installed")
UNSANDBOXED = ["--sandbox", "off", *(["--room-user", "root"] if os.geteuid() == 0 else [])]
"""``serve-ssh`` options for rooms without the sandbox; as root that needs ``--room-user root`` (rooms as
root: the server refuses it otherwise)."""
TEMPLATE = os.environ.get("GAMENIGHT_TEST_TEMPLATE", "auto")
"""``serve-ssh --template`` for every server the tests start (a test's own ``--template`` wins):
``GAMENIGHT_TEST_TEMPLATE=off`` runs them all with spawned rooms, ``on`` with forked ones."""


def wait_until(check: Callable[[], object], timeout: float, what: str, interval: float = 0.05) -> object:
    """Poll ``check`` until it returns something true; fail with ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


class Server:
    """``gamenight.ssh`` in a subprocess, with its log lines parsed."""

    def __init__(self, data_dir: Path, args: list[str], env: dict[str, str] | None = None) -> None:
        self.data_dir = data_dir
        self.events: list[dict] = []
        self.raw: list[str] = []
        self._lock = threading.Lock()
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gamenight.ssh",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--data-dir",
                str(data_dir),
                "--template",
                TEMPLATE,
                *args,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        threading.Thread(target=self._read_log, daemon=True).start()
        try:  # the server imports the room's modules in its template first (a few seconds on a busy machine)
            listening = self.wait_event(lambda e: e["event"] == "listening", 60)
        except BaseException:
            self.stop()
            raise
        self.port: int = listening["port"]

    def _read_log(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self._lock:
                self.raw.append(line)
                try:
                    self.events.append(json.loads(line))
                except json.JSONDecodeError:
                    pass

    def find(self, predicate: Callable[[dict], bool]) -> list[dict]:
        with self._lock:
            return [event for event in self.events if predicate(event)]

    def wait_event(self, predicate: Callable[[dict], bool], timeout: float = 10) -> dict:
        def check() -> dict | None:
            if self.process.poll() is not None and not self.find(predicate):
                raise AssertionError(f"server exited ({self.process.returncode}): {''.join(self.raw)}")
            found = self.find(predicate)
            return found[-1] if found else None

        return wait_until(check, timeout, "a server log event")  # type: ignore[return-value]

    def of_kind(self, event: str, since: int = 0, **fields: object) -> list[dict]:
        """Log events named ``event`` with these field values (from the ``since``-th event on)."""
        with self._lock:
            events = self.events[since:]
        return [e for e in events if e["event"] == event and all(e.get(k) == v for k, v in fields.items())]

    def expect(self, event: str, since: int = 0, **fields: object) -> list[dict]:
        """Like :meth:`of_kind`, but waits (up to 10 s) for at least one such event."""
        return wait_until(
            lambda: self.of_kind(event, since, **fields),
            10,  # type: ignore[return-value]
            f"a {event} {fields} log line",
        )

    def mark(self) -> int:
        """The number of events so far (for ``of_kind(..., since=mark)``)."""
        with self._lock:
            return len(self.events)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    """``start_server(*args, data_dir=..., env=...)`` starts a server; all are stopped afterwards."""
    servers: list[Server] = []

    def start(*args: str, data_dir: Path | None = None, env: dict[str, str] | None = None) -> Server:
        server = Server(data_dir or tmp_path / f"data{len(servers)}", list(args), env)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def make_key(directory: Path, name: str) -> Path:
    """A fresh passphrase-less ed25519 key pair; returns the private key path."""
    path = directory / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(path)], check=True)
    return path


def ssh_argv(port: int, user: str, key: Path | None, *extra: str) -> list[str]:
    """The OpenSSH client command for 127.0.0.1:``port``."""
    argv = [SSH or "ssh", *SSH_OPTIONS, "-p", str(port)]
    if key is not None:
        argv += ["-o", "BatchMode=yes", "-i", str(key)]
    else:  # a guest without a key logs in by keyboard-interactive, with nothing to type (BatchMode would refuse it)
        argv += ["-o", "PubkeyAuthentication=no", "-o", "PasswordAuthentication=no"]
    return [*argv, *extra, "-l", user, "127.0.0.1"]


class _TolerantScreen(pyte.Screen):
    """pyte's screen, but a cursor move with extra parameters does not kill the reader, and a run of
    one-cell characters that fits on its line is drawn at once.

    pyte raised TypeError on ``CSI a;b;c;d H``; the exception ended the reader
    thread, the screen stopped updating and a test waiting for text timed out.

    pyte's ``draw`` takes each character through its width, the modes and a new cell: 80% of the
    CPU pyte spends on what a room draws once colours are left out (:meth:`Terminal._for_screen`).
    A run that cannot wrap (it ends by the last column), in replace mode, of characters one cell
    wide, gets the very cells pyte would give it, made once per character and style.
    """

    def __init__(self, columns: int, lines: int) -> None:
        super().__init__(columns, lines)
        self._cells: dict[object, dict[str, object]] = {}

    def cursor_position(self, line=None, column=None, *_extra, **_private):
        super().cursor_position(line, column)

    def draw(self, data: str) -> None:
        text = data.translate(self.g1_charset if self.charset else self.g0_charset)
        cursor = self.cursor
        start = cursor.x
        if not text or start + len(text) > self.columns or pyte.modes.IRM in self.mode or not _narrow(text):
            super().draw(data)
            return
        attrs = cursor.attrs
        cells = self._cells.setdefault(attrs, {})
        for char in set(text).difference(cells):
            cells[char] = attrs._replace(data=char)
        self.buffer[cursor.y].update(zip(range(start, start + len(text)), map(cells.__getitem__, text), strict=True))
        cursor.x = start + len(text)
        self.dirty.add(cursor.y)


_NARROW: set[str] = set()
"""Characters known to take one cell."""


def _narrow(text: str) -> bool:
    """Whether every character of ``text`` takes one cell (as pyte counts them)."""
    if text.isascii() and text.isprintable():
        return True
    new = set(text).difference(_NARROW)
    if all(pyte.screens.wcwidth(char) == 1 for char in new):
        _NARROW.update(new)
        return True
    return False


class Terminal:
    """A program in its own pseudo-terminal; what it draws is kept in a pyte screen."""

    CLOSE_WAIT = 10.0
    """Seconds :meth:`close` waits for the reader thread to end."""

    def __init__(
        self,
        argv: list[str],
        cols: int = 80,
        rows: int = 24,
        env: dict[str, str] | None = None,
        attributes: bool = False,
    ) -> None:
        self.screen = _TolerantScreen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.received = bytearray()
        self.attributes = attributes
        """Whether the screen keeps the cells' colours and styles (SGR sequences); without, they are
        taken out of the bytes before pyte parses them: :meth:`_for_screen`."""
        self._pending = b""
        self._version = 0
        self._text: tuple[int, str] = (-1, "")
        self._lock = threading.Lock()
        master, slave = os.openpty()
        self._set_size(slave, cols, rows)
        environment = {**os.environ, "TERM": "xterm-256color", **(env or {})}
        self.process = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=environment, start_new_session=True
        )
        os.close(slave)
        self.master = master
        self._closing = threading.Event()
        self._master_lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @staticmethod
    def _set_size(fd: int, cols: int, rows: int) -> None:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def _read(self) -> None:
        """The reader thread.  Once :meth:`close` was called it reads no more, and the pty is closed
        only when it has stopped: were the descriptor closed under it, its next ``read()`` (after a
        slow pyte ``feed``, or a long wait for a CPU on a busy machine) would read the *number*
        again, which the next pty opened may have been given -- it would take a share of that other
        terminal's bytes and tear its stream (tests/core/ssh/test_harness.py)."""
        poller = select.poll()
        poller.register(self.master, select.POLLIN)
        try:
            while not self._closing.is_set():
                if not poller.poll(READ_POLL * 1000):
                    continue
                try:
                    data = os.read(self.master, 65536)
                except OSError:
                    return
                arrived = time.monotonic()
                if not data:
                    return
                with self._lock:
                    self.received += data
                    try:
                        self.stream.feed(data if self.attributes else self._for_screen(data))
                    except Exception:  # a sequence pyte cannot parse: keep reading with a fresh parser
                        self.stream = pyte.ByteStream(self.screen)
                    self._version += 1
                    self._fed(arrived)
        finally:
            if self._closing.is_set():
                self._close_master()

    def _for_screen(self, data: bytes) -> bytes:
        """``data`` without its colour and style sequences (SGR, ``CSI ... m``), for a screen whose
        tests read only text.  They are half the bytes a room draws, and pyte parses escape sequences
        a character at a time in Python: without them pyte takes about 40% less CPU for the same
        text on the screen (bench/RESULTS.md, "The test suite's wall time").  A sequence cut at the
        end of a read waits for the rest of it."""
        data = self._pending + data
        cut = _PARTIAL_CSI.search(data)
        self._pending, data = (data[cut.start() :], data[: cut.start()]) if cut else (b"", data)
        return _SGR.sub(b"", data)

    def _close_master(self) -> None:
        with self._master_lock:
            if self.master >= 0:
                os.close(self.master)
                self.master = -1

    def _fed(self, arrived: float) -> None:
        """Called (holding the lock) after each read's bytes reached the screen; ``arrived``: when
        ``read()`` returned them (monotonic).  For subclasses that time screen changes."""

    def text(self) -> str:
        """The screen as lines of text (made again only once new bytes have reached it: the tests poll
        it many times a second, and pyte's ``display`` takes about 2 ms)."""
        with self._lock:
            version, text = self._text
            if version != self._version:
                text = "\n".join(self.screen.display)
                self._text = (self._version, text)
            return text

    def wait_for(self, needle: str, timeout: float = 20) -> str:
        """Wait until ``needle`` is on the screen; returns the screen."""

        def check() -> str | None:
            screen = self.text()
            if needle in screen:
                return screen
            if self.process.poll() is not None and not self._reader.is_alive():
                raise AssertionError(f"the program exited ({self.process.returncode})")
            return None

        try:
            return wait_until(check, timeout, repr(needle))  # type: ignore[return-value]
        except AssertionError as error:
            raise AssertionError(f"{error}\n--- screen ---\n{self.text()}") from None

    def send(self, data: bytes | str) -> None:
        os.write(self.master, data.encode() if isinstance(data, str) else data)

    def resize(self, cols: int, rows: int) -> None:
        """Resize the terminal the way a window manager would (the client gets SIGWINCH)."""
        self._set_size(self.master, cols, rows)
        with self._lock:
            self.screen.resize(rows, cols)
            self._version += 1
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGWINCH)

    def wait_exit(self, timeout: float = 15) -> int:
        return self.process.wait(timeout)

    def kill(self) -> None:
        """The client vanishes (no goodbye to the server)."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()

    def close(self) -> None:
        """Kill the program, stop the reader and close the pty; a reader still busy after
        :attr:`CLOSE_WAIT` seconds closes it itself when it stops."""
        self.kill()
        self._closing.set()
        self._reader.join(self.CLOSE_WAIT)
        if not self._reader.is_alive():
            self._close_master()


@pytest.fixture
def terminals() -> Iterator[Callable[..., Terminal]]:
    """``terminals(argv, cols, rows, env, attributes)`` opens a :class:`Terminal`; all are closed afterwards."""
    opened: list[Terminal] = []

    def open_terminal(
        argv: list[str], cols: int = 80, rows: int = 24, env: dict[str, str] | None = None, attributes: bool = False
    ) -> Terminal:
        terminal = Terminal(argv, cols, rows, env, attributes)
        opened.append(terminal)
        return terminal

    yield open_terminal
    for terminal in opened:
        terminal.close()
