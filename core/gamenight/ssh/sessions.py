"""One game session: the room process on its pty, and the bytes, sizes and signals between it and the client.

Each connection that logged in and asks for an interactive session with a pty
gets its own game room process in its own pseudo-terminal (see
:mod:`gamenight.ssh.child`); exec requests get a message and a failing exit status.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import socket
import stat
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import asyncssh

from gamenight.ssh.child import RoomProcess, clamp_size
from gamenight.ssh.identity import user_dir
from gamenight.ssh.limits import TokenBucket
from gamenight.ssh.messages import client_language, client_text
from gamenight.ssh.sandbox import build_command, room_settings
from gamenight.ssh.template import TemplateRoom, TemplateUnavailable
from gamenight.ssh.terminal_input import TerminalStrings
from gamenight.text import reconnect_command

if TYPE_CHECKING:
    from gamenight.ssh.auth import Connection

__all__ = [
    "CRASH_LOG_NAME",
    "ENV_NAMES",
    "NOTICE",
    "PUBLIC_HOST",
    "RECONNECT",
    "TABLES_FD",
    "GameChannel",
    "GameSession",
    "build_environment",
    "code_notice",
    "colour_depth",
    "last_line",
]

MAX_ENV_VARS = 64
ENV_NAMES = frozenset({"TERM", "LANG", "LANGUAGE", "COLORTERM"})
"""The client variables a room uses (with ``LC_*``); any other is dropped, never stored."""
MAX_ENV_VALUE = 256
"""Longest value kept of an accepted variable, in bytes (a longer one is dropped)."""
EARLY_INPUT_LIMIT = 64 * 1024
"""Input that arrives before the room has started is kept up to this many bytes."""
RESIZE_DELAY = 0.05
"""A window-size change reaches the room this long after it arrives (later ones in between are merged)."""
RESIZE_INTERVAL = 0.25
"""...and at most one per this many seconds: each one makes the room lay out and redraw everything
(a storm of 7,004 resizes in 20 s cost a room 59% of a core at one per 50 ms)."""
INPUT_RATE = 1024
"""Bytes of input per second a room is given on average.  Textual turns every byte into a queued
event and never stops reading its terminal, so input faster than a room can handle would pile up
in the room's memory (a client typing 4 KB every 10 ms grew a room by about 10 MB a second), and
each key costs the room about 0.15 ms of CPU.  1 KiB/s is about 50 times a fast typist and more
than a moving mouse reports; a flooding client can take about 15% of a core."""
INPUT_BURST = 4 * 1024
"""Bytes of input a room is given at once (a paste); beyond the rate and this, input is dropped."""
PASTE_START, PASTE_END = b"\x1b[200~", b"\x1b[201~"
"""The brackets of a pasted text (bracketed paste mode)."""


def colour_depth(term: str, client_env: Mapping[str, str]) -> str:
    """``"truecolor"``, ``"256"`` or ``"16"`` from the client's TERM (and COLORTERM, if sent)."""
    if client_env.get("COLORTERM", "").lower() in ("truecolor", "24bit"):
        return "truecolor"
    term = term.lower()
    if term.endswith("-direct") or "truecolor" in term or "24bit" in term:
        return "truecolor"
    if "256color" in term:
        return "256"
    return "16"


def _safe_term(term: str | None) -> str:
    term = (term or "").strip()
    if not term or len(term) > 64 or not all(ch.isascii() and (ch.isalnum() or ch in "-_.+") for ch in term):
        return "xterm"
    return term


