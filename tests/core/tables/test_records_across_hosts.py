"""Several hosts, one table, one records database: a shared table's finished game is recorded exactly once,
and it is the game that was played, whichever host ran its end and whichever died.

Two "hosts" are two :class:`TableService` objects on one real ``redis-server`` (as in test_authority.py)
and one records database, on each engine: a SQLite file both open, or a PostgreSQL database of the
test's own.  The table's game is issued as ``TABLE/NUMBER/SEED`` (``server_game``, unique in the
database), so a second host recording it adds no row; what must also hold is *which* game that row is:

* a host paused past its lease that wakes up and takes the move ending the game never records that end
  (its write is refused: the game goes on, and ends otherwise, on the host that took the table over);
* a host that died after the end was written to Redis but before its record reached the database has
  the game recorded by the host that takes the table over.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from gamenight.records.backends import open_records
from gamenight.tables import protocol as p
from gamenight.tables.service import TableService

from tests.core.records import conftest as records_fixtures
from tests.core.tables.test_authority import SHORT, a_host, kill, nim_table, take_one, until

postgres, database = records_fixtures.postgres, records_fixtures.database  # the records tests' fixtures
engine, records_target = records_fixtures.engine, records_fixtures.records_target


@pytest.fixture
async def hosts(redis_server, records_target: Path | str, tmp_path: Path):
    """Make hosts (as test_authority.py's) on one Redis and one records database; each closed after the test."""
    made: list[TableService] = []

    async def make(name: str, ttl: float = 30.0) -> TableService:
        made.append(await a_host(redis_server, tmp_path, name, ttl, records_url=str(records_target)))
        return made[-1]

    yield make
    for service in made:
        if getattr(service, "killed", False):  # (its table store is closed: its records are not)
            await asyncio.wait_for(service._close_records(), 15)
        else:
            await asyncio.wait_for(service.close(), 15)


def rows(target: Path | str) -> list[tuple[str, list[str]]]:
    """Every recorded game: (its server game, its moves)."""
    store = open_records(target)
    try:
        return _rows(store)
    finally:
        store.close()


def _rows(store) -> list[tuple[str, list[str]]]:
    found = []
    for record_id, server_game in store.query("SELECT id, server_game FROM games ORDER BY id"):
        record = store.get(record_id)
        assert record is not None
        found.append((server_game, [action for _seat, action in record.log]))
    return found


async def recorded(target: Path | str, count: int = 1) -> list[tuple[str, list[str]]]:
    """The recorded games once there are ``count`` (bounded, so a game never recorded fails)."""
    store = open_records(target)
    try:
        return await until(lambda: found if len(found := _rows(store)) >= count else None, f"{count} recorded game(s)")
    finally:
        store.close()


async def paused(host: TableService) -> None:
    """``host`` stops renewing its leases, as if SIGSTOPped (everything else of it runs on)."""
    stopped = asyncio.Event()

    async def stop(_seconds: float) -> None:
        stopped.set()
        await asyncio.Event().wait()

    host._lease_pause = stop  # type: ignore[method-assign]
    await until(stopped.is_set, "the host's renewer paused")


async def test_a_stale_hosts_end_is_never_recorded_the_end_played_on_the_new_host_is(hosts, records_target) -> None:
    a = await hosts("host-a", ttl=SHORT)
    b = await hosts("host-b")
    ann, ben, table_id = await nim_table(a, sticks=4)
    await take_one(ann, 0)
    await take_one(ben, 1)
    await paused(a)  # split brain: A's lease lapses, B takes the table...
    await until(lambda: b.store.unheld([table_id]), "host A's lease lapsed")
    assert await b._sweep() == [table_id]

    await ann.send(p.Move("2", 2))  # ... and A, awake, takes ann's move that would end the game there
    await ann.wait_for(lambda c: [e for e in c.errors if e.code == "table-moved"])
    assert table_id not in a.tables
    # The game goes on on B, and ends otherwise: ann takes one stick, ben the last.
    ann, ben = await _back(b, "key:ann", "ann"), await _back(b, "key:ben", "ben")
    await take_one(ann, 2)
    await ben.send(p.Move("1", 3))
    await ben.wait_for(lambda c: c.snapshot.table.status == "over")
    games = await recorded(records_target)
    await _quiet(a, b)  # every write under way has landed (or is dropped)
    assert rows(records_target) == games == [(games[0][0], ["1", "1", "1", "1"])]
    assert games[0][0].startswith(f"{table_id}/0/")


async def test_a_host_dead_before_its_record_landed_has_it_recorded_by_the_next_once(hosts, records_target) -> None:
    a = await hosts("host-a", ttl=SHORT)
    b = await hosts("host-b")

    async def lost(record, what: str) -> bool:  # A dies before its record reaches the database
        return False

    a._write = lost  # type: ignore[method-assign]
    ann, ben, table_id = await nim_table(a, sticks=2)
    await take_one(ann, 0)
    await ben.send(p.Move("1", 1))
    await ben.wait_for(lambda c: c.snapshot.table.status == "over")
    table = a.tables[table_id]
    await until(lambda: not table.outbox and table.logged == table.applied, "the end written to Redis")
    await kill(a)
    await until(lambda: b.store.unheld([table_id]), "the dead host's lease lapsed")
    assert await b._sweep() == [table_id]
    games = await recorded(records_target)
    assert games == [(games[0][0], ["1", "1"])] and games[0][0].startswith(f"{table_id}/0/")

    b._record_table(b.tables[table_id])  # recorded again (a host recording it as well): still one row
    await _quiet(b)
    assert rows(records_target) == games


async def test_a_game_recorded_before_its_host_died_is_not_recorded_again(hosts, records_target) -> None:
    a = await hosts("host-a", ttl=SHORT)
    b = await hosts("host-b")
    written, write = [], b._write

    async def b_writes(record, what: str) -> bool:
        written.append((record.server_game, await write(record, what)))
        return written[-1][1]

    b._write = b_writes  # type: ignore[method-assign]
    ann, ben, table_id = await nim_table(a, sticks=2)
    await take_one(ann, 0)
    await ben.send(p.Move("1", 1))
    games = await recorded(records_target)  # A recorded the end, then dies
    table = a.tables[table_id]
    await until(lambda: not table.outbox and table.logged == table.applied, "the end written to Redis")
    await kill(a)
    await until(lambda: b.store.unheld([table_id]), "the dead host's lease lapsed")
    assert await b._sweep() == [table_id]
    await until(lambda: written, "host B's record of the game it took over")
    assert written == [(games[0][0], True)]  # B wrote it too (the database took nothing new)...
    assert rows(records_target) == games == [(games[0][0], ["1", "1"])]  # ... one row


async def _back(host: TableService, identity: str, name: str):
    """``identity`` connects again through ``host`` and lands at their seat."""
    from tests.core.tables.conftest import connect

    client = await connect(host, identity, name)
    await client.wait_for(lambda c: c.snapshot and c.snapshot.seat >= 0)
    return client


async def _quiet(*hosts: TableService) -> None:
    """Every records write the hosts started has ended."""
    for host in hosts:
        pending = [task for task in host._db_tasks if not task.done()]
        if pending:
            await asyncio.wait(pending, timeout=15)
