"""How many tables one identity and one address may host, waiting tables their host left, and games the
bots finished alone (no one's: not in the records)."""

from __future__ import annotations

import asyncio
import socket

from gamenight.tables import protocol as p
from gamenight.tables.client import TableClient
from gamenight.tables.errors import refusal_text
from gamenight.tables.service import TableService

from .conftest import connect
from .test_server_records import stored

TWO_PEOPLE = [p.SeatSpec("person"), p.SeatSpec("person")]


async def connect_from(service: TableService, identity: str, address: str) -> TableClient:
    """A client whose session the server saw come from ``address``."""
    ours, theirs = socket.socketpair()
    service_reader, service_writer = await asyncio.open_connection(sock=theirs)
    asyncio.get_running_loop().create_task(service.serve(service_reader, service_writer, identity, identity, address))
    reader, writer = await asyncio.open_connection(sock=ours)
    client = TableClient(reader, writer)
    client.keep_all = True
    await client.connect()
    await client.wait_for(lambda c: c.name)
    return client


async def until(predicate) -> None:
    """Wait (30 s at most: a loaded machine) for ``predicate()``, which the service makes true meanwhile."""
    for _ in range(3000):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("it never came")


async def opened(client: TableClient, seats=TWO_PEOPLE, game: str = "nim") -> p.Snapshot | p.Error:
    """Open a table; the first snapshot of it, or the refusal."""
    before = len(client.received)
    await client.send(p.OpenTable(game, seats))
    return await client.wait_for(
        lambda c: next((m for m in c.received[before:] if isinstance(m, p.Snapshot | p.Error)), None)
    )


async def a_table_in_play_left_by(service: TableService, host: TableClient, guest: str) -> tuple[str, TableClient]:
    """``host`` opens a Nim table for two people, ``guest`` joins, the host leaves (the table's bot takes
    the seat) while the guest plays on: a table in play that ``host`` hosts."""
    snap = await opened(host)
    assert isinstance(snap, p.Snapshot), snap
    table_id = snap.table.table
    other = await connect(service, guest)
    await other.send(p.Join(table_id))
    await other.wait_for(lambda c: c.snapshot and c.snapshot.table.status == "playing")
    await host.send(p.Leave())
    await other.wait_for(lambda c: c.snapshot.table.seats[0].bot)
    assert service.tables[table_id].status() == "playing"
    return table_id, other


async def test_one_identity_hosts_at_most_three_open_tables(nim_service):
    ann = await connect(nim_service, "key:ann")
    for number in range(3):
        await a_table_in_play_left_by(nim_service, ann, f"key:guest{number}")
    refused = await opened(ann)
    assert isinstance(refused, p.Error) and refused.code == "host-limit"
    assert nim_service.refusals[-1][0] == "key:ann"
    assert "finish or leave one" in refusal_text(refused.code, refused.message)
    assert len(nim_service.tables) == 3
    ben = await connect(nim_service, "key:ben")  # someone else still opens one
    assert isinstance(await opened(ben), p.Snapshot)


async def test_one_address_hosts_at_most_six_open_tables_whoever_opens_them(nim_service):
    guests = [await connect_from(nim_service, f"guest-{n}", "203.0.113.9") for n in range(7)]
    for guest in guests[:6]:
        assert isinstance(await opened(guest), p.Snapshot)
    refused = await opened(guests[6])
    assert isinstance(refused, p.Error) and refused.code == "address-limit"
    elsewhere = await connect_from(nim_service, "guest-7", "198.51.100.4")
    assert isinstance(await opened(elsewhere), p.Snapshot)
    assert len(nim_service.tables) == 7


async def test_drive_by_openings_leave_no_table_and_an_honest_opening_gets_one(nim_service):
    mallory = await connect(nim_service, "key:mallory")
    for _ in range(250):  # more than the server's 200 tables
        assert isinstance(await opened(mallory), p.Snapshot)
        await mallory.send(p.Leave())
    await until(lambda: not nim_service.tables)
    ann = await connect(nim_service, "key:ann")
    assert isinstance(await opened(ann), p.Snapshot)


async def test_a_waiting_table_closes_when_its_host_leaves_and_its_watchers_and_lobby_are_told(service):
    ann = await connect(service, "key:ann")
    snap = await opened(ann, game="yatzy")
    table_id = snap.table.table
    cat = await connect(service, "key:cat")
    await cat.send(p.Watch(table_id))
    await cat.wait_for(lambda c: c.snapshot)
    lobby = await connect(service, "key:dan")
    await lobby.send(p.ListTables())
    await lobby.wait_for(lambda c: [t for t in c.tables if t.table == table_id])
    await ann.send(p.Leave())
    closed = await cat.wait_for(lambda c: next((e for e in c.errors if e.code == "table-closed"), None))
    assert refusal_text(closed.code, closed.message) == "The table was closed: everyone left it."
    await lobby.wait_for(lambda c: not [t for t in c.tables if t.table == table_id])
    assert table_id not in service.tables
    assert not [r for r in service.refusals if r[0] == "key:cat"]  # told, not refused