class GameChannel(asyncssh.SSHServerChannel):
    """A session channel that keeps only the client variables a room uses, each small.

    asyncssh stores every ``env`` request; without a filter one client could grow the
    server's memory without end (8 connections x 64 variables x 250 KB took it from 51 to
    306 MB).  Kept: ``TERM``, ``LANG``, ``LANGUAGE``, ``COLORTERM`` and ``LC_*``, values of at
    most :data:`MAX_ENV_VALUE` bytes, at most :data:`MAX_ENV_VARS` of them.  Other refused
    channel requests are counted against the connection (:data:`MAX_REFUSED`).
    """

    dropped_env = 0

    def _process_env_request(self, packet: Any) -> bool:
        name, value = packet.get_string(), packet.get_string()
        packet.check_end()
        wanted = name in _ENV_NAMES_BYTES or (name.startswith(b"LC_") and len(name) <= 32)
        if not wanted or len(value) > MAX_ENV_VALUE or len(self.get_environment_bytes()) >= MAX_ENV_VARS:
            self.dropped_env += 1
            return False
        self._env[name] = value
        return True

    def _report_response(self, result: bool) -> None:
        request = self._request_queue[0][0] if self._request_queue else ""
        super()._report_response(result)
        session = self._session
        if not result and request not in HARMLESS_REQUESTS and isinstance(session, GameSession):
            session.owner.count_refused()


_ENV_NAMES_BYTES = frozenset(name.encode() for name in ENV_NAMES)
HARMLESS_REQUESTS = frozenset(
    {"env", "eow@openssh.com", "keepalive@openssh.com", "break", "signal", "xon-xoff", "window-change"}
)
"""Channel requests an ordinary client sends on its own; refusing them does not count against it."""


