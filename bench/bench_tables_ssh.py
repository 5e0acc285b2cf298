"""Bench of a shared table over real SSH (issue 16): move -> the other seat's screen.

Starts ``python -m gamenight.ssh`` (key logins, a temporary data dir) and two
real OpenSSH clients in pseudo-terminals whose screens pyte keeps (80x24), the
same harness as tests/core/ssh/test_shared_tables.py: Ann opens a Mille table
by keys, Ben joins, and they play by keys (the first legal use, else a
discard; "no" to the extension) for ``--moves`` moves or to the end of the
hand, then another hand if moves remain.

Latency of one move: from writing its last key (``P``, or Return after
``U``/``D`` and the card) to the first change of the *other* person's screen
(every line but the status line and the key bar, where a spinner turns),
polled every millisecond.  Before each move both screens must have been still
for ``--quiet`` seconds, so one move's redraw is never taken for the next.

Run:  .venv/bin/python bench/bench_tables_ssh.py [--moves 120] [--quiet 0.3]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.core.ssh.conftest import Server, Terminal, make_key, ssh_argv, wait_until
from tests.core.ssh.test_shared_tables import LOBBY, covered, move_keys, open_and_join, saved_match


def body(terminal: Terminal) -> str:
    """The screen without its last two lines (the status line's spinner turns on its own)."""
    return "\n".join(terminal.text().splitlines()[:-2])


def quiet(terminals: list[Terminal], seconds: float) -> None:
    """Wait until no screen's body has changed for ``seconds``."""
    last = [body(t) for t in terminals]
    since = time.monotonic()
    deadline = since + 30
    while time.monotonic() - since < seconds:
        time.sleep(0.01)
        now = [body(t) for t in terminals]
        if now != last:
            last, since = now, time.monotonic()
        if time.monotonic() > deadline:
            raise AssertionError("the screens never went quiet")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=120)
    parser.add_argument("--quiet", type=float, default=0.3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        keys = {name: make_key(tmp, name) for name in ("ann", "ben")}
        authorized = tmp / "authorized_keys"
        authorized.write_text("".join(key.with_suffix(".pub").read_text() for key in keys.values()))
        server = Server(tmp / "data", ["--authorized-keys", str(authorized)])
        seats: list[Terminal] = []
        try:
            for name in ("ann", "ben"):
                seats.append(Terminal(ssh_argv(server.port, name, keys[name], "-tt"), 80, 24))
                seats[-1].wait_for(LOBBY, 40)
            open_and_join(*seats)
            latencies: dict[str, list[float]] = {"draw": [], "use": [], "discard": []}
            while sum(map(len, latencies.values())) < args.moves:
                match = wait_until(lambda: saved_match(server.data_dir), 20, "the table's save")
                if match.pending_interlude() is not None:  # the end of a hand: both say "another hand"
                    for terminal in seats:
                        terminal.wait_for("Another hand?", 20)
                        terminal.send("y")
                    wait_until(
                        lambda: (m := saved_match(server.data_dir)) and m.pending_interlude() is None, 30, "a deal"
                    )
                    continue
                seat = match.to_move()
                if seat < 0:
                    time.sleep(0.05)
                    continue
                mover, other = seats[seat], seats[1 - seat]
                turn = len(match.log)
                prefix, wait, final, action = move_keys(match)
                if not covered(match):  # (the "Extension?" dialog covers the prompt)
                    mover.wait_for(">>:Move:", 20)
                if prefix:
                    mover.send(prefix)
                if wait:
                    mover.wait_for(wait, 20)
                quiet(seats, args.quiet)
                before = body(other)
                began = time.perf_counter()
                mover.send(final)
                if not covered(match):
                    wait_until(lambda o=other, b=before: body(o) != b, 20, "the other screen", interval=0.001)
                    latencies[action.split(":")[0]].append(time.perf_counter() - began)
                wait_until(
                    lambda t=turn: (m := saved_match(server.data_dir)) is not None and len(m.log) > t,
                    20,
                    "the move in the save",
                )
        finally:
            for terminal in seats:
                terminal.close()
            server.stop()
    every = [v * 1000 for values in latencies.values() for v in values]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print(f"command: .venv/bin/python bench/bench_tables_ssh.py --moves {args.moves} --quiet {args.quiet}")
    print(
        f"move -> other seat's screen, all moves: median {statistics.median(every):.1f} ms, "
        f"IQR {percentile(every, 0.25):.1f}-{percentile(every, 0.75):.1f}, p95 {percentile(every, 0.95):.1f}, "
        f"min {min(every):.1f}, max {max(every):.1f}, n={len(every)}"
    )
    for kind, values in latencies.items():
        if values:
            ms = [v * 1000 for v in values]
            print(f"  {kind}: median {statistics.median(ms):.1f} ms, p95 {percentile(ms, 0.95):.1f}, n={len(ms)}")


if __name__ == "__main__":
    main()
