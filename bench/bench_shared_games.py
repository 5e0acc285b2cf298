"""What each shared-table game test over real SSH costs: wall time and CPU of the whole tree.

Runs one test file at a time (``pytest -q -n0 FILE``) ``--runs`` times and
reports, per file, the median and the spread (min-max) of:

* **wall**: from starting pytest to its end;
* **rusage**: user+sys of pytest and every descendant it reaped, through the
  ones they reaped (what ``/usr/bin/time`` says);
* **tree**: user+sys summed over every process seen under pytest, sampled from
  ``/proc`` every 50 ms (each process counted at its last sample: a process's
  CPU after that, and short ones never sampled, are missed).  This counts the
  rooms even if something on the way does not reap them.

Run:  .venv/bin/python bench/bench_shared_games.py [--runs 3] [FILE ...]
(default: the Yatzy, LITS and Mate tests, tests/core/ssh/test_shared_tables_{yatzy,lits,mate}.py)
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = [f"tests/core/ssh/test_shared_tables_{game}.py" for game in ("yatzy", "lits", "mate")]
TICKS = os.sysconf("SC_CLK_TCK")


def stat_of(pid: int) -> tuple[int, float] | None:
    """(parent pid, user+sys seconds) of a live process, from /proc/PID/stat."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICKS


def sample_tree(root: int, seen: dict[int, float], stop: threading.Event) -> None:
    """Until ``stop``: the CPU of every process under ``root`` (by pid, its latest value)."""
    while not stop.is_set():
        parents: dict[int, int] = {}
        cpu: dict[int, float] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit() and (found := stat_of(int(entry))) is not None:
                parents[int(entry)], cpu[int(entry)] = found
        for pid, used in cpu.items():
            ancestor, hops = pid, 0
            while ancestor not in (root, 0, 1) and hops < 64:
                ancestor, hops = parents.get(ancestor, 0), hops + 1
            if ancestor == root or pid == root:
                seen[pid] = used
        stop.wait(0.05)


def run(path: str) -> tuple[float, float, float, bool]:
    """One pytest run of ``path``: (wall s, rusage CPU s, sampled tree CPU s, passed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-n0", "-p", "no:cacheprovider", path],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    seen: dict[int, float] = {}
    stop = threading.Event()
    sampler = threading.Thread(target=sample_tree, args=(process.pid, seen, stop), daemon=True)
    sampler.start()
    output, _ = process.communicate(timeout=600)
    wall = time.monotonic() - started
    stop.set()
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    rusage = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    passed = process.returncode == 0
    if not passed:
        print(output[-3000:], file=sys.stderr)
    return wall, rusage, sum(seen.values()), passed


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", default=DEFAULT)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{args.runs} runs each; load average before: {os.getloadavg()[0]:.1f}; {os.cpu_count()} CPUs")
    print("| test | wall s | rusage CPU s | tree CPU s (sampled) | passed |")
    print("|---|---|---|---|---|")
    for path in args.files:
        results = [run(path) for _ in range(args.runs)]
        walls, rusages, trees, passes = zip(*results, strict=True)
        print(
            f"| `{Path(path).name}` | {spread(list(walls))} | {spread(list(rusages))} | "
            f"{spread(list(trees))} | {sum(passes)}/{len(passes)} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
