"""A table's host dies while rooms on other hosts are relayed to it: every person ends at their own seat.

Found by the load bench (bench/bench_tables_load2.py): after the busier host was killed, some people
were never seated again.  Two ways, each a test here, plus the whole path:

* a front end read the table's holder only after its room's ``Join`` was in the inbox; a host that took
  the table between the two reads its inbox from its own lease on, never saw the ``Join``, and the
  holder the front end compared with was already the new one: the room waited for ever;
* a front end that took the table itself found its own rooms' relayed messages in the inbox and
  served them as a *second* connection of the same person, which took the seat from the room's real
  connection (the real one closed: the person was thrown out of their own game).

Hosts are :class:`TableService` objects on the test's one ``redis-server`` (as in test_relay.py).
"""

from __future__ import annotations

import asyncio
import contextlib

from gamenight.tables import protocol as p
from gamenight.tables import relay

from .conftest import connect
from .test_authority import SHORT, kill, until
from .test_relay import a_table_on_a


def seated(seat: int):
    """A client's wait: its snapshot once it sits at ``seat`` of a table in play."""

    def check(client):
        snap = client.snapshot
        return snap if snap and snap.seat == seat and snap.table.status == "playing" else None

    return check


def self_relayed(host) -> list:
    """The connections ``host`` serves for its own rooms as relayed ones (there must never be any)."""
    return [c for c in host.connections if c.relayed_from and c.relayed_from[0] == host.host_id]


async def test_a_join_relayed_just_before_another_host_takes_the_table_is_told_to_join_again(hosts, monkeypatch):
    """Host A dies; ben's room on host B asks for A's table while A's lease still runs, so B relays the
    ``Join``.  Host C takes the table right after the ``Join`` is in the inbox (C reads only what comes
    after its lease: never the ``Join``), and B's look at the table's holder is slow -- it answers only
    once C holds it.  B must compare with the holder from before the ``Join``: ben is told the table
    moved, joins again, and sits at his seat on C."""
    monkeypatch.setattr(relay, "READ_BLOCK", 0.1)
    a, b, c = await hosts("host-a", ttl=SHORT), await hosts("host-b"), await hosts("host-c")
    _ann, table_id = await a_table_on_a(a, monkeypatch)
    await kill(a)
    ben = await connect(b, "key:ben", "ben")

    lease_key = b.store.keys(table_id)["lease"]
    inbox = relay.inbox_key(b.store.prefix, table_id)
    taken = asyncio.Event()
    real_get, real_xadd = b.store.client.get, b.store.client.xadd

    async def slow_get(key, *args, **kwargs):
        if key == lease_key and not taken.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(taken.wait(), 1.0)
        return await real_get(key, *args, **kwargs)

    async def xadd_then_take(key, *args, **kwargs):
        answer = await real_xadd(key, *args, **kwargs)
        if key == inbox and not taken.is_set():  # the Join is in: now C takes the table
            await until(lambda: c.store.unheld([table_id]), "host A's lease lapsed")
            assert await c._sweep() == [table_id]
            taken.set()
        return answer

    monkeypatch.setattr(b.store.client, "get", slow_get)
    monkeypatch.setattr(b.store.client, "xadd", xadd_then_take)
    await ben.send(p.Join(table_id))  # A's lease still runs (A is dead): B relays
    await until(lambda: taken.is_set(), "C took the table")
    await ben.wait_for(lambda cl: any(e.code == "table-moved" for e in cl.errors), timeout=10)
    await ben.send(p.Join(table_id))  # again: relayed to C now
    snap = await ben.wait_for(seated(1), timeout=10)
    assert snap.table.table == table_id and table_id in c.tables and c.tables[table_id].owners[1] == "key:ben"


async def test_a_host_that_took_the_table_never_serves_its_own_rooms_as_relayed(hosts, monkeypatch):
    """Ben's room on host B is relayed to host A's table.  A dies and B takes the table; before ben's
    relay notices, his room says something (here: a chat line).  The message lands in the
    inbox B now reads: B must not make it a second connection of ben's (it would take his seat from
    his real one); ben's room is told the table moved, joins again, and sits at B's table."""
    monkeypatch.setattr(relay, "READ_BLOCK", 5.0)  # ben's relay would notice only late by itself
    a, b = await hosts("host-a", ttl=SHORT), await hosts("host-b")
    ann, table_id = await a_table_on_a(a, monkeypatch)
    ben = await connect(b, "key:ben", "ben")
    await ben.send(p.Join(table_id))
    await ben.wait_for(seated(1))
    await kill(a)
    await until(lambda: b.store.unheld([table_id]), "host A's lease lapsed")
    assert await b._sweep() == [table_id]
    await until(lambda: b.tables[table_id].inbox_reader, "B reads the table's inbox")
    errors = len(ben.errors)
    await ben.send(p.Chat("still there?"))  # still relayed: it goes to the inbox B reads
    await ben.wait_for(lambda cl: any(e.code == "table-moved" for e in cl.errors[errors:]), timeout=3)
    assert self_relayed(b) == []
    await until(lambda: all(conn.relay is None for conn in b.connections), "B's relay ended")
    await ben.send(p.Join(table_id))
    snap = await ben.wait_for(seated(1), timeout=10)
    table = b.tables[table_id]
    (mine,) = [conn for conn in table.connections if conn.identity == "key:ben"]
    assert mine.relayed_from is None and not mine.closed and snap.table.table == table_id
    assert self_relayed(b) == [] and 1 not in table.away
    del ann


