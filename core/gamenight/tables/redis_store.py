"""Tables in Redis, the foundation for running them on several machines: a lease per table with a
fencing token, and the table's moves kept durably, written only by the lease's holder.

Without ``serve-ssh --tables-url`` nothing uses this module: ``serve-ssh`` and
:class:`~gamenight.tables.service.TableService` keep their tables in-process and in files (the embedded
default, which never imports ``redis``).  What it provides is the lowest layer of the several-machine
design (docs/hosting.md, "Growing past one machine"):

* **One authority per table.**  :meth:`RedisTableStore.acquire` takes a table's lease for one host for
  ``ttl`` seconds and returns its *epoch*: a per-table counter, incremented each time a new holder takes
  the lease (never reset: it survives a Redis restart with persistence on).  The holder renews the
  lease (:meth:`~RedisTableStore.renew`) well within ``ttl``; a host that stops renewing (dead, paused,
  cut off) loses it, and the next host to acquire it gets a higher epoch.
* **Fenced, durable moves.**  :meth:`~RedisTableStore.append` adds a move to the table's log (a Redis
  stream) only if the epoch it is given is still the table's current one *and* its lease still
  lives -- checked and written in one Lua script, so atomically.  A stale authority (one that was
  paused past its lease while another host took the table) is refused with :class:`StaleEpoch` and
  the log is left as it was.  A move is shown to no one before ``append`` has returned.
* **Restoring.**  :meth:`~RedisTableStore.load` returns the table's stored state (written by
  :meth:`~RedisTableStore.save_state`, which also empties the log the state now covers) and the moves
  logged since, with the current epoch and holder.

Every value written is a versioned msgspec message (MessagePack), validated on reading like the room's
protocol (:mod:`gamenight.tables.protocol`): a value from a newer format is refused with
:class:`NewerFormat`, anything else that is not what this module wrote with :class:`CorruptValue`, every
read is bounded, and an unreachable Redis is :class:`StoreUnavailable` -- never a traceback from deep
inside the client.  The one value that is not a message is the epoch counter, a decimal integer (Redis's
``INCR`` needs one), checked as such.

Keys, per table ``ID`` (the ``{...}`` hash tag keeps one table's keys in one slot of a Redis Cluster,
which scripts need)::

    PREFIX:{ID}:epoch   the fencing token's counter (integer)
    PREFIX:{ID}:lease   Lease, expiring after the holder's ttl
    PREFIX:{ID}:state   TableState
    PREFIX:{ID}:log     stream of LogEntry (field "m"), the moves since the state

    PREFIX:tables       hash: table id -> Listed (which game, which host runs it), for every host's sweep
    PREFIX:lobby        hash: table id -> Summary (what every host's Tables list shows of a public table:
                        game, seats' names and kinds, status, watchers -- never a hand), written by the
                        table's authority (fenced), removed when the table ends or stops being public

The table service uses this store with ``serve-ssh --tables-url`` (:mod:`gamenight.tables.authority`).
A room at a table another host runs is relayed through the table's inbox and its connection's outbox
(streams next to these keys): :mod:`gamenight.tables.relay`.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

import msgspec

from gamenight.tables.protocol import TableInfo

__all__ = [
    "FORMAT",
    "CorruptValue",
    "Lease",
    "LeaseHeld",
    "Listed",
    "LogEntry",
    "NewerFormat",
    "OutOfOrder",
    "RedisTableStore",
    "StaleEpoch",
    "StoreError",
    "StoreUnavailable",
    "StoredTable",
    "Summary",
    "TableState",
    "redis_errors",
]

FORMAT = 1
"""The format of every message this module writes; a reader refuses a newer one."""

MAX_LOG = 20_000
"""Moves a table's log may hold before :meth:`RedisTableStore.load` refuses it (a state is saved far sooner)."""
MAX_ENTRY_BYTES = 4096
"""Bytes of one encoded log entry (a move is a short action string)."""
MAX_STATE_BYTES = 4 * 1024 * 1024
"""Bytes of a table's stored state (a save of a long game is a few tens of KiB)."""
MAX_LEASE_BYTES = 512
MAX_LISTED = 5000
"""Tables the store's list may hold before :meth:`RedisTableStore.listed` refuses it (a room keeps a few hundred)."""

MAX_SUMMARY_BYTES = 8192
"""Bytes of one table's summary in the lobby (sixteen seats' names and a few options: well under 2 KiB)."""
MAX_SUMMARY_SEATS = 16
MAX_SUMMARY_NAME = 64
"""Characters of a seat's name in a summary (the room's names are far shorter)."""
MAX_SUMMARY_OPTIONS = 32

