"""Several tables across two hosts, one host killed mid-game: every table finishes and nothing is lost.

Two "hosts" are two :class:`TableService` objects in this process on one real ``redis-server`` of the
test's own (as in test_authority.py), with a short lease and sweep.  Three Nim tables of two people each,
opened on alternating hosts, the second seat of each on the *other* host (relayed).  While they play
(random legal moves), the host that holds the most tables is killed (every task stopped, nothing
released, its connections cut).  A person whose connection died connects again to the survivor and
joins their seat; one told ``table-moved`` joins again -- as a person would.  Then, from Redis alone:
every table's game reached its end, its log replays with the rules, every move any client was shown is
that move of the log, and each person's last view is the replayed match's.  The bench of the same at
scale, with real SSH sessions beside it, is bench/bench_tables_load2.py.
"""

from __future__ import annotations

import asyncio
import random
import tomllib

import msgspec
from gamenight.saves import match_from_document
from gamenight.tables import protocol as p
from gamenight.tables.persist import describe
from gamenight.tables.service import TableService

from .conftest import FAST, NIM_REGISTRY, connect
from .test_authority import kill, until

TABLES = 3
LEASE = 1.0
"""A lease short enough to lapse soon after the kill (renewed three times within it)."""


class Person:
    """A person at one seat: plays random legal moves, connects again and rejoins when the table moves."""

    def __init__(self, name: str, seat: int, host: int, hosts: list[TableService], seen: dict) -> None:
        self.name, self.seat, self.host, self.hosts, self.seen = name, seat, host, hosts, seen
        self.table = ""
        self.client = None
        self.reconnects = 0

    def hear(self, message) -> None:
        if isinstance(message, p.Event):
            self.show(message.turn - 1, [message.seat, message.text])
        elif isinstance(message, p.Snapshot) and message.table.table == self.table:
            for offset, (seat, text) in enumerate(message.log):
                self.show(message.log_start + offset, [seat, text])

    def show(self, index: int, entry: list) -> None:
        self.seen.setdefault((self.table, index), []).append(entry)

    async def connect(self) -> None:
        while getattr(self.hosts[self.host], "killed", False):
            self.host = 1 - self.host
        self.client = await connect(self.hosts[self.host], f"key:{self.name}", self.name)
        self.client.listeners.append(self.hear)

    async def join(self) -> None:
        self.client.snapshot = None
        await self.client.send(p.Join(self.table, self.seat))

    async def play(self, rng: random.Random) -> None:
        answered, errors = -1, 0
        while True:

            def ready(c, answered=answered, errors=errors):
                if any(e.code == "table-moved" for e in c.errors[errors:]):
                    return "moved"
                snap = c.snapshot
                if snap is None or snap.table.table != self.table or snap.seat != self.seat:
                    return None
                return snap if snap.table.status == "over" or (snap.legal and snap.turn != answered) else None

            try:
                snap = await self.client.wait_for(ready, 2.0)
            except TimeoutError:
                if self.client.snapshot is None:  # not seated yet (the table is being taken over): again
                    await self.join()
                    answered = -1  # (a move sent to the dead host may never have landed: it is asked again)
                continue
            except ConnectionError:  # its host died: through the other one
                self.reconnects += 1
                await self.client.close()
                await self.connect()
                await self.join()
                answered, errors = -1, 0
                continue
            if snap == "moved":
                errors, answered = len(self.client.errors), -1
                await self.join()
                continue
            if snap.table.status == "over":
                return
            await asyncio.sleep(rng.uniform(0.0, 0.02))
            answered = snap.turn
            try:
                await self.client.send(p.Move(rng.choice(snap.legal), snap.turn))
            except (ConnectionError, OSError):
                pass  # the next wait finds the connection closed


async def stored_match(store, table_id: str):
    """The table's match from Redis alone: its state replayed with the rules, then the moves logged since."""
    stored = await store.load(table_id)
    match = match_from_document(NIM_REGISTRY, tomllib.loads(stored.state.document)["match"], "redis")
    for entry in stored.log:
        match.apply(entry.action)
    return match


