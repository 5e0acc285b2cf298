"""Which hosts serve one game room, what each runs, and whether a host can run a given table.

Several ``serve-ssh`` hosts behind one load balancer share one Redis (``--tables-url``).  Each host
registers there (:class:`HostRegistry`): its id, its gamenight version, its plugins and games with
their versions, and when it started, as one versioned message (:class:`HostInfo`, MessagePack,
validated and bounded on reading like every value of :mod:`gamenight.tables.redis_store`) under a key
that expires unless the host renews it (a heartbeat every third of the ttl): a host that dies, is
paused or is cut off drops out of :meth:`HostRegistry.hosts` within one ttl, nothing to clean up.

Before a host takes a table over (its authority gone), it asks :func:`can_run`: the table's needs
(:class:`TableNeeds`: the gamenight version it was running under, its game and that game's version and
plugin) against the host's own :class:`HostInfo`.  A host that cannot run the table refuses it and
says why, in the person's language::

    needs = table_needs(registry, "yatzy")        # on the host that opens the table, kept with it
    me = this_host(registry, "host-a")            # each host's own description
    why = can_run(needs, me)                      # None: it can; else the reason, translated
    hosts = await HostRegistry.connect(url).hosts()   # every live host (stale ones dropped)

Keys: ``PREFIX:host:{ID}`` (a :class:`HostInfo`, expiring after the ttl) and ``PREFIX:hosts`` (the
set of ids, for listing; an id whose key has expired is removed from it when the list is read).
Nothing here is imported by the embedded default: ``redis`` is loaded only by :meth:`HostRegistry.connect`.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import msgspec

from gamenight.i18n import _
from gamenight.tables.redis_store import (
    CorruptValue,
    HostId,
    NewerFormat,
    StoreUnavailable,
    _without_password,
    decode,
    encode,
    redis_errors,
)

if TYPE_CHECKING:
    from gamenight.plugins import Registry

__all__ = [
    "FORMAT",
    "HostInfo",
    "HostRegistry",
    "TableNeeds",
    "can_run",
    "gamenight_version",
    "table_needs",
    "this_host",
]

FORMAT = 1
"""The format of :class:`HostInfo`; a reader refuses a newer one (:class:`NewerFormat`)."""
MAX_HOST_BYTES = 16 * 1024
"""Bytes of one host's description (a few dozen plugins take about 2 KiB)."""
MAX_HOSTS = 256
"""Hosts :meth:`HostRegistry.hosts` reads at most (a room behind one balancer has a handful)."""
TTL_S = 15.0
"""How long a host's entry lives without a heartbeat (it beats every third of it)."""

Version = Annotated[str, msgspec.Meta(max_length=64)]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
GameId = Annotated[str, msgspec.Meta(min_length=1, max_length=32, pattern=r"^[a-z0-9_-]+$")]


