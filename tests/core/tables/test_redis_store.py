"""The table store in Redis against a real redis-server: leases with a fencing token, fenced durable moves.

Two "hosts" are two stores (two clients, two host ids) on one server.  Leases are short (0.3 s) where
a test waits for one to lapse, and the waits poll; no figure is a time.
"""

from __future__ import annotations

import asyncio
import time

import msgspec
import pytest
from gamenight.tables.redis_store import (
    CorruptValue,
    Lease,
    LeaseHeld,
    LogEntry,
    NewerFormat,
    OutOfOrder,
    RedisTableStore,
    StaleEpoch,
    StoreUnavailable,
    TableState,
)

SHORT = 0.3
"""A lease the test lets lapse (seconds)."""
LONG = 30.0
"""A lease that lives through the test."""


@pytest.fixture
async def hosts(redis_server):
    a = RedisTableStore.connect(redis_server.url)
    b = RedisTableStore.connect(redis_server.url)
    yield a, b
    await a.close()
    await b.close()


def move(seq: int, action: str = "draw", seat: int = 0) -> LogEntry:
    return LogEntry(seq=seq, seat=seat, action=action)


async def acquire_when_free(store: RedisTableStore, table: str, host: str, ttl: float) -> int:
    """Poll until ``host`` takes the table (its holder stopped renewing); bounded so a bug fails, not hangs."""
    deadline = time.monotonic() + 30
    while True:
        try:
            return await store.acquire(table, host, ttl)
        except LeaseHeld:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.02)


async def test_one_authority_and_a_stale_one_is_fenced_off(hosts):
    a, b = hosts
    epoch_a = await a.acquire("t1", "host-a", LONG)
    assert epoch_a == 1
    await a.append("t1", epoch_a, move(0, "roll"))
    await a.append("t1", epoch_a, move(1, "keep:1,2"))

    with pytest.raises(LeaseHeld) as held:  # B cannot take the table while A's lease lives
        await b.acquire("t1", "host-b", LONG)
    assert (held.value.holder.host, held.value.holder.epoch) == ("host-a", 1)
    assert "held by host host-a" in str(held.value)

    await a.renew("t1", "host-a", epoch_a, SHORT)  # ... and then A stops renewing (paused, dead, cut off)
    epoch_b = await acquire_when_free(b, "t1", "host-b", LONG)
    assert epoch_b == 2

    with pytest.raises(StaleEpoch) as stale:  # A wakes up and writes as if it still held the table
        await a.append("t1", epoch_a, move(2, "stale move"))
    assert stale.value.current == 2
    assert "epoch 1 may no longer write" in str(stale.value)
    with pytest.raises(StaleEpoch):
        await a.save_state("t1", epoch_a, TableState(game="yatzy", document="stale"))
    with pytest.raises(StaleEpoch):
        await a.renew("t1", "host-a", epoch_a, LONG)
    with pytest.raises(StaleEpoch):  # A's release never drops B's lease
        await a.release("t1", "host-a", epoch_a)

    stored = await b.load("t1")
    assert [(e.seq, e.action, e.epoch) for e in stored.log] == [(0, "roll", 1), (1, "keep:1,2", 1)]
    assert stored.epoch == 2 and stored.holder is not None and stored.holder.host == "host-b"
    assert stored.state is None

    await b.append("t1", epoch_b, move(2, "score:chance"))  # the new authority goes on where A stopped
    assert [e.epoch for e in (await a.load("t1")).log] == [1, 1, 2]


async def test_a_holder_acquiring_again_keeps_its_epoch_and_a_release_frees_the_table(hosts):
    a, b = hosts
    first = await a.acquire("t2", "host-a", LONG)
    assert await a.acquire("t2", "host-a", LONG) == first  # already its own: extended, same epoch
    await a.renew("t2", "host-a", first, LONG)
    await a.release("t2", "host-a", first)
    assert (await a.load("t2")).holder is None
    assert await b.acquire("t2", "host-b", LONG) == first + 1  # free at once, a new epoch
    with pytest.raises(LeaseHeld):
        await a.acquire("t2", "host-a", LONG)


async def test_the_same_host_id_in_another_process_is_another_holder(hosts, redis_server):
    a, _ = hosts
    twin = RedisTableStore.connect(redis_server.url)  # misconfigured: the same host id as a
    try:
        await a.acquire("t3", "host-a", LONG)
        with pytest.raises(LeaseHeld):
            await twin.acquire("t3", "host-a", LONG)
    finally:
        await twin.close()


