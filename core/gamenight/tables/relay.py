"""Front ends that relay (``serve-ssh --tables-url``): a room on one host sits at a table another host runs.

Part of :class:`~gamenight.tables.service.TableService`, used only with a Redis.  A room still talks only
to its own host's service; when it asks to join or watch a table that another host holds, this host
(the *front end*) relays for it:

* **To the authority: the table's inbox.**  Each message the room sends (the room protocol's client
  frame, as it came) goes to the stream ``PREFIX:{ID}:in`` (at most :data:`INBOX_LEN` entries) as a
  :class:`Relayed` entry: the front end's host id, the relayed connection's id, and the identity, name
  and address the front end authenticated.  The table's authority reads its inbox (one reader task per
  table it holds) and handles each message exactly as a local room's -- the same decoding, validation,
  rate limits and refusals: it is hostile input -- through a connection of its own for the relayed one.
* **From the authority: one outbox per relayed connection.**  What the authority sends that connection
  (its own seat's view only; a watcher's the public view) goes to ``PREFIX:{ID}:out:{HOST}:{CONN}``
  (:class:`Frames`, at most :data:`OUTBOX_LEN` entries); the front end reads it and writes the frames to
  its room as they came.  No other seat's view is ever written there.
* **One reader per table, not per connection.**  The front end reads the outboxes of all its relayed
  connections at one table with one blocking ``XREAD`` (:class:`OutboxReader`): one Redis connection per
  table it relays to, however many of its rooms sit there.  The keys of one table share its hash tag
  ``{ID}`` (one Redis Cluster slot); two tables' keys are never read in one command.  A room that joins
  while that read blocks wakes it: the front end adds an entry to ``PREFIX:{ID}:wake:{HOST}``, read with
  the outboxes, so the room's first frames never wait for the block to end.
* **A relayed connection that goes away** -- the room closed (the front end says so in the inbox) or the
  front end died (its ``PREFIX:{ID}:front:{HOST}:{CONN}`` key, renewed every :data:`ALIVE_INTERVAL`,
  lapses) -- is detached as a dropped local connection is: the away window holds the seat.
* **The table moves** (its authority lets go): its relayed connections get ``table-moved`` like local
  ones, and the room joins again (through its front end, which relays to the new authority, or runs
  the table itself).

Every entry is a versioned msgspec message, bounded and validated on reading (:mod:`redis_store`'s
``decode``); one that fails is left out and logged, never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec

from gamenight.tables import protocol as p
from gamenight.tables.base import _ServiceBase
from gamenight.text import safe_text

if TYPE_CHECKING:
    from gamenight.tables.service import Connection
    from gamenight.tables.table import Table

log = logging.getLogger("gamenight.tables")

INBOX_LEN = 1000
"""Entries a table's inbox keeps (``XADD MAXLEN ~``): far more than its authority has unread."""
OUTBOX_LEN = 256
"""Entries a relayed connection's outbox keeps: a front end that reads none of them loses the oldest."""
MAX_OUT_BYTES = 2 * p.SERVICE_FRAME_CAP
"""Bytes of one outbox entry (the frames one flush wrote)."""
ALIVE_INTERVAL = 1.0
"""Seconds between two renewals of a relayed connection's key by its front end; it lives three times that."""
READ_BLOCK = 1.0
"""Seconds one ``XREAD`` waits for an entry (the authority checks its relayed connections' keys between;
a front end checks whether a table that said nothing to a room for that long changed hands)."""
WAKE_LEN = 1
"""Entries a front end's wake stream of a table keeps: only the newest one is ever wanted."""
STORE_RETRY = 0.5
"""Seconds between two tries of a relayed message while Redis cannot be reached (the message waits)."""
MAX_HELD = 16
"""Messages of one relayed room held while Redis cannot be reached; more are refused (the room is told)."""

RelayId = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{16}$")]
HostId = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9._:@-]+$")]
FORMAT = 1


