"""Bench of a Redis restart mid-game (``serve-ssh --tables-url``): Redis answers again → the move held
while it was away is accepted and shown.

Two table services ("host A", "host B") in this process on one redis-server of their own (Debian's, on a
Unix socket in a temp dir, append-only with ``appendfsync always``, as the restart tests start it), with
the default retry (``authority.STORE_RETRY``, ``relay.STORE_RETRY``: 0.5 s) and lease.  Ann's room is on
host A, which runs a two-seat Nim table; Ben's is on host B, relayed to A.  Each run: Redis is stopped
(SIGTERM), the player to move moves (held: at A for Ann, at B for Ben) and is told the table waits, Redis
is started again on the same socket and data dir; the figure is from Redis answering PING again to the
mover's client showing the move (its snapshot's turn moved on): ``back → move shown``, for Ann's moves
(held at the table's host) and Ben's (held at the relaying host), median, spread, max.  Redis is started
as soon as the mover is told the table waits, so the host has just begun its wait before the next try:
the figure is close to the worst case, one retry interval (an outage of random length waits half of it on
average).

Run:  .venv/bin/python bench/bench_redis_restart.py [--runs 10]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "core"))
sys.path.insert(0, str(ROOT))

from gamenight.tables import authority, relay  # noqa: E402
from gamenight.tables import protocol as p  # noqa: E402
from gamenight.tables.service import TableService  # noqa: E402

from tests.core.tables.conftest import FAST, NIM_REGISTRY, connect  # noqa: E402
from tests.core.tables.redis_server import RedisServer  # noqa: E402


def host(url: str, folder: Path, name: str) -> TableService:
    return TableService(
        NIM_REGISTRY, folder / name, bot_time_budget=0.2, message_rate=FAST, tables_url=url, host_id=name
    )


async def main_async(args: argparse.Namespace) -> int:
    logging.getLogger("gamenight.tables").setLevel(logging.ERROR)  # (each outage is logged: not the figure)
    server = RedisServer(appendonly=True, fsync="always")
    server.start()
    times: dict[str, list[float]] = {"ann (held at the table's host A)": [], "ben (held at host B, relayed)": []}
    try:
        with tempfile.TemporaryDirectory() as folder:
            a, b = host(server.url, Path(folder), "host-a"), host(server.url, Path(folder), "host-b")
            await a.start()
            await b.start()
            try:
                ann = await connect(a, "key:ann", "ann")
                sticks = 30  # (the most Nim takes: 14 runs at most)
                await ann.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("person")], {"sticks": sticks}))
                table_id = (await ann.wait_for(lambda c: c.snapshot)).table.table
                ben = await connect(b, "key:ben", "ben")
                await ben.send(p.Join(table_id))
                await ben.wait_for(lambda c: c.snapshot and c.snapshot.table.status == "playing")
                for run in range(2 * args.runs):
                    turn = len(a.tables[table_id].match.log)
                    mover, label = (ann, "ann (held at the table's host A)") if turn % 2 == 0 else (ben, "")
                    label = label or "ben (held at host B, relayed)"
                    await mover.wait_for(lambda c, t=turn: c.snapshot.turn == t and c.snapshot.legal, timeout=30)
                    await asyncio.sleep(0.3)  # the lobby's and the relay's reads settle
                    told = len([e for e in mover.errors if e.code == "store-down"])
                    server.stop()
                    await mover.send(p.Move("1", turn))
                    await mover.wait_for(
                        lambda c, n=told: len([e for e in c.errors if e.code == "store-down"]) > n, timeout=30
                    )
                    server.start()  # returns once Redis answers PING
                    back = time.perf_counter()
                    await mover.wait_for(lambda c, t=turn: c.snapshot.turn > t, timeout=60)
                    times[label].append(time.perf_counter() - back)
                    print(f"run {run + 1}: {label}: shown {times[label][-1] * 1000:.0f} ms after Redis was back")
            finally:
                await asyncio.wait_for(a.close(), 10)
                await asyncio.wait_for(b.close(), 10)
    finally:
        server.cleanup()
    print(
        f"retry {authority.STORE_RETRY} s (table's host), {relay.STORE_RETRY} s (relaying host), {args.runs} runs each"
    )
    for name, values in times.items():
        values = [v * 1000 for v in values]
        quartiles = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
        print(
            f"| {name} | {statistics.median(values):.0f} ms | {quartiles[0]:.0f}–{quartiles[2]:.0f} ms | "
            f"{min(values):.0f} ms | {max(values):.0f} ms |"
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10, choices=range(1, 15), metavar="1..14")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
