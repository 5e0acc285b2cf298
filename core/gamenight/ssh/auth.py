"""Who may connect, and how often: keys, guests, the connection limits and refusal caps.

One :class:`Hub` holds what every connection shares (settings, the log, the open
connections, the authorized keys); one :class:`Connection` per client applies the
limits, authenticates it, refuses everything but one game session and counts
what it is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import asyncssh

from gamenight.compat.asyncssh_internals import on_refused_global_request
from gamenight.ssh.guests import DatabaseGuestBook, Guest, GuestBook, GuestsUnavailable, NameTaken, split_code
from gamenight.ssh.identity import key_user_id
from gamenight.ssh.limits import RateLimiter
from gamenight.ssh.log import EventLog
from gamenight.ssh.messages import _, client_text
from gamenight.ssh.sessions import GameChannel, GameSession
from gamenight.ssh.settings import Settings
from gamenight.tables.names import usable_name

if TYPE_CHECKING:
    from gamenight.ssh.shared_limits import SharedLimits
    from gamenight.ssh.template import TemplateKeeper
    from gamenight.tables.service import TableService

__all__ = ["MAX_AUTH_TRIES", "MAX_REFUSED", "NOISY_LINES", "Connection", "Hub", "last_used"]

MAX_AUTH_TRIES = 6
"""Refused login attempts per connection (OpenSSH's MaxAuthTries), besides the client's first
``none`` probe; the next one ends the connection."""
MAX_REFUSED = 10
"""Refused requests (channel opens, forwardings, channel requests) per connection before it is closed."""
NOISY_LINES = 8
"""Log lines about refused requests and rejected keys per connection; the rest are only counted."""
GUESTS_POOL_TIMEOUT_S = 3.0
"""How long a login waits for the guest names' database (well within ``--login-timeout``)."""

T = TypeVar("T")


class Hub:
    """State shared by every connection: settings, limits, the log, open connections."""

    def __init__(self, settings: Settings, log: EventLog, tables: TableService | None = None) -> None:
        self.settings = settings
        self.log = log
        self.tables = tables
        """The shared tables' service every room is connected to (``None``: ``--tables off``)."""
        self.rate = RateLimiter(settings.max_new_per_minute)
        self.new_guests = RateLimiter(settings.max_new_guests_per_hour, window=3600.0)
        """New guest names bound per address in any hour (``--max-new-guests-per-hour``)."""
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
        self.templates: TemplateKeeper | None = None
        """The room template rooms are forked from (``None``: every room is spawned)."""
        self.guests: GuestBook | DatabaseGuestBook | None = None
        """Who each guest name belongs to (``--guest``): :mod:`gamenight.ssh.guests`; with ``--records-url``
        in the server-wide database, one book for every host."""
        self._expiring: asyncio.Task[None] | None = None
        self.shared: SharedLimits | None = None
        """With ``--tables-url``: sessions per identity and per address counted with every other host's."""
        self.shared_down = False
        """Whether the shared counts could not be reached at the last try (said once in the log)."""
        if settings.tables_url:
            from gamenight.ssh.shared_limits import SharedLimits  # redis: only with --tables-url

            self.shared = SharedLimits.connect(settings.tables_url)
        if settings.guest:
            self.guests = _database_book(settings, log) if settings.records_url else GuestBook(settings.data_dir, log)

    async def guests_do(self, method: Callable[..., T], *args: Any) -> T:
        """A call of the guest book: in a thread when it blocks (a database), else here and now (the
        file's book: no other connection runs between a look and a bind)."""
        if self.guests is not None and self.guests.blocking:
            return await asyncio.to_thread(method, *args)
        return method(*args)

    def close(self) -> None:
        """Let go of what the hub holds open (the guest names' database connections)."""
        if isinstance(self.guests, DatabaseGuestBook):
            self.guests.close()
        if self._expiring is not None:
            self._expiring.cancel()

    def shared_unreachable(self, error: Exception) -> None:
        """Redis (``--tables-url``) did not answer a limit's count: said once, until it answers again."""
        if not self.shared_down:
            self.shared_down = True
            self.log("error", what="shared_limits", detail=f"{error}; counting this host's sessions only")

    def shared_reached(self) -> None:
        if self.shared_down:
            self.shared_down = False
            self.log("shared_limits", detail="counting every host's sessions again")

    async def aclose(self) -> None:
        """:meth:`close`, and this host's shared counts removed at once."""
        self.close()
        if self.shared is not None:
            await self.shared.close()

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
        """Delete guest folders and free guest names nobody has used for ``--guest-expiry-days``
        (never one in use).  With the names in a database, they are freed in a thread first."""
        days = self.settings.guest_expiry_days
        if days <= 0:
            return
        cutoff = time.time() - days * 86400
        active = {connection.user_id for connection in self.connections if connection.user_id is not None}
        book = self.guests
        if book is None or not book.blocking:
            self._expire_folders(
                cutoff, active, {guest.user_id for guest in book.expire(cutoff, active)} if book else set()
            )
            return
        if self._expiring is not None and not self._expiring.done():
            return

        async def in_thread() -> None:
            try:
                gone = await asyncio.to_thread(book.expire, cutoff, active)
            except GuestsUnavailable:
                return  # logged by the book; the next sweep tries again
            self._expire_folders(cutoff, active, {guest.user_id for guest in gone})

        self._expiring = asyncio.get_running_loop().create_task(in_thread())

    def _expire_folders(self, cutoff: float, active: set[str], forgotten: set[str]) -> None:
        days = self.settings.guest_expiry_days
        users = self.settings.data_dir / "users"
        if forgotten:
            self.log("guest_names_expired", names=len(forgotten), days=days)
        if not users.is_dir():
            return
        expired = 0
        for folder in users.iterdir():
            if not folder.name.startswith("g-") or folder.name in active or folder.is_symlink():
                continue
            if folder.name in forgotten:  # its name is free again: nobody could reach the folder
                try:
                    shutil.rmtree(folder)
                except OSError as error:
                    self.log("error", what="guest_expiry", detail=str(error))
                    continue
                expired += 1
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
        """The user name the client sent (a guest's without its reconnect code)."""
        self.user_id: str | None = None
        self.guest: Guest | None = None
        """The guest name this connection logged in under (``--guest``)."""
        self.new_code: str | None = None
        """A keyless guest's new reconnect code, shown once when its room starts."""
        self._told_taken = False
        self._settled: asyncio.Event | None = None
        """Set once a login that waits for the guest names' database is settled (let in or refused)."""
        self._session_asked = False
        self._rate_checked = False
        self._counted: list[str] = []
        """The shared counts (``--tables-url``) this session holds, released when it ends."""
        self._lost = False
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
        over = self._over_limit()
        if over is not None:
            self._refuse(*over)
            return
        hub.connections.add(self)
        hub.pending.add(self)
        hub.log("connect", conn=self.id, peer=self.peer, port=self.peer_port, open=len(hub.connections))
        self._schedule_idle_check()
        # Count what the client is refused; asyncssh answers these without asking the server object.
        open_failure, auth_failure = conn.send_channel_open_failure, conn.send_userauth_failure

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

        conn.send_channel_open_failure = channel_open_failed  # type: ignore[method-assign]
        conn.send_userauth_failure = auth_failed  # type: ignore[method-assign]
        on_refused_global_request(conn, self.count_refused)  # forwardings, not keepalives (gamenight.compat)

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

    def _over_limit(self) -> tuple[str, str] | None:
        """The limit a new connection is over (``--max-new-per-minute``, ``--max-pending``,
        ``--max-per-address``) and what the client is told, or ``None``."""
        hub, settings = self.hub, self.hub.settings
        if not hub.rate.allow(self.peer):  # records the connection when it is allowed
            return "rate", _("Too many new connections from your address; please wait a minute.")
        if len(hub.pending) >= settings.max_pending:
            return "pending", _("The server is busy; please try again in a moment.")
        if hub.from_address(self.peer) >= settings.max_per_address:
            return "address", _("Too many connections from your address; please try again later.")
        return None

    def _refuse(self, kind: str, reason: str) -> None:
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
        self._refusal = (asyncssh.DISC_TOO_MANY_CONNECTIONS, reason)

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
        self._lost = True
        if self._idle_handle is not None:
            self._idle_handle.cancel()
        if self._counted and self.hub.shared is not None:
            self.hub.keep(asyncio.get_running_loop().create_task(self._release_shared()))
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
    async def begin_auth(self, username: str) -> bool:
        if self._refusal is not None and self.conn is not None:
            self.conn.disconnect(*self._refusal)
            return True
        if not self._rate_checked:  # this host counted it at connect; every host's together, here
            self._rate_checked = True
            if not await self._shared_rate("connect", self.hub.settings.max_new_per_minute, 60.0):
                self._refuse_now("rate", _("Too many new connections from your address; please wait a minute."))
                return True
        if self.hub.settings.guest:
            try:
                return await self._begin_guest(username)
            except GuestsUnavailable:
                self._guests_unavailable()
                return True
        self.username = username[:64]
        if len(self.hub.sessions) >= self.hub.settings.max_sessions:  # no need to check a key
            self._admit(None)
            return True
        self.auth_tried = True
        return True

    # -- guests: a name belongs to the key it was first used with, or to a reconnect code --------
    async def _begin_guest(self, username: str) -> bool:
        """A guest names itself: ``NAME`` (then a key, or nothing) or ``NAME+CODE``."""
        assert self.hub.guests is not None
        name, code = split_code(username[:128])
        self.username = usable_name(name[:64], "guest")
        self.auth_tried = True
        if len(self.hub.sessions) >= self.hub.settings.max_sessions:  # told before any login
            self._admit(None)
            return True
        if code is None:
            return True  # the client's keys, then keyboard-interactive (nothing to type)
        guest = await self.hub.guests_do(self.hub.guests.find, self.username)
        if guest is not None and self.hub.guests.has_code(guest, code):
            return not await self._guest_in(guest, "guest_code")
        self.auth_failures += 1
        self.hub.log("auth_failed", conn=self.id, peer=self.peer, user=self.username, method="guest_code")
        self.close(
            "guest_code",
            _("Wrong reconnect code for the name {name}.", name=self.username),
            asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE,
        )
        return True

    async def _guest_in(self, guest: Guest, method: str, **fields: Any) -> bool:
        """The connection logs in as ``guest`` (if the server and the user have room)."""
        assert self.hub.guests is not None
        if self.user_id is None and self.conn is not None and not self._counted:
            if self not in self.hub.sessions and not self._admit(guest.user_id):
                return False
            if not await self._admit_shared(guest.user_id):
                return False
        self.user_id, self.guest = guest.user_id, guest
        with contextlib.suppress(GuestsUnavailable):  # logged in all the same: the name is theirs
            await self.hub.guests_do(self.hub.guests.touch, guest)
        self.hub.log(
            "auth_ok", conn=self.id, peer=self.peer, user=self.username, user_id=self.user_id, method=method, **fields
        )
        return True

    def _name_taken(self) -> None:
        self.hub.log("auth_failed", conn=self.id, peer=self.peer, user=self.username, method="name_taken")
        self.close(
            "name_taken",
            _(
                "The name {name} is taken on this server; pick another name, or connect with the key "
                "you first used (or as {name}+CODE with your reconnect code).",
                name=self.username,
            ),
            asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE,
        )

    def _guests_unavailable(self) -> None:
        """The guest names cannot be checked now: refused with the reason (never let in unchecked)."""
        self.hub.log("auth_failed", conn=self.id, peer=self.peer, user=self.username, method="guests_unavailable")
        self.close(
            "guests_unavailable",
            _("The guest names cannot be checked right now; please try again in a minute."),
            asyncssh.DISC_SERVICE_NOT_AVAILABLE,
        )

    async def _guest_completed(self) -> None:
        """A guest's key (checked by its signature) or keyboard-interactive login went through."""
        try:
            await self._guest_completed_checked()
        except GuestsUnavailable:
            self._guests_unavailable()

    async def _guest_completed_checked(self) -> None:
        book = self.hub.guests
        assert book is not None
        guest, key = await self.hub.guests_do(book.find, self.username), self._candidate
        if self._closing:
            return
        if guest is not None:  # the name was bound already (maybe a moment ago, by another connection)
            if key is not None and book.has_key(guest, key.public_data):
                await self._guest_in(guest, "guest_key", key=key.get_fingerprint())
            else:
                self._name_taken()
            return
        if await self.hub.guests_do(book.full):
            self.hub.log("limit", kind="guests", conn=self.id, peer=self.peer, limit=book.limit)
            self.close(
                "guests",
                _("This server has no room for another guest name; please try again later."),
                asyncssh.DISC_TOO_MANY_CONNECTIONS,
            )
            return
        if not self.hub.new_guests.allow(self.peer) or not await self._shared_rate(
            "new_guest", self.hub.settings.max_new_guests_per_hour, 3600.0
        ):
            limit = self.hub.settings.max_new_guests_per_hour
            self.hub.log("limit", kind="new_guests", conn=self.id, peer=self.peer, limit=limit)
            self.close(
                "new_guests",
                _("Too many new guest names from your address; come back with a name you have used, or later."),
                asyncssh.DISC_TOO_MANY_CONNECTIONS,
            )
            return
        if not self._admit(None):  # a new name is bound only once the server has room for it
            return
        try:
            if key is not None:
                guest = await self.hub.guests_do(book.bind_key, self.username, key.public_data)
                fields: dict[str, Any] = {"key": key.get_fingerprint()}
            else:
                bound = await self.hub.guests_do(book.bind_code, self.username)
                guest, self.new_code = bound if bound is not None else (None, None)
                fields = {}
        except NameTaken:  # another host bound it (or a look-alike) a moment before this one
            self._name_taken()
            return
        if guest is None:  # filled up meanwhile, on another host
            self.hub.log("limit", kind="guests", conn=self.id, peer=self.peer, limit=book.limit)
            self.close(
                "guests",
                _("This server has no room for another guest name; please try again later."),
                asyncssh.DISC_TOO_MANY_CONNECTIONS,
            )
            return
        self.hub.log("guest_bound", user=self.username, user_id=guest.user_id, with_key=key is not None)
        await self._guest_in(guest, "guest_key" if key is not None else "guest_new", **fields)

    def kbdint_auth_supported(self) -> bool:
        return self.hub.settings.guest

    async def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        """A guest without a key (or whose keys were not the name's): a free name is theirs at
        once, with nothing to type; a bound name is refused with the reason."""
        self._candidate = None  # a key offered but never signed for proves nothing
        book = self.hub.guests
        if book is None:
            return False
        try:
            found = await self.hub.guests_do(book.find, self.username)
        except GuestsUnavailable:
            self._guests_unavailable()
            return False
        if found is None:
            return True  # auth_completed binds it (to a new code: no key was signed for)
        self._name_taken()
        return False

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
        return True  # a guest's key binds its name

    async def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        book = self.hub.guests
        if book is not None:  # asyncssh checks the signature after this, before auth_completed
            try:
                guest = await self.hub.guests_do(book.find, self.username)
            except GuestsUnavailable:
                self._guests_unavailable()
                return False
            if guest is not None and not book.has_key(guest, key.public_data):
                self.note("auth_rejected_key", user=self.username, key=key.get_fingerprint())
                if not self._told_taken and self.conn is not None:  # the client may have the right key next
                    self._told_taken = True
                    self.conn.send_auth_banner(
                        _(
                            "The name {name} is taken on this server by another key or a reconnect code: "
                            "the key {key} cannot log in as {name}.",
                            name=self.username,
                            key=key.get_fingerprint(),
                        )
                        + "\r\n"
                    )
                return False
            if guest is not None and self.hub.of_user(guest.user_id) >= self.hub.settings.max_per_user:
                self._admit(guest.user_id)  # refused with the reason now, not after the login
                return False
            self._candidate = key
            return True
        keys = self.hub.authorized_keys()
        options = keys.validate(key, self.peer, self.peer) if keys is not None else None
        if options is None:
            self.note("auth_rejected_key", user=self.username, key=key.get_fingerprint())
            return False
        # The last key accepted here is the one whose signature completes the login.
        self._candidate = key
        return True

    async def auth_completed(self) -> None:
        if self.user_id is not None or self._closing:
            return
        # asyncssh has told the client it is in: a session it asks for meanwhile waits for this
        self._settled = asyncio.Event()
        try:
            if self.hub.settings.guest:
                await self._guest_completed()
            elif self._candidate is not None:
                await self._key_completed(self._candidate)
        finally:
            self._settled.set()

    async def _key_completed(self, key: asyncssh.SSHKey) -> None:
        user_id = key_user_id(key)
        if not self._admit(user_id) or not await self._admit_shared(user_id):
            return
        self.user_id = user_id
        self.hub.log(
            "auth_ok",
            conn=self.id,
            peer=self.peer,
            user=self.username,
            user_id=self.user_id,
            method="publickey",
            key=key.get_fingerprint(),
        )

    # -- the limits every host shares (--tables-url) ----------------------------------
    async def _admit_shared(self, user_id: str) -> bool:
        """Count this session with every host's (``--max-per-user``, ``--max-per-address`` for all of them
        together), or disconnect it with the reason.  Redis unreachable: this host's own limits, already
        checked, are all that hold, and the log says so once."""
        hub, settings = self.hub, self.hub.settings
        shared = hub.shared
        if shared is None:
            return True
        from gamenight.ssh.shared_limits import address_field, user_field
        from gamenight.tables.redis_store import StoreError

        limits = {user_field(user_id): settings.max_per_user, address_field(self.peer): settings.max_per_address}
        try:
            refused = await shared.admit(limits)
        except StoreError as error:
            hub.shared_unreachable(error)
            return True
        hub.shared_reached()
        if refused is None:
            self._counted = list(limits)
            if self._lost:  # gone while it was counted: not a session any more
                await self._release_shared()
                return False
            return True
        field, total = refused
        if field.startswith("u:"):
            kind, message = "user", _("You are connected too many times already; close another session first.")
        else:
            kind, message = "address", _("Too many connections from your address; please try again later.")
        hub.log(
            "limit",
            kind=kind,
            conn=self.id,
            peer=self.peer,
            user_id=user_id,
            open=total,
            limit=self._limit_value(kind),
            hosts="all",
        )
        self.close(kind, message, asyncssh.DISC_TOO_MANY_CONNECTIONS)
        return False

    async def _shared_rate(self, kind: str, limit: int, window: float) -> bool:
        """Whether every host together has room for one more ``kind`` of event from this address (recorded
        if so); ``True`` without ``--tables-url`` or while Redis cannot be reached (this host's own rate,
        checked before, holds)."""
        shared = self.hub.shared
        if shared is None or limit <= 0:
            return True
        from gamenight.tables.redis_store import StoreError

        try:
            allowed = await shared.allow(kind, self.peer, limit, window)
        except StoreError as error:
            self.hub.shared_unreachable(error)
            return True
        self.hub.shared_reached()
        return allowed

    def _refuse_now(self, kind: str, reason: str) -> None:
        """A limit every host shares turned this connection away: logged like this host's own, then closed."""
        self.hub.log("limit", kind=kind, conn=self.id, peer=self.peer, limit=self._limit_value(kind), hosts="all")
        # (not the kind itself: a connection refused at connect by this host's own limit was never counted)
        self.close(f"{kind}_all_hosts", reason, asyncssh.DISC_TOO_MANY_CONNECTIONS)

    async def _release_shared(self) -> None:
        counted, self._counted = self._counted, []
        if not counted or self.hub.shared is None:
            return
        from gamenight.tables.redis_store import StoreError

        with contextlib.suppress(StoreError):  # lost with Redis: the count lapses with this host's ttl
            await self.hub.shared.release(counted)

    # -- what the client may open ---------------------------------------------
    def session_requested(self) -> tuple[asyncssh.SSHServerChannel, Any]:
        settling = self._settled is not None and not self._settled.is_set() and self.user_id is None
        if self.session is not None or self._session_asked or (self.user_id is None and not settling):
            self.note("refused", kind="second_session")
            raise asyncssh.ChannelOpenError(
                asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, _("Only one game room per connection.")
            )
        self._session_asked = True
        assert self.conn is not None
        channel = self.conn.create_server_channel(encoding=None)
        channel.__class__ = GameChannel  # same object, with the environment capped
        if settling:  # the guest names' database has not answered yet: the room waits for it
            return channel, self._session_once_settled()
        self.session = GameSession(self)
        return channel, self.session

    async def _session_once_settled(self) -> GameSession:
        assert self._settled is not None
        await self._settled.wait()
        if self.user_id is None or self._closing:
            raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, _("Not logged in."))
        self.session = GameSession(self)
        return self.session

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


def _database_book(settings: Settings, log: EventLog) -> DatabaseGuestBook:
    """The guest names in the server-wide database (``--records-url``): opened (and migrated) now."""
    from gamenight.records.postgres import PostgresRecordsStore  # psycopg: only with --records-url
    from gamenight.records.store import RecordsUnavailable

    assert settings.records_url is not None
    try:
        store = PostgresRecordsStore.open(settings.records_url, pool_timeout=GUESTS_POOL_TIMEOUT_S)
    except RecordsUnavailable as error:
        raise ValueError(" ".join(str(error).split())) from None  # one line at start, no traceback
    book = DatabaseGuestBook(store, settings.data_dir, log)
    try:
        imported = book.import_file()
    except GuestsUnavailable:
        imported = None  # logged; the file stays for the next start
    if imported is not None:
        log("guest_names_imported", names=imported[0], bound_already=imported[1])
    return book


def last_used(folder: Path) -> float:
    """The newest modification time of ``folder`` and everything in it."""
    newest = folder.lstat().st_mtime
    for root, directories, files in os.walk(folder):
        for name in directories + files:
            with contextlib.suppress(OSError):
                newest = max(newest, os.lstat(os.path.join(root, name)).st_mtime)
    return newest
