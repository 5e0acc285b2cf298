"""The combined load shared tables were specified for: 20 SEVEN tables of simulated clients and
10 real SSH sessions, one server.

Three processes, so that each one's CPU is its own:

* the **server**: one table service inside a real serve-ssh server
  (``gamenight.ssh.server.serve(..., tables=service)``, key logins, rooms
  sandboxed as usual), which also serves the simulated clients' sockets (one
  socketpair each, as a hosted room has);
* the **simulated clients** (``bench_tables.run_clients``): ``--tables`` SEVEN
  tables x 5 seats on the real protocol, random legal moves after a think of
  ``--think`` seconds (half to one and a half of it), one deal per table;
* this process: ``--pairs`` pairs of real OpenSSH clients in pseudo-terminals
  (pyte screens, 80x24) at Mille tables, opened and joined by keys and played
  by keys (``bench_tables_ssh.play``: every move after both screens were still
  for ``--quiet`` s) for ``--moves`` moves each.

The SSH tables are opened first; then the simulated clients and the SSH players
start together.  Figures:

* latency, simulated: a client writing its Move -> each other seat's client
  receiving the move's Event (one clock, the clients' process);
* latency, SSH: the last key of a move -> the arrival of the bytes that first
  change the other person's pyte screen (stamped by the terminal's reader thread,
  ``bench_tables_ssh.TimedTerminal``);
* the server process's CPU time and RSS growth over the simulated deal (the
  service *and* the SSH server relaying the 10 sessions; the rooms are
  separate processes, not counted), per table;
* nothing lost: each simulated client's last view, move count, Event count and
  public log equal the service's; each SSH screen's hand equals the save's.

Run:  .venv/bin/python bench/bench_tables_load.py [--tables 20] [--pairs 5] [--moves 40] [--think 0.1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import signal
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_tables import SEATS, lost_clients, receive_report, rss_kib, run_clients  # noqa: E402
from bench_tables_ssh import _load as load  # noqa: E402
from bench_tables_ssh import play_tables, seat_pairs  # noqa: E402
from gamenight.plugins import load_registry  # noqa: E402
from timing import percentile  # noqa: E402

from tests.core.ssh.conftest import Terminal, wait_until  # noqa: E402
from tests.core.ssh.test_shared_tables import authorize, hand_on_screen, names  # noqa: E402

# -- the server process ---------------------------------------------------------------------------


async def run_server(args: argparse.Namespace, data: Path, authorized: Path, socks, report, out: int) -> None:
    from gamenight.ssh.log import EventLog
    from gamenight.ssh.server import serve
    from gamenight.ssh.settings import parser, settings_from_args
    from gamenight.tables.service import TableService

    registry = load_registry()
    service = TableService(registry, data / "ssh", seed=args.seed, message_rate=(1000.0, 1000.0))
    await service.start()
    options = parser()
    settings = settings_from_args(
        options,
        options.parse_args(
            [
                *("--authorized-keys", str(authorized), "--data-dir", str(data / "ssh"), "--port", "0"),
                *("--max-per-address", "100", "--max-new-per-minute", "100", "--max-sessions", "100"),
            ]
        ),
    )
    ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    with open(data / "server.log", "w") as log_file:
        server = asyncio.create_task(serve(settings, EventLog(log_file), ready, tables=service))
        os.write(out, f"{await ready}\n".encode())
        rss_before = rss_kib()
        cpu_before = resource.getrusage(resource.RUSAGE_SELF)
        tasks = []
        for index, sock in enumerate(socks):
            reader, writer = await asyncio.open_connection(sock=sock)
            tasks.append(asyncio.create_task(service.serve(reader, writer, f"bench:{index}", f"P{index}")))
        result = await asyncio.to_thread(receive_report, report)
        cpu_after = resource.getrusage(resource.RUSAGE_SELF)
        rss_peak = rss_kib()
        lost = lost_clients(service, result["finals"])
        summary = {
            "latencies": result["latencies"],
            "moves": result["moves"],
            "all_moves": sum(len(t.match.log) for t in service.tables.values() if t.game.id == "seven"),
            "elapsed": result["elapsed"],
            "cpu": (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime),
            "rss_before": rss_before,
            "rss_peak": rss_peak,
            "lost": lost,
            "clients": len(result["finals"]),
        }
        os.write(out, (json.dumps(summary) + "\n").encode())
        await server  # until SIGTERM


def server_process(args, data, authorized, socks, report, out) -> None:
    try:
        asyncio.run(run_server(args, data, authorized, socks, report, out))
    finally:
        os._exit(0)


def clients_process(args, socks, report, go: int) -> None:
    try:
        os.read(go, 1)  # the SSH tables are open: start
        asyncio.run(run_clients(socks, args.tables, args.think, args.seed, report))
    finally:
        os._exit(0)


def read_line(fd: int, timeout: float) -> str:
    data = b""
    deadline = time.monotonic() + timeout
    while not data.endswith(b"\n"):
        if time.monotonic() > deadline:
            raise TimeoutError("the server process did not answer")
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            raise ConnectionError("the server process ended")
        data += chunk
    return data.decode()


# -- this process: the SSH sessions ---------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=20, help="SEVEN tables of simulated clients")
    parser.add_argument("--think", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pairs", type=int, default=5, help="Mille tables of two real SSH sessions")
    parser.add_argument("--moves", type=int, default=40, help="moves timed at each SSH table")
    parser.add_argument("--quiet", type=float, default=0.3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        people = [(f"ann{n}", f"ben{n}") for n in range(args.pairs)]
        keys, authorized = authorize(tmp, [name for pair in people for name in pair])
        pairs = [socket.socketpair() for _ in range(args.tables * SEATS)]
        report_server, report_clients = socket.socketpair()
        from_server, to_parent = os.pipe()
        go_read, go_write = os.pipe()
        server_pid = os.fork()
        if server_pid == 0:
            for ours, _theirs in pairs:
                ours.close()
            report_clients.close()
            server_process(args, tmp, authorized, [theirs for _ours, theirs in pairs], report_server, to_parent)
        clients_pid = os.fork()
        if clients_pid == 0:
            for _ours, theirs in pairs:
                theirs.close()
            report_server.close()
            clients_process(args, [ours for ours, _theirs in pairs], report_clients, go_read)
        for ours, theirs in pairs:
            ours.close()
            theirs.close()
        report_server.close()
        report_clients.close()
        port = int(read_line(from_server, 60))
        data_dir = tmp / "ssh"
        terminals: list[Terminal] = []
        latencies: dict[str, list[float]] = {"draw": [], "use": [], "discard": []}
        lost_ssh: list[str] = []
        try:
            tables = seat_pairs(port, data_dir, keys, people, terminals, 90)
            load_before = os.getloadavg()[0]
            os.write(go_write, b"g")  # the simulated clients start now, and so do the SSH players
            play_tables(tables, args.moves, args.quiet, latencies)
            load_ssh_done = os.getloadavg()[0]
            for path, seats in tables:  # each SSH screen ends with the save's hand: nothing lost
                match = load(path)
                try:
                    wait_until(
                        lambda m=match, s=seats: all(
                            hand_on_screen(t) == names(m.state.seats[n].hand) for n, t in enumerate(s)
                        ),
                        20,
                        "the screens to show the saved hands",
                    )
                except AssertionError:
                    lost_ssh.append(path.name)
            summary = json.loads(read_line(from_server, 900))
        finally:
            for terminal in terminals:
                terminal.close()
            os.kill(server_pid, signal.SIGTERM)
            server_usage = os.wait4(server_pid, 0)[2]  # the server and the rooms it reaped
            clients_usage = os.wait4(clients_pid, 0)[2]
            own = resource.getrusage(resource.RUSAGE_SELF)
            ssh_clients = resource.getrusage(resource.RUSAGE_CHILDREN)  # ssh, ssh-keygen (waited for)
    simulated = [x * 1000 for x in summary["latencies"]]
    ssh = [v * 1000 for values in latencies.values() for v in values]
    cpu = summary["cpu"]
    rss = (summary["rss_peak"] - summary["rss_before"]) / 1024
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores")
    print(
        f"command: .venv/bin/python bench/bench_tables_load.py --tables {args.tables} --think {args.think} "
        f"--seed {args.seed} --pairs {args.pairs} --moves {args.moves} --quiet {args.quiet}"
    )
    print(
        f"load average (1 min): {load_before:.1f} at the start, {load_ssh_done:.1f} when the SSH tables were done, "
        f"{os.getloadavg()[0]:.1f} at the end"
    )
    print(
        f"simulated: {args.tables} SEVEN tables x {SEATS} seats, {summary['moves']} moves by clients, "
        f"{summary['all_moves']} with chance, {summary['elapsed']:.1f} s"
    )
    for label, values in (("simulated move -> other seats' Event", simulated), ("SSH move -> other screen", ssh)):
        if values:
            print(
                f"{label}: median {statistics.median(values):.1f} ms, "
                f"IQR {percentile(values, 0.25):.1f}-{percentile(values, 0.75):.1f}, "
                f"p95 {percentile(values, 0.95):.1f}, p99 {percentile(values, 0.99):.1f}, "
                f"max {max(values):.1f}, n={len(values)}"
            )
    every_table = args.tables + args.pairs
    print(
        f"server process (service + SSH server): CPU {cpu:.1f} s over {summary['elapsed']:.1f} s "
        f"({cpu / summary['elapsed'] * 100:.0f}% of one core), {cpu / every_table * 1000:.0f} ms per table, "
        f"{cpu / max(1, summary['all_moves']) * 1e6:.0f} us per SEVEN move; "
        f"RSS {summary['rss_before'] / 1024:.1f} -> {summary['rss_peak'] / 1024:.1f} MiB "
        f"(+{rss:.1f} MiB, {rss * 1024 / every_table:.0f} KiB per table)"
    )

    def seconds(usage) -> float:
        return usage.ru_utime + usage.ru_stime

    print(
        f"CPU of the whole run, by process: server and its {2 * args.pairs} rooms {seconds(server_usage):.0f} s, "
        f"simulated clients {seconds(clients_usage):.0f} s, OpenSSH clients "
        f"{seconds(ssh_clients) - seconds(server_usage) - seconds(clients_usage):.0f} s, "
        f"this bench (pyte screens, polling) {seconds(own):.0f} s"
    )
    print(
        f"lost: {len(summary['lost'])} of {summary['clients']} simulated clients differ from the service "
        f"{summary['lost'][:3]}; {len(lost_ssh)} of {args.pairs} SSH tables' screens differ from the save {lost_ssh}"
    )
    return 1 if summary["lost"] or lost_ssh else 0


if __name__ == "__main__":
    raise SystemExit(main())
