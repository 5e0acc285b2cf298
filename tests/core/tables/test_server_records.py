"""The server-wide records, written by the table service: shared tables' games, and rooms' solo games
proven by replaying their logs -- a room that lies, floods or sends garbage is refused and the service goes on."""

from __future__ import annotations

import asyncio
import random
import struct

import msgspec
import pytest
from gamenight.match import Match, SeatConfig
from gamenight.records.store import RecordsStore
from gamenight.sdk import CHANCE
from gamenight.tables import protocol as p
from gamenight.tables.service import TableService

from .conftest import FAST, NIM_REGISTRY, REGISTRY, connect, raw


def solo_game(game_id: str = "yatzy", bots: tuple[str, ...] = ("",), seed: int = 11, rng_seed: int = 1):
    """A finished game played as a room plays it: the person's moves at random, bots and chance as the match does."""
    game = REGISTRY.game(game_id)
    seats = [SeatConfig("Me") if not bot else SeatConfig(f"B{n}", bot) for n, bot in enumerate(bots)]
    match = Match(game, seats, {}, seed=seed, bot_time_budget=0.05)
    rng = random.Random(rng_seed)
    while not match.over:
        if match.to_move() == CHANCE:
            match.apply_chance()
        elif match.bot_to_move():
            match.apply(match.bot_choice())
        else:
            match.apply(rng.choice(match.legal_actions()))
    return p.SoloGame(
        game=game.id,
        plugin_version=str(game.version),
        seed=seed,
        game_number=0,
        bots=list(bots),
        log=[(entry.seat, entry.action) for entry in match.log],
    ), match.outcome().scores


def stored(service: TableService) -> RecordsStore:
    """A second connection to the service's records file (read in the test's thread)."""
    return RecordsStore.open(service.data_dir / "records.sqlite3")


async def recorded_or_refused(client) -> p.ServiceMessage:
    return await client.wait_for(
        lambda c: next((m for m in reversed(c.received) if isinstance(m, p.Recorded | p.Error)), None), timeout=20
    )


async def test_a_solo_game_is_replayed_and_recorded_under_the_servers_name_for_the_room(service):
    message, scores = solo_game()
    ann = await connect(service, "k-ann", "ann")
    await ann.send(message)
    answer = await recorded_or_refused(ann)
    assert isinstance(answer, p.Recorded), answer
    assert answer.scores == list(scores)  # the replay's scores: the room never claimed any
    store = stored(service)
    (record,) = store.recent("yatzy")
    assert record.seats[0].name == "ann" and record.seats[0].bot is None and record.seats[0].score == scores[0]
    assert store.connection.execute("SELECT identity FROM seat_owners").fetchall() == [("k-ann",)]
    full = store.get(record.id)
    assert list(full.log) == [tuple(entry) for entry in message.log]
    # the same game sent again is the same game: recorded once
    ann.received.clear()
    await ann.send(message)
    assert isinstance(await recorded_or_refused(ann), p.Error | p.Recorded)
    assert store.count("yatzy") == 1


async def test_a_game_against_a_bot_is_recorded_with_the_bots_seat(service):
    message, scores = solo_game(bots=("", "greedy"), seed=5)
    ann = await connect(service, "k-ann", "ann")
    await ann.send(message)
    assert isinstance(await recorded_or_refused(ann), p.Recorded)
    (record,) = stored(service).recent("yatzy")
    assert [(seat.name, seat.bot) for seat in record.seats] == [("ann", None), ("Greedy 2", "greedy")]
    assert [seat.score for seat in record.seats] == list(scores)


def tampered(message: p.SoloGame, **changes) -> p.SoloGame:
    return msgspec.structs.replace(message, **changes)


