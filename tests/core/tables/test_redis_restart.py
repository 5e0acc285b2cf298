"""Redis restarted mid-game (its append-only file on, every write synced): every Redis client of a host
comes back by itself, and the tables with it.

Two "hosts" are two :class:`TableService` objects in this process on one real ``redis-server`` of the
test's own (as in test_authority.py), restarted on the same socket and data dir: crashed (SIGKILL) or
stopped (SIGTERM).  What comes back without a host restart: the authority's writes and lease, the relay
(the front end's blocking read of a relayed connection's outbox and its writes to the table's inbox; the
authority's blocking read of the inbox and its writes to the outboxes), the Tables list across hosts,
the shared session counts and the host registry.  A lease that lapsed while Redis was away (an outage
past its ttl) is taken again from Redis, with a new epoch, and the players land back at their seats.
The waits poll with a bound; no figure is a time.  The same over real SSH:
``tests/core/ssh/test_shared_tables_redis_restart.py``.
"""

from __future__ import annotations

import asyncio

import pytest
from gamenight.tables import protocol as p
from gamenight.tables import relay

from .conftest import connect
from .test_authority import a_host, stored_actions, until

OBSERVER = -3


@pytest.fixture
async def hosts(durable_redis_server, tmp_path):
    made = []

    async def make(name: str, **options):
        service = await a_host(durable_redis_server, tmp_path, name, **options)
        made.append(service)
        return service

    yield make
    for service in made:
        await asyncio.wait_for(service.close(), 10)


async def ann_on_a_ben_relayed_from_b(a, b):
    """ann opens a public two-seat Nim table on host A; ben joins it from host B (relayed)."""
    ann = await connect(a, "key:ann", "ann")
    await ann.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("person")], {"sticks": 30}))
    table_id = (await ann.wait_for(lambda c: c.snapshot)).table.table
    await until(lambda: a.tables[table_id].inbox_reader, "host A reads the table's inbox")
    ben = await connect(b, "key:ben", "ben")
    await ben.send(p.Join(table_id))
    await ben.wait_for(lambda c: c.snapshot and c.snapshot.seat == 1 and c.snapshot.table.status == "playing")
    return ann, ben, table_id


async def move(client, turn: int, sticks: str = "1") -> None:
    await client.wait_for(lambda c: c.snapshot.turn == turn and c.snapshot.legal, timeout=30)
    await client.send(p.Move(sticks, turn))
    await client.wait_for(lambda c: c.snapshot.turn > turn, timeout=30)


async def listed_on(host, table_id: str) -> p.TableInfo | None:
    """The table as ``host``'s Tables list shows it, read from the store's lobby now."""
    await host._read_lobby()
    return host._remote.get(table_id)


async def test_a_redis_crash_mid_game_the_relay_and_the_tables_list_come_back(hosts, durable_redis_server):
    a, b = await hosts("host-a"), await hosts("host-b")
    ann, ben, table_id = await ann_on_a_ben_relayed_from_b(a, b)
    await move(ann, 0)
    await move(ben, 1)  # relayed: B's inbox write, A's inbox read, A's outbox write, B's outbox read
    assert (await listed_on(b, table_id)).status == "playing"
    epoch = a.tables[table_id].epoch

    durable_redis_server.restart(kill=True)  # a crash: only what reached the append-only file is left
    await move(ann, 2)  # the authority's connection comes back (its fenced scripts loaded again)
    await move(ben, 3)  # both ends of the relay come back
    await ann.wait_for(lambda c: c.snapshot.turn == 4)
    assert await stored_actions(a, table_id) == ["1", "1", "1", "1"]  # nothing lost, nothing twice
    assert a.tables[table_id].epoch == epoch and await a.store.unheld([table_id]) == []  # A holds it still
    info = await listed_on(b, table_id)  # the Tables list across hosts, read again from Redis
    assert info is not None and [seat.name for seat in info.seats] == ["ann", "ben"]
    assert not a.tables[table_id].store_down


