"""The server-wide records on SQLite and on PostgreSQL: a record written, the hall of fame read.

    .venv/bin/python bench/bench_records_backends.py --games 5000 --runs 300

For each engine, a fresh database is filled with ``--games`` synthetic finished games (Yatzy,
SEVEN with five seats, Mille; an 80-move log each; through ``add_many``), then timed, ``--runs``
times each, alternating:

1. **record**: ``add`` of one more finished game with its server game key (what the table
   service does for each finished table: the insert, the log, the rating update, the running
   totals, the commit);
2. **hall**: what the service reads to answer a hall of fame query -- the ten best scores of a
   game (``hall_high_scores``) and the ten latest games with their seats (``hall_recent``).

SQLite is a file in a temp dir (WAL, ``synchronous=NORMAL``, as the server opens it).
PostgreSQL is a throwaway cluster started here (``tests/core/records/pg_cluster.py``: initdb,
a unix socket in a temp dir, run as ``nobody`` when root) with PostgreSQL's own durable
defaults (fsync, synchronous commit), reached through the store's psycopg pool; or ``--url``
for a database of your own (it must be empty, or hold only gamenight's records).  Prints
median, IQR, p95 and max in milliseconds as a Markdown table.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the tests' throwaway cluster

from bench_records import synthetic  # noqa: E402
from gamenight.records.backends import open_records  # noqa: E402
from gamenight.records.store import RecordsStore  # noqa: E402

from tests.core.records import pg_cluster  # noqa: E402


def stats(times: list[float]) -> str:
    q1, _median, q3 = statistics.quantiles(times, n=4)
    p95 = statistics.quantiles(times, n=20)[-1]
    return f"**{statistics.median(times):.2f} ms** | {q1:.2f}–{q3:.2f} ms | {p95:.2f} ms | {max(times):.2f} ms"


def fill(store: RecordsStore, games: int) -> None:
    rng = random.Random(1)
    batch = 500
    for start in range(0, games, batch):
        store.add_many([synthetic(number, rng) for number in range(start, min(games, start + batch))])


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def bench(store: RecordsStore, games: int, runs: int) -> tuple[list[float], list[float]]:
    rng = random.Random(2)
    writes, reads = [], []
    for run in range(runs):
        record = replace(synthetic(games + run, rng), server_game=f"bench/{run}/{rng.getrandbits(64):x}")
        writes.append(timed(lambda record=record: store.add(record)))
        game = ("yatzy", "seven", "mille")[run % 3]
        reads.append(timed(lambda game=game: (store.hall_high_scores(game, 10), store.hall_recent(10))))
    return writes, reads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=5000, help="games in each database before timing")
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--url", help="a PostgreSQL database of your own instead of a throwaway cluster")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        sqlite = open_records(Path(folder) / "records.sqlite3")
        started = time.perf_counter()
        fill(sqlite, args.games)
        filled_sqlite = time.perf_counter() - started
        writes, reads = bench(sqlite, args.games, args.runs)
        sqlite.close()
        rows += [("SQLite", "record one game (`add`)", writes), ("SQLite", "hall of fame query", reads)]

        def on_postgres(url: str) -> float:
            store = open_records(url)
            started = time.perf_counter()
            fill(store, args.games)
            filled = time.perf_counter() - started
            writes, reads = bench(store, args.games, args.runs)
            store.close()
            rows.extend(
                [("PostgreSQL", "record one game (`add`)", writes), ("PostgreSQL", "hall of fame query", reads)]
            )
            return filled

        if args.url:
            filled_postgres = on_postgres(args.url)
        else:
            with pg_cluster.running_cluster(durable=True) as cluster:
                filled_postgres = on_postgres(cluster.new_database())
    print(f"{args.games} games filled in {filled_sqlite:.1f} s (SQLite), {filled_postgres:.1f} s (PostgreSQL)")
    print(f"{args.runs} runs each\n")
    print("| engine | what | median | IQR | p95 | max |")
    print("|---|---|---|---|---|---|")
    for engine, what, times in rows:
        print(f"| {engine} | {what} | {stats(times)} |")


if __name__ == "__main__":
    main()
