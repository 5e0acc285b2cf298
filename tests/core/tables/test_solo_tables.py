"""A hosted room's game against bots is a solo table at the service: chance and bots on the server,
the seat kept while its person is away (never handed to a bot), at most five kept per person, kept
across a restart, rejoined from the lobby; a room's own game sent for the records is refused."""

from __future__ import annotations

import asyncio

import pytest
from gamenight.records.store import RecordsStore
from gamenight.tables import protocol as p
from gamenight.tables.service import TableService

from .conftest import FAST, NIM_REGISTRY, REGISTRY, connect, play_to_the_end

SOLO = [p.SeatSpec("person"), p.SeatSpec("bot", "greedy")]


@pytest.fixture
async def quick(tmp_path):
    """A service whose away seats would go to the bot at once -- but for solo tables."""
    service = TableService(
        REGISTRY, tmp_path / "data", away_timeout=0.01, bot_time_budget=0.2, seed=9, message_rate=FAST
    )
    await service.start()
    yield service
    await asyncio.wait_for(service.close(), 10)


async def roll(client) -> tuple[str, list]:
    """Roll once at the client's solo Yatzy table: the table id and the dice it sees."""
    snap = await client.wait_for(lambda c: c.snapshot if c.snapshot and c.snapshot.legal else None)
    await client.send(p.Move(snap.legal[0], snap.turn))
    after = await client.wait_for(lambda c, t=snap.turn: c.snapshot if c.snapshot.turn >= t + 2 else None)
    return after.table.table, after.view


async def test_leaving_and_coming_back_shows_the_same_dice_a_fresh_table_others(quick):
    ann = await connect(quick, "k-ann", "Ann")
    await ann.send(p.OpenTable("yatzy", SOLO, solo=True))
    table_id, dice = await roll(ann)
    table = quick.tables[table_id]
    assert table.solo and not table.public and table.started
    assert table.match.seed.bit_length() > 64  # the server's secret seed; nothing the room holds
    await ann.send(p.Leave())
    for _ in range(100):
        if not table.connections:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)  # past the away timeout: a shared table's seat would go to its bot
    table.wake.set()
    await asyncio.sleep(0.05)
    assert table.match.seats[0].bot is None and table.owners[0] == "k-ann"
    assert quick._table_list().tables == []  # never listed
    await ann.send(p.ListKept())
    kept = await ann.wait_for(lambda c: c.kept)
    assert [info.table for info in kept] == [table_id] and kept[0].solo
    ann.snapshot = None
    await ann.send(p.Join(table_id))
    back = await ann.wait_for(lambda c: c.snapshot)
    assert back.table.table == table_id and back.view == dice and back.seat == 0
    await ann.send(p.Leave())
    await ann.send(p.OpenTable("yatzy", SOLO, solo=True))
    ann.snapshot = None
    other_id, other_dice = await roll(ann)
    assert other_id != table_id and other_dice != dice


async def test_another_person_cannot_join_a_solo_table(quick):
    ann = await connect(quick, "k-ann", "Ann")
    await ann.send(p.OpenTable("yatzy", SOLO, solo=True))
    snap = await ann.wait_for(lambda c: c.snapshot)
    bob = await connect(quick, "k-bob", "Bob")
    await bob.send(p.Join(snap.table.table))
    refusal = await bob.wait_for(lambda c: c.errors and c.errors[-1])
    assert refusal.code == "no-table" and bob.snapshot is None
    await bob.send(p.OpenTable("yatzy", [p.SeatSpec("person"), p.SeatSpec("person")], solo=True))
    assert (await bob.wait_for(lambda c: len(c.errors) > 1 and c.errors[-1])).code == "bad-table"


async def test_a_sixth_kept_game_closes_the_oldest_with_a_notice(quick):
    ann = await connect(quick, "k-ann", "Ann")
    opened = []
    for _ in range(p.MAX_KEPT + 1):
        ann.snapshot = None
        await ann.send(p.OpenTable("yatzy", SOLO, solo=True))
        opened.append((await ann.wait_for(lambda c: c.snapshot)).table.table)
        await ann.send(p.Leave())
    await ann.send(p.ListKept())
    ann.kept = None
    await ann.send(p.ListKept())
    kept = await ann.wait_for(lambda c: c.kept)
    assert [info.table for info in kept] == opened[1:]
    assert opened[0] not in quick.tables
    assert [e.code for e in ann.errors] == ["solo-closed"]


async def test_a_kept_solo_table_survives_a_restart_and_waits_for_resume(tmp_path):
    data = tmp_path / "data"
    service = TableService(REGISTRY, data, bot_time_budget=0.2, seed=4, message_rate=FAST)
    await service.start()
    ann = await connect(service, "k-ann", "Ann")
    await ann.send(p.OpenTable("yatzy", SOLO, solo=True, bot_delay=0.5))
    table_id, dice = await roll(ann)
    await ann.close()
    await asyncio.wait_for(service.close(), 10)
    again = TableService(REGISTRY, data, bot_time_budget=0.2, away_timeout=0.01, message_rate=FAST)
    await again.start()
    try:
        restored = again.tables[table_id]
        assert restored.solo and restored.bot_delay == 0.5 and restored.owners[0] == "k-ann"
        ann = await connect(again, "k-ann", "Ann")
        await asyncio.sleep(0.05)
        assert ann.snapshot is None  # not put back at it unasked: Resume lists it
        await ann.send(p.ListKept())
        assert [info.table for info in await ann.wait_for(lambda c: c.kept)] == [table_id]
        await ann.send(p.Join(table_id))
        assert (await ann.wait_for(lambda c: c.snapshot)).view == dice
    finally:
        await asyncio.wait_for(again.close(), 10)


