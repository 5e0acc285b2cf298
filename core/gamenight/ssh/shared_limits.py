"""Sessions per identity and per address counted across every host of one game room (``--tables-url``).

Each host counts its own logged-in sessions in one Redis hash of its own,
``PREFIX:{limits}:host:ID`` (fields ``u:USER_ID`` and ``a:ADDRESS``), which expires unless the host's
heartbeat renews it (every third of :data:`TTL_S`): a host that is killed (SIGKILL, power, network) takes
its counts with it within one ttl, nothing to clean up.  ``PREFIX:{limits}:hosts`` lists the hosts.

A new session is admitted by one Lua script (:meth:`SharedLimits.admit`): it adds up every live host's
counts for the person and the address, refuses when either is at its limit, and else counts the session on
this host -- atomically, so two hosts cannot both admit the N+1th session.  The rates per address (new
connections a minute, new guest names an hour) are counted there too (:meth:`SharedLimits.allow`, on
Redis's clock).  The host's own limits are
checked before (``--max-per-user``, ``--max-per-address``, ``--max-sessions``): when Redis cannot be
reached, those still hold (:class:`~gamenight.tables.redis_store.StoreUnavailable`: the caller logs it and
admits on its own counts only), never nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
import socket
from collections import Counter
from collections.abc import AsyncIterator, Iterable
from typing import Any

from gamenight.tables.redis_store import CorruptValue, StoreUnavailable, _without_password

__all__ = ["TTL_S", "SharedLimits", "address_field", "user_field"]

TTL_S = 15.0
"""How long a host's counts outlive its last heartbeat."""
MAX_FIELD = 80
_UNSAFE = re.compile(r"[^A-Za-z0-9._:-]+")

# KEYS[1]: the hosts' set; KEYS[2]: this host's hash; KEYS[3..]: the other hosts' hashes, as listed before.
# ARGV[1]: ttl (ms); ARGV[2]: this host's id; ARGV[3]: the hashes' key prefix; then field, limit pairs.
# Returns {1} (counted), {0, field, total} (at its limit), {-1} (the hosts changed meanwhile: list them
# again), {-3, key} (a key that is not a hash: not ours).
_ADMIT = """
local passed = {}
for i = 2, #KEYS do passed[KEYS[i]] = true end
for _, host in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if not passed[ARGV[3] .. host] then return {-1} end
end
local live = {}
for i = 2, #KEYS do
  local kind = redis.call('TYPE', KEYS[i]).ok
  if kind == 'hash' then
    live[#live + 1] = KEYS[i]
  elseif kind == 'none' then
    if i > 2 then redis.call('SREM', KEYS[1], string.sub(KEYS[i], #ARGV[3] + 1)) end
  else
    return {-3, KEYS[i]}
  end
end
for i = 4, #ARGV, 2 do
  local total = 0
  for _, key in ipairs(live) do
    total = total + (tonumber(redis.call('HGET', key, ARGV[i])) or 0)
  end
  if total >= tonumber(ARGV[i + 1]) then return {0, ARGV[i], total} end
end
for i = 4, #ARGV, 2 do redis.call('HINCRBY', KEYS[2], ARGV[i], 1) end
redis.call('PEXPIRE', KEYS[2], ARGV[1])
redis.call('SADD', KEYS[1], ARGV[2])
return {1}
"""

# KEYS[1]: this host's hash.  ARGV: fields.  A count that reaches 0 goes.
_RELEASE = """
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' then return 0 end
for i = 1, #ARGV do
  if redis.call('HINCRBY', KEYS[1], ARGV[i], -1) <= 0 then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
return 1
"""

# KEYS[1]: the hosts' set; KEYS[2]: this host's hash.  ARGV[1]: ttl (ms); ARGV[2]: host id; then field,
# count pairs: this host's own counts, written whole each time, so a count Redis lost (restarted, or the
# host silent past its ttl) or a release that did not reach it is right again within one beat.
_BEAT = """
redis.call('DEL', KEYS[2])
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[2], ARGV[1])
redis.call('SADD', KEYS[1], ARGV[2])
return 1
"""


# KEYS[1]: one address's recent events of one kind (a sorted set by time).  ARGV[1]: most events in the
# window; ARGV[2]: the window (ms); ARGV[3]: this event's member (unique).  Redis's own clock: the hosts'
# clocks may differ.  A refused event is not recorded (a flood cannot extend its own wait).
_RATE = """
local kind = redis.call('TYPE', KEYS[1]).ok
if kind ~= 'zset' and kind ~= 'none' then return -3 end
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ms, ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""


def user_field(user_id: str) -> str:
    """The count of one identity's sessions."""
    return "u:" + _UNSAFE.sub("_", user_id)[: MAX_FIELD - 2]


def address_field(address: str) -> str:
    """The count of one client address's sessions."""
    return "a:" + _UNSAFE.sub("_", address)[: MAX_FIELD - 2]


def new_host_id() -> str:
    """This process's id among the hosts: the machine's name and a random part (a restart is a new host)."""
    name = _UNSAFE.sub("-", socket.gethostname())[:40] or "host"
    return f"{name}-{secrets.token_hex(4)}"


