"""Bench of the shared-table service (phase 1: headless, the real protocol).

``--tables`` SEVEN tables of five seats, every seat a simulated client playing
random legal moves after a short "think" (``--think`` seconds, uniform from
half to one and a half of it; 0 = machine speed).  The service runs in this
process; the clients run in a forked child on their own event loop, each on
one end of a socketpair (as a hosted room would be), so the service's CPU
time is its own.  Figures:

* latency: from a client writing its Move to each *other* seat's client
  receiving the move's Event (both stamps in the child, one clock);
* the service's CPU time and memory (RSS growth) per table;
* nothing lost: each client's last snapshot equals the service's view of its
  seat, and each client got one Event per move of the log.

Run:  .venv/bin/python bench/bench_tables.py [--tables 20] [--deals 1] [--think 0.1]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "core"))

from gamenight.plugins import load_registry
from gamenight.tables import protocol as p
from gamenight.tables.client import TableClient
from gamenight.tables.service import TableService

SEATS = 5


def rss_kib() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


# -- the clients (child process) ---------------------------------------------------------------


async def seat_player(client: TableClient, rng: random.Random, think: float, sent: dict, done: asyncio.Event) -> None:
    answered = -1
    while True:

        def ready(c, answered=answered):
            snap = c.snapshot
            if snap is None:
                return None
            return snap if snap.table.status == "over" or (snap.legal and snap.turn != answered) else None

        snap = await client.wait_for(ready, timeout=300)
        if snap.table.status == "over":
            return
        if think:
            await asyncio.sleep(rng.uniform(think / 2, think * 1.5))
            if client.snapshot is not snap and client.snapshot.turn != snap.turn:
                continue
        answered = snap.turn
        sent[(snap.table.table, snap.turn + 1)] = time.perf_counter()
        await client.send(p.Move(rng.choice(snap.legal), snap.turn))


async def run_clients(socks: list[socket.socket], tables: int, think: float, seed: int, out: socket.socket) -> None:
    clients: list[TableClient] = []
    received: list[tuple[str, int, int, float]] = []  # (table, turn, receiving seat, time)
    for sock in socks:
        reader, writer = await asyncio.open_connection(sock=sock)
        client = TableClient(reader, writer)
        clients.append(client)
        await client.connect()

    def listener(seat_box):
        def hear(message):
            if isinstance(message, p.Event) and message.seat >= 0 and message.seat != seat_box[0]:
                received.append((message.table, message.turn, seat_box[0], time.perf_counter()))

        return hear

    seats_of: list[list[int]] = []
    for index, client in enumerate(clients):
        box = [index % SEATS]
        seats_of.append(box)
        client.listeners.append(listener(box))
    sent: dict[tuple[str, int], float] = {}
    done = asyncio.Event()
    rng = random.Random(seed)
    ids = []
    for t in range(tables):
        host = clients[t * SEATS]
        await host.send(p.OpenTable("seven", [p.SeatSpec("person")] * SEATS))
        snap = await host.wait_for(lambda c: c.snapshot)
        ids.append(snap.table.table)
        for s in range(1, SEATS):
            await clients[t * SEATS + s].send(p.Join(snap.table.table, s))
    await asyncio.gather(*(c.wait_for(lambda c: c.snapshot and c.snapshot.table.status != "waiting") for c in clients))
    started = time.perf_counter()
    await asyncio.gather(*(seat_player(c, random.Random(rng.random()), think, sent, done) for c in clients))
    elapsed = time.perf_counter() - started
    await asyncio.sleep(0.3)
    latencies = []
    for table, turn, _seat, when in received:
        if (table, turn) in sent:
            latencies.append(when - sent[(table, turn)])
    finals = [
        {
            "table": c.snapshot.table.table,
            "seat": c.snapshot.seat,
            "view": c.snapshot.view,
            "turn": c.snapshot.turn,
            "events": len(c.events),
            "log": c.log,
            "errors": [e.code for e in c.errors],
        }
        for c in clients
    ]
    report = msgspec.msgpack.encode({"latencies": latencies, "finals": finals, "elapsed": elapsed, "moves": len(sent)})
    out.sendall(len(report).to_bytes(8, "big") + report)
    for client in clients:
        await client.close()


# -- the service (this process) ------------------------------------------------------------


async def serve(service: TableService, socks: list[socket.socket]) -> list[asyncio.Task[None]]:
    tasks = []
    for index, sock in enumerate(socks):
        reader, writer = await asyncio.open_connection(sock=sock)
        tasks.append(asyncio.create_task(service.serve(reader, writer, f"bench:{index}", f"P{index}")))
    return tasks


def receive_report(sock: socket.socket) -> dict:
    sock.setblocking(True)
    size = int.from_bytes(_read(sock, 8), "big")
    return msgspec.msgpack.decode(_read(sock, size))


def _read(sock: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the clients' process died")
        data += chunk
    return bytes(data)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def lost_clients(service: TableService, finals: list[dict]) -> list[tuple[int, int, int, int, int]]:
    """The clients whose last view, move count, Event count or log differ from the service's table:
    (table, seat, client's turn, table's moves, client's Events) for each."""
    lost = []
    for final in finals:
        table = service.tables[final["table"]]
        view = msgspec.msgpack.decode(msgspec.msgpack.encode(table.match.view(final["seat"])))
        moves = len(table.match.log)
        log = msgspec.msgpack.decode(msgspec.msgpack.encode(table.descriptions))
        if final["view"] != view or final["turn"] != moves or final["events"] != moves or final["log"] != log:
            lost.append((final["table"], final["seat"], final["turn"], moves, final["events"]))
    return lost


async def main_async(args: argparse.Namespace, pairs, report_parent, pid: int) -> int:
    registry = load_registry()
    rss_before = rss_kib()
    with tempfile.TemporaryDirectory() as data:
        service = TableService(registry, Path(data), seed=args.seed, message_rate=(1000.0, 1000.0), away_timeout=600)
        await service.start()
        cpu_before = resource.getrusage(resource.RUSAGE_SELF)
        tasks = await serve(service, [theirs for _ours, theirs in pairs])
        report = await asyncio.to_thread(receive_report, report_parent)
        rss_peak = rss_kib()
        cpu_after = resource.getrusage(resource.RUSAGE_SELF)
        lost = lost_clients(service, report["finals"])
        total_moves = sum(len(t.match.log) for t in service.tables.values())
        await service.close()
        for task in tasks:
            task.cancel()
    os.waitpid(pid, 0)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    lat = [x * 1000 for x in report["latencies"]]
    quartiles = statistics.quantiles(lat, n=4)
    print(
        f"tables {args.tables} x {SEATS} seats, think {args.think} s, seed {args.seed}, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"moves by people {report['moves']}, all moves incl. chance {total_moves}, "
        f"wall {report['elapsed']:.1f} s, deliveries timed {len(lat)}"
    )
    print(
        f"latency move -> other seats' Event: median {statistics.median(lat):.1f} ms, "
        f"IQR {quartiles[0]:.1f}-{quartiles[2]:.1f} ms, p95 {percentile(lat, 0.95):.1f} ms, "
        f"p99 {percentile(lat, 0.99):.1f} ms, max {max(lat):.1f} ms"
    )
    print(
        f"service CPU {cpu:.2f} s = {cpu / args.tables * 1000:.0f} ms per table "
        f"({cpu / max(1, total_moves) * 1e6:.0f} us per move, {cpu / report['elapsed'] * 100:.0f}% of one core)"
    )
    print(
        f"service RSS {rss_before / 1024:.1f} -> {rss_peak / 1024:.1f} MiB: "
        f"{(rss_peak - rss_before) / args.tables:.0f} KiB per table (socket buffers and saves included)"
    )
    print(f"lost: {len(lost)} of {len(report['finals'])} clients differ from the service {lost[:3]}")
    return 1 if lost else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--think", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
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
