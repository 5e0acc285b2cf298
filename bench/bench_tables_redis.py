"""Bench of the table service with its tables in Redis (``serve-ssh --tables-url``): what holding each move
until it is durable costs a move's way to the other players, and what each move costs Redis.

The same load as ``bench/bench_tables.py`` (``--tables`` SEVEN tables of five simulated clients on the real
protocol, the clients in a forked process), with the service given a Redis of its own (Debian's
redis-server on a Unix socket in a temp dir, as the tests start it) in the persistence mode ``--redis``
(``none``, ``everysec``, ``always``; ``off``: no Redis, the files as before, for the A/B).  Figures:

* latency: a client writing its Move → each *other* seat's client receiving the move's Event (which the
  service sends only once the move is appended to the table's log in Redis);
* Redis commands per move (``INFO commandstats`` deltas: script calls, and the commands run inside them),
  bytes to and from Redis per move (``INFO stats``), redis-server's CPU per move;
* nothing lost: every client's last view, move count, Event count and log equal the service's, and every
  table's moves are in Redis (its stored state's log and the log since).

Run:  .venv/bin/python bench/bench_tables_redis.py [--tables 20] [--think 0.1] [--seed 1] [--redis everysec]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import socket
import statistics
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "core"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_redis_store import command_stats, cpu_seconds, net_bytes  # noqa: E402
from bench_tables import SEATS, lost_clients, receive_report, run_clients, serve  # noqa: E402
from gamenight.plugins import load_registry  # noqa: E402
from gamenight.tables.service import TableService  # noqa: E402
from timing import percentile  # noqa: E402

from tests.core.tables.redis_server import RedisServer  # noqa: E402


async def stored_moves(service: TableService, table_id: str) -> int:
    stored = await service.store.load(table_id)
    before = len(tomllib.loads(stored.state.document)["match"]["log"]) if stored.state else 0
    return before + len(stored.log)


async def main_async(args: argparse.Namespace, pairs, report_parent, pid: int) -> int:
    import redis.asyncio

    server = None
    if args.redis != "off":
        server = RedisServer(appendonly=args.redis != "none", fsync=args.redis if args.redis != "none" else "everysec")
        server.start()
    try:
        probe = redis.asyncio.Redis.from_url(server.url) if server else None
        with tempfile.TemporaryDirectory() as data:
            service = TableService(
                load_registry(),
                Path(data),
                seed=args.seed,
                message_rate=(1000.0, 1000.0),
                away_timeout=600,
                tables_url=server.url if server else None,
            )
            await service.start()
            stats_before = await command_stats(probe) if probe else {}
            bytes_before = await net_bytes(probe) if probe else (0, 0)
            redis_cpu_before = cpu_seconds(server.process.pid) if server else 0.0
            cpu_before = resource.getrusage(resource.RUSAGE_SELF)
            tasks = await serve(service, [theirs for _ours, theirs in pairs])
            report = await asyncio.to_thread(receive_report, report_parent)
            cpu_after = resource.getrusage(resource.RUSAGE_SELF)
            total_moves = sum(len(t.match.log) for t in service.tables.values())
            while server and any(t.logged < t.applied or t.outbox for t in service.tables.values()):
                await asyncio.sleep(0.05)  # the last states written
            stats_after = await command_stats(probe) if probe else {}
            bytes_after = await net_bytes(probe) if probe else (0, 0)
            redis_cpu = cpu_seconds(server.process.pid) - redis_cpu_before if server else 0.0
            lost = lost_clients(service, report["finals"])
            missing = []
            if server:
                for table in service.tables.values():
                    if await stored_moves(service, table.id) != len(table.match.log):
                        missing.append(table.id)
            await service.close()
            for task in tasks:
                task.cancel()
            if probe:
                await probe.aclose()
    finally:
        if server:
            server.cleanup()
    os.waitpid(pid, 0)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    lat = [x * 1000 for x in report["latencies"]]
    quartiles = statistics.quantiles(lat, n=4)
    print(
        f"redis {args.redis}, tables {args.tables} x {SEATS} seats, think {args.think} s, seed {args.seed}, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(f"moves by people {report['moves']}, all moves incl. chance {total_moves}, wall {report['elapsed']:.1f} s")
    print(
        f"latency move -> other seats' Event: median {statistics.median(lat):.1f} ms, "
        f"IQR {quartiles[0]:.1f}-{quartiles[2]:.1f} ms, p95 {percentile(lat, 0.95):.1f} ms, "
        f"p99 {percentile(lat, 0.99):.1f} ms, max {max(lat):.1f} ms"
    )
    print(f"service CPU {cpu / max(1, total_moves) * 1e6:.0f} us per move")
    if server:
        delta = {name: stats_after.get(name, 0) - stats_before.get(name, 0) for name in stats_after}
        delta = {name: calls for name, calls in delta.items() if calls > 0 and name not in ("info", "ping")}
        per_move = ", ".join(f"{name} {calls / total_moves:.2f}" for name, calls in sorted(delta.items()))
        sent, received = (bytes_after[0] - bytes_before[0]), (bytes_after[1] - bytes_before[1])
        print(f"redis commands per move: {sum(delta.values()) / total_moves:.1f} ({per_move})")
        print(f"redis bytes per move: {sent / total_moves:.0f} sent, {received / total_moves:.0f} back")
        print(f"redis-server CPU {redis_cpu / total_moves * 1e6:.0f} us per move")
        print(f"tables whose moves are not all in redis: {len(missing)}")
    print(f"lost: {len(lost)} of {len(report['finals'])} clients differ from the service {lost[:3]}")
    return 1 if lost or missing else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--think", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--redis", choices=("off", "none", "everysec", "always"), default="everysec")
    args = parser.parse_args()
    pairs = [socket.socketpair() for _ in range(args.tables * SEATS)]
    report_parent, report_child = socket.socketpair()
    pid = os.fork()
    if pid == 0:  # the clients, on their own loop in their own process
        for _ours, theirs in pairs:
            theirs.close()
        report_parent.close()
        try:
            asyncio.run(run_clients([ours for ours, _ in pairs], args.tables, args.think, args.seed, report_child))
        finally:
            os._exit(0)
    for ours, _theirs in pairs:
        ours.close()
    report_child.close()
    return asyncio.run(main_async(args, pairs, report_parent, pid))


if __name__ == "__main__":
    raise SystemExit(main())
