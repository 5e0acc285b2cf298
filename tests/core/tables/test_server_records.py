"""The server-wide records, written by the table service: the finished games of its tables -- shared
tables and hosted solo tables (one person against bots, chance and bots on the server).  A room never
sends a game for the records: one that tries, lies, floods or sends garbage is refused and the service goes on."""

from __future__ import annotations

import asyncio
import struct

import msgspec
import pytest
from gamenight.records.store import RecordsStore
from gamenight.tables import protocol as p
from gamenight.tables.service import TableService

from .conftest import FAST, NIM_REGISTRY, REGISTRY, connect, play_randomly, play_to_the_end, raw


def solo_game(game_id: str = "yatzy", bots: tuple[str, ...] = ("",), seed: int = 11, log=None) -> p.SoloGame:
    """What a room used to send for the records: a game it played itself (now always refused)."""
    game = REGISTRY.game(game_id)
    return p.SoloGame(
        game=game.id,
        plugin_version=str(game.version),
        seed=seed,
        game_number=0,
        bots=list(bots),
        log=log if log is not None else [(0, "roll:00000")],
    )


async def play_solo(client, game: str = "yatzy", bots: tuple[str, ...] = (), rng_seed: int = 1) -> list[float]:
    """Open a solo table (the person's seat, then ``bots``) and play it to the end at random; the final scores."""
    seats = [p.SeatSpec("person")] + [p.SeatSpec("bot", bot) for bot in bots]
    client.snapshot = None
    await client.send(p.OpenTable(game, seats, solo=True))
    await client.wait_for(lambda c: c.snapshot)
    await play_randomly(client, rng_seed, asyncio.Event())
    snap = await client.wait_for(lambda c: c.snapshot.outcome and c.snapshot)
    return list(snap.outcome)


def stored(service: TableService) -> RecordsStore:
    """A second connection to the service's records file (read in the test's thread)."""
    return RecordsStore.open(service.data_dir / "records.sqlite3")


async def recorded(service: TableService, count: int, game: str = "yatzy") -> RecordsStore:
    """The records once they hold ``count`` games of ``game`` (written off the event loop)."""
    store = stored(service)
    for _ in range(200):
        if store.count(game) >= count:
            break
        await asyncio.sleep(0.05)
    return store


async def test_a_solo_tables_game_is_recorded_under_the_servers_name_for_the_room(service):
    ann = await connect(service, "k-ann", "ann")
    scores = await play_solo(ann)
    store = await recorded(service, 1)
    (record,) = store.recent("yatzy")
    assert record.seats[0].name == "ann" and record.seats[0].bot is None and record.seats[0].score == scores[0]
    assert store.connection.execute("SELECT identity FROM seat_owners").fetchall() == [("k-ann",)]
    (table,) = service.tables.values()
    assert list(store.get(record.id).log) == [(entry.seat, entry.action) for entry in table.match.log]
    # the finish processed again is the same game: recorded once
    service._record_table(table)
    await asyncio.sleep(0.2)
    assert store.count("yatzy") == 1


async def test_a_game_against_a_bot_is_recorded_with_the_bots_seat(service):
    ann = await connect(service, "k-ann", "ann")
    scores = await play_solo(ann, bots=("greedy",))
    (record,) = (await recorded(service, 1)).recent("yatzy")
    assert [(seat.name, seat.bot) for seat in record.seats] == [("ann", None), ("Greedy 2", "greedy")]
    assert [seat.score for seat in record.seats] == scores


def lies() -> dict[str, p.SoloGame]:
    """Games a room might send for the records, true or not: none is taken any more."""
    return {
        "a plausible game": solo_game(),
        "another seed": solo_game(seed=12),
        "a game against a bot": solo_game(bots=("", "greedy")),
        "no game": solo_game(log=[]),
        "two people at one keyboard": solo_game(bots=("", "")),
    }


async def test_a_room_that_sends_a_game_for_the_records_is_refused_logged_and_nothing_is_recorded(service):
    for number, (what, lie) in enumerate(lies().items()):
        liar = await connect(service, f"k-liar{number}", "liar")
        await liar.send(lie)
        answer = await liar.wait_for(lambda c: c.errors and c.errors[-1])
        assert answer.code == "solo-retired", (what, answer)
        assert any(identity == f"k-liar{number}" and "solo-retired" in reason for identity, reason in service.refusals)
        assert not liar.closed.is_set()
    await asyncio.sleep(0.1)
    assert stored(service).count() == 0


