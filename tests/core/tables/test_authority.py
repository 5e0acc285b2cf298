"""Tables in Redis (``serve-ssh --tables-url``): one authority per table, moves durable before they are shown,
a stale authority fenced off, a dead host's table taken over by another.

Two "hosts" are two :class:`TableService` objects in this process, each with its own Redis client and host
id, on one real ``redis-server`` of the test's own.  Leases are short (0.3 s) where a test lets one lapse,
and the waits poll with a bound; no figure is a time.  Sweeps run when a test calls them.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import pytest
from gamenight.ssh.settings import parser, settings_from_args
from gamenight.tables import authority
from gamenight.tables import protocol as p
from gamenight.tables.service import SEND_BUFFER_CAP, TableService

from .conftest import FAST, NIM_REGISTRY, connect

SHORT = 0.3
"""A lease the test lets lapse (seconds)."""


async def a_host(redis_server, tmp_path, name: str, ttl: float = 30.0, **options) -> TableService:
    service = TableService(
        NIM_REGISTRY,
        tmp_path / name,
        bot_time_budget=0.2,
        seed=5,
        message_rate=FAST,
        tables_url=redis_server.url,
        host_id=name,
        lease_ttl=ttl,
        renew_interval=ttl / 3,
        sweep_interval=3600,  # the tests sweep themselves
        **options,
    )
    await service.start()
    return service


@pytest.fixture
async def hosts(redis_server, tmp_path):
    made: list[TableService] = []

    async def make(name: str, ttl: float = 30.0, **options) -> TableService:
        service = await a_host(redis_server, tmp_path, name, ttl, **options)
        made.append(service)
        return service

    yield make
    for service in made:
        if not getattr(service, "killed", False):
            await asyncio.wait_for(service.close(), 10)


async def kill(service: TableService) -> None:
    """The host dies: every task of its tables stops where it is, nothing is released, its rooms drop."""
    service.killed = True
    tables = list(service.tables.values())
    for connection in service._relayed.values():  # a dead host writes nothing more, not even "the end"
        task = getattr(connection.writer, "task", None)
        if task is not None:
            task.cancel()

    def tasks():  # again after each round: a task that swallowed a cancel may have started another
        every = [service._sweeper, service._lobby_reader]
        every += [t for table in tables for t in (table.driver, table.saver, table.renewer, table.inbox_reader)]
        return [task for task in every if task is not None and not task.done()]

    while running := tasks():
        for task in running:  # (3.11's wait_for, and redis-py, can swallow one cancel: again)
            task.cancel()
        await asyncio.wait(running, timeout=0.5)
    service.tables.clear()
    for connection in list(service.connections):
        connection.closed = True
        connection.writer.transport.abort()
    await service.store.close()


async def until(condition, what: str, limit: float = 30.0):
    """Poll ``condition()`` (awaited when it is a coroutine) until it is true; bounded, so a bug fails."""
    deadline = time.monotonic() + limit
    while True:
        value = condition()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        assert time.monotonic() < deadline, f"never: {what}"
        await asyncio.sleep(0.02)


async def nim_table(host: TableService, sticks: int = 30, bot: bool = False):
    """ann opens a Nim table on ``host``: against its bot, or with ben (who joins) -- the clients and its id."""
    ann = await connect(host, "key:ann", "ann")
    seats = [p.SeatSpec("person"), p.SeatSpec("bot", "first") if bot else p.SeatSpec("person")]
    await ann.send(p.OpenTable("nim", seats, options={"sticks": sticks}))
    table_id = (await ann.wait_for(lambda c: c.snapshot)).table.table
    ben = None
    if not bot:
        ben = await connect(host, "key:ben", "ben")
        await ben.send(p.Join(table_id))
    await ann.wait_for(lambda c: c.snapshot.table.status == "playing" and c.snapshot.legal)
    return ann, ben, table_id


async def take_one(client, turn: int) -> None:
    """The client's seat takes one stick at ``turn`` and sees the table move on."""
    await client.send(p.Move("1", turn))
    await client.wait_for(lambda c: c.snapshot.turn > turn)


async def stored_actions(host: TableService, table_id: str) -> list[str]:
    """The table's moves as stored in Redis: its state's log, then the log since."""
    import tomllib

    stored = await host.store.load(table_id)
    document = tomllib.loads(stored.state.document) if stored.state else {"match": {"log": []}}
    return [line.split(" ", 1)[1] for line in document["match"]["log"]] + [entry.action for entry in stored.log]