class TableNeeds(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What a table needs of a host to be run there: what the host that opened it was running."""

    gamenight: Version
    game: GameId
    game_version: Version
    plugin: Annotated[str, msgspec.Meta(max_length=64)] = ""
    """The plugin's distribution (``gamenight-yatzy``), ``""`` when the game came without one (tests)."""
    plugin_version: Version = ""
    v: int = FORMAT


class HostInfo(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One host as it registers: who it is and what it runs."""

    host: HostId
    gamenight: Version
    games: Annotated[dict[GameId, Version], msgspec.Meta(max_length=128)]
    """Each game it can run: its id and version."""
    plugins: Annotated[dict[Name, Version], msgspec.Meta(max_length=128)]
    """Each plugin it loaded: its distribution name and version."""
    game_plugins: Annotated[dict[GameId, Name], msgspec.Meta(max_length=128)] = {}
    """Which plugin brought each game."""
    started: float = 0.0
    instance: Annotated[str, msgspec.Meta(max_length=32)] = ""
    """The process (random per registry): two processes misconfigured with one host id still differ."""
    data_dir_id: Annotated[str, msgspec.Meta(max_length=64)] = ""
    """The id of the data dir it uses (its marker file), for the check that every host shares one."""
    v: int = FORMAT


def gamenight_version() -> str:
    from gamenight import __version__

    return __version__


def this_host(registry: Registry, host_id: str, data_dir_id: str = "") -> HostInfo:
    """This host's description, from the plugins it loaded (those that failed run no game)."""
    games = {game_id: str(game.version) for game_id, game in registry.games.items()}
    plugins: dict[str, str] = {}
    owner: dict[str, str] = {}
    for record in registry.plugins:
        if record.errors:
            continue
        name = (record.distribution or record.name)[:64]
        plugins[name] = record.version[:64]
        for game_id in record.games:
            owner[game_id] = name
    return HostInfo(
        host=host_id,
        gamenight=gamenight_version(),
        games=games,
        plugins=plugins,
        game_plugins={game_id: name for game_id, name in owner.items() if game_id in games},
        started=time.time(),
        data_dir_id=data_dir_id,
    )


def table_needs(registry: Registry, game_id: str) -> TableNeeds:
    """What a table of ``game_id`` opened on this host needs of the host that takes it over."""
    info = this_host(registry, "-")
    game = registry.game(game_id)
    plugin = info.game_plugins.get(game_id, "")
    return TableNeeds(
        gamenight=info.gamenight,
        game=game_id,
        game_version=str(game.version),
        plugin=plugin,
        plugin_version=info.plugins.get(plugin, ""),
    )


def can_run(needs: TableNeeds, host: HostInfo) -> str | None:
    """Whether ``host`` can run a table with these ``needs``: ``None`` if it can, else why not (in the
    current language).  The versions must be the same: a game's rules, its save format and its bots
    are those of its version, and a table's state was made by them."""
    has_game = host.games.get(needs.game)
    plugin = host.game_plugins.get(needs.game, needs.plugin)
    plugin_version = host.plugins.get(plugin, "") if plugin else ""
    if (
        needs.gamenight == host.gamenight
        and has_game == needs.game_version
        and (not needs.plugin or (plugin == needs.plugin and plugin_version == needs.plugin_version))
    ):
        return None
    wanted = _describe(needs.game, needs.game_version, needs.plugin, needs.plugin_version)
    if has_game is None:
        present = _("no {game}", game=needs.game)
    else:
        present = _describe(needs.game, has_game, plugin, plugin_version)
    return _(
        "This table runs gamenight {gamenight} with {game}; this host {host} has gamenight {host_gamenight} "
        "with {host_game}.",
        gamenight=needs.gamenight,
        game=wanted,
        host=host.host,
        host_gamenight=host.gamenight,
        host_game=present,
    )


def _describe(game: str, version: str, plugin: str, plugin_version: str) -> str:
    text = f"{game} {version}"
    return f"{text} ({plugin} {plugin_version})" if plugin else text


class HostRegistry:
    """The hosts of one game room, registered in Redis with a heartbeat (``redis.asyncio``)."""

    def __init__(
        self,
        client: Any,
        prefix: str = "gamenight",
        where: str = "Redis",
        ttl: float = TTL_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """``client``: a ``redis.asyncio.Redis`` (bytes, not decoded); :meth:`connect` makes one from a URL."""
        self.client = client
        self.prefix = prefix
        self.where = where
        self.ttl = ttl
        self.clock = clock
        self.instance = secrets.token_hex(8)
        self._info: HostInfo | None = None
        self._beating: asyncio.Task[None] | None = None
        self.last_error: str | None = None
        """Why the last heartbeat failed (``None``: it went through)."""

    @classmethod
    def connect(cls, url: str, *, prefix: str = "gamenight", ttl: float = TTL_S, timeout: float = 5.0) -> HostRegistry:
        import redis.asyncio  # here: the embedded default never loads redis

        client = redis.asyncio.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout, decode_responses=False
        )
        return cls(client, prefix, where=_without_password(url), ttl=ttl)

    def key(self, host_id: str) -> str:
        return f"{self.prefix}:host:{{{msgspec.convert(host_id, HostId)}}}"

    @property
    def set_key(self) -> str:
        return f"{self.prefix}:hosts"

    async def register(self, info: HostInfo) -> None:
        """Register ``info`` now (raises :class:`StoreUnavailable`) and keep it alive with a heartbeat
        until :meth:`close`."""
        self._info = msgspec.structs.replace(info, instance=self.instance)
        await self.beat()
        if self._beating is None:
            self._beating = asyncio.get_running_loop().create_task(self._beat_forever())

    async def beat(self) -> None:
        """Write this host's entry again, for another ttl."""
        assert self._info is not None, "register first"
        async with self._errors():
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.set(self.key(self._info.host), encode(self._info), px=max(1, round(self.ttl * 1000)))
                pipe.sadd(self.set_key, self._info.host)
                await pipe.execute()

    async def _beat_forever(self) -> None:
        while True:
            await asyncio.sleep(self.ttl / 3)
            try:
                await self.beat()
                self.last_error = None
            except StoreUnavailable as error:  # tried again at the next beat; the entry may lapse meanwhile
                self.last_error = str(error)

    async def hosts(self) -> list[HostInfo]:
        """Every live host, by id (an entry that is not a host's is left out, and the set forgets ids
        whose entry expired).  Raises :class:`StoreUnavailable`."""
        async with self._errors():
            ids = sorted(await self.client.srandmember(self.set_key, MAX_HOSTS) or [])
            if not ids:
                return []
            names = [raw.decode("utf-8", "replace") for raw in ids]
            keys = []
            for name in names:
                try:
                    keys.append(self.key(name))
                except msgspec.ValidationError:
                    keys.append("")
            values = await self.client.mget([key or self.set_key + ":none" for key in keys])
            found: list[HostInfo] = []
            gone = []
            for raw_id, key, raw in zip(ids, keys, values, strict=True):
                if raw is None or not key:
                    gone.append(raw_id)
                    continue
                try:
                    found.append(decode(HostInfo, raw, key, MAX_HOST_BYTES))
                except (CorruptValue, NewerFormat):
                    continue  # not ours to read: never trusted, never removed
            if gone:
                await self.client.srem(self.set_key, *gone)
        return found

    async def close(self, deregister: bool = True) -> None:
        """Stop the heartbeat; with ``deregister`` remove this host's entry at once (a host leaving for
        maintenance), else it lapses after the ttl."""
        if self._beating is not None:
            self._beating.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._beating
            self._beating = None
        if deregister and self._info is not None:
            with contextlib.suppress(StoreUnavailable):
                async with self._errors():
                    await self.client.delete(self.key(self._info.host))
                    await self.client.srem(self.set_key, self._info.host)
        await self.client.aclose()

    def _errors(self) -> contextlib.AbstractAsyncContextManager[None]:
        return redis_errors(self.where)
