"""Redis restarted mid-game, over real SSH: the tables come back.

Two ``serve-ssh`` hosts on one throwaway ``redis-server`` with its append-only file on (``appendfsync
always``).  Ann (on host A, which runs the table) and Ben (on host B, relayed to A through Redis) play a
Mille hand by keys.  Redis is stopped (SIGTERM) while it is Ann's turn: her move is held, never shown,
and her screen says the table waits, in words a player understands; meanwhile Cat logs in to host B and
reaches the lobby (local play goes on; each host counts sessions by its own limits).  Redis is started
again on the same socket and data dir: the held move is written and shown on both screens, host A still
holds the table under the same epoch (a short restart: the lease never lapsed), Ben's relayed moves go
through again, every move any screen showed is in Redis, and Cat's Tables list on host B shows the table
playing (read from Redis again).  The same with a crash (SIGKILL), and an outage past the lease, run in
process: ``tests/core/tables/test_redis_restart.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.ssh import test_shared_tables as shared
from tests.core.ssh.conftest import needs_ssh, wait_until
from tests.core.ssh.test_shared_tables import LOBBY, People, Table, covered, names, open_and_join, start_move
from tests.core.ssh.test_shared_tables_redis import runner, stored_match

WAITS = "The table waits"
"""What a player reads while the table's store cannot be reached (``refusal_text("store-down")``)."""


@pytest.fixture
def durable_redis(request):
    from tests.core.tables.redis_server import RedisServer, missing_reason

    reason = missing_reason()
    if reason is not None:
        pytest.skip(reason)
    server = RedisServer(appendonly=True, fsync="always")
    request.addfinalizer(server.cleanup)
    server.start()
    return server


def stored_epoch(url: str) -> int:
    """The one table's epoch as Redis holds it (the lease's fencing token)."""
    import asyncio

    from gamenight.tables.redis_store import RedisTableStore

    async def read() -> int:
        store = RedisTableStore.connect(url)
        try:
            return (await store.load(next(iter(await store.listed())))).epoch
        finally:
            await store.close()

    return asyncio.run(read())


@needs_ssh
def test_redis_restarted_mid_game_the_table_waits_then_goes_on_where_it_was(
    start_server, terminals, tmp_path: Path, durable_redis, monkeypatch
) -> None:
    url = durable_redis.url
    monkeypatch.setattr(shared, "saved_match", lambda _data_dir: stored_match(url))
    people = People(tmp_path, terminals, ("ann", "ben", "cat"))
    # one data dir for both hosts, as a game room of several hosts requires (docs/hosting.md)
    host_b = people.start(start_server, "--tables-url", url, data_dir=tmp_path / "shared")
    host_a = people.start(start_server, "--tables-url", url, data_dir=tmp_path / "shared")
    ann = people.connect("ann")  # on host A: it runs the table
    people.server = host_b
    ben = people.connect("ben")  # on host B: relayed to A through Redis
    open_and_join(ann, ben)
    wait_until(lambda: runner(url) == f"{host_a.process.pid}", 20, "host A to hold the table")
    table = Table(tmp_path, [ann, ben])
    for _ in range(12):  # a few moves, both hosts' (Ben's relayed), until Ben is to move
        table.move()
        match = table.check("the screens before Redis goes away")
        if table.checks > 3 and match.to_move() == 1 and not covered(match):
            break
    before = table.check("every screen shows what Redis holds, before the restart")
    assert before.to_move() == 1, "Ben never came to move"
    moves = [entry.action for entry in before.log]
    epoch = stored_epoch(url)
    ben_hand = names(before.state.seats[1].hand)

    durable_redis.stop()  # SIGTERM: Redis writes its append-only file and is gone
    final, action = start_move(ben, before)
    ben.send(final)  # Ben's move: host B holds it for the table's inbox until Redis answers
    cat = people.client("cat")  # meanwhile a new session on host B: local play goes on
    ben.wait_for(WAITS, 30)  # Ben is told why nothing happens, in a player's words
    assert "Nothing is lost" in " ".join(ben.text().split()), ben.text()
    cat.wait_for(LOBBY, 40)  # let in (by host B's own limits) and in the lobby
    assert shared.hand_on_screen(ben) == ben_hand, "a move Redis does not have was shown"

    durable_redis.start()  # the same socket and data dir: the append-only file is read back
    wait_until(
        lambda: (m := stored_match(url)) is not None and len(m.log) > len(moves), 30, "the held move to reach Redis"
    )
    after = table.check("the held move shown on every screen once Redis has it", 40)
    assert [entry.action for entry in after.log] == [*moves, action], "a move was lost or made twice"
    assert runner(url) == f"{host_a.process.pid}" and stored_epoch(url) == epoch, "the lease changed hands"
    assert host_b.find(lambda e: e["event"] == "error" and e.get("what") == "shared_limits"), "Cat let in unsaid"
    played = [table.move() for _ in range(4)]  # both seats again, Ben's through the relay
    now = stored_match(url)
    assert now is not None and [entry.action for entry in now.log][: len(moves) + 1] == [*moves, action]
    assert len(now.log) > len(moves) + 1 or "end of hand" in played
    cat.send("t")  # host B's Tables list reads the lobby from Redis again: the table, playing
    cat.wait_for("playing", 30)
    assert "ann" in cat.text() and "ben" in cat.text()
    assert all(terminal.process.poll() is None for terminal in (ann, ben, cat))