def lies(message: p.SoloGame) -> dict[str, p.SoloGame]:
    """Games a lying room might send: each one changed from a real game in one way."""
    log = list(message.log)
    chance = next(i for i, (seat, _action) in enumerate(log) if seat == CHANCE)
    other_dice = [(seat, action) for seat, action in log]
    other_dice[chance] = (CHANCE, next(a for s, a in log if s == CHANCE and a != log[chance][1]))
    person = next(i for i, (seat, _action) in enumerate(log) if seat == 0)
    return {
        "a chance outcome the seed does not draw": tampered(message, log=other_dice),
        "an unfinished game": tampered(message, log=log[:-3]),
        "a move that is not legal": tampered(message, log=[*log[:person], (0, "score nonsense"), *log[person + 1 :]]),
        "out of turn": tampered(message, log=[*log[:person], (1, log[person][1]), *log[person + 1 :]]),
        "another seed": tampered(message, seed=message.seed + 1),
        "no game": tampered(message, game="chess"),
        "a newer plugin": tampered(message, plugin_version="999.0"),
        "two people at one keyboard": tampered(message, bots=["", ""]),
        "an unknown bot": tampered(message, bots=["", "grandmaster"]),
    }


async def test_a_room_that_lies_is_refused_logged_and_nothing_is_recorded(service):
    message, _scores = solo_game()
    for number, (what, lie) in enumerate(lies(message).items()):
        liar = await connect(service, f"k-liar{number}", "liar")
        await liar.send(lie)
        answer = await recorded_or_refused(liar)
        assert isinstance(answer, p.Error) and answer.code == "not-recorded", (what, answer)
        assert any(identity == f"k-liar{number}" and "not-recorded" in reason for identity, reason in service.refusals)
    assert stored(service).count() == 0


async def test_scores_in_the_message_or_garbage_cut_the_room_off_and_the_service_goes_on(service):
    message, _scores = solo_game()
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
    await ann.send(message)
    assert isinstance(await recorded_or_refused(ann), p.Recorded)
    assert stored(service).count() == 1


async def test_a_flood_of_games_is_refused_then_cut_off_and_another_room_is_recorded(service):
    message, _scores = solo_game()
    flooder = await connect(service, "k-flood", "flood")
    for _ in range(12):
        await flooder.send(message)
    await asyncio.wait_for(flooder.closed.wait(), 20)  # refused past its rate, then cut off
    codes = [m.code for m in flooder.received if isinstance(m, p.Error)]
    assert "record-flood" in codes
    other, _ = solo_game(seed=12)
    ann = await connect(service, "k-ann", "ann")
    await ann.send(other)
    assert isinstance(await recorded_or_refused(ann), p.Recorded)
    store = stored(service)
    for _ in range(200):  # the flooder's one game (sent first) may still be replaying in its thread
        if store.count("yatzy") == 2:
            break
        await asyncio.sleep(0.05)
    assert store.count("yatzy") == 2  # the flooder's first game and Ann's: nothing else of the flood


async def test_a_replay_over_its_time_budget_is_refused(tmp_path):
    service = TableService(REGISTRY, tmp_path / "data", seed=1, message_rate=FAST, verify_budget=0.0)
    await service.start()
    try:
        message, _scores = solo_game()
        ann = await connect(service, "k-ann", "ann")
        await ann.send(message)
        answer = await recorded_or_refused(ann)
        assert isinstance(answer, p.Error) and answer.code == "not-recorded" and "took over" in answer.message
    finally:
        await asyncio.wait_for(service.close(), 5)


async def test_a_shared_tables_finished_game_is_in_the_server_records_with_its_seats(nim_service):
    ann = await connect(nim_service, "k-ann", "Ann")
    await ann.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("bot", "first")]))
    while True:
        snap = await ann.wait_for(
            lambda c: c.snapshot if c.snapshot and (c.snapshot.legal or c.snapshot.table.status == "over") else None
        )
        if snap.table.status == "over":
            break
        await ann.send(p.Move(snap.legal[0], snap.turn))
        await ann.wait_for(lambda c, turn=snap.turn: c.snapshot.turn > turn or c.snapshot.table.status == "over")
    store = stored(nim_service)
    for _ in range(100):
        if store.count("nim"):
            break
        await asyncio.sleep(0.05)
    (record,) = store.recent("nim")
    assert [(seat.name, seat.bot) for seat in record.seats] == [("Ann", None), ("First 2", "first")]
    assert store.connection.execute("SELECT seat, identity FROM seat_owners").fetchall() == [(0, "k-ann")]
    assert ann.snapshot.outcome == [seat.score for seat in record.seats]