async def test_a_lapsed_lease_writes_nothing_even_when_no_one_took_the_table(hosts):
    a, _ = hosts
    epoch = await a.acquire("t4", "host-a", SHORT)
    await a.append("t4", epoch, move(0))
    deadline = time.monotonic() + 30
    while (await a.load("t4")).holder is not None:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.02)
    with pytest.raises(StaleEpoch, match="the lease expired"):
        await a.append("t4", epoch, move(1))
    with pytest.raises(StaleEpoch, match="the lease expired"):
        await a.renew("t4", "host-a", epoch, LONG)
    await a.release("t4", "host-a", epoch)  # gone already, no one else took it: nothing left to release
    assert await a.acquire("t4", "host-a", LONG) == epoch + 1  # taking it again fences the old writes off
    assert len((await a.load("t4")).log) == 1


async def test_a_lapsed_lease_is_reclaimed_only_if_no_other_host_took_the_table(hosts):
    """``reclaim``: the holder whose lease lapsed takes it back at the next epoch when no other host took
    the table since; never once another epoch took it, nor while another host holds it."""
    a, b = hosts
    epoch = await a.acquire("t9", "host-a", LONG)
    assert await a.reclaim("t9", "host-a", epoch, LONG) == epoch  # it still lives: kept, same epoch
    holder = await b.holder("t9")
    assert holder == f"host-a/{a.instance}".encode()
    await a.release("t9", "host-a", epoch)  # (as a lapse would)
    assert await b.holder("t9") == b""  # no one holds it
    again = await a.reclaim("t9", "host-a", epoch, SHORT)
    assert again == epoch + 1 and await b.holder("t9") == holder  # the same holder, a new epoch
    with pytest.raises(StaleEpoch):
        await a.append("t9", epoch, move(0))  # the old epoch writes nothing now
    await a.append("t9", again, move(0))
    await acquire_when_free(b, "t9", "host-b", LONG)  # lapsed again; host B takes it
    with pytest.raises(StaleEpoch, match=f"epoch {again + 1} took the table"):
        await a.reclaim("t9", "host-a", again, LONG)
    with pytest.raises(LeaseHeld):
        await a.reclaim("t9", "host-a", again + 1, LONG)  # (an epoch it never held: B's lease holds it)
    assert (await a.load("t9")).holder is not None and len((await a.load("t9")).log) == 1
    assert await a.holder("t9") == f"host-b/{b.instance}".encode()  # another holder
    await a.client.set(a.keys("t9")["lease"], b"\xc1 not a lease")
    with pytest.raises(CorruptValue):  # a value not gamenight's: a clear error, never a holder
        await a.holder("t9")


async def test_a_move_out_of_place_is_refused_and_changes_nothing(hosts):
    a, _ = hosts
    epoch = await a.acquire("t5", "host-a", LONG)
    await a.append("t5", epoch, move(0))
    for seq in (0, 2):  # another move where one is already; one lost in between
        with pytest.raises(OutOfOrder) as refused:
            await a.append("t5", epoch, move(seq, "other"))
        assert refused.value.length == 1
    assert [e.seq for e in (await a.load("t5")).log] == [0]


async def test_an_append_sent_again_after_a_lost_answer_is_kept_once(hosts):
    """The client sends a command again when its connection drops; an append that had been made is found."""
    a, _ = hosts
    epoch = await a.acquire("t15", "host-a", LONG)
    entry = LogEntry(seq=0, seat=1, action="bid:9", at=1234.5)
    first = await a.append("t15", epoch, entry)
    assert await a.append("t15", epoch, entry) == first
    with pytest.raises(OutOfOrder):  # another move in the same place is still refused
        await a.append("t15", epoch, LogEntry(seq=0, seat=1, action="bid:10", at=1234.5))
    assert [e.action for e in (await a.load("t15")).log] == ["bid:9"]


async def test_a_saved_state_covers_the_log_before_it(hosts):
    a, b = hosts
    epoch = await a.acquire("t6", "host-a", LONG)
    for seq in range(3):
        await a.append("t6", epoch, move(seq, f"m{seq}"))
    await a.save_state("t6", epoch, TableState(game="seven", document="[game]\nmoves = 3\n", turn=3))
    await a.append("t6", epoch, move(0, "after"))
    stored = await b.load("t6")
    assert stored.state == TableState(game="seven", document="[game]\nmoves = 3\n", turn=3, epoch=epoch)
    assert [e.action for e in stored.log] == ["after"]


