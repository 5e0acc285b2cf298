"""``gamenight serve-ssh``: the game room over SSH, one process per connection.

Each connection that authenticates (public key, or ``--guest``) and asks for
an interactive session with a pty gets its own game room process in its own
pseudo-terminal (see :mod:`gamenight.ssh.child`).  Nothing else is reachable:
exec requests, subsystems (SFTP), port forwarding, X11 and agent forwarding
are refused.  Each user's saves and settings live in
``DATA_DIR/users/<id>/`` where the id comes from the key fingerprint or a hash
of the guest name (:mod:`gamenight.ssh.identity`); where the system allows it,
each room runs in user, mount and PID namespaces that hide everything of the
data dir but that folder (:mod:`gamenight.ssh.launch`).

Log lines are JSON objects on stderr, one per event: ``listening``,
``connect``, ``auth_ok``, ``auth_rejected_key``, ``auth_failed``, ``refused``,
``limit``, ``session_start``, ``session_end``, ``disconnect``, ``error``,
``stopping``.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TextIO

import asyncssh
import platformdirs

from gamenight.i18n import LANGUAGES, detect_language, load_catalogue_file, register_catalogue, translator
from gamenight.ssh.child import RoomProcess, clamp_size
from gamenight.ssh.identity import guest_user_id, key_user_id, load_or_create_host_key, user_dir
from gamenight.ssh.limits import RateLimiter, TokenBucket
from gamenight.themes import SIXTEEN_COLOUR_THEME

__all__ = ["Settings", "colour_depth", "main", "serve"]

LAUNCH = Path(__file__).with_name("launch.py")
UNSHARE = [
    "unshare",
    "--user",
    "--map-current-user",
    "--mount",
    "--propagation",
    "private",
    "--pid",
    "--fork",
    "--kill-child",
    "--mount-proc",
    "--",
]
"""New user, mount and PID namespaces with their own /proc; the room dies with ``unshare``."""
SANDBOX_PREFIX = ["setsid", "--ctty", *UNSHARE]
"""``setsid --ctty`` makes the pty the controlling terminal of the new session first."""
MAX_ENV_VARS = 64
ENV_NAMES = frozenset({"TERM", "LANG", "LANGUAGE", "COLORTERM"})
"""The client variables a room uses (with ``LC_*``); any other is dropped, never stored."""
MAX_ENV_VALUE = 256
"""Longest value kept of an accepted variable, in bytes (a longer one is dropped)."""
MAX_AUTH_TRIES = 6
"""Refused login attempts per connection (OpenSSH's MaxAuthTries), besides the client's first
``none`` probe; the next one ends the connection."""
MAX_REFUSED = 10
"""Refused requests (channel opens, forwardings, channel requests) per connection before it is closed."""
NOISY_LINES = 8
"""Log lines about refused requests and rejected keys per connection; the rest are only counted."""
EARLY_INPUT_LIMIT = 64 * 1024
"""Input that arrives before the room has started is kept up to this many bytes."""
RESIZE_DELAY = 0.05
"""A window-size change reaches the room this long after it arrives (later ones in between are merged)."""
RESIZE_INTERVAL = 0.25
"""...and at most one per this many seconds: each one makes the room lay out and redraw everything
(a storm of 7,004 resizes in 20 s cost a room 59% of a core at one per 50 ms)."""
EXPIRY_CHECK = 3600.0
"""Seconds between two sweeps of idle guest folders."""
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
ROOM_MEMORY = 1024
"""Default cap on each room's address space in MiB (``RLIMIT_AS``); an idle room uses about 200."""


@dataclass
class Settings:
    """Everything ``serve-ssh`` was started with."""

    host: str
    port: int
    data_dir: Path
    authorized_keys: Path | None
    guest: bool
    max_sessions: int = 64
    max_new_per_minute: int = 20
    idle_timeout: float = 1800.0
    login_timeout: float = 10.0
    max_pending: int = 32
    """Connections still logging in, counted apart from ``max_sessions``."""
    max_per_address: int = 10
    """Connections (logging in or logged in) from one address."""
    max_per_user: int = 3
    """Logged-in connections of one user (key, or guest name)."""
    grace: float = 5.0
    guest_expiry_days: float = 30.0
    """Guest folders unused for this many days are deleted (0: kept for ever)."""
    room_memory: int = ROOM_MEMORY
    """Cap on each room's address space in MiB (0: none)."""
    command: list[str] | None = None
    sandbox: str = "auto"
    """``auto`` (isolate each room if this system allows it), ``on`` (required) or ``off``."""
    isolated: bool = False
    """Whether rooms are isolated in this run (decided at start-up)."""


# -- messages: the operator's in the server's language, a client's in its own ---
DOMAIN = "gamenight.ssh"


@cache
def _catalogue(language: str) -> dict[str, str]:
    path = Path(__file__).with_name("locale") / f"{language}.toml"
    return load_catalogue_file(path) if path.exists() else {}


register_catalogue(DOMAIN, {language: _catalogue(language) for language in LANGUAGES if language != "en"})
_ = translator(DOMAIN)


def client_text(language: str, message: str, **values: object) -> str:
    """``message`` translated for one client (the room's global language is not touched)."""
    text = _catalogue(language).get(message, message) if language != "en" else message
    return text.format(**values) if values else text


def client_language(env: Mapping[str, str]) -> str | None:
    """The language the client asked for with ``LANG``/``LC_*``/``LANGUAGE``, if it sent any."""
    wanted = {name: env[name] for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG") if env.get(name)}
    if not wanted:
        return None
    language = detect_language(environ=wanted)
    return language if language in LANGUAGES else None


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


# -- the structured log ---------------------------------------------------------
class EventLog:
    """One JSON object per line; strings from clients are truncated and escaped by json.

    Lines about what clients do are rate-limited over the whole server (``LINES_PER_SECOND``
    on average, ``LINES_BURST`` at once); a ``suppressed`` line later counts what was left out.
    The server's own events (start, stop, rooms, errors) are always written.
    """

    LINES_PER_SECOND = 50
    LINES_BURST = 500
    ALWAYS = frozenset({"listening", "stopping", "session_start", "session_end", "error", "suppressed"})

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._bucket = TokenBucket(self.LINES_PER_SECOND, self.LINES_BURST)
        self.suppressed = 0

    def __call__(self, event: str, **fields: Any) -> None:
        if event not in self.ALWAYS and not self._bucket.take(1):
            self.suppressed += 1
            return
        if self.suppressed:
            count, self.suppressed = self.suppressed, 0
            self._write({"ts": round(time.time(), 3), "event": "suppressed", "lines": count})
        record: dict[str, Any] = {"ts": round(time.time(), 3), "event": event}
        for key, value in fields.items():
            if isinstance(value, str) and len(value) > 200:
                value = value[:200] + "..."
            record[key] = value
        self._write(record)

    def _write(self, record: dict[str, Any]) -> None:
        try:
            self._stream.write(json.dumps(record, ensure_ascii=True) + "\n")
            self._stream.flush()
        except (OSError, ValueError):  # a closed log must never take the server down
            pass


# -- the server ------------------------------------------------------------------
class Hub:
    """State shared by every connection: settings, limits, the log, open connections."""

    def __init__(self, settings: Settings, log: EventLog) -> None:
        self.settings = settings
        self.log = log
        self.rate = RateLimiter(settings.max_new_per_minute)
        self.connections: set[Connection] = set()
        """Every admitted connection, logging in or logged in."""
        self.pending: set[Connection] = set()
        """Connections still logging in."""
        self.sessions: set[Connection] = set()
        """Logged-in connections (what ``--max-sessions`` counts)."""
        self.endings: set[asyncio.Task[None]] = set()
        self.refused_waiting = 0
        """Connections turned away by a limit, waiting to be told why."""
        self._next_id = 0
        self._keys: tuple[float, asyncssh.SSHAuthorizedKeys] | None = None
        self.sweeper: asyncio.TimerHandle | None = None

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def authorized_keys(self) -> asyncssh.SSHAuthorizedKeys | None:
        """The authorized keys file, re-read when it changes (no restart to add a player)."""
        path = self.settings.authorized_keys
        if path is None:
            return None
        try:
            mtime = path.stat().st_mtime
            if self._keys is None or self._keys[0] != mtime:
                self._keys = (mtime, asyncssh.read_authorized_keys(str(path)))
        except (OSError, ValueError) as error:
            self.log("error", what="authorized_keys", detail=str(error))
            if self._keys is None:
                return None
        return self._keys[1]

    def from_address(self, peer: str) -> int:
        return sum(1 for connection in self.connections if connection.peer == peer)

    def of_user(self, user_id: str) -> int:
        return sum(1 for connection in self.sessions if connection.user_id == user_id)

    def expire_guests(self) -> None:
        """Delete guest folders nobody has used for ``--guest-expiry-days`` (never one in use)."""
        days = self.settings.guest_expiry_days
        users = self.settings.data_dir / "users"
        if days <= 0 or not users.is_dir():
            return
        cutoff = time.time() - days * 86400
        active = {connection.user_id for connection in self.connections}
        expired = 0
        for folder in users.iterdir():
            if not folder.name.startswith("g-") or folder.name in active or folder.is_symlink():
                continue
            try:
                if last_used(folder) >= cutoff:
                    continue
                shutil.rmtree(folder)
            except OSError as error:
                self.log("error", what="guest_expiry", detail=str(error))
                continue
            expired += 1
        if expired:
            self.log("guests_expired", folders=expired, days=days)

    def keep(self, task: asyncio.Task[None]) -> None:
        self.endings.add(task)
        task.add_done_callback(self.endings.discard)


class Connection(asyncssh.SSHServer):
    """One client connection: limits, authentication, and at most one game session."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.id = hub.new_id()
        self.conn: asyncssh.SSHServerConnection | None = None
        self.peer = "?"
        self.peer_port = 0
        self.username = ""
        self.user_id: str | None = None
        self.session: GameSession | None = None
        self.started = time.monotonic()
        self.last_input = self.started
        self.auth_tried = False
        self.refused_reason: str | None = None
        self._candidate: asyncssh.SSHKey | None = None
        self._refusal: tuple[int, str] | None = None
        self._idle_handle: asyncio.TimerHandle | None = None
        self._closing = False
        self.auth_failures = 0
        self.refused = 0
        self.unlogged = 0
        """Noisy log lines of this connection left out (see :data:`NOISY_LINES`)."""

    # -- connection lifetime --------------------------------------------------
    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername") or ("?", 0)
        self.peer, self.peer_port = str(peer[0]), int(peer[1])
        hub = self.hub
        if not hub.rate.allow(self.peer):
            self._refuse(
                "rate",
                asyncssh.DISC_TOO_MANY_CONNECTIONS,
                _("Too many new connections from your address; please wait a minute."),
            )
            return
        if len(hub.pending) >= hub.settings.max_pending:
            self._refuse(
                "pending", asyncssh.DISC_TOO_MANY_CONNECTIONS, _("The server is busy; please try again in a moment.")
            )
            return
        if hub.from_address(self.peer) >= hub.settings.max_per_address:
            self._refuse(
                "address",
                asyncssh.DISC_TOO_MANY_CONNECTIONS,
                _("Too many connections from your address; please try again later."),
            )
            return
        hub.connections.add(self)
        hub.pending.add(self)
        hub.log("connect", conn=self.id, peer=self.peer, port=self.peer_port, open=len(hub.connections))
        self._schedule_idle_check()
        # Count what the client is refused; asyncssh answers these without asking the server object.
        open_failure, auth_failure = conn.send_channel_open_failure, conn.send_userauth_failure
        global_response = conn._report_global_response

        def channel_open_failed(*args: Any, **kwargs: Any) -> None:
            open_failure(*args, **kwargs)
            self.count_refused()

        def auth_failed(partial_success: bool) -> None:
            auth_failure(partial_success)
            self.auth_failures += 1
            if self.auth_failures > MAX_AUTH_TRIES + 1:  # the first one is the client's "none" probe
                self.hub.log("limit", kind="auth_tries", conn=self.id, peer=self.peer, limit=MAX_AUTH_TRIES)
                self.close(
                    "auth_tries", _("Too many authentication failures."), asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE
                )

        def global_answered(result: Any) -> None:
            # Only requests asyncssh knows and the server refused (forwardings); an unknown one
            # may be an OpenSSH client's keepalive@openssh.com (ServerAliveInterval).
            known = conn._global_request_queue and callable(conn._global_request_queue[0][0])
            global_response(result)
            if result is False and known:
                self.count_refused()

        conn.send_channel_open_failure = channel_open_failed  # type: ignore[method-assign]
        conn.send_userauth_failure = auth_failed  # type: ignore[method-assign]
        conn._report_global_response = global_answered  # type: ignore[method-assign]

    def note(self, event: str, **fields: Any) -> None:
        """Log a line about something refused, at most :data:`NOISY_LINES` per connection."""
        if self.unlogged or self.auth_failures + self.refused >= NOISY_LINES:
            self.unlogged += 1
            return
        self.hub.log(event, conn=self.id, peer=self.peer, **fields)

    def count_refused(self) -> None:
        """One more refused request; too many close the connection."""
        self.refused += 1
        if self.refused >= MAX_REFUSED:
            self.hub.log("limit", kind="refused", conn=self.id, peer=self.peer, limit=MAX_REFUSED)
            self.close("refused", _("Too many refused requests."))

    def _refuse(self, kind: str, code: int, reason: str) -> None:
        """Turn the client away.  The SSH disconnect message (which clients show) can only be
        sent once the version exchange is done, so it waits for the first auth request; while
        too many refused connections are already waiting, the socket is just dropped."""
        hub = self.hub
        self.refused_reason = kind
        hub.log(
            "limit", kind=kind, conn=self.id, peer=self.peer, open=len(hub.connections), limit=self._limit_value(kind)
        )
        assert self.conn is not None
        if hub.refused_waiting >= hub.settings.max_sessions:
            self.conn.abort()
            return
        hub.refused_waiting += 1
        self._refusal = (code, reason)

    def _limit_value(self, kind: str) -> float:
        settings = self.hub.settings
        return {
            "rate": settings.max_new_per_minute,
            "sessions": settings.max_sessions,
            "pending": settings.max_pending,
            "address": settings.max_per_address,
            "user": settings.max_per_user,
            "idle": settings.idle_timeout,
        }[kind]

    def connection_lost(self, exc: Exception | None) -> None:
        if self._idle_handle is not None:
            self._idle_handle.cancel()
        if self.refused_reason in ("rate", "pending", "address"):
            if self._refusal is not None:
                self.hub.refused_waiting -= 1
            return
        self.hub.connections.discard(self)
        self.hub.pending.discard(self)
        self.hub.sessions.discard(self)
        if self.session is not None:
            self.session.end()
        if self.user_id is None and self.auth_tried:
            self.hub.log("auth_failed", conn=self.id, peer=self.peer, user=self.username)
        self.hub.log(
            "disconnect",
            conn=self.id,
            peer=self.peer,
            user_id=self.user_id,
            seconds=round(time.monotonic() - self.started, 3),
            reason=str(exc) if exc else (self.refused_reason or "closed"),
            open=len(self.hub.connections),
            auth_failures=self.auth_failures,
            refused=self.refused,
            unlogged=self.unlogged,
        )

    def close(self, kind: str, reason: str, code: int = asyncssh.DISC_BY_APPLICATION) -> None:
        """Disconnect this client with ``reason`` (shown by OpenSSH)."""
        if self._closing or self.conn is None:
            return
        self._closing = True
        self.refused_reason = kind
        self.conn.disconnect(code, reason)

    # -- idle timeout ---------------------------------------------------------
    def touch(self) -> None:
        """The client typed something."""
        self.last_input = time.monotonic()

    def _schedule_idle_check(self) -> None:
        timeout = self.hub.settings.idle_timeout
        if timeout <= 0:
            return
        delay = max(0.0, self.last_input + timeout - time.monotonic())
        self._idle_handle = asyncio.get_running_loop().call_later(delay + 0.01, self._idle_check)

    def _idle_check(self) -> None:
        timeout = self.hub.settings.idle_timeout
        if time.monotonic() - self.last_input < timeout:
            self._schedule_idle_check()
            return
        self.hub.log("limit", kind="idle", conn=self.id, peer=self.peer, user_id=self.user_id, limit=timeout)
        language = self.session.language if self.session else "en"
        message = client_text(language, "Disconnected after {seconds} seconds without input.", seconds=int(timeout))
        if self.session is not None:
            self.session.say(message)
        self.close("idle", message)

    # -- authentication -------------------------------------------------------
    def begin_auth(self, username: str) -> bool:
        if self._refusal is not None and self.conn is not None:
            self.conn.disconnect(*self._refusal)
            return True
        self.username = username[:64]
        if self.hub.settings.guest:
            user_id = guest_user_id(username)
            if not self._admit(user_id):
                return True
            self.user_id = user_id
            self.hub.log(
                "auth_ok", conn=self.id, peer=self.peer, user=self.username, user_id=self.user_id, method="guest"
            )
            return False
        if len(self.hub.sessions) >= self.hub.settings.max_sessions:  # no need to check a key
            self._admit(None)
            return True
        self.auth_tried = True
        return True

    def _admit(self, user_id: str | None) -> bool:
        """Move a connection that has logged in (as ``user_id``) from the pending ones to the
        sessions, or disconnect it with the reason when the server or this user is full."""
        hub, settings = self.hub, self.hub.settings
        if len(hub.sessions) >= settings.max_sessions:
            kind, message = "sessions", _("The server is full; please try again later.")
        elif user_id is not None and hub.of_user(user_id) >= settings.max_per_user:
            kind, message = "user", _("You are connected too many times already; close another session first.")
        else:
            hub.pending.discard(self)
            hub.sessions.add(self)
            return True
        hub.log(
            "limit",
            kind=kind,
            conn=self.id,
            peer=self.peer,
            user_id=user_id,
            open=len(hub.sessions),
            limit=self._limit_value(kind),
        )
        self.close(kind, message, asyncssh.DISC_TOO_MANY_CONNECTIONS)
        return False

    def public_key_auth_supported(self) -> bool:
        return not self.hub.settings.guest

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        keys = self.hub.authorized_keys()
        options = keys.validate(key, self.peer, self.peer) if keys is not None else None
        if options is None:
            self.note("auth_rejected_key", user=self.username, key=key.get_fingerprint())
            return False
        # The last key accepted here is the one whose signature completes the login.
        self._candidate = key
        return True

    def auth_completed(self) -> None:
        if self.hub.settings.guest or self._candidate is None:
            return
        user_id = key_user_id(self._candidate)
        if not self._admit(user_id):
            return
        self.user_id = user_id
        self.hub.log(
            "auth_ok",
            conn=self.id,
            peer=self.peer,
            user=self.username,
            user_id=self.user_id,
            method="publickey",
            key=self._candidate.get_fingerprint(),
        )

    # -- what the client may open ---------------------------------------------
    def session_requested(self) -> tuple[asyncssh.SSHServerChannel, GameSession]:
        if self.session is not None or self.user_id is None:
            self.note("refused", kind="second_session")
            raise asyncssh.ChannelOpenError(
                asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, _("Only one game room per connection.")
            )
        self.session = GameSession(self)
        assert self.conn is not None
        channel = self.conn.create_server_channel(encoding=None)
        channel.__class__ = GameChannel  # same object, with the environment capped
        return channel, self.session  # type: ignore[return-value]

    def _refuse_forward(self, kind: str) -> bool:
        self.note("refused", kind=kind, user_id=self.user_id)
        return False

    def connection_requested(self, dest_host: str, dest_port: int, orig_host: str, orig_port: int) -> bool:
        return self._refuse_forward("local_forward")

    def server_requested(self, listen_host: str, listen_port: int) -> bool:
        return self._refuse_forward("remote_forward")

    def unix_connection_requested(self, dest_path: str) -> bool:
        return self._refuse_forward("local_forward_unix")

    def unix_server_requested(self, listen_path: str) -> bool:
        return self._refuse_forward("remote_forward_unix")

    def tun_requested(self, unit: int | None) -> bool:
        return self._refuse_forward("tun")

    def tap_requested(self, unit: int | None) -> bool:
        return self._refuse_forward("tap")


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

    def connection_made(self, chan: asyncssh.SSHServerChannel) -> None:
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any) -> bool:
        self.pty = True
        self.term = _safe_term(term_type)
        self.size = (term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        # Accepted only to answer with a message and a failing exit status; nothing runs.
        self.refusal = "exec"
        self.hub.log(
            "refused",
            kind="exec",
            conn=self.owner.id,
            peer=self.owner.peer,
            user_id=self.owner.user_id,
            command=command,
        )
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
            self.hub.log("refused", kind="no_pty", conn=self.owner.id, peer=self.owner.peer, user_id=self.owner.user_id)
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
        self.chan.write_stderr(("gamenight: " + message + "\r\n").encode())
        self.chan.exit(1)

    async def _start_room(self, client_env: Mapping[str, str]) -> None:
        owner = self.owner
        assert self.chan is not None and owner.user_id is not None
        settings = self.hub.settings
        home = user_dir(settings.data_dir, owner.user_id)
        with contextlib.suppress(OSError):
            os.utime(home)  # in use: guest expiry counts from here
        depth = colour_depth(self.term, client_env)
        argv = build_command(settings, home, depth)
        env = build_environment(home, self.term, depth, client_language(client_env))
        room = RoomProcess(
            argv,
            env,
            str(home),
            self.size,
            self._output,
            self._room_exited,
            self._input_blocked,
            new_session=not settings.isolated,  # setsid starts the session when isolated
            hangup_ignored=settings.isolated,
        )  # see gamenight.ssh.launch.run_as_init
        try:
            await room.start()
        except OSError as error:
            self.hub.log("error", what="spawn", conn=owner.id, detail=str(error))
            if not self._ended:
                self._refuse(client_text(self.language, "The game room could not be started."))
            return
        self.room = room
        self._started_at = time.monotonic()
        cols, rows = clamp_size(*self.size)
        self.hub.log(
            "session_start",
            conn=owner.id,
            peer=owner.peer,
            user_id=owner.user_id,
            pid=room.pid,
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
                self.hub.log(
                    "limit",
                    kind="input",
                    conn=self.owner.id,
                    peer=self.owner.peer,
                    user_id=self.owner.user_id,
                    limit=INPUT_RATE,
                )
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
        # bytes; a character split across two packets is kept until it is complete.
        data = self._utf8.decode(data).encode("utf-8")
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
    """The last non-empty line of a text file (its tail only), for the server's log."""
    with path.open("rb") as file:
        file.seek(max(0, path.stat().st_size - limit))
        tail = file.read().decode("utf-8", "replace")
    lines = [line for line in tail.splitlines() if line.strip() and not line.startswith("---")]
    return lines[-1][:300] if lines else ""


def last_used(folder: Path) -> float:
    """The newest modification time of ``folder`` and everything in it."""
    newest = folder.lstat().st_mtime
    for root, directories, files in os.walk(folder):
        for name in directories + files:
            with contextlib.suppress(OSError):
                newest = max(newest, os.lstat(os.path.join(root, name)).st_mtime)
    return newest


# -- the child's command line and environment ----------------------------------------
def build_command(settings: Settings, home: Path, depth: str) -> list[str]:
    """The room's argv: the first stage (:mod:`gamenight.ssh.launch`), then the real room or
    ``--command`` with ``{user_dir}``, ``{saves}``, ``{config}`` and ``{colours}`` filled in."""
    saves, config = home / "saves", home / "config.toml"
    memory = ["--memory", str(settings.room_memory * 1024 * 1024)] if settings.room_memory > 0 else []
    if settings.isolated:
        launcher = [
            *SANDBOX_PREFIX,
            sys.executable,
            "-I",
            "-S",
            str(LAUNCH),
            *memory,
            "--hide",
            str(settings.data_dir),
            str(home),
            "--",
        ]
    else:
        launcher = [sys.executable, "-I", "-S", str(LAUNCH), "--ctty", *memory, "--"]
    if settings.command is None:
        argv = [sys.executable, "-m", "gamenight", "--saves", str(saves), "--config", str(config)]
        if depth == "16":
            argv += ["--theme", SIXTEEN_COLOUR_THEME]
        return launcher + argv
    values = {"{user_dir}": str(home), "{saves}": str(saves), "{config}": str(config), "{colours}": depth}
    argv = []
    for part in settings.command:
        for placeholder, value in values.items():
            part = part.replace(placeholder, value)
        argv.append(part)
    return launcher + argv


def sandbox_works(data_dir: Path) -> bool:
    """Whether rooms can be isolated here (util-linux ``setsid``/``unshare``, user, mount and PID
    namespaces open to this user)."""
    if not (shutil.which("setsid") and shutil.which("unshare")):
        return False
    users = data_dir / "users"
    users.mkdir(mode=0o700, exist_ok=True)
    try:
        probe = subprocess.run(
            [
                *UNSHARE,
                sys.executable,
                "-I",
                "-S",
                str(LAUNCH),
                "--hide",
                str(data_dir),
                str(users),
                "--probe",
                "--",
                "true",
            ],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def build_environment(home: Path, term: str, depth: str, language: str | None) -> dict[str, str]:
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
    return env


# -- running it ---------------------------------------------------------------------
async def serve(settings: Settings, log: EventLog, ready: asyncio.Future[int] | None = None) -> None:
    """Run the server until SIGINT/SIGTERM (or cancellation); ``ready`` gets the bound port."""
    settings.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    host_key, created = load_or_create_host_key(settings.data_dir)
    settings.isolated = settings.sandbox != "off" and sandbox_works(settings.data_dir)
    if settings.sandbox == "on" and not settings.isolated:
        raise ValueError(_("--sandbox on: this system does not allow user, mount and PID namespaces"))
    hub = Hub(settings, log)
    loop = asyncio.get_running_loop()

    def sweep() -> None:
        hub.expire_guests()
        hub.sweeper = loop.call_later(EXPIRY_CHECK, sweep)

    sweep()
    if settings.authorized_keys is not None and hub.authorized_keys() is None:
        raise ValueError(f"cannot read authorized keys from {settings.authorized_keys}")
    acceptor = await asyncssh.create_server(
        lambda: Connection(hub),
        settings.host,
        settings.port,
        server_host_keys=[host_key],
        encoding=None,
        line_editor=False,
        allow_pty=True,
        x11_forwarding=False,
        agent_forwarding=False,
        allow_scp=False,
        sftp_factory=None,
        password_auth=False,
        kbdint_auth=False,
        host_based_auth=False,
        gss_kex=False,
        gss_auth=False,
        login_timeout=settings.login_timeout,
        keepalive_interval=30,
        keepalive_count_max=3,
    )
    port = acceptor.get_port()
    log(
        "listening",
        host=settings.host,
        port=port,
        data_dir=str(settings.data_dir),
        auth="guest" if settings.guest else "keys",
        host_key=host_key.get_fingerprint(),
        host_key_created=created,
        isolated=settings.isolated,
        max_sessions=settings.max_sessions,
        max_new_per_minute=settings.max_new_per_minute,
        idle_timeout=settings.idle_timeout,
        room_memory=settings.room_memory,
        max_pending=settings.max_pending,
        max_per_address=settings.max_per_address,
        max_per_user=settings.max_per_user,
        login_timeout=settings.login_timeout,
        guest_expiry_days=settings.guest_expiry_days,
    )
    if ready is not None and not ready.done():
        ready.set_result(port)
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        log("stopping", open=len(hub.connections))
        if hub.sweeper is not None:
            hub.sweeper.cancel()
        acceptor.close()
        for connection in list(hub.connections):
            connection.close("shutdown", _("The server is shutting down."))
        # Each closed connection ends its room (SIGHUP/SIGTERM, SIGKILL after the grace period).
        deadline = loop.time() + settings.grace + 5
        while (hub.connections or hub.endings) and loop.time() < deadline:
            if hub.endings:
                await asyncio.wait(set(hub.endings), timeout=max(0.0, deadline - loop.time()))
            else:
                await asyncio.sleep(0.05)
        await acceptor.wait_closed()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gamenight serve-ssh",
        description=_("Host the game room over SSH: every connection gets its own room in a terminal."),
    )
    parser.add_argument(
        "--host", default="127.0.0.1", metavar="ADDRESS", help=_("address to listen on (default %(default)s)")
    )
    parser.add_argument(
        "--port", type=int, default=2222, metavar="PORT", help=_("port to listen on (default %(default)s)")
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help=_("host key and per-user saves and settings (default: the user data dir)"),
    )
    auth = parser.add_mutually_exclusive_group()
    auth.add_argument(
        "--authorized-keys",
        type=Path,
        metavar="FILE",
        help=_("admit the public keys in FILE (OpenSSH authorized_keys format)"),
    )
    auth.add_argument(
        "--guest", action="store_true", help=_("admit anyone, without a password; the user name picks the saves")
    )
    parser.add_argument(
        "--max-sessions",
        type=int,
        default=64,
        metavar="N",
        help=_("most logged-in connections at once (default %(default)s)"),
    )
    parser.add_argument(
        "--max-pending",
        type=int,
        default=32,
        metavar="N",
        help=_("most connections still logging in at once, apart from the sessions (default %(default)s)"),
    )
    parser.add_argument(
        "--max-per-address",
        type=int,
        default=10,
        metavar="N",
        help=_("most connections at once from one address (default %(default)s)"),
    )
    parser.add_argument(
        "--max-per-user",
        type=int,
        default=3,
        metavar="N",
        help=_("most sessions at once of one user: a key, or a guest name (default %(default)s)"),
    )
    parser.add_argument(
        "--login-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help=_("close a connection that has not logged in after this many seconds (default %(default)s)"),
    )
    parser.add_argument(
        "--max-new-per-minute",
        type=int,
        default=20,
        metavar="N",
        help=_("most new connections per minute from one address (default %(default)s)"),
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=1800.0,
        metavar="SECONDS",
        help=_("disconnect after this many seconds without input (default %(default)s; 0 = never)"),
    )
    parser.add_argument(
        "--guest-expiry-days",
        type=float,
        default=30.0,
        metavar="DAYS",
        help=_("delete a guest's saves and settings after this many days unused (default %(default)s; 0 = never)"),
    )
    parser.add_argument(
        "--room-memory",
        type=int,
        default=ROOM_MEMORY,
        metavar="MIB",
        help=_(
            "cap each room's address space at this many MiB; a room that needs more ends, "
            "its autosave kept (default %(default)s; 0 = no cap)"
        ),
    )
    parser.add_argument(
        "--sandbox",
        choices=("auto", "on", "off"),
        default="auto",
        help=_(
            "run each room where only its user's folder of the data dir is visible "
            "(user, mount and PID namespaces): auto = when the system allows it (default)"
        ),
    )
    parser.add_argument("--command", help=argparse.SUPPRESS)
    parser.add_argument("--grace", type=float, default=5.0, help=argparse.SUPPRESS)
    return parser


def main(argv: list[str]) -> int:
    """Entry point of ``gamenight serve-ssh``; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.guest and args.authorized_keys is None:
        print(
            _(
                "gamenight serve-ssh: choose who may connect: --authorized-keys FILE (public keys) "
                "or --guest (anyone, no password)."
            ),
            file=sys.stderr,
        )
        return 2
    if args.authorized_keys is not None and not args.authorized_keys.is_file():
        print(_("gamenight serve-ssh: no authorized keys file at {path}.", path=args.authorized_keys), file=sys.stderr)
        return 2
    for name in ("max_sessions", "max_new_per_minute", "max_pending", "max_per_address", "max_per_user"):
        if getattr(args, name) < 1:
            parser.error(_("--{option} must be at least 1", option=name.replace("_", "-")))
    if args.login_timeout <= 0:
        parser.error(_("--{option} must be at least 1", option="login-timeout"))
    data_dir = args.data_dir or Path(platformdirs.user_data_dir("gamenight")) / "ssh"
    settings = Settings(
        host=args.host,
        port=args.port,
        data_dir=data_dir.resolve(),
        authorized_keys=args.authorized_keys,
        guest=args.guest,
        max_sessions=args.max_sessions,
        max_new_per_minute=args.max_new_per_minute,
        max_pending=args.max_pending,
        max_per_address=args.max_per_address,
        max_per_user=args.max_per_user,
        login_timeout=args.login_timeout,
        guest_expiry_days=args.guest_expiry_days,
        idle_timeout=args.idle_timeout,
        grace=args.grace,
        sandbox=args.sandbox,
        room_memory=args.room_memory,
        command=shlex.split(args.command) if args.command else None,
    )
    log = EventLog(sys.stderr)
    try:
        asyncio.run(serve(settings, log))
    except (OSError, ValueError) as error:
        log("error", what="startup", detail=str(error))
        print(_("gamenight serve-ssh: {error}", error=error), file=sys.stderr)
        return 1
    return 0