async def test_scores_in_the_message_or_garbage_cut_the_room_off_and_the_service_goes_on(service):
    message = solo_game()
    claim = msgspec.msgpack.encode({**msgspec.structs.asdict(message), "type": "solo", "scores": [375.0]})
    garbage = b"\x93\xff\x00" * 50
    huge_log = msgspec.msgpack.encode(
        {**msgspec.structs.asdict(message), "type": "solo", "log": [[0, "x"]] * (p.MAX_SOLO_LOG + 1)}
    )
    for payload in (claim, garbage, huge_log):
        reader, writer = await raw(service, "k-mallory")
        writer.write(p.encode(p.Hello(p.PROTOCOL_VERSION)) + struct.pack(">I", len(payload)) + payload)
        async with asyncio.timeout(5):
            replies = []
            while (frame := await p.read_frame(reader, p.SERVICE_FRAME_CAP)) is not None:
                replies.append(p.decode_service(frame))
        assert isinstance(replies[-1], p.Error) and replies[-1].code == "protocol"
        writer.close()
    # meanwhile an honest room is served as before
    ann = await connect(service, "k-ann", "ann")
    await play_solo(ann)
    assert (await recorded(service, 1)).count() == 1


async def test_a_flood_of_games_is_refused_then_cut_off_and_another_room_is_recorded(service):
    flooder = await connect(service, "k-flood", "flood")
    for _ in range(12):
        await flooder.send(solo_game())
    await asyncio.wait_for(flooder.closed.wait(), 20)  # refused each time, then cut off
    codes = [m.code for m in flooder.received if isinstance(m, p.Error)]
    assert codes and set(codes) == {"solo-retired"}
    ann = await connect(service, "k-ann", "ann")
    await play_solo(ann)
    store = await recorded(service, 1)
    await asyncio.sleep(0.1)
    assert store.count() == 1  # Ann's game: nothing of the flood


async def test_a_solo_table_checks_every_move_as_any_table_does(service):
    ann = await connect(service, "k-ann", "ann")
    await ann.send(p.OpenTable("yatzy", [p.SeatSpec("person")], solo=True))
    snap = await ann.wait_for(lambda c: c.snapshot if c.snapshot and c.snapshot.legal else None)
    await ann.send(p.Move("score nonsense", snap.turn))
    assert (await ann.wait_for(lambda c: c.errors and c.errors[-1])).code == "illegal"
    await ann.send(p.Move(snap.legal[0], snap.turn + 5))
    assert (await ann.wait_for(lambda c: len(c.errors) > 1 and c.errors[-1])).code == "stale"
    (table,) = service.tables.values()
    assert table.match.log == []


async def test_a_shared_tables_finished_game_is_in_the_server_records_with_its_seats(nim_service):
    ann = await connect(nim_service, "k-ann", "Ann")
    await ann.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("bot", "first")]))
    await play_to_the_end(ann)
    store = stored(nim_service)
    for _ in range(100):
        if store.count("nim"):
            break
        await asyncio.sleep(0.05)
    (record,) = store.recent("nim")
    assert [(seat.name, seat.bot) for seat in record.seats] == [("Ann", None), ("First 2", "first")]
    assert store.connection.execute("SELECT seat, identity FROM seat_owners").fetchall() == [(0, "k-ann")]
    assert ann.snapshot.outcome == [seat.score for seat in record.seats]


async def test_without_a_data_dir_there_are_no_records_and_a_solo_table_still_plays(tmp_path):
    service = TableService(NIM_REGISTRY, None, seed=1, message_rate=FAST)
    await service.start()
    try:
        ann = await connect(service, "k-ann", "ann")
        await ann.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("bot", "first")], solo=True))
        assert (await ann.wait_for(lambda c: c.snapshot)).table.solo  # played, just not recorded
        await ann.send(p.HallQuery("yatzy"))
        hall = await ann.wait_for(lambda c: next((m for m in c.received if isinstance(m, p.HallOfFame)), None))
        assert hall.available is False and hall.top == [] and not ann.closed.is_set()
    finally:
        await asyncio.wait_for(service.close(), 5)


