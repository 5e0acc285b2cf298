"""Bench of table spam at the table service: how many tables drive-by openers get, and whether an
honest opening still finds room.

``--addresses`` client addresses, each with ``--keys`` identities (SSH keys).  Each identity
opens a SEVEN table for two people ``--rounds`` times, starts it at once (the table's bots take
the free seat) and leaves it (a bot takes the host's seat too), then opens one more and stays
seated at it (the table waits for its second person).  Then one connection opens ``--drive-by``
tables, leaving each at once.  Last, an honest person from another address opens a table.  The
service runs in this process on the real protocol (socketpairs, as the server gives rooms).
Figures: tables open at the end, refusals by reason, the honest opening's answer, wall time.

Run:  .venv/bin/python bench/bench_tables_spam.py [--addresses 3] [--keys 20] [--rounds 4] [--drive-by 250]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import logging
import socket
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "core"))

from gamenight.plugins import load_registry
from gamenight.tables import protocol as p
from gamenight.tables.client import TableClient
from gamenight.tables.service import TableService

TWO_PEOPLE = [p.SeatSpec("person"), p.SeatSpec("person")]


async def connect(service: TableService, identity: str, address: str) -> TableClient:
    ours, theirs = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=theirs)
    try:
        serving = service.serve(reader, writer, identity, identity[:16], address)
    except TypeError:  # a service from before the address was passed
        serving = service.serve(reader, writer, identity, identity[:16])
    asyncio.get_running_loop().create_task(serving)
    client = TableClient(*(await asyncio.open_connection(sock=ours)))
    client.keep_all = True
    await client.connect()
    await client.wait_for(lambda c: c.name)
    return client


async def open_table(client: TableClient, seen: set[str]) -> p.Snapshot | p.Error:
    """Open a table: its first snapshot (of a table not ``seen`` before), or the refusal."""
    before = len(client.received)
    await client.send(p.OpenTable("seven", TWO_PEOPLE))

    def answer(c: TableClient) -> p.Snapshot | p.Error | None:
        for m in c.received[before:]:
            if (isinstance(m, p.Error) and m.code != "not-host") or (
                isinstance(m, p.Snapshot) and m.table.table not in seen
            ):
                return m
        return None

    got = await client.wait_for(answer)
    if isinstance(got, p.Snapshot):
        seen.add(got.table.table)
    return got


async def main_async(args: argparse.Namespace) -> int:
    registry = load_registry()
    refusals: collections.Counter[str] = collections.Counter()
    opened = 0
    seen: set[str] = set()
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as data:
        service = TableService(registry, Path(data), seed=1, message_rate=(1000.0, 1000.0))
        await service.start()
        started = time.perf_counter()
        clients = []
        for a in range(args.addresses):
            for k in range(args.keys):
                client = await connect(service, f"key:{a}-{k}", f"10.0.0.{a + 1}")
                clients.append(client)
                for round_ in range(args.rounds + 1):
                    answer = await open_table(client, seen)
                    if isinstance(answer, p.Error):
                        refusals[answer.code] += 1
                        continue
                    opened += 1
                    if round_ < args.rounds:
                        await client.send(p.Start())
                        await client.send(p.Leave())
        drive_by = await connect(service, "key:drive-by", "10.0.0.99")
        driven = 0
        for _ in range(args.drive_by):
            try:
                answer = await open_table(drive_by, seen)
            except ConnectionError:  # cut off after too many refusals: a new session goes on
                refusals["cut off"] += 1
                drive_by = await connect(service, "key:drive-by", "10.0.0.99")
                continue
            if isinstance(answer, p.Error):
                refusals[answer.code] += 1
            else:
                driven += 1
                await drive_by.send(p.Leave())
        honest = await connect(service, "key:honest", "192.0.2.7")
        answer = await open_table(honest, seen)
        elapsed = time.perf_counter() - started
        left = len(service.tables)
        await service.close()
    print(
        f"{args.addresses} addresses x {args.keys} keys x {args.rounds + 1} openings, then {args.drive_by} drive-by "
        f"openings; wall {elapsed:.1f} s"
    )
    print(f"tables opened by the keys {opened} of {args.addresses * args.keys * (args.rounds + 1)}; drive-by {driven}")
    print(f"refusals: {dict(refusals) or 'none'}")
    print(f"tables open at the end {left}")
    honest_text = "a table" if isinstance(answer, p.Snapshot) else f"refused ({answer.code})"
    print(f"honest OpenTable from another address: {honest_text}")
    return 0 if isinstance(answer, p.Snapshot) else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--addresses", type=int, default=3)
    parser.add_argument("--keys", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--drive-by", type=int, default=250)
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # every refusal is a log line: thousands here
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    raise SystemExit(main())