async def test_the_log_and_the_epoch_survive_a_redis_crash_with_its_append_only_file(durable_redis_server):
    a = RedisTableStore.connect(durable_redis_server.url)
    try:
        epoch = await a.acquire("t7", "host-a", LONG)
        await a.save_state("t7", epoch, TableState(game="mille", document="state", turn=5))
        for seq in range(4):
            await a.append("t7", epoch, move(seq, f"m{seq}"))
        durable_redis_server.restart(kill=True)  # SIGKILL: only what reached the append-only file is left

        stored = await a.load("t7")  # the client reconnects by itself
        assert stored.state is not None and stored.state.turn == 5
        assert [e.action for e in stored.log] == ["m0", "m1", "m2", "m3"]
        assert stored.epoch == epoch  # the fencing token never goes back: a restart cannot revive a stale host
        assert await a.acquire("t7", "host-a", LONG) == epoch  # its lease too
        await a.append("t7", epoch, move(4, "m4"))  # the scripts are loaded again (NOSCRIPT) on first use
        assert len((await a.load("t7")).log) == 5
    finally:
        await a.close()


async def test_without_persistence_a_restart_loses_the_tables(redis_server):
    """The other side of the test above: it is the append-only file that keeps them (what it proves is real)."""
    a = RedisTableStore.connect(redis_server.url)
    try:
        epoch = await a.acquire("t8", "host-a", LONG)
        await a.append("t8", epoch, move(0))
        redis_server.restart(kill=True)
        stored = await a.load("t8")
        assert (stored.epoch, stored.log, stored.holder) == (0, [], None)
    finally:
        await a.close()


async def raw_client(server):
    import redis.asyncio

    return redis.asyncio.Redis.from_url(server.url)


async def test_garbage_in_the_keys_is_a_clear_error_never_a_traceback(hosts, redis_server):
    a, _ = hosts
    raw = await raw_client(redis_server)
    keys = a.keys("t9")
    try:
        await raw.set(keys["lease"], b"\xff\x00 not a lease")
        with pytest.raises(CorruptValue, match=r"gamenight:\{t9\}:lease: not a gamenight value"):
            await a.acquire("t9", "host-a", LONG)
        with pytest.raises(CorruptValue, match="lease"):
            await a.load("t9")
        await raw.delete(keys["lease"])

        await raw.set(keys["epoch"], b"seven")
        with pytest.raises(CorruptValue, match="'seven' is not an epoch"):
            await a.acquire("t9", "host-a", LONG)
        await raw.delete(keys["epoch"])

        epoch = await a.acquire("t9", "host-a", LONG)
        await raw.set(keys["log"], b"a string where the stream goes")
        with pytest.raises(CorruptValue, match="log key holds a string"):
            await a.append("t9", epoch, move(0))
        assert await raw.get(keys["log"]) == b"a string where the stream goes"  # nothing written over it
        with pytest.raises(CorruptValue, match="holds a string"):
            await a.load("t9")
        await raw.delete(keys["log"])

        await raw.delete(keys["lease"])  # a lease of the wrong type lets no write through
        await raw.rpush(keys["lease"], b"not a lease")
        with pytest.raises(CorruptValue, match="lease key holds a list"):
            await a.append("t9", epoch, move(0))
        assert not await raw.exists(keys["log"])
        await raw.delete(keys["lease"])
        epoch = await a.acquire("t9", "host-a", LONG)

        await a.append("t9", epoch, move(0))
        await raw.xadd(keys["log"], {b"m": msgspec.msgpack.encode({"v": 1, "seq": 1, "nonsense": True})})
        with pytest.raises(CorruptValue, match="not a valid LogEntry"):
            await a.load("t9")
        await raw.delete(keys["log"])

        await raw.set(keys["state"], msgspec.msgpack.encode([1, 2, 3]))
        with pytest.raises(CorruptValue, match="state"):
            await a.load("t9")
        await raw.set(keys["state"], b"")
        with pytest.raises(CorruptValue, match="state: not a gamenight value"):
            await a.load("t9")
        await raw.delete(keys["state"])
        await raw.rpush(keys["state"], b"a list")
        with pytest.raises(CorruptValue, match="holds a list"):
            await a.load("t9")
        with pytest.raises(CorruptValue, match="state key holds a list"):
            await a.save_state("t9", epoch, TableState(game="yatzy", document=""))
        assert await raw.lrange(keys["state"], 0, -1) == [b"a list"]
    finally:
        await raw.aclose()