async def test_a_relayed_seat_outlives_an_outage_longer_than_its_front_ends_key(
    hosts, durable_redis_server, monkeypatch
):
    """Redis is away longer than a relayed connection's key lives (its front end could not renew it, and
    Redis's clock ran on: the key's expiry is kept as a time in the append-only file).  Once Redis is back
    the authority must not take the lapsed key for a dead front end and drop a live seat before the
    front end has renewed it."""
    monkeypatch.setattr(relay, "READ_BLOCK", 0.1)
    a, b = await hosts("host-a"), await hosts("host-b")
    ann, ben, table_id = await ann_on_a_ben_relayed_from_b(a, b)
    await move(ann, 0)
    table = a.tables[table_id]
    front = relay.alive_key(b.store.prefix, table_id, "host-b", next(iter(a._relayed))[1])
    renew, renewing = b.store.client.set, asyncio.Event()

    async def late(name, *args, **kwargs):  # B's renewals wait until A has looked at its relayed seats
        if ":front:" in str(name):
            await renewing.wait()
        return await renew(name, *args, **kwargs)

    b.store.client.set = late
    reads, xread = [], a.store.client.xread

    async def counted(streams, *args, **kwargs):
        if any(":in" in str(key) for key in streams):
            reads.append(durable_redis_server.process is not None)
        return await xread(streams, *args, **kwargs)

    a.store.client.xread = counted
    await a.store.client.pexpire(front, 150)  # it would lapse while Redis is away, unrenewed
    durable_redis_server.stop()
    await asyncio.sleep(0.3)  # (Redis's clock passes the key's expiry meanwhile)
    durable_redis_server.start()
    back = len(reads)
    await until(lambda: sum(reads[back:]) >= 3, "host A to read its inbox, and check its seats, again")
    assert len(a._relayed) == 1 and 1 not in table.away, "a live relayed seat was dropped after the outage"
    renewing.set()  # B renews the key: A's second look finds it, and keeps the seat
    await until(lambda: not [t for t in a._relay_tasks if t.get_name().startswith("relay-fronts")], "a second look")
    assert len(a._relayed) == 1 and 1 not in table.away
    await move(ben, 1)  # ben's relay goes on
    await move(ann, 2)
    assert await stored_actions(a, table_id) == ["1", "1", "1"]


async def test_an_outbox_entry_written_twice_across_a_restart_reaches_the_room_once(hosts):
    """Redis drops the connection (restarting) after it took an entry of a relayed connection's outbox, and
    its writer sends the entry again: the front end passes it on once.  Twice, the room's client finds the
    table's log skipping entries and loses its connection to the tables (as a restart did to ben)."""
    from gamenight.tables.redis_store import decode
    from redis.exceptions import ConnectionError as RedisConnectionError

    a, b = await hosts("host-a"), await hosts("host-b")
    ann, ben, _table_id = await ann_on_a_ben_relayed_from_b(a, b)
    pexpire, dropped = a.store.client.pexpire, []

    async def dropped_once(*args, **kwargs):  # the entry is in; the next command finds the connection gone
        if not dropped:
            dropped.append(args[0])
            raise RedisConnectionError("Connection closed by server.")
        return await pexpire(*args, **kwargs)

    await move(ann, 0)
    (writer,) = [connection.writer for connection in a._relayed.values()]
    await ben.wait_for(lambda c: c.snapshot.turn == 1)
    await until(lambda: not writer.queue, "move 0's frames written out")
    a.store.client.pexpire = dropped_once
    await move(ben, 1)  # its frames to ben's outbox (the log from move 1 on): written, then written again
    await move(ann, 2)
    await ben.wait_for(lambda c: c.snapshot.turn == 3)
    assert not ben.closed.is_set() and ben.failure is None and len(ben.log) == 3
    entries = [
        decode(relay.Frames, fields[b"f"], "outbox", relay.MAX_OUT_BYTES + 96)
        for _id, fields in await a.store.client.xrange(dropped[0])
    ]
    places = [(entry.writer, entry.seq) for entry in entries]
    assert len(places) > len(set(places)), "no entry was written twice: the test tested nothing"