HostId = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9._:@-]+$")]
TableId = Annotated[str, msgspec.Meta(min_length=1, max_length=16, pattern=r"^[A-Za-z0-9]+$")]
Epoch = Annotated[int, msgspec.Meta(ge=1, le=2**62)]


# -- the messages ------------------------------------------------------------------------------


class Lease(msgspec.Struct, forbid_unknown_fields=True):
    """Who holds a table's lease, since which epoch."""

    host: HostId
    epoch: Epoch
    instance: Annotated[str, msgspec.Meta(max_length=32)] = ""
    """The holding process (random per store): two processes misconfigured with one host id still differ."""
    v: int = FORMAT


class LogEntry(msgspec.Struct, forbid_unknown_fields=True):
    """One move of a table's log: which seat played which action, as the authority of ``epoch`` applied it.
    (:meth:`RedisTableStore.append` sets ``v`` and ``epoch``.)"""

    seq: Annotated[int, msgspec.Meta(ge=0, le=MAX_LOG)]
    """Its place in the log since the stored state (0, 1, 2...): an append out of place is refused."""
    seat: Annotated[int, msgspec.Meta(ge=-1, le=15)]
    """The seat that moved (``-1``: chance, :data:`gamenight.sdk.CHANCE`)."""
    action: Annotated[str, msgspec.Meta(max_length=1024)]
    at: float = 0.0
    """When the authority applied it (seconds since the epoch), for the figures only."""
    epoch: Epoch = 1
    v: int = FORMAT


class TableState(msgspec.Struct, forbid_unknown_fields=True):
    """A table as saved by its authority: the game and the table's document (the save format, as text).
    (:meth:`RedisTableStore.save_state` sets ``v`` and ``epoch``.)"""

    game: Annotated[str, msgspec.Meta(min_length=1, max_length=32, pattern=r"^[a-z0-9_-]+$")]
    document: Annotated[str, msgspec.Meta(max_length=MAX_STATE_BYTES)]
    turn: Annotated[int, msgspec.Meta(ge=0)] = 0
    """Moves of the current game the document holds: the log's moves come after them."""
    epoch: Epoch = 1
    v: int = FORMAT


class Listed(msgspec.Struct, forbid_unknown_fields=True):
    """A table in the store's list of tables (``PREFIX:tables``, a hash by table id): which game, and
    who runs it.  Every host reads the list; its sweep takes the tables whose lease lapsed."""

    game: Annotated[str, msgspec.Meta(min_length=1, max_length=32, pattern=r"^[a-z0-9_-]+$")]
    host: HostId
    epoch: Epoch
    v: int = FORMAT


class Summary(msgspec.Struct, forbid_unknown_fields=True):
    """A public table as every host's Tables list shows it (``PREFIX:lobby``, a hash by table id): the
    room protocol's :class:`~gamenight.tables.protocol.TableInfo` (what the list showed of a host's own
    tables: never a hand), and which host runs it.  Read back with :meth:`RedisTableStore.lobby`, which
    checks it as hostile (bytes, seats, names, options, the id it is filed under)."""

    host: HostId
    epoch: Epoch
    info: TableInfo
    v: int = FORMAT


class _Versioned(msgspec.Struct):
    """Only the version of a message (every other field ignored), read before the message itself."""

    v: int


@dataclass(frozen=True)
class StoredTable:
    """What :meth:`RedisTableStore.load` found of a table."""

    table: str
    epoch: int
    """The table's current epoch (0: no host ever took it)."""
    holder: Lease | None
    """The live lease, or ``None`` when no host holds the table now."""
    state: TableState | None
    log: list[LogEntry]
    """The moves since ``state``, in order (``seq`` 0, 1, 2...)."""


# -- the errors --------------------------------------------------------------------------------


class StoreError(Exception):
    """Anything the table store refuses or cannot do; the text says what, for a log line or a person."""


class StoreUnavailable(StoreError):
    """Redis could not be reached, or did not answer in time."""


class CorruptValue(StoreError):
    """A key holds something this module did not write (or of another type): never used as if it were."""


class NewerFormat(CorruptValue):
    """A value written by a newer gamenight, in a format this one cannot read."""


class LeaseHeld(StoreError):
    """Another host holds the table's lease."""

    def __init__(self, table: str, holder: Lease) -> None:
        super().__init__(f"table {table} is held by host {holder.host} (epoch {holder.epoch})")
        self.holder = holder


