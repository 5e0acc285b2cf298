"""Bench of the relay between hosts (``serve-ssh --tables-url``): a move → the other person's client when the
two persons' rooms are on two hosts.

Two table services ("host A" runs every table, "host B" only relays) in this process on one redis-server of
their own (Debian's, on a Unix socket in a temp dir, as the tests start it; no persistence), ``--tables``
two-seat Nim tables (the tables tests' game: the relay's cost, not a game's), ann's room on A and ben's on B,
each taking one stick in turn, ``--moves`` moves a table, all tables at once.  Figure: a client writing its
Move → the *other* person's client receiving the snapshot after it (ann → ben crosses A → Redis outbox → B; ben
→ ann crosses B → Redis inbox → A), median, IQR, p95, p99, and every move landed in order (the store's log
equals the moves sent), Redis's commands a move and its most connections; then ``--joins`` rooms on B asking
for a seat at a full table, each at a random moment of B's blocking read: Join → its first frame (the
refusal).  The clients run on the same event loop as both services.

Run:  .venv/bin/python bench/bench_relay.py [--tables 20] [--moves 40] [--joins 20]  (a Nim table has 40 sticks at most)
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "core"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from gamenight.tables import protocol as p  # noqa: E402
from gamenight.tables.service import TableService  # noqa: E402
from timing import percentile  # noqa: E402

from tests.core.tables.conftest import FAST, NIM_REGISTRY, connect  # noqa: E402
from tests.core.tables.redis_server import RedisServer  # noqa: E402


async def one_table(a: TableService, b: TableService, n: int, moves: int, crossed: dict[str, list[float]]) -> bool:
    ann = await connect(a, f"key:ann{n}", f"ann{n}")
    await ann.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("person")], {"sticks": moves}))
    table_id = (await ann.wait_for(lambda c: c.snapshot or c.errors)).table.table
    ben = await connect(b, f"key:ben{n}", f"ben{n}")
    await ben.send(p.Join(table_id))
    await ben.wait_for(lambda c: c.snapshot and c.snapshot.table.status == "playing", timeout=30)
    clients = (ann, ben)
    for turn in range(moves):
        mover, other = clients[turn % 2], clients[(turn + 1) % 2]
        await mover.wait_for(lambda c, t=turn: c.snapshot.turn == t and c.snapshot.legal, timeout=30)
        sent = time.perf_counter()
        await mover.send(p.Move("1", turn))
        await other.wait_for(lambda c, t=turn: c.snapshot.turn > t, timeout=30)
        crossed["A→B" if turn % 2 == 0 else "B→A"].append(time.perf_counter() - sent)
    stored = await a.store.load(table_id)
    await ann.close()
    await ben.close()
    return table_id not in b.tables and stored is not None


async def first_frames(a: TableService, b: TableService, joins: int) -> list[float]:
    """Rooms on B asking one by one for a seat at a full table A runs (refused ``no-seat``: that frame goes
    to the asker's outbox alone, nothing to the others' at the table), each at a random moment of B's
    blocking read: a room's Join → its first frame."""
    rng = random.Random(1)
    ann = await connect(a, "key:ann-full", "ann")
    await ann.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("person")], {"sticks": 10}))
    table_id = (await ann.wait_for(lambda c: c.snapshot or c.errors)).table.table
    ben = await connect(b, "key:ben-full", "ben")
    await ben.send(p.Join(table_id))
    await ben.wait_for(lambda c: c.snapshot and c.snapshot.table.status == "playing", timeout=30)
    delays, clients = [], []
    for n in range(joins):
        await asyncio.sleep(rng.uniform(0.0, 1.0))  # (a read blocks up to 1 s)
        client = await connect(b, f"key:late{n}", f"late{n}")
        sent = time.perf_counter()
        await client.send(p.Join(table_id))
        await client.wait_for(lambda c: c.errors, timeout=30)
        delays.append(time.perf_counter() - sent)
        clients.append(client)
    for client in (ann, ben, *clients):
        await client.close()
    return delays


async def commands(host: TableService) -> int:
    """Commands Redis has run so far (INFO commandstats; the INFO calls themselves are in it)."""
    stats = await host.store.client.info("commandstats")
    return sum(int(v["calls"]) for v in stats.values())


async def sample_clients(host: TableService, peak: list[int]) -> None:
    """The most clients Redis had connected, sampled every 0.1 s (one of them the sampler's own)."""
    while True:
        clients = int((await host.store.client.info("clients"))["connected_clients"])
        peak[0] = max(peak[0], clients)
        await asyncio.sleep(0.1)


async def main_async(args: argparse.Namespace) -> int:
    server = RedisServer()
    server.start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            hosts = []
            for name in ("host-a", "host-b"):
                service = TableService(
                    NIM_REGISTRY,
                    Path(folder) / name,
                    message_rate=FAST,
                    tables_url=server.url,
                    host_id=name,
                    tables_per_address=10_000,
                )
                await service.start()
                hosts.append(service)
            a, b = hosts
            crossed: dict[str, list[float]] = {"A→B": [], "B→A": []}
            calls_before = await commands(a)
            peak = [0]
            sampler = asyncio.create_task(sample_clients(a, peak))
            began = time.perf_counter()
            results = await asyncio.gather(*(one_table(a, b, n, args.moves, crossed) for n in range(args.tables)))
            took = time.perf_counter() - began
            sampler.cancel()
            calls = await commands(a) - calls_before
            late = await first_frames(a, b, args.joins) if args.joins else []
            for service in hosts:
                await service.close()
    finally:
        server.cleanup()
    every = crossed["A→B"] + crossed["B→A"]
    print(f"{args.tables} tables x {args.moves} moves, every move relayed across two hosts in {took:.1f} s")
    for label, values in (*crossed.items(), ("all", every)):
        ms = sorted(v * 1000 for v in values)
        q1, q3 = percentile(ms, 0.25), percentile(ms, 0.75)
        print(
            f"  {label}: {len(ms)} moves, median {statistics.median(ms):.1f} ms (IQR {q1:.1f}-{q3:.1f}), "
            f"p95 {percentile(ms, 0.95):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms"
        )
    print(f"  every table ran on host A only: {all(results)}")
    if late:
        ms = sorted(v * 1000 for v in late)
        print(
            f"  a room joining while B's read blocks → its first frame: {len(ms)} joins, median"
            f" {statistics.median(ms):.1f} ms, max {ms[-1]:.1f} ms"
        )
    moves = max(len(every), 1)
    print(f"  Redis: {calls} commands in all, {calls / moves:.1f} a move; at most {peak[0]} connections (both hosts)")
    return 0 if all(results) and len(every) == args.tables * args.moves else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--moves", type=int, default=40, choices=range(2, 41), metavar="2..40")
    parser.add_argument("--joins", type=int, default=20, help="rooms joining late, for the first-frame figure")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
