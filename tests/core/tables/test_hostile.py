"""Misbehaving clients: refused or cut off, logged, and the table plays on."""

from __future__ import annotations

import asyncio
import struct

import msgspec
import pytest
from gamenight.tables import protocol as p
from gamenight.tables.service import TableService

from .conftest import REGISTRY, connect, raw


async def closed_after(reader: asyncio.StreamReader) -> list[p.ServiceMessage]:
    """Everything the service sends until it hangs up (a TimeoutError if it never does)."""
    messages = []
    async with asyncio.timeout(5):
        while (frame := await p.read_frame(reader, p.SERVICE_FRAME_CAP)) is not None:
            messages.append(p.decode_service(frame))
    return messages


async def a_table_in_play(service):
    """Anna (seat 0) and Ben (seat 1) at SEVEN with a bot; returns the clients and the table."""
    anna = await connect(service, "key:anna", "Anna")
    await anna.send(p.OpenTable("seven", [p.SeatSpec("person"), p.SeatSpec("person"), p.SeatSpec("bot", "random")]))
    table_id = (await anna.wait_for(lambda c: c.snapshot)).table.table
    ben = await connect(service, "key:ben", "Ben")
    await ben.send(p.Join(table_id))
    await ben.wait_for(lambda c: c.snapshot and c.snapshot.table.status == "playing")
    return anna, ben, service.tables[table_id]


async def the_table_still_plays(client, table):
    """The client whose turn it is can still move, and the move is applied."""
    snap = await client.wait_for(lambda c: c.snapshot.legal and c.snapshot)
    await client.send(p.Move(snap.legal[0], snap.turn))
    await client.wait_for(lambda c: c.snapshot.turn > snap.turn)
    assert len(table.match.log) > snap.turn


@pytest.mark.parametrize(
    "frame",
    [
        struct.pack(">I", 7) + b"garbage",
        struct.pack(">I", 3) + b"\xc1\xc1\xc1",  # not MessagePack at all
        p.encode(p.Move("play", 0)),  # a move before hello
        p.encode(p.Hello(99)),  # a wrong protocol version
        msgspec.msgpack.encode({"type": "hello", "version": 1}),  # no length prefix: read as a huge length
    ],
)
async def test_garbage_wrong_version_or_no_hello_is_refused_and_cut_off(service, frame):
    reader, writer = await raw(service, "key:mallory")
    writer.write(frame)
    await writer.drain()
    messages = await closed_after(reader)
    assert messages and isinstance(messages[-1], p.Error) and messages[-1].code == "protocol"
    assert service.refusals[-1][0] == "key:mallory"


async def test_an_oversized_frame_is_refused_before_its_body_is_read(service):
    anna, ben, table = await a_table_in_play(service)
    reader, writer = await raw(service, "key:mallory")
    writer.write(p.encode(p.Hello(p.PROTOCOL_VERSION)) + struct.pack(">I", 50 * 1024 * 1024) + b"x" * 1000)
    await writer.drain()
    messages = await closed_after(reader)
    assert isinstance(messages[-1], p.Error) and "limit" in messages[-1].message
    whose = anna if table.match.to_move() == 0 else ben
    await the_table_still_plays(whose, table)


async def test_out_of_turn_moves_and_moves_for_another_seat_change_nothing(service):
    anna, ben, table = await a_table_in_play(service)
    await anna.wait_for(lambda c: c.snapshot.table.to_move in (0, 1))
    seat = table.match.to_move()
    mover, other = (anna, ben) if seat == 0 else (ben, anna)
    state, log = table.match.state, list(table.match.log)
    legal = table.match.legal_actions()
    await other.send(p.Move(legal[0], len(log)))  # the mover's legal move, sent by the other seat
    await other.wait_for(lambda c: c.errors)
    assert other.errors[-1].code == "not-your-turn"
    await mover.send(p.Move("play:XX", len(log)))  # not an action at all
    await mover.send(p.Move(legal[0], len(log) + 5))  # answering a position that never was
    await mover.wait_for(lambda c: len(c.errors) >= 2)
    assert [e.code for e in mover.errors] == ["illegal", "stale"]
    watcher = await connect(service, "guest:eve", "Eve")
    await watcher.send(p.Watch(table.id))
    await watcher.wait_for(lambda c: c.snapshot)
    await watcher.send(p.Move(legal[0], len(log)))  # a watcher has no seat
    await watcher.wait_for(lambda c: c.errors)
    assert watcher.errors[-1].code == "not-seated"
    assert table.match.state is state and table.match.log == log
    assert {identity for identity, _reason in service.refusals} == {"key:anna", "key:ben", "guest:eve"}
    await the_table_still_plays(mover, table)


async def test_a_client_that_keeps_misbehaving_is_cut_off(service):
    anna, ben, table = await a_table_in_play(service)
    other = ben if table.match.to_move() == 0 else anna
    for _ in range(10):
        await other.send(p.Move("draw", 0))
    await asyncio.wait_for(other.closed.wait(), 5)
    mover = anna if other is ben else ben
    await the_table_still_plays(mover, table)


async def test_a_message_flood_is_cut_off_at_a_persons_rate(tmp_path):
    service = TableService(REGISTRY, tmp_path, seed=1)  # the default rate: 20 a second, 40 at once
    await service.start()
    try:
        flooder = await connect(service, "key:flood")
        for _ in range(200):
            await flooder.send(p.ListTables())
        await asyncio.wait_for(flooder.closed.wait(), 5)
        assert any(e.code == "protocol" and "too many" in e.message for e in flooder.errors)
        calm = await connect(service, "key:calm")
        await calm.send(p.ListTables())
        await calm.wait_for(lambda c: any(isinstance(m, p.TableList) for m in c.received))
    finally:
        await service.close()


async def test_chat_is_stripped_of_escapes_and_bidi_bounded_and_rate_limited(service):
    anna, ben, _table = await a_table_in_play(service)
    await anna.send(p.Chat("\x1b[2J\x1b]0;owned\x07hi \u202eevil\u202c\r\nthere\x00"))
    line = (await ben.wait_for(lambda c: c.chats))[-1]
    assert line.name == "Anna"
    assert not any(ch in line.text for ch in "\x1b\x07\x00\r\n\u202e\u202c")
    assert "hi" in line.text and "there" in line.text
    with pytest.raises(p.ProtocolError, match="length <= 200"):  # over 200 characters: refused
        p.decode_client(p.encode(p.Chat("x" * 201))[4:])
    for number in range(6):
        await anna.send(p.Chat(f"spam {number}"))
    await anna.wait_for(lambda c: any(e.code == "chat-flood" for e in c.errors))
    await asyncio.sleep(0.1)
    assert len(ben.chats) <= 4  # the burst of three (plus the first line), not six more


async def test_a_deeply_nested_frame_gets_an_error_is_cut_off_and_logged(service, caplog):
    """A 60 KB frame of maps nested 20,000 deep: a protocol error like any other, never a traceback."""
    reader, writer = await raw(service, "key:mallory")
    payload = b"\x81\xa1a" * 20000 + b"\xc0"
    writer.write(p.encode(p.Hello(p.PROTOCOL_VERSION)) + struct.pack(">I", len(payload)) + payload)
    await writer.drain()
    messages = await closed_after(reader)
    assert isinstance(messages[-1], p.Error) and messages[-1].code == "protocol"
    assert service.refusals[-1] == ("key:mallory", "protocol: undecodable message: nested too deeply")
    assert not [record for record in caplog.records if record.exc_info]