class Relayed(msgspec.Struct, forbid_unknown_fields=True):
    """An entry of a table's inbox: a relayed connection's message, or its end (``kind`` "gone")."""

    host: HostId
    conn: RelayId
    identity: Annotated[str, msgspec.Meta(min_length=1, max_length=300)]
    name: Annotated[str, msgspec.Meta(max_length=64)]
    address: Annotated[str, msgspec.Meta(max_length=64)] = ""
    kind: Literal["message", "gone"] = "message"
    frame: Annotated[bytes, msgspec.Meta(max_length=p.CLIENT_FRAME_CAP)] = b""
    """The room's client frame's payload, as it came (decoded and validated by the authority)."""
    v: int = FORMAT


class Frames(msgspec.Struct, forbid_unknown_fields=True):
    """An entry of a relayed connection's outbox: frames for its room (``end``: the authority hung up)."""

    frames: Annotated[bytes, msgspec.Meta(max_length=MAX_OUT_BYTES)] = b""
    end: bool = False
    writer: Annotated[str, msgspec.Meta(max_length=16)] = ""
    """The writer (random per :class:`OutboxWriter`) and the entry's place in its order (1, 2, 3...): an
    entry written twice (a write sent again when Redis dropped the connection, restarting, after it had
    taken it) is read once."""
    seq: Annotated[int, msgspec.Meta(ge=0)] = 0
    v: int = FORMAT


def inbox_key(prefix: str, table_id: str) -> str:
    return f"{prefix}:{{{table_id}}}:in"


def outbox_key(prefix: str, table_id: str, host: str, conn: str) -> str:
    return f"{prefix}:{{{table_id}}}:out:{host}:{conn}"


def alive_key(prefix: str, table_id: str, host: str, conn: str) -> str:
    return f"{prefix}:{{{table_id}}}:front:{host}:{conn}"


def wake_key(prefix: str, table_id: str, host: str) -> str:
    return f"{prefix}:{{{table_id}}}:wake:{host}"


# -- the authority's end: a connection whose frames go to an outbox ------------------------------


class _OutboxTransport:
    def __init__(self, writer: OutboxWriter) -> None:
        self.writer = writer

    def get_write_buffer_size(self) -> int:
        return self.writer.queued_bytes

    def abort(self) -> None:
        self.writer.close()


class OutboxWriter:
    """What a relayed connection writes to (as a socket's ``StreamWriter``): its outbox in Redis, in order."""

    def __init__(self, store: Any, key: str) -> None:
        self.store = store
        self.key = key
        self.queue: list[Frames] = []
        self.queued_bytes = 0
        self.closing = False
        self.id = secrets.token_hex(8)
        self.seq = 0
        self.transport = _OutboxTransport(self)
        self.wake = asyncio.Event()
        self.task = asyncio.create_task(self._write_loop(), name=f"relay-out-{key}")

    def write(self, data: bytes) -> None:
        if self.closing:
            return
        self.seq += 1
        self.queue.append(Frames(data, writer=self.id, seq=self.seq))
        self.queued_bytes += len(data)
        self.wake.set()

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        if not self.closing:
            self.closing = True
            self.seq += 1
            self.queue.append(Frames(end=True, writer=self.id, seq=self.seq))
            self.wake.set()

    async def wait_closed(self) -> None:
        await asyncio.wait({self.task}, timeout=2)

    async def _write_loop(self) -> None:
        from gamenight.tables.redis_store import StoreError, encode

        while True:
            await self.wake.wait()
            self.wake.clear()
            while self.queue:
                entry = self.queue[0]
                try:
                    async with self.store._errors():
                        await self.store.client.xadd(
                            self.key, {"f": encode(entry)}, maxlen=OUTBOX_LEN, approximate=True
                        )
                        await self.store.client.pexpire(self.key, int(ALIVE_INTERVAL * 30_000))
                except StoreError as error:  # the front end finds its connection gone (its key lapses)
                    log.warning("relay outbox %s: %s", self.key, safe_text(error, limit=200))
                    await asyncio.sleep(0.5)
                    continue
                self.queue.pop(0)
                self.queued_bytes -= len(entry.frames)
                if entry.end:
                    return


