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
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import msgspec
import tomli_w

from gamenight.atomic import write_atomic
from gamenight.match import SEED_BITS, Match, SeatConfig, new_seed
from gamenight.saves import SaveError, load_match, match_to_document
from gamenight.sdk import CHANCE, OBSERVER, TERMINAL, GameInfo, IllegalAction, fill_seat_names, observer_view
from gamenight.tables import protocol as p
from gamenight.tables.names import unique_name, usable_name
from gamenight.text import safe_text

__all__ = ["Connection", "Table", "TableService"]

log = logging.getLogger("gamenight.tables")

CHAT_LIMIT = 200
LIST_INTERVAL = 0.5
"""Seconds between two table lists sent to the connections that keep the list open: every change
meanwhile goes out in the next one (the latest state wins; the last change is never lost)."""
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
MAX_VIOLATIONS = 5
"""Refused requests (out of turn, bad chat...) a connection may make before it is cut off."""
RECORDS_FILE = "records.sqlite3"
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
    """The name it is shown under while it watches a table (unique there, see :func:`_names_but`)."""
    listing: bool = False
    """It asked for the table list: it is sent again when the tables change (while it sits at none)."""
    list_sent: bytes = b""
    """The last table list frame it was sent (an unchanged list is not sent again)."""
    halls: p.RateLimiter = field(default_factory=lambda: p.RateLimiter(rate=1, burst=5))
    """Hall of fame queries and name settings."""
    pending: list[bytes] = field(default_factory=list)
    """Frames not written yet: written together by :meth:`flush` (one system call)."""
    flush_soon: bool = False

    def send(self, message: msgspec.Struct) -> None:
        """Queue ``message``; it is written when the request being handled is done, or on the loop's next turn."""
        if not self.closed:
            self.send_frame(p.encode(message))

    def send_frame(self, frame: bytes) -> None:
        """Queue an encoded frame (one encoded once for many connections)."""
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


@dataclass
class Table:
    """One shared table: its match, who holds each seat, who watches."""

    id: str
    game: GameInfo
    match: Match
    persons: list[bool]
    """Per seat: True when the seat is for a person (False: a bot seat from the start)."""
    owners: list[str | None]
    """Per person seat: the identity holding it (kept while a bot stands in)."""
    names: list[str]
    takeover_bot: str
    public: bool = True
    code: str = ""
    timer: float = 0
    host: str = ""
    address: str = ""
    """The address the host opened the table from (not saved: a restored table counts for no address)."""
    started: bool = False
    away: dict[int, float] = field(default_factory=dict)
    """Seats whose person dropped: since when (monotonic)."""
    acks: set[int] = field(default_factory=set)
    again: set[int] = field(default_factory=set)
    """At a finished table: the seats whose person asked to play again."""
    descriptions: list[tuple[int, str]] = field(default_factory=list)
    connections: list[Connection] = field(default_factory=list)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    deadline: float = 0.0
    driver: asyncio.Task[None] | None = None
    dirty: asyncio.Event = field(default_factory=asyncio.Event)
    saver: asyncio.Task[None] | None = None
    writing: asyncio.Future[None] | None = None
    """The saver's write under way in a thread: a write cannot be stopped, so closing waits for it."""
    forgotten: bool = False
    """Closed by :meth:`TableService._prune`: its saver deletes its files and stops."""
    solo: bool = False
    """One person against bots, opened from their lobby: unlisted, kept while they are away (no bot
    takes the seat), until the game ends or they open more than :data:`~gamenight.tables.protocol.MAX_KEPT`."""
    bot_delay: float = 0.0
    """Seconds each bot move waits at a solo table (the person's own setting, bounded)."""
    opened: float = field(default_factory=time.time)
    """When the table was opened (seconds since the epoch): the oldest kept solo table goes first."""
    wide_ints: bool = False
    """The game's views hold integers MessagePack cannot carry (LITS's bitboards): sent as decimal text."""

    def seat_of(self, identity: str) -> int | None:
        for seat, owner in enumerate(self.owners):
            if owner == identity:
                return seat
        return None

    def bot_plays(self, seat: int) -> bool:
        return self.match.seats[seat].bot is not None

    def status(self) -> str:
        if not self.started:
            return "waiting"
        return "over" if self.match.over else "playing"


