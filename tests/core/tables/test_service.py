"""The table service over the real protocol: seats, views, watchers, reconnection, restarts."""

from __future__ import annotations

import asyncio

import msgspec
import pytest
from gamenight.match import Match
from gamenight.sdk import OBSERVER, observer_view
from gamenight.tables import protocol as p
from gamenight.tables.client import RemoteTable
from gamenight.tables.service import TableService

from .conftest import FAST, REGISTRY, connect, play_randomly

SEVEN = REGISTRY.game("seven")


def as_sent(value):
    """A value as it arrives over the wire (tuples become lists)."""
    return msgspec.msgpack.decode(msgspec.msgpack.encode(value))


def state_at(table, turn: int):
    """The service's state of ``table``'s current game after ``turn`` moves (replayed from its log)."""
    match = Match(
        table.game,
        list(table.match.seats),
        table.match.options,
        seed=table.match.seed,
        games_played=table.match.games_played - (1 if table.match.recorded else 0),
    )
    match.replay(table.match.log[:turn])
    return match.state


def check_snapshots(client, table, seat):
    """Every snapshot the client got shows exactly its seat's view of the service's state then."""
    snaps = [m for m in client.received if isinstance(m, p.Snapshot) and m.table.status != "waiting"]
    assert snaps
    for snap in snaps:
        state = state_at(table, snap.turn)
        expected = observer_view(table.game.rules, state) if seat == OBSERVER else table.game.rules.view(state, seat)
        assert snap.view == as_sent(expected)
        hand = snap.view[2]
        others = {card for s, cards in enumerate(state.hands) if s != seat for card in cards}
        assert not others & set(hand), f"seat {seat} was sent another seat's card"
        if seat == OBSERVER:
            assert hand == []


async def open_seven(host, persons: int, bots: int, **kwargs):
    seats = [p.SeatSpec("person")] * persons + [p.SeatSpec("bot", "random")] * bots
    await host.send(p.OpenTable("seven", seats, **kwargs))
    snap = await host.wait_for(lambda c: c.snapshot)
    return snap.table.table


async def test_five_clients_play_a_seven_deal_and_see_only_their_own_hands(service):
    host = await connect(service, "key:anna", "Anna")
    table_id = await open_seven(host, persons=4, bots=1)
    others = [await connect(service, f"key:{name}", name) for name in ("Ben", "Cleo", "Dan")]
    for client in others:
        await client.send(p.Join(table_id))
    players = [host, *others]
    await host.wait_for(lambda c: c.snapshot.table.status == "playing")
    table = service.tables[table_id]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(play_randomly(c, seed, stop)) for seed, c in enumerate(players)]
    # a watcher comes in mid-game
    await host.wait_for(lambda c: c.snapshot.turn > 10, timeout=30)
    watcher = await connect(service, "guest:eve", "Eve")
    await watcher.send(p.Watch(table_id))
    await asyncio.wait_for(asyncio.gather(*tasks), 120)
    assert table.match.over
    final = len(table.match.log)
    for client in [*players, watcher]:
        await client.wait_for(lambda c: c.snapshot.turn == final and c.snapshot.table.status == "over")
    for seat, client in enumerate(players):
        assert client.snapshot.seat == seat
        check_snapshots(client, table, seat)
        assert client.snapshot.view == as_sent(table.match.view(seat))  # nothing lost
    check_snapshots(watcher, table, OBSERVER)
    assert [(e.seat, e.text) for e in host.events] == table.descriptions  # every public line arrived in order
    for client in [*players, watcher]:  # the whole public log, also for the watcher who came in late
        assert client.log == table.descriptions
    assert table.match.seats[4].bot == "random"
    assert {name for name in (s.name for s in host.snapshot.table.seats)} >= {"Anna", "Ben", "Cleo", "Dan"}


async def test_a_remote_table_rebuilds_the_games_view_type(service):
    host = await connect(service, "key:anna", "Anna")
    await open_seven(host, persons=1, bots=1)
    await host.wait_for(lambda c: c.snapshot.legal)
    remote = RemoteTable(host, SEVEN)
    view = remote.view()
    table = next(iter(service.tables.values()))
    assert view == table.match.view(0) and type(view).__name__ == "SevenView"
    assert remote.human_to_move() and remote.legal_actions() == table.match.legal_actions()
    remote.apply(remote.legal_actions()[0])
    await host.wait_for(lambda c: (c.snapshot.turn > 1 and not c.snapshot.legal) or c.snapshot.turn > 2)
    assert len(table.match.log) > 1


