"""A front end reads the outboxes of all its relayed rooms at one table with one blocking ``XREAD``.

Host A runs the tables; host B relays its rooms to them (two :class:`TableService` objects on one real
``redis-server``, as in test_relay.py).  What is counted is what Redis itself sees: its clients blocked
in an ``XREAD`` (``CLIENT LIST``).  The waits poll with a bound; no figure is a time.
"""

from __future__ import annotations

import asyncio
import re

from gamenight.tables import protocol as p
from gamenight.tables import relay

from .conftest import connect
from .test_authority import until
from .test_relay import OBSERVER, a_table_on_a

WATCHERS = 6


async def blocked_reads(host) -> int:
    """Redis's clients (of every host) waiting in a blocking ``XREAD`` now."""
    return sum(1 for c in await host.store.client.client_list() if c["cmd"] == "xread" and "b" in c["flags"])


async def most_blocked_reads(host, looks: int = 15) -> int:
    """The most clients found blocked in an ``XREAD`` over a few looks 20 ms apart."""
    most = 0
    for _ in range(looks):
        most = max(most, await blocked_reads(host))
        await asyncio.sleep(0.02)
    return most


def spy_reads(host) -> list[list[str]]:
    """Every ``XREAD`` the host sends from now on: its keys."""
    calls: list[list[str]] = []
    original = host.store.client.xread

    async def xread(streams, *args, **kwargs):
        calls.append([key.decode() if isinstance(key, bytes) else key for key in streams])
        return await original(streams, *args, **kwargs)

    host.store.client.xread = xread
    return calls


async def test_a_front_end_reads_its_rooms_at_one_table_with_one_blocking_read(hosts, monkeypatch):
    a, b = await hosts("host-a"), await hosts("host-b")
    ann, table_id = await a_table_on_a(a, monkeypatch)
    await until(lambda: _is(blocked_reads(a), 1), "host A's inbox reader blocks")
    calls = spy_reads(b)

    # ben sits at the table from host B, and six more people on B watch it: seven rooms relayed.
    ben = await connect(b, "key:ben", "ben")
    await ben.send(p.Join(table_id))
    await ben.wait_for(lambda c: c.snapshot and c.snapshot.seat == 1 and c.snapshot.table.status == "playing")
    watchers = []
    for n in range(WATCHERS):
        watcher = await connect(b, f"key:w{n}", f"w{n}")
        await watcher.send(p.Watch(table_id))
        watchers.append(watcher)
    for watcher in watchers:
        await watcher.wait_for(lambda c: c.snapshot and c.snapshot.seat == OBSERVER)
    assert len(a._relayed) == 1 + WATCHERS

    # Redis holds two blocked reads: A's of the table's inbox, B's of its seven rooms' outboxes (not seven).
    assert await most_blocked_reads(a) == 2

    # And the seven rooms all still get the table's frames through it: a move reaches every one.
    await ann.wait_for(lambda c: c.snapshot.legal and c.snapshot.turn == 0)
    await ann.send(p.Move("2", 0))
    for client in (ben, *watchers):
        await client.wait_for(lambda c: c.snapshot.turn == 1)

    # A second table: B reads its room there with a read of its own; no read mixes two tables' keys
    # (each in its own Redis Cluster slot: the hash tag ``{ID}``).
    dan = await connect(a, "key:dan", "dan")
    await dan.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("person")], {"sticks": 12}))
    other_id = (await dan.wait_for(lambda c: c.snapshot)).table.table
    eve = await connect(b, "key:eve", "eve")
    await eve.send(p.Join(other_id))
    await eve.wait_for(lambda c: c.snapshot and c.snapshot.seat == 1 and c.snapshot.table.status == "playing")
    assert await most_blocked_reads(a) == 4  # two inboxes on A, one reader a table on B
    outbox_reads = [keys for keys in calls if any(":out:" in key for key in keys)]
    assert outbox_reads
    for keys in outbox_reads:
        assert len({re.search(r"\{([^}]*)\}", key).group(1) for key in keys}) == 1, keys


async def test_a_room_joining_while_the_reader_blocks_gets_its_first_frames_at_once(hosts, monkeypatch):
    monkeypatch.setattr(relay, "READ_BLOCK", 120.0)  # a reader left blocking would answer the room only then
    a, b = await hosts("host-a"), await hosts("host-b")
    _ann, table_id = await a_table_on_a(a, monkeypatch)
    ben = await connect(b, "key:ben", "ben")
    await ben.send(p.Join(table_id))
    await ben.wait_for(lambda c: c.snapshot and c.snapshot.seat == 1 and c.snapshot.table.status == "playing")
    await until(lambda: _is(blocked_reads(a), 2), "A's inbox and B's outboxes read, both blocking")

    # cat asks for a seat at the table, full: the refusal goes to cat's outbox alone (nothing to ben's,
    # which would wake the reader anyway).  It is there before the reader's block would end.
    cat = await connect(b, "key:cat", "cat")
    await cat.send(p.Join(table_id))
    await cat.wait_for(lambda c: c.errors, timeout=20)
    assert [e.code for e in cat.errors] == ["no-seat"]
    await until(lambda: _is(blocked_reads(a), 2), "still one read on B for its rooms")


async def _is(count, expected: int) -> bool:
    return await count == expected
