"""Cost of a hosted solo game at the table service: one person against a bot, chance and bot on the server.

    .venv/bin/python bench/bench_solo_table.py --runs 10

Each run opens a solo Yatzy table (the person's seat and Greedy) on an
in-process :class:`~gamenight.tables.service.TableService` (data dir in a
temporary folder, records on, ``bot_delay`` 0) and plays it to the end over
the real protocol on a socketpair, the person's moves random legal ones sent
as soon as a snapshot asks: what the service spends on a whole game (moves,
chance draws, bot moves in threads, snapshots, saves after each change, the
record).  Prints the median, IQR and range of the wall time per game and per
person move, in milliseconds, as a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import socket
import statistics
import tempfile
import time
from pathlib import Path

from gamenight.plugins import load_registry
from gamenight.tables import protocol as p
from gamenight.tables.client import TableClient
from gamenight.tables.service import TableService


async def one_game(registry, folder: Path, seed: int) -> tuple[float, int]:
    service = TableService(registry, folder, bot_time_budget=0.2, message_rate=(1000.0, 1000.0))
    await service.start()
    try:
        ours, theirs = socket.socketpair()
        reader, writer = await asyncio.open_connection(sock=theirs)
        asyncio.get_running_loop().create_task(service.serve(reader, writer, "k-ann", "ann"))
        client = TableClient(*await asyncio.open_connection(sock=ours))
        await client.connect()
        await client.wait_for(lambda c: c.name)
        rng = random.Random(seed)
        started = time.perf_counter()
        await client.send(p.OpenTable("yatzy", [p.SeatSpec("person"), p.SeatSpec("bot", "greedy")], solo=True))
        moves, answered = 0, -1
        while True:
            snap = await client.wait_for(
                lambda c, a=answered: (
                    c.snapshot
                    if c.snapshot and (c.snapshot.outcome or (c.snapshot.legal and c.snapshot.turn != a))
                    else None
                ),
                timeout=120,
            )
            if snap.outcome:
                break
            answered = snap.turn
            await client.send(p.Move(rng.choice(snap.legal), snap.turn))
            moves += 1
        elapsed = time.perf_counter() - started
        await client.close()
        return elapsed, moves
    finally:
        await service.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    registry = load_registry()
    games, per_move = [], []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as folder:
            elapsed, moves = asyncio.run(one_game(registry, Path(folder) / "data", run))
        games.append(elapsed * 1000)
        per_move.append(elapsed * 1000 / moves)
    print("| what | median | IQR | range |")
    print("|---|---|---|---|")
    for label, values in (("a whole solo Yatzy game vs Greedy", games), ("per person move", per_move)):
        q = statistics.quantiles(values, n=4)
        print(
            f"| {label} | **{statistics.median(values):.1f} ms** | {q[0]:.1f}–{q[2]:.1f} ms "
            f"| {min(values):.1f}–{max(values):.1f} ms |"
        )


if __name__ == "__main__":
    main()
