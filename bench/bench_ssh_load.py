"""Load and abuse bench of ``gamenight serve-ssh`` with the real game room.

Three parts, each against its own server (guest mode, a temporary data dir, rooms sandboxed
where the system allows it), with asyncssh clients in this process:

1. **load**: ``--clients`` clients (each from its own 127.0.0.x address) connect to a server
   started with ``--max-sessions``; those admitted send, for ``--seconds``, a random mix of keys,
   random bytes, bracketed pastes and resizes.  Counted: sessions held, clients refused (and
   with which message), rooms that ended while their client was still there (crashes: any
   status but 0), the largest memory of every room (RSS and address space, sampled every
   second) against ``--room-memory``, and, when the clients leave, how long each room took to
   end after its client's disconnect.
2. **flood**: keystroke-to-screen of one player (arrow keys in the lobby, the next one only once
   the screen is quiet) alone, then while ``--flooders`` connections from other addresses open
   refused channels (direct-tcpip) as fast as they can, reconnecting whenever they are closed
   (the server keeps its default ``--max-new-per-minute 20``).
3. **resize**: a room's CPU while its client sends ``--resizes`` window-size changes in 20 s
   (the storm the abuse review found), against the same 20 s idle.

Run:  .venv/bin/python bench/bench_ssh_load.py [--clients 60 --max-sessions 40 --seconds 60]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import asyncssh

sys.path.insert(0, str(Path(__file__).parent))  # bench_ssh
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # tests.core.ssh.processes
from bench_ssh import LOBBY, QUIET, ServerProcess, Session, group_cpu_seconds, percentile

from tests.core.ssh.processes import process_group

DOWN, UP = b"\x1b[B", b"\x1b[A"
KEYS = [
    DOWN,
    UP,
    b"\x1b[C",
    b"\x1b[D",
    b"\t",
    b"\x1b[Z",
    b"\r",
    b"\x1b",
    b" ",
    b"h",
    b"j",
    b"k",
    b"l",
    b"?",
    b"n",
    b"y",
    b"1",
    b"2",
    b"3",
    b"\x10",
]  # arrows, tab, enter, escape, letters, digits, ctrl+p
"""Keys a player might press (no ctrl+q / q: leaving is not what this measures)."""


def status(pid: int) -> tuple[int, int]:
    """(RSS, address space) of ``pid`` in KiB, (0, 0) once gone."""
    values = {"VmRSS:": 0, "VmSize:": 0}
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                parts = line.split()
                if parts and parts[0] in values:
                    values[parts[0]] = int(parts[1])
    except OSError:
        pass
    return values["VmRSS:"], values["VmSize:"]


def connect(port: int, user: str, address: str):
    return asyncssh.connect(
        "127.0.0.1",
        port,
        username=user,
        known_hosts=None,
        client_keys=None,
        agent_path=None,
        config=[],
        password="",  # a guest without a key: keyboard-interactive, nothing asked
        local_addr=(address, 0),
    )


def summary(values: list[float], unit: str) -> str:
    if not values:
        return "none"
    return (
        f"median {statistics.median(values):.1f} {unit}, p90 {percentile(values, 0.9):.1f}, "
        f"min {min(values):.1f}, max {max(values):.1f}, n={len(values)}"
    )


# -- 1. load ------------------------------------------------------------------------------------
async def player(number: int, port: int, seconds: float, rng: random.Random, record: dict) -> None:
    """One client: connect, and if admitted, play randomly for ``seconds``, then leave."""
    await asyncio.sleep(rng.uniform(0, 10))  # arrivals spread over 10 s
    address = f"127.0.0.{2 + number}"
    try:
        conn = await connect(port, f"load{number}", address)
    except (asyncssh.Error, OSError) as error:
        record["refused"].append(str(error))
        return
    try:
        process = await conn.create_process(term_type="xterm-256color", term_size=(80, 24), encoding=None)
    except (asyncssh.Error, OSError) as error:
        record["refused"].append(str(error))
        conn.close()
        return
    session = Session(conn, process)
    pump = asyncio.get_running_loop().create_task(session.pump())
    try:
        await session.wait_for(LOBBY, 0, 180)
    except (TimeoutError, asyncssh.Error, OSError) as error:
        record["no_lobby"].append(f"load{number}: {error!r}")
        conn.close()
        return
    record["admitted"] += 1
    end = time.monotonic() + seconds
    sent = {"keys": 0, "bytes": 0, "pastes": 0, "resizes": 0}
    while time.monotonic() < end and not process.is_closing():
        action = rng.random()
        try:
            if action < 0.6:
                process.stdin.write(rng.choice(KEYS))
                sent["keys"] += 1
            elif action < 0.75:  # garbage, but not the two keys that quit (q in the lobby, ctrl+q)
                process.stdin.write(rng.randbytes(rng.randint(1, 64)).replace(b"q", b"w").replace(b"\x11", b"\x12"))
                sent["bytes"] += 1
            elif action < 0.8:
                text = "".join(rng.choice("abcdefghij klmnop\n") for _ in range(rng.randint(100, 20_000)))
                process.stdin.write(b"\x1b[200~" + text.encode() + b"\x1b[201~")
                sent["pastes"] += 1
            else:
                process.change_terminal_size(rng.randint(20, 200), rng.randint(5, 60))
                sent["resizes"] += 1
        except (asyncssh.Error, OSError, BrokenPipeError):
            break
        await asyncio.sleep(rng.uniform(0.02, 0.2))
    with contextlib.suppress(asyncssh.Error, OSError, BrokenPipeError):
        process.change_terminal_size(80, 24)  # back to a normal size before leaving
    for key, value in sent.items():
        record["sent"][key] += value
    if process.is_closing():  # the room ended while its client was there: what did it show last?
        record["last_words"][f"load{number}"] = session.output[-600:].decode("utf-8", "replace")
    else:
        record["still_there"] += 1
        record["left_at"][f"load{number}"] = time.time()
    conn.close()
    pump.cancel()


async def sample_memory(server: ServerProcess, stop: asyncio.Event, peaks: dict[int, tuple[int, int]]) -> None:
    while not stop.is_set():
        for start in server.of("session_start"):
            pid = start["pid"]
            rss = size = 0
            for member in process_group(pid):
                one_rss, one_size = status(member)
                rss += one_rss
                size = max(size, one_size)
            old = peaks.get(pid, (0, 0))
            peaks[pid] = (max(old[0], rss), max(old[1], size))
        await asyncio.sleep(1)


async def load(args: argparse.Namespace, data_dir: Path) -> dict:
    server = ServerProcess(
        data_dir / "load", "--max-sessions", str(args.max_sessions), "--room-memory", str(args.room_memory)
    )
    rng = random.Random(args.seed)
    record: dict = {
        "refused": [],
        "no_lobby": [],
        "admitted": 0,
        "still_there": 0,
        "left_at": {},
        "last_words": {},
        "sent": {"keys": 0, "bytes": 0, "pastes": 0, "resizes": 0},
    }
    peaks: dict[int, tuple[int, int]] = {}
    stop = asyncio.Event()
    sampler = asyncio.get_running_loop().create_task(sample_memory(server, stop, peaks))
    began = time.monotonic()
    try:
        await asyncio.gather(
            *(player(n, server.port, args.seconds, random.Random(rng.random()), record) for n in range(args.clients))
        )
        await asyncio.sleep(3)  # the last rooms end
    finally:
        stop.set()
        await sampler
        alive = server.process.poll() is None
        returncode = server.stop()
    # Rooms that ended while their client was still there, and how long the others took to end.
    user_of = {e["conn"]: e.get("user") for e in server.of("auth_ok")}
    crashed, endings, exit_statuses = [], [], {}
    for end in server.of("session_end"):
        user = user_of.get(end["conn"])
        left = record["left_at"].get(user)
        exit_statuses[end["returncode"]] = exit_statuses.get(end["returncode"], 0) + 1
        if left is None:  # the room ended while its client was still there
            if end["returncode"] != 0:
                crashed.append({"user": user, "returncode": end["returncode"], "seconds": end["seconds"]})
            else:
                record["quit_by_a_key"] = record.get("quit_by_a_key", 0) + 1
            continue
        endings.append(end["ts"] - left)
    record.update(
        seconds=time.monotonic() - began,
        server_alive=alive,
        server_returncode=returncode,
        sessions_started=len(server.of("session_start")),
        crashed=crashed,
        end_after_disconnect_s=endings,
        exit_statuses=exit_statuses,
        peak_rss_mib=[p[0] / 1024 for p in peaks.values()],
        peak_size_mib=[p[1] / 1024 for p in peaks.values()],
        isolated=server.listening["isolated"],
        limits=[e["kind"] for e in server.of("limit")],
        log_lines=server.lines,
        server_errors=[e for e in server.of("error")],
        room_crashed=[e.get("error", "") for e in server.of("room_crashed")],
        input_dropped=sum(e.get("input_dropped", 0) for e in server.of("session_end")),
    )
    record.pop("left_at")
    return record


# -- 2. keystroke latency under a refused-request flood ------------------------------------------
async def keystrokes(session: Session, count: int) -> list[float]:
    times = []
    for press in range(count):
        await session.quiet(QUIET)
        start = len(session.output)
        began = time.perf_counter()
        session.process.stdin.write(DOWN if press % 2 == 0 else UP)
        await session.first_output(start, 20)
        await session.quiet(QUIET)
        times.append(session.last_output - began)
    return times


async def flooder(port: int, number: int, stop: asyncio.Event, counts: dict) -> None:
    while not stop.is_set():
        try:
            async with connect(port, f"flood{number}", f"127.0.1.{number + 1}") as conn:
                counts["connections"] += 1
                while not stop.is_set() and not conn.is_closed():
                    try:
                        await conn.open_connection("127.0.0.1", 9)
                    except asyncssh.ChannelOpenError as error:
                        if "closed" in error.reason.lower():  # the server has closed this connection
                            break
                        counts["refused"] += 1
        except (asyncssh.Error, OSError):
            counts["turned_away"] += 1
            await asyncio.sleep(0.01)


async def player_in_lobby(port: int, user: str) -> Session:
    """One player (from 127.0.0.2) whose room has drawn its lobby and settled for 2 s."""
    conn = await connect(port, user, "127.0.0.2")
    process = await conn.create_process(term_type="xterm-256color", term_size=(80, 24), encoding=None)
    session = Session(conn, process)
    asyncio.get_running_loop().create_task(session.pump())
    await session.wait_for(LOBBY, 0, 120)
    await asyncio.sleep(2)
    return session


async def flood(args: argparse.Namespace, data_dir: Path) -> dict:
    server = ServerProcess(data_dir / "flood", "--max-sessions", "10")
    result: dict = {}
    try:
        session = await player_in_lobby(server.port, "typist")
        result["baseline_s"] = await keystrokes(session, args.keys)
        stop = asyncio.Event()
        counts = {"connections": 0, "refused": 0, "turned_away": 0}
        flooders = [
            asyncio.get_running_loop().create_task(flooder(server.port, n, stop, counts)) for n in range(args.flooders)
        ]
        await asyncio.sleep(2)
        lines_before, began = server.lines, time.monotonic()
        result["flood_s"] = await keystrokes(session, args.keys)
        result["flood_seconds"] = time.monotonic() - began
        result["log_lines_during_flood"] = server.lines - lines_before
        stop.set()
        await asyncio.gather(*flooders)
        result["flood_counts"] = counts
        session.conn.close()
    finally:
        server.stop()
    return result


# -- 3. a resize storm's cost -------------------------------------------------------------------
async def resize(args: argparse.Namespace, data_dir: Path) -> dict:
    server = ServerProcess(data_dir / "resize", "--max-sessions", "5")
    result: dict = {}
    try:
        session = await player_in_lobby(server.port, "stormy")
        process = session.process
        pid = server.of("session_start")[0]["pid"]
        before = group_cpu_seconds(pid)
        await asyncio.sleep(20)
        result["idle_cpu_percent"] = 100 * (group_cpu_seconds(pid) - before) / 20
        before, began = group_cpu_seconds(pid), time.monotonic()
        for number in range(args.resizes):
            process.change_terminal_size(40 + number % 120, 10 + number % 40)
            await asyncio.sleep(max(0.0, began + (number + 1) * 20 / args.resizes - time.monotonic()))
        process.change_terminal_size(80, 24)
        seconds = time.monotonic() - began
        result["storm_cpu_percent"] = 100 * (group_cpu_seconds(pid) - before) / seconds
        result["storm_seconds"] = seconds
        session.conn.close()
    finally:
        server.stop()
    return result


def report(result: dict, args: argparse.Namespace, command: str, load_average: tuple[float, ...]) -> str:
    load_part, flood_part, resize_part = result.get("load"), result.get("flood"), result.get("resize")
    lines = [
        "# serve-ssh under load and abuse",
        "",
        f"Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. Machine: {os.cpu_count()} cores shared with other "
        f"work (load average {load_average[0]:.1f} at the start), Python {platform.python_version()}, "
        f"asyncssh {asyncssh.__version__}. Command: `{command}`",
        "",
    ]
    if load_part:
        refused = load_part["refused"]
        full = sum("full" in message for message in refused)
        lines += [
            f"## Load: {args.clients} clients, `--max-sessions {args.max_sessions}`, {args.seconds:.0f} s of "
            f"random keys, bytes, pastes and resizes (rooms sandboxed: {'yes' if load_part['isolated'] else 'no'})",
            "",
            "| figure | result |",
            "| --- | --- |",
            f"| server still up at the end | {'yes' if load_part['server_alive'] else 'NO'} "
            f"(exit status on SIGTERM {load_part['server_returncode']}) |",
            f"| sessions admitted and reaching the lobby | {load_part['admitted']} "
            f"(rooms started: {load_part['sessions_started']}) |",
            f'| clients refused | {len(refused)}, of which {full} with "The server is full" |',
            f"| clients admitted but no lobby within 180 s | {len(load_part['no_lobby'])} |",
            f"| rooms that ended while their client was there, status ≠ 0 (crashes) | {len(load_part['crashed'])} "
            f"{load_part['crashed'][:5] if load_part['crashed'] else ''} |",
            f"| errors the crashed rooms logged for the host (`room_crashed`) | "
            f"{'; '.join(sorted(set(load_part['room_crashed']))) or 'none'} |",
            f"| room exit statuses | {load_part['exit_statuses']}; rooms left by a key (status 0) before their "
            f"client went: {load_part.get('quit_by_a_key', 0)}; rooms still running when their client left: "
            f"{load_part['still_there']} |",
            f"| peak RSS per room (sampled each second) | {summary(load_part['peak_rss_mib'], 'MiB')} |",
            f"| peak address space per room (cap `--room-memory {args.room_memory}`) | "
            f"{summary(load_part['peak_size_mib'], 'MiB')} |",
            f"| room ended after its client's disconnect | "
            f"{summary([s * 1000 for s in load_part['end_after_disconnect_s']], 'ms')} |",
            f"| sent | {load_part['sent']}; input dropped by the rate bound: {load_part['input_dropped']} bytes |",
            f"| limit log lines | {sorted(set(load_part['limits']))}, {len(load_part['limits'])} in all; "
            f"server errors: {len(load_part['server_errors'])}; log lines: {load_part['log_lines']} |",
            "",
        ]
    if flood_part:
        base, under = flood_part["baseline_s"], flood_part["flood_s"]
        ratio = statistics.median(under) / statistics.median(base)
        lines += [
            f"## Keystroke latency under a refused-request flood ({args.flooders} flooding connections, "
            f"{args.keys} arrow keys each way)",
            "",
            "| figure | result |",
            "| --- | --- |",
            f"| keystroke to screen, alone | {summary([s * 1000 for s in base], 'ms')} |",
            f"| keystroke to screen, during the flood | {summary([s * 1000 for s in under], 'ms')} |",
            f"| ratio of medians (target ≤ 1.5) | {ratio:.2f} |",
            f"| flood | {flood_part['flood_counts']} over the whole run; "
            f"{flood_part['log_lines_during_flood']} log lines in {flood_part['flood_seconds']:.0f} s |",
            "",
        ]
    if resize_part:
        lines += [
            f"## Resize storm: {args.resizes} window-size changes in 20 s to one room in the lobby",
            "",
            "| figure | result |",
            "| --- | --- |",
            f"| room CPU, idle | {resize_part['idle_cpu_percent']:.1f}% of a core |",
            f"| room CPU, during the storm | {resize_part['storm_cpu_percent']:.1f}% of a core "
            f"(over {resize_part['storm_seconds']:.1f} s) |",
            "",
        ]
    return "\n".join(lines)


async def run(args: argparse.Namespace) -> dict:
    data_dir = Path(tempfile.mkdtemp(prefix="bench-ssh-load-"))
    result: dict = {}
    if "load" in args.parts:
        result["load"] = await load(args, data_dir)
    if "flood" in args.parts:
        result["flood"] = await flood(args, data_dir)
    if "resize" in args.parts:
        result["resize"] = await resize(args, data_dir)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=60)
    parser.add_argument("--max-sessions", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--room-memory", type=int, default=1024)
    parser.add_argument("--flooders", type=int, default=3)
    parser.add_argument("--keys", type=int, default=40, help="arrow keys timed alone and again during the flood")
    parser.add_argument("--resizes", type=int, default=7004)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--parts", nargs="+", default=["load", "flood", "resize"], choices=["load", "flood", "resize"])
    parser.add_argument("--out", type=Path, help="write the Markdown report here")
    parser.add_argument("--json", type=Path, help="write the raw figures here")
    args = parser.parse_args()
    command = (".venv/bin/python bench/bench_ssh_load.py " + " ".join(sys.argv[1:])).strip()
    load_average = os.getloadavg()
    result = asyncio.run(run(args))
    text = report(result, args, command, load_average)
    print(text)
    if args.out:
        args.out.write_text(text)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, default=str))
    load_part = result.get("load")
    return 0 if not load_part or (load_part["server_alive"] and not load_part["crashed"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