async def test_a_waiting_table_closes_when_its_hosts_connection_drops_but_one_in_play_stays(nim_service):
    ann = await connect(nim_service, "key:ann")
    table_id = (await opened(ann)).table.table
    await ann.close()
    await until(lambda: table_id not in nim_service.tables)
    ben = await connect(nim_service, "key:ben")
    playing, _cat = await a_table_in_play_left_by(nim_service, ben, "key:cat")
    assert nim_service.tables[playing].status() == "playing"


async def test_a_game_the_bots_finished_after_everyone_left_is_not_recorded(nim_service):
    ann = await connect(nim_service, "key:ann")
    table_id, ben = await a_table_in_play_left_by(nim_service, ann, "key:ben")
    table = nim_service.tables[table_id]
    await ben.send(p.Leave())  # the last person goes: the table's bot plays both seats to the end
    await until(lambda: table.match.over and table.match.recorded)
    await asyncio.gather(*nim_service._db_tasks)
    assert stored(nim_service).count("nim") == 0
    # Played to the end by a person, a game is recorded as before.
    carl = await connect(nim_service, "key:carl")
    table_id, dan = await a_table_in_play_left_by(nim_service, carl, "key:dan")
    while dan.snapshot.table.status != "over":
        snap = await dan.wait_for(lambda c: (c.snapshot.legal or c.snapshot.table.status == "over") and c.snapshot)
        if snap.legal:
            await dan.send(p.Move(snap.legal[0], snap.turn))
            await dan.wait_for(lambda c, turn=snap.turn: c.snapshot.turn > turn or c.snapshot.table.status == "over")
    await until(lambda: nim_service.tables[table_id].match.recorded)
    await asyncio.gather(*nim_service._db_tasks)
    assert stored(nim_service).count("nim") == 1


async def test_a_server_closing_keeps_the_waiting_tables_whose_hosts_it_disconnects(tmp_path):
    from .conftest import NIM_REGISTRY

    service = TableService(NIM_REGISTRY, tmp_path / "data", seed=3)
    await service.start()
    ann = await connect(service, "key:ann")
    table_id = (await opened(ann)).table.table
    await service.close()
    again = TableService(NIM_REGISTRY, tmp_path / "data", seed=3)
    await again.start()
    try:
        assert table_id in again.tables
    finally:
        await again.close()


NIM_SOLO = [p.SeatSpec("person"), p.SeatSpec("bot", "first")]


async def kept_solo(client: TableClient) -> str:
    """Open a solo Nim table and leave it kept; its id."""
    before = len(client.received)
    await client.send(p.OpenTable("nim", NIM_SOLO, solo=True))
    snap = await client.wait_for(lambda c: next((m for m in c.received[before:] if isinstance(m, p.Snapshot)), None))
    await client.send(p.Leave())
    return snap.table.table


async def test_kept_solo_games_never_use_up_a_persons_shared_tables(nim_service):
    """Five kept solo games (the most one person keeps) still leave all three shared tables to host."""
    ann = await connect(nim_service, "key:ann")
    for _ in range(p.MAX_KEPT):
        await kept_solo(ann)
    await until(lambda: sum(table.solo for table in nim_service.tables.values()) == p.MAX_KEPT)
    for number in range(3):
        await a_table_in_play_left_by(nim_service, ann, f"key:guest{number}")
    refused = await opened(ann)
    assert isinstance(refused, p.Error) and refused.code == "host-limit"


async def test_one_addresss_guests_keep_a_bounded_number_of_solo_games(nim_service, monkeypatch):
    """Many guest names from one address cannot fill the server with kept solo games."""
    import gamenight.tables.service as service_module

    monkeypatch.setattr(service_module, "SOLO_TABLES_PER_ADDRESS", 4)
    guests = [await connect_from(nim_service, f"guest-{n}", "203.0.113.7") for n in range(3)]
    for guest in guests[:2]:
        for _ in range(2):
            await kept_solo(guest)
    before = len(guests[2].received)
    await guests[2].send(p.OpenTable("nim", NIM_SOLO, solo=True))
    refused = await guests[2].wait_for(
        lambda c: next((m for m in c.received[before:] if isinstance(m, p.Snapshot | p.Error)), None)
    )
    assert isinstance(refused, p.Error) and refused.code == "address-limit"
    elsewhere = await connect_from(nim_service, "guest-far", "198.51.100.1")
    assert isinstance(await kept_solo(elsewhere), str)
