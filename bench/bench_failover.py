"""Bench of failover (``serve-ssh --tables-url``): a host dies while it runs a table → the table accepts its
next move on another host.

Two table services ("host A", "host B") in this process on one redis-server of their own (Debian's, on a
Unix socket in a temp dir, as the tests start it), with the **default** lease (``LEASE_TTL``), renewal and
sweep (``SWEEP_INTERVAL``): what a real pair of hosts runs.  Each run: ann opens a two-seat Nim table against
host A's bot and takes a stick; host A is then killed (every task of its tables cancelled, nothing released,
its connections cut: what SIGKILL leaves behind); ann's client connects again to host B straight away and
retries until host B runs the table and her move is taken.  Figure: the kill → her move accepted on B
(``kill → move``), and of it the kill → host B holding the table (``kill → held``), median, spread, max.

Run:  .venv/bin/python bench/bench_failover.py [--runs 10]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "core"))
sys.path.insert(0, str(ROOT))

from gamenight.tables import authority  # noqa: E402
from gamenight.tables import protocol as p  # noqa: E402
from gamenight.tables.service import TableService  # noqa: E402

from tests.core.tables.conftest import FAST, NIM_REGISTRY, connect  # noqa: E402
from tests.core.tables.redis_server import RedisServer  # noqa: E402
from tests.core.tables.test_authority import kill  # noqa: E402


def host(url: str, folder: Path, name: str) -> TableService:
    return TableService(
        NIM_REGISTRY, folder / name, bot_time_budget=0.2, message_rate=FAST, tables_url=url, host_id=name
    )


async def one_run(url: str, folder: Path, run: int) -> tuple[float, float]:
    a, b = host(url, folder, f"a{run}"), host(url, folder, f"b{run}")
    await a.start()
    await b.start()
    try:
        ann = await connect(a, "key:ann", "ann")
        await ann.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("bot", "first")], {"sticks": 21}))
        table_id = (await ann.wait_for(lambda c: c.snapshot)).table.table
        await ann.wait_for(lambda c: c.snapshot.table.status == "playing" and c.snapshot.legal)
        await ann.send(p.Move("1", 0))
        await ann.wait_for(lambda c: c.snapshot.turn >= 2 and c.snapshot.legal, timeout=30)  # the bot answered
        await asyncio.sleep(0.5)  # past the moves' writes
        killed = time.perf_counter()
        await kill(a)

        async def watch_b() -> float:
            while table_id not in b.tables:
                await asyncio.sleep(0.01)
            return time.perf_counter()

        holding = asyncio.create_task(watch_b())
        while True:
            again = await connect(b, "key:ann", "ann")
            try:
                snap = await again.wait_for(lambda c: c.snapshot if c.snapshot and c.snapshot.legal else None, 1.0)
            except (TimeoutError, ConnectionError):
                await again.close()
                continue
            held = await holding
            turn = snap.turn
            await again.send(p.Move("1", turn))
            await again.wait_for(lambda c, t=turn: c.snapshot.turn > t, timeout=30)
            moved = time.perf_counter()
            await again.close()
            return held - killed, moved - killed
    finally:
        await asyncio.wait_for(b.close(), 10)


async def main_async(args: argparse.Namespace) -> int:
    server = RedisServer()
    server.start()
    held, moved = [], []
    try:
        with tempfile.TemporaryDirectory() as folder:
            for run in range(args.runs):
                h, m = await one_run(server.url, Path(folder), run)
                held.append(h)
                moved.append(m)
                print(f"run {run + 1}: held after {h:.2f} s, move accepted after {m:.2f} s", flush=True)
    finally:
        server.cleanup()
    print(f"lease {authority.LEASE_TTL} s, sweep {authority.SWEEP_INTERVAL} s, {args.runs} runs")
    for name, values in (("kill → held on B", held), ("kill → move accepted on B", moved)):
        quartiles = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
        print(
            f"| {name} | {statistics.median(values):.2f} s | {quartiles[0]:.2f}–{quartiles[2]:.2f} s | "
            f"{min(values):.2f} s | {max(values):.2f} s |"
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
