"""A private table by its code across hosts: ann opens one on host A, ben types its code in host B's lobby
and sits at it through the relay; a wrong code is refused as ever; wrong codes are counted per identity and
per address on every host together; the code itself is nowhere in Redis.

Two "hosts" are two :class:`TableService` objects in this process on one real ``redis-server`` of the
test's own (as in test_authority.py).  The waits poll with a bound; no figure is a time.
"""

from __future__ import annotations

import pytest
from gamenight.tables import limits
from gamenight.tables import protocol as p
from gamenight.tables.errors import refusal_text

from .test_authority import until
from .test_caps_across_hosts import KEPT, connect_from

TWO_PEOPLE = [p.SeatSpec("person"), p.SeatSpec("person")]


@pytest.fixture(autouse=True)
def _keep_rooms():
    yield
    KEPT.clear()


async def private_table_on(host, who: str = "ann"):
    """``who`` opens a private two-seat Nim table on ``host``: the room, the table's id and its code."""
    room = await connect_from(host, f"key:{who}")
    await room.send(p.OpenTable("nim", TWO_PEOPLE, {"sticks": 9}, public=False))
    snap = await room.wait_for(lambda c: c.snapshot)
    assert snap.code
    return room, snap.table.table, snap.code


async def answer(room, message) -> p.Snapshot | p.Error:
    """Send ``message``; the first snapshot or refusal after it."""
    before = len(room.received)
    await room.send(message)
    return await room.wait_for(
        lambda c: next((m for m in c.received[before:] if isinstance(m, p.Snapshot | p.Error)), None)
    )


async def indexed(host) -> int:
    return await host.store.client.hlen(host._caps.index_key)


async def test_a_code_typed_on_host_b_seats_ben_at_the_private_table_host_a_runs(hosts):
    a, b = await hosts("host-a"), await hosts("host-b")
    ann, table_id, code = await private_table_on(a)
    await until(lambda: indexed(b), "the code filed for every host")
    ben = await connect_from(b, "key:ben")
    snap = await answer(ben, p.Join("", code=code.lower()))  # any case, as on one host
    assert isinstance(snap, p.Snapshot), snap
    assert (snap.table.table, snap.seat) == (table_id, 1)
    assert table_id not in b.tables  # B relays; A runs the table
    await ann.wait_for(lambda c: c.snapshot.table.status == "playing")
    assert [seat.name for seat in ann.snapshot.table.seats] == ["key:ann", "key:ben"]

    # The code is nowhere in Redis: not in the lobby, not in the index (a keyed hash there), not in any key.
    assert table_id not in await b.store.lobby()
    async for key in b.store.client.scan_iter():
        assert code.encode() not in key
        if await b.store.client.type(key) == b"hash":
            for name, value in (await b.store.client.hgetall(key)).items():
                assert code.encode() not in name and code.encode() not in value

    # A private table closes (its host leaves it while it waits): its code goes from the index.
    cat, other_id, _ = await private_table_on(a, "cat")
    await until(lambda: _count(b, 2), "the second code filed")
    await cat.send(p.Leave())
    await until(lambda: other_id not in a.tables, "the table closes")
    await until(lambda: _count(b, 1), "its code taken out of the index")


async def _count(host, entries: int) -> bool:
    return await indexed(host) == entries


async def test_a_wrong_code_on_host_b_is_refused_as_on_one_host(hosts):
    a, b = await hosts("host-a"), await hosts("host-b")
    _ann, _table_id, code = await private_table_on(a)
    await until(lambda: indexed(b), "the code filed for every host")
    wrong = "000000" if code != "000000" else "000001"
    ben = await connect_from(b, "key:ben")
    refused = await answer(ben, p.Join("", code=wrong))
    assert isinstance(refused, p.Error) and refused.code == "no-table"
    assert refused.message == "no such table (or a wrong code)"
    assert all(c.relay is None for c in b.connections)  # nothing relayed anywhere
    assert isinstance(await answer(ben, p.Join("", code=code)), p.Snapshot)  # the right one still works


async def test_wrong_codes_are_counted_on_every_host_together(hosts, monkeypatch):
    monkeypatch.setattr(limits, "WRONG_CODES_PER_IDENTITY", 3)
    a, b = await hosts("host-a"), await hosts("host-b")
    _ann, table_id, code = await private_table_on(a)
    await until(lambda: indexed(b), "the code filed for every host")
    on_a, on_b = await connect_from(a, "key:mallory"), await connect_from(b, "key:mallory")
    for wrong in ("000000", "111111"):
        assert (await answer(on_a, p.Join("", code=wrong))).code == "no-table"
    right = await answer(on_b, p.Join("", code=code))  # a right code is no wrong one: forgiven
    assert isinstance(right, p.Snapshot)
    await on_b.send(p.Leave())
    assert (await answer(on_b, p.Watch(table_id, code="222222"))).code == "no-table"  # by id, with a wrong code
    # Three wrong ones on two hosts: the fourth try is refused on either, even with the right code.
    limited = await answer(on_b, p.Join("", code=code))
    assert isinstance(limited, p.Error) and limited.code == "code-limit", limited
    assert "wrong codes" in refusal_text(limited.code, limited.message)
    assert (await answer(on_a, p.Join("", code="333333"))).code == "code-limit"
    # Someone else is not held back: the code finds the table (whose seats mallory's visit filled).
    ben = await connect_from(b, "key:ben")
    assert (await answer(ben, p.Join("", code=code))).code == "no-seat"


async def test_without_redis_wrong_codes_are_counted_on_the_host(nim_service, monkeypatch):
    monkeypatch.setattr(limits, "WRONG_CODES_PER_IDENTITY", 2)
    _ann, table_id, code = await private_table_on(nim_service)
    mallory = await connect_from(nim_service, "key:mallory")
    for wrong in ("000000", "111111"):
        assert (await answer(mallory, p.Join("", code=wrong))).code == "no-table"
    assert (await answer(mallory, p.Join("", code=code))).code == "code-limit"
    again = await connect_from(nim_service, "key:mallory")  # a new connection is the same person
    assert (await answer(again, p.Join(table_id, code=code))).code == "code-limit"
    ben = await connect_from(nim_service, "key:ben")
    assert isinstance(await answer(ben, p.Join("", code=code)), p.Snapshot)