class GameSession(asyncssh.SSHServerSession):
    """The one session channel of a connection: a game room on a pty, or a refusal message."""

    def __init__(self, owner: Connection) -> None:
        self.owner = owner
        self.hub = owner.hub
        self.chan: asyncssh.SSHServerChannel | None = None
        self.pty = False
        self.term = "xterm"
        self.size = (80, 24)
        self.refusal: str | None = None
        self.language = "en"
        self.room: RoomProcess | None = None
        self._pending_size: tuple[int, int] | None = None
        self._early = bytearray()
        self._utf8 = codecs.getincrementaldecoder("utf-8")("ignore")
        self._strings = TerminalStrings()
        self._input = TokenBucket(INPUT_RATE, INPUT_BURST)
        self.input_dropped = 0
        self._in_paste = False
        """Whether the room has been sent the start of a bracketed paste but not its end."""
        self._resize_handle: asyncio.TimerHandle | None = None
        self._resized_at = float("-inf")
        self._ended = False
        self._terminating = False
        self._starter: asyncio.Task[None] | None = None
        self._started_at = 0.0
        self._tables: asyncio.StreamWriter | None = None
        """The server's end of this session's connection to the table service."""

    def connection_made(self, chan: asyncssh.SSHServerChannel) -> None:
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any) -> bool:
        self.pty = True
        self.term = _safe_term(term_type)
        self.size = (term_size[0], term_size[1])
        return True

    def _log_about_client(self, event: str, **fields: object) -> None:
        """A log line about what this session's client did, naming the connection, address and user."""
        self.hub.log(event, conn=self.owner.id, peer=self.owner.peer, user_id=self.owner.user_id, **fields)

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        # Accepted only to answer with a message and a failing exit status; nothing runs.
        self.refusal = "exec"
        self._log_about_client("refused", kind="exec", command=command)
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        self.owner.note("refused", kind="subsystem", user_id=self.owner.user_id, subsystem=subsystem)
        return False

    def session_started(self) -> None:
        assert self.chan is not None
        env = self.chan.get_environment()
        self.language = client_language(env) or "en"
        if self.refusal == "exec":
            self._refuse(
                client_text(
                    self.language,
                    "This server only offers the gamenight game room; "
                    "commands are not available. Connect without a command.",
                )
            )
            return
        if not self.pty:
            self._log_about_client("refused", kind="no_pty")
            self._refuse(
                client_text(
                    self.language,
                    "The game room needs a terminal: connect with "
                    "ssh -t (your client did not request a pseudo-terminal).",
                )
            )
            return
        self._starter = asyncio.get_running_loop().create_task(self._start_room(env))

    def _refuse(self, message: str) -> None:
        assert self.chan is not None
        if self.owner.new_code is not None:  # the new guest's only chance to learn its code
            message += " " + code_notice(
                self.language, self.owner.username, self.owner.new_code, self.hub.settings.public_host
            )
            self.owner.new_code = None
        self.chan.write_stderr(("gamenight: " + message + "\r\n").encode())
        self.chan.exit(1)

    async def _start_room(self, client_env: Mapping[str, str]) -> None:
        owner = self.owner
        assert self.chan is not None and owner.user_id is not None
        settings = self.hub.settings
        home = user_dir(settings.data_dir, owner.user_id)
        with contextlib.suppress(OSError):
            os.utime(home)  # in use: guest expiry counts from here
        reconnect = f"{owner.username}+{owner.new_code}" if owner.new_code is not None else None
        notice = self._tell_code(owner.username, owner.new_code) if owner.new_code is not None else None
        depth = colour_depth(self.term, client_env)
        # The room's end of its connection to the table service; the server's end is served as
        # this connection's authenticated identity (never anything the room or client says).
        ours, theirs = socket.socketpair() if self.hub.tables is not None else (None, None)
        tables_fd = theirs.fileno() if theirs is not None else None
        env = build_environment(
            home,
            self.term,
            depth,
            client_language(client_env),
            tables_fd,
            notice,
            reconnect,
            public_host=settings.public_host if reconnect else None,
        )
        template = self.hub.templates.get() if self.hub.templates is not None else None
        room: RoomProcess | None = None
        if template is not None:
            room = TemplateRoom(
                template,
                room_settings(settings, home, depth, env),
                tables_fd,
                self.size,
                self._output,
                self._room_exited,
                self._input_blocked,
            )
            try:
                await room.start()
            except TemplateUnavailable as error:  # spawned instead
                self.hub.log("error", what="template", conn=owner.id, detail=str(error))
                room = None
            except BaseException:
                if ours is not None:
                    ours.close()
                if theirs is not None:
                    theirs.close()
                raise
        try:
            if room is None:
                room = RoomProcess(
                    build_command(settings, home, depth),
                    env,
                    str(home),
                    self.size,
                    self._output,
                    self._room_exited,
                    self._input_blocked,
                    new_session=not settings.isolated,  # setsid starts the session when isolated
                    hangup_ignored=settings.isolated,
                    pass_fds=() if tables_fd is None else (tables_fd,),
                )  # see gamenight.ssh.launch.run_as_init
                await room.start()
        except OSError as error:
            self.hub.log("error", what="spawn", conn=owner.id, detail=str(error))
            if not self._ended:
                self._refuse(client_text(self.language, "The game room could not be started."))
            if ours is not None:
                ours.close()
            return
        except BaseException:
            if ours is not None:
                ours.close()
            raise
        finally:
            if theirs is not None:
                theirs.close()  # the room holds it now
        self.room = room
        self._started_at = time.monotonic()
        if ours is not None:
            await self._serve_tables(ours)
        cols, rows = clamp_size(*self.size)
        self.hub.log(
            "session_start",
            conn=owner.id,
            peer=owner.peer,
            user_id=owner.user_id,
            pid=room.pid,
            forked=isinstance(room, TemplateRoom),
            term=self.term,
            colours=depth,
            cols=cols,
            rows=rows,
            env_dropped=getattr(self.chan, "dropped_env", 0),
        )
        if self._ended:  # the client left while the room was starting
            self._stop_room()
            return
        if self._pending_size is not None:
            self._apply_size()
        if self._early:
            room.write(bytes(self._early))
            self._early.clear()

    def _tell_code(self, name: str, code: str) -> str:
        """Show a new keyless guest its reconnect code, once, before its room starts (it stays on
        the terminal's main screen, under the room's, and is there again when the room ends);
        returns the text, for the room to show too (:data:`NOTICE`)."""
        assert self.chan is not None
        self.owner.new_code = None
        text = code_notice(self.language, name, code, self.hub.settings.public_host)
        with contextlib.suppress(OSError):
            self.chan.write(("\r\n" + text + "\r\n\r\n").encode())
        return text

    async def _serve_tables(self, ours: socket.socket) -> None:
        """Hand the server's end of the room's socket to the table service for this session."""
        tables, owner = self.hub.tables, self.owner
        assert tables is not None and owner.user_id is not None
        try:
            reader, writer = await asyncio.open_connection(sock=ours)
        except OSError as error:
            ours.close()
            self.hub.log("error", what="tables", conn=owner.id, detail=str(error))
            return
        self._tables = writer
        self.hub.keep(
            asyncio.get_running_loop().create_task(
                tables.serve(reader, writer, owner.user_id, owner.username, owner.peer)
            )
        )
        if self._ended:
            self._close_tables()

    def _close_tables(self) -> None:
        """The session is over: the service sees the connection end (and marks the seat away)."""
        if self._tables is not None:
            self._tables.close()
            self._tables = None

    # -- data both ways ---------------------------------------------------------
    def _output(self, data: bytes) -> None:
        if self.chan is not None and not self._ended:
            try:
                self.chan.write(data)
            except (BrokenPipeError, OSError):
                pass

    def _input_blocked(self, blocked: bool) -> None:
        if self.chan is None or self._ended:
            return
        if blocked:
            self.chan.pause_reading()
        else:
            self.chan.resume_reading()

    def data_received(self, data: bytes, datatype: Any) -> None:
        self.owner.touch()
        # A room takes input at a bounded rate; what comes faster is dropped whole (a chunk is what
        # the client sent at once, so a key's escape sequence is kept or dropped entire).
        if not self._input.take(len(data)):
            if not self.input_dropped:
                self._log_about_client("limit", kind="input", limit=INPUT_RATE)
            self.input_dropped += len(data)
            if self._in_paste:  # the end of a paste was dropped: end it, or every later key joins the paste
                self._in_paste = False
                if self.room is not None:
                    self.room.write(PASTE_END)
            return
        if b"\x1b[20" in data:
            start, end = data.rfind(PASTE_START), data.rfind(PASTE_END)
            if start != end:
                self._in_paste = start > end
        # The room reads UTF-8 (and Textual's input thread dies on anything else): drop invalid
        # bytes; a character split across two packets is kept until it is complete.  Control strings
        # (OSC, DCS, APC...) are no keys: dropped whole, not read by Textual as Alt+] and typed text.
        data = self._strings.feed(self._utf8.decode(data)).encode("utf-8")
        if self.room is not None:
            self.room.write(data)
        elif len(self._early) < EARLY_INPUT_LIMIT:  # typed while the room is being started
            self._early += data[: EARLY_INPUT_LIMIT - len(self._early)]

    def eof_received(self) -> bool:
        return True  # keep the room until the channel closes

    def pause_writing(self) -> None:
        if self.room is not None:
            self.room.pause_output()

    def resume_writing(self) -> None:
        if self.room is not None:
            self.room.resume_output()

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self.size = (width, height)
        self._pending_size = (width, height)
        if self._resize_handle is None:
            delay = max(RESIZE_DELAY, self._resized_at + RESIZE_INTERVAL - time.monotonic())
            self._resize_handle = asyncio.get_running_loop().call_later(delay, self._apply_size)

    def _apply_size(self) -> None:
        self._resize_handle = None
        if self._pending_size is not None and self.room is not None:
            self.room.resize(*self._pending_size)
            self._pending_size = None
            self._resized_at = time.monotonic()

    def say(self, message: str) -> None:
        """Show a line to the client (used just before a disconnect)."""
        self._output(("\r\n\x1b[0m" + message + "\r\n").encode())

    # -- ending -----------------------------------------------------------------
    def _room_exited(self, returncode: int) -> None:
        self._close_tables()
        self.hub.log(
            "session_end",
            conn=self.owner.id,
            user_id=self.owner.user_id,
            returncode=returncode,
            seconds=round(time.monotonic() - self._started_at, 3),
            input_dropped=self.input_dropped,
        )
        if returncode == 1 and self.owner.user_id is not None:
            crash_log = user_dir(self.hub.settings.data_dir, self.owner.user_id) / CRASH_LOG_NAME
            with contextlib.suppress(OSError):
                if time.time() - crash_log.stat().st_mtime < 60:
                    self.hub.log(
                        "room_crashed",
                        conn=self.owner.id,
                        user_id=self.owner.user_id,
                        crash_log=str(crash_log),
                        error=last_line(crash_log),
                    )
        if self.chan is not None and not self._ended:
            self._ended = True
            with contextlib.suppress(OSError):
                self.chan.exit(returncode if 0 <= returncode < 256 else 1)

    def connection_lost(self, exc: Exception | None) -> None:
        self.end()

    def end(self) -> None:
        """The client is gone: end the room's process group (idempotent)."""
        if self._resize_handle is not None:
            self._resize_handle.cancel()
            self._resize_handle = None
        self._ended = True
        self._close_tables()
        self._stop_room()

    def _stop_room(self) -> None:
        room = self.room
        if room is None or room.returncode is not None or self._terminating:
            return
        self._terminating = True
        self.hub.keep(asyncio.get_running_loop().create_task(room.terminate(self.hub.settings.grace)))


