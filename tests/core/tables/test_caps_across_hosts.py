"""Table caps across hosts: with the tables in Redis, the caps per identity and per address count every
host's tables, admitted atomically; a dead host's counts lapse; Redis away, each host's own caps hold.

Two "hosts" are two :class:`TableService` objects in this process on one real ``redis-server`` of the
test's own (as in test_authority.py).  The waits poll with a bound; no figure is a time.
"""

from __future__ import annotations

import asyncio
import socket

import pytest
from gamenight.tables import protocol as p
from gamenight.tables import service as service_module
from gamenight.tables import shared_caps
from gamenight.tables.client import TableClient
from gamenight.tables.redis_store import StoreUnavailable
from gamenight.tables.service import TableService

from .test_authority import kill, until

TWO_PEOPLE = [p.SeatSpec("person"), p.SeatSpec("person")]
SOLO = [p.SeatSpec("person"), p.SeatSpec("bot", "first")]


KEPT: list[TableClient] = []
"""Every room a test made, kept (a room no one holds is collected, and its table closes when its host goes)."""


@pytest.fixture(autouse=True)
def _keep_rooms():
    yield
    KEPT.clear()


async def connect_from(service: TableService, identity: str, address: str = "") -> TableClient:
    """A room of ``identity`` whose SSH session came from ``address`` (as the server hands it over)."""
    ours, theirs = socket.socketpair()
    service_reader, service_writer = await asyncio.open_connection(sock=theirs)
    asyncio.get_running_loop().create_task(service.serve(service_reader, service_writer, identity, identity, address))
    reader, writer = await asyncio.open_connection(sock=ours)
    client = TableClient(reader, writer)
    client.keep_all = True
    KEPT.append(client)
    await client.connect()
    await client.wait_for(lambda c: c.name)
    return client


async def opened(client: TableClient, seats=TWO_PEOPLE, solo: bool = False) -> p.Snapshot | p.Error:
    """Open a Nim table; its first snapshot, or the refusal."""
    before = len(client.received)
    await client.send(p.OpenTable("nim", seats, {"sticks": 9}, solo=solo))
    return await client.wait_for(
        lambda c: next((m for m in c.received[before:] if isinstance(m, p.Snapshot | p.Error)), None)
    )


def refused(answer, code: str) -> bool:
    return isinstance(answer, p.Error) and answer.code == code


async def rooms(host: TableService, identity: str, count: int) -> list[TableClient]:
    """``count`` rooms of ``identity`` on ``host``, all connected before any opens a table (a room that
    connects later is seated back at its identity's table on that host)."""
    return [await connect_from(host, identity) for _ in range(count)]


async def test_one_identity_hosts_three_open_tables_on_every_host_together(hosts):
    a, b = await hosts("host-a"), await hosts("host-b")
    on_a, on_b = await rooms(a, "key:ann", 3), await rooms(b, "key:ann", 2)
    for room in (on_a[0], on_a[1], on_b[0]):
        assert isinstance(await opened(room), p.Snapshot)
    fourth = await opened(on_b[1])
    assert refused(fourth, "host-limit"), fourth
    assert refused(await opened(on_a[2]), "host-limit")
    assert len(a.tables) + len(b.tables) == 3
    assert isinstance(await opened(await connect_from(b, "key:ben")), p.Snapshot)  # someone else still opens

    # One of ann's tables closes (she leaves it while it waits): she may open one again, on the other host.
    await on_a[0].send(p.Leave())
    await until(lambda: a._caps.written == a._own_counts() and len(a.tables) == 1, "host A writes its counts")
    assert isinstance(await opened(on_b[1]), p.Snapshot)


async def test_one_address_hosts_six_open_tables_on_every_host_together(hosts):
    a, b = await hosts("host-a"), await hosts("host-b")
    for number in range(6):
        host = a if number < 4 else b
        assert isinstance(await opened(await connect_from(host, f"guest-{number}", "203.0.113.9")), p.Snapshot)
    assert refused(await opened(await connect_from(b, "guest-6", "203.0.113.9")), "address-limit")
    assert refused(await opened(await connect_from(a, "guest-7", "203.0.113.9")), "address-limit")
    assert isinstance(await opened(await connect_from(b, "guest-8", "198.51.100.4")), p.Snapshot)


async def test_two_hosts_opening_at_once_against_a_cap_of_three_admit_exactly_three(hosts):
    a, b = await hosts("host-a"), await hosts("host-b")
    rooms = [await connect_from(host, "key:ann") for host in (a, b) for _ in range(4)]
    answers = await asyncio.gather(*(opened(room) for room in rooms))
    assert sum(isinstance(answer, p.Snapshot) for answer in answers) == 3, answers
    assert sum(refused(answer, "host-limit") for answer in answers) == 5
    assert len(a.tables) + len(b.tables) == 3
    assert not a._caps_pending and not b._caps_pending


