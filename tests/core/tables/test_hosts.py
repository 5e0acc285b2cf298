"""The host registry in Redis and the version handshake (:mod:`gamenight.tables.hosts`).

Two "hosts" are two registries (two clients) on one real redis-server.  Heartbeats use a short ttl
where a test lets one lapse; waits poll, no figure is a time.
"""

from __future__ import annotations

import asyncio
import time

import msgspec
import pytest
from gamenight.i18n import get_language, set_language
from gamenight.plugins import load_registry
from gamenight.tables.hosts import HostInfo, HostRegistry, TableNeeds, can_run, table_needs, this_host
from gamenight.tables.redis_store import StoreUnavailable, encode

REGISTRY = load_registry()


def test_this_host_describes_its_games_and_plugins_and_can_run_its_own_tables() -> None:
    me = this_host(REGISTRY, "host-a")
    assert "yatzy" in me.games and me.game_plugins["yatzy"] in me.plugins
    needs = table_needs(REGISTRY, "yatzy")
    assert needs.game_version == str(REGISTRY.game("yatzy").version) and needs.plugin == me.game_plugins["yatzy"]
    assert can_run(needs, me) is None
    wire = msgspec.msgpack.decode(msgspec.msgpack.encode(needs), type=TableNeeds)  # versioned, validated
    assert wire == needs and wire.v == 1


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"gamenight": "9.9.9"}, "this host host-b has gamenight 9.9.9 with yatzy"),
        ({"games": {}}, "with no yatzy."),
        ({"game_version": "0.0.1"}, "with yatzy 0.0.1"),
        ({"plugin_version": "0.0.2"}, "0.0.2)"),
    ],
)
def test_a_host_with_another_version_cannot_run_the_table_and_says_why(change: dict, said: str) -> None:
    me = this_host(REGISTRY, "host-b")
    needs = table_needs(REGISTRY, "yatzy")
    if "game_version" in change:
        me = msgspec.structs.replace(me, games={**me.games, "yatzy": change["game_version"]})
    elif "plugin_version" in change:
        plugin = me.game_plugins["yatzy"]
        me = msgspec.structs.replace(me, plugins={**me.plugins, plugin: change["plugin_version"]})
    else:
        me = msgspec.structs.replace(me, **change)
    why = can_run(needs, me)
    assert why is not None and why.startswith(f"This table runs gamenight {needs.gamenight} with yatzy "), why
    assert said in why, why
    before = get_language()
    set_language("ja")
    try:
        japanese = can_run(needs, me)
    finally:
        set_language(before)
    assert japanese is not None and japanese != why and "host-b" in japanese


@pytest.fixture
async def two_hosts(redis_server):
    a = HostRegistry.connect(redis_server.url, ttl=0.5)
    b = HostRegistry.connect(redis_server.url, ttl=0.5)
    yield a, b
    await a.close(deregister=False)
    await b.close(deregister=False)


async def wait_for(check, what: str):
    deadline = time.monotonic() + 30
    while not (found := await check()):
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)
    return found


async def test_hosts_register_beat_and_a_silent_one_lapses(two_hosts) -> None:
    a, b = two_hosts
    await a.register(this_host(REGISTRY, "host-a"))
    await b.register(this_host(REGISTRY, "host-b"))
    listed = await a.hosts()
    assert [host.host for host in listed] == ["host-a", "host-b"]
    assert listed[0].instance == a.instance and listed[1].instance == b.instance
    beats = 0
    original = a.beat

    async def counted() -> None:
        nonlocal beats
        beats += 1
        await original()

    a.beat = counted  # type: ignore[method-assign]
    await wait_for(lambda: asyncio.sleep(0, beats >= 3), "three heartbeats")
    assert [host.host for host in await b.hosts()] == ["host-a", "host-b"]  # kept alive past its ttl
    b._beating.cancel()  # host-b stops beating (dead, paused, cut off): it drops out, nothing cleaned up
    await wait_for(lambda: _without(a, "host-b"), "host-b lapsed")
    assert await a.client.smembers(a.set_key) == {b"host-a"}  # its id was forgotten with it


async def _without(registry: HostRegistry, host: str) -> bool:
    return host not in [info.host for info in await registry.hosts()]


async def test_a_host_taken_out_for_maintenance_leaves_at_once(redis_server) -> None:
    a, b = HostRegistry.connect(redis_server.url), HostRegistry.connect(redis_server.url)
    await a.register(this_host(REGISTRY, "host-a"))
    await b.register(this_host(REGISTRY, "host-b"))
    await b.close()
    assert [host.host for host in await a.hosts()] == ["host-a"]
    await a.close()


async def test_what_is_not_a_hosts_entry_is_never_listed(redis_server) -> None:
    a = HostRegistry.connect(redis_server.url)
    await a.register(this_host(REGISTRY, "host-a"))
    client = a.client
    await client.sadd(a.set_key, "host-x", "host-y", "host-z", "../bad id")
    await client.set(a.key("host-x"), b"\xc1 garbage")
    newer = msgspec.structs.replace(this_host(REGISTRY, "host-y"), v=2)
    await client.set(a.key("host-y"), encode(newer))
    await client.set(a.key("host-z"), b"x" * 20_000)
    assert [host.host for host in await a.hosts()] == ["host-a"]
    await a.close()


async def test_an_unreachable_redis_is_store_unavailable(tmp_path) -> None:
    a = HostRegistry.connect(f"unix://{tmp_path}/none.sock", timeout=0.5)
    with pytest.raises(StoreUnavailable, match="is not reachable"):
        await a.register(HostInfo(host="host-a", gamenight="0", games={}, plugins={}))
    with pytest.raises(StoreUnavailable):
        await a.hosts()
    await a.close()