@dataclass
class RelayLink:
    """A room here relayed to a table another host runs."""

    table: str
    conn: str
    last: bytes = b"0-0"
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    told: bool = False
    """Its room was sent ``table-moved`` or ``table-closed`` by the authority (before the outbox's end)."""
    announced: bool = False
    """Its key (``PREFIX:{ID}:front:...``) is set: written before its first message, so the authority
    never finds a relayed connection without it (and drops it as one whose front end died)."""
    held: int = 0
    """Its messages not yet in the table's inbox (held while Redis cannot be reached: at most :data:`MAX_HELD`)."""
    writer: str = ""
    seq: int = 0
    """The last outbox entry read: its writer and place (:class:`Frames`): a copy written twice is skipped."""
    since: bytes | None = None
    """The table's holder (:meth:`~gamenight.tables.redis_store.RedisTableStore.holder`) read just before its
    first message went to the inbox: another one means another host took the table (and may have taken
    it after the message: it never reads what came before).  Not its epoch: the holder that takes its own
    lapsed lease back after a Redis outage has a new epoch, and still knows this relayed connection."""
    heard: float = 0.0
    """When (the event loop's clock) its outbox last had an entry, or its table was last found in the
    same hands: quiet for :data:`READ_BLOCK` since, its table's holder is looked at again."""


Entries = list[tuple[bytes, Any]]


@dataclass
class _Reading:
    """A relayed connection in its table's :class:`OutboxReader`: what the reader hands its own task."""

    connection: Connection
    link: RelayLink
    queue: asyncio.Queue[Entries | None]
    """Its outbox's new entries, in order; ``None``: its table changed hands."""
    task: asyncio.Task[None]


@dataclass
class OutboxReader:
    """This host's one blocking ``XREAD`` of the outboxes of all its relayed connections at one table."""

    table: str
    wake: str
    readings: dict[str, _Reading] = field(default_factory=dict)
    """By outbox key."""
    task: asyncio.Task[None] | None = None
    blocking: bool = False
    """Its ``XREAD`` is on its way or waiting: a connection that joins wakes it."""
    wake_last: bytes = b"0-0"


