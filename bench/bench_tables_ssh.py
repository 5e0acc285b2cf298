"""Bench of a shared table over real SSH: move -> the other seat's screen.

Starts ``python -m gamenight.ssh`` (key logins, a temporary data dir) and two
real OpenSSH clients in pseudo-terminals whose screens pyte keeps (80x24), the
same harness as tests/core/ssh/test_shared_tables.py: Ann opens a Mille table
by keys, Ben joins, and they play by keys (the first legal use, else a
discard; "no" to the extension) for ``--moves`` moves or to the end of the
hand, then another hand if moves remain.

With ``--pairs N``, N such tables (2N real SSH sessions) play at once, each in
its own thread; Ben of each pair finds the one waiting table in his list.

With ``--two-hosts`` (one pair), two ``serve-ssh`` processes share one
redis-server of the bench's own (``--tables-url``, append-only, ``everysec``)
and one data dir: Ann connects to host A, which runs the table, and Ben to host
B, which relays his room's messages to A and A's frames for his seat back
through Redis: a move crosses the hosts both ways.

Latency of one move: from writing its last key (``P``, or Return after
``U``/``D`` and the card) to the arrival of the bytes that first change the
*other* person's screen (every line but the status line and the key bar, where
a spinner turns).  The arrival is stamped by that terminal's reader thread as
soon as ``read()`` returns, and the change is checked there, right after pyte
took the bytes (:class:`TimedTerminal`) -- no polling: the players' threads wait
on an event, so ten screens in one Python process do not queue for the GIL to
notice a change.  Before each move both screens must have been still for
``--quiet`` seconds, so one move's redraw is never taken for the next.

Run:  .venv/bin/python bench/bench_tables_ssh.py [--moves 120] [--quiet 0.3] [--pairs 1 | --two-hosts]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from gamenight.match import Match
from gamenight.saves import SaveError, load_match
from timing import percentile  # bench/timing.py (this script's own folder is on sys.path)

from tests.core.ssh.conftest import Server, Terminal, ssh_argv, wait_until
from tests.core.ssh.test_shared_tables import LOBBY, REGISTRY, authorize, covered, open_table, start_move


def body(terminal: Terminal) -> str:
    """The screen without its last two lines (the status line's spinner turns on its own)."""
    return "\n".join(terminal.text().splitlines()[:-2])


def _body_of(screen: Any) -> str:
    return "\n".join(screen.display[:-2])


class Watch:
    """One awaited change of a screen's body: set by the reader thread with the bytes' arrival time."""

    def __init__(self, before: str) -> None:
        self.before = before
        self.changed = threading.Event()
        self.arrived = 0.0


class TimedTerminal(Terminal):
    """A :class:`Terminal` whose reader stamps when the bytes that change a watched screen arrived."""

    def __init__(self, argv: list[str], cols: int = 80, rows: int = 24) -> None:
        self._watch: Watch | None = None
        self.name = argv[argv.index("-l") + 1] if "-l" in argv else "?"
        super().__init__(argv, cols, rows)

    def watch(self) -> Watch:
        """Start watching the body as it is now; the returned :class:`Watch` is set at its first change."""
        with self._lock:
            watch = Watch(_body_of(self.screen))
            self._watch = watch
        return watch

    def _fed(self, arrived: float) -> None:
        watch = self._watch
        if watch is not None and _body_of(self.screen) != watch.before:
            self._watch = None
            watch.arrived = arrived
            watch.changed.set()


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


def table_save(data_dir: Path, names: tuple[str, str]) -> Path:
    """The save of the table where ``names`` sit (each pair has its own table)."""

    def find() -> Path | None:
        for path in sorted((data_dir / "tables").glob("*.save.toml")):
            try:
                match = load_match(REGISTRY, path)
            except (SaveError, OSError):
                continue
            if tuple(seat.name for seat in match.seats) == names:
                return path
        return None

    return wait_until(find, 30, f"the table of {names}")  # type: ignore[return-value]


def _load(path: Path) -> Match | None:
    try:
        return load_match(REGISTRY, path)
    except (SaveError, OSError):
        return None


def join_waiting(ben: Terminal) -> None:
    """Ben takes the free seat of the one waiting table (the others are playing): down the list to it."""
    ben.send("t")
    ben.wait_for("free", 30)
    for _ in range(40):
        about = "\n".join(line[48:] for line in ben.text().splitlines())
        if "free" in about:
            ben.send("\r")
            return
        ben.send("\x1b[B")
        time.sleep(0.3)
    raise AssertionError("no waiting table in the list")


def play(
    path: Path | Callable[[], Match | None],
    seats: list[TimedTerminal],
    moves: int,
    pause: float,
    latencies: dict[str, list[float]],
) -> None:
    """Play ``moves`` moves at one table by keys, timing each move to the other person's screen
    (``path``: the table's save file, or what reads the table where it is kept)."""
    load = (lambda: _load(path)) if isinstance(path, Path) else path
    done = 0
    while done < moves:
        match = wait_until(lambda: load(), 20, "the table's save")
        if match.pending_interlude() is not None:  # the end of a hand: both say "another hand"
            for terminal in seats:
                terminal.wait_for("Another hand?", 20)
                terminal.send("y")
            wait_until(lambda: (m := load()) and m.pending_interlude() is None, 30, "a deal")
            continue
        seat = match.to_move()
        if seat < 0:
            time.sleep(0.05)
            continue
        mover, other = seats[seat], seats[1 - seat]
        turn = len(match.log)
        final, action = start_move(mover, match)
        quiet(seats, pause)
        watch = None if covered(match) else other.watch()  # a dialog covering the board: nothing to time
        began = time.monotonic()
        mover.send(final)
        if watch is not None:
            if not watch.changed.wait(20):
                raise AssertionError(f"the other screen did not change\n{other.text()}")
            latencies[action.split(":")[0]].append(watch.arrived - began)
            done += 1
        wait_until(lambda t=turn: (m := load()) is not None and len(m.log) > t, 20, "the move in the save")


def seat_pairs(
    port: int,
    data_dir: Path,
    keys: dict[str, Path],
    people: list[tuple[str, str]],
    terminals: list[Terminal],
    wait: float,
) -> list[tuple[Path, list[Terminal]]]:
    """Each pair connects (lobby within ``wait`` s), the first opens a Mille table, the second takes
    its seat; returns each table's save and its two screens (every terminal is added to ``terminals``)."""
    tables = []
    for pair in people:
        seats = []
        for name in pair:
            terminals.append(TimedTerminal(ssh_argv(port, name, keys[name], "-tt"), 80, 24))
            terminals[-1].wait_for(LOBBY, wait)
            seats.append(terminals[-1])
        open_table(seats[0])
        join_waiting(seats[1])  # the one waiting table (the others are playing)
        tables.append((table_save(data_dir, pair), seats))
    return tables


def play_tables(
    tables: list[tuple[Path, list[Terminal]]], moves: int, pause: float, latencies: dict[str, list[float]]
) -> None:
    """:func:`play` every table at once, one thread each; returns when all are done.

    The interpreter switches threads every 0.5 ms instead of 5 ms meanwhile: a reader thread
    woken by its terminal's bytes then stamps them without waiting for a thread that parses a
    save or a screen to give up the GIL."""
    sys.setswitchinterval(0.0005)
    threads = [threading.Thread(target=play, args=(path, seats, moves, pause, latencies)) for path, seats in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=120, help="moves timed at each table")
    parser.add_argument("--quiet", type=float, default=0.3)
    parser.add_argument("--pairs", type=int, default=1, help="tables of two real SSH sessions, played at once")
    parser.add_argument("--two-hosts", action="store_true", help="Ann on host A, Ben on host B, one Redis")
    args = parser.parse_args()
    latencies: dict[str, list[float]] = {"draw": [], "use": [], "discard": []}
    if args.two_hosts:
        two_hosts(args, latencies)
        report(args, latencies)
        return
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        people = [(f"ann{n}", f"ben{n}") for n in range(args.pairs)]
        keys, authorized = authorize(tmp, [name for pair in people for name in pair])
        server = Server(
            tmp / "data",
            ["--authorized-keys", str(authorized), "--max-per-address", "100", "--max-new-per-minute", "100"],
        )
        terminals: list[Terminal] = []
        try:
            tables = seat_pairs(server.port, server.data_dir, keys, people, terminals, 60)
            play_tables(tables, args.moves, args.quiet, latencies)
        finally:
            for terminal in terminals:
                terminal.close()
            server.stop()
    report(args, latencies)


def two_hosts(args: argparse.Namespace, latencies: dict[str, list[float]]) -> None:
    """Ann on host A (which runs the table), Ben on host B (which relays), one Redis, one data dir."""
    from tests.core.ssh.test_shared_tables import open_and_join
    from tests.core.ssh.test_shared_tables_redis import stored_match
    from tests.core.tables.redis_server import RedisServer

    redis = RedisServer(appendonly=True, fsync="everysec")
    redis.start()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        keys, authorized = authorize(tmp, ["ann", "ben"])
        common = ["--authorized-keys", str(authorized), "--tables-url", redis.url]
        hosts = [Server(tmp / "data", common) for _ in range(2)]
        terminals: list[Terminal] = []
        try:
            for host, name in zip(hosts, ("ann", "ben"), strict=True):
                terminals.append(TimedTerminal(ssh_argv(host.port, name, keys[name], "-tt"), 80, 24))
                terminals[-1].wait_for(LOBBY, 60)
            open_and_join(terminals[0], terminals[1])
            play(lambda: stored_match(redis.url), terminals, args.moves, args.quiet, latencies)  # type: ignore[arg-type]
        finally:
            for terminal in terminals:
                terminal.close()
            for host in hosts:
                host.stop()
            redis.cleanup()


def report(args: argparse.Namespace, latencies: dict[str, list[float]]) -> None:
    every = [v * 1000 for values in latencies.values() for v in values]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print(
        f"command: .venv/bin/python bench/bench_tables_ssh.py --moves {args.moves} --quiet {args.quiet} "
        + ("--two-hosts" if args.two_hosts else f"--pairs {args.pairs}")
    )
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
