"""Bench of watch/leave churn at the table service: what the lobby's live list and a busy table cost.

``--listers`` clients keep the Tables list open (``ListTables``: the service sends them the list
again whenever a table changes), ``--sitters`` clients watch one SEVEN table for the whole run,
and ``--churners`` clients watch that table and leave it again, together ``--rate`` times a
second (each churner every ``churners / rate`` seconds, staggered).  The table is a waiting one
(its host seated, a second person seat free), so no move changes it: everything the service does
is the churn's.  The service runs in this process, the clients in a forked child on their own
event loop (each on one end of a socketpair, as a hosted room would be), so the service's CPU time
is its own.  Figures: the service's CPU time over the run, as a share of one core; the frames it
sent (snapshots, table lists) and what the clients received; nothing lost (every lister's last
list shows the table's final watcher count).

Run:  .venv/bin/python bench/bench_tables_churn.py [--listers 30] [--sitters 0] [--churners 30]
      [--rate 20] [--seconds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import socket
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

# -- the clients (child process) ---------------------------------------------------------------


async def run_clients(socks: list[socket.socket], args: argparse.Namespace, out: socket.socket) -> None:
    clients = []
    for sock in socks:
        reader, writer = await asyncio.open_connection(sock=sock)
        client = TableClient(reader, writer)
        await client.connect()
        clients.append(client)
    counts = {"lists": 0, "snapshots": 0}

    def counter(message: p.ServiceMessage) -> None:
        if isinstance(message, p.TableList):
            counts["lists"] += 1
        elif isinstance(message, p.Snapshot):
            counts["snapshots"] += 1

    host, rest = clients[0], clients[1:]
    listers = rest[: args.listers]
    sitters = rest[args.listers : args.listers + args.sitters]
    churners = rest[args.listers + args.sitters :]
    await host.send(p.OpenTable("seven", [p.SeatSpec("person"), p.SeatSpec("person"), p.SeatSpec("bot", "random")]))
    table = (await host.wait_for(lambda c: c.snapshot)).table.table
    for client in listers:
        await client.send(p.ListTables())
    for client in sitters:
        await client.send(p.Watch(table))
    await asyncio.gather(*(c.wait_for(lambda c: c.tables) for c in listers))
    await asyncio.gather(*(c.wait_for(lambda c: c.snapshot) for c in sitters))
    for client in clients:
        client.listeners.append(counter)
    period = len(churners) / args.rate if churners else 1.0
    stop = time.monotonic() + args.seconds
    changes = 0

    async def churn(client: TableClient, offset: float) -> None:
        nonlocal changes
        await asyncio.sleep(offset)
        watching = False
        next_at = time.monotonic()
        while time.monotonic() < stop:
            await client.send(p.Leave() if watching else p.Watch(table))
            watching = not watching
            changes += 1
            next_at += period
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
        if watching:
            await client.send(p.Leave())
            changes += 1

    started = time.perf_counter()
    await asyncio.gather(*(churn(c, i * period / len(churners)) for i, c in enumerate(churners)))
    elapsed = time.perf_counter() - started
    await asyncio.sleep(1.0)  # the last list goes out (never lost: the final state reaches every lister)
    finals = [next((t.watchers for t in c.tables if t.table == table), -1) for c in listers]
    report = {"elapsed": elapsed, "changes": changes, "finals": finals, **counts}
    data = msgspec.msgpack.encode(report)
    out.sendall(len(data).to_bytes(8, "big") + data)
    for client in clients:
        await client.close()


# -- the service (this process) ------------------------------------------------------------


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


async def main_async(args: argparse.Namespace, pairs, report_parent, pid: int) -> int:
    registry = load_registry()
    with tempfile.TemporaryDirectory() as data:
        service = TableService(registry, Path(data), seed=1, message_rate=(1000.0, 1000.0), away_timeout=600)
        await service.start()
        tasks = []
        for index, (_ours, theirs) in enumerate(pairs):
            reader, writer = await asyncio.open_connection(sock=theirs)
            tasks.append(asyncio.create_task(service.serve(reader, writer, f"bench:{index}", f"P{index}")))
        cpu_before = resource.getrusage(resource.RUSAGE_SELF)
        report = await asyncio.to_thread(receive_report, report_parent)
        cpu_after = resource.getrusage(resource.RUSAGE_SELF)
        table = next(iter(service.tables.values()))
        final_watchers = sum(c.seat < 0 for c in table.connections)
        await service.close()
        for task in tasks:
            task.cancel()
    os.waitpid(pid, 0)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    print(
        f"listers {args.listers}, sitters {args.sitters}, churners {args.churners} at {args.rate}/s "
        f"for {args.seconds} s; load average {os.getloadavg()[0]:.1f}"
    )
    print(f"changes {report['changes']} in {report['elapsed']:.1f} s")
    print(
        f"received: table lists {report['lists']} ({report['lists'] / max(1, args.listers):.0f} per lister), "
        f"snapshots {report['snapshots']}"
    )
    print(f"service CPU {cpu:.2f} s over the whole run = {cpu / report['elapsed'] * 100:.0f}% of one core")
    lost = [watchers for watchers in report["finals"] if watchers != final_watchers]
    print(f"lost: {len(lost)} of {len(report['finals'])} listers' last list differ from the table")
    return 1 if lost else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--listers", type=int, default=30)
    parser.add_argument("--sitters", type=int, default=0)
    parser.add_argument("--churners", type=int, default=30)
    parser.add_argument("--rate", type=float, default=20.0)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    pairs = [socket.socketpair() for _ in range(1 + args.listers + args.sitters + args.churners)]
    report_parent, report_child = socket.socketpair()
    pid = os.fork()
    if pid == 0:  # the clients, on their own loop in their own process
        for _ours, theirs in pairs:
            theirs.close()
        report_parent.close()
        try:
            asyncio.run(run_clients([ours for ours, _ in pairs], args, report_child))
        finally:
            os._exit(0)
    for ours, _theirs in pairs:
        ours.close()
    report_child.close()
    return asyncio.run(main_async(args, pairs, report_parent, pid))


if __name__ == "__main__":
    raise SystemExit(main())