async def test_a_move_reaches_no_one_before_it_is_in_redis(hosts):
    a = await hosts("host-a")
    ann, ben, table_id = await nim_table(a)
    table = a.tables[table_id]
    entered, go = asyncio.Event(), asyncio.Event()
    append = a.store.append

    async def slow_append(*args, **kwargs):
        entered.set()
        await go.wait()
        return await append(*args, **kwargs)

    a.store.append = slow_append
    await ann.send(p.Move("1", 0))
    await asyncio.wait_for(entered.wait(), 10)
    # The move is applied here, and its write is under way: every frame that shows it waits.
    assert len(table.match.log) == 1
    assert all(connection.held and not connection.pending for connection in table.connections)
    await asyncio.sleep(0.05)
    assert ben.snapshot.turn == 0 and not ben.events
    go.set()
    await ben.wait_for(lambda c: c.snapshot.turn == 1)
    assert [event.turn for event in ben.events] == [1]
    assert await stored_actions(a, table_id) == ["1"]


async def test_frames_waiting_for_a_write_are_bounded(hosts):
    a = await hosts("host-a")
    ann, ben, table_id = await nim_table(a)
    table = a.tables[table_id]
    entered, go = asyncio.Event(), asyncio.Event()
    append = a.store.append

    async def stuck_append(*args, **kwargs):  # Redis as good as away: the write never returns
        entered.set()
        await go.wait()
        return await append(*args, **kwargs)

    a.store.append = stuck_append
    await ann.send(p.Move("1", 0))
    await asyncio.wait_for(entered.wait(), 10)
    theirs = next(c for c in table.connections if c.identity == "key:ben")
    frame = b"x" * 65536
    while theirs.held_bytes + len(frame) <= SEND_BUFFER_CAP:  # up to the cap, frames wait
        theirs.send_frame(frame)
    assert not theirs.closed and len(theirs.held) > 1
    theirs.send_frame(frame)  # one more: the client is cut off, its frames dropped
    assert theirs.closed and theirs.held is None
    await asyncio.wait_for(ben.closed.wait(), 10)
    go.set()
    await ann.wait_for(lambda c: c.snapshot.turn == 1)  # the table goes on for the others


async def test_every_move_is_stored_and_a_new_game_starts_a_new_log(hosts):
    a = await hosts("host-a")
    ann, ben, table_id = await nim_table(a, sticks=4)
    for turn, client in enumerate([ann, ben, ann, ben]):
        await take_one(client, turn)
    assert (await ann.wait_for(lambda c: c.snapshot)).table.status == "over"
    assert await stored_actions(a, table_id) == ["1", "1", "1", "1"]
    await ann.send(p.Again())
    await ben.send(p.Again())
    await ann.wait_for(lambda c: c.snapshot.table.status == "playing" and c.snapshot.turn == 0)
    first = next(c for c in (ann, ben) if c.snapshot.legal)
    await take_one(first, 0)
    await until(lambda: a.tables[table_id].logged == a.tables[table_id].applied, "the move written")
    assert await stored_actions(a, table_id) == ["1"]


async def test_a_stale_authority_writes_nothing_and_lets_go(hosts):
    a = await hosts("host-a", ttl=SHORT)
    b = await hosts("host-b", ttl=30.0)
    ann, ben, table_id = await nim_table(a)
    await take_one(ann, 0)
    await take_one(ben, 1)
    paused = asyncio.Event()

    async def stopped(seconds: float) -> None:  # host A stops renewing, as if SIGSTOPped
        paused.set()
        await asyncio.Event().wait()

    a._lease_pause = stopped
    await until(lambda: paused.is_set(), "host A's renewer paused")
    await until(lambda: b.store.unheld([table_id]), "host A's lease lapsed")
    assert await b._sweep() == [table_id]
    assert b.tables[table_id].match.log == a.tables[table_id].match.log  # the same position, on B now

    await ann.send(p.Move("1", 2))  # A wakes up and takes the move as if it still ran the table
    moved = await ann.wait_for(lambda c: [e for e in c.errors if e.code == "table-moved"])
    assert moved and await ben.wait_for(lambda c: [e for e in c.errors if e.code == "table-moved"])
    assert table_id not in a.tables
    for client in (ann, ben):  # the refused move was shown to no one
        assert client.snapshot.turn == 2 and [event.turn for event in client.events] == [1, 2]
    assert await stored_actions(b, table_id) == ["1", "1"]
    assert len(b.tables[table_id].match.log) == 2