async def test_without_a_data_dir_there_are_no_records_and_a_solo_game_is_refused_gently(tmp_path):
    service = TableService(NIM_REGISTRY, None, seed=1, message_rate=FAST)
    await service.start()
    try:
        ann = await connect(service, "k-ann", "ann")
        await ann.send(p.SoloGame("nim", "1.0", 1, 0, [""], []))
        answer = await recorded_or_refused(ann)
        assert isinstance(answer, p.Error) and answer.code == "no-records"
        await ann.send(p.HallQuery("yatzy"))
        hall = await ann.wait_for(lambda c: next((m for m in c.received if isinstance(m, p.HallOfFame)), None))
        assert hall.available is False and hall.top == [] and not ann.closed.is_set()
    finally:
        await asyncio.wait_for(service.close(), 5)


@pytest.mark.parametrize("shown", [True, False])
async def test_the_hall_of_fame_names_a_player_as_they_chose(service, shown):
    message, scores = solo_game()
    ann = await connect(service, "k-ann", "ann")
    await ann.send(p.HallName(shown))
    await ann.send(message)
    assert isinstance(await recorded_or_refused(ann), p.Recorded)
    ben = await connect(service, "k-ben", "ben")
    await ben.send(p.HallQuery("yatzy"))
    hall = await ben.wait_for(lambda c: next((m for m in c.received if isinstance(m, p.HallOfFame)), None))
    assert hall.available
    assert [(entry.rank, entry.score, entry.name) for entry in hall.top] == [(1, scores[0], "ann" if shown else "")]
    assert [(seat.name, seat.bot, seat.score) for seat in hall.recent[0].seats] == [
        ("ann" if shown else "", "", scores[0])
    ]


async def test_a_hosted_rooms_finished_game_reaches_the_server_records_by_keys(nim_service, tmp_path):
    import socket

    from gamenight.dialogs import ResultDialog
    from gamenight.sdk.testing import make_room
    from gamenight.ui.game_screen import GameScreen

    ours, theirs = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=theirs)
    asyncio.get_running_loop().create_task(nim_service.serve(reader, writer, "k-ann", "Ann"))
    match = Match(NIM_REGISTRY.game("nim"), [SeatConfig("Me"), SeatConfig("Bob", "first")], {"sticks": 5}, seed=99)
    room = make_room(NIM_REGISTRY, tmp_path, start_match=match, tables_streams=await asyncio.open_connection(sock=ours))

    async def until(pilot, predicate, what: str) -> None:
        for _ in range(300):  # the tables' connection is a worker that never completes: no settle() here
            if predicate():
                return
            await pilot.pause(0.02)
        raise AssertionError(f"{what} not reached")

    def my_turn() -> bool:
        return isinstance(room.screen, GameScreen) and match.human_to_move() and not room.screen.bot_thinking

    async with room.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: room.tables is not None and room.tables.name, "the tables' welcome")
        room.tables.keep_all = True
        await until(pilot, my_turn, "Me to move")
        await pilot.press("1")  # 5 -> 4, the bot takes 1 -> 3
        await until(pilot, lambda: len(match.log) >= 2 and my_turn(), "the bot's move")
        await pilot.press("3")  # the last three
        await until(pilot, lambda: isinstance(room.screen, ResultDialog), "the end")
        answer = await recorded_or_refused(room.tables)
        assert isinstance(answer, p.Recorded), answer
    (record,) = stored(nim_service).recent("nim")
    # the server's name for the connection, not the name typed in the room
    assert [(seat.name, seat.bot, seat.score) for seat in record.seats] == [
        ("Ann", None, 1.0),
        ("First 2", "first", 0.0),
    ]


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
