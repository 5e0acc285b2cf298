"""What a room's sandbox costs at its start, apart from everything else a room does.

1. spawned: ``python -I -S launch.py [--sandbox ...] -- /bin/true`` from start to exit, with and
   without the sandbox (the first stage, the namespaces, PID 1's set-up and lock-down, the exec);
2. forked: :func:`gamenight.ssh.launch.probe` (fork, the namespaces, PID 1's set-up and lock-down,
   the check from inside), the template's per-room work;
3. each step of the set-up in PID 1, timed inside.

As root the rooms' user is ``nobody`` and the needed folders are this Python's (as serve-ssh
gives them); otherwise rooms run as this user.  Standard library and gamenight's launch.py only.

Run:  .venv/bin/python bench/bench_sandbox.py [--runs 40]
"""

from __future__ import annotations

import argparse
import itertools
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core" / "gamenight" / "ssh"))
import launch

LAUNCH = launch.__file__


def summary(values: list[float]) -> str:
    cuts = statistics.quantiles(values, n=20)
    return f"median {statistics.median(values):.1f} ms (p5 {cuts[0]:.1f}, p95 {cuts[-1]:.1f}, n={len(values)})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    data = tempfile.mkdtemp(prefix="bench-sandbox-")
    home = os.path.join(data, "users", "u")
    os.makedirs(home)
    user = None
    needs: list[str] = []
    if os.geteuid() == 0:
        user = (65534, 65534)
        os.chown(home, *user)
        needs = [os.path.realpath(sys.base_prefix), os.path.dirname(os.path.realpath(sys.executable))]
    options = ["--sandbox", data, home]
    if user is not None:
        options += ["--as", str(user[0]), str(user[1])]
    for need in needs:
        options += ["--need", need]
    plain = [sys.executable, "-I", "-S", LAUNCH, "--", "/bin/true"]
    boxed = [sys.executable, "-I", "-S", LAUNCH, *options, "--", "/bin/true"]
    times: dict[str, list[float]] = {"spawned, no sandbox": [], "spawned, sandbox": [], "forked, sandbox": []}
    for _ in range(args.runs):
        for name, argv in (("spawned, no sandbox", plain), ("spawned, sandbox", boxed)):
            began = time.perf_counter()
            subprocess.run(argv, check=True)
            times[name].append((time.perf_counter() - began) * 1000)
        began = time.perf_counter()
        reason = launch.probe(data, os.path.join(data, "users"), needs, user)
        assert reason is None, reason
        times["forked, sandbox"].append((time.perf_counter() - began) * 1000)
    print(f"Python {sys.version.split()[0]}, {os.uname().release}, load {os.getloadavg()[0]:.1f}")
    for name, values in times.items():
        print(f"| {name} | {summary(values)} |")
    runs = min(args.runs, 10)
    print(f"| set-up steps in PID 1 (ms, median of {runs}) | {steps(data, home, needs, user, runs)} |")
    print(f"load at the end {os.getloadavg()[0]:.1f}")


def steps(data: str, home: str, needs: list[str], user: tuple[int, int] | None, runs: int) -> str:
    read, write = os.pipe()
    for _ in range(runs):
        pid = os.fork()
        if pid == 0:
            marks = [("", time.perf_counter())]
            launch.enter_namespaces()
            marks.append(("namespaces", time.perf_counter()))
            init = os.fork()
            if init:
                os._exit(launch.wait_for(init))
            marks.append(("fork", time.perf_counter()))
            launch.prctl(launch.PR_SET_PDEATHSIG, signal.SIGKILL, "parent-death signal")
            launch.mount("proc", "/proc", "proc", launch.MS_NOSUID | launch.MS_NODEV | launch.MS_NOEXEC, None, "proc")
            marks.append(("proc", time.perf_counter()))
            uid, gid = user or (os.geteuid(), os.getegid())
            launch.hide(data, home, needs, uid, gid)
            marks.append(("hide", time.perf_counter()))
            launch.own_devpts()
            marks.append(("devpts", time.perf_counter()))
            launch.lock_down(uid, gid)
            marks.append(("lock-down", time.perf_counter()))
            line = " ".join(f"{b[0]}={(b[1] - a[1]) * 1000:.2f}" for a, b in itertools.pairwise(marks))
            os.write(write, (line + "\n").encode())
            os._exit(0)
        os.waitpid(pid, 0)
    os.close(write)
    lines = os.read(read, 1 << 16).decode().split()
    os.close(read)
    by_step: dict[str, list[float]] = {}
    for item in lines:
        name, value = item.split("=")
        by_step.setdefault(name, []).append(float(value))
    return ", ".join(f"{name} {statistics.median(values):.1f}" for name, values in by_step.items())


if __name__ == "__main__":
    main()