CRASH_LOG_NAME = "crash.log"
"""In each user's folder: the tracebacks of their room's unexpected errors (see GameNightApp)."""


def last_line(path: Path, limit: int = 4096) -> str:
    """The last non-empty line of a text file (its tail only), for the server's log.  The file is
    the room's: a link (to a file only the server may read) or anything but a regular file (a FIFO
    would block the server) is an :class:`OSError`."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY)
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"not a regular file: {path}")
        file.seek(max(0, info.st_size - limit))
        tail = file.read(limit).decode("utf-8", "replace")
    lines = [line for line in tail.splitlines() if line.strip() and not line.startswith("---")]
    return lines[-1][:300] if lines else ""


def code_notice(language: str, name: str, code: str, public_host: str | None = None) -> str:
    """What a new keyless guest is told, once: how to come back under its name -- the whole ssh
    command where the server knows the address its players use (``--public-host``), else in words
    that need none (never an address to fill in, which a guest would copy as it is)."""
    if public_host:
        return client_text(
            language,
            "Welcome, {name}: this name is now yours on this server. You connected without a key, so "
            "come back with the user name {name}+{code}: {command}. "
            "The code is shown only this once: note it down.",
            name=name,
            code=code,
            command=reconnect_command(f"{name}+{code}", public_host),
        )
    return client_text(
        language,
        "Welcome, {name}: this name is now yours on this server. You connected without a key, so "
        "come back with the user name {name}+{code}: the same ssh command as this time, with that "
        "user name. The code is shown only this once: note it down.",
        name=name,
        code=code,
    )


TABLES_FD = "GAMENIGHT_TABLES_FD"
"""The room's variable naming its end of the session's connection to the table service (a file
descriptor number of a connected stream socket speaking :mod:`gamenight.tables.protocol` frames).
Set by the server only: the client's own variables never pass the allow-list (:data:`ENV_NAMES`)."""


