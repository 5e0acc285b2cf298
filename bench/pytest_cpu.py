"""A pytest plugin: the CPU each test costs, its own process's and its reaped children's.

Wall times on the shared 2-core machine rank tests by how long they waited as much as by what they
cost; CPU-seconds say what a test takes from the two cores, which bounds the suite's wall time.
Each test's line (setup, call and teardown together, so a module fixture's cost lands on the first
test that uses it) is appended to the file named by ``GAMENIGHT_CPU_LOG``, one per worker process:

    GAMENIGHT_CPU_LOG=/tmp/cpu.tsv PYTHONPATH=bench .venv/bin/python -m pytest -p pytest_cpu -q
    .venv/bin/python bench/pytest_cpu.py /tmp/cpu.tsv        # the 40 costliest tests and files

Children count once reaped (rooms, SSH servers, ``python -m gamenight`` runs, mypy).
"""

from __future__ import annotations

import os
import resource
import sys
import time
from collections import defaultdict

import pytest


def _children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    path = os.environ.get("GAMENIGHT_CPU_LOG")
    start_wall, start_self, start_children = time.perf_counter(), time.process_time(), _children()
    yield
    if not path:
        return
    own = time.process_time() - start_self
    children = _children() - start_children
    wall = time.perf_counter() - start_wall
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(path, "a", encoding="utf-8") as log:
        log.write(f"{item.nodeid}\t{own:.3f}\t{children:.3f}\t{wall:.3f}\t{worker}\n")


def report(path: str, top: int = 40) -> None:
    tests: list[tuple[float, float, float, str]] = []
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for line in open(path, encoding="utf-8"):
        nodeid, own, children, wall, _worker = line.rstrip("\n").split("\t")
        cpu = float(own) + float(children)
        tests.append((cpu, float(own), float(wall), nodeid))
        total = files[nodeid.split("::")[0]]
        total[0] += cpu
        total[1] += float(wall)
        total[2] += 1
    print(f"{len(tests)} tests, {sum(t[0] for t in tests):.1f} CPU-s in all\n")
    print("CPU-s  (own)   wall-s  test")
    for cpu, own, wall, nodeid in sorted(tests, reverse=True)[:top]:
        print(f"{cpu:6.1f} {own:6.1f} {wall:7.1f}  {nodeid}")
    print("\nCPU-s  wall-s  tests  file")
    for name, (cpu, wall, count) in sorted(files.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"{cpu:6.1f} {wall:7.1f} {count:6d}  {name}")


if __name__ == "__main__":
    report(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40)
