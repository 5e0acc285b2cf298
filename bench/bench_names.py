"""Bench of the names' comparison and the guest book (who owns a guest name).

Each figure is timed in a fresh process (``--runs`` of them), as the server pays it:

* reading Unicode's confusables data (``gamenight.tables.names.prototypes``: once per server,
  on the first name compared) and the memory it holds;
* one name's key (``name_key``: NFKC, case fold, spaces, TR39 skeleton);
* writing a full guest book (``--guests`` names, half bound to a key, half to a code) and
  reading it back (once, when the server starts).

Run:  .venv/bin/python bench/bench_names.py [--runs 5] [--guests 5000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys, tempfile, time, timeit, tracemalloc
from pathlib import Path
guests = int(sys.argv[1])
from gamenight.tables import names
tracemalloc.start()
began = time.perf_counter()
names.prototypes()
read = time.perf_counter() - began
held = tracemalloc.get_traced_memory()[0]
tracemalloc.stop()
began = time.perf_counter()
names.prototypes.cache_clear()
names.prototypes()
read = time.perf_counter() - began  # again, without tracemalloc's cost
key = min(timeit.repeat(lambda: names.name_key("Alice Smith 2"), number=2000, repeat=5)) / 2000
from gamenight.ssh.guests import GuestBook
folder = Path(tempfile.mkdtemp())
book = GuestBook(folder, lambda *a, **k: None)
book.save = lambda: None  # filled without a write per name
blob = bytes(32)
for number in range(guests // 2):
    book.bind_key(f"user{number}", blob)
    book.bind_code(f"code{number}")
del book.save
began = time.perf_counter()
book.save()
save = time.perf_counter() - began
began = time.perf_counter()
GuestBook(folder, lambda *a, **k: None)
load = time.perf_counter() - began
size = (folder / "guests.json").stat().st_size
print(json.dumps({"read_ms": read * 1000, "held_mib": held / 2**20, "key_us": key * 1e6,
                  "save_ms": save * 1000, "load_ms": load * 1000, "book_kib": size / 1024}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--guests", type=int, default=5000)
    args = parser.parse_args()
    command = [sys.executable, "-c", CHILD, str(args.guests)]
    runs = [json.loads(subprocess.run(command, capture_output=True, check=True).stdout) for _ in range(args.runs)]
    for name, label in [
        ("read_ms", "confusables data read (ms)"),
        ("held_mib", "confusables data held (MiB)"),
        ("key_us", "one name's key (µs)"),
        ("save_ms", f"guest book of {args.guests} names written (ms)"),
        ("load_ms", f"guest book of {args.guests} names read (ms)"),
        ("book_kib", "guest book size (KiB)"),
    ]:
        values = sorted(run[name] for run in runs)
        print(f"{label}: median {statistics.median(values):.1f}, {values[0]:.1f}–{values[-1]:.1f} ({args.runs} runs)")


if __name__ == "__main__":
    main()
