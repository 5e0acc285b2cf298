"""Front ends that relay: a room on host B sits at (or watches) a table host A runs, through Redis.

Two "hosts" are two :class:`TableService` objects in this process on one real ``redis-server`` of the
test's own (as in test_authority.py).  B relays ben's and cat's messages to the table's inbox; A handles
them as a room's and writes each relayed connection's frames to that connection's own outbox.  The waits
poll with a bound; no figure is a time.
"""

from __future__ import annotations

import asyncio

import msgspec
from gamenight.tables import protocol as p
from gamenight.tables import relay
from gamenight.tables.redis_store import decode, encode

from .conftest import connect
from .test_authority import stored_actions, until

OBSERVER = -3


async def a_table_on_a(a, monkeypatch):
    """ann opens a two-seat Nim table on host A (watchable for the test): her client and the table's id."""
    ann = await connect(a, "key:ann", "ann")
    await ann.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("person")], {"sticks": 12}))
    table_id = (await ann.wait_for(lambda c: c.snapshot)).table.table
    monkeypatch.setattr(a.tables[table_id].game.rules, "watchable", True, raising=False)
    await until(lambda: a.tables[table_id].inbox_reader, "host A reads the table's inbox")
    return ann, table_id


async def outbox_frames(store, table_id: str) -> dict[str, list[msgspec.Struct]]:
    """Every message written to each relayed connection's outbox of the table, by key."""
    found = {}
    async for key in store.client.scan_iter(match=f"{store.prefix}:{{{table_id}}}:out:*"):
        messages = []
        for _id, fields in await store.client.xrange(key):
            frames = decode(relay.Frames, fields[b"f"], "outbox", relay.MAX_OUT_BYTES + 64).frames
            while frames:
                size = int.from_bytes(frames[:4], "big")
                messages.append(p.decode_service(frames[4 : 4 + size]))
                frames = frames[4 + size :]
        found[key.decode()] = messages
    return found


async def test_rooms_on_host_b_play_and_watch_a_table_host_a_runs(hosts, monkeypatch):
    a, b = await hosts("host-a"), await hosts("host-b")
    ann, table_id = await a_table_on_a(a, monkeypatch)
    ben = await connect(b, "key:ben", "ben")
    await ben.send(p.Join(table_id))
    snap = await ben.wait_for(lambda c: c.snapshot if c.snapshot and c.snapshot.table.status == "playing" else None)
    assert (snap.seat, snap.table.table, snap.table.seats[1].name) == (1, table_id, "ben")
    assert table_id not in b.tables  # B runs nothing: it relays
    cat = await connect(b, "key:cat", "cat")
    await cat.send(p.Watch(table_id))
    await cat.wait_for(lambda c: c.snapshot and c.snapshot.seat == OBSERVER)

    # Moves from both hosts land in order, each seen on the other host.
    await ann.wait_for(lambda c: c.snapshot.legal and c.snapshot.turn == 0)
    await ann.send(p.Move("2", 0))
    await ben.wait_for(lambda c: c.snapshot.turn == 1 and c.snapshot.legal)
    await ben.send(p.Move("3", 1))
    await ann.wait_for(lambda c: c.snapshot.turn == 2)
    await cat.wait_for(lambda c: c.snapshot.turn == 2)
    assert ann.snapshot.view["sticks"] == ben.snapshot.view["sticks"] == cat.snapshot.view["sticks"] == 7
    assert await stored_actions(a, table_id) == ["2", "3"]

    # Chat crosses both ways.
    await ben.send(p.Chat("hello from b"))
    await ann.wait_for(lambda c: any(line.text == "hello from b" and line.name == "ben" for line in c.chats))
    await ann.send(p.Chat("hello from a"))
    await ben.wait_for(lambda c: any(line.text == "hello from a" for line in c.chats))
    await cat.wait_for(lambda c: any(line.text == "hello from a" for line in c.chats))

    # Each relayed connection's outbox holds its own seat's view only: ben's seat 1, cat's the public one.
    outboxes = await outbox_frames(a.store, table_id)
    assert len(outboxes) == 2
    seats = [{m.seat for m in messages if isinstance(m, p.Snapshot)} for messages in outboxes.values()]
    assert sorted(seats, key=sorted) == [{OBSERVER}, {1}]