async def test_solo_games_per_address_count_on_every_host(hosts, monkeypatch):
    monkeypatch.setattr(service_module, "SOLO_TABLES_PER_ADDRESS", 2)
    a, b = await hosts("host-a"), await hosts("host-b")
    for guest in ("guest-1", "guest-2"):
        assert isinstance(await opened(await connect_from(a, guest, "203.0.113.9"), SOLO, solo=True), p.Snapshot)
    third = await opened(await connect_from(b, "guest-3", "203.0.113.9"), SOLO, solo=True)
    assert refused(third, "address-limit"), third
    # A person's own kept games never stop them: guest-1's other game counts only the others' (guest-2's).
    assert isinstance(await opened(await connect_from(b, "guest-1", "203.0.113.9"), SOLO, solo=True), p.Snapshot)


async def test_a_dead_hosts_tables_stop_counting_once_its_counts_lapse(hosts, monkeypatch):
    monkeypatch.setattr(shared_caps, "TTL_S", 4.0)
    a, b = await hosts("host-a"), await hosts("host-b")
    for room in await rooms(a, "key:ann", 3):
        assert isinstance(await opened(room), p.Snapshot)
    a._caps_task.cancel()  # the host dies: nothing of it beats, nothing is taken out
    await kill(a)
    assert refused(await opened(await connect_from(b, "key:ann")), "host-limit")  # its counts live on a while
    own_key = a._caps.own_key
    assert 0 < await b.store.client.pttl(own_key) <= 4000  # ... for one ttl at most
    await until(lambda: _gone(b, own_key), "host A's counts lapse")
    assert isinstance(await opened(await connect_from(b, "key:ann")), p.Snapshot)
    assert b"host-a" not in await b.store.client.smembers(b._caps.hosts_key)  # the dead host left the list


async def _gone(host: TableService, key: str) -> bool:
    return not await host.store.client.exists(key)


async def test_redis_away_each_host_keeps_its_own_caps(hosts, monkeypatch):
    a, b = await hosts("host-a"), await hosts("host-b")
    for room in await rooms(a, "key:ann", 3):
        assert isinstance(await opened(room), p.Snapshot)
    calls = []

    async def away(*args, **kwargs):
        calls.append(args)
        raise StoreUnavailable("Redis is not reachable: (test)")

    monkeypatch.setattr(b._caps, "admit", away)
    # Every host's count cannot be read: host B admits on its own (ann hosts none there)...
    on_b = await rooms(b, "key:ann", 4)
    for room in on_b[:3]:
        assert isinstance(await opened(room), p.Snapshot)
    # ... and its own cap still holds: never no cap at all.
    assert refused(await opened(on_b[3]), "host-limit")
    assert len(calls) == 3  # the fourth was refused here, before Redis was asked
    assert not b._caps_pending


async def test_a_host_that_stops_takes_its_counts_out_at_once(hosts):
    a, b = await hosts("host-a"), await hosts("host-b")
    for room in await rooms(a, "key:ann", 3):
        assert isinstance(await opened(room), p.Snapshot)
    own_key = a._caps.own_key
    assert await b.store.client.exists(own_key)
    await asyncio.wait_for(a.close(), 10)
    a.killed = True  # (closed already)
    assert not await b.store.client.exists(own_key)
    assert isinstance(await opened(await connect_from(b, "key:ann")), p.Snapshot)


def test_two_host_processes_opening_at_once_admit_exactly_three(redis_server, tmp_path):
    """The race with real processes: two hosts, each its own interpreter and Redis connections, open four
    tables each for ann at the same moment; three are opened in all."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    hosts = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.core.tables.caps_host", redis_server.url, name, str(tmp_path / name), "4"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for name in ("host-a", "host-b")
    ]
    try:
        for host in hosts:
            assert host.stdout.readline().strip() == "ready"
        for host in hosts:  # both at once
            host.stdin.write("go\n")
            host.stdin.flush()
        results = [json.loads(host.stdout.readline()) for host in hosts]
        assert sum(result["opened"] for result in results) == 3, results
        assert sum(result["refused"] for result in results) == 5, results
        assert sum(result["tables"] for result in results) == 3, results
    finally:
        for host in hosts:
            host.stdin.close()
        for host in hosts:
            try:
                host.wait(30)
            except subprocess.TimeoutExpired:
                host.kill()
                host.wait(5)