async def test_a_dropped_player_returns_to_their_seat_then_the_bot_takes_it_and_it_is_reclaimed(tmp_path):
    service = TableService(
        REGISTRY, tmp_path / "data", away_timeout=0.3, bot_time_budget=0.1, seed=3, message_rate=FAST
    )
    await service.start()
    try:
        anna = await connect(service, "key:anna", "Anna")
        table_id = await open_seven(anna, persons=2, bots=1)
        ben = await connect(service, "key:ben", "Ben")
        await ben.send(p.Join(table_id))
        await ben.wait_for(lambda c: c.snapshot and c.snapshot.table.status == "playing")
        table = service.tables[table_id]
        await ben.close()
        await anna.wait_for(lambda c: c.snapshot.table.seats[1].away)
        assert table.owners[1] == "key:ben" and not table.bot_plays(1)
        ben = await connect(service, "key:ben", "Ben")  # back within the wait
        snap = await ben.wait_for(lambda c: c.snapshot)
        assert snap.seat == 1 and not snap.table.seats[1].away
        assert snap.view == as_sent(table.match.view(1))  # the full current view
        await ben.close()
        # the wait runs out: the table's bot plays the seat, marked as a bot, and the game goes on
        await anna.wait_for(lambda c: c.snapshot.table.seats[1].bot, timeout=5)
        assert table.owners[1] == "key:ben"
        stop = asyncio.Event()
        task = asyncio.create_task(play_randomly(anna, 1, stop))
        await anna.wait_for(lambda c: any(e.seat == 1 for e in c.events), timeout=20)  # the bot moved for Ben
        if not table.match.over:
            ben = await connect(service, "key:ben", "Ben")  # reclaim
            snap = await ben.wait_for(lambda c: c.snapshot)
            assert snap.seat == 1 and not snap.table.seats[1].bot and not table.bot_plays(1)
        stop.set()
        task.cancel()
    finally:
        await service.close()


async def test_a_restarted_service_resumes_the_table_from_its_data_dir(tmp_path):
    data = tmp_path / "data"
    service = TableService(REGISTRY, data, bot_time_budget=0.1, seed=5)
    await service.start()
    anna = await connect(service, "key:anna", "Anna")
    table_id = await open_seven(anna, persons=1, bots=2)
    for _ in range(3):
        snap = await anna.wait_for(lambda c: c.snapshot.legal and c.snapshot)
        await anna.send(p.Move(snap.legal[0], snap.turn))
        await anna.wait_for(lambda c, turn=snap.turn: c.snapshot.turn > turn)
    await anna.wait_for(lambda c: c.snapshot.legal)
    table = service.tables[table_id]
    log, seed, lines = list(table.match.log), table.match.seed, list(table.descriptions)
    await asyncio.sleep(0.2)  # the saver writes off the loop
    await anna.close()
    await service.close()

    again = TableService(REGISTRY, data, bot_time_budget=0.1)
    await again.start()
    try:
        restored = again.tables[table_id]
        assert restored.match.log == log and restored.match.seed == seed and restored.descriptions == lines
        assert restored.owners[0] == "key:anna" and restored.match.seats[1].bot == "random"
        anna = await connect(again, "key:anna", "Anna")
        snap = await anna.wait_for(lambda c: c.snapshot and c.snapshot.legal and c.snapshot)
        assert snap.seat == 0 and snap.turn == len(log) and anna.log == lines
        assert snap.view == as_sent(restored.match.view(0))
        await anna.send(p.Move(snap.legal[0], snap.turn))
        await anna.wait_for(lambda c: c.snapshot.turn > len(log))
    finally:
        await again.close()


@pytest.mark.parametrize("game_id", ["mille", "yatzy", "lits", "mate"])
async def test_every_built_in_games_view_reaches_a_remote_table_intact(service, game_id):
    game = REGISTRY.game(game_id)
    anna = await connect(service, "key:anna", "Anna")
    seats = [p.SeatSpec("person")] + [p.SeatSpec("bot", game.bots[0].id)] * (game.min_seats - 1)
    await anna.send(p.OpenTable(game_id, seats))
    await anna.wait_for(lambda c: c.snapshot and c.snapshot.legal)
    table = next(iter(service.tables.values()))
    remote = RemoteTable(anna, game)
    turn = anna.snapshot.turn
    assert remote.view() == game.rules.view(state_at(table, turn), 0)  # LITS's bitboards are wider than 64 bits
    assert remote.legal_actions() == game.rules.legal_actions(state_at(table, turn))
    assert table.wide_ints == (game_id == "lits")