class StaleEpoch(StoreError):
    """A write by an authority that is no longer the table's: its epoch is old, or its lease expired."""

    def __init__(self, table: str, epoch: int, current: int, reason: str) -> None:
        super().__init__(f"table {table}: epoch {epoch} may no longer write ({reason})")
        self.epoch = epoch
        self.current = current


class OutOfOrder(StoreError):
    """An append whose place in the log is not the log's end (a move lost or sent twice)."""

    def __init__(self, table: str, seq: int, length: int) -> None:
        super().__init__(f"table {table}: move {seq} appended to a log of {length}")
        self.seq = seq
        self.length = length


_encoder = msgspec.msgpack.Encoder()
_version_decoder = msgspec.msgpack.Decoder(_Versioned)
M = TypeVar("M", bound=msgspec.Struct)


def encode(message: msgspec.Struct) -> bytes:
    return _encoder.encode(message)


def decode(kind: type[M], raw: bytes, where: str, cap: int) -> M:
    """``raw`` (read from ``where``) as a valid ``kind``; :class:`NewerFormat` or :class:`CorruptValue` otherwise."""
    if len(raw) > cap:
        raise CorruptValue(f"{where}: {len(raw)} bytes, more than a gamenight value ({cap})")
    try:
        version = _version_decoder.decode(raw).v
    except (msgspec.DecodeError, RecursionError, ValueError, OverflowError, TypeError, MemoryError) as error:
        # (msgspec.ValidationError is a DecodeError.)
        raise CorruptValue(f"{where}: not a gamenight value ({type(error).__name__}: {str(error)[:120]})") from None
    try:
        if version > FORMAT:
            raise NewerFormat(f"{where}: written in format {version} by a newer gamenight (this one reads {FORMAT})")
        if version < 1:
            raise CorruptValue(f"{where}: format {version} is not a gamenight format")
        return msgspec.msgpack.decode(raw, type=kind)
    except NewerFormat:
        raise
    except CorruptValue:
        raise
    except msgspec.ValidationError as error:
        raise CorruptValue(f"{where}: not a valid {kind.__name__}: {str(error)[:160]}") from None
    except (msgspec.DecodeError, RecursionError, ValueError, OverflowError, TypeError, MemoryError) as error:
        raise CorruptValue(f"{where}: not a gamenight value ({type(error).__name__}: {str(error)[:120]})") from None


def _epoch_of(raw: Any, where: str) -> int:
    """The epoch counter's value (``None``: 0, never taken)."""
    if raw is None:
        return 0
    text = raw.decode("ascii", "replace") if isinstance(raw, bytes) else str(raw)
    if not text.isdigit() or len(text) > 19:
        raise CorruptValue(f"{where}: {text[:40]!r} is not an epoch")
    return int(text)


# -- the scripts (each runs atomically in Redis; keys first, then arguments) --------------------

# KEYS: epoch, lease.  ARGV: the epoch read before, this host's lease at that epoch, its lease at the
# next, the ttl in ms.  Returns {2, new epoch} (taken), {1, epoch} (already this host's: extended),
# {0, lease} (another's), {-1, epoch} (the epoch moved meanwhile: read again and retry).
_ACQUIRE = """
local epoch = redis.call('GET', KEYS[1]) or '0'
if epoch ~= ARGV[1] then return {-1, epoch} end
local lease = redis.call('GET', KEYS[2])
if lease then
  if lease == ARGV[2] then
    redis.call('PEXPIRE', KEYS[2], ARGV[4])
    return {1, epoch}
  end
  return {0, lease}
end
local new = redis.call('INCR', KEYS[1])
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
return {2, new}
"""

# KEYS: epoch, lease.  ARGV: this host's lease, its epoch, ttl in ms (0: release).
# Returns {1} (renewed or released) or {0, current epoch, lease or ''}.  A release of a lease that is
# gone already, with no other epoch since, has nothing left to do: {1}.
_RENEW = """
local epoch = redis.call('GET', KEYS[1]) or '0'
local lease = redis.call('GET', KEYS[2])
if ARGV[3] == '0' and epoch == ARGV[2] and not lease then return {1} end
if epoch ~= ARGV[2] or lease ~= ARGV[1] then return {0, epoch, lease or ''} end
if ARGV[3] == '0' then redis.call('DEL', KEYS[2]) else redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return {1}
"""

# The check every fenced write begins with: the epoch is current and its lease lives.  Nothing is
# written before every check has passed (a script's error does not undo its earlier writes).
_FENCE = """
local epoch = redis.call('GET', KEYS[1]) or '0'
if epoch ~= ARGV[1] then return {0, epoch} end
local held = redis.call('TYPE', KEYS[2]).ok
if held == 'none' then return {-1, epoch} end
if held ~= 'string' then return {-3, 'lease', held} end
"""

