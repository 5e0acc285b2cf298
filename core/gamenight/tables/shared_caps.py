"""Table caps and private tables' codes across every host of one game room (``--tables-url``).

Used by :mod:`gamenight.tables.limits` and :mod:`gamenight.tables.seats` only when the tables are in Redis
(the same shape as :mod:`gamenight.ssh.shared_limits`, which counts sessions):

* **Counts per host.**  Each host writes what it counts -- its open shared tables per hosting identity and
  per address, its unfinished solo tables per address (and per address and identity) -- in one hash of its
  own, ``PREFIX:{caps}:host:ID``, whole, at each heartbeat (every third of :data:`TTL_S`) and whenever a
  count changes; the hash expires unless renewed, so a host that dies takes its counts with it within one
  ttl.  ``PREFIX:{caps}:hosts`` lists the hosts.  Fields are hashes of an identity or an address, never
  the names themselves.
* **Atomic admission.**  A table is opened only after one Lua script (:meth:`SharedCaps.admit`) has
  written this host's own exact counts, added up every live host's, refused when a cap is reached, and
  else counted the table on this host: two hosts opening at once against a cap of N admit exactly N.
  Redis unreachable (or slower than :data:`ADMIT_TIMEOUT`): the caller admits on its own caps only, which
  it always checks first -- never no caps at all.
* **Kept solo games.**  Each host writes the kept games it runs, per person, in
  ``PREFIX:{caps}:kept:HOST:PERSON`` (alive with its counts), so a person's ``ListKept`` on any host lists
  them all (:meth:`SharedCaps.kept_of`, bounded and checked as hostile).
* **Codes.**  A private table's code is in no lobby: ``PREFIX:{codes}:index`` maps a keyed hash of the code
  (HMAC-SHA-256 under ``PREFIX:{codes}:key``, a random key the first host writes) to the table's id, read
  only by hosts.  Wrong codes are counted per identity and per address on Redis's clock
  (``PREFIX:{caps}:guess:...``, sorted sets): each try is counted before it is looked up and forgiven
  when it was right, so N hosts together let through at most the limit of wrong ones.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import re
import secrets
from collections import Counter
from collections.abc import Callable
from typing import Annotated, Any

import msgspec

from gamenight.tables.protocol import TableInfo
from gamenight.tables.redis_store import (
    FORMAT,
    MAX_SUMMARY_BYTES,
    CorruptValue,
    StoreUnavailable,
    decode,
    encode,
    redis_errors,
)

__all__ = [
    "ADMIT_TIMEOUT",
    "TTL_S",
    "Check",
    "Kept",
    "SharedCaps",
    "field",
]

log = logging.getLogger("gamenight.tables")

TTL_S = 15.0
"""How long a host's counts outlive its last heartbeat (a dead host's tables stop counting after this)."""
ADMIT_TIMEOUT = 2.0
"""Seconds an admission waits for Redis before the host admits on its own caps."""
MAX_CODE_INDEX = 100_000
"""Entries the code index may hold; past it a host adds none (a code then works on its own host only)."""
MAX_HOSTS_READ = 64
"""Hosts whose kept games one list reads at most."""
MAX_KEPT_READ = 16
"""Kept games of one person one host's entry may hold before it is left out (a host keeps five)."""
_TABLE_ID = re.compile(r"^[A-Za-z0-9]{1,16}$")
_HOST = re.compile(r"[^A-Za-z0-9._:@-]+")

Check = tuple[str, str, int]
"""(field, field subtracted from it or ``""``, cap): refused when every host's first less the second reaches the cap."""


class Kept(msgspec.Struct, forbid_unknown_fields=True):
    """A person's kept solo game as the host running it lists it for every host (``ListKept``)."""

    host: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    opened: float
    info: TableInfo
    v: int = FORMAT


def field(kind: str, *parts: str) -> str:
    """A count's field: its kind and a hash of the identity or address it counts (never the name itself)."""
    digest = hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return f"{kind}:{digest}"