NOTICE = "GAMENIGHT_NOTICE"
"""A message from the server the room shows once in its lobby (a new guest's reconnect code)."""

RECONNECT = "GAMENIGHT_RECONNECT"
"""A new keyless guest's user name with its reconnect code (``name+CODE``): the room keeps it where
the player can read it again (the lobby, a table's title bar, the command palette)."""

PUBLIC_HOST = "GAMENIGHT_PUBLIC_HOST"
"""With :data:`RECONNECT`: the address players reach the server at (``--public-host``), so that the
room can show the whole command that brings the guest back."""


def build_environment(
    home: Path,
    term: str,
    depth: str,
    language: str | None,
    tables_fd: int | None = None,
    notice: str | None = None,
    reconnect: str | None = None,
    public_host: str | None = None,
) -> dict[str, str]:
    """A fresh environment: nothing of the server's leaks in but PATH and PYTHONPATH."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "GAMENIGHT_CONFIG": str(home / "config.toml"),
        "GAMENIGHT_CRASH_LOG": str(home / CRASH_LOG_NAME),  # the host reads it; the client sees no traceback
        "GAMENIGHT_HOSTED": "1",
        "TERM": term,
        "LANG": "C.UTF-8",
        # One thread for numpy's maths library: with a thread (and its buffers) per core on a big
        # machine, the room's address space would pass its --room-memory cap at import.
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
    }
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    if depth == "truecolor":
        env["COLORTERM"] = "truecolor"
    if language is not None:
        env["GAMENIGHT_LANG"] = language
    if tables_fd is not None:
        env[TABLES_FD] = str(tables_fd)
    if notice:
        env[NOTICE] = notice
    if reconnect:
        env[RECONNECT] = reconnect
    if public_host:
        env[PUBLIC_HOST] = public_host
    return env