# KEYS: epoch, lease, log.  ARGV: epoch, entry, seq.  Returns {1, stream id} or a refusal.  The same
# entry sent again (a retry after a lost answer) finds itself at the end and is not added twice.
_APPEND = (
    _FENCE
    + """
local kind = redis.call('TYPE', KEYS[3]).ok
if kind ~= 'stream' and kind ~= 'none' then return {-3, 'log', kind} end
local length = redis.call('XLEN', KEYS[3])
local seq = tonumber(ARGV[3])
if length == seq + 1 then
  local last = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 1)[1]
  if last[2][1] == 'm' and last[2][2] == ARGV[2] then return {1, last[1]} end
end
if length ~= seq then return {-2, length} end
return {1, redis.call('XADD', KEYS[3], '*', 'm', ARGV[2])}
"""
)

# KEYS: epoch, lease, state, log.  ARGV: epoch, state.  The state covers the log's moves: it goes.
_SAVE_STATE = (
    _FENCE
    + """
for i = 3, 4 do
  local kind = redis.call('TYPE', KEYS[i]).ok
  if kind ~= 'none' and kind ~= (i == 3 and 'string' or 'stream') then
    return {-3, i == 3 and 'state' or 'log', kind}
  end
end
redis.call('SET', KEYS[3], ARGV[2])
redis.call('DEL', KEYS[4])
return {1}
"""
)

# KEYS: epoch, lease, state, log, the list of tables, the lobby.  ARGV: epoch, table id.  A closed
# table's keys go (its epoch too: a stale authority's fence then finds '0', never its own epoch).
_DROP = (
    _FENCE
    + """
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[1])
redis.call('HDEL', KEYS[5], ARGV[2])
redis.call('HDEL', KEYS[6], ARGV[2])
return {1}
"""
)

# KEYS: epoch, lease, the lobby.  ARGV: epoch, table id, its summary ('': remove it).
_PUBLISH = (
    _FENCE
    + """
local kind = redis.call('TYPE', KEYS[3]).ok
if kind ~= 'hash' and kind ~= 'none' then return {-3, 'lobby', kind} end
if ARGV[3] == '' then redis.call('HDEL', KEYS[3], ARGV[2]) else redis.call('HSET', KEYS[3], ARGV[2], ARGV[3]) end
return {1}
"""
)

# KEYS: epoch, lease, the list of tables.  ARGV: epoch, table id, its entry.
_LIST = (
    _FENCE
    + """
local kind = redis.call('TYPE', KEYS[3]).ok
if kind ~= 'hash' and kind ~= 'none' then return {-3, 'tables', kind} end
redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
return {1}
"""
)

# KEYS: epoch, lease, state, log.  ARGV: caps (epoch, lease, state bytes; log entries).
# Returns {1, epoch, lease, state, entries} or {-3, key number, what} (bounded: nothing oversized is read).
_LOAD = """
for i = 1, 4 do
  local kind = redis.call('TYPE', KEYS[i]).ok
  if kind ~= 'none' then
    if kind ~= (i == 4 and 'stream' or 'string') then return {-3, i, 'a ' .. kind} end
    local size = i == 4 and redis.call('XLEN', KEYS[i]) or redis.call('STRLEN', KEYS[i])
    if size > tonumber(ARGV[i]) then return {-3, i, tostring(size) .. (i == 4 and ' entries' or ' bytes')} end
  end
end
return {1, redis.call('GET', KEYS[1]) or false, redis.call('GET', KEYS[2]) or false,
        redis.call('GET', KEYS[3]) or false, redis.call('XRANGE', KEYS[4], '-', '+')}
"""