async def test_a_front_end_relaying_to_a_table_it_runs_now_tells_its_room(hosts, monkeypatch):
    """However the relay began (its holder read after this host took the table), a room of this host
    relayed to a table this host runs is told the table moved once its relay is quiet."""
    # A quiet relay is looked at 3 s after its last entry: not before the test has set its holder.
    monkeypatch.setattr(relay, "READ_BLOCK", 3.0)
    a, b = await hosts("host-a", ttl=SHORT), await hosts("host-b")
    _ann, table_id = await a_table_on_a(a, monkeypatch)
    ben = await connect(b, "key:ben", "ben")
    await ben.send(p.Join(table_id))
    await ben.wait_for(seated(1))
    (front,) = [conn for conn in b.connections if conn.relay is not None]
    link = front.relay
    await kill(a)
    await until(lambda: b.store.unheld([table_id]), "host A's lease lapsed")
    assert await b._sweep() == [table_id]
    link.since = await b.store.holder(table_id)  # as if read after the take: the holder says nothing
    await ben.wait_for(lambda cl: any(e.code == "table-moved" for e in cl.errors), timeout=15)
    assert front.relay is None and self_relayed(b) == []


async def test_everyone_is_seated_again_after_the_host_of_two_tables_dies(hosts, monkeypatch):
    """Two tables on host A: ann (on A) with ben (relayed from B), and dan (on A) with eve (on B).
    A dies; B takes both tables; ann and dan come back through B, ben and eve are told the tables
    moved and join again.  Each person ends at their own seat with exactly one connection, and the
    games go on from where they were."""
    monkeypatch.setattr(relay, "READ_BLOCK", 0.1)
    a, b = await hosts("host-a", ttl=SHORT), await hosts("host-b")
    ann, first = await a_table_on_a(a, monkeypatch)
    dan = await connect(a, "key:dan", "dan")
    await dan.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("person")], {"sticks": 12}))
    second = (await dan.wait_for(lambda cl: cl.snapshot)).table.table
    ben, eve = await connect(b, "key:ben", "ben"), await connect(b, "key:eve", "eve")
    await ben.send(p.Join(first))
    await eve.send(p.Join(second))
    await ben.wait_for(seated(1))
    await eve.wait_for(seated(1))
    await ann.wait_for(lambda cl: cl.snapshot.legal)
    await ann.send(p.Move("2", 0))
    await ben.wait_for(lambda cl: cl.snapshot.turn == 1)

    await kill(a)
    await until(lambda: _both_unheld(b, [first, second]), "host A's leases lapsed")
    assert sorted(await b._sweep()) == sorted([first, second])
    ann, dan = await connect(b, "key:ann", "ann"), await connect(b, "key:dan", "dan")
    await asyncio.gather(ann.send(p.Join(first)), dan.send(p.Join(second)))
    for client in (ben, eve):
        await client.wait_for(lambda cl: any(e.code == "table-moved" for e in cl.errors), timeout=10)
    await asyncio.gather(ben.send(p.Join(first)), eve.send(p.Join(second)))
    for client, seat in ((ann, 0), (ben, 1), (dan, 0), (eve, 1)):
        await client.wait_for(seated(seat), timeout=10)
    for table_id in (first, second):
        table = b.tables[table_id]
        assert sorted(conn.identity for conn in table.connections) == sorted(filter(None, table.owners))
        assert not table.away and all(not conn.closed and conn.relayed_from is None for conn in table.connections)
    assert self_relayed(b) == []
    # The first game goes on from its one move: ben's turn.
    await ben.wait_for(lambda cl: cl.snapshot.legal and cl.snapshot.turn == 1)
    await ben.send(p.Move("3", 1))
    await ann.wait_for(lambda cl: cl.snapshot.turn == 2 and cl.snapshot.view["sticks"] == 7)


async def _both_unheld(host, table_ids: list[str]) -> bool:
    return len(await host.store.unheld(table_ids)) == len(table_ids)