async def test_a_host_killed_under_load_every_table_finishes_and_nothing_is_lost(redis_server, tmp_path):
    hosts = []
    for name in ("host-a", "host-b"):
        service = TableService(
            NIM_REGISTRY,
            tmp_path / name,
            bot_time_budget=0.2,
            seed=11,
            message_rate=FAST,
            tables_url=redis_server.url,
            host_id=name,
            lease_ttl=LEASE,
            renew_interval=LEASE / 3,
            sweep_interval=0.2,
        )
        await service.start()
        hosts.append(service)
    seen: dict = {}
    people = []
    try:
        for t in range(TABLES):  # table t on host t % 2; its second seat on the other host (relayed)
            opener = Person(f"ann{t}", 0, t % 2, hosts, seen)
            joiner = Person(f"ben{t}", 1, 1 - t % 2, hosts, seen)
            await opener.connect()
            await opener.client.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("person")], {"sticks": 30}))
            opener.table = joiner.table = (await opener.client.wait_for(lambda c: c.snapshot)).table.table
            lease = hosts[t % 2].store.keys(opener.table)["lease"]
            await until(lambda key=lease: hosts[0].store.client.exists(key), "the table's lease")
            await joiner.connect()  # (the other host's list shows a table once it is held: then it is joined)
            await joiner.join()
            people += [opener, joiner]
        for person in people:
            await person.client.wait_for(lambda c: c.snapshot and c.snapshot.table.status == "playing", 30)
        assert len(hosts[1].tables) == 1  # table 1 runs on host B; its seat from host A is relayed
        playing = asyncio.gather(*(person.play(random.Random(n)) for n, person in enumerate(people)))

        async def moved_on():
            return all(len(hosts[0].tables[people[2 * t].table].match.log) >= 4 for t in (0, 2))

        await until(moved_on, "a few moves at host A's tables")
        on_a = [t for t in (0, 2) if not hosts[0].tables[people[2 * t].table].match.over]
        assert on_a == [0, 2], "a table of host A finished before the kill: nothing to take over"
        for connection in hosts[0]._relayed.values():  # a killed host writes nothing, not even "the end"
            connection.writer.closing = True
        await kill(hosts[0])  # host A holds two of the three tables
        await asyncio.wait_for(playing, 60)

        store = hosts[1].store
        assert sorted(hosts[1].tables) == sorted({person.table for person in people})  # the survivor runs all
        assert [people[0].reconnects, people[4].reconnects] == [1, 1]  # ann0, ann2: through the survivor
        for person in people:
            match = await stored_match(store, person.table)
            assert match.over, f"table {person.table} did not finish"
            log = [list(entry) for entry in describe(match)]
            for (table_id, index), entries in seen.items():
                if table_id == person.table:
                    assert all(entry == log[index] for entry in entries), f"move {index + 1} of {table_id} lost"
            assert person.client.snapshot.turn == len(match.log)
            assert person.client.log == [tuple(entry) for entry in log]
            view = msgspec.msgpack.decode(msgspec.msgpack.encode(match.view(person.seat)))
            assert person.client.snapshot.view == view
    finally:
        for person in people:
            if person.client is not None:
                await person.client.close()
        await asyncio.wait_for(hosts[1].close(), 10)
        if not getattr(hosts[0], "killed", False):
            await asyncio.wait_for(hosts[0].close(), 10)


async def test_a_room_that_asks_for_a_table_while_it_is_being_taken_over_gets_its_seat(redis_server, tmp_path):
    """People connect again while the survivor's sweep is taking their table: they are seated when the take
    is done, not told "no such table" (the take under way is theirs too)."""
    a, b = (
        TableService(
            NIM_REGISTRY,
            tmp_path / name,
            message_rate=FAST,
            tables_url=redis_server.url,
            host_id=name,
            lease_ttl=0.3,
            renew_interval=0.1,
            sweep_interval=3600,  # the test takes the table itself
        )
        for name in ("host-a", "host-b")
    )
    await a.start()
    await b.start()
    load = b.store.load
    try:
        ann = await connect(a, "key:ann", "ann")
        await ann.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("bot", "first")], {"sticks": 21}))
        table_id = (await ann.wait_for(lambda c: c.snapshot)).table.table
        await ann.wait_for(lambda c: c.snapshot.table.status == "playing" and c.snapshot.legal)
        await until(lambda: b.store.client.exists(b.store.keys(table_id)["lease"]), "the table's lease")
        await kill(a)
        await until(lambda: b.store.unheld([table_id]), "host A's lease to lapse")
        entered, go = asyncio.Event(), asyncio.Event()

        async def slow_load(*args, **kwargs):
            entered.set()
            await go.wait()
            return await load(*args, **kwargs)

        b.store.load = slow_load
        taking = asyncio.create_task(b._take(table_id))  # the sweep's take, held before it reads the table
        await entered.wait()
        again = await connect(b, "key:ann", "ann")
        await again.send(p.Join(table_id))
        await until(lambda: b._takes or again.errors, "host B to handle ann's join")
        go.set()
        taken = await taking
        assert taken is not None, (await b.store.load(table_id)).holder
        snap = await again.wait_for(lambda c: c.snapshot or c.errors)
        assert again.errors == [] and (snap.table.table, snap.seat) == (table_id, 0)
        await again.close()
        await ann.close()
    finally:
        b.store.load = load
        await asyncio.wait_for(b.close(), 10)


async def test_a_room_whose_relayed_connection_the_table_s_host_dropped_is_told_to_join_again(redis_server, tmp_path):
    """Under load a host's loop can stall past a relayed connection's key (3 s): the table's host then drops
    that connection (its seat waits, away).  The room on the relaying host, still showing the table, is
    told to join again ("table-moved") instead of waiting for ever; joining again, it is back at its seat."""
    from gamenight.tables import relay

    a, b = (
        TableService(NIM_REGISTRY, tmp_path / name, message_rate=FAST, tables_url=redis_server.url, host_id=name)
        for name in ("host-a", "host-b")
    )
    await a.start()
    await b.start()
    try:
        ann = await connect(a, "key:ann", "ann")
        await ann.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("person")], {"sticks": 21}))
        table_id = (await ann.wait_for(lambda c: c.snapshot)).table.table
        await until(lambda: a.tables[table_id].inbox_reader, "host A reads the table's inbox")
        ben = await connect(b, "key:ben", "ben")
        await ben.send(p.Join(table_id))
        await ben.wait_for(lambda c: c.snapshot and c.snapshot.table.status == "playing", 30)
        ((host, conn),) = a._relayed
        await b.store.client.delete(relay.alive_key(b.store.prefix, table_id, host, conn))  # a stalled host B
        # the second look, 2 s after the first found the key lapsed (a stalled host B has not renewed it)
        await a._check_fronts(a.tables[table_id], again={(host, conn)})
        assert a.tables[table_id].away == {1: a.tables[table_id].away[1]}  # ben's seat waits for him
        await ben.wait_for(lambda c: [e.code for e in c.errors] == ["table-moved"], 30)
        await ben.send(p.Join(table_id))
        await until(lambda: not a.tables[table_id].away, "ben back at his seat")
        await ben.close()
        await ann.close()
    finally:
        await asyncio.wait_for(b.close(), 10)
        await asyncio.wait_for(a.close(), 10)