class RedisTableStore:
    """Tables' leases and durable moves in one Redis (``redis.asyncio``), for one or many hosts."""

    def __init__(self, client: Any, prefix: str = "gamenight", where: str = "Redis") -> None:
        """``client``: a ``redis.asyncio.Redis`` (bytes, not decoded); :meth:`connect` makes one from a URL."""
        self.client = client
        self.prefix = prefix
        self.where = where
        """How errors name the server (its URL without a password)."""
        self.instance = secrets.token_hex(8)
        self._acquire = client.register_script(_ACQUIRE)
        self._renew = client.register_script(_RENEW)
        self._append = client.register_script(_APPEND)
        self._save_state = client.register_script(_SAVE_STATE)
        self._load = client.register_script(_LOAD)
        self._drop = client.register_script(_DROP)
        self._list = client.register_script(_LIST)
        self._publish = client.register_script(_PUBLISH)

    @classmethod
    def connect(cls, url: str, *, prefix: str = "gamenight", timeout: float = 5.0) -> RedisTableStore:
        """A store on the Redis at ``url`` (``redis://HOST:PORT/DB``, ``rediss://`` for TLS,
        ``unix:///PATH``); connections are made on first use, each call bounded by ``timeout``."""
        import redis.asyncio  # here, not at the top: the embedded default never loads redis
        from redis.asyncio.retry import Retry
        from redis.backoff import ExponentialWithJitterBackoff

        # A dropped connection (Redis restarted, failed over) is made again and the command sent again,
        # three times at most: every script here is safe to run twice (an append already made is found).
        client = redis.asyncio.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            decode_responses=False,
            retry=Retry(ExponentialWithJitterBackoff(cap=1.0, base=0.05), 3),
        )
        return cls(client, prefix, where=_without_password(url))

    async def close(self) -> None:
        await self.client.aclose()

    def keys(self, table_id: str) -> dict[str, str]:
        """The table's keys, by role (checked: a table id is letters and digits, at most 16)."""
        table_id = _checked(table_id, TableId, "table id")
        base = f"{self.prefix}:{{{table_id}}}"
        return {role: f"{base}:{role}" for role in ("epoch", "lease", "state", "log")}

    # -- the lease ---------------------------------------------------------------------------

    async def acquire(self, table_id: str, host_id: str, ttl: float) -> int:
        """Take ``table_id``'s lease for ``host_id`` for ``ttl`` seconds and return its epoch: a new, higher
        one when the lease was free; the same one (extended) when this host and store hold it already.
        Raises :class:`LeaseHeld` while another host holds it."""
        keys = self.keys(table_id)
        host_id = _checked(host_id, HostId, "host id")
        async with self._errors():
            for _attempt in range(8):  # the epoch moves only when a lease is taken: a few tries at most
                current = _epoch_of(await self.client.get(keys["epoch"]), keys["epoch"])
                epoch = await self._acquire_at(table_id, keys, host_id, current, ttl)
                if epoch is not None:
                    return epoch
        raise StoreError(f"table {table_id}: its epoch kept moving; not acquired")

    async def holder(self, table_id: str) -> bytes:
        """Who holds ``table_id``'s lease now, as ``b"HOST/INSTANCE"`` (``b""``: no one, its lease lapsed or
        given up).  The process that takes its own lapsed lease back (:meth:`reclaim`, a new epoch) is the
        same holder; another host, or the same host id in a new process, is another."""
        key = self.keys(table_id)["lease"]
        async with self._errors():
            raw = await self.client.get(key)
        if raw is None:
            return b""
        lease = decode(Lease, raw, key, MAX_LEASE_BYTES)
        return f"{lease.host}/{lease.instance}".encode()

    async def reclaim(self, table_id: str, host_id: str, epoch: int, ttl: float) -> int:
        """Take ``table_id``'s lease again after this host's lease of ``epoch`` lapsed, only if no other host
        took the table since: returns the new epoch (``epoch + 1``; ``epoch`` if the lease still lived).
        :class:`StaleEpoch` when another epoch took the table, :class:`LeaseHeld` while another host holds it."""
        keys = self.keys(table_id)
        host_id = _checked(host_id, HostId, "host id")
        _checked(epoch, Epoch, "epoch")
        async with self._errors():
            taken = await self._acquire_at(table_id, keys, host_id, epoch, ttl)
            if taken is not None:
                return taken
            current = _epoch_of(await self.client.get(keys["epoch"]), keys["epoch"])
        raise StaleEpoch(table_id, epoch, current, f"epoch {current} took the table")

    async def _acquire_at(
        self, table_id: str, keys: dict[str, str], host_id: str, epoch: int, ttl: float
    ) -> int | None:
        """The acquire script, if the table's epoch is still ``epoch``: the epoch held now (``epoch`` when this
        host's lease of it lives, ``epoch + 1`` when the lease was free); ``None`` when the epoch moved;
        :class:`LeaseHeld` while another host holds it."""
        answer = await self._acquire(
            keys=[keys["epoch"], keys["lease"]],
            # At epoch 0 no lease can be this host's: b"" matches none.
            args=[str(epoch), self._lease(host_id, epoch) if epoch else b"", self._lease(host_id, epoch + 1), _ms(ttl)],
        )
        code, value = int(answer[0]), answer[1]
        if code == 2:
            return int(value)
        if code == 1:
            return epoch
        if code == 0:
            raise LeaseHeld(table_id, decode(Lease, value, keys["lease"], MAX_LEASE_BYTES))
        return None

    async def renew(self, table_id: str, host_id: str, epoch: int, ttl: float) -> None:
        """Extend the lease of ``epoch`` by ``ttl`` seconds from now; :class:`StaleEpoch` when it is lost."""
        await self._renew_or_release(table_id, host_id, epoch, _ms(ttl))

    async def release(self, table_id: str, host_id: str, epoch: int) -> None:
        """Give the lease of ``epoch`` up (another host may take the table at once); :class:`StaleEpoch`
        when another epoch took the table meanwhile (then nothing changes: another's lease is never released)."""
        await self._renew_or_release(table_id, host_id, epoch, "0")

    async def _renew_or_release(self, table_id: str, host_id: str, epoch: int, ttl_ms: str) -> None:
        keys = self.keys(table_id)
        _checked(epoch, Epoch, "epoch")
        async with self._errors():
            answer = await self._renew(
                keys=[keys["epoch"], keys["lease"]], args=[self._lease(host_id, epoch), str(epoch), ttl_ms]
            )
        if int(answer[0]) != 1:
            current = _epoch_of(answer[1], keys["epoch"])
            reason = "the lease expired" if current == epoch else f"epoch {current} took the table"
            raise StaleEpoch(table_id, epoch, current, reason)

    def _lease(self, host_id: str, epoch: int) -> bytes:
        return encode(Lease(host_id, epoch, self.instance))

    # -- fenced writes -----------------------------------------------------------------------

    async def append(self, table_id: str, epoch: int, entry: LogEntry) -> bytes:
        """Add ``entry`` at the end of the table's log if ``epoch`` still holds the table; returns its stream
        id.  :class:`StaleEpoch` (nothing written) when it does not, :class:`OutOfOrder` when ``entry.seq``
        is not the log's length."""
        keys = self.keys(table_id)
        payload = encode(msgspec.structs.replace(entry, v=FORMAT, epoch=_checked(epoch, Epoch, "epoch")))
        if len(payload) > MAX_ENTRY_BYTES:
            raise ValueError(f"a log entry of {len(payload)} bytes (at most {MAX_ENTRY_BYTES})")
        async with self._errors():
            answer = await self._append(
                keys=[keys["epoch"], keys["lease"], keys["log"]], args=[str(epoch), payload, str(entry.seq)]
            )
        self._refused(table_id, epoch, keys, answer)
        if int(answer[0]) == -2:
            raise OutOfOrder(table_id, entry.seq, int(answer[1]))
        return bytes(answer[1])

    async def save_state(self, table_id: str, epoch: int, state: TableState) -> None:
        """Store ``state`` as the table's (its log, which the state now covers, is emptied) if ``epoch``
        still holds the table; :class:`StaleEpoch` (nothing written) when it does not."""
        keys = self.keys(table_id)
        payload = encode(msgspec.structs.replace(state, v=FORMAT, epoch=_checked(epoch, Epoch, "epoch")))
        if len(payload) > MAX_STATE_BYTES:
            raise ValueError(f"a table state of {len(payload)} bytes (at most {MAX_STATE_BYTES})")
        async with self._errors():
            answer = await self._save_state(
                keys=[keys["epoch"], keys["lease"], keys["state"], keys["log"]], args=[str(epoch), payload]
            )
        self._refused(table_id, epoch, keys, answer)

    async def list_table(self, table_id: str, epoch: int, entry: Listed) -> None:
        """Put the table in the store's list of tables (fenced like every write)."""
        keys = self.keys(table_id)
        payload = encode(msgspec.structs.replace(entry, v=FORMAT, epoch=_checked(epoch, Epoch, "epoch")))
        async with self._errors():
            answer = await self._list(
                keys=[keys["epoch"], keys["lease"], self.list_key], args=[str(epoch), table_id, payload]
            )
        self._refused(table_id, epoch, keys, answer)

    async def drop(self, table_id: str, epoch: int) -> None:
        """Remove a closed table: its lease, state, log, epoch and list entry (fenced: :class:`StaleEpoch`
        and nothing removed when ``epoch`` no longer holds it)."""
        keys = self.keys(table_id)
        async with self._errors():
            answer = await self._drop(
                keys=[keys["epoch"], keys["lease"], keys["state"], keys["log"], self.list_key, self.lobby_key],
                args=[str(_checked(epoch, Epoch, "epoch")), table_id],
            )
        self._refused(table_id, epoch, keys, answer)

    async def publish(self, table_id: str, epoch: int, summary: Summary | None) -> None:
        """Put the table's summary in the lobby (``None``: take it out), fenced like every write."""
        keys = self.keys(table_id)
        payload = b""
        if summary is not None:
            payload = encode(msgspec.structs.replace(summary, v=FORMAT, epoch=_checked(epoch, Epoch, "epoch")))
            if len(payload) > MAX_SUMMARY_BYTES:
                raise ValueError(f"a table summary of {len(payload)} bytes (at most {MAX_SUMMARY_BYTES})")
        async with self._errors():
            answer = await self._publish(
                keys=[keys["epoch"], keys["lease"], self.lobby_key], args=[str(epoch), table_id, payload]
            )
        self._refused(table_id, epoch, keys, answer)

    async def lobby(self) -> dict[str, Summary]:
        """Every public table's summary, of every host (bounded: at most :data:`MAX_LISTED` entries of
        :data:`MAX_SUMMARY_BYTES`; an entry that is not gamenight's, or is filed under another table's
        id, is left out, never shown)."""
        raw = await self._bounded_hash(self.lobby_key, "lobby of tables")
        summaries = {}
        for key, value in raw.items():
            table_id = _text(key)
            try:
                _checked(table_id, TableId, "table id")
                summary = decode(Summary, value, f"{self.lobby_key} {table_id}", MAX_SUMMARY_BYTES)
                _check_summary(table_id, summary)
            except (ValueError, CorruptValue):
                continue
            summaries[table_id] = summary
        return summaries

    async def _bounded_hash(self, key: str, what: str) -> dict[Any, Any]:
        """The hash at ``key`` (empty when there is none), refused when it holds more than :data:`MAX_LISTED`."""
        async with self._errors():
            kind = _text(await self.client.type(key))
            if kind == "none":
                return {}
            if kind != "hash":
                raise CorruptValue(f"{key}: holds a {kind}, not gamenight's {what}")
            size = int(await self.client.hlen(key))
            if size > MAX_LISTED:
                raise CorruptValue(f"{key}: {size} tables, more than {MAX_LISTED}")
            return dict(await self.client.hgetall(key))

    async def listed(self) -> dict[str, Listed]:
        """Every table in the store's list (bounded: at most :data:`MAX_LISTED`; an entry that is not
        gamenight's is left out and said in the log, never used)."""
        raw = await self._bounded_hash(self.list_key, "list of tables")
        tables = {}
        for key, value in raw.items():
            table_id = _text(key)
            try:
                _checked(table_id, TableId, "table id")
                tables[table_id] = decode(Listed, value, f"{self.list_key} {table_id}", MAX_LEASE_BYTES)
            except (ValueError, CorruptValue):
                continue
        return tables

    async def unheld(self, table_ids: Sequence[str]) -> list[str]:
        """Those of ``table_ids`` whose lease no host holds now (one round trip)."""
        leases = [self.keys(table_id)["lease"] for table_id in table_ids]
        if not leases:
            return []
        async with self._errors():
            async with self.client.pipeline(transaction=False) as pipe:
                for key in leases:
                    pipe.exists(key)
                held = await pipe.execute()
        return [table_id for table_id, there in zip(table_ids, held, strict=True) if not int(there)]

    async def ping(self) -> None:
        """Check that Redis answers and takes writes here (:class:`StoreUnavailable` otherwise)."""
        async with self._errors():
            await self.client.ping()
            await self.client.set(f"{self.prefix}:ping", b"1", px=60_000)

    @property
    def list_key(self) -> str:
        return f"{self.prefix}:tables"

    @property
    def lobby_key(self) -> str:
        return f"{self.prefix}:lobby"

    def _refused(self, table_id: str, epoch: int, keys: dict[str, str], answer: Sequence[Any]) -> None:
        code = int(answer[0])
        if code == 0:
            current = _epoch_of(answer[1], keys["epoch"])
            raise StaleEpoch(table_id, epoch, current, f"epoch {current} took the table")
        if code == -1:
            raise StaleEpoch(table_id, epoch, epoch, "the lease expired")
        if code == -3:
            raise CorruptValue(
                f"table {table_id}: its {_text(answer[1])} key holds a {_text(answer[2])}, not gamenight's"
            )

    # -- reading -----------------------------------------------------------------------------

    async def load(self, table_id: str) -> StoredTable:
        """The table as stored: its epoch, holder, state and the moves since (all validated, bounded)."""
        keys = self.keys(table_id)
        order = [keys["epoch"], keys["lease"], keys["state"], keys["log"]]
        async with self._errors():
            answer = await self._load(keys=order, args=[20, MAX_LEASE_BYTES, MAX_STATE_BYTES + 1024, MAX_LOG])
        if int(answer[0]) == -3:
            raise CorruptValue(f"{order[int(answer[1]) - 1]}: holds {_text(answer[2])}, not a gamenight value")
        _, epoch_raw, lease_raw, state_raw, entries = answer
        epoch = _epoch_of(epoch_raw, keys["epoch"])
        holder = decode(Lease, lease_raw, keys["lease"], MAX_LEASE_BYTES) if lease_raw is not None else None
        state = decode(TableState, state_raw, keys["state"], MAX_STATE_BYTES + 1024) if state_raw is not None else None
        log: list[LogEntry] = []
        for stream_id, fields in entries:
            where = f"{keys['log']} {_text(stream_id)}"
            values = dict(zip(fields[::2], fields[1::2], strict=True))
            if set(values) != {b"m"}:
                raise CorruptValue(f"{where}: not a gamenight log entry")
            entry = decode(LogEntry, values[b"m"], where, MAX_ENTRY_BYTES)
            if entry.seq != len(log):
                raise CorruptValue(f"{where}: move {entry.seq} where move {len(log)} belongs")
            log.append(entry)
        return StoredTable(table_id, epoch, holder, state, log)

    def _errors(self) -> contextlib.AbstractAsyncContextManager[None]:
        return redis_errors(self.where)