async def test_a_move_relayed_while_redis_is_away_is_held_then_goes_through(hosts, durable_redis_server):
    """Ben (relayed) moves while Redis is away: his room is told the table waits, and the move goes to the
    table's host once Redis answers again -- held as a local room's move is, not dropped."""
    a, b = await hosts("host-a"), await hosts("host-b")
    ann, ben, table_id = await ann_on_a_ben_relayed_from_b(a, b)
    await move(ann, 0)
    await ben.wait_for(lambda c: c.snapshot.turn == 1 and c.snapshot.legal)
    durable_redis_server.stop()
    await ben.send(p.Move("2", 1))
    await ben.wait_for(lambda c: [e for e in c.errors if e.code == "store-down"], timeout=30)
    assert ben.snapshot.turn == 1 and len(a.tables[table_id].match.log) == 1
    durable_redis_server.start()
    await ann.wait_for(lambda c: c.snapshot.turn == 2, timeout=30)
    await ben.wait_for(lambda c: c.snapshot.turn == 2, timeout=30)
    assert await stored_actions(a, table_id) == ["1", "2"]
    assert [e.code for e in ben.errors if e.code.startswith("store")] == ["store-down", "store-up"]


async def two_moves_at_a_short_lease(hosts):
    """Host A (a lease of 0.6 s) and host B; ann on A and ben relayed from B have made a move each."""
    a = await hosts("host-a", ttl=0.6)
    b = await hosts("host-b")
    ann, ben, table_id = await ann_on_a_ben_relayed_from_b(a, b)
    await move(ann, 0)
    await move(ben, 1)
    return a, b, ann, ben, table_id


async def test_an_outage_past_the_lease_keeps_the_players_seated_and_the_table_goes_on(
    hosts, durable_redis_server, monkeypatch
):
    """Redis is away for longer than the table's lease.  No host can take the table while none reaches
    Redis, so its host keeps it waiting with its players seated (told the table waits when a move
    cannot be written); once Redis answers, the host takes its lapsed lease back under the next epoch
    (no other host took the table: nothing was written for it but its own writes) and the held move
    is shown -- no one is sent back to the lobby, no one joins again: not ben either, whose front end
    (host B) looks at the table's holder whenever his relay is quiet (every 0.1 s here) and finds the
    same one under its new epoch."""
    monkeypatch.setattr(relay, "READ_BLOCK", 0.1)
    a, _b, ann, ben, table_id = await two_moves_at_a_short_lease(hosts)
    table = a.tables[table_id]
    epoch = table.epoch
    retries = []
    real_pause = a._store_pause

    async def counted_pause(seconds):
        retries.append(seconds)
        await real_pause(seconds)

    a._store_pause = counted_pause
    durable_redis_server.stop()
    await ann.wait_for(lambda c: c.snapshot.legal and c.snapshot.turn == 2)
    await ann.send(p.Move("2", 2))
    await ann.wait_for(lambda c: any(e.code == "store-down" for e in c.errors), timeout=30)
    await until(lambda: len(retries) >= 8, "the held move tried past the lease (8 tries, 0.5 s apart)")
    assert ann.snapshot.turn == 2 and not table.gone and a.tables[table_id] is table
    durable_redis_server.start()
    await ann.wait_for(lambda c: c.snapshot.turn == 3, timeout=30)
    await ben.wait_for(lambda c: c.snapshot.turn == 3, timeout=30)
    assert table.epoch == epoch + 1 and not table.gone  # a new epoch: any write of the old one is refused
    assert await stored_actions(a, table_id) == ["1", "1", "2"]
    assert not [e for c in (ann, ben) for e in c.errors if e.code == "table-moved"]
    await move(ben, 3)
    await move(ann, 4)
    assert await stored_actions(a, table_id) == ["1", "1", "2", "1", "1"]


