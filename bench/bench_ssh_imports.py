"""How much of a hosted room's first frame is imports (the room template's first measurement).

Starts the room as ``serve-ssh`` does (``python -m gamenight`` in a local 80x24 pty, a fresh
``HOME``; no SSH, no sandbox), ``--runs`` times with ``-X importtime`` and as many times
without, alternating.  From ``-X importtime``'s lines printed before the lobby title it sums
each module's own import time ("self"), so the parts add up to the whole, by top-level
package (textual, rich, the room, each game, the standard library, ...), and lists the slowest
top-level imports (cumulative).

Run:  .venv/bin/python bench/bench_ssh_imports.py [--runs 10] [--out bench/results/ssh-imports.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import sys
import tempfile
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_ssh import LOBBY, room_first_frame

LINE = re.compile(rb"import time:\s+(\d+) \|\s+(\d+) \|( +)([\w.]+)")


def group(module: str) -> str:
    top = module.split(".")[0]
    if top == "gamenight":
        return "gamenight (the room)"
    if top.startswith("gamenight_"):
        return "games (gamenight_*)"
    if top in sys.stdlib_module_names or top.startswith("_"):
        return "standard library"
    if top in ("textual", "rich", "pluggy", "msgspec", "budoux", "platformdirs", "tomlkit", "tomli_w"):
        return top
    return "other third-party"


def imports_before_first_frame(output: bytes) -> tuple[dict[str, float], list[tuple[float, str]], dict[str, float]]:
    """Self seconds by group, (cumulative seconds, name) of the top-level imports, self seconds by module."""
    before = output[: output.index(LOBBY)] if LOBBY in output else output
    by_group: dict[str, float] = defaultdict(float)
    top: list[tuple[float, str]] = []
    own_times: dict[str, float] = {}
    for own, cumulative, indent, name in LINE.findall(before):
        module = name.decode()
        by_group[group(module)] += int(own) / 1e6
        own_times[module] = int(own) / 1e6
        if len(indent) == 1:
            top.append((int(cumulative) / 1e6, module))
    return by_group, sorted(top, reverse=True), own_times


def summary(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    return f"median {statistics.median(ms):.0f} ms (min {ms[0]:.0f}, max {ms[-1]:.0f}, n={len(ms)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--out", type=Path, help="write the Markdown report here")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-ssh-imports-"))
    load = os.getloadavg()
    plain: list[float] = []
    timed: list[float] = []
    imports: list[float] = []
    groups: dict[str, list[float]] = defaultdict(list)
    tops: dict[str, list[float]] = defaultdict(list)
    modules: list[int] = []
    own: dict[str, list[float]] = defaultdict(list)
    for run in range(args.runs):
        plain.append(room_first_frame(folder / f"plain{run}")[0])
        seconds, output = room_first_frame(folder / f"timed{run}", ("-X", "importtime"))
        by_group, top, own_times = imports_before_first_frame(output)
        timed.append(seconds)
        imports.append(sum(by_group.values()))
        modules.append(len(own_times))
        for name, seconds in own_times.items():
            own[name].append(seconds)
        for name in {*groups, *by_group}:
            groups[name].append(by_group.get(name, 0.0))
        for cumulative, name in top[:12]:
            tops[name].append(cumulative)
    shares = [i / t for i, t in zip(imports, timed, strict=True)]
    command = ".venv/bin/python bench/bench_ssh_imports.py " + " ".join(sys.argv[1:])
    lines = [
        "# A hosted room's first frame: how much is imports",
        "",
        f"Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. Machine: {os.cpu_count()} cores shared with other work "
        f"(load average {load[0]:.1f} at the start), Python {platform.python_version()}. Command: `{command.strip()}`",
        "",
        "| figure | result |",
        "| --- | --- |",
        f"| start to lobby title, plain (`python -m gamenight` in a pty) | {summary(plain)} |",
        f"| start to lobby title, under `-X importtime` | {summary(timed)} |",
        f"| imports finished before the lobby title (sum of self times) | {summary(imports)} |",
        f"| share of the first frame (same run, under `-X importtime`) | median {statistics.median(shares):.0%} "
        f"(min {min(shares):.0%}, max {max(shares):.0%}) |",
        f"| modules imported before the lobby title | median {statistics.median(modules):.0f} |",
        "",
        "Own import time by package (median over the runs; the parts add up to the imports above):",
        "",
        "| package | median | share of imports |",
        "| --- | --- | --- |",
    ]
    total = statistics.median(imports)
    for name, values in sorted(groups.items(), key=lambda item: -statistics.median(item[1])):
        median = statistics.median(values)
        lines.append(f"| {name} | {median * 1000:.0f} ms | {median / total:.0%} |")
    lines += ["", "Slowest top-level imports (cumulative: with everything they import first):", ""]
    lines += ["| module | median cumulative |", "| --- | --- |"]
    ranked = sorted(tops.items(), key=lambda item: -statistics.median(item[1]))
    for name, values in ranked[:10]:
        lines.append(f"| `{name}` | {statistics.median(values) * 1000:.0f} ms (in {len(values)} of {args.runs} runs) |")
    lines += ["", "Slowest modules by their own import time (what a pre-loaded template would save first):", ""]
    lines += ["| module | median own time |", "| --- | --- |"]
    slowest = sorted(own.items(), key=lambda item: -statistics.median(item[1]))
    for name, values in slowest[:15]:
        lines.append(f"| `{name}` | {statistics.median(values) * 1000:.1f} ms |")
    report = "\n".join(lines) + "\n"
    print(report)
    if args.out:
        args.out.write_text(report)


if __name__ == "__main__":
    main()