class TableService:
    """Every shared table of one server, and the connections to them."""

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
    ) -> None:
        self.registry = registry
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

    # -- life cycle --------------------------------------------------------------------------

    async def start(self) -> None:
        """Open the server-wide records and restore the running tables saved under the data dir."""
        if self.data_dir is None:
            return
        if self.keep_records:
            await self._open_records(self.data_dir / RECORDS_FILE)
        folder = self.data_dir / "tables"
        for path in sorted(folder.glob("*.table.toml")) if folder.exists() else ():
            try:
                table = self._restore(path)
            except (SaveError, OSError, ValueError, KeyError, TypeError, tomllib.TOMLDecodeError) as error:
                log.warning("table %s not restored: %s", path.name, safe_text(error, limit=200))
                continue
            self.tables[table.id] = table
            for seat, owner in enumerate(table.owners):
                if owner is not None:
                    table.away[seat] = time.monotonic()
            self._launch(table)

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
        for connection in list(self.connections):
            connection.close()
        await self._close_records()

    def _launch(self, table: Table) -> None:
        table.driver = asyncio.create_task(self._drive(table), name=f"table-{table.id}")
        table.saver = asyncio.create_task(self._save_loop(table), name=f"table-{table.id}-save")

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
        connection = Connection(
            identity, usable_name(name, identity), writer, address, messages=p.RateLimiter(*self.message_rate)
        )
        self.connections.append(connection)
        try:
            await self._receive(connection, reader)
        except p.ProtocolError as error:
            self._refuse(connection, "protocol", str(error))
        except (ConnectionError, OSError):
            pass
        finally:
            self.connections.remove(connection)
            self._detach(connection, dropped=True)
            connection.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.wait_closed(), 2)

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
                self._join(connection, message)
            case p.Watch():
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
                connection.send(p.KeptTables([self._info(table) for table in self._kept(connection.identity)]))
            case p.HallQuery():
                self._hall(connection, message)
            case p.HallName():
                self._hall_name(connection, message)

    # -- tables ------------------------------------------------------------------------------

    def _open(self, connection: Connection, message: p.OpenTable) -> None:
        if connection.table is not None:
            return self._refuse(connection, "busy", "leave your table first", fatal=False)
        refusal = self._solo_limit(connection) if message.solo else self._table_limit(connection)
        if refusal is not None:
            return self._refuse(connection, *refusal, fatal=False)
        try:
            game = self.registry.game(message.game)
            if not game.min_seats <= len(message.seats) <= game.max_seats:
                raise ValueError(f"{game.id} takes {game.min_seats}-{game.max_seats} seats")
            if not any(seat.kind == "person" for seat in message.seats):
                raise ValueError("a table needs a seat for a person")
            if message.solo and sum(seat.kind == "person" for seat in message.seats) != 1:
                raise ValueError("a solo table has one seat for a person, the others bots")
            if not game.bots:
                raise ValueError(f"{game.id} has no bot to stand in for an absent player")
            takeover = max(game.bots, key=lambda spec: spec.strength).id
            seats = []
            for number, spec in enumerate(message.seats):
                if spec.kind == "bot":
                    game.bot(spec.bot or takeover)  # KeyError if unknown
                    seats.append(
                        SeatConfig(f"{game.bot(spec.bot or takeover).label} {number + 1}", spec.bot or takeover)
                    )
                else:
                    seats.append(SeatConfig(f"Seat {number + 1}"))
            options = game.parse_options(message.options)
        except (KeyError, ValueError) as error:
            return self._refuse(connection, "bad-table", safe_text(str(error).strip("'\""), limit=200), fatal=False)
        table_id = secrets.token_hex(4)
        # No seed yet: the game's secret seed is drawn when it starts (_begin), never before.
        match = Match(game, seats, options, seed=0, bot_time_budget=self.bot_time_budget, table=table_id)
        persons = [spec.kind == "person" for spec in message.seats]
        table = Table(
            id=table_id,
            game=game,
            match=match,
            persons=persons,
            owners=[None] * len(seats),
            names=[seat.name for seat in seats],
            takeover_bot=takeover,
            public=message.public and not message.solo,
            code="" if message.public and not message.solo else secrets.token_hex(3).upper(),
            timer=0 if message.solo else message.timer,
            host=connection.identity,
            address=connection.address,
            solo=message.solo,
            bot_delay=message.bot_delay if message.solo else 0.0,
        )
        if message.solo:
            self._keep_room_for_solo(connection)
        self.tables[table_id] = table
        self._launch(table)
        self._sit(connection, table, persons.index(True))

    def _table_limit(self, connection: Connection) -> tuple[str, str] | None:
        """Why ``connection`` may not open another shared table now, as (code, reason), or ``None``.

        Solo tables count apart (:meth:`_solo_limit`): a person's kept games never stop them hosting."""
        open_tables = [table for table in self.tables.values() if not table.solo and table.status() != "over"]
        if sum(table.host == connection.identity for table in open_tables) >= self.tables_per_identity:
            return "host-limit", f"you host {self.tables_per_identity} open tables already"
        if connection.address and (
            sum(table.address == connection.address for table in open_tables) >= self.tables_per_address
        ):
            return "address-limit", f"your address hosts {self.tables_per_address} open tables"
        if self._count(solo=False) >= MAX_TABLES:
            self._prune()
        if self._count(solo=False) >= MAX_TABLES:
            return "full", "this server has no room for another table"
        return None

    def _solo_limit(self, connection: Connection) -> tuple[str, str] | None:
        """Why ``connection`` may not open a solo table now, or ``None``.  Its own identity's are capped
        by closing the oldest (:meth:`_keep_room_for_solo`); one address's identities together (many guest
        names) and the server as a whole have caps of their own, so solo games never fill the server."""
        kept_here = [
            table
            for table in self.tables.values()
            if table.solo and not table.match.over and connection.address and table.address == connection.address
        ]
        if len([table for table in kept_here if table.host != connection.identity]) >= SOLO_TABLES_PER_ADDRESS:
            return "address-limit", f"your address keeps {SOLO_TABLES_PER_ADDRESS} games already"
        if self._count(solo=True) >= MAX_SOLO_TABLES:
            self._prune()
        if self._count(solo=True) >= MAX_SOLO_TABLES and len(self._kept(connection.identity)) < p.MAX_KEPT:
            return "full", "this server has no room for another table"
        return None

    def _count(self, solo: bool) -> int:
        return sum(table.solo == solo for table in self.tables.values())

    def _kept(self, identity: str) -> list[Table]:
        """``identity``'s unfinished solo tables, oldest first."""
        kept = [t for t in self.tables.values() if t.solo and t.host == identity and not t.match.over]
        return sorted(kept, key=lambda table: table.opened)

    def _keep_room_for_solo(self, connection: Connection) -> None:
        """Before a new solo table: close the person's oldest ones past the cap, and say so."""
        kept = self._kept(connection.identity)
        for table in kept[: max(0, len(kept) - p.MAX_KEPT + 1)]:
            self._forget(table, "its person's oldest kept game, for a new one")
            connection.send(p.Error("solo-closed", f"your oldest kept game ({table.game.id}) was closed"))

    def _prune(self) -> None:
        """Drop the tables nobody is at any more: finished ones (their game went to its players'
        saves) and waiting ones every person left.  Running tables stay: their players may return."""
        for table in list(self.tables.values()):
            if table.connections:
                continue
            if table.status() == "over" or (table.status() == "waiting" and not any(table.owners)):
                self._forget(table, "nobody there")

    def _forget(self, table: Table, why: str) -> None:
        """Close ``table``: its driver stops, its files go; anyone still watching it is told and let go."""
        if self.tables.get(table.id) is not table:
            return
        del self.tables[table.id]
        if table.driver is not None:
            table.driver.cancel()
        table.forgotten = True  # the saver removes its files after its last write
        table.dirty.set()
        closed = p.Error("table-closed", "the table was closed: everyone left it")
        for connection in table.connections:
            connection.table, connection.seat = None, OBSERVER
            connection.send(closed)
        table.connections = []
        log.info("table %s closed (%s, %s)", table.id, table.status(), why)
        self._list_changed()

    def _seed(self) -> int:
        """A fresh secret seed for one game (128 bits from the OS; a test's service draws a fixed series)."""
        if self._seeds is None:
            return new_seed()
        return self._seeds.getrandbits(SEED_BITS)

    def _begin(self, table: Table, first: bool = True) -> None:
        """A game starts at ``table``: it draws chance from a fresh secret seed, held here alone until
        the game is over (only then does a save with it reach the players)."""
        if first:
            table.started = True
            table.match.seed = self._seed()
        else:
            table.match.start_game(seed=self._seed())

    def _find(self, connection: Connection, table_id: str, code: str) -> Table | None:
        table = self.tables.get(table_id) if table_id else self._by_code(code)
        if table is None or (not table.public and not secrets.compare_digest(code.upper(), table.code)):
            self._refuse(connection, "no-table", "no such table (or a wrong code)", fatal=False)
            return None
        return table

    def _by_code(self, code: str) -> Table | None:
        """The private table whose short code is ``code`` (a code alone, typed in a lobby)."""
        code = code.upper()
        for table in self.tables.values():
            if code and not table.public and secrets.compare_digest(code, table.code):
                return table
        return None

    def _join(self, connection: Connection, message: p.Join) -> None:
        own = self.tables.get(message.table) if message.table else None
        if own is not None and own.solo:  # a person's own kept game: theirs alone, no code needed
            held = own.seat_of(connection.identity)
            if held is None:
                return self._refuse(connection, "no-table", "no such table (or a wrong code)", fatal=False)
            return self._sit(connection, own, held)
        table = self._find(connection, message.table, message.code)
        if table is None:
            return
        held = table.seat_of(connection.identity)
        if held is not None:  # reclaiming one's own seat
            return self._sit(connection, table, held)
        if connection.table is not None:
            return self._refuse(connection, "busy", "leave your table first", fatal=False)
        free = [seat for seat, person in enumerate(table.persons) if person and table.owners[seat] is None]
        if message.seat != -1:
            free = [seat for seat in free if seat == message.seat]
        if not free:
            return self._refuse(connection, "no-seat", "no free seat for a person there", fatal=False)
        self._sit(connection, table, free[0])

    def _sit(self, connection: Connection, table: Table, seat: int) -> None:
        if connection.table is not None and connection.table is not table:
            self._detach(connection, dropped=False)
        for other in table.connections:  # the same identity on a new connection replaces the old one
            if other is not connection and other.identity == connection.identity:
                other.table = None
                other.close()
        table.connections = [c for c in table.connections if c.identity != connection.identity]
        table.owners[seat] = connection.identity
        table.names[seat] = unique_name(connection.name, _names_but(table, connection.identity, seat))
        table.away.pop(seat, None)
        if table.match.seats[seat].bot is not None and table.persons[seat]:  # reclaimed from the stand-in
            log.info("table %s: %s reclaims seat %d", table.id, connection.identity, seat)
        table.match.seats[seat] = SeatConfig(table.names[seat])
        connection.table, connection.seat, connection.log_sent = table, seat, 0
        table.connections.append(connection)
        if not table.started and all(
            o is not None for o, person in zip(table.owners, table.persons, strict=True) if person
        ):
            self._begin(table)
        self._changed(table)

    def _watch(self, connection: Connection, message: p.Watch) -> None:
        table = self._find(connection, message.table, message.code)
        if table is None:
            return
        if not getattr(table.game.rules, "watchable", False):
            return self._refuse(connection, "no-watching", f"{table.game.id} cannot be watched", fatal=False)
        if connection.table is not None:
            self._detach(connection, dropped=False)
        connection.table, connection.seat, connection.log_sent = table, OBSERVER, 0
        connection.shown = unique_name(connection.name, _names_but(table, connection.identity))
        table.connections.append(connection)
        self._send_snapshot(table, connection)
        self._watchers_changed(table)

    def _start(self, connection: Connection) -> None:
        table = connection.table
        if table is None or table.host != connection.identity or table.started:
            return self._refuse(connection, "not-host", "only the host starts a waiting table", fatal=False)
        for seat, person in enumerate(table.persons):
            if person and table.owners[seat] is None:
                table.match.seats[seat] = SeatConfig(table.names[seat], table.takeover_bot)
        self._begin(table)
        self._changed(table)

    def _reattach(self, connection: Connection) -> None:
        """A returning identity lands back at its seat (and reclaims it from the bot)."""
        for table in self.tables.values():
            seat = table.seat_of(connection.identity)
            if seat is not None and not table.match.over and not table.solo:  # solo games: from Resume
                self._sit(connection, table, seat)
                return

    def _detach(self, connection: Connection, dropped: bool) -> None:
        """The connection leaves its table: a dropped seat waits, a left seat goes to the bot at once."""
        table = connection.table
        if table is None:
            return
        connection.table = None
        if connection in table.connections:
            table.connections.remove(connection)
        seat = connection.seat
        if seat < 0:  # a watcher leaves: the table is as it was, but for its count of watchers
            return self._watchers_changed(table)
        if table.owners[seat] == connection.identity:
            if table.solo and not table.match.over:  # the seat waits for its person, however long
                table.away[seat] = time.monotonic()
            elif dropped and table.started and not table.match.over:
                table.away[seat] = time.monotonic()
            elif table.started:
                self._take_over(table, seat)
            else:
                table.owners[seat] = None
                table.names[seat] = f"Seat {seat + 1}"
        if not table.started and not any(table.owners) and not self._closing:
            # A waiting table nobody sits at any more (its host left, and no one else came): it would
            # stay listed "free, free" for ever.  A table in play stays: its players may come back.
            return self._forget(table, "its host left")
        self._changed(table)

    def _take_over(self, table: Table, seat: int) -> None:
        table.away.pop(seat, None)
        table.match.seats[seat] = SeatConfig(table.names[seat], table.takeover_bot)
        log.info("table %s: the bot takes seat %d", table.id, seat)

    # -- play --------------------------------------------------------------------------------

    def _move(self, connection: Connection, message: p.Move) -> None:
        table = connection.table
        if table is None or connection.seat < 0:
            return self._refuse(connection, "not-seated", "you have no seat", fatal=False)
        match = table.match
        seat = connection.seat
        if (
            not table.started
            or match.to_move() != seat
            or match.bot_to_move()
            or table.owners[seat] != connection.identity
        ):
            return self._refuse(connection, "not-your-turn", "it is not your turn", fatal=False)
        if match.pending_interlude() is not None:
            return self._refuse(connection, "paused", "the table is paused", fatal=False)
        if message.turn != len(match.log):
            return self._refuse(connection, "stale", "that move answers an older position", fatal=False)
        try:
            self._apply(table, message.action)
        except IllegalAction as error:
            self._refuse(
                connection,
                "illegal",
                safe_text(error, limit=200),
                fatal=False,
                why=_reason(error),
                counted=not connection.illegal.allow(),
            )

    def _apply(self, table: Table, action: str) -> None:
        """Apply one action for whoever is to move, then tell everyone (raises IllegalAction, changing nothing)."""
        match = table.match
        seat = match.to_move()
        before = match.state
        match.apply(action)
        text = fill_seat_names(match.rules.describe_action(before, action, seat), table.names)
        table.descriptions.append((seat, text))
        try:
            events = [event.to_json() for event in match.last_events()]
        except Exception as error:  # a plugin's public_events that fails: the sentence still goes out
            log.warning("table %s: no public events: %s", table.id, safe_text(error, limit=200))
            events = []
        event = p.Event(table.id, len(match.log), seat, text, events)
        for connection in table.connections:
            connection.send(event)
        table.deadline = 0.0
        ended = match.over and not match.recorded
        if ended:  # counted before the snapshots go out: every end view shows the totals with this game
            match.record_result()
        self._changed(table)
        if ended:
            self._send_saves(table)
            self._record_table(table)

    def _ack(self, connection: Connection, message: p.Ack) -> None:
        table = connection.table
        if table is None or connection.seat < 0:
            return
        interlude = table.match.pending_interlude()
        if interlude is not None and interlude.key == message.key:
            table.acks.add(connection.seat)
            self._changed(table)

    def _chat(self, connection: Connection, message: p.Chat) -> None:
        table = connection.table
        if table is None:
            return self._refuse(connection, "not-seated", "chat goes to a table", fatal=False)
        if not connection.chats.allow():
            return self._refuse(connection, "chat-flood", "you are chatting too fast", fatal=False)
        text = " ".join(safe_text(message.text, limit=CHAT_LIMIT).split())
        if not text:
            return
        watching = connection.seat < 0
        line = p.ChatLine(table.id, connection.shown if watching else table.names[connection.seat], text, watching)
        for other in table.connections:
            other.send(line)

    def _again(self, connection: Connection) -> None:
        """A seated person asks to play again; once every present person has, the next game starts."""
        table = connection.table
        if table is None or connection.seat < 0 or not table.match.over:
            return self._refuse(connection, "not-over", "the game is not over", fatal=False)
        table.again.add(connection.seat)
        present = [
            seat
            for seat, owner in enumerate(table.owners)
            if owner is not None and not table.bot_plays(seat) and seat not in table.away
        ]
        if all(seat in table.again for seat in present):
            if not table.match.recorded:
                table.match.record_result()
                self._send_saves(table)
                self._record_table(table)
            self._begin(table, first=False)
            table.again.clear()
            table.acks.clear()
            table.descriptions = []
            for other in table.connections:
                other.log_sent = 0
        self._changed(table)

    def _watchers_changed(self, table: Table) -> None:
        """A watcher came or went: the players see the new count, the other watchers nothing (nothing
        at the table changed for them).  Sending every watcher a snapshot made watch/leave churn cost
        the server O(watchers²) snapshots."""
        for connection in table.connections:
            if connection.seat >= 0:
                self._send_snapshot(table, connection)
        self._list_changed()

    def _changed(self, table: Table) -> None:
        table.wake.set()
        table.dirty.set()
        self._broadcast(table)
        self._list_changed()

    def _table_list(self) -> p.TableList:
        return p.TableList([self._info(t) for t in self.tables.values() if t.public and t.status() != "over"])

    def _list_changed(self) -> None:
        """The tables changed: the connections keeping the list open get it again, at most every
        :data:`LIST_INTERVAL` (every change meanwhile is in that one list, encoded once)."""
        if self._list_pending or not any(c.listing for c in self.connections):
            return
        self._list_pending = True
        self._later(LIST_INTERVAL, self._send_lists)

    def _send_lists(self) -> None:
        self._list_pending = False
        # Not to those at a table (their room's list is out of sight; they get it when they leave):
        # a busy table's watchers would otherwise get every list too.
        listing = [c for c in self.connections if c.listing and c.table is None and not c.closed]
        if not listing:
            return
        frame = p.encode(self._table_list())
        for connection in listing:
            if connection.list_sent != frame:  # the latest state wins; an unchanged list is not resent
                connection.list_sent = frame
                connection.send_frame(frame)

    async def _drive(self, table: Table) -> None:
        """Run chance, bots, pauses, the move timer and away seats of one table, forever."""
        match = table.match
        while True:
            table.wake.clear()
            if table.started and not match.over:
                interlude = match.pending_interlude()
                now = time.monotonic()
                for seat, since in list(table.away.items()) if not table.solo else ():
                    if now - since >= self.away_timeout:
                        self._take_over(table, seat)
                        self._changed(table)
                if interlude is not None:
                    waiting = self._waiting(table)
                    if not waiting:
                        match.acknowledge(interlude)
                        table.acks.clear()
                        self._changed(table)
                        continue
                    if table.timer and not table.deadline:
                        table.deadline = now + table.timer
                elif match.to_move() == CHANCE:
                    self._apply(table, match.rules.sample_chance(match.state, match._chance_rng()))
                    continue
                elif match.bot_to_move():
                    if table.bot_delay:  # a solo table plays at its person's pace
                        await self._bot_pause(table.bot_delay)
                    await self._bot_move(table)
                    continue
                elif table.timer and not table.deadline:
                    table.deadline = now + table.timer
                    self._broadcast(table)
            elif match.over and not match.recorded:
                match.record_result()
                self._send_saves(table)
                self._record_table(table)
                self._changed(table)
            timeouts = [table.deadline - time.monotonic()] if table.deadline else []
            if not table.solo:
                timeouts += [since + self.away_timeout - time.monotonic() for since in table.away.values()]
            try:
                await asyncio.wait_for(table.wake.wait(), max(0.0, min(timeouts)) if timeouts else None)
            except TimeoutError:
                if table.deadline and time.monotonic() >= table.deadline:
                    table.deadline = 0.0
                    await self._expire(table)

    async def _bot_pause(self, seconds: float) -> None:
        """Wait before a solo table's bot moves (a test counts these instead of timing them)."""
        await asyncio.sleep(seconds)

    def _waiting(self, table: Table) -> list[int]:
        """Seated, present persons who have not acknowledged the pause."""
        return [
            seat
            for seat, owner in enumerate(table.owners)
            if owner is not None and not table.bot_plays(seat) and seat not in table.away and seat not in table.acks
        ]

    async def _expire(self, table: Table) -> None:
        """The move timer ran out: a pause goes on, a person's move is made by the table's bot."""
        match = table.match
        interlude = match.pending_interlude()
        if interlude is not None:
            match.acknowledge(interlude)
            table.acks.clear()
            self._changed(table)
        elif match.human_to_move():
            await self._bot_move(table, stand_in=True)

    async def _bot_move(self, table: Table, stand_in: bool = False) -> None:
        match = table.match
        seat = match.to_move()
        turn = len(match.log)
        state = match.state
        view = match.rules.view(state, seat)
        legal = match.rules.legal_actions(state)
        if stand_in:
            spec = table.game.bot(table.takeover_bot)
            bot = spec.factory(match.rules, seat, match.options)
        else:
            bot = match.bot(seat)
        stop = False
        context = match.bot_context(seat, should_stop=lambda: stop)
        try:
            action = await asyncio.wait_for(
                asyncio.to_thread(bot.choose, view, legal, context), self.bot_time_budget * 2 + 1
            )
        except Exception as error:  # a bot that fails or overruns plays its first legal move
            stop = True
            log.warning(
                "table %s: bot of seat %d failed (%s); first legal move",
                table.id,
                seat,
                safe_text(f"{type(error).__name__}: {error}", limit=120),
            )
            action = legal[0]
        if len(match.log) != turn or match.state is not state or (not stand_in and not table.bot_plays(seat)):
            return  # the position moved on, or the person reclaimed the seat meanwhile
        try:
            self._apply(table, action)
        except IllegalAction:
            self._apply(table, legal[0])

    def _send_saves(self, table: Table) -> None:
        """Send the finished game's save document to each seated person's room (for their own saves)."""
        seated = [c for c in table.connections if c.seat >= 0 and table.owners[c.seat] == c.identity]
        if not seated:
            return
        try:
            text = tomli_w.dumps(match_to_document(table.match))
        except (TypeError, ValueError) as error:
            log.warning("table %s: no save for the players: %s", table.id, safe_text(error, limit=200))
            return
        if len(text) > p.SERVICE_FRAME_CAP // 2:
            log.warning("table %s: the save is too big to send (%d bytes)", table.id, len(text))
            return
        message = p.Finished(table.id, text)
        for connection in seated:
            connection.send(message)

    # -- the server-wide records -----------------------------------------------------------

    async def _in_db(self, function: Any, *args: Any) -> Any:
        """Run ``function(*args)`` in the records' own thread (SQLite's connection lives there)."""
        assert self._db is not None
        return await asyncio.get_running_loop().run_in_executor(self._db, function, *args)

    async def _open_records(self, path: Path) -> None:
        from gamenight.records.store import RecordsStore, RecordsUnavailable

        self._db = ThreadPoolExecutor(max_workers=1, thread_name_prefix="records")
        try:
            self.records = await self._in_db(RecordsStore.open, path)
        except RecordsUnavailable as error:
            log.warning("no server-wide records: %s", safe_text(error, limit=300))
            self.records = None

    async def _close_records(self) -> None:
        """Wait for the writes under way (a few seconds at most), then close the database."""
        if self._db is None:
            return
        pending = [task for task in self._db_tasks if not task.done()]
        if pending:
            await asyncio.wait(pending, timeout=10)
        if self.records is not None:
            store, self.records = self.records, None
            with contextlib.suppress(Exception):
                await self._in_db(store.close)
        self._db.shutdown(wait=False)
        self._db = None

    def _background(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._db_tasks.add(task)
        task.add_done_callback(self._db_tasks.discard)

    def _record_table(self, table: Table) -> None:
        """Keep a shared table's finished game in the server-wide records (written off the loop)."""
        if self.records is None or not people_at_the_end(table):
            return
        from gamenight.records.store import record_from_match
        from gamenight.records.verify import with_identities

        try:
            record = record_from_match(table.match)
        except Exception as error:  # a plugin's outcome failing: the table goes on unrecorded
            log.warning("table %s: not recorded: %s", table.id, safe_text(error, limit=200))
            return
        identities = [
            owner if owner is not None and not table.bot_plays(seat) else None
            for seat, owner in enumerate(table.owners)
        ]
        # The game as this service issued it: its table, number and secret seed (fresh per game).
        record = replace(record, server_game=f"{table.id}/{record.game_number}/{table.match.seed:x}")
        self._background(self._write(with_identities(record, identities), f"table {table.id}"))

    async def _write(self, record: Any, what: str) -> bool:
        try:
            await self._in_db(self.records.add, record)
        except Exception as error:  # busy past the timeout, disk full: logged, nothing else stops
            log.warning("%s: not recorded: %s", what, safe_text(error, limit=200))
            return False
        self._halls.clear()
        log.info("%s: %s recorded", what, record.game)
        return True

    def _hall_name(self, connection: Connection, message: p.HallName) -> None:
        if not connection.halls.allow():
            return self._refuse(connection, "hall-flood", "too many hall of fame requests", fatal=False)
        if self.records is None or self._shown.get(connection.identity) == message.shown:
            return
        self._shown[connection.identity] = message.shown
        self._background(self._write_shown(connection.identity, message.shown))

    async def _write_shown(self, identity: str, shown: bool) -> None:
        try:
            await self._in_db(self.records.set_shown, identity, shown)
        except Exception as error:
            log.warning("hall of fame setting of %s not kept: %s", identity, safe_text(error, limit=200))
            self._shown.pop(identity, None)
            return
        self._halls.clear()

    def _hall(self, connection: Connection, message: p.HallQuery) -> None:
        if not connection.halls.allow():
            return self._refuse(connection, "hall-flood", "too many hall of fame requests", fatal=False)
        if self.records is None:
            return connection.send(p.HallOfFame(message.game, False, [], []))
        cached = self._halls.get(message.game)
        if cached is not None:
            return connection.send(cached)
        self._background(self._answer_hall(connection, message.game))

    async def _answer_hall(self, connection: Connection, game: str) -> None:
        try:
            answer = await self._in_db(_read_hall, self.records, game)
        except Exception as error:
            log.warning("hall of fame not read: %s", safe_text(error, limit=200))
            answer = p.HallOfFame(game, False, [], [])
        else:
            if game in self.registry.games:  # a made-up game id is answered, never kept
                self._halls[game] = answer
        connection.send(answer)

    # -- what each connection sees ---------------------------------------------------------

    def _info(self, table: Table) -> p.TableInfo:
        seats = [
            p.SeatInfo(
                name=table.names[seat],
                bot=table.bot_plays(seat),
                person=table.persons[seat],
                taken=table.owners[seat] is not None,
                away=seat in table.away,
            )
            for seat in range(len(table.names))
        ]
        match = table.match
        return p.TableInfo(
            table=table.id,
            game=table.game.id,
            options=dict(match.options),
            seats=seats,
            status=table.status(),  # type: ignore[arg-type]
            to_move=match.to_move(),
            watchers=sum(c.seat == OBSERVER for c in table.connections),
            timer=table.timer,
            public=table.public,
            solo=table.solo,
        )

    def snapshot(self, table: Table, seat: int, log_start: int = 0, identity: str = "") -> p.Snapshot:
        """What ``seat`` (or a watcher, ``OBSERVER``) may know of ``table`` now (the log from ``log_start``)."""
        match = table.match
        rules = match.rules
        view = observer_view(rules, match.state) if seat == OBSERVER else rules.view(match.state, seat)
        to_move = match.to_move()
        interlude = match.pending_interlude()
        legal = (
            rules.legal_actions(match.state)
            if (seat >= 0 and to_move == seat and interlude is None and table.started and not table.bot_plays(seat))
            else []
        )
        scores = rules.current_scores(match.state)
        outcome = match.outcome() if to_move == TERMINAL else None
        return p.Snapshot(
            table=self._info(table),
            seat=seat,
            code=table.code if seat >= 0 else "",
            view=_narrow(msgspec.to_builtins(view)) if table.wide_ints else msgspec.to_builtins(view),
            legal=list(legal),
            turn=len(match.log),
            log=table.descriptions[log_start:],
            log_start=log_start,
            scores=list(scores) if scores is not None else None,
            totals=list(match.totals),
            interlude=None
            if interlude is None
            else p.InterludeInfo(
                key=interlude.key,
                title=interlude.title,
                scores=list(interlude.scores),
                lines=[(label, list(values)) for label, values in interlude.lines],
                waiting=self._waiting(table),
            ),
            outcome=list(outcome.scores) if outcome else None,
            winners=list(outcome.winners) if outcome else [],
            outcome_lines=[(label, list(values)) for label, values in outcome.lines] if outcome else [],
            deadline=max(0.0, table.deadline - time.monotonic()) if table.deadline else 0.0,
            again=sorted(table.again),
            host=bool(identity) and identity == table.host,
        )

    def _broadcast(self, table: Table) -> None:
        for connection in list(table.connections):
            self._send_snapshot(table, connection)

    def _send_snapshot(self, table: Table, connection: Connection) -> None:
        try:
            connection.send(self.snapshot(table, connection.seat, connection.log_sent, connection.identity))
        except OverflowError:  # an integer wider than 64 bits in the view: from now on sent as text
            table.wide_ints = True
            connection.send(self.snapshot(table, connection.seat, connection.log_sent, connection.identity))
        connection.log_sent = len(table.descriptions)

    # -- saving ------------------------------------------------------------------------------

    def _paths(self, table_id: str) -> tuple[Path, Path]:
        assert self.data_dir is not None
        folder = self.data_dir / "tables"
        return folder / f"{table_id}.save.toml", folder / f"{table_id}.table.toml"

    def _documents(self, table: Table) -> tuple[dict[str, Any], dict[str, Any]]:
        """The save document of the match and the table's own, as plain data (cheap: no TOML yet)."""
        table_doc = {
            "format": 1,
            "id": table.id,
            "game": table.game.id,
            "public": table.public,
            "code": table.code,
            "timer": table.timer,
            "host": table.host,
            "started": table.started,
            "takeover_bot": table.takeover_bot,
            "acknowledged": table.match.acknowledged,
            "solo": table.solo,
            "bot_delay": table.bot_delay,
            "opened": table.opened,
            "seats": [
                {
                    "person": table.persons[s],
                    "owner": table.owners[s] or "",
                    "name": table.names[s],
                    "bot": table.match.seats[s].bot or "",
                }
                for s in range(len(table.names))
            ],
        }
        return match_to_document(table.match), table_doc

    def _save_now(self, table: Table) -> None:
        if self.data_dir is None:
            return
        save_path, table_path = self._paths(table.id)
        _write_both(save_path, *self._documents(table), table_path, None)

    async def _save_loop(self, table: Table) -> None:
        """Save after every change, off the event loop; changes during a write are saved by the next one."""
        if self.data_dir is None:
            return
        save_path, table_path = self._paths(table.id)
        written: list[str | None] = [None]
        while True:
            await table.dirty.wait()
            table.dirty.clear()
            if table.forgotten:
                for path in (save_path, table_path):
                    with contextlib.suppress(OSError):
                        path.unlink()
                return
            match_doc, table_doc = self._documents(table)  # taken on the loop: one consistent moment
            table.writing = asyncio.ensure_future(
                asyncio.to_thread(_write_both, save_path, match_doc, table_doc, table_path, written)
            )
            await asyncio.shield(table.writing)

    def _restore(self, table_path: Path) -> Table:
        document = tomllib.loads(table_path.read_text(encoding="utf-8"))
        table_id = str(document["id"])
        if not table_id.isalnum() or len(table_id) > 16:
            raise ValueError("bad table id")
        match = load_match(self.registry, self._paths(table_id)[0])
        match.bot_time_budget = self.bot_time_budget
        match.acknowledged = str(document.get("acknowledged", ""))
        seats = document["seats"]
        if len(seats) != len(match.seats):
            raise ValueError("the table's seats do not match its save")
        for seat, entry in enumerate(seats):
            bot = str(entry["bot"]) or None
            if bot is not None:
                match.game.bot(bot)
            match.seats[seat] = SeatConfig(str(entry["name"]), bot)
        return Table(
            id=table_id,
            game=match.game,
            match=match,
            persons=[bool(entry["person"]) for entry in seats],
            owners=[str(entry["owner"]) or None for entry in seats],
            names=[str(entry["name"]) for entry in seats],
            takeover_bot=match.game.bot(str(document["takeover_bot"])).id,
            public=bool(document["public"]),
            code=str(document["code"]),
            timer=float(document["timer"]),
            host=str(document["host"]),
            started=bool(document["started"]),
            descriptions=_describe(match),
            solo=bool(document.get("solo", False)),
            bot_delay=min(p.MAX_BOT_DELAY, max(0.0, float(document.get("bot_delay", 0.0)))),
            opened=float(document.get("opened", 0.0)),
        )


def _write_both(
    save_path: Path,
    match_doc: dict[str, Any],
    table_doc: dict[str, Any],
    table_path: Path,
    written: list[str | None] | None,
) -> None:
    """Write the match's save, then the table's file if it changed (seats change far less often than moves)."""
    write_atomic(save_path, tomli_w.dumps(match_doc))
    text = tomli_w.dumps(table_doc)
    if written is None or written[0] != text:
        write_atomic(table_path, text)
        if written is not None:
            written[0] = text


def _describe(match: Match) -> list[tuple[int, str]]:
    """The public description of every move of the current game, replayed from its log."""
    names = [seat.name for seat in match.seats]
    replay = Match(
        match.game,
        list(match.seats),
        match.options,
        seed=match.seed,
        games_played=match.games_played - (1 if match.recorded else 0),
    )
    lines = []
    for entry in match.log:
        before = replay.state
        replay.apply(entry.action)
        lines.append(
            (entry.seat, fill_seat_names(match.rules.describe_action(before, entry.action, entry.seat), names))
        )
    return lines


def _read_hall(store: Any, game: str) -> p.HallOfFame:
    """The hall of fame of ``game`` from the records (in the records' thread), bounded and plain."""
    top = [
        p.HallScore(rank, float(score), safe_text(name or "", limit=32), float(finished))
        for rank, (score, name, finished) in enumerate(store.hall_high_scores(game, p.HALL_SIZE), start=1)
    ]
    recent = [
        p.HallGame(
            record.game,
            record.finished,
            [
                p.HallSeat(safe_text(seat.name or "", limit=32), seat.bot or "", seat.score, seat.place == 1)
                for seat in record.seats[:16]
            ],
        )
        for record in store.hall_recent(p.HALL_SIZE)
    ]
    return p.HallOfFame(game, True, top, recent)


def _names_but(table: Table, identity: str, seat: int = OBSERVER) -> list[str]:
    """The names shown at ``table`` for everyone but ``identity`` (in ``seat``, or watching):
    the other seats' (a free seat's and a bot's too) and the other identities' watchers'."""
    names = [name for s, name in enumerate(table.names) if s != seat and table.owners[s] != identity]
    names += [c.shown for c in table.connections if c.seat == OBSERVER and c.identity != identity and c.shown]
    return names


def _reason(error: IllegalAction) -> p.Reason | None:
    """The rules' reason for a refused move as data for the room, or ``None`` when it cannot travel
    (params that are not plain JSON values, or too long): the room then shows the English text."""
    if not error.template:
        return None
    try:
        reason = p.Reason(safe_text(error.code, limit=64), error.template, msgspec.to_builtins(error.params))
        if len(p.encode(reason)) > 2000:
            return None
    except (TypeError, ValueError, OverflowError):
        return None
    return reason


def people_at_the_end(table: Table) -> bool:
    """True when a person still holds a seat of ``table``'s finished game (not the table's bot standing
    in for one who left).  A game the bots finished alone is no one's: it stays out of the records and
    the hall of fame ("Expert 5400 Expert 1550" in the latest games, seconds after both people left)."""
    return any(owner is not None and not table.bot_plays(seat) for seat, owner in enumerate(table.owners))


def _narrow(value: Any) -> Any:
    """``value`` (plain data) with every integer MessagePack cannot hold as decimal text.

    The client's ``msgspec.convert(..., strict=False)`` turns the text back
    into the int the view type declares.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**64 else str(value)
    if isinstance(value, list | tuple):
        return [_narrow(item) for item in value]
    if isinstance(value, dict):
        return {key: _narrow(item) for key, item in value.items()}
    return value
