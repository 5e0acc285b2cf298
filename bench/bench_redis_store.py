"""Bench of the table store in Redis (gamenight.tables.redis_store): what a durable, fenced move costs.

A real redis-server of its own (Debian's, on a Unix socket in a temp dir, as the tests start it), once
per persistence mode: none, the append-only file synced every second, and synced on every write.
For each:

* **one authority**: ``--tables`` tables, each with its lease, ``--moves`` moves each, appended one
  after another and each awaited (a table shows a move only once its append has returned): the
  append's round trip (median, p95) and appends per second;
* **many authorities**: the same tables each appending concurrently (one task per table, each awaiting
  its own appends): appends per second in all;
* **append + read**: an append, then the table read back whole (``load``: epoch, lease, state and the
  log, validated) -- a failover's or a relaying front end's read;
* **per move**: Redis commands (``INFO commandstats`` deltas, the script's inner commands counted),
  bytes sent to Redis and back (``INFO stats``), the log's memory (``MEMORY USAGE``), and
  redis-server's CPU time (``/proc``).

Run:  .venv/bin/python bench/bench_redis_store.py [--tables 20] [--moves 100] [--modes none,everysec,always]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "core"))
sys.path.insert(0, str(ROOT))

import redis.asyncio  # noqa: E402
from gamenight.tables.redis_store import LogEntry, RedisTableStore, TableState  # noqa: E402
from timing import percentile  # noqa: E402  (bench/timing.py: this script's folder is on sys.path)

from tests.core.tables.redis_server import RedisServer  # noqa: E402

ACTION = "play:7H"  # a typical SEVEN action (Mille's and Yatzy's are as short)


async def command_stats(client: redis.asyncio.Redis) -> dict[str, int]:
    stats = await client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(value["calls"]) for name, value in stats.items()}


async def net_bytes(client: redis.asyncio.Redis) -> tuple[int, int]:
    stats = await client.info("stats")
    return int(stats["total_net_input_bytes"]), int(stats["total_net_output_bytes"])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run_mode(mode: str, tables: int, moves: int) -> dict[str, object]:
    server = RedisServer(appendonly=mode != "none", fsync=mode if mode != "none" else "everysec")
    server.start()
    assert server.process is not None
    store = RedisTableStore.connect(server.url)
    raw = redis.asyncio.Redis.from_url(server.url)
    try:
        ids = [f"b{n}" for n in range(tables)]
        epochs = {table: await store.acquire(table, "bench-host", 600) for table in ids}
        for table in ids:
            await store.save_state(table, epochs[table], TableState(game="seven", document="x" * 2000))

        # One authority, appends one after another.
        before_stats, before_net, before_cpu = (
            await command_stats(raw),
            await net_bytes(raw),
            cpu_seconds(server.process.pid),
        )
        times = []
        start = time.perf_counter()
        for seq in range(moves):
            for table in ids:
                t0 = time.perf_counter()
                await store.append(table, epochs[table], LogEntry(seq=seq, seat=seq % 5, action=ACTION, at=time.time()))
                times.append((time.perf_counter() - t0) * 1000)
        sequential_wall = time.perf_counter() - start
        after_stats, after_net, after_cpu = (
            await command_stats(raw),
            await net_bytes(raw),
            cpu_seconds(server.process.pid),
        )
        count = moves * tables
        commands = {
            name: after_stats[name] - before_stats.get(name, 0)
            for name in after_stats
            if name not in ("info",) and after_stats[name] != before_stats.get(name, 0)
        }
        memory = [await raw.memory_usage(store.keys(table)["log"], samples=0) for table in ids]

        # Many authorities at once: each table's task awaits its own appends.
        for table in ids:
            await store.save_state(table, epochs[table], TableState(game="seven", document="x" * 2000))

        async def play(table: str) -> None:
            for seq in range(moves):
                await store.append(table, epochs[table], LogEntry(seq=seq, seat=seq % 5, action=ACTION))

        start = time.perf_counter()
        await asyncio.gather(*(play(table) for table in ids))
        concurrent_wall = time.perf_counter() - start

        # Append, then the table read back whole.
        for table in ids:
            await store.save_state(table, epochs[table], TableState(game="seven", document="x" * 2000))
        round_trips = []
        for seq in range(moves):
            table = ids[seq % len(ids)]
            t0 = time.perf_counter()
            await store.append(table, epochs[table], LogEntry(seq=seq // len(ids), seat=0, action=ACTION))
            stored = await store.load(table)
            round_trips.append((time.perf_counter() - t0) * 1000)
            assert stored.log[-1].seq == seq // len(ids)
        return {
            "mode": mode,
            "append_median": statistics.median(times),
            "append_p95": percentile(times, 0.95),
            "sequential_rate": count / sequential_wall,
            "concurrent_rate": count / concurrent_wall,
            "rt_median": statistics.median(round_trips),
            "rt_p95": percentile(round_trips, 0.95),
            "commands": {name: calls / count for name, calls in sorted(commands.items())},
            "net_in": (after_net[0] - before_net[0]) / count,
            "net_out": (after_net[1] - before_net[1]) / count,
            "memory": sum(memory) / count,
            "cpu_us": (after_cpu - before_cpu) / count * 1e6,
        }
    finally:
        await store.close()
        await raw.aclose()
        server.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--moves", type=int, default=100)
    parser.add_argument("--modes", default="none,everysec,always")
    args = parser.parse_args()
    print(f"redis-server {os.popen('redis-server --version').read().split()[2]}, load {os.getloadavg()[0]:.1f}")
    print(f"{args.tables} tables x {args.moves} moves per mode\n")
    print(
        "| persistence | append median / p95 | appends/s, one after another | appends/s, tables at once |"
        " append + load median / p95 | Redis CPU per move |"
    )
    print("|---|---|---|---|---|---|")
    results = [asyncio.run(run_mode(mode, args.tables, args.moves)) for mode in args.modes.split(",")]
    for r in results:
        print(
            f"| {r['mode']} | {r['append_median']:.3f} / {r['append_p95']:.3f} ms | {r['sequential_rate']:,.0f} |"
            f" {r['concurrent_rate']:,.0f} | {r['rt_median']:.3f} / {r['rt_p95']:.3f} ms | {r['cpu_us']:.0f} µs |"
        )
    print()
    for r in results:
        commands = ", ".join(f"{name} {calls:.2f}" for name, calls in r["commands"].items())
        print(
            f"- {r['mode']}: per move {r['net_in']:.0f} B to Redis, {r['net_out']:.0f} B back,"
            f" {r['memory']:.0f} B of log in memory; commands: {commands}"
        )


if __name__ == "__main__":
    main()