class Relay(_ServiceBase):
    """Part of :class:`~gamenight.tables.service.TableService`: relaying rooms' messages to tables other hosts run."""

    # -- the front end ---------------------------------------------------------------------------

    def _relay_to(self, connection: Connection, message: p.Join | p.Watch) -> None:
        """Relay ``connection`` to the table another host holds, beginning with ``message``."""
        self._end_relay(connection)
        link = RelayLink(message.table, secrets.token_hex(8))
        connection.relay = link
        outbox = outbox_key(self.store.prefix, link.table, self.host_id, link.conn)
        queue: asyncio.Queue[Entries | None] = asyncio.Queue()
        reading = asyncio.create_task(self._relay_out(connection, link, outbox, queue), name="relay-read")
        link.tasks.append(reading)
        link.tasks.append(asyncio.create_task(self._relay_alive(link), name="relay-alive"))
        self._outbox_join(outbox, _Reading(connection, link, queue, reading))
        self._relay_send(connection, p.encode(message)[4:])

    def _relay_send(self, connection: Connection, payload: bytes, kind: Literal["message", "gone"] = "message") -> None:
        """Put the room's message (its frame's payload) in the table's inbox, in order."""
        link = connection.relay
        assert link is not None
        entry = Relayed(
            self.host_id, link.conn, connection.identity, connection.name[:64], connection.address[:64], kind, payload
        )
        key = inbox_key(self.store.prefix, link.table)
        previous = self._relay_sending.get(link.conn)

        async def send() -> None:
            from gamenight.tables.redis_store import StoreError, StoreUnavailable, encode

            if previous is not None:
                await asyncio.wait({previous})
            told = False
            while True:
                try:
                    async with self.store._errors():
                        if not link.announced:
                            # Its holder first: a host that takes the table once it is read reads the
                            # inbox only from its own lease on, maybe after this message; the holder
                            # then differs, and the room is told to join again (``_read_outboxes``).
                            link.since = await self.store.holder(link.table)
                            alive = alive_key(self.store.prefix, link.table, self.host_id, link.conn)
                            await self.store.client.set(alive, b"1", px=int(ALIVE_INTERVAL * 3000))
                            link.announced = True
                        await self.store.client.xadd(key, {"m": encode(entry)}, maxlen=INBOX_LEN, approximate=True)
                    if told and not connection.closed:  # held, and now on its way
                        connection.send_now(p.encode(p.Error("store-up", "the table's store answers again")))
                    return
                except StoreError as error:
                    # Redis away (restarted): the message waits, as a local room's move does, and goes once
                    # Redis answers; its room is told the table waits.  Anything else: told, and dropped.
                    held = isinstance(error, StoreUnavailable) and kind == "message" and link.held <= MAX_HELD
                    if not told:
                        log.warning("relay to table %s: %s", link.table, safe_text(error, limit=200))
                        if kind == "message" and not connection.closed:
                            connection.send_now(p.encode(p.Error("store-down", "the table's store cannot be reached")))
                        told = True
                    if not held or connection.closed or connection.relay is not link:
                        return
                    await asyncio.sleep(STORE_RETRY)

        link.held += 1
        task = asyncio.create_task(send())
        self._relay_sending[link.conn] = task

        def done(finished: asyncio.Task[None]) -> None:
            link.held -= 1
            if self._relay_sending.get(link.conn) is finished:
                del self._relay_sending[link.conn]

        task.add_done_callback(done)

    def _end_relay(self, connection: Connection) -> None:
        """The room here no longer relays (it closed, left, or joins another table): its authority is told."""
        link = connection.relay
        if link is None:
            return
        self._relay_send(connection, b"", "gone")
        connection.relay = None
        self._outbox_leave(link)
        for task in link.tasks:
            task.cancel()

        async def forget() -> None:
            with contextlib.suppress(Exception):
                async with self.store._errors():
                    await self.store.client.delete(alive_key(self.store.prefix, link.table, self.host_id, link.conn))

        task = asyncio.create_task(forget())
        self._relay_tasks.add(task)
        task.add_done_callback(self._relay_tasks.discard)

    def _relay_moved(self, connection: Connection, link: RelayLink) -> None:
        """The table ``link`` relays to changed hands: its room is told to join it again, its relay ends."""
        if connection.relay is link:
            connection.send_now(p.encode(p.Error("table-moved", "the table moved to another server: join it again")))
            self._end_relay(connection)

    async def _relay_alive(self, link: RelayLink) -> None:
        key = alive_key(self.store.prefix, link.table, self.host_id, link.conn)
        while True:
            await asyncio.sleep(ALIVE_INTERVAL)  # (set first with the connection's first message)
            with contextlib.suppress(Exception):
                async with self.store._errors():
                    await self.store.client.set(key, b"1", px=int(ALIVE_INTERVAL * 3000))

    def _outbox_join(self, key: str, reading: _Reading) -> None:
        """Read the outbox ``key`` with the others of its table: in the table's reader (started if none)."""
        table = reading.link.table
        reader = self._outbox_readers.get(table)
        if reader is None or reader.task is None or reader.task.done():
            reader = OutboxReader(table, wake_key(self.store.prefix, table, self.host_id))
            self._outbox_readers[table] = reader
            reader.task = asyncio.create_task(self._read_outboxes(reader), name=f"relay-outboxes-{table}")
        reading.link.heard = asyncio.get_running_loop().time()
        reader.readings[key] = reading
        if reader.blocking:  # its XREAD has not this key: woken, it reads again with it
            task = asyncio.create_task(self._wake_reader(reader), name=f"relay-wake-{table}")
            self._relay_tasks.add(task)
            task.add_done_callback(self._relay_tasks.discard)

    def _outbox_leave(self, link: RelayLink) -> None:
        """The outbox of ``link`` is no longer read (its reader ends with its last one; no need to wake it)."""
        reader = self._outbox_readers.get(link.table)
        if reader is None:
            return
        for key, reading in list(reader.readings.items()):
            if reading.link is link:
                del reader.readings[key]

    async def _wake_reader(self, reader: OutboxReader) -> None:
        with contextlib.suppress(Exception):
            async with self.store._errors():
                await self.store.client.xadd(reader.wake, {"w": b"1"}, maxlen=WAKE_LEN, approximate=False)
                await self.store.client.pexpire(reader.wake, int(ALIVE_INTERVAL * 30_000))

    async def _read_outboxes(self, reader: OutboxReader) -> None:
        """The one reader of this host's relayed connections' outboxes at ``reader.table``: each outbox's new
        entries go to its connection's task (:meth:`_relay_out`), in order."""
        from gamenight.tables.redis_store import StoreError

        clock = asyncio.get_running_loop()
        readings = reader.readings
        try:
            while True:
                for key, reading in list(readings.items()):
                    connection = reading.connection
                    if reading.task.done() or connection.closed or connection.relay is not reading.link:
                        del readings[key]
                        reading.task.cancel()
                if not readings:
                    return
                # Blocks no longer than until the next quiet room's table is to be looked at.
                block = READ_BLOCK
                for reading in readings.values():
                    if reading.link.since is not None:
                        block = min(block, reading.link.heard + READ_BLOCK - clock.time())
                streams: dict[str, bytes] = {key: reading.link.last for key, reading in readings.items()}
                streams[reader.wake] = reader.wake_last
                reader.blocking = True
                try:
                    async with self.store._errors():
                        answer = await self.store.client.xread(streams, count=16, block=max(1, int(block * 1000)))
                except StoreError as error:
                    log.warning("relay from table %s: %s", reader.table, safe_text(error, limit=200))
                    await asyncio.sleep(0.5)
                    continue
                finally:
                    reader.blocking = False
                now = clock.time()
                for raw_key, entries in answer or []:
                    key = raw_key.decode() if isinstance(raw_key, bytes) else str(raw_key)
                    if not entries:
                        continue
                    if key == reader.wake:
                        reader.wake_last = entries[-1][0]
                        continue
                    found = readings.get(key)
                    if found is None:  # left while it was read
                        continue
                    found.link.last = entries[-1][0]
                    found.link.heard = now
                    found.queue.put_nowait(entries)
                # Quiet ones: has the table changed hands?  (Its authority died: the host that took it knows
                # nothing of such a room until it says something, and the old one never ends it.)  This host
                # may be the one that took it: its room then sits at the table here.  Each room's holder is
                # the one read before its first message (``since``).  No holder now (its lease lapsed: its
                # host died, or Redis was away) is no answer yet: the next holder decides.
                quiet = [(r, r.link.since) for r in readings.values() if r.link.since is not None]
                quiet = [(r, since) for r, since in quiet if now - r.link.heard >= READ_BLOCK]
                if not quiet:
                    continue
                here = reader.table in self.tables
                holder = b""
                if not here:
                    try:
                        holder = await self.store.holder(reader.table)
                    except StoreError as error:
                        log.warning("relay from table %s: %s", reader.table, safe_text(error, limit=200))
                        await asyncio.sleep(0.5)
                        continue
                for reading, since in quiet:
                    reading.link.heard = now
                    if here or (holder and holder != since):
                        reading.queue.put_nowait(None)
        finally:
            if self._outbox_readers.get(reader.table) is reader:
                del self._outbox_readers[reader.table]
            for reading in readings.values():
                reading.task.cancel()

    async def _relay_out(
        self, connection: Connection, link: RelayLink, key: str, queue: asyncio.Queue[Entries | None]
    ) -> None:
        """Write what the authority sent this relayed connection (read by its table's reader) to its room."""
        from gamenight.tables.redis_store import CorruptValue, decode

        while not connection.closed:
            entries = await queue.get()
            if entries is None:  # quiet, and its table changed hands
                self._relay_moved(connection, link)  # (cancels this task too)
                return
            for _entry_id, fields in entries:
                try:
                    frames = decode(Frames, fields.get(b"f", b""), key, MAX_OUT_BYTES + 96)
                except CorruptValue as error:
                    log.warning("relay from table %s: %s", link.table, safe_text(error, limit=200))
                    continue
                if frames.writer and frames.writer == link.writer and frames.seq <= link.seq:
                    continue  # written twice: Redis restarted after taking it, and the writer sent it again
                link.writer, link.seq = frames.writer, frames.seq
                if frames.frames and not connection.closed:
                    link.told = link.told or _tells_table_gone(frames.frames)
                    connection.pending.append(frames.frames)
                    connection.flush()
                if frames.end:
                    if connection.relay is link:
                        connection.relay = None
                        self._outbox_leave(link)
                        for task in link.tasks:
                            if task is not asyncio.current_task():
                                task.cancel()
                        if not link.told:  # the authority dropped it (it found this host's key lapsed, or
                            # cut it off): its room, left showing the table, is told to join it again
                            connection.send_now(p.encode(p.Error("table-moved", "join the table again")))
                    return

    async def _close_relays(self) -> None:
        """This host stops: its rooms' relays end (their authorities are told) and its relayed connections too."""
        for connection in self.connections:
            self._end_relay(connection)
        writers: list[Any] = []
        moved = p.encode(p.Error("table-moved", "the table moved to another server: join it again"))
        for ref, connection in list(self._relayed.items()):
            writers.append(connection.writer)
            connection.send_now(moved)  # another host takes the table: its room joins again there
            connection.flush()
            self._drop_relayed(ref, connection)
        for task in self._relay_tasks:
            if task.get_name().startswith("relay-fronts-"):  # a second look at a lapsed key: not wanted now
                task.cancel()
        readers = [reader.task for reader in self._outbox_readers.values() if reader.task is not None]
        for task in readers:  # (their rooms' relays ended above)
            task.cancel()
        waiting = {*self._relay_sending.values(), *self._relay_tasks, *readers}
        waiting.update(writer.task for writer in writers if isinstance(writer, OutboxWriter))
        if waiting:
            await asyncio.wait(waiting, timeout=2)
        for task in waiting:
            task.cancel()

    # -- the authority ---------------------------------------------------------------------------

    async def _read_inbox(self, table: Table) -> None:
        """The reader of ``table``'s inbox while this host runs it: each relayed message handled as a room's."""
        from gamenight.tables.redis_store import StoreError

        key = inbox_key(self.store.prefix, table.id)
        last = table.inbox_from
        try:
            while not table.gone and self.tables.get(table.id) is table:
                try:
                    async with self.store._errors():
                        answer = await self.store.client.xread({key: last}, count=64, block=int(READ_BLOCK * 1000))
                except StoreError as error:
                    log.warning("table %s inbox: %s", table.id, safe_text(error, limit=200))
                    await asyncio.sleep(0.5)
                    continue
                for _key, entries in answer or []:
                    for entry_id, fields in entries:
                        last = entry_id
                        self._relayed_entry(table, fields)
                await self._check_fronts(table)
        finally:  # the table closed or moved: its relayed connections end (their rooms were told why)
            for ref, connection in list(self._relayed.items()):
                if connection.relayed_from and connection.relayed_from[2] == table.id:
                    self._drop_relayed(ref, connection)

    async def _inbox_end(self, table_id: str) -> bytes:
        """The id of the newest entry of the table's inbox, read before this host takes the table's lease:
        the messages relayed to the host that held it before are not handled again (those relayed once
        the lease is this host's all come after it)."""
        async with self.store._errors():
            newest = await self.store.client.xrevrange(inbox_key(self.store.prefix, table_id), count=1)
        return bytes(newest[0][0]) if newest else b"0-0"

    def _relayed_entry(self, table: Table, fields: Any) -> None:
        from gamenight.tables.redis_store import CorruptValue, decode

        where = f"table {table.id} inbox"
        try:
            raw = fields.get(b"m", b"") if isinstance(fields, dict) else b""
            entry = decode(Relayed, raw, where, p.CLIENT_FRAME_CAP + 1024)
        except CorruptValue as error:
            log.warning("%s: %s", where, safe_text(error, limit=200))
            return
        ref = (entry.host, entry.conn)
        if entry.host == self.host_id:
            # Relayed by this host to a table it has taken since (its room relayed while another host held
            # it): never a connection of its own -- a second connection of the same person, which would
            # take the seat from the room's real one.  The room joins again, here (if it still relays).
            for local in self.connections:
                if local.relay is not None and local.relay.conn == entry.conn and local.relay.table == table.id:
                    log.info("table %s: %s relayed here by this host: told to join again", table.id, local.identity)
                    self._relay_moved(local, local.relay)
            return
        connection = self._relayed.get(ref)
        if entry.kind == "gone":
            if connection is not None:
                self._drop_relayed(ref, connection)
            return
        if connection is None:
            if len(self._relayed) >= MAX_RELAYED:
                log.warning("%s: %d relayed connections already; %s refused", where, MAX_RELAYED, entry.conn)
                return
            writer = OutboxWriter(self.store, outbox_key(self.store.prefix, table.id, entry.host, entry.conn))
            connection = self._connection(entry.identity, entry.name, writer, entry.address)
            connection.relayed_from = (entry.host, entry.conn, table.id)
            self._relayed[ref] = connection
            self.connections.append(connection)
        if connection.closed:
            return
        try:
            if not connection.messages.allow():
                raise p.ProtocolError("too many messages")
            message = p.decode_client(entry.frame)
            self._handle(connection, message)
        except p.ProtocolError as error:
            self._refuse(connection, "protocol", str(error))
        self._flush(connection)
        if connection.closed:
            self._drop_relayed(ref, connection)

    def _drop_relayed(self, ref: tuple[str, str], connection: Connection) -> None:
        """A relayed connection ended (its room, its front end, or a refusal): detached as a dropped one."""
        if self._relayed.get(ref) is connection and connection.table is not None:
            log.info("table %s: %s's connection relayed by %s ends", connection.table.id, connection.identity, ref[0])
        self._relayed.pop(ref, None)
        if connection in self.connections:
            self.connections.remove(connection)
        self._detach(connection, dropped=True)
        connection.close()

    async def _check_fronts(self, table: Table, again: set[tuple[str, str]] | None = None) -> None:
        """Drop the relayed connections at ``table`` whose front end stopped renewing their key.  A key found
        lapsed is looked at again two :data:`ALIVE_INTERVAL` later (``again``: those), and its connection
        dropped only if it still is: a key lapses too while Redis is away or restarted (its clock runs
        on), and a live front end renews it within one interval once Redis answers."""
        from gamenight.tables.redis_store import StoreError

        relayed = [(ref, c) for ref, c in self._relayed.items() if c.relayed_from and c.relayed_from[2] == table.id]
        if again is not None:
            relayed = [(ref, c) for ref, c in relayed if ref in again]
        if not relayed:
            return
        try:
            async with self.store._errors():
                async with self.store.client.pipeline(transaction=False) as pipe:
                    for (host, conn), _ in relayed:
                        pipe.exists(alive_key(self.store.prefix, table.id, host, conn))
                    alive = await pipe.execute()
        except StoreError:
            return
        lapsed = {ref for (ref, _), there in zip(relayed, alive, strict=True) if not int(there)}
        if again is None:
            name = f"relay-fronts-{table.id}"
            if lapsed and not any(task.get_name() == name for task in self._relay_tasks):
                task = asyncio.create_task(self._check_fronts_later(table, lapsed), name=name)
                self._relay_tasks.add(task)
                task.add_done_callback(self._relay_tasks.discard)
            return
        for ref, connection in relayed:
            if ref in lapsed and self._relayed.get(ref) is connection and self.tables.get(table.id) is table:
                log.info("table %s: relayed connection %s of host %s is gone", table.id, ref[1], ref[0])
                self._drop_relayed(ref, connection)

    async def _check_fronts_later(self, table: Table, lapsed: set[tuple[str, str]]) -> None:
        await asyncio.sleep(2 * ALIVE_INTERVAL)
        await self._check_fronts(table, lapsed)


def _tells_table_gone(frames: bytes) -> bool:
    """Whether ``frames`` (an outbox entry's, as the authority wrote them) end the room's table:
    ``table-moved`` or ``table-closed``."""
    if b"table-moved" not in frames and b"table-closed" not in frames:
        return False  # (most entries: no frame to decode)
    while len(frames) >= 4:
        size = int.from_bytes(frames[:4], "big")
        try:
            message = p.decode_service(frames[4 : 4 + size])
        except p.ProtocolError:
            return False
        if isinstance(message, p.Error) and message.code in ("table-moved", "table-closed"):
            return True
        frames = frames[4 + size :]
    return False


MAX_RELAYED = 2000
"""Relayed connections one host serves at once (the backstop behind the per-table seats and watchers)."""
