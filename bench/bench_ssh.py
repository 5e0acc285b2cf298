"""Bench of ``gamenight serve-ssh`` with the real game room.

Starts the server (guest mode, a temporary data dir) and, with an asyncssh
client in this process:

1. opens ``--sessions`` sessions one after another, each with an 80x24 pty,
   timing connect-to-first-frame (TCP connect until the lobby title has
   arrived) for each;
2. holds them all idle in the lobby and reads each room's memory from
   ``/proc/<pid>/smaps_rollup`` (USS = private clean + private dirty; PSS),
   and the server's own;
3. with every session still held, sends arrow keys to ``--latency-sessions``
   sessions (``--keys`` each, alternating down/up, one at a time after the
   screen has gone quiet) and times keystroke-to-screen: from writing the key
   to the last byte of the redraw it causes (and to its first byte).

``--template on|off|auto`` is passed to the server: rooms forked from the room template or
spawned.  The load shapes the room template was built for: ``--sessions 50`` (50 sessions opened one after
another while the earlier ones stay: connect to first frame, median and p95; idle room USS) and
``--sessions 200`` (200 idle sessions held, keystroke to screen with them held).

``--ksm on`` is passed to the server (forked rooms opt in to kernel same-page merging);
``--host-ksm PAGES:MILLIS`` (root) also starts the host's KSM for the run, with
``/sys/kernel/mm/ksm/pages_to_scan`` = PAGES and ``sleep_millisecs`` = MILLIS, and puts every
value it changed back afterwards (``run`` back to what it was, 0 here).  The report then adds
ksmd's CPU time over the run and over the idle wait (``--settle``: give ksmd time for two full
scans), KSM's counters and each room's ``ksm_merging_pages`` / ``ksm_process_profit``.

Run:  .venv/bin/python bench/bench_ssh.py [--sessions 50] [--template on] [--out bench/results/ssh.md]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import asyncssh

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from timing import percentile  # bench/timing.py (this script's own folder is on sys.path)

from tests.core.ssh.processes import group_stats

LOBBY = b"choose a game"
QUIET = 0.15
"""A frame has ended when nothing more arrives for this long (Textual sends no synchronized-output
markers to a client that does not answer its query for them)."""
DOWN, UP = b"\x1b[B", b"\x1b[A"


@dataclass
class Session:
    """One held session: its connection, process, and everything it has printed (with arrival times)."""

    conn: asyncssh.SSHClientConnection
    process: asyncssh.SSHClientProcess
    output: bytearray = field(default_factory=bytearray)
    chunks: list[tuple[int, float]] = field(default_factory=list)
    """(offset just past the chunk, arrival time) for every chunk read."""
    last_output: float = 0.0
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def pump(self) -> None:
        while True:
            data = await self.process.stdout.read(65536)
            if not data:
                return
            self.output += data
            self.last_output = time.perf_counter()
            self.chunks.append((len(self.output), self.last_output))
            self.changed.set()

    async def _until(self, ready, timeout: float) -> None:
        deadline = time.perf_counter() + timeout
        while not ready():
            self.changed.clear()
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise TimeoutError
            await asyncio.wait_for(self.changed.wait(), remaining)

    async def wait_for(self, needle: bytes, start: int, timeout: float) -> float:
        """Wait until ``needle`` appears after offset ``start``; returns when it arrived."""
        await self._until(lambda: needle in self.output[start:], timeout)
        return self.last_output

    async def first_output(self, start: int, timeout: float) -> float:
        """Wait for output past offset ``start``; returns when its first chunk arrived."""
        await self._until(lambda: len(self.output) > start, timeout)
        return next(stamp for end, stamp in self.chunks if end > start)

    async def quiet(self, seconds: float) -> None:
        """Wait until nothing has arrived for ``seconds``."""
        while time.perf_counter() - self.last_output < seconds:
            await asyncio.sleep(seconds / 4)


class ServerProcess:
    """``serve-ssh --guest`` in a subprocess with no idle timeout and ``args``; its log lines parsed."""

    def __init__(self, data_dir: Path, *args: str) -> None:
        self.events: list[dict] = []
        self.lines = 0
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gamenight.ssh",
                "--guest",
                "--port",
                "0",
                "--data-dir",
                str(data_dir),
                "--idle-timeout",
                "0",
                *args,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if not self.ready.wait(60):
            raise RuntimeError("the server did not start")
        self.listening = self.of("listening")[0]
        self.port = self.listening["port"]

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines += 1
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            self.events.append(event)
            if event["event"] == "listening":
                self.ready.set()

    def of(self, name: str) -> list[dict]:
        return [e for e in self.events if e["event"] == name]

    def pids(self) -> list[int]:
        return [e["pid"] for e in self.of("session_start")]

    def stop(self) -> int:
        self.process.terminate()
        try:
            return self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return -9


def many_sessions(sessions: int) -> tuple[str, ...]:
    """Options for a server that admits ``sessions`` at once from one address (the bench's)."""
    return (
        "--max-sessions",
        str(sessions + 5),
        "--max-new-per-minute",
        "100000",
        "--max-per-address",
        str(sessions + 5),
        "--max-pending",
        str(max(32, sessions + 5)),
    )


KSM = Path("/sys/kernel/mm/ksm")
KSM_COUNTERS = ("full_scans", "pages_shared", "pages_sharing", "pages_unshared", "pages_volatile", "general_profit")


def ksm_read(name: str) -> int:
    return int((KSM / name).read_text().split()[0])


def ksmd_cpu_seconds() -> float | None:
    """User + system CPU time of the kernel's ksmd thread so far (``None``: no ksmd)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if stat.split(" (", 1)[1].startswith("ksmd)"):
            fields = stat.rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return None


def ksm_stat(pid: int) -> dict[str, int]:
    """The numbers of ``/proc/PID/ksm_stat`` (``ksm_merging_pages``, ``ksm_process_profit``, ...)."""
    values: dict[str, int] = {}
    try:
        for line in Path(f"/proc/{pid}/ksm_stat").read_text().splitlines():
            key, _, value = line.partition(" ")
            if value.strip().lstrip("-").isdigit():
                values[key] = int(value)
    except OSError:
        pass
    return values


class HostKsm:
    """Start the host's KSM with ``pages_to_scan`` / ``sleep_millisecs`` for the bench, and put
    back every value changed (``run`` first) when it ends, also on an error."""

    def __init__(self, spec: str | None) -> None:
        self.settings: dict[str, str] = {}
        if spec:
            pages, millis = spec.split(":")
            self.settings = {"pages_to_scan": str(int(pages)), "sleep_millisecs": str(int(millis)), "run": "1"}
        self.saved: dict[str, str] = {}

    def __enter__(self) -> HostKsm:
        for name, value in self.settings.items():
            self.saved[name] = (KSM / name).read_text().strip()
            (KSM / name).write_text(value)
        return self

    def __exit__(self, *exc: object) -> None:
        if "run" in self.saved:
            (KSM / "run").write_text(self.saved.pop("run"))
        for name, value in self.saved.items():
            (KSM / name).write_text(value)


def memory_kib(pid: int) -> tuple[int, int]:
    """(USS, PSS) of ``pid`` in KiB from /proc/<pid>/smaps_rollup."""
    values: dict[str, int] = {}
    with open(f"/proc/{pid}/smaps_rollup") as handle:
        for line in handle:
            parts = line.split()
            if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
                values[parts[0][:-1]] = int(parts[1])
    return values["Private_Clean"] + values["Private_Dirty"], values["Pss"]


def group_cpu_seconds(pgid: int) -> float:
    """User + system CPU time used so far by the processes of the process group ``pgid``."""
    ticks = sum(int(fields[11]) + int(fields[12]) for fields in group_stats(pgid, zombies=True).values())
    return ticks / os.sysconf("SC_CLK_TCK")


def group_memory_kib(pgid: int) -> tuple[int, int]:
    """USS and PSS summed over every process of the process group ``pgid``."""
    uss = pss = 0
    for pid in group_stats(pgid, zombies=True):
        try:
            one_uss, one_pss = memory_kib(pid)
        except (OSError, IndexError, KeyError, ValueError):
            continue
        uss += one_uss
        pss += one_pss
    return uss, pss


def room_first_frame(home: Path, python_options: tuple[str, ...] = ()) -> tuple[float, bytes]:
    """Start the room as the server does (``python -m gamenight``, fresh ``HOME``) in a local 80x24
    pty, without SSH; seconds from spawning it to its lobby title, and everything it printed."""
    import fcntl
    import select
    import struct
    import termios

    home.mkdir(parents=True)
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
    }
    argv = [sys.executable, *python_options, "-m", "gamenight"]
    argv += ["--saves", str(home / "saves"), "--config", str(home / "config.toml")]
    began = time.perf_counter()
    child = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
    os.close(slave)
    seen = b""
    while LOBBY not in seen and time.perf_counter() - began < 120:
        if select.select([master], [], [], 1)[0]:
            seen += os.read(master, 65536)
    seconds = time.perf_counter() - began
    child.kill()
    child.wait()
    os.close(master)
    return seconds, seen


def direct_first_frame(data_dir: Path, runs: int) -> list[float]:
    """Baseline without SSH: seconds from starting the room in a local 80x24 pty to its lobby title."""
    return [room_first_frame(data_dir / "direct" / str(run))[0] for run in range(runs)]


def median_ci(values: list[float], rounds: int = 2000, seed: int = 1) -> tuple[float, float]:
    """A 95% bootstrap confidence interval of the median."""
    rng = random.Random(seed)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(rounds))
    return medians[int(0.025 * rounds)], medians[int(0.975 * rounds) - 1]


def summary(values: list[float], unit: str, scale: float = 1.0) -> str:
    scaled = [v * scale for v in values]
    low, high = median_ci(scaled)
    return (
        f"median {statistics.median(scaled):.1f} {unit} (95% CI {low:.1f}–{high:.1f}), "
        f"p95 {percentile(scaled, 0.95):.1f}, min {min(scaled):.1f}, max {max(scaled):.1f}, n={len(scaled)}"
    )


async def open_session(port: int, number: int) -> tuple[Session, float]:
    began = time.perf_counter()
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        username=f"bench{number}",
        known_hosts=None,
        client_keys=None,
        agent_path=None,
        config=[],
        password="",  # a guest without a key: keyboard-interactive, nothing asked
    )
    process = await conn.create_process(term_type="xterm-256color", term_size=(80, 24), encoding=None)
    session = Session(conn, process)
    asyncio.get_running_loop().create_task(session.pump())
    arrived = await session.wait_for(LOBBY, 0, 120)
    return session, arrived - began


async def run(args: argparse.Namespace) -> dict:
    ksmd_began = ksmd_cpu_seconds()
    began = time.perf_counter()
    with HostKsm(args.host_ksm):
        result = await run_with_ksm(args)
    ksmd_ended = ksmd_cpu_seconds()
    if ksmd_began is not None and ksmd_ended is not None:
        result["ksmd_run_s"] = ksmd_ended - ksmd_began
    result["run_s"] = time.perf_counter() - began
    return result


async def run_with_ksm(args: argparse.Namespace) -> dict:
    data_dir = Path(tempfile.mkdtemp(prefix="bench-ssh-"))
    server = ServerProcess(data_dir, *many_sessions(args.sessions), "--template", args.template, "--ksm", args.ksm)
    sessions: list[Session] = []
    first_frame: list[float] = []
    latencies: list[float] = []
    first_bytes: list[float] = []
    result: dict = {"sessions_target": args.sessions}
    result["direct_first_frame_s"] = direct_first_frame(data_dir, args.direct_runs)
    trivial = ServerProcess(
        data_dir / "trivial",
        *many_sessions(5),
        "--template",
        args.template,
        "--command",
        "sh -c 'echo choose a game; exec sleep 600'",
    )
    overhead = []
    try:
        for number in range(args.direct_runs * 2):
            session, seconds = await open_session(trivial.port, number)
            overhead.append(seconds)
            session.conn.close()
    finally:
        trivial.stop()
    result["ssh_overhead_s"] = overhead
    try:
        for number in range(args.sessions):
            session, seconds = await open_session(server.port, number)
            sessions.append(session)
            first_frame.append(seconds)
            print(f"session {number + 1}/{args.sessions}: first frame after {seconds * 1000:.0f} ms", flush=True)
        ksmd_opened, scans_opened = ksmd_cpu_seconds(), ksm_read("full_scans") if KSM.exists() else 0
        await asyncio.sleep(args.settle)
        if ksmd_opened is not None:
            result["ksmd_settle_s"] = (ksmd_cpu_seconds() or 0.0) - ksmd_opened
        result["ksm_scans_settle"] = (ksm_read("full_scans") if KSM.exists() else 0) - scans_opened
        alive = [s for s in sessions if not s.process.is_closing()]
        result["sessions_held"] = len(alive)
        pids = server.pids()
        cpu_before, began_idle = [group_cpu_seconds(pid) for pid in pids], time.perf_counter()
        ksmd_idle = ksmd_cpu_seconds()
        await asyncio.sleep(args.idle_window)
        idle_seconds = time.perf_counter() - began_idle
        if ksmd_idle is not None:
            result["ksmd_idle_percent"] = 100 * ((ksmd_cpu_seconds() or 0.0) - ksmd_idle) / idle_seconds
        result["idle_cpu_percent"] = [
            100 * (group_cpu_seconds(pid) - before) / idle_seconds for pid, before in zip(pids, cpu_before, strict=True)
        ]
        memories = [group_memory_kib(pid) for pid in pids]
        result["uss_kib"] = [m[0] for m in memories]
        result["pss_kib"] = [m[1] for m in memories]
        result["server_uss_pss_kib"] = memory_kib(server.process.pid)
        templates = server.of("template")
        if templates:
            result["template_uss_pss_kib"] = memory_kib(templates[-1]["pid"])
        if KSM.exists():
            result["ksm"] = {
                name: ksm_read(name) for name in (*KSM_COUNTERS, "run", "pages_to_scan", "sleep_millisecs")
            }
            stats = [[ksm_stat(pid) for pid in group_stats(pgid)] for pgid in pids]
            result["room_ksm_merging_kib"] = [
                sum(one.get("ksm_merging_pages", 0) for one in group) * 4 for group in stats
            ]
            result["room_ksm_profit_kib"] = [
                sum(one.get("ksm_process_profit", 0) for one in group) / 1024 for group in stats
            ]
        result["ksm_option"] = server.listening.get("ksm"), server.listening.get("ksm_host")
        for session in sessions[: args.latency_sessions]:
            for press in range(args.keys):
                await session.quiet(QUIET)
                start = len(session.output)
                began = time.perf_counter()
                session.process.stdin.write(DOWN if press % 2 == 0 else UP)
                first = await session.first_output(start, 10)
                await session.quiet(QUIET)
                first_bytes.append(first - began)
                latencies.append(session.last_output - began)
        result["still_held_after_keys"] = sum(not s.process.is_closing() for s in sessions)
        result["isolated"] = server.listening["isolated"]
        result["rooms"] = f"{server.listening.get('rooms', 'spawn')} ({server.listening.get('rooms_why', '')})"
    finally:
        for session in sessions:
            session.conn.close()
        server.stop()
    result["first_frame_s"] = first_frame
    result["keystroke_s"] = latencies
    result["keystroke_first_byte_s"] = first_bytes
    return result


def report(result: dict, args: argparse.Namespace, command: str, seconds: float, load: tuple[float, ...]) -> str:
    uss = result["uss_kib"]
    pss = result["pss_kib"]
    server_uss, server_pss = result["server_uss_pss_kib"]
    lines = [
        "# serve-ssh bench",
        "",
        f"Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. Machine: {os.cpu_count()} cores "
        f"(shared with other work: load average {load[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end), "
        f"Python {platform.python_version()}, "
        f"asyncssh {asyncssh.__version__}. Run took {seconds:.0f} s.",
        "",
        f"Command: `{command}`",
        "",
        "Client: asyncssh in one process, 80x24 pty, TERM=xterm-256color; the real game room "
        f"(`python -m gamenight`), guest mode, server on 127.0.0.1, rooms sandboxed: "
        f"{'yes' if result['isolated'] else 'no'}; rooms started by: {result.get('rooms', 'spawn')}.",
        "",
        "| measure | result |",
        "| --- | --- |",
        f"| sessions held idle in the lobby at once | {result['sessions_held']} of {result['sessions_target']} "
        f"(still {result['still_held_after_keys']} after the keystroke test) |",
        f"| memory per session, USS | {summary([u / 1024 for u in uss], 'MiB')} |",
        f"| memory per session, PSS | {summary([p / 1024 for p in pss], 'MiB')} |",
        f"| all sessions together, USS / PSS | {sum(uss) / 1024:.0f} MiB / {sum(pss) / 1024:.0f} MiB |",
        f"| CPU per idle session in the lobby (over {args.idle_window:.0f} s) | "
        f"{summary(result['idle_cpu_percent'], '% of a core')}; all together "
        f"{sum(result['idle_cpu_percent']):.1f}% |",
        f"| the server process, USS / PSS | {server_uss / 1024:.1f} MiB / {server_pss / 1024:.1f} MiB |",
        f"| connect to first frame (all {len(result['first_frame_s'])} sessions, opened one after another "
        f"while the earlier ones are held) | {summary(result['first_frame_s'], 'ms', 1000)} |",
        f"| connect to first frame, the first 10 (few sessions held) | "
        f"{summary(result['first_frame_s'][:10], 'ms', 1000)} |",
        f"| baseline: start to first frame of the room in a local pty, no SSH (before any session) | "
        f"{summary(result['direct_first_frame_s'], 'ms', 1000)} |",
        f"| SSH overhead: connect to the first output of a trivial command instead of the room "
        f"(key exchange, auth, pty, the launcher and its sandbox) | {summary(result['ssh_overhead_s'], 'ms', 1000)} |",
        f"| keystroke to screen ({args.latency_sessions} sessions x {args.keys} arrow keys, all "
        f"{result['sessions_held']} held) | {summary(result['keystroke_s'], 'ms', 1000)} |",
        f"| keystroke to the first byte of the redraw | {summary(result['keystroke_first_byte_s'], 'ms', 1000)} |",
        *ksm_lines(result, args),
        "",
        "Connect-to-first-frame runs from the TCP connect to the arrival of the lobby title (key exchange, "
        "guest auth, pty, starting Python + Textual + the plugins, first paint). Keystroke to screen runs "
        "from writing an arrow key to the last byte of the redraw it causes (the output then stays quiet for "
        f"{QUIET * 1000:.0f} ms; that wait is not counted). USS counts memory only "
        "that room uses; PSS adds its share of shared pages (the Python binary, libraries). Medians have "
        "bootstrap 95% confidence intervals.",
        "",
    ]
    return "\n".join(lines)


def ksm_lines(result: dict, args: argparse.Namespace) -> list[str]:
    """The report's rows on the template and kernel same-page merging (KSM)."""
    lines = []
    if "template_uss_pss_kib" in result:
        uss, pss = result["template_uss_pss_kib"]
        lines.append(f"| the room template process, USS / PSS | {uss / 1024:.1f} MiB / {pss / 1024:.1f} MiB |")
    ksm = result.get("ksm")
    opted, host = result.get("ksm_option", (None, None))
    started = f"started by the bench: {args.host_ksm} (pages_to_scan:sleep_millisecs)" if args.host_ksm else "as it was"
    lines.append(
        f"| KSM: `serve-ssh --ksm {args.ksm}` (listening: ksm={opted}, ksm_host={host}) | host KSM {started} |"
    )
    if ksm is not None:
        counters = ", ".join(
            f"{name} {ksm[name]}" for name in (*KSM_COUNTERS, "run", "pages_to_scan", "sleep_millisecs")
        )
        profit, sharing = ksm["general_profit"] / 2**20, ksm["pages_sharing"] * 4 / 1024
        lines.append(
            f"| KSM counters when memory was read | {counters} "
            f"(general_profit {profit:.0f} MiB; pages_sharing {sharing:.0f} MiB) |"
        )
        merging = summary([k / 1024 for k in result["room_ksm_merging_kib"]], "MiB")
        lines.append(f"| per session: KSM-merged pages (`ksm_merging_pages`, whole group) | {merging} |")
        profits = summary([k / 1024 for k in result["room_ksm_profit_kib"]], "MiB")
        lines.append(f"| per session: `ksm_process_profit` (whole group) | {profits} |")
    if "ksmd_run_s" in result:
        run_s, settle_s = result["ksmd_run_s"], result.get("ksmd_settle_s", 0.0)
        lines.append(
            f"| ksmd CPU time: whole run ({result['run_s']:.0f} s) / the {args.settle:.0f} s idle wait "
            f"({result.get('ksm_scans_settle', 0)} full scans) | {run_s:.1f} s "
            f"({100 * run_s / result['run_s']:.1f}% of a core) / "
            f"{settle_s:.1f} s ({100 * settle_s / max(args.settle, 1e-9):.1f}% of a core) |"
        )
        lines.append(
            f"| ksmd CPU while the rooms then sat idle ({args.idle_window:.0f} s, after the wait) | "
            f"{result.get('ksmd_idle_percent', 0.0):.1f}% of a core |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--latency-sessions", type=int, default=5)
    parser.add_argument("--keys", type=int, default=20, help="arrow keys per latency session")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds to wait before measuring memory")
    parser.add_argument(
        "--direct-runs", type=int, default=5, help="runs of the baseline: the room started in a local pty, without SSH"
    )
    parser.add_argument("--idle-window", type=float, default=10.0, help="seconds over which idle CPU is measured")
    parser.add_argument(
        "--template",
        choices=("auto", "on", "off"),
        default="auto",
        help="serve-ssh's --template (rooms forked or spawned)",
    )
    parser.add_argument("--ksm", choices=("on", "off"), default="off", help="serve-ssh's --ksm (rooms opt in to KSM)")
    parser.add_argument(
        "--host-ksm",
        metavar="PAGES:MILLIS",
        help="(root) start the host's KSM for the run with these pages_to_scan:sleep_millisecs, "
        "and put its settings back afterwards",
    )
    parser.add_argument("--out", type=Path, help="write the Markdown report here")
    args = parser.parse_args()
    command = ".venv/bin/python bench/bench_ssh.py " + " ".join(sys.argv[1:])
    load = os.getloadavg()
    began = time.perf_counter()
    result = asyncio.run(run(args))
    text = report(result, args, command.strip(), time.perf_counter() - began, load)
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0 if result["sessions_held"] == args.sessions else 1


if __name__ == "__main__":
    raise SystemExit(main())