# KEYS[1]: the hosts' set; KEYS[2]: this host's hash; KEYS[3..]: the other hosts' hashes, as listed before.
# ARGV[1]: ttl (ms); ARGV[2]: this host's id; ARGV[3]: the hashes' key prefix; ARGV[4]: pairs to set;
# ARGV[5]: checks; then the pairs (field, this host's exact count), the checks (field, subtracted field or
# '', cap) and the fields counted one more when admitted.  Returns {1} (counted), {0, field, total} (at its
# cap), {-1} (the hosts changed meanwhile: list them again), {-3, key} (a key that is not a hash: not ours).
_ADMIT = """
local passed = {}
for i = 2, #KEYS do passed[KEYS[i]] = true end
for _, host in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if not passed[ARGV[3] .. host] then return {-1} end
end
local live = {}
for i = 2, #KEYS do
  local kind = redis.call('TYPE', KEYS[i]).ok
  if kind == 'hash' or (i == 2 and kind == 'none') then
    live[#live + 1] = KEYS[i]
  elseif kind == 'none' then
    redis.call('SREM', KEYS[1], string.sub(KEYS[i], #ARGV[3] + 1))
  else
    return {-3, KEYS[i]}
  end
end
local sets, checks = tonumber(ARGV[4]), tonumber(ARGV[5])
local at = 6
for _ = 1, sets do
  if tonumber(ARGV[at + 1]) > 0 then redis.call('HSET', KEYS[2], ARGV[at], ARGV[at + 1])
  else redis.call('HDEL', KEYS[2], ARGV[at]) end
  at = at + 2
end
local function total(name)
  local sum = 0
  for _, key in ipairs(live) do sum = sum + (tonumber(redis.call('HGET', key, name)) or 0) end
  return sum
end
for _ = 1, checks do
  local count = total(ARGV[at])
  if ARGV[at + 1] ~= '' then count = count - total(ARGV[at + 1]) end
  if count >= tonumber(ARGV[at + 2]) then return {0, ARGV[at], count} end
  at = at + 3
end
for i = at, #ARGV do redis.call('HINCRBY', KEYS[2], ARGV[i], 1) end
redis.call('PEXPIRE', KEYS[2], ARGV[1])
redis.call('SADD', KEYS[1], ARGV[2])
return {1}
"""

# KEYS[1]: the hosts' set; KEYS[2]: this host's hash.  ARGV[1]: ttl (ms); ARGV[2]: host id; then field,
# count pairs: this host's counts, written whole (a count Redis lost is right again within one beat).
_BEAT = """
local kind = redis.call('TYPE', KEYS[2]).ok
if kind ~= 'hash' and kind ~= 'none' then return -3 end
redis.call('DEL', KEYS[2])
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
if #ARGV > 2 then redis.call('PEXPIRE', KEYS[2], ARGV[1]) end
redis.call('SADD', KEYS[1], ARGV[2])
return 1
"""

# KEYS: the windows of tries (sorted sets by time: an identity's, an address's).  ARGV[1]: window (ms);
# ARGV[2]: this try's member (unique); then each key's cap.  Counted before the code is looked up (a right
# one is forgiven after), so tries on every host at once never pass the cap.  Returns {1} or {0, key number}.
_TRY = """
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
for i = 1, #KEYS do
  local kind = redis.call('TYPE', KEYS[i]).ok
  if kind ~= 'zset' and kind ~= 'none' then return {-3, i} end
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', ms - tonumber(ARGV[1]))
  if redis.call('ZCARD', KEYS[i]) >= tonumber(ARGV[i + 2]) then return {0, i} end
end
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], ms, ARGV[2])
  redis.call('PEXPIRE', KEYS[i], ARGV[1])
end
return {1}
"""