async def test_a_value_from_a_newer_format_is_refused_by_name(hosts, redis_server):
    a, _ = hosts
    raw = await raw_client(redis_server)
    keys = a.keys("t10")
    try:
        future_state = {"v": 2, "epoch": 1, "game": "yatzy", "document": "", "compressed": True}
        await raw.set(keys["state"], msgspec.msgpack.encode(future_state))
        with pytest.raises(NewerFormat, match="format 2 by a newer gamenight"):
            await a.load("t10")
        await raw.delete(keys["state"])
        await raw.set(keys["lease"], msgspec.msgpack.encode({"v": 3, "host": "host-z", "epoch": 9}))
        with pytest.raises(NewerFormat):
            await a.acquire("t10", "host-a", LONG)
    finally:
        await raw.aclose()


async def test_reads_are_bounded(hosts, redis_server):
    a, _ = hosts
    raw = await raw_client(redis_server)
    try:
        await raw.set(a.keys("t11")["state"], b"x" * (5 * 1024 * 1024))
        with pytest.raises(CorruptValue, match="bytes, not a gamenight value"):
            await a.load("t11")
    finally:
        await raw.aclose()
    epoch = await a.acquire("t12", "host-a", LONG)
    with pytest.raises(ValueError, match="log entry of"):
        await a.append("t12", epoch, LogEntry(seq=0, seat=0, action="x" * 1024 + "y" * 4000))


async def test_names_that_could_reach_other_keys_are_refused(hosts):
    a, _ = hosts
    for table in ("", "a:b", "{x}", "t" * 17):
        with pytest.raises(ValueError, match="table id"):
            await a.acquire(table, "host-a", LONG)
    with pytest.raises(ValueError, match="host id"):
        await a.acquire("t13", "host a\n", LONG)
    with pytest.raises(ValueError, match="lease of"):
        await a.acquire("t13", "host-a", 0)


async def test_a_redis_that_refuses_to_write_says_so_and_writes_nothing(hosts, redis_server):
    a, _ = hosts
    raw = await raw_client(redis_server)
    try:
        epoch = await a.acquire("t16", "host-a", LONG)
        await raw.config_set("maxmemory", 1)  # full, and set never to evict (as it must be)
        with pytest.raises(StoreUnavailable, match="refused: command not allowed when used memory"):
            await a.append("t16", epoch, move(0))
        await raw.config_set("maxmemory", 0)
        assert (await a.load("t16")).log == []
    finally:
        await raw.aclose()


async def test_an_unreachable_redis_says_so(tmp_path):
    store = RedisTableStore.connect(f"unix://{tmp_path}/nothing-here.sock", timeout=1)
    try:
        with pytest.raises(StoreUnavailable, match="is not reachable"):
            await store.acquire("t14", "host-a", LONG)
    finally:
        await store.close()


def test_a_logged_url_keeps_no_password():
    store = RedisTableStore.connect("redis://gamenight:s3cret@redis.internal:6379/0")
    assert store.where == "redis://***@redis.internal:6379/0"


def test_every_value_is_a_versioned_message():
    for message in (Lease("h", 1), LogEntry(0, 0, "a"), TableState("yatzy", "")):
        assert msgspec.msgpack.decode(msgspec.msgpack.encode(message))["v"] == 1


def test_without_redis_server_the_tests_skip_unless_ci_requires_it(monkeypatch, tmp_path):
    from tests.core.tables import redis_server

    monkeypatch.setenv("PATH", str(tmp_path))  # no redis-server here
    monkeypatch.delenv(redis_server.REQUIRE, raising=False)
    assert "no redis-server on PATH" in redis_server.missing_reason()
    monkeypatch.setenv(redis_server.REQUIRE, "1")
    with pytest.raises(RuntimeError, match="GAMENIGHT_REQUIRE_REDIS=1 but no redis-server"):
        redis_server.missing_reason()


def test_a_server_left_by_a_killed_test_process_is_swept(redis_server):
    """A test process killed before its clean-up leaves its redis-server running: the next one ends it."""
    import subprocess
    import sys

    from tests.core.tables import redis_server as helper

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (redis_server.dir / "owner").write_text(dead.stdout.strip())  # its owner is gone now
    process = redis_server.process
    assert helper.sweep(redis_server.dir.parent) == [redis_server.dir]
    assert process.wait(10) == -9
    assert not redis_server.dir.exists()
