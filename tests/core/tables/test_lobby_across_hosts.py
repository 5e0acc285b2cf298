"""One Tables list across hosts: every host's list shows the public tables of every host on one Redis.

Two "hosts" are two :class:`TableService` objects in this process on one real ``redis-server`` of the
test's own (as in test_authority.py).  Host B reads the store's lobby every 0.05 s while a room there keeps
the list open; the waits poll with a bound, and no figure is a time.
"""

from __future__ import annotations

import asyncio

import msgspec
import pytest
from gamenight.tables import protocol as p
from gamenight.tables.redis_store import FORMAT, StaleEpoch, Summary, encode

from .conftest import connect, play_to_the_end
from .test_authority import a_host, until

FAST_LOBBY = 0.05


@pytest.fixture
async def hosts(redis_server, tmp_path):
    made = []

    async def make(name: str, **options):
        service = await a_host(redis_server, tmp_path, name, lobby_interval=FAST_LOBBY, **options)
        made.append(service)
        return service

    yield make
    for service in made:
        await asyncio.wait_for(service.close(), 10)


def listed(client, table_id: str) -> p.TableInfo | None:
    return next((info for info in client.tables if info.table == table_id), None)


async def open_nim(host, who: str = "ann", public: bool = True) -> tuple[object, str]:
    client = await connect(host, f"key:{who}", who)
    await client.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("person")], {"sticks": 9}, public))
    return client, (await client.wait_for(lambda c: c.snapshot)).table.table


async def test_a_room_on_one_host_lists_the_tables_another_host_runs(hosts, monkeypatch):
    a, b = await hosts("host-a"), await hosts("host-b")
    ann, table_id = await open_nim(a)
    monkeypatch.setattr(a.tables[table_id].game.rules, "watchable", True, raising=False)
    _, private_id = await open_nim(a, "eve", public=False)
    dan = await connect(b, "key:dan", "dan")
    await dan.send(p.ListTables())
    info = await dan.wait_for(lambda c: listed(c, table_id))
    assert (info.game, info.status, info.public) == ("nim", "waiting", True)
    assert info.seats[0].name == "ann" and info.seats[0].taken and not info.seats[1].taken
    assert listed(dan, private_id) is None  # a private table is in no host's list
    stored = await b.store.lobby()
    assert set(stored) == {table_id} and stored[table_id].host == "host-a"

    # What the list shows changes on host A: host B's list follows (a watcher, then a seat taken).
    cat = await connect(a, "key:cat", "cat")
    await cat.send(p.Watch(table_id))
    await dan.wait_for(lambda c: (listed(c, table_id) or info).watchers == 1)
    ben = await connect(a, "key:ben", "ben")
    await ben.send(p.Join(table_id))
    playing = await dan.wait_for(lambda c: (i := listed(c, table_id)) and i.status == "playing" and i)
    assert [seat.name for seat in playing.seats] == ["ann", "ben"]

    # The game ends: the table leaves the lobby, and host B's list.
    await asyncio.gather(play_to_the_end(ann), play_to_the_end(ben))
    await dan.wait_for(lambda c: listed(c, table_id) is None)
    assert table_id not in await b.store.lobby()


async def test_a_host_lists_its_own_tables_as_they_are_here_not_as_last_written(hosts):
    a = await hosts("host-a")
    _ann, table_id = await open_nim(a)
    await until(lambda: a.store.lobby(), "the summary written")
    await a._read_lobby()
    assert a._remote == {}  # its own table: not read back from Redis, never listed twice
    assert [info.table for info in a._table_list().tables] == [table_id]


async def test_hostile_lobby_entries_are_left_out_and_names_made_safe(hosts):
    a, b = await hosts("host-a"), await hosts("host-b")
    _, table_id = await open_nim(a)
    await until(lambda: b.store.lobby(), "the summary written")
    good = (await b.store.lobby())[table_id]
    client = b.store.client

    def filed(summary: Summary) -> bytes:
        return encode(summary)

    named = msgspec.structs.replace(
        good,
        info=msgspec.structs.replace(
            good.info, table="NAMED", seats=[p.SeatInfo("\x1b[31mmal\u202eory", False, True, True, False)]
        ),
    )
    entries = {
        "GARBAGE": b"\xc1\x00 not msgpack",
        "NEWER": msgspec.msgpack.encode({"v": FORMAT + 1, "host": "x", "epoch": 1, "info": {}}),
        "ELSEWHERE": filed(good),  # filed under another id than its own
        "HUGE": b"\x00" * 100_000,
        "NOGAME": filed(
            msgspec.structs.replace(good, info=msgspec.structs.replace(good.info, table="NOGAME", game="chess"))
        ),
        "SOLO": filed(msgspec.structs.replace(good, info=msgspec.structs.replace(good.info, table="SOLO", solo=True))),
        "MANYSEATS": filed(
            msgspec.structs.replace(
                good, info=msgspec.structs.replace(good.info, table="MANYSEATS", seats=good.info.seats * 20)
            )
        ),
        "NAMED": filed(named),
        "bad id!": filed(good),
    }
    await client.hset(b.store.lobby_key, mapping=entries)
    dan = await connect(b, "key:dan", "dan")
    await dan.send(p.ListTables())
    await dan.wait_for(lambda c: listed(c, table_id) and listed(c, "NAMED"))
    await asyncio.sleep(FAST_LOBBY * 4)  # a few more reads: nothing else ever comes in
    assert sorted(info.table for info in dan.tables) == sorted([table_id, "NAMED"])
    assert listed(dan, "NAMED").seats[0].name == "[31mmalory"  # the escape and the bidi override dropped
    assert not dan.failure and not dan.closed.is_set()


async def test_a_lobby_write_is_fenced_like_every_write(hosts):
    a = await hosts("host-a")
    _, table_id = await open_nim(a)
    summaries = await until(lambda: a.store.lobby(), "the summary written")
    stale = summaries[table_id].epoch - 1 or 99
    with pytest.raises(StaleEpoch):
        await a.store.publish(table_id, stale, None)
    assert table_id in await a.store.lobby()


async def test_a_lobby_that_cannot_be_read_is_logged_once_per_outage_not_at_every_read(hosts, monkeypatch, caplog):
    """While Redis is away a host reads the lobby every second for as long as a room looks at the
    list: the first failure is logged, the same failure again is not, and reading again is logged."""
    import logging

    from gamenight.tables.redis_store import StoreUnavailable

    b = await hosts("host-b")
    dan = await connect(b, "key:dan", "dan")
    await dan.send(p.ListTables())
    reads = {"failed": 0}
    real = b.store.lobby

    async def away():
        reads["failed"] += 1
        raise StoreUnavailable("redis unreachable")

    caplog.set_level(logging.INFO, logger="gamenight")
    monkeypatch.setattr(b.store, "lobby", away)
    await until(lambda: reads["failed"] >= 6, "six failed reads")
    monkeypatch.setattr(b.store, "lobby", real)
    await until(lambda: "read again" in caplog.text, "the lobby read again")
    assert caplog.text.count("tables lobby: StoreUnavailable") == 1, caplog.text
