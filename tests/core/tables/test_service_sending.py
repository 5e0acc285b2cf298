"""How the service sends: a move reaches the other seats at once, and a client that does not read is cut off."""

from __future__ import annotations

import asyncio
import contextlib
import socket

import gamenight.tables.service as service_module
from gamenight.tables import protocol as p
from gamenight.tables.client import TableClient

from tests.core.tables.conftest import connect


async def seated(service, identity: str) -> tuple[TableClient, asyncio.StreamReader, socket.socket]:
    """A client as :func:`connect` makes one, plus the service's reader of it and the client's own socket."""
    ours, theirs = socket.socketpair()
    service_reader, service_writer = await asyncio.open_connection(sock=theirs)
    asyncio.get_running_loop().create_task(service.serve(service_reader, service_writer, identity, identity.title()))
    reader, writer = await asyncio.open_connection(sock=ours)
    client = TableClient(reader, writer)
    await client.connect()
    await client.wait_for(lambda c: c.name)
    return client, service_reader, ours


async def test_a_move_is_on_the_other_seats_socket_before_the_service_reads_again(service, monkeypatch):
    """The move's Event and snapshot are written while the move is handled, not on a later turn of a
    busy loop: by the time the service reads the mover's next request, the other seat's socket holds them."""
    ann = await seated(service, "ann")
    ben = await seated(service, "ben")
    await ann[0].send(p.OpenTable("mille", [p.SeatSpec("person"), p.SeatSpec("person")]))
    snap = await ann[0].wait_for(lambda c: c.snapshot)
    await ben[0].send(p.Join(snap.table.table))
    table = service.tables[snap.table.table]
    for client, _, _ in (ann, ben):
        await client.wait_for(lambda c: c.snapshot and c.snapshot.table.status == "playing")
    (mover, mover_in_service, _), (other, _, other_socket) = (ann, ben) if table.match.to_move() == 0 else (ben, ann)
    await mover.wait_for(lambda c: c.snapshot.legal)
    turn = len(table.match.log)
    await asyncio.sleep(0.1)  # everything sent so far has been read
    waiting: list[int] = []
    read_frame = p.read_frame

    async def watched(reader, cap):
        if reader is mover_in_service and len(table.match.log) > turn and not waiting:
            try:
                waiting.append(len(other_socket.recv(1 << 16, socket.MSG_PEEK | socket.MSG_DONTWAIT)))
            except BlockingIOError:
                waiting.append(0)
        return await read_frame(reader, cap)

    monkeypatch.setattr(p, "read_frame", watched)
    await mover.send(p.Move(mover.snapshot.legal[0], turn))
    await other.wait_for(lambda c: c.snapshot.turn > turn)
    assert waiting and waiting[0] > 0, waiting  # main: 0, the frames still queued for a sender task
    assert other.events[-1].turn == turn + 1  # the move's Event came with it
    await mover.close()
    await other.close()


async def test_a_client_that_does_not_read_is_cut_off_and_the_others_go_on(service, monkeypatch):
    monkeypatch.setattr(service_module, "SEND_BUFFER_CAP", 16 * 1024)
    ann = await connect(service, "ann")
    await ann.send(p.OpenTable("mille", [p.SeatSpec("person"), p.SeatSpec("person")]))  # a list worth sending
    await ann.wait_for(lambda c: c.snapshot)
    ours, theirs = socket.socketpair()
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)  # the kernel holds little of it
    service_reader, service_writer = await asyncio.open_connection(sock=theirs)
    asyncio.get_running_loop().create_task(service.serve(service_reader, service_writer, "cat", "Cat"))
    ours.setblocking(True)
    requests = p.encode(p.Hello(p.PROTOCOL_VERSION)) + p.encode(p.ListTables()) * 900  # each answered with a list
    sender = asyncio.get_running_loop().run_in_executor(None, ours.sendall, requests)  # and never reads
    for _ in range(500):
        if not any(c.identity == "cat" for c in service.connections) and sender.done():
            break
        await asyncio.sleep(0.02)
    assert not any(c.identity == "cat" for c in service.connections), "the non-reader is still served"
    with contextlib.suppress(Exception):
        await asyncio.wait_for(sender, 5)  # it ends with the connection (a broken pipe)
    assert service_writer.transport.is_closing()
    await ann.send(p.ListTables())  # the service and its other clients are unaffected
    await ann.wait_for(lambda c: c.received and isinstance(c.received[-1], p.TableList))
    ours.close()
    await ann.close()