async def test_a_dead_hosts_table_is_taken_over_and_its_bot_plays_on(hosts):
    a = await hosts("host-a", ttl=SHORT)
    b = await hosts("host-b", ttl=30.0)
    thinking = asyncio.Event()

    async def bot_that_never_answers(table, stand_in=False):
        thinking.set()
        await asyncio.Event().wait()

    a._bot_move = bot_that_never_answers  # A dies while its bot thinks
    ann, _, table_id = await nim_table(a, sticks=21, bot=True)
    await ann.send(p.Move("2", 0))
    await asyncio.wait_for(thinking.wait(), 10)
    await until(lambda: a.tables[table_id].logged == 1, "ann's move written")
    await kill(a)
    await until(lambda: b.store.unheld([table_id]), "the dead host's lease lapsed")
    assert await b._sweep() == [table_id]
    table = b.tables[table_id]
    # No one asked: B's driver plays the bot's move (the first legal one: take 1), then waits for ann.
    await until(lambda: len(table.match.log) == 2, "the bot's move on host B")
    assert [entry.action for entry in table.match.log] == ["2", "1"]
    assert table.away and 0 in table.away  # ann's seat waits for her
    again = await connect(b, "key:ann", "ann")  # she reconnects through B and lands at her seat
    snap = await again.wait_for(lambda c: c.snapshot if c.snapshot and c.snapshot.legal else None)
    assert (snap.seat, snap.turn, snap.view["sticks"]) == (0, 2, 18)
    await take_one(again, 2)
    await until(lambda: len(table.match.log) == 4, "the bot answering on B")
    assert await stored_actions(b, table_id) == ["2", "1", "1", "1"]


async def test_a_dead_hosts_tables_are_taken_together_not_one_after_another(hosts):
    """A dead host's tables come back together: one sweep takes them at once (up to SWEEP_TAKES),
    so the last table's people do not wait for every other table's take and replay first."""
    a = await hosts("host-a", ttl=SHORT)
    b = await hosts("host-b", ttl=30.0)
    table_ids = []
    for name in ("ann", "ben", "cat"):
        player = await connect(a, f"key:{name}", name)
        await player.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("bot", "first")], {"sticks": 30}))
        table_ids.append((await player.wait_for(lambda c: c.snapshot)).table.table)
    # (each held and listed in Redis before A dies: one opened a moment before would be in no list)
    await until(lambda: all(a.tables[table_id].inbox_reader for table_id in table_ids), "A's tables in Redis")
    await kill(a)
    await until(lambda: _all_unheld(b, table_ids), "the dead host's leases lapsed")
    real_take, running, most = b._take, set(), []

    async def counted_take(table_id):
        running.add(table_id)
        most.append(len(running))
        await asyncio.sleep(0.05)  # (a take is a few round trips: the others start meanwhile)
        try:
            return await real_take(table_id)
        finally:
            running.discard(table_id)

    b._take = counted_take
    assert sorted(await b._sweep()) == sorted(table_ids)
    assert max(most) == 3 and sorted(b.tables) == sorted(table_ids)


async def _all_unheld(host, table_ids):
    return len(await host.store.unheld(table_ids)) == len(table_ids)


async def test_a_table_another_host_runs_is_not_taken_nor_read(hosts):
    a = await hosts("host-a")
    b = await hosts("host-b")
    _, _, table_id = await nim_table(a, bot=True)
    await until(lambda: a.tables[table_id].epoch, "host A holds the table's lease")
    loads = []
    load = b.store.load

    async def counted(table: str):
        loads.append(table)
        return await load(table)

    b.store.load = counted
    cat = await connect(b, "key:cat", "cat")
    for n in range(3):  # however often a room asks, the held table's state is not read here:
        await cat.send(p.Join(table_id))  # the join goes to host A (test_relay.py), which has no seat for cat
        await cat.wait_for(lambda c, n=n: len([e for e in c.errors if e.code == "no-seat"]) == n + 1)
    assert loads == [] and table_id not in b.tables
    assert await b._sweep() == [] and loads == []


async def test_a_table_from_another_version_is_not_taken(hosts, monkeypatch):
    a = await hosts("host-a", ttl=SHORT)
    b = await hosts("host-b")
    ann, _, table_id = await nim_table(a, bot=True)
    await take_one(ann, 0)
    await kill(a)
    await until(lambda: b.store.unheld([table_id]), "the dead host's lease lapsed")
    monkeypatch.setattr(authority, "__version__", "99.0")  # B runs another gamenight
    assert await b._sweep() == []
    assert table_id not in b.tables
    again = await connect(b, "key:ann", "ann")
    await again.send(p.Join(table_id))
    refused = await again.wait_for(lambda c: [e for e in c.errors if e.code == "table-version"])
    assert "this host has gamenight 99.0" in refused[0].message
    assert await b.store.unheld([table_id]) == [table_id]  # left to a host that can run it