class SharedLimits:
    """This host's sessions, counted with every other host's in one Redis (``redis.asyncio``)."""

    def __init__(
        self, client: Any, host_id: str | None = None, prefix: str = "gamenight", ttl: float = TTL_S, where: str = ""
    ) -> None:
        self.client = client
        self.host_id = host_id or new_host_id()
        self.ttl = ttl
        self.where = where or "Redis"
        base = f"{prefix}:{{limits}}"
        self.hosts_key = f"{base}:hosts"
        self.prefix = f"{base}:host:"
        self.own_key = self.prefix + self.host_id
        self.mine: Counter[str] = Counter()
        """This host's counts, written whole at each heartbeat.  A session being admitted is in it from
        before its script runs until it is refused: a beat meanwhile may count it once too often (until
        the next beat), never once too few."""
        self._admit = client.register_script(_ADMIT)
        self._release = client.register_script(_RELEASE)
        self._beat = client.register_script(_BEAT)
        self._rate = client.register_script(_RATE)
        self._events = 0
        self._beating: asyncio.Task[None] | None = None

    @classmethod
    def connect(cls, url: str, *, ttl: float = TTL_S, timeout: float = 3.0, host_id: str | None = None) -> SharedLimits:
        import redis.asyncio  # here: without --tables-url the server never loads redis
        from redis.asyncio.retry import Retry
        from redis.backoff import ExponentialWithJitterBackoff

        # A dropped connection (Redis restarted) is made again and the command sent again, twice at most;
        # a count changed twice that way is right again at the next heartbeat (it writes the host's whole).
        client = redis.asyncio.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            decode_responses=False,
            retry=Retry(ExponentialWithJitterBackoff(cap=0.5, base=0.05), 2),
        )
        return cls(client, host_id, ttl=ttl, where=_without_password(url))

    def _ms(self) -> str:
        return str(max(1, round(self.ttl * 1000)))

    async def admit(self, limits: dict[str, int]) -> tuple[str, int] | None:
        """Count one more session under each field of ``limits`` (field -> most sessions on every host
        together), unless one is at its limit: then that field and its total, nothing counted.  Raises
        :class:`StoreUnavailable` (nothing counted) when Redis cannot be reached."""
        self._start_beating()
        args: list[str] = []
        for field, limit in limits.items():
            args += [field, str(limit)]
        self.mine.update(limits.keys())
        try:
            refused = await self._admit_counted(limits, args)
        except BaseException:
            self._forget(limits.keys())
            raise
        if refused is not None:
            self._forget(limits.keys())
        return refused

    def _forget(self, fields: Iterable[str]) -> None:
        for field in fields:
            self.mine[field] -= 1
            if self.mine[field] <= 0:
                del self.mine[field]

    async def _admit_counted(self, limits: dict[str, int], args: list[str]) -> tuple[str, int] | None:
        async with self._errors():
            for _attempt in range(8):
                others = sorted(
                    raw.decode("utf-8", "replace") for raw in await self.client.smembers(self.hosts_key) or ()
                )
                keys = [self.hosts_key, self.own_key]
                keys += [self.prefix + host for host in others if host != self.host_id]
                answer = await self._admit(keys=keys, args=[self._ms(), self.host_id, self.prefix, *args])
                code = int(answer[0])
                if code == 1:
                    return None
                if code == 0:
                    return bytes(answer[1]).decode(), int(answer[2])
                if code == -3:
                    raise CorruptValue(f"{self.where}: {bytes(answer[1]).decode('utf-8', 'replace')} is not a count")
        raise StoreUnavailable(f"{self.where}: the hosts kept changing; not counted")

    async def allow(self, kind: str, address: str, limit: int, window: float) -> bool:
        """Record one ``kind`` of event (a new connection, a new guest name) from ``address`` unless
        ``limit`` of them reached Redis from it, on any host, in the last ``window`` seconds.  Raises
        :class:`StoreUnavailable` when Redis cannot be reached (nothing recorded)."""
        self._events += 1
        key = f"{self.prefix.removesuffix('host:')}rate:{_UNSAFE.sub('_', kind)[:16]}:{address_field(address)}"
        async with self._errors():
            answer = int(
                await self._rate(
                    keys=[key], args=[str(limit), str(max(1, round(window * 1000))), f"{self.host_id}:{self._events}"]
                )
            )
        if answer == -3:
            raise CorruptValue(f"{self.where}: {key} is not a window of events")
        return answer == 1

    async def release(self, fields: Iterable[str]) -> None:
        """A session counted by :meth:`admit` has ended."""
        fields = list(fields)
        self._forget(fields)  # a release that does not reach Redis is made good by the next beat
        async with self._errors():
            await self._release(keys=[self.own_key], args=fields)

    async def beat(self) -> None:
        """Keep this host's counts alive for another ttl (and write them again if Redis lost them)."""
        pairs: list[str] = []
        for field, count in self.mine.items():
            pairs += [field, str(count)]
        async with self._errors():
            await self._beat(keys=[self.hosts_key, self.own_key], args=[self._ms(), self.host_id, *pairs])

    def _start_beating(self) -> None:
        if self._beating is None:
            self._beating = asyncio.get_running_loop().create_task(self._beat_forever())

    async def _beat_forever(self) -> None:
        while True:
            await asyncio.sleep(self.ttl / 3)
            with contextlib.suppress(StoreUnavailable, CorruptValue):  # tried again at the next beat
                await self.beat()

    async def close(self) -> None:
        """Stop counting: this host's counts go at once (a host stopped for maintenance)."""
        if self._beating is not None:
            self._beating.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._beating
            self._beating = None
        with contextlib.suppress(StoreUnavailable, CorruptValue):
            async with self._errors():
                await self.client.delete(self.own_key)
                await self.client.srem(self.hosts_key, self.host_id)
        await self.client.aclose()

    @contextlib.asynccontextmanager
    async def _errors(self) -> AsyncIterator[None]:
        from redis import exceptions

        try:
            yield
        except (exceptions.ConnectionError, exceptions.TimeoutError, OSError) as error:
            raise StoreUnavailable(f"{self.where} is not reachable: {str(error)[:200]}") from None
        except exceptions.ResponseError as error:
            raise StoreUnavailable(f"{self.where} refused: {str(error)[:200]}") from None
