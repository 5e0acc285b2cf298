"""Two ``serve-ssh`` hosts on one Redis (``--tables-url``), over real SSH: the host running a table dies.

Ann and Ben (real OpenSSH clients, pyte screens, 80x24) play a Mille hand by keys on host A, while host B
runs beside it on the same Redis.  Host A is killed mid-hand (SIGKILL: nothing more written, no lease
given up).  Host B's sweep takes the table once A's lease lapses; both players connect again, through
host B, land at their seats with their own hands, and play on from exactly the position before the
kill: every move any screen showed is in Redis, and none is lost.  Split brain: host A paused past its
lease, then woken, has its write refused and lets go.  And the front ends relay: Ann on host A, Ben and
a watcher on host B play one table that host A runs, each screen its own view.
"""

from __future__ import annotations

import asyncio
import os
import signal
import tomllib
from pathlib import Path

import pytest
from gamenight.match import Match
from gamenight.saves import match_from_document

from tests.core.ssh import test_shared_tables as shared
from tests.core.ssh.conftest import needs_ssh, wait_until
from tests.core.ssh.processes import process_group
from tests.core.ssh.test_shared_tables import People, Table, open_and_join, start_move, title_bar


def stored_match(url: str) -> Match | None:
    """The one table's match as stored in Redis: its state, then the moves logged since."""
    from gamenight.tables.redis_store import RedisTableStore, StoreError

    async def read():
        store = RedisTableStore.connect(url)
        try:
            listed = await store.listed()
            return await store.load(next(iter(listed))) if listed else None
        finally:
            await store.close()

    try:
        stored = asyncio.run(read())
    except StoreError:
        return None
    if stored is None or stored.state is None:
        return None
    match = match_from_document(shared.REGISTRY, tomllib.loads(stored.state.document)["match"], "redis")
    for entry in stored.log:
        match.apply(entry.action)
    return match


def runner(url: str) -> str | None:
    """The process id of the host running the one table (as the store's list of tables says)."""
    from gamenight.tables.redis_store import RedisTableStore

    async def read():
        store = RedisTableStore.connect(url)
        try:
            listed = await store.listed()
            return next(iter(listed.values())).host.rsplit(":", 1)[1] if listed else None
        finally:
            await store.close()

    return asyncio.run(read())


@pytest.fixture
def redis_url(request) -> str:
    from tests.core.tables.redis_server import RedisServer, missing_reason

    reason = missing_reason()
    if reason is not None:
        pytest.skip(reason)
    server = RedisServer(appendonly=True, fsync="always")
    request.addfinalizer(server.cleanup)
    server.start()
    return server.url


@needs_ssh
def test_the_host_running_a_table_dies_and_the_other_host_goes_on_with_it(
    start_server, terminals, tmp_path: Path, redis_url: str, monkeypatch
) -> None:
    # The test's view of the table: what Redis holds (no host keeps table files with --tables-url).
    monkeypatch.setattr(shared, "saved_match", lambda _data_dir: stored_match(redis_url))
    people = People(tmp_path, terminals, ("ann", "ben"))
    # one data dir for both hosts, as a game room of several hosts requires (docs/hosting.md)
    host_b = people.start(start_server, "--tables-url", redis_url, data_dir=tmp_path / "shared")
    host_a = people.start(start_server, "--tables-url", redis_url, data_dir=tmp_path / "shared")  # they connect here
    ann, ben = people.connect("ann"), people.connect("ben")
    open_and_join(ann, ben)
    wait_until(lambda: runner(redis_url) == f"{host_a.process.pid}", 20, "host A to hold the table")
    table = Table(tmp_path, [ann, ben])
    for _ in range(6):
        table.move()
    before = table.check("every screen shows what Redis holds, before the kill")
    moves = [entry.action for entry in before.log]
    hands = [list(seat.hand) for seat in before.state.seats]

    host_a.process.kill()  # host A dies while it runs the table
    host_a.process.wait(15)
    for event in host_a.find(lambda e: e["event"] == "session_start"):
        wait_until(lambda pid=event["pid"]: not process_group(pid), 30, "the dead host's rooms to end")
    for terminal in (ann, ben):
        terminal.wait_exit(30)
    # B's sweep takes the table once A's lease lapses (6 s, and a sweep every 2 s).
    wait_until(lambda: runner(redis_url) == f"{host_b.process.pid}", 30, "host B to take the table")
    after = stored_match(redis_url)
    assert after is not None and [entry.action for entry in after.log] == moves, "a move was lost"
    assert [list(seat.hand) for seat in after.state.seats] == hands

    people.server = host_b  # both connect again, through host B: straight back at their seats
    ann, ben = people.client("ann"), people.client("ben")
    table.seats = [ann, ben]
    table.check("both back at their seats on host B", 40)
    wait_until(lambda: all("away" not in title_bar(t) for t in table.seats), 20, "nobody away")
    played = [table.move() for _ in range(4)]
    now = stored_match(redis_url)
    assert now is not None and [entry.action for entry in now.log][: len(moves)] == moves
    assert len(now.log) > len(moves) or "end of hand" in played


