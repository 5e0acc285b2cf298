"""End-of-hand pauses wait for every present person; the move timer lets the bot move for a sleeper."""

from __future__ import annotations

import asyncio
import random

from gamenight.match import Match, SeatConfig
from gamenight.sdk import CHANCE
from gamenight.tables import protocol as p

from .conftest import REGISTRY, connect

MILLE = REGISTRY.game("mille")


def log_to_first_pause(seed: int = 2):
    """A Mille log that ends at the first end-of-hand pause (random legal moves)."""
    match = Match(MILLE, [SeatConfig("a"), SeatConfig("b")], {}, seed=seed)
    rng = random.Random(seed)
    while match.pending_interlude() is None:
        if match.to_move() == CHANCE:
            match.apply_chance()
        else:
            match.apply(rng.choice(match.legal_actions()))
    return match.log, match.pending_interlude()


async def test_an_end_of_hand_pause_waits_for_every_seated_person(service):
    anna = await connect(service, "key:anna", "Anna")
    await anna.send(p.OpenTable("mille", [p.SeatSpec("person"), p.SeatSpec("person")]))
    table_id = (await anna.wait_for(lambda c: c.snapshot)).table.table
    ben = await connect(service, "key:ben", "Ben")
    await ben.send(p.Join(table_id))
    await ben.wait_for(lambda c: c.snapshot and c.snapshot.table.status == "playing")
    table = service.tables[table_id]
    log, interlude = log_to_first_pause()
    table.match.replay(log)  # as if the hand had been played out
    service._changed(table)
    for client in (anna, ben):
        snap = await client.wait_for(lambda c: c.snapshot.interlude and c.snapshot)
        assert snap.interlude.key == interlude.key and snap.interlude.waiting == [0, 1] and snap.legal == []
    await anna.send(p.Ack(interlude.key))
    await ben.wait_for(lambda c: c.snapshot.interlude and c.snapshot.interlude.waiting == [1])
    await asyncio.sleep(0.1)
    assert table.match.pending_interlude() is not None and len(table.match.log) == len(log)  # still waiting for Ben
    await ben.send(p.Ack(interlude.key))
    await anna.wait_for(lambda c: c.snapshot.interlude is None and c.snapshot.turn > len(log))
    assert table.match.acknowledged == interlude.key


async def test_the_move_timer_lets_the_tables_bot_move_for_a_person_who_does_not(service):
    anna = await connect(service, "key:anna", "Anna")
    await anna.send(p.OpenTable("seven", [p.SeatSpec("person"), p.SeatSpec("bot", "random")], timer=30))
    snap = await anna.wait_for(lambda c: c.snapshot and c.snapshot.legal and c.snapshot.deadline and c.snapshot)
    assert 0 < snap.deadline <= 30  # the player sees the time left
    table = service.tables[snap.table.table]
    table.timer, table.deadline = 0.2, 0.0  # a short timer for the test (the protocol allows 30, 60, 300 s)
    service._changed(table)
    await anna.wait_for(lambda c: any(e.seat == 0 for e in c.events), timeout=5)
    assert table.match.log[snap.turn].seat == 0  # Anna's move, made for her
    assert not table.bot_plays(0) and table.owners[0] == "key:anna"  # the seat stays hers
