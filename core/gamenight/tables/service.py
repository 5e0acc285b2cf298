"""The table service: one asyncio authority over every shared table of a server.

The server (``serve-ssh``) makes one connection per SSH session -- a
socketpair whose other end goes to that session's room -- and hands it to
:meth:`TableService.serve` together with the session's *identity* (its key
fingerprint or guest name) and display name.  The room never names itself, so
it can act only for the seat its identity holds.

For every table the service owns the :class:`~gamenight.match.Match`: it
applies moves, draws chance from each game's own fresh secret seed (drawn when
that game starts, never sent to a room before the game is over), runs bots in worker
threads from their seat's view only, and sends each connection only its own
seat's view (watchers :func:`~gamenight.sdk.observer_view`).  Every move is
saved (the ordinary save format, plus the table's seats) under the data dir,
and a new service restores the running tables from there.

A hosted room's game of one person against bots is a *solo table* here too
(``OpenTable(solo=True)``): chance and bots run on the server, the seat waits
for its person however long they are away, and they come back to it from their
lobby (``ListKept``, then ``Join``).  A room never sends a game it played for
the records (``SoloGame`` is refused).

The service also keeps the server-wide records (``DATA_DIR/records.sqlite3``,
:mod:`gamenight.records.store`), which no sandboxed room can reach: every
finished game of its tables, one record per game.  The database is used from one
thread of its own, never from the event loop.  Rooms ask for the hall of fame
(the best scores and the latest games) with :class:`~gamenight.tables.protocol.HallQuery`.

This module is the service's front door (life cycle, connections, the dispatch of every message,
refusals, the caps); the other parts of :class:`TableService` are modules of their own, listed in
its docstring and in docs/architecture.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from gamenight.sdk import OBSERVER
from gamenight.tables import protocol as p
from gamenight.tables.authority import (
    LEASE_TTL,
    LOBBY_INTERVAL,
    RENEW_INTERVAL,
    SWEEP_INTERVAL,
    Authority,
    default_host_id,
)
from gamenight.tables.driver import Driver
from gamenight.tables.limits import Limits
from gamenight.tables.moves import CHAT_LIMIT, Moves
from gamenight.tables.names import usable_name
from gamenight.tables.persist import Persistence
from gamenight.tables.records_link import RECORDS_FILE, RecordsLink
from gamenight.tables.relay import OutboxReader, Relay, RelayLink
from gamenight.tables.seats import Seats
from gamenight.tables.table import Table, people_at_the_end
from gamenight.tables.views import LIST_INTERVAL, Views

__all__ = ["CHAT_LIMIT", "LIST_INTERVAL", "RECORDS_FILE", "Connection", "Table", "TableService", "people_at_the_end"]

log = logging.getLogger("gamenight.tables")

MAX_TABLES = 200
"""Shared tables a server keeps at once (the backstop behind the caps per identity and per address)."""
MAX_SOLO_TABLES = 500
"""Solo tables (one person and bots, kept until finished) a server keeps at once, apart from the shared ones."""
SOLO_TABLES_PER_ADDRESS = 15
"""Unfinished solo tables the other identities of one client address may keep (three guests' worth)."""
TABLES_PER_IDENTITY = 3
"""Open tables (waiting or playing) one identity may host at once."""
TABLES_PER_ADDRESS = 6
"""Open tables (waiting or playing) the identities of one client address may host at once."""
RELAYED = (p.Leave, p.Start, p.Move, p.Chat, p.Ack, p.Again)
"""The messages of a room relayed to a table another host runs that go to that host (the rest are this host's)."""
MAX_VIOLATIONS = 5
"""Refused requests (out of turn, bad chat...) a connection may make before it is cut off."""
SEND_BUFFER_CAP = 2 * p.SERVICE_FRAME_CAP
"""Bytes written to a connection and not yet read by its client: past this, the client is cut off."""


@dataclass
class Connection:
    """One client: its identity (from the server), the table it sits at or watches, its frames to send."""

    identity: str
    name: str
    writer: asyncio.StreamWriter
    address: str = ""
    """The SSH client's address (from the server; ``""``: not known, e.g. a local room)."""
    table: Table | None = None
    seat: int = OBSERVER
    violations: int = 0
    messages: p.RateLimiter = field(default_factory=lambda: p.RateLimiter(rate=20, burst=40))
    """Messages of any kind: a person sends a few a second; a room that sends more is cut off."""
    chats: p.RateLimiter = field(default_factory=lambda: p.RateLimiter(rate=1, burst=3))
    illegal: p.RateLimiter = field(default_factory=lambda: p.RateLimiter(rate=0.5, burst=10))
    """Moves the rules refuse: a person's mistakes (the room sends them to learn why) do not count
    towards a cut-off at a person's pace; faster ones do."""
    closed: bool = False
    log_sent: int = 0
    """How many of its table's move descriptions this connection has been sent in snapshots."""
    shown: str = ""
    """The name it is shown under while it watches a table (unique there:
    :func:`~gamenight.tables.table.names_but`)."""
    listing: bool = False
    """It asked for the table list: it is sent again when the tables change (while it sits at none)."""
    list_sent: bytes = b""
    """The last table list frame it was sent (an unchanged list is not sent again)."""
    halls: p.RateLimiter = field(default_factory=lambda: p.RateLimiter(rate=1, burst=5))
    """Hall of fame queries and name settings."""
    pending: list[bytes] = field(default_factory=list)
    """Frames not written yet: written together by :meth:`flush` (one system call)."""
    flush_soon: bool = False
    held: list[bytes] | None = None
    """Frames waiting for its table's moves to be written to Redis (with ``--tables-url``): a move is
    shown to no one before it is durable.  Frames after those wait behind them (order is kept)."""
    held_bytes: int = 0
    """Bytes of :attr:`held`: past :data:`SEND_BUFFER_CAP` the client is cut off (memory stays bounded)."""
    relay: RelayLink | None = None
    """With the tables in Redis: the table another host runs that this host relays this room to."""
    relayed_from: tuple[str, str, str] | None = None
    """A connection another host relays here: that host's id, its connection id, the table's id."""

    def send(self, message: msgspec.Struct) -> None:
        """Queue ``message``; it is written when the request being handled is done, or on the loop's next turn."""
        if not self.closed:
            self.send_frame(p.encode(message))

    def send_frame(self, frame: bytes) -> None:
        """Queue an encoded frame (one encoded once for many connections)."""
        if self.closed:
            return
        if self.held is None:
            table = self.table
            if table is None or table.logged >= table.applied:
                return self.send_now(frame)
            self.held, self.held_bytes = [], 0
            table.holding.append(self)
        self.held.append(frame)
        self.held_bytes += len(frame)
        if self.held_bytes > SEND_BUFFER_CAP:  # Redis away for long: bounded, as a client that does not read
            log.warning(
                "%s cut off: %d bytes waiting for its table's moves to be written", self.identity, SEND_BUFFER_CAP
            )
            self.closed, self.held = True, None
            self.writer.transport.abort()

    def send_now(self, frame: bytes) -> None:
        """Queue a frame ahead of any held ones (what the service says about the table store itself)."""
        if self.closed:
            return
        self.pending.append(frame)
        if not self.flush_soon:
            self.flush_soon = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Write every pending frame now, at once (the transport sends at once, or buffers)."""
        self.flush_soon = False
        if not self.pending:
            return
        frames, self.pending = self.pending, []
        if self.writer.is_closing():
            return
        self.writer.write(b"".join(frames))
        if self.writer.transport.get_write_buffer_size() > SEND_BUFFER_CAP:
            # A client that does not read is cut off, not buffered without end (and not waited for:
            # a close would keep the socket until the client read what is buffered).
            log.warning("%s cut off: %d bytes it does not read", self.identity, SEND_BUFFER_CAP)
            self.closed = True
            self.writer.transport.abort()

    def close(self) -> None:
        """Send what is pending, then hang up (the transport writes out its buffer before it closes)."""
        if not self.closed:
            self.closed = True
            self.flush()
            self.writer.close()


class TableService(Seats, Moves, Views, Driver, Limits, RecordsLink, Persistence, Authority, Relay):
    """Every shared table of one server, and the connections to them.

    This class is the service's front door -- its life cycle, the connections it serves and the one
    place where each message of :mod:`~gamenight.tables.protocol` goes -- and the caps it keeps.  The
    rest is in its parts, one module each: :mod:`~gamenight.tables.seats`, :mod:`~gamenight.tables.moves`,
    :mod:`~gamenight.tables.views`, :mod:`~gamenight.tables.driver`, :mod:`~gamenight.tables.limits`,
    :mod:`~gamenight.tables.records_link`, :mod:`~gamenight.tables.persist` and (with the tables in Redis)
    :mod:`~gamenight.tables.authority`; they share this object's
    state (its tables and connections, on one event loop).
    """

    def __init__(
        self,
        registry: Any,
        data_dir: Path | None = None,
        *,
        away_timeout: float = 300.0,
        bot_time_budget: float = 2.0,
        seed: int | None = None,
        message_rate: tuple[float, float] = (20.0, 40.0),
        records: bool = True,
        tables_per_identity: int = TABLES_PER_IDENTITY,
        tables_per_address: int = TABLES_PER_ADDRESS,
        records_url: str | None = None,
        tables_url: str | None = None,
        store: Any = None,
        host_id: str | None = None,
        lease_ttl: float = LEASE_TTL,
        renew_interval: float = RENEW_INTERVAL,
        sweep_interval: float = SWEEP_INTERVAL,
        lobby_interval: float = LOBBY_INTERVAL,
    ) -> None:
        self.registry = registry
        self.tables_url = tables_url
        """The Redis that holds the tables (``serve-ssh --tables-url``), shared by every host of one game
        room; ``None``: the tables live here and under the data dir (and ``redis`` is never imported)."""
        self.store: Any = store
        """The :class:`~gamenight.tables.redis_store.RedisTableStore` (made by :meth:`start` from
        :attr:`tables_url`, or given: a test's, which it does not close); ``None``: no Redis."""
        self._own_store = store is None
        self.host_id = host_id or default_host_id()
        """This host's name on the leases of the tables it runs."""
        self.lease_ttl = lease_ttl
        self.renew_interval = renew_interval
        self.sweep_interval = sweep_interval
        self._sweeper: asyncio.Task[None] | None = None
        self.lobby_interval = lobby_interval
        self._lobby_reader: asyncio.Task[None] | None = None
        self._remote: dict[str, p.TableInfo] = {}
        self._relayed: dict[tuple[str, str], Connection] = {}
        self._relay_sending: dict[str, asyncio.Task[None]] = {}
        self._relay_tasks: set[asyncio.Task[None]] = set()
        self._outbox_readers: dict[str, OutboxReader] = {}
        self._taking: set[str] = set()
        self._takes: set[asyncio.Task[None]] = set()
        self.records_url = records_url
        """A PostgreSQL database for the server-wide records (``serve-ssh --records-url``), else the data dir's file."""
        self.tables_per_identity = tables_per_identity
        self.tables_per_address = tables_per_address
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self.keep_records = records and self.data_dir is not None
        """Keep the server-wide records under the data dir (opened by :meth:`start`)."""
        self.records: Any = None
        """The open :class:`~gamenight.records.store.RecordsStore`, used only in :attr:`_db`'s thread."""
        self._db: ThreadPoolExecutor | None = None
        self._db_tasks: set[asyncio.Future[Any]] = set()
        self._halls: dict[str, p.HallOfFame] = {}
        """The hall of fame's answer per game, until the next record is written."""
        self._shown: dict[str, bool] = {}
        """Each identity's hall of fame name setting as last written (so a repeat writes nothing)."""
        self.away_timeout = away_timeout
        self.message_rate = message_rate
        """``(per second, burst)`` of messages a connection may send (simulated clients need more)."""
        self.bot_time_budget = bot_time_budget
        self.tables: dict[str, Table] = {}
        self.connections: list[Connection] = []
        self._seeds = None if seed is None else random.Random(f"gamenight-test-seeds:{seed}")
        """``None``: every game's seed comes from the OS; a test's fixed ``seed`` gives a repeatable series."""
        self._list_pending = False
        self._closing = False
        self._later = lambda delay, callback: asyncio.get_running_loop().call_later(delay, callback)
        """How the next table list is scheduled (a test runs the callbacks itself: no clock)."""
        self.refusals: list[tuple[str, str]] = []
        """``(identity, reason)`` of every refused request, newest last (also logged)."""
        self._init_limits()

    # The server-wide caps, read from this module at each use (so a change to the module's value holds at once).

    @property
    def max_tables(self) -> int:
        return MAX_TABLES

    @property
    def max_solo_tables(self) -> int:
        return MAX_SOLO_TABLES

    @property
    def solo_tables_per_address(self) -> int:
        return SOLO_TABLES_PER_ADDRESS

    # -- life cycle --------------------------------------------------------------------------

    async def start(self) -> None:
        """Open the server-wide records and restore the running tables saved under the data dir (with
        the tables in Redis: connect to it; the tables no host runs are taken by the sweep)."""
        if self.tables_url is not None or self.store is not None:
            await self._open_store()
        if self.data_dir is None:
            return
        if self.keep_records:
            await self._open_records(self.records_url or self.data_dir / RECORDS_FILE)
        if self.store is None:
            self._restore_all()

    async def close(self) -> None:
        self._closing = True  # the connections ending now close no table: every one is saved as it is
        for table in self.tables.values():
            for task in (table.driver, table.saver):
                if task is not None:
                    task.cancel()
        for table in list(self.tables.values()):
            for task in (table.driver, table.saver):
                while task is not None and not task.done():
                    # Python 3.11's wait_for can swallow a cancel that lands as the table is woken:
                    # the driver then waits on, so it is cancelled again until it has stopped.
                    task.cancel()
                    await asyncio.wait({task}, timeout=0.5)
                if task is not None and not task.cancelled():
                    with contextlib.suppress(Exception):
                        task.exception()
            if table.writing is not None:  # an older write still running would land after the last one
                with contextlib.suppress(Exception):
                    await table.writing
            self._save_now(table)
        if self.store is not None:
            await self._close_store()
        for connection in list(self.connections):
            connection.close()
        await self._close_records()

    # -- connections -------------------------------------------------------------------------

    async def serve(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        identity: str,
        name: str,
        address: str = "",
    ) -> None:
        """Serve one connection until it ends; ``identity``, ``name`` and the client's ``address``
        come from the server."""
        connection = self._connection(identity, name, writer, address)
        self.connections.append(connection)
        try:
            await self._receive(connection, reader)
        except p.ProtocolError as error:
            self._refuse(connection, "protocol", str(error))
        except (ConnectionError, OSError):
            pass
        finally:
            self.connections.remove(connection)
            self._end_relay(connection)
            self._detach(connection, dropped=True)
            connection.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.wait_closed(), 2)

    def _connection(self, identity: str, name: str, writer: Any, address: str) -> Connection:
        """A connection for ``identity`` (shown under a usable form of ``name``), writing to ``writer``:
        a socket's, or (relayed from another host) a relayed connection's outbox."""
        return Connection(
            identity, usable_name(name, identity), writer, address, messages=p.RateLimiter(*self.message_rate)
        )

    async def _receive(self, connection: Connection, reader: asyncio.StreamReader) -> None:
        first = await p.read_frame(reader, p.CLIENT_FRAME_CAP)
        if first is None:
            return
        hello = p.decode_client(first)
        if not isinstance(hello, p.Hello):
            raise p.ProtocolError("the first message must be hello")
        if hello.version != p.PROTOCOL_VERSION:
            raise p.ProtocolError(f"protocol version {hello.version} is not {p.PROTOCOL_VERSION}")
        connection.send(p.Welcome(p.PROTOCOL_VERSION, connection.name))
        self._reattach(connection)
        while not connection.closed:
            frame = await p.read_frame(reader, p.CLIENT_FRAME_CAP)
            if frame is None:
                return
            if not connection.messages.allow():
                raise p.ProtocolError("too many messages")
            message = p.decode_client(frame)
            if connection.relay is not None:
                if isinstance(message, RELAYED):  # a table's message: to the host that runs the table
                    self._relay_send(connection, frame)
                    if isinstance(message, p.Leave):
                        self._end_relay(connection)
                    continue
                if not isinstance(message, p.ListTables | p.HallQuery | p.HallName):
                    self._end_relay(connection)  # it goes to another table, or opens one
            self._handle(connection, message)
            self._flush(connection)

    def _flush(self, connection: Connection) -> None:
        """Write what the request just handled sent to its table (a move's Event and snapshots to every
        seat) now, not on the loop's next turn: on a busy server that turn comes after every other ready
        callback.  Anything else it sent (to a table it left, a table list) goes on that next turn."""
        connection.flush()
        if connection.table is not None:
            for other in connection.table.connections:
                if other.pending:
                    other.flush()

    def _refuse(
        self,
        connection: Connection,
        code: str,
        reason: str,
        fatal: bool = True,
        why: p.Reason | None = None,
        counted: bool = True,
    ) -> None:
        log.warning("refused %s (%s): %s", connection.identity, code, reason)
        self.refusals.append((connection.identity, f"{code}: {reason}"))
        del self.refusals[:-1000]
        connection.send(p.Error(code, reason, why))
        connection.violations += counted
        if fatal or connection.violations > MAX_VIOLATIONS:
            connection.close()

    def _handle(self, connection: Connection, message: p.ClientMessage) -> None:
        match message:
            case p.Hello():
                self._refuse(connection, "protocol", "hello twice")
            case p.ListTables():
                connection.listing = True
                connection.list_sent = p.encode(self._table_list())
                connection.send_frame(connection.list_sent)
            case p.OpenTable():
                self._open(connection, message)
            case p.Join():
                if not self._take_for(connection, message):
                    self._join(connection, message)
            case p.Watch():
                if not self._take_for(connection, message):
                    self._watch(connection, message)
            case p.Leave():
                self._detach(connection, dropped=False)
            case p.Start():
                self._start(connection)
            case p.Move():
                self._move(connection, message)
            case p.Chat():
                self._chat(connection, message)
            case p.Ack():
                self._ack(connection, message)
            case p.Again():
                self._again(connection)
            case p.SoloGame():
                self._refuse(connection, "solo-retired", "solo games are played at a solo table now", fatal=False)
            case p.ListKept():
                self._list_kept(connection)
            case p.HallQuery():
                self._hall(connection, message)
            case p.HallName():
                self._hall_name(connection, message)