async def test_a_room_sending_its_own_game_is_refused_and_stays_connected(quick):
    ann = await connect(quick, "k-ann", "Ann")
    await ann.send(p.SoloGame("yatzy", "1", 11, 0, [""], [(0, "roll:00000")]))
    refusal = await ann.wait_for(lambda c: c.errors and c.errors[-1])
    assert refusal.code == "solo-retired"
    await ann.send(p.ListKept())
    await ann.wait_for(lambda c: c.kept is not None)
    assert ann.kept == []
    assert not ann.closed.is_set()


async def test_bots_at_a_solo_table_wait_the_persons_delay_and_it_is_bounded(quick, monkeypatch):
    pauses: list[float] = []

    async def pause(seconds: float) -> None:
        pauses.append(seconds)

    monkeypatch.setattr(quick, "_bot_pause", pause)
    ann = await connect(quick, "k-ann", "Ann")
    await ann.send(p.OpenTable("yatzy", SOLO, solo=True, bot_delay=0.7))
    answered = -1
    while True:  # roll and score at once: the bot then takes its turn
        snap = await ann.wait_for(
            lambda c, a=answered: (
                c.snapshot
                if c.snapshot and c.snapshot.legal and c.snapshot.turn != a and c.snapshot.table.to_move == 0
                else None
            )
        )
        if any(seat == 1 for seat, _text in ann.log):
            break
        answered = snap.turn
        await ann.send(p.Move(snap.legal[-1], snap.turn))
    bot_moves = sum(1 for seat, _text in ann.log if seat == 1)
    assert bot_moves > 0 and pauses == [0.7] * bot_moves
    with pytest.raises(p.ProtocolError):
        p.decode_client(p.encode(p.OpenTable("yatzy", SOLO, solo=True, bot_delay=60))[4:])


async def test_a_finished_solo_game_is_in_the_server_records_under_the_persons_identity(tmp_path):
    service = TableService(NIM_REGISTRY, tmp_path / "data", bot_time_budget=0.2, seed=3, message_rate=FAST)
    await service.start()
    try:
        ann = await connect(service, "k-ann", "ann")
        await ann.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("bot", "first")], solo=True))
        snap = await play_to_the_end(ann)
        store = RecordsStore.open(service.data_dir / "records.sqlite3")
        for _ in range(100):
            if store.count("nim"):
                break
            await asyncio.sleep(0.05)
        (record,) = store.recent("nim")
        assert record.seats[0].name == "ann" and record.seats[1].bot == "first"
        assert store.connection.execute("SELECT seat, identity FROM seat_owners").fetchall() == [(0, "k-ann")]
        assert snap.outcome == [seat.score for seat in record.seats]
        store.close()
    finally:
        await asyncio.wait_for(service.close(), 10)


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_a_hosted_rooms_yatzy_against_a_bot_runs_at_the_service_and_resume_returns_to_it(
    service, tmp_path, language
):
    from gamenight.i18n import set_language
    from gamenight.ui.game_screen import GameScreen

    from tests.core.tables.test_tables_lobby import room_for, until

    set_language(language)
    room = await room_for(service, "ann", tmp_path, REGISTRY)

    def at_table() -> bool:
        return isinstance(room.screen, GameScreen) and room.screen.remote

    async with room.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: room.tables is not None and room.tables.name and room.registry_loaded)
        await until(pilot, lambda: type(room.screen).__name__ == "LobbyScreen")
        for _ in range(len(REGISTRY.games)):
            if room.screen._highlighted_game() == "yatzy":
                break
            await pilot.press("down")
        await pilot.press("enter")  # Yatzy's setup: seat 1 me, seat 2 the strongest bot
        await until(pilot, lambda: type(room.screen).__name__ == "SetupScreen")
        await pilot.press("ctrl+r")
        await until(pilot, at_table, what="the solo table")
        (table,) = service.tables.values()
        assert table.solo and table.owners[0] == "ann" and table.match.seats[1].bot is not None
        await until(pilot, lambda: room.tables.snapshot.legal, what="my turn")
        await pilot.press("space")  # roll: chance is drawn on the server, from its secret seed
        await until(pilot, lambda: room.tables.snapshot.turn >= 2, what="the dice")
        dice = room.tables.snapshot.view
        assert not (tmp_path / "ann" / "saves").exists() or not list((tmp_path / "ann" / "saves").glob("*.toml"))
        await pilot.press("ctrl+s")  # no file that could show the future: the server keeps the game
        await pilot.pause()
        await pilot.press("escape")  # leave (asks)
        await until(pilot, lambda: type(room.screen).__name__ == "YesNoDialog", what="the question")
        await pilot.press("y")
        await until(pilot, lambda: type(room.screen).__name__ == "LobbyScreen", what="the lobby")
        await asyncio.sleep(0.05)
        assert table.id in service.tables and table.match.seats[0].bot is None  # the seat waits
        assert not list((tmp_path / "ann" / "saves").glob("*.toml")) if (tmp_path / "ann" / "saves").exists() else True
        await pilot.press("r")
        await until(pilot, lambda: type(room.screen).__name__ == "SavesScreen" and room.screen.kept, what="kept")
        await pilot.press("enter")  # the kept game comes first
        await until(pilot, at_table, what="back at the table")
        await until(pilot, lambda: room.tables.snapshot.seat == 0 and room.tables.snapshot.legal, what="my turn")
        assert room.tables.snapshot.view == dice and room.tables.snapshot.table.table == table.id
