"""Bench of what several hosts add to a login: the shared limits in Redis and the guest names in PostgreSQL.

* **limits** (``gamenight.ssh.shared_limits``): one host admits and releases a session (a person and an
  address, the Lua script that adds up every host's counts) while ``H`` other hosts hold counts of their
  own: the round trip of ``admit`` and of ``release`` (median, p5–p95), on a real redis-server on a Unix
  socket (as the tests start it);
* **guest names** (``gamenight.ssh.guests.DatabaseGuestBook``): ``find`` of a bound name and ``bind_key``
  of a new one on a throwaway PostgreSQL cluster (Unix socket, fsync off, as the tests start it), with
  ``N`` names bound already.

Run:  .venv/bin/python bench/bench_shared_identity.py [--logins 400] [--hosts 1,4,16] [--names 5000]
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

from gamenight.ssh.shared_limits import SharedLimits, address_field, user_field  # noqa: E402
from timing import percentile  # noqa: E402  (bench/timing.py)

from tests.core.tables.redis_server import RedisServer  # noqa: E402


def summary(samples: list[float]) -> str:
    ms = [sample * 1000 for sample in samples]
    return f"median {statistics.median(ms):.3f} ms (p5 {percentile(ms, 0.05):.3f}, p95 {percentile(ms, 0.95):.3f})"


async def limits(logins: int, others: int) -> tuple[list[float], list[float]]:
    server = RedisServer()
    server.start()
    try:
        crowd = [SharedLimits.connect(server.url, host_id=f"other{i}") for i in range(others)]
        for number, host in enumerate(crowd):
            for person in range(20):
                held = {user_field(f"k-{number}-{person}"): 3, address_field("198.51.100.1"): 999}
                assert await host.admit(held) is None
        me = SharedLimits.connect(server.url, host_id="me")
        admits, releases = [], []
        for number in range(logins):
            fields = {user_field(f"k-me-{number % 50}"): 10**6, address_field(f"203.0.113.{number % 200}"): 10**6}
            start = time.perf_counter()
            assert await me.admit(fields) is None
            admits.append(time.perf_counter() - start)
            start = time.perf_counter()
            await me.release(fields)
            releases.append(time.perf_counter() - start)
        for host in [*crowd, me]:
            await host.close()
        return admits, releases
    finally:
        server.cleanup()


def guests(names: int, samples: int) -> tuple[list[float], list[float]]:
    from gamenight.records.postgres import PostgresRecordsStore
    from gamenight.ssh.guests import DatabaseGuestBook

    from tests.core.records import pg_cluster

    with pg_cluster.running_cluster() as cluster:
        url = cluster.new_database()
        book = DatabaseGuestBook(PostgresRecordsStore.open(url), Path(tempfile.mkdtemp()), lambda *a, **k: None)
        book.limit = names + samples + 10
        for number in range(names):
            book.bind_key(f"guest{number}", number.to_bytes(4, "big"))
        finds, binds = [], []
        for number in range(samples):
            start = time.perf_counter()
            assert book.find(f"guest{number * 7 % names}") is not None
            finds.append(time.perf_counter() - start)
            start = time.perf_counter()
            assert book.bind_key(f"new{number}", (names + number).to_bytes(4, "big")) is not None
            binds.append(time.perf_counter() - start)
        book.close()
        return finds, binds


def main() -> None:
    options = argparse.ArgumentParser()
    options.add_argument("--logins", type=int, default=400)
    options.add_argument("--hosts", default="1,4,16")
    options.add_argument("--names", type=int, default=5000)
    options.add_argument("--guest-samples", type=int, default=200)
    args = options.parse_args()
    for others in (int(value) for value in args.hosts.split(",")):
        admits, releases = asyncio.run(limits(args.logins, others))
        print(f"limits, {others} other host(s) with 20 people each: admit {summary(admits)}")
        print(f"limits, {others} other host(s): release {summary(releases)}")
    finds, binds = guests(args.names, args.guest_samples)
    print(f"guest names, {args.names} bound: find {summary(finds)}")
    print(f"guest names, {args.names} bound: bind_key {summary(binds)}")


if __name__ == "__main__":
    main()