async def test_hostile_inbox_entries_are_refused_without_harm(hosts, monkeypatch):
    a, b = await hosts("host-a"), await hosts("host-b")
    ann, table_id = await a_table_on_a(a, monkeypatch)
    ben = await connect(b, "key:ben", "ben")
    await ben.send(p.Join(table_id))
    await ben.wait_for(lambda c: c.snapshot and c.snapshot.seat == 1)
    inbox = relay.inbox_key(a.store.prefix, table_id)

    def relayed(conn: str, frame: bytes, **fields) -> dict[str, bytes]:
        return {"m": encode(relay.Relayed("host-x", conn, "key:mallory", "mallory", frame=frame, **fields))}

    refusals = len(a.refusals)
    for fields in (
        {"m": b"\xc1 garbage"},
        {"x": b"no m field"},
        {"m": msgspec.msgpack.encode({"v": 99, "host": "h", "conn": "0" * 16})},  # a newer format
        {"m": b"\x00" * (relay.p.CLIENT_FRAME_CAP + 4096)},  # oversized
        relayed("1" * 16, b"\xc1\xc1 not a message"),  # a valid entry whose frame is garbage
        relayed("2" * 16, p.encode(p.Move("1", 0))[4:]),  # a move for a seat it does not hold
        relayed("3" * 16, p.encode(p.Hello(p.PROTOCOL_VERSION))[4:]),
    ):
        await a.store.client.xadd(inbox, fields)
    await until(lambda: len(a.refusals) >= refusals + 3, "the bad frames refused")
    assert [why.split(":")[0] for _who, why in a.refusals[refusals:]] == ["protocol", "not-seated", "protocol"]
    # Their connections end: refused, or (no front end keeps their key alive) dropped at the next look.
    await until(lambda: not any(c.relayed_from and c.relayed_from[0] == "host-x" for c in a.connections), "gone")
    table = a.tables[table_id]
    assert table.match.log == [] and table.owners[1] == "key:ben"
    # The table goes on: ann and ben play.
    await ann.wait_for(lambda c: c.snapshot.legal)
    await ann.send(p.Move("1", 0))
    await ben.wait_for(lambda c: c.snapshot.turn == 1 and c.snapshot.legal)
    await ben.send(p.Move("1", 1))
    await ann.wait_for(lambda c: c.snapshot.turn == 2)


async def test_a_relayed_room_that_closes_or_a_front_end_that_dies_leaves_its_seat_away(hosts, monkeypatch):
    monkeypatch.setattr(relay, "ALIVE_INTERVAL", 0.1)
    monkeypatch.setattr(relay, "READ_BLOCK", 0.1)
    a, b = await hosts("host-a", away_timeout=0.5), await hosts("host-b")
    _ann, table_id = await a_table_on_a(a, monkeypatch)
    table = a.tables[table_id]
    ben = await connect(b, "key:ben", "ben")
    await ben.send(p.Join(table_id))
    await ben.wait_for(lambda c: c.snapshot and c.snapshot.seat == 1 and c.snapshot.table.status == "playing")

    # Host B "dies" for ben's connection: it stops renewing its key and says nothing.
    (connection,) = [c for c in b.connections if c.relay is not None]
    for task in connection.relay.tasks:
        task.cancel()
    await until(lambda: 1 in table.away, "ben's seat away once B's key lapsed")
    assert table.owners[1] == "key:ben"
    # Past the away window the seat goes to the table's bot, as a dropped local room's does.
    await until(lambda: table.bot_plays(1), "the bot takes ben's seat after the away window")
    assert not a._relayed


async def test_a_room_closing_on_b_is_detached_at_once(hosts, monkeypatch):
    a, b = await hosts("host-a"), await hosts("host-b")
    _ann, table_id = await a_table_on_a(a, monkeypatch)
    table = a.tables[table_id]
    ben = await connect(b, "key:ben", "ben")
    await ben.send(p.Join(table_id))
    await ben.wait_for(lambda c: c.snapshot and c.snapshot.table.status == "playing")
    assert len(a._relayed) == 1
    await ben.close()
    await until(lambda: 1 in table.away and not a._relayed, "ben's seat away, his relayed connection gone")


async def test_a_table_that_moves_tells_its_relayed_rooms_and_ends_their_relay(hosts, monkeypatch):
    a, b = await hosts("host-a"), await hosts("host-b")
    ann, table_id = await a_table_on_a(a, monkeypatch)
    ben = await connect(b, "key:ben", "ben")
    await ben.send(p.Join(table_id))
    await ben.wait_for(lambda c: c.snapshot and c.snapshot.table.status == "playing")
    a._let_go(a.tables[table_id], "the test: another host took the table")
    for client in (ann, ben):  # the relayed room is told as the local one is, and can join again
        await client.wait_for(lambda c: any(e.code == "table-moved" for e in c.errors))
    await until(lambda: not a._relayed, "A's relayed connection ended")
    await until(lambda: all(c.relay is None for c in b.connections), "B's relay ended")