async def test_while_redis_is_away_the_table_waits_and_nothing_is_lost(durable_redis_server, tmp_path):
    a = await a_host(durable_redis_server, tmp_path, "host-a")
    tries = []

    async def counted(seconds: float) -> None:
        tries.append(seconds)
        await asyncio.sleep(0.05)

    a._store_pause = counted
    try:
        ann, ben, table_id = await nim_table(a)
        await take_one(ann, 0)
        durable_redis_server.stop()  # SIGTERM: it writes what it keeps, and is gone
        await ben.send(p.Move("1", 1))
        for client in (ann, ben):  # both are told the table waits
            await client.wait_for(lambda c: [e for e in c.errors if e.code == "store-down"])
        await until(lambda: len(tries) >= 2, "a second try")
        assert ann.snapshot.turn == 1 and ben.snapshot.turn == 1  # not shown: not written
        await ann.send(p.Move("1", 2))  # no move is taken meanwhile: refused, and said why
        await ann.wait_for(lambda c: [e for e in c.errors if e.code == "store-down"][1:])
        assert len(a.tables[table_id].match.log) == 2
        durable_redis_server.start()
        await ann.wait_for(lambda c: c.snapshot.turn == 2, timeout=30)
        await take_one(ann, 2)
        assert await stored_actions(a, table_id) == ["1", "1", "1"]
    finally:
        await asyncio.wait_for(a.close(), 10)


async def test_redis_restarted_mid_game_the_table_comes_back(durable_redis_server, tmp_path):
    a = await a_host(durable_redis_server, tmp_path, "host-a")
    try:
        ann, ben, table_id = await nim_table(a)
        await take_one(ann, 0)
        await take_one(ben, 1)
        durable_redis_server.restart(kill=True)  # a crash; every write was synced
        await take_one(ann, 2)
        assert await stored_actions(a, table_id) == ["1", "1", "1"]
    finally:
        await asyncio.wait_for(a.close(), 10)
    b = await a_host(durable_redis_server, tmp_path, "host-b")  # A closed: it gave its lease up
    try:
        assert await b._sweep() == [table_id]
        assert [entry.action for entry in b.tables[table_id].match.log] == ["1", "1", "1"]
    finally:
        await asyncio.wait_for(b.close(), 10)


def test_the_option_reaches_the_settings_and_is_checked(capsys) -> None:
    options = parser()
    url = "redis://redis.example:6379/0"
    assert settings_from_args(options, options.parse_args(["--guest", "--tables-url", url])).tables_url == url
    assert settings_from_args(options, options.parse_args(["--guest"])).tables_url is None
    for wrong in (["--tables-url", "postgresql://db/x"], ["--tables-url", url, "--tables", "off"]):
        with pytest.raises(SystemExit) as ended:
            settings_from_args(options, options.parse_args(["--guest", *wrong]))
        assert ended.value.code == 2
    assert "--tables-url must be a redis://" in capsys.readouterr().err


def test_an_unreachable_redis_at_start_is_one_line_and_exit_status_2(tmp_path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "gamenight", "serve-ssh", "--guest", "--port", "0", "--data-dir", str(tmp_path / "d"),
         "--tables-url", f"unix://{tmp_path}/no-redis.sock"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "is not reachable" in lines[0] and "Traceback" not in result.stderr


async def test_a_write_under_way_when_the_table_is_let_go_ends_quietly(hosts):
    """The renewer lets the table go while its writer waits on Redis, and the client swallows the cancel
    (as redis-py can): the writer finds the queue emptied and stops, with no IndexError."""
    a = await hosts("host-a")
    ann, _ben, table_id = await nim_table(a)
    table = a.tables[table_id]
    entered, go = asyncio.Event(), asyncio.Event()
    append = a.store.append

    async def swallowing_append(*args, **kwargs):
        entered.set()
        while not go.is_set():
            try:
                await go.wait()
            except asyncio.CancelledError:
                pass  # the cancel is lost, as inside a client that swallows it
        return await append(*args, **kwargs)

    a.store.append = swallowing_append
    await ann.send(p.Move("1", 0))
    await asyncio.wait_for(entered.wait(), 10)
    a._let_go(table, "the test: the lease was lost")
    go.set()
    await until(lambda: table.saver.done(), "the writer stopped")
    assert table.saver.cancelled() or table.saver.exception() is None
