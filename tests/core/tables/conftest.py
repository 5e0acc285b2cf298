"""Helpers: a table service on a temporary data dir, and clients over real socketpairs."""

from __future__ import annotations

import asyncio
import random
import socket

import pytest
from gamenight.plugins import load_registry
from gamenight.tables.client import TableClient
from gamenight.tables.protocol import Move
from gamenight.tables.service import TableService

from tests.core.nim import NimPlugin

REGISTRY = load_registry()
NIM_REGISTRY = load_registry(extra_plugins={"nim": NimPlugin()}, entry_points=[])
"""Only the Nim test game: short games, for playing a shared table to its end by keys."""
FAST = (1000.0, 1000.0)
"""Message rate for simulated players, who move at machine speed (a person's limit is tested on its own)."""


async def connect(service: TableService, identity: str, name: str | None = None) -> TableClient:
    """A client on one end of a socketpair, the service serving the other as ``identity`` (as the server would)."""
    ours, theirs = socket.socketpair()
    service_reader, service_writer = await asyncio.open_connection(sock=theirs)
    asyncio.get_running_loop().create_task(service.serve(service_reader, service_writer, identity, name or identity))
    reader, writer = await asyncio.open_connection(sock=ours)
    client = TableClient(reader, writer)
    client.keep_all = True
    await client.connect()
    await client.wait_for(lambda c: c.name)
    return client


async def raw(service: TableService, identity: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A bare stream to the service, for clients that misbehave."""
    ours, theirs = socket.socketpair()
    service_reader, service_writer = await asyncio.open_connection(sock=theirs)
    asyncio.get_running_loop().create_task(service.serve(service_reader, service_writer, identity, identity))
    return await asyncio.open_connection(sock=ours)


async def play_randomly(client: TableClient, seed: int, stop: asyncio.Event) -> int:
    """Play random legal moves for the client's seat until the game ends; returns the moves sent."""
    rng = random.Random(seed)
    sent = 0
    answered = -1
    while not stop.is_set():

        def ready(c, answered=answered):
            snap = c.snapshot
            if snap is None:
                return None
            done = snap.table.status == "over" or stop.is_set()
            return snap if done or (snap.legal and snap.turn != answered) else None

        snap = await client.wait_for(ready, timeout=60)
        if stop.is_set() or snap.table.status == "over":
            return sent
        answered = snap.turn
        await client.send(Move(rng.choice(snap.legal), snap.turn))
        sent += 1
    return sent


@pytest.fixture
async def service(tmp_path):
    service = TableService(
        REGISTRY, tmp_path / "data", away_timeout=300, bot_time_budget=0.2, seed=7, message_rate=FAST
    )
    await service.start()
    yield service
    await asyncio.wait_for(service.close(), 5)


@pytest.fixture
async def nim_service(tmp_path):
    service = TableService(NIM_REGISTRY, tmp_path / "data", bot_time_budget=0.2, seed=3, message_rate=FAST)
    await service.start()
    yield service
    await asyncio.wait_for(service.close(), 5)


async def play_to_the_end(client):
    """Play ``client``'s seat with its first legal move each turn until its table's game is over;
    the last snapshot (the finished game's)."""
    while True:
        snap = await client.wait_for(
            lambda c: c.snapshot if c.snapshot and (c.snapshot.legal or c.snapshot.table.status == "over") else None
        )
        if snap.table.status == "over":
            return snap
        await client.send(Move(snap.legal[0], snap.turn))
        await client.wait_for(lambda c, turn=snap.turn: c.snapshot.turn > turn or c.snapshot.table.status == "over")


def _redis(request, **options):
    from tests.core.tables.redis_server import RedisServer, missing_reason

    reason = missing_reason()
    if reason is not None:
        pytest.skip(reason)
    server = RedisServer(**options)
    request.addfinalizer(server.cleanup)
    server.start()
    return server


@pytest.fixture
def redis_server(request):
    """A real redis-server of this test's own (no persistence), on a Unix socket; stopped after the test."""
    return _redis(request)


@pytest.fixture
def durable_redis_server(request):
    """A real redis-server with its append-only file on, every write synced (``appendfsync always``)."""
    return _redis(request, appendonly=True, fsync="always")


@pytest.fixture
async def hosts(redis_server, tmp_path):
    """Make "hosts": table services on the test's one Redis (``await hosts("host-a", **options)``),
    each closed at the end unless the test killed it (``service.killed``)."""
    from .test_authority import a_host

    made = []

    async def make(name: str, **options):
        service = await a_host(redis_server, tmp_path, name, **options)
        made.append(service)
        return service

    yield make
    for service in made:
        if not getattr(service, "killed", False):
            await asyncio.wait_for(service.close(), 10)