async def test_an_outage_past_the_lease_another_host_took_the_table_first(hosts, durable_redis_server):
    """The same outage, but another host finds Redis back first and takes the lapsed table (a new
    epoch): its old host must not take it back -- it lets it go, its rooms are told the table moved,
    and the players join again and land at their seats on the host that runs it now, every move there."""
    a, b, ann, ben, table_id = await two_moves_at_a_short_lease(hosts)
    table = a.tables[table_id]
    epoch = table.epoch
    asleep, wake = asyncio.Event(), asyncio.Event()

    async def stalled(seconds):  # host A's renewer sleeps through Redis's return
        asleep.set()
        await wake.wait()

    a._lease_pause = stalled
    await until(lambda: asleep.is_set(), "host A's renewer asleep")
    durable_redis_server.stop()
    await asyncio.sleep(1.0)  # (past the 0.6 s lease)
    durable_redis_server.start()
    await until(lambda: b.store.unheld([table_id]), "host A's lease lapsed")
    assert await b._sweep() == [table_id]
    assert b.tables[table_id].epoch == epoch + 1
    wake.set()  # A wakes, finds another epoch holding the table, and lets it go
    await ann.wait_for(lambda c: any(e.code == "table-moved" for e in c.errors), timeout=30)
    assert table.gone and table_id not in a.tables
    await ben.wait_for(lambda c: any(e.code == "table-moved" for e in c.errors), timeout=30)
    await until(lambda: all(c.relay is None for c in b.connections), "B's relay ended")
    for client, seat in ((ann, 0), (ben, 1)):  # both join again, each through their own host
        client.snapshot, seen = None, len(client.errors)
        await client.send(p.Join(table_id))
        await client.wait_for(lambda c, seat=seat: c.snapshot and c.snapshot.seat == seat and c.snapshot.turn == 2)
        assert not client.errors[seen:], client.errors[seen:]
    await move(ann, 2)
    await move(ben, 3)
    assert await stored_actions(b, table_id) == ["1", "1", "1", "1"]


async def test_a_table_opened_while_redis_is_away_waits_then_plays(hosts, durable_redis_server):
    """A solo table (ann against a bot) opened while Redis is away: it is shown, and ann is told it waits;
    once Redis is back the table is stored, ann is told it goes on, and the game does."""
    a = await hosts("host-a")
    durable_redis_server.stop()
    ann = await connect(a, "key:ann", "ann")
    await ann.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("bot", "first")], {"sticks": 30}))
    await ann.wait_for(lambda c: [e for e in c.errors if e.code == "store-down"], timeout=30)
    table_id = ann.snapshot.table.table
    durable_redis_server.start()
    await ann.wait_for(lambda c: [e for e in c.errors if e.code == "store-up"], timeout=30)  # told it goes on
    await move(ann, 0)  # her move, then the bot's: stored, then shown
    await ann.wait_for(lambda c: c.snapshot.turn == 2 and c.snapshot.legal, timeout=30)
    actions = await stored_actions(a, table_id)
    assert len(actions) == 2 and actions[0] == "1"


async def test_the_shared_session_counts_come_back_after_a_restart(durable_redis_server):
    from gamenight.ssh.shared_limits import SharedLimits, user_field
    from gamenight.tables.redis_store import StoreUnavailable

    a = SharedLimits.connect(durable_redis_server.url, host_id="host-a")
    b = SharedLimits.connect(durable_redis_server.url, host_id="host-b")
    try:
        ann = {user_field("key:ann"): 2}
        assert await a.admit(ann) is None
        durable_redis_server.stop()
        with pytest.raises(StoreUnavailable):
            await b.admit(ann)  # the caller admits by its own host's limits meanwhile
        durable_redis_server.restart(kill=True)
        await a.beat()  # (each host's heartbeat writes its counts again)
        assert await b.admit(ann) is None
        assert await a.admit(ann) == (user_field("key:ann"), 2)  # counted across both hosts again
    finally:
        await a.close()
        await b.close()


