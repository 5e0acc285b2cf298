"""Bench of the table caps and private codes across hosts (``serve-ssh --tables-url``).

Two table services ("host A", "host B") in this process on one redis-server of their own (Debian's, on a
Unix socket in a temp dir, as the tests start it; no persistence), Nim tables (the tables tests' game).
Figures, each a median with its IQR over ``--runs`` tries, one at a time:

* **open**: a room writing ``OpenTable`` → its first snapshot, on host B, with the caps counted on every host
  (one admission script) and with them off (``_caps`` unset: each host's own caps only, as before);
* **code**: a room on host B writing ``Join(code=...)`` for a private table host A runs → its seat's
  snapshot (the code's try counted, its hash looked up, the room relayed to host A);
* **look**: the CPU of one look at this host's counts and kept games (``_own_counts`` and the kept games'
  entries) with ``--solo`` kept solo games and ``--tables`` open tables on the host (done every second).

Run:  .venv/bin/python bench/bench_shared_caps.py [--runs 200] [--solo 500] [--tables 200]
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
sys.path.insert(0, str(ROOT / "bench"))

from gamenight.tables import protocol as p  # noqa: E402
from gamenight.tables.service import TableService  # noqa: E402
from gamenight.tables.shared_caps import field, kept_entry  # noqa: E402
from timing import percentile  # noqa: E402

from tests.core.tables.conftest import FAST, NIM_REGISTRY, connect  # noqa: E402
from tests.core.tables.redis_server import RedisServer  # noqa: E402

TWO = [p.SeatSpec("person"), p.SeatSpec("person")]
SOLO = [p.SeatSpec("person"), p.SeatSpec("bot", "first")]


def line(label: str, values: list[float], unit: str = "ms") -> str:
    ms = sorted(values)
    q1, q3 = percentile(ms, 0.25), percentile(ms, 0.75)
    return f"  {label}: {len(ms)} runs, median {statistics.median(ms):.2f} {unit} (IQR {q1:.2f}-{q3:.2f})"


async def open_times(host: TableService, runs: int, tag: str) -> list[float]:
    times = []
    for n in range(runs):
        room = await connect(host, f"key:{tag}{n}", f"{tag}{n}")
        began = time.perf_counter()
        await room.send(p.OpenTable("nim", TWO, {"sticks": 9}))
        await room.wait_for(lambda c: c.snapshot, timeout=30)
        times.append((time.perf_counter() - began) * 1000)
        await room.send(p.Leave())
        await room.close()
    return times


async def code_times(a: TableService, b: TableService, runs: int) -> list[float]:
    times = []
    for n in range(runs):
        ann = await connect(a, f"key:cann{n}", f"cann{n}")
        await ann.send(p.OpenTable("nim", TWO, {"sticks": 9}, public=False))
        snap = await ann.wait_for(lambda c: c.snapshot, timeout=30)
        while not await b._caps.lookup(snap.code):  # filed for every host (written after the snapshot)
            await asyncio.sleep(0.001)
        ben = await connect(b, f"key:cben{n}", f"cben{n}")
        began = time.perf_counter()
        await ben.send(p.Join("", code=snap.code))
        await ben.wait_for(lambda c: c.snapshot, timeout=30)
        times.append((time.perf_counter() - began) * 1000)
        for room in (ben, ann):
            await room.send(p.Leave())
            await room.close()
    return times


async def look_times(host: TableService, solo: int, tables: int, runs: int) -> tuple[list[float], int]:
    rooms = []
    for n in range(solo):
        room = await connect(host, f"key:solo{n}", f"solo{n}")
        await room.send(p.OpenTable("nim", SOLO, {"sticks": 9}, solo=True))
        await room.wait_for(lambda c: c.snapshot, timeout=30)
        rooms.append(room)
    for n in range(tables):
        room = await connect(host, f"key:open{n}", f"open{n}")
        await room.send(p.OpenTable("nim", TWO, {"sticks": 9}))
        await room.wait_for(lambda c: c.snapshot, timeout=30)
        rooms.append(room)
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        host._own_counts()
        for table in host.tables.values():  # what _write_kept computes before it compares
            if table.solo and not table.match.over:
                kept_entry(host.host_id, table.opened, host._info(table))
                field("k", table.host)
        times.append((time.perf_counter() - began) * 1000)
    count = len(host.tables)
    for room in rooms:
        await room.close()
    return times, count


async def main_async(args: argparse.Namespace) -> int:
    server = RedisServer()
    server.start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            hosts = []
            for name in ("host-a", "host-b"):
                service = TableService(
                    NIM_REGISTRY, Path(folder) / name, message_rate=FAST, tables_url=server.url, host_id=name
                )
                await service.start()
                hosts.append(service)
            a, b = hosts
            shared = await open_times(b, args.runs, "on")
            codes = await code_times(a, b, args.runs)
            caps, b._caps = b._caps, None
            alone = await open_times(b, args.runs, "off")
            b._caps = caps
            looks, count = await look_times(b, args.solo, args.tables, args.runs)
            for service in hosts:
                await service.close()
    finally:
        server.cleanup()
    print("open: OpenTable → first snapshot on host B")
    print(line("caps on every host", shared))
    print(line("each host's own caps", alone))
    print("code: Join(code) on host B → seat's snapshot, the table on host A")
    print(line("by code, relayed", codes))
    print(f"look: one look at the counts and kept games, {count} tables on the host")
    print(line("CPU per look", looks))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--solo", type=int, default=500)
    parser.add_argument("--tables", type=int, default=200)
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
