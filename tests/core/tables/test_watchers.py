"""Watchers: public view only, come and go, refused where a game has no public view."""

from __future__ import annotations

import msgspec
from gamenight.plugins import load_registry
from gamenight.sdk import OBSERVER
from gamenight.tables import protocol as p
from gamenight.tables.service import TableService

from tests.core.nim import NimPlugin

from .conftest import FAST, connect
from .test_service import state_at


async def test_a_game_without_a_public_view_refuses_watchers_and_sends_nothing(tmp_path):
    registry = load_registry(extra_plugins={"nim": NimPlugin()}, entry_points=[])
    service = TableService(registry, tmp_path, seed=1, message_rate=FAST)
    await service.start()
    try:
        anna = await connect(service, "key:anna", "Anna")
        await anna.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("bot", "first")]))
        table_id = (await anna.wait_for(lambda c: c.snapshot)).table.table
        eve = await connect(service, "guest:eve", "Eve")
        await eve.send(p.Watch(table_id))
        error = (await eve.wait_for(lambda c: c.errors))[-1]
        assert error.code == "no-watching" and eve.snapshot is None  # not a single view of the secret
        assert service.tables[table_id].connections == [c for c in service.connections if c.identity == "key:anna"]
    finally:
        await service.close()


async def test_a_watcher_leaves_and_comes_back_with_the_whole_public_log(service):
    anna = await connect(service, "key:anna", "Anna")
    await anna.send(p.OpenTable("seven", [p.SeatSpec("person"), p.SeatSpec("bot", "random")]))
    table_id = (await anna.wait_for(lambda c: c.snapshot)).table.table
    table = service.tables[table_id]
    eve = await connect(service, "guest:eve", "Eve")
    await eve.send(p.Watch(table_id))
    await eve.wait_for(lambda c: c.snapshot and c.snapshot.seat == OBSERVER)
    await anna.wait_for(lambda c: c.snapshot.table.watchers == 1)
    await eve.send(p.Leave())
    await anna.wait_for(lambda c: c.snapshot.table.watchers == 0)
    left_at = len(table.match.log)
    for _ in range(2):
        snap = await anna.wait_for(lambda c: c.snapshot.legal and c.snapshot)
        await anna.send(p.Move(snap.legal[0], snap.turn))
        await anna.wait_for(lambda c, turn=snap.turn: c.snapshot.turn > turn)
    back_at = len(table.match.log)
    await eve.send(p.Watch(table_id))
    snap = await eve.wait_for(lambda c: c.snapshot and c.snapshot.turn >= back_at and c.snapshot)
    assert not [e for e in eve.events if left_at < e.turn <= back_at]  # nothing was sent while away...
    assert len(eve.log) >= back_at and eve.log == table.descriptions[: len(eve.log)]  # ...and the whole log came back
    assert snap.view[2] == [] and snap.legal == []
    public = table.game.rules.view(state_at(table, snap.turn), OBSERVER)
    assert snap.view == msgspec.msgpack.decode(msgspec.msgpack.encode(public))