async def test_the_host_registry_comes_back_after_a_restart(durable_redis_server):
    from gamenight.plugins import load_registry
    from gamenight.tables.hosts import HostRegistry, this_host

    hosts = HostRegistry.connect(durable_redis_server.url, ttl=0.6)
    try:
        await hosts.register(this_host(load_registry(entry_points=[]), "host-a"))
        durable_redis_server.stop()
        await until(lambda: hosts.last_error, "a heartbeat that fails")
        durable_redis_server.start()
        await until(lambda: hosts.last_error is None, "a heartbeat that goes through again")
        assert [info.host for info in await hosts.hosts()] == ["host-a"]
    finally:
        await hosts.close()


def test_with_fsync_every_second_a_killed_redis_process_keeps_every_answered_write(request):
    """``appendfsync everysec`` (hosting.md): Redis writes the file before it answers -- except while its
    background fsync is slow (a busy disk: it failed once so in a loaded suite run), when it may put the
    write off for up to 2 s, answering all the same.  So a Redis *process* killed (SIGKILL) keeps every
    answered write older than 2 s; a crash of the machine can lose about the last second more.
    (``always``, the recommended setting, keeps every one: tested in test_redis_store.py.)"""
    from gamenight.tables.redis_store import LogEntry, RedisTableStore

    from tests.core.tables.redis_server import RedisServer, missing_reason

    if (reason := missing_reason()) is not None:
        pytest.skip(reason)
    server = RedisServer(appendonly=True, fsync="everysec")
    request.addfinalizer(server.cleanup)
    server.start()

    async def play() -> list[str]:
        store = RedisTableStore.connect(server.url)
        try:
            epoch = await store.acquire("t1", "host-a", 30)
            for seq in range(50):
                await store.append("t1", epoch, LogEntry(seq=seq, seat=seq % 2, action=f"m{seq}"))
            await asyncio.sleep(2.5)  # past the longest Redis puts a write to its file off
            server.restart(kill=True)
            stored = await store.load("t1")
            assert stored.epoch == epoch
            return [entry.action for entry in stored.log]
        finally:
            await store.close()

    assert asyncio.run(play()) == [f"m{seq}" for seq in range(50)]


async def test_a_room_says_the_table_waits_then_goes_on_and_rings_only_for_the_wait(nim_service, tmp_path):
    """What a player reads at a shared table while Redis is away (``store-down``, an error: the bell) and
    once it is back (``store-up``: no bell, it is good news), on the table's status line."""
    from gamenight.ui.game_screen import StatusLine
    from textual.widgets import Static

    from tests.core.tables.test_shared_end import open_shared_table
    from tests.core.tables.test_tables_lobby import room_for, table_screen
    from tests.core.tables.test_tables_lobby import until as pilot_until

    ann = await room_for(nim_service, "ann", tmp_path)
    bells = []
    ann.bell = lambda: bells.append(1)
    async with ann.run_test(size=(80, 24)) as pilot:
        await open_shared_table(pilot, ann, "nim", person=False)
        screen = table_screen(ann)
        (connection,) = [c for c in nim_service.connections if c.table is not None]

        def status() -> str:
            return " ".join(str(screen.query_one(StatusLine).query_one("#message", Static).render()).split())

        for code, said, rung in (
            ("store-down", "The table waits for the server's store", 1),
            ("store-up", "The table goes on", 1),
        ):
            connection.send_now(p.encode(p.Error(code, "the service's words")))
            connection.flush()
            await pilot_until(pilot, lambda said=said: said in status(), what=said)
            assert len(bells) == rung