@contextlib.asynccontextmanager
async def redis_errors(where: str) -> AsyncIterator[None]:
    """Redis's own errors as this module's: a key of the wrong type is :class:`CorruptValue`; Redis
    unreachable, or refusing to write (out of memory, a read-only replica, a user without the rights)
    is :class:`StoreUnavailable`: nothing can go on through it, whatever it holds.  ``where``: the
    Redis as the message names it (its URL without the password)."""
    from redis import exceptions

    try:
        yield
    except (exceptions.ConnectionError, exceptions.TimeoutError, OSError) as error:
        raise StoreUnavailable(f"{where} is not reachable: {str(error)[:200]}") from None
    except exceptions.ResponseError as error:
        if "WRONGTYPE" in str(error):
            raise CorruptValue(f"{where} refused: {str(error)[:200]}") from None
        raise StoreUnavailable(f"{where} refused: {str(error)[:200]}") from None


def _checked(value: Any, kind: Any, what: str) -> Any:
    """``value`` if it is a valid ``kind``; ValueError saying what is wrong otherwise."""
    try:
        return msgspec.convert(value, kind)
    except msgspec.ValidationError as error:
        raise ValueError(f"{what} {str(value)[:40]!r}: {error}") from None


def _check_summary(table_id: str, summary: Summary) -> None:
    """ValueError unless ``summary`` is one a gamenight authority writes for ``table_id``."""
    info = summary.info
    if info.table != table_id:
        raise ValueError(f"the summary of table {info.table[:20]!r} filed under {table_id}")
    _checked(info.game, Annotated[str, msgspec.Meta(min_length=1, max_length=32, pattern=r"^[a-z0-9_-]+$")], "game")
    if not info.public or info.solo or info.status == "over":
        raise ValueError(f"table {table_id}: not a table the list shows")
    if not 1 <= len(info.seats) <= MAX_SUMMARY_SEATS or len(info.options) > MAX_SUMMARY_OPTIONS:
        raise ValueError(f"table {table_id}: {len(info.seats)} seats, {len(info.options)} options")
    if any(len(seat.name) > MAX_SUMMARY_NAME for seat in info.seats):
        raise ValueError(f"table {table_id}: a seat's name longer than {MAX_SUMMARY_NAME}")
    if not -2 <= info.to_move < len(info.seats) or info.watchers < 0 or not 0 <= info.timer <= 24 * 3600:
        raise ValueError(f"table {table_id}: a seat to move, watchers or timer out of range")


def _ms(seconds: float) -> str:
    if not 0 < seconds <= 24 * 3600:
        raise ValueError(f"a lease of {seconds} s (more than 0, at most a day)")
    return str(max(1, round(seconds * 1000)))


def _text(value: Any) -> str:
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    return text[:60]


def _without_password(url: str) -> str:
    """``url`` as it may be logged: ``redis://user:secret@host`` loses its secret.

    Everything before the last ``@`` goes (a password may hold an ``@`` or a ``/`` of its own),
    and so do the query parameters, where redis-py also takes one (``unix:///PATH?password=``).
    """
    scheme, sep, rest = url.partition("://")
    rest = rest.split("#", 1)[0].split("?", 1)[0]
    if "@" in rest:
        rest = "***@" + rest.rsplit("@", 1)[1]
    return scheme + sep + rest
