"""A person's kept solo games across hosts: ann's game kept at host A is in her list (``ListKept``) when
she comes back through host B, and ``Join`` takes her back to its seat through the relay; a dead host's
entries lapse with it.

Two "hosts" are two :class:`TableService` objects in this process on one real ``redis-server`` of the
test's own (as in test_authority.py).  The waits poll with a bound; no figure is a time.
"""

from __future__ import annotations

import pytest
from gamenight.tables import protocol as p
from gamenight.tables import shared_caps

from .test_authority import kill, until
from .test_caps_across_hosts import KEPT, connect_from

SOLO = [p.SeatSpec("person"), p.SeatSpec("bot", "first")]


@pytest.fixture(autouse=True)
def _keep_rooms():
    yield
    KEPT.clear()


async def kept_list(room) -> list[p.TableInfo]:
    room.kept = None
    await room.send(p.ListKept())
    return (await room.wait_for(lambda c: c.kept is not None and (c.kept,)))[0]


async def a_kept_game_on(host) -> tuple[str, object]:
    """ann opens a solo Nim game on ``host`` and leaves it (kept, her seat waiting): its id."""
    ann = await connect_from(host, "key:ann")
    await ann.send(p.OpenTable("nim", SOLO, {"sticks": 9}, solo=True))
    snap = await ann.wait_for(lambda c: c.snapshot and c.snapshot.legal and c.snapshot)
    await ann.send(p.Leave())
    table = host.tables[snap.table.table]
    await until(lambda: not table.connections, "ann left")
    return snap.table.table, snap


async def test_a_game_kept_on_host_a_is_listed_and_resumed_through_host_b(hosts):
    a, b = await hosts("host-a"), await hosts("host-b")
    table_id, before = await a_kept_game_on(a)
    ann = await connect_from(b, "key:ann")
    kept = await until(lambda: _listed(ann, table_id), "host B lists ann's game kept on host A")
    assert kept.solo and kept.game == "nim"
    ben = await connect_from(b, "key:ben")
    assert await kept_list(ben) == []  # only one's own

    await ann.send(p.Join(table_id))
    back = await ann.wait_for(lambda c: c.snapshot)
    assert (back.table.table, back.seat, back.view) == (table_id, 0, before.view)
    assert table_id not in b.tables  # host A still runs it; host B relays
    await ann.send(p.Move(back.legal[0], back.turn))
    await ann.wait_for(lambda c: c.snapshot.turn > back.turn)


async def _listed(room, table_id: str):
    return next((info for info in await kept_list(room) if info.table == table_id), None)


async def test_a_dead_hosts_kept_games_lapse_from_the_list(hosts, monkeypatch):
    monkeypatch.setattr(shared_caps, "TTL_S", 3.0)
    a, b = await hosts("host-a"), await hosts("host-b")
    table_id, _ = await a_kept_game_on(a)
    ann = await connect_from(b, "key:ann")
    await until(lambda: _listed(ann, table_id), "host B lists ann's game")
    a._caps_task.cancel()
    await kill(a)
    await until(lambda: _not_listed(ann, table_id), "the dead host's entry lapses")


async def _not_listed(room, table_id: str) -> bool:
    return all(info.table != table_id for info in await kept_list(room))