@needs_ssh
def test_a_paused_host_that_lost_its_table_writes_nothing_and_lets_go(
    start_server, terminals, tmp_path: Path, redis_url: str, monkeypatch
) -> None:
    monkeypatch.setattr(shared, "saved_match", lambda _data_dir: stored_match(redis_url))
    people = People(tmp_path, terminals, ("ann", "ben"))
    # one data dir for both hosts, as a game room of several hosts requires (docs/hosting.md)
    host_b = people.start(start_server, "--tables-url", redis_url, data_dir=tmp_path / "shared")
    host_a = people.start(start_server, "--tables-url", redis_url, data_dir=tmp_path / "shared")
    ann, ben = people.connect("ann"), people.connect("ben")
    open_and_join(ann, ben)
    wait_until(lambda: runner(redis_url) == f"{host_a.process.pid}", 20, "host A to hold the table")
    table = Table(tmp_path, [ann, ben])
    for _ in range(4):
        table.move()
    before = table.check("every screen shows what Redis holds, before the pause")
    moves = [entry.action for entry in before.log]
    mover = table.seats[before.to_move()]
    final, _action = start_move(mover, before)  # all but the last key of the next move

    os.kill(host_a.process.pid, signal.SIGSTOP)  # split brain: A is paused past its lease...
    try:
        wait_until(lambda: runner(redis_url) == f"{host_b.process.pid}", 30, "host B to take the table")
        mover.send(final)  # ... and a move reaches it, to be taken when it wakes up
    finally:
        os.kill(host_a.process.pid, signal.SIGCONT)
    for terminal in (ann, ben):  # A lets go: its rooms are told, and leave the table
        terminal.wait_for("moved to another server", 30)
    wait_until(lambda: host_a.find(lambda e: e["event"] == "tables" and "let go" in e.get("detail", "")), 20, "A's log")
    after = stored_match(redis_url)
    assert after is not None and [entry.action for entry in after.log] == moves, "the stale host wrote a move"

    for terminal in (ann, ben):
        terminal.kill()
    people.server = host_b  # through host B, both land back at their seats and play on
    ann, ben = people.client("ann"), people.client("ben")
    table.seats = [ann, ben]
    table.check("both back at their seats on host B", 40)
    table.move()
    now = stored_match(redis_url)
    assert now is not None and [entry.action for entry in now.log][: len(moves)] == moves


@needs_ssh
def test_two_hosts_one_table_ann_on_one_ben_and_a_watcher_on_the_other(
    start_server, terminals, tmp_path: Path, redis_url: str, monkeypatch
) -> None:
    """Ann connects to host A and opens a Mille table there; Ben and Cat connect to host B: Ben sees
    the table in B's Tables list and takes its seat, Cat watches it, both through B's relay to A. They
    play by keys; every screen shows what Redis holds, each seat its own hand, the watcher none."""
    monkeypatch.setattr(shared, "saved_match", lambda _data_dir: stored_match(redis_url))
    people = People(tmp_path, terminals, ("ann", "ben", "cat"))
    # one data dir for both hosts, as a game room of several hosts requires (docs/hosting.md)
    host_b = people.start(start_server, "--tables-url", redis_url, data_dir=tmp_path / "shared")
    host_a = people.start(start_server, "--tables-url", redis_url, data_dir=tmp_path / "shared")
    ann = people.connect("ann")  # on host A
    people.server = host_b
    ben = people.connect("ben")  # on host B
    open_and_join(ann, ben)  # Ann opens it on A; Ben takes the seat from B's list
    assert runner(redis_url) == f"{host_a.process.pid}", "the table runs on host A"
    table = Table(tmp_path, [ann, ben])
    for _ in range(3):
        table.move()
    cat = people.connect("cat")  # on host B too: she watches
    cat.send("t")
    cat.wait_for("playing", 30)
    cat.send("w")
    table.watchers.append(cat)
    for _ in range(5):
        table.move()
    final = table.check("every screen at the end shows what Redis holds")
    assert len(final.log) >= 8
    # Ben and Cat reached it through B's relay: the table never left host A.
    assert runner(redis_url) == f"{host_a.process.pid}"
    assert all(terminal.process.poll() is None for terminal in (ann, ben, cat))