async def test_a_relayed_seven_seat_receives_its_own_hand_only(redis_server, tmp_path):
    """SEVEN hides every hand but one's own: what host B receives for ben is seat 1's view, for cat the public one."""
    from gamenight.plugins import load_registry
    from gamenight.sdk import observer_view
    from gamenight.tables.service import TableService

    from .conftest import FAST

    registry = load_registry()
    made = []
    for name in ("host-a", "host-b"):
        service = TableService(
            registry, tmp_path / name, seed=7, message_rate=FAST, tables_url=redis_server.url, host_id=name
        )
        await service.start()
        made.append(service)
    a, b = made
    try:
        ann = await connect(a, "key:ann", "ann")
        await ann.send(p.OpenTable("seven", [p.SeatSpec("person"), p.SeatSpec("person"), p.SeatSpec("bot", "random")]))
        table_id = (await ann.wait_for(lambda c: c.snapshot)).table.table
        ben = await connect(b, "key:ben", "ben")
        await ben.send(p.Join(table_id))
        cat = await connect(b, "key:cat", "cat")
        await ben.wait_for(lambda c: c.snapshot and c.snapshot.table.status == "playing")
        await cat.send(p.Watch(table_id))
        await cat.wait_for(lambda c: c.snapshot and c.snapshot.seat == OBSERVER)
        match = a.tables[table_id].match
        turn = len(match.log)
        await ben.wait_for(lambda c: c.snapshot.turn == turn)
        await cat.wait_for(lambda c: c.snapshot.turn == turn)
        rules = match.rules

        def plain(value):
            return msgspec.json.decode(msgspec.json.encode(value))

        assert plain(ben.snapshot.view) == plain(rules.view(match.state, 1))
        assert plain(ben.snapshot.view) != plain(rules.view(match.state, 0))  # ann's hand is not in it
        assert plain(cat.snapshot.view) == plain(observer_view(rules, match.state))
        outboxes = await outbox_frames(a.store, table_id)
        seats = [{m.seat for m in messages if isinstance(m, p.Snapshot)} for messages in outboxes.values()]
        assert sorted(seats, key=sorted) == [{OBSERVER}, {1}]
    finally:
        for service in made:
            await asyncio.wait_for(service.close(), 10)


async def test_a_relayed_connection_is_announced_before_its_first_message(hosts, monkeypatch):
    """The authority never finds a relayed connection without its front end's key (then dropped as dead):
    the key is written before the connection's first message, not left to the renewing task."""
    a, b = await hosts("host-a"), await hosts("host-b")
    _ann, table_id = await a_table_on_a(a, monkeypatch)

    async def never_renews(link):
        await asyncio.Event().wait()

    monkeypatch.setattr(b, "_relay_alive", never_renews)
    ben = await connect(b, "key:ben", "ben")
    await ben.send(p.Join(table_id))
    await ben.wait_for(lambda c: c.snapshot and c.snapshot.table.status == "playing")
    await a._check_fronts(a.tables[table_id])
    assert len(a._relayed) == 1 and 1 not in a.tables[table_id].away


async def test_a_relayed_room_is_told_when_its_tables_host_dies_and_another_takes_it(hosts, monkeypatch):
    """Ben's room on host B is relayed to host A's table; A dies (no word to anyone, its outboxes never
    ended) and B takes the table over.  The host that takes a table knows nothing of a relayed room
    until it speaks, so ben's room would wait for a table nobody sends it: B sees the table's epoch
    change and tells it the table moved, and ben joins again -- now at B's own table, at his seat."""
    from .test_authority import SHORT, kill

    monkeypatch.setattr(relay, "READ_BLOCK", 0.1)
    a, b = await hosts("host-a", ttl=SHORT), await hosts("host-b")
    _ann, table_id = await a_table_on_a(a, monkeypatch)
    ben = await connect(b, "key:ben", "ben")
    await ben.send(p.Join(table_id))
    await ben.wait_for(lambda c: c.snapshot and c.snapshot.seat == 1 and c.snapshot.table.status == "playing")
    await kill(a)
    await until(lambda: b.store.unheld([table_id]), "host A's lease lapsed")
    assert await b._sweep() == [table_id]
    await ben.wait_for(lambda c: any(e.code == "table-moved" for e in c.errors), timeout=10)
    await until(lambda: all(c.relay is None for c in b.connections), "B's relay ended")
    await ben.send(p.Join(table_id))  # again: B runs it now, and ben's seat waits for him
    snap = await ben.wait_for(lambda c: c.snapshot if c.snapshot and c.snapshot.seat == 1 else None, timeout=10)
    assert snap.table.table == table_id and table_id in b.tables


async def test_a_host_that_stops_tells_the_rooms_relayed_to_its_tables(hosts, monkeypatch):
    """Host A is taken out for maintenance (SIGTERM: it gives its leases up): ben's room on host B,
    relayed to A's table, is told the table moved (it was left relay-less and silent)."""
    a, b = await hosts("host-a"), await hosts("host-b")
    _ann, table_id = await a_table_on_a(a, monkeypatch)
    ben = await connect(b, "key:ben", "ben")
    await ben.send(p.Join(table_id))
    await ben.wait_for(lambda c: c.snapshot and c.snapshot.seat == 1 and c.snapshot.table.status == "playing")
    await asyncio.wait_for(a.close(), 10)
    a.killed = True  # (closed already)
    await ben.wait_for(lambda c: any(e.code == "table-moved" for e in c.errors), timeout=10)