# KEYS[1]: the code index.  ARGV: the code's hashed field, the table id, the index's cap.
_INDEX = """
local kind = redis.call('TYPE', KEYS[1]).ok
if kind ~= 'hash' and kind ~= 'none' then return -3 end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""

# KEYS[1]: the code index.  ARGV: the code's hashed field, the table id: removed only if it is that table's.
_UNINDEX = """
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' then return 0 end
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[1]) end
return 1
"""


class SharedCaps:
    """This host's tables, counted with every other host's, and private tables' codes, in one Redis."""

    def __init__(self, client: Any, host_id: str, prefix: str = "gamenight", ttl: float | None = None) -> None:
        self.client = client
        self.host_id = _HOST.sub("-", host_id)[:64] or "host"
        self.ttl = TTL_S if ttl is None else ttl
        base = f"{prefix}:{{caps}}"
        self.hosts_key = f"{base}:hosts"
        self.prefix = f"{base}:host:"
        self.own_key = self.prefix + self.host_id
        self.guess_prefix = f"{base}:guess:"
        self.index_key = f"{prefix}:{{codes}}:index"
        self.secret_key = f"{prefix}:{{codes}}:key"
        self._secret: bytes | None = None
        self._admit = client.register_script(_ADMIT)
        self._beat = client.register_script(_BEAT)
        self._try = client.register_script(_TRY)
        self._index = client.register_script(_INDEX)
        self._unindex = client.register_script(_UNINDEX)
        self._tries = 0
        self._lock = asyncio.Lock()
        """One admission or beat at a time: each writes this host's own counts as they are when it runs."""
        self.written: Counter[str] | None = None
        """This host's counts as last written (``None``: not yet, or a write failed)."""

    def _ms(self) -> str:
        return str(max(1, round(self.ttl * 1000)))

    # -- the caps ------------------------------------------------------------------------------

    async def admit(
        self,
        own: Callable[[], Counter[str]],
        checks: list[Check],
        counted: list[str],
        admitted: Callable[[], None],
    ) -> tuple[str, int] | None:
        """Write this host's own counts (``own()``: read when Redis is written, one admission or beat at a
        time) of the checked fields, then count one more table under each of ``counted`` unless a check is at
        its cap on every host together: then that field and its total, nothing counted.  ``admitted()`` is
        called at once when it was counted (the caller counts the table as its own from then on).
        :class:`StoreUnavailable` (nothing counted) when Redis cannot be reached."""
        names = sorted({name for check in checks for name in check[:2] if name})
        flat: list[str] = []
        for name, minus, cap in checks:
            flat += [name, minus, str(cap)]
        async with self._lock, redis_errors("Redis"):
            for _attempt in range(8):
                listed = await self.client.smembers(self.hosts_key) or ()
                others = sorted(raw.decode("utf-8", "replace") for raw in listed)
                keys = [self.hosts_key, self.own_key]
                keys += [self.prefix + host for host in others if host != self.host_id]
                counts = own()
                pairs: list[str] = []
                for name in names:
                    pairs += [name, str(counts.get(name, 0))]
                args = [self._ms(), self.host_id, self.prefix, str(len(names)), str(len(checks))]
                answer = await self._admit(keys=keys, args=[*args, *pairs, *flat, *counted])
                code = int(answer[0])
                if code == 1:
                    admitted()
                    self.written = None  # this host's hash changed: the next look writes it whole
                    return None
                if code == 0:
                    return bytes(answer[1]).decode(), int(answer[2])
                if code == -3:
                    raise CorruptValue(f"{bytes(answer[1]).decode('utf-8', 'replace')[:80]} is not a count")
        raise StoreUnavailable("the hosts kept changing; not counted")

    async def beat(self, own: Callable[[], Counter[str]]) -> None:
        """Write this host's counts (``own()``) whole, alive for another ttl."""
        async with self._lock:
            counts = own()
            pairs: list[str] = []
            for name, count in sorted(counts.items()):
                if count > 0:
                    pairs += [name, str(count)]
            async with redis_errors("Redis"):
                answer = await self._beat(keys=[self.hosts_key, self.own_key], args=[self._ms(), self.host_id, *pairs])
            if int(answer) == -3:
                raise CorruptValue(f"{self.own_key} is not a hash of counts")
            self.written = Counter({name: count for name, count in counts.items() if count > 0})

    async def forget_host(self) -> None:
        """This host stops: its counts go at once."""
        async with redis_errors("Redis"):
            await self.client.delete(self.own_key)
            await self.client.srem(self.hosts_key, self.host_id)

    # -- kept solo games ---------------------------------------------------------------------------

    def kept_key(self, host: str, person: str) -> str:
        return f"{self.prefix.removesuffix('host:')}kept:{host}:{person}"

    async def write_kept(
        self, sets: list[tuple[str, str, bytes]], gone: list[tuple[str, str]], alive: list[str]
    ) -> None:
        """This host's kept games: ``sets`` (person's field, table id, :class:`Kept`) written, ``gone`` ones
        taken out, and every person's key in ``alive`` kept another ttl (a dead host's lapse with it)."""
        async with redis_errors("Redis"), self.client.pipeline(transaction=False) as pipe:
            for person, table_id, value in sets:
                pipe.hset(self.kept_key(self.host_id, person), table_id, value)
            for person, table_id in gone:
                pipe.hdel(self.kept_key(self.host_id, person), table_id)
            for person in alive:
                pipe.pexpire(self.kept_key(self.host_id, person), self._ms())
            await pipe.execute()

    async def kept_of(self, person: str) -> list[Kept]:
        """The kept games of ``person`` (a field of :func:`field`) other hosts list (bounded; an entry that
        is not gamenight's, or filed under another id, is left out)."""
        async with redis_errors("Redis"):
            listed = await self.client.smembers(self.hosts_key) or ()
            hosts = sorted(raw.decode("utf-8", "replace") for raw in listed)[:MAX_HOSTS_READ]
            keys = [self.kept_key(host, person) for host in hosts if host != self.host_id]
            if not keys:
                return []
            async with self.client.pipeline(transaction=False) as pipe:
                for key in keys:
                    pipe.type(key)
                    pipe.hlen(key)
                sizes = await pipe.execute()
            readable = [
                key
                for key, kind, size in zip(keys, sizes[::2], sizes[1::2], strict=True)
                if kind in (b"hash", "hash") and 0 < int(size) <= MAX_KEPT_READ
            ]
            async with self.client.pipeline(transaction=False) as pipe:
                for key in readable:
                    pipe.hgetall(key)
                entries = await pipe.execute()
        found = []
        for key, entry in zip(readable, entries, strict=True):
            for table_id, raw in dict(entry).items():
                try:
                    kept = decode(Kept, bytes(raw), key, MAX_SUMMARY_BYTES)
                except CorruptValue:
                    continue
                if kept.info.table == bytes(table_id).decode("ascii", "replace") and kept.info.solo:
                    found.append(kept)
        return found

    # -- codes -----------------------------------------------------------------------------------

    async def _key(self) -> bytes:
        if self._secret is None:
            async with redis_errors("Redis"):
                await self.client.set(self.secret_key, secrets.token_bytes(32), nx=True)
                secret = await self.client.get(self.secret_key)
            if not isinstance(secret, bytes) or len(secret) < 16 or len(secret) > 1024:
                raise CorruptValue(f"{self.secret_key} is not a key")
            self._secret = secret
        return self._secret

    async def _code_field(self, code: str) -> str:
        return hmac.new(await self._key(), code.upper().encode(), hashlib.sha256).hexdigest()[:32]

    async def index(self, code: str, table_id: str) -> bool:
        """File the private table ``table_id`` under its code's keyed hash (``False``: the index is full)."""
        name = await self._code_field(code)
        async with redis_errors("Redis"):
            answer = int(await self._index(keys=[self.index_key], args=[name, table_id, str(MAX_CODE_INDEX)]))
        if answer == -3:
            raise CorruptValue(f"{self.index_key} is not gamenight's index of codes")
        return answer == 1

    async def unindex(self, code: str, table_id: str) -> None:
        name = await self._code_field(code)
        async with redis_errors("Redis"):
            await self._unindex(keys=[self.index_key], args=[name, table_id])

    async def lookup(self, code: str) -> str | None:
        """The id of the private table filed under ``code`` (``None``: none; an entry that is not a table id
        is never used)."""
        name = await self._code_field(code)
        async with redis_errors("Redis"):
            raw = await self.client.hget(self.index_key, name)
        if not isinstance(raw, bytes) or not _TABLE_ID.match(raw.decode("ascii", "replace")):
            return None
        return raw.decode("ascii")

    async def try_code(self, windows: list[tuple[str, int]], window: float) -> str | None:
        """Count one try of a code in each of ``windows`` (a name -- identity or address -- and its cap of
        wrong tries in ``window`` seconds): its token (to :meth:`forgive` when it was right), or ``None``
        when one is at its cap (nothing counted)."""
        self._tries += 1
        token = f"{self.host_id}:{self._tries}:{secrets.token_hex(4)}"
        keys = [self.guess_prefix + name for name, _cap in windows]
        caps = [str(cap) for _name, cap in windows]
        async with redis_errors("Redis"):
            answer = await self._try(keys=keys, args=[str(max(1, round(window * 1000))), token, *caps])
        if int(answer[0]) == -3:
            raise CorruptValue(f"{keys[int(answer[1]) - 1]} is not a window of tries")
        return token if int(answer[0]) == 1 else None

    async def forgive(self, windows: list[str], token: str) -> None:
        """The try ``token`` was a right code: it no longer counts."""
        async with redis_errors("Redis"):
            async with self.client.pipeline(transaction=False) as pipe:
                for name in windows:
                    pipe.zrem(self.guess_prefix + name, token)
                await pipe.execute()


def kept_entry(host: str, opened: float, info: TableInfo) -> bytes:
    return encode(Kept(host, opened, info))


async def bounded(call: Any, what: str) -> Any:
    """``await call`` within :data:`ADMIT_TIMEOUT`; :class:`StoreUnavailable` when Redis is slower or away."""
    try:
        return await asyncio.wait_for(call, ADMIT_TIMEOUT)
    except TimeoutError:
        raise StoreUnavailable(f"Redis did not answer {what} within {ADMIT_TIMEOUT} s") from None