@pytest.mark.parametrize("shown", [True, False])
async def test_the_hall_of_fame_names_a_player_as_they_chose(service, shown):
    ann = await connect(service, "k-ann", "ann")
    await ann.send(p.HallName(shown))
    scores = await play_solo(ann)
    await recorded(service, 1)
    ben = await connect(service, "k-ben", "ben")
    await ben.send(p.HallQuery("yatzy"))
    hall = await ben.wait_for(lambda c: next((m for m in c.received if isinstance(m, p.HallOfFame)), None))
    assert hall.available
    assert [(entry.rank, entry.score, entry.name) for entry in hall.top] == [(1, scores[0], "ann" if shown else "")]
    assert [(seat.name, seat.bot, seat.score) for seat in hall.recent[0].seats] == [
        ("ann" if shown else "", "", scores[0])
    ]


async def test_a_hosted_rooms_game_against_a_bot_is_played_at_the_service_and_recorded_by_keys(nim_service, tmp_path):
    import socket

    from gamenight.sdk.testing import make_room
    from gamenight.ui.game_screen import GameScreen

    ours, theirs = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=theirs)
    asyncio.get_running_loop().create_task(nim_service.serve(reader, writer, "k-ann", "Ann"))
    room = make_room(NIM_REGISTRY, tmp_path, tables_streams=await asyncio.open_connection(sock=ours))

    async def until(pilot, predicate, what: str) -> None:
        for _ in range(1500):  # the tables' connection is a worker that never completes: no settle() here
            if predicate():
                return
            await pilot.pause(0.02)
        raise AssertionError(f"{what} not reached")

    def at_table() -> bool:
        return isinstance(room.screen, GameScreen) and room.screen.remote

    async with room.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: room.tables is not None and room.tables.name and room.registry_loaded, "welcome")
        room.tables.keep_all = True
        await pilot.press("enter")  # Nim, the only game: its setup (Seat 1 me, seat 2 the strongest bot)
        await until(pilot, lambda: type(room.screen).__name__ == "SetupScreen", "the setup")
        await pilot.press("ctrl+r")
        await until(pilot, at_table, "the solo table")
        (table,) = nim_service.tables.values()
        assert table.solo and table.owners[0] == "k-ann" and table.match.seats[1].bot is not None
        while not room.tables.snapshot.outcome:
            await until(pilot, lambda: room.tables.snapshot.legal or room.tables.snapshot.outcome, "my turn")
            if room.tables.snapshot.outcome:
                break
            turn = room.tables.snapshot.turn
            await pilot.press(room.tables.snapshot.legal[0][-1])  # Nim's keys: the number of sticks
            await until(pilot, lambda turn=turn: room.tables.snapshot.turn > turn, "the move")
        assert not any(isinstance(m, p.Error) for m in room.tables.received)  # nothing sent for the records
    store = await recorded(nim_service, 1, "nim")
    (record,) = store.recent("nim")
    # the server's name for the connection, and the game the service played
    assert record.seats[0].name == "Ann" and record.seats[0].bot is None and record.seats[1].bot is not None
    assert [(entry.seat, entry.action) for entry in table.match.log] == list(store.get(record.id).log)


async def test_hall_queries_are_answered_bounded_cached_per_real_game_and_rate_limited(service):
    client = await connect(service, "k-eve", "eve")
    await client.send(p.HallQuery("nosuchgame"))
    await client.send(p.HallQuery("yatzy"))

    def halls(c):
        found = [m for m in c.received if isinstance(m, p.HallOfFame)]
        return found if len(found) == 2 else None

    answers = await client.wait_for(halls)
    assert [(a.game, a.available, a.top, a.recent) for a in answers] == [
        ("nosuchgame", True, [], []),
        ("yatzy", True, [], []),
    ]
    assert set(service._halls) == {"yatzy"}  # a made-up game id is answered, never kept
    for _ in range(10):  # past the burst of five a second: refused, then cut off
        await client.send(p.HallQuery("yatzy"))
    await asyncio.wait_for(client.closed.wait(), 10)
    assert "hall-flood" in [m.code for m in client.received if isinstance(m, p.Error)]
