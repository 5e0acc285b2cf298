"""The combined load across two hosts, one of them killed in the middle: 20 SEVEN tables of simulated
clients and 10 real SSH sessions spread over two ``serve-ssh`` hosts on one Redis.

Four kinds of process, so that each one's CPU is its own:

* **two hosts** ("host-a", "host-b"): each a real serve-ssh server (``gamenight.ssh.server.serve(...,
  tables=service)``, key logins, rooms sandboxed as usual) with its table service on one throwaway
  redis-server (``--tables-url``, append-only, ``everysec``) and one shared data dir; each also
  listens on a Unix socket of the bench's where a simulated person's connection is served as a room's
  (the identity on its first line, then the room protocol);
* **the simulated people** (one process): ``--tables`` SEVEN tables x 5 seats on the real protocol,
  random legal moves after a think of ``--think`` s (half to one and a half of it), one deal per table.
  Table ``t`` is opened on host ``t % 2`` and its seats alternate hosts, so every table has seats
  relayed from the other host.  A person whose connection dies connects again (to the other host when
  theirs is gone) and joins their seat again; a person told ``table-moved`` joins again; one who is
  not seated within 3 s of joining asks again -- as a person would;
* this process: ``--pairs`` pairs of real OpenSSH clients in pseudo-terminals (pyte, 80x24) at Mille
  tables, ann{n} on host ``n % 2`` and ben{n} on the other (every move crosses the hosts), ``--moves``
  moves a table by keys before the kill and as many after it (``bench_tables_ssh.play``).

Once the SSH players' first moves are made and ``--kill-after`` s of the simulated deal have passed, the
host that holds the most tables is killed (SIGKILL: nothing written, no lease given up).  The SSH
person on it connects again through the survivor once it runs their table; both screens must show the
stored hands again, then they play on.

Checked at the end, for every SEVEN table, from Redis alone: its deal reached its end; its state and log
replay with the game's rules; every move any client was shown (an Event, or a line of a snapshot's log,
on any connection) is that move of the replayed log; each person's last view equals the replayed
match's view of their seat.  For every SSH table: every screen shows the stored hands, and the moves
stored before the kill are still the first ones.  Figures: failover per table the dead host held (the
kill -> the first move accepted on the survivor, seen by any of its clients), latency before and after
the kill (simulated: a Move written -> each other seat's Event, split same-host / cross-host; SSH: the
last key -> the other person's screen), Redis commands and bytes per move (``INFO commandstats``,
``INFO stats``; the bench's own reads subtracted), Redis connections (both hosts, then the survivor),
the survivor's CPU and RSS.

Run:  .venv/bin/python bench/bench_tables_load2.py [--tables 20] [--pairs 5] [--moves 20] [--think 0.1]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import platform
import random
import resource
import signal
import socket
import statistics
import sys
import tempfile
import threading
import time
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import msgspec  # noqa: E402
from bench_tables import SEATS, receive_report, rss_kib  # noqa: E402
from bench_tables_load import read_line  # noqa: E402
from bench_tables_ssh import TimedTerminal, join_waiting, play  # noqa: E402
from gamenight.plugins import load_registry  # noqa: E402
from gamenight.tables import protocol as p  # noqa: E402
from gamenight.tables.client import TableClient  # noqa: E402
from timing import percentile  # noqa: E402

from tests.core.ssh.conftest import Terminal, ssh_argv, wait_until  # noqa: E402
from tests.core.ssh.test_shared_tables import LOBBY, authorize, hand_on_screen, names, open_table  # noqa: E402

HOSTS = ("host-a", "host-b")


def say(text: str) -> None:
    """Progress, on stderr (the figures go to stdout)."""
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


JOIN_AGAIN = 3.0
"""Seconds a person waits for their seat after joining before asking again."""

# -- a host process -------------------------------------------------------------------------------


async def run_host(args, index: int, data: Path, authorized: Path, url: str, path: Path, out: int) -> None:
    from gamenight.ssh.log import EventLog
    from gamenight.ssh.server import TablesLog, serve
    from gamenight.ssh.settings import parser, settings_from_args
    from gamenight.tables.service import TableService

    service = TableService(
        load_registry(),
        data / "ssh",
        seed=args.seed + index,
        message_rate=(1000.0, 1000.0),
        tables_url=url,
        host_id=HOSTS[index],
    )
    await service.start()
    options = parser()
    settings = settings_from_args(
        options,
        options.parse_args(
            [
                *("--authorized-keys", str(authorized), "--data-dir", str(data / "ssh"), "--port", "0"),
                *("--max-per-address", "100", "--max-new-per-minute", "100", "--max-sessions", "100"),
                *("--tables-url", url),
            ]
        ),
    )
    mark: dict[str, Any] = {}

    def usage() -> float:
        own = resource.getrusage(resource.RUSAGE_SELF)
        return own.ru_utime + own.ru_stime

    def pool_size() -> int:
        pool = service.store.client.connection_pool
        return len(pool._available_connections) + len(pool._in_use_connections)

    async def person(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        words = (await reader.readline()).decode().split()
        if words[:1] == ["person"]:
            with contextlib.suppress(asyncio.CancelledError):  # (the host stops)
                await service.serve(reader, writer, words[1], words[2])
            return
        if words[:1] == ["mark"]:
            mark.update(cpu=usage(), rss=rss_kib(), at=time.monotonic())
            answer: dict[str, Any] = {}
        else:  # stats
            answer = {
                "cpu": usage() - mark["cpu"],
                "wall": time.monotonic() - mark["at"],
                "rss_mark": mark["rss"],
                "rss": rss_kib(),
                "rss_peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                "tables": sorted(service.tables),
                "redis_connections": pool_size(),
                "tasks": len(asyncio.all_tasks()),
            }
        writer.write((json.dumps(answer) + "\n").encode())
        await writer.drain()
        writer.close()

    ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    with open(data / f"{HOSTS[index]}.log", "w") as log_file:
        events = EventLog(log_file)
        tables_log = logging.getLogger("gamenight.tables")  # the service's lines in the host's log, as
        tables_log.addHandler(TablesLog(events))  # serve-ssh's own service writes them
        tables_log.setLevel(logging.INFO)
        tables_log.propagate = False
        server = asyncio.create_task(serve(settings, events, ready, tables=service))
        listener = await asyncio.start_unix_server(person, path=str(path))
        os.write(out, f"{await ready}\n".encode())
        async with listener:
            await server  # until SIGTERM (or SIGKILL)


def host_process(args, index, data, authorized, url, path, out) -> None:
    try:
        asyncio.run(run_host(args, index, data, authorized, url, path, out))
    finally:
        os._exit(0)


def ask(path: Path, what: str) -> dict:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(30)
        sock.connect(str(path))
        sock.sendall(f"{what}\n".encode())
        data = b""
        while not data.endswith(b"\n"):
            chunk = sock.recv(1 << 16)
            if not chunk:
                break
            data += chunk
    return json.loads(data)


# -- the simulated people (a process of their own) ------------------------------------------------


class Record:
    """What the simulated people saw, on one clock (``time.monotonic``: the machine's, as the parent's)."""

    def __init__(self) -> None:
        self.sent: dict[tuple[str, int], tuple[float, int]] = {}  # (table, turn) -> (when, mover's host)
        self.received: list[tuple[str, int, float, int]] = []  # (table, turn, when, receiver's host)
        self.first: dict[tuple[str, int], float] = {}  # (table, turn) -> first Event anywhere
        self.shown: dict[tuple[str, int], list[Any]] = {}  # (table, move index) -> (seat, text)
        self.conflicts: list[Any] = []
        self.reconnects = 0
        self.rejoins = 0
        self.moved = 0


class Person:
    def __init__(self, index: int, seat: int, host: int, paths: list[str], record: Record) -> None:
        self.index, self.seat, self.host, self.paths, self.record = index, seat, host, paths, record
        self.identity, self.name = f"bench:{index}", f"P{index}"
        self.table = ""
        self.client: TableClient | None = None

    def show(self, key: tuple[str, int], entry: list[Any]) -> None:
        known = self.record.shown.setdefault(key, entry)
        if known != entry:
            self.record.conflicts.append((key, known, entry))

    def hear(self, message: Any) -> None:
        now = time.monotonic()
        if isinstance(message, p.Event):
            self.record.first.setdefault((message.table, message.turn), now)
            self.show((message.table, message.turn - 1), [message.seat, message.text])
            if message.seat >= 0 and message.seat != self.seat:
                self.record.received.append((message.table, message.turn, now, self.host))
        elif isinstance(message, p.Snapshot) and message.table.table == self.table:
            for offset, (seat, text) in enumerate(message.log):
                self.show((self.table, message.log_start + offset), [seat, text])

    async def connect(self) -> TableClient:
        """Connect to this person's host, or (it is gone) the other one, until one answers."""
        while True:
            try:
                reader, writer = await asyncio.open_unix_connection(self.paths[self.host])
                writer.write(f"person {self.identity} {self.name}\n".encode())
                client = TableClient(reader, writer)
                client.listeners.append(self.hear)
                await client.connect()
                await client.wait_for(lambda c: c.name)
                self.client = client
                return client
            except (OSError, ConnectionError, TimeoutError):
                self.host = 1 - self.host
                await asyncio.sleep(0.2)

    async def join(self) -> None:
        assert self.client is not None
        self.client.snapshot = None
        self.joined = time.monotonic()
        await self.client.send(p.Join(self.table, self.seat))

    async def play(self, opened: dict[int, asyncio.Future[str]], table: int, think: float, rng: random.Random):
        client = await self.connect()
        if self.seat == 0:
            await client.send(p.OpenTable("seven", [p.SeatSpec("person")] * SEATS))
            snap = await client.wait_for(lambda c: c.snapshot, 60)
            self.table = snap.table.table
            opened[table].set_result(self.table)
            self.joined = time.monotonic()
        else:
            self.table = await opened[table]
            await self.join()
        answered, errors = -1, 0
        while True:
            client = self.client
            assert client is not None
            if client.closed.is_set():  # (found closed while thinking: a wait would see its last view, not this)
                await self._again()
                answered, errors = -1, 0
                continue

            def ready(c: TableClient, answered: int = answered, errors: int = errors) -> Any:
                if any(e.code == "table-moved" for e in c.errors[errors:]):
                    return "moved"
                snap = c.snapshot
                if snap is None or snap.table.table != self.table or snap.seat != self.seat:
                    return None
                if snap.table.status == "over" or (snap.legal and snap.turn != answered):
                    return snap
                return None

            try:
                snap = await client.wait_for(ready, JOIN_AGAIN)
            except TimeoutError:
                if client.snapshot is None and time.monotonic() - self.joined >= JOIN_AGAIN:
                    self.record.rejoins += 1  # not seated yet: ask again (the table is being taken over)
                    await self._safely(self.join())
                    answered = -1  # (a move sent to the dead host may never have landed: it is asked again)
                continue
            except ConnectionError:
                await self._again()
                answered, errors = -1, 0
                continue
            if snap == "moved":
                self.record.moved += 1
                errors, answered = len(client.errors), -1
                await self._safely(self.join())
                continue
            if snap.table.status == "over":
                return
            if think:
                await asyncio.sleep(rng.uniform(think / 2, think * 1.5))
                now = client.snapshot
                if now is None or now.turn != snap.turn or client.closed.is_set():
                    continue
            answered = snap.turn
            self.record.sent[(self.table, snap.turn + 1)] = (time.monotonic(), self.host)
            await self._safely(client.send(p.Move(rng.choice(snap.legal), snap.turn)))

    async def _safely(self, sending: Any) -> None:
        try:
            await sending
        except (ConnectionError, OSError):
            pass  # the connection is gone: the next wait finds it closed

    async def _again(self) -> None:
        """The connection died (its host was killed): connect again and join the seat again."""
        self.record.reconnects += 1
        if self.client is not None:
            await self.client.close()
        self.host = 1 - self.host
        await self.connect()
        await self.join()


async def run_people(args, paths: list[str], out: socket.socket, go: int) -> None:
    await asyncio.get_running_loop().run_in_executor(None, os.read, go, 1)
    record = Record()
    people = [Person(t * SEATS + s, s, (t + s) % 2, paths, record) for t in range(args.tables) for s in range(SEATS)]
    opened = {t: asyncio.get_running_loop().create_future() for t in range(args.tables)}
    rng = random.Random(args.seed)
    started = time.monotonic()

    stuck: list[str] = []
    try:
        await asyncio.wait_for(
            asyncio.gather(
                *(
                    person.play(opened, person.index // SEATS, args.think, random.Random(rng.random()))
                    for person in people
                )
            ),
            args.timeout,
        )
    except TimeoutError:  # some people never saw their deal's end: said, with their last view
        stuck = [
            p.identity
            for p in people
            if not (p.client and p.client.snapshot and p.client.snapshot.table.status == "over")
        ]
        for person in people:  # what each stuck person last had, for the hosts' logs (--keep)
            if person.identity in stuck:
                client, snap = person.client, person.client and person.client.snapshot
                seen = (snap.table.table, snap.seat, snap.turn, snap.table.status, bool(snap.legal)) if snap else None
                codes = [e.code for e in client.errors][-6:] if client else []
                say(
                    f"stuck {person.identity} (table {person.table} seat {person.seat}, host {HOSTS[person.host]}): "
                    f"snapshot {seen}, errors {codes}, closed {client.closed.is_set() if client else None}, "
                    f"joined {time.monotonic() - person.joined:.0f} s ago"
                )
    elapsed = time.monotonic() - started
    finals = []
    for person in people:
        snap = person.client.snapshot
        if snap is None:
            continue
        finals.append(
            {
                "table": person.table,
                "seat": person.seat,
                "host": person.host,
                "view": snap.view,
                "turn": snap.turn,
                "status": snap.table.status,
                "log": person.client.log,
            }
        )
    report = msgspec.msgpack.encode(
        {
            "finals": finals,
            "elapsed": elapsed,
            "started": started,
            "sent": [[t, turn, when, host] for (t, turn), (when, host) in record.sent.items()],
            "received": record.received,
            "first": [[t, turn, when] for (t, turn), when in record.first.items()],
            "shown": [[t, index, entry] for (t, index), entry in record.shown.items()],
            "conflicts": record.conflicts,
            "reconnects": record.reconnects,
            "rejoins": record.rejoins,
            "moved": record.moved,
            "stuck": stuck,
        }
    )
    out.sendall(len(report).to_bytes(8, "big") + report)
    await asyncio.sleep(3600)  # connected until the parent has checked and ends this process


def people_process(args, paths, out, go) -> None:
    try:
        asyncio.run(run_people(args, paths, out, go))
    finally:
        os._exit(0)


# -- Redis, read by this process ------------------------------------------------------------------


class Store:
    """This process's reads of the shared Redis (counted: they are left out of the per-move figures)."""

    def __init__(self, url: str) -> None:
        import redis
        from gamenight.tables.redis_store import RedisTableStore

        self.url = url
        self.sync = redis.Redis.from_url(url)
        self.loop = asyncio.new_event_loop()
        self.store = RedisTableStore.connect(url)
        self.lock = threading.Lock()
        self.loads = 0
        self.registry = load_registry()

    def run(self, coroutine: Any) -> Any:
        with self.lock:
            return self.loop.run_until_complete(coroutine)

    def listed(self) -> dict[str, Any]:
        with self.lock:
            self.loads += 1  # one HGETALL
            return self.loop.run_until_complete(self.store.listed())

    def load(self, table_id: str) -> Any:
        with self.lock:
            self.loads += 1  # one EVALSHA
            return self.loop.run_until_complete(self.store.load(table_id))

    def match(self, table_id: str) -> Any:
        """The table's match as stored: its state replayed with the rules, then the moves logged since."""
        from gamenight.saves import match_from_document

        stored = self.load(table_id)
        if stored.state is None:
            return None
        match = match_from_document(self.registry, tomllib.loads(stored.state.document)["match"], "redis")
        for entry in stored.log:
            match.apply(entry.action)
        return match

    def moves(self, table_id: str) -> int:
        stored = self.load(table_id)
        return (stored.state.turn if stored.state else 0) + len(stored.log)

    def lobby_table(self, names: tuple[str, str]) -> str | None:
        with self.lock:
            self.loads += 1
            lobby = self.loop.run_until_complete(self.store.lobby())
        for table_id, summary in lobby.items():
            if tuple(seat.name for seat in summary.info.seats) == names:
                return table_id
        return None

    def commands(self) -> tuple[int, dict[str, int]]:
        """Commands Redis ran (``INFO commandstats``, but INFO itself) and its network bytes in and out."""
        stats = self.sync.info("commandstats")
        calls = {name: value["calls"] for name, value in stats.items() if name != "cmdstat_info"}
        net = self.sync.info("stats")
        return net["total_net_input_bytes"] + net["total_net_output_bytes"], calls

    def clients(self) -> int:
        return int(self.sync.info("clients")["connected_clients"])

    def close(self) -> None:
        with self.lock:
            self.loop.run_until_complete(self.store.close())
            self.loop.close()
        self.sync.close()


# -- this process ---------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=20, help="SEVEN tables of simulated people")
    parser.add_argument("--think", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pairs", type=int, default=5, help="Mille tables of two real SSH sessions")
    parser.add_argument("--moves", type=int, default=20, help="moves timed at each SSH table before and after")
    parser.add_argument("--quiet", type=float, default=0.3)
    parser.add_argument("--kill-after", type=float, default=30.0, help="seconds of the simulated deal before the kill")
    parser.add_argument("--timeout", type=float, default=1200.0, help="seconds the simulated deals may take")
    parser.add_argument("--keep", action="store_true", help="keep the hosts' data dir and logs (its path is printed)")
    args = parser.parse_args()
    from tests.core.tables.redis_server import RedisServer

    redis_server = RedisServer(appendonly=True, fsync="everysec")
    redis_server.start()
    folder = tempfile.mkdtemp(prefix="gn-load2-")
    tmp = Path(folder)
    people = [(f"ann{n}", f"ben{n}") for n in range(args.pairs)]
    keys, authorized = authorize(tmp, [name for pair in people for name in pair] or ["nobody"])
    paths = [tmp / f"{name}.sock" for name in HOSTS]
    pids: list[int] = []
    ports: list[int] = []
    for index in range(2):  # one after the other: the first makes the shared data dir's host key
        from_host, to_parent = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(from_host)
            host_process(args, index, tmp, authorized, redis_server.url, paths[index], to_parent)
        os.close(to_parent)
        pids.append(pid)
        ports.append(int(read_line(from_host, 120)))
    report_parent, report_child = socket.socketpair()
    go_read, go_write = os.pipe()
    people_pid = os.fork()
    if people_pid == 0:
        report_parent.close()
        people_process(args, [str(path) for path in paths], report_child, go_read)
    report_child.close()
    store = Store(redis_server.url)
    terminals: list[Terminal] = []
    before: dict[str, list[float]] = {"draw": [], "use": [], "discard": []}
    after: dict[str, list[float]] = {"draw": [], "use": [], "discard": []}
    clients_seen: list[tuple[float, int]] = []
    sampling = threading.Event()
    failures: list[str] = []
    victim = -1
    killed = 0.0
    try:
        say(f"hosts up on ports {ports}")
        # The SSH tables first (the Tables list then shows them alone): ann{n} opens on host n % 2.
        ssh_tables: list[tuple[str, list[Terminal]]] = []
        for n, (ann, ben) in enumerate(people):
            seats: list[Terminal] = []
            for name, host in ((ann, n % 2), (ben, 1 - n % 2)):
                terminals.append(TimedTerminal(ssh_argv(ports[host], name, keys[name], "-tt"), 80, 24))
                terminals[-1].wait_for(LOBBY, 90)
                seats.append(terminals[-1])
            open_table(seats[0])
            join_waiting(seats[1])
            table_id = wait_until(lambda pair=(ann, ben): store.lobby_table(pair), 30, f"{ann}'s table in the lobby")
            ssh_tables.append((table_id, seats))

        def sample() -> None:
            while not sampling.wait(0.5):
                clients_seen.append((time.monotonic(), store.clients()))

        say("SSH tables open")
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        for path in paths:
            ask(path, "mark")
        bytes_before, calls_before = store.commands()
        loads_before = store.loads
        load_start = os.getloadavg()[0]
        began = time.monotonic()
        os.write(go_write, b"g")  # the simulated people start, and so do the SSH players

        def play_all(moves_of: dict[str, list[float]]) -> None:
            threads = [
                threading.Thread(target=play_one, args=(table_id, seats, moves_of), name=f"ssh-{table_id}", daemon=True)
                for table_id, seats in ssh_tables
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()

        def play_one(table_id: str, seats: list[Terminal], moves_of: dict[str, list[float]]) -> None:
            try:
                play(lambda: store.match(table_id), seats, args.moves, args.quiet, moves_of)  # type: ignore[arg-type]
            except AssertionError as error:
                failures.append(f"SSH table {table_id}: {str(error)[:300]}")

        sys.setswitchinterval(0.0005)
        play_all(before)
        while time.monotonic() - began < args.kill_after:
            time.sleep(0.1)
        say("SSH moves before the kill done")
        stats_before = [ask(path, "stats") for path in paths]
        listed = store.listed()
        held = [[t for t, entry in listed.items() if entry.host == name] for name in HOSTS]
        victim = 0 if len(held[0]) >= len(held[1]) else 1
        survivor = 1 - victim
        os.kill(pids[victim], signal.SIGKILL)
        killed = time.monotonic()
        load_kill = os.getloadavg()[0]
        say(f"killed {HOSTS[victim]} ({len(held[victim])} tables; the other {len(held[1 - victim])})")
        os.waitpid(pids[victim], 0)
        at_kill = {t: store.moves(t) for t in held[victim] if not store.match(t).over}  # (over: nothing to take)
        ssh_before = {table_id: store.match(table_id) for table_id, _ in ssh_tables}
        # The SSH person on the dead host connects again through the survivor once it runs their table;
        # so does one whose room the survivor relayed to the dead host (told table-moved, their room
        # went back to its lobby; connecting again lands them at their seat, as the Tables list would).
        for n, (table_id, seats) in enumerate(ssh_tables):
            on_victim = 0 if n % 2 == victim else 1
            seats[on_victim].wait_exit(60)
            wait_until(
                lambda t=table_id: (e := store.listed().get(t)) is not None and e.host == HOSTS[survivor],
                60,
                f"the survivor to run SSH table {table_id}",
            )
            again = [0, 1] if n % 2 == victim else [on_victim]
            for seat in again:
                seats[seat].close()
                name = people[n][seat]
                terminals.append(TimedTerminal(ssh_argv(ports[survivor], name, keys[name], "-tt"), 80, 24))
                seats[seat] = terminals[-1]
        for table_id, seats in ssh_tables:
            match = store.match(table_id)
            try:
                wait_until(
                    lambda m=match, s=seats: all(
                        hand_on_screen(t) == names(m.state.seats[n].hand) for n, t in enumerate(s)
                    ),
                    60,
                    "both screens to show the stored hands again",
                )
            except AssertionError as error:
                failures.append(f"SSH table {table_id} after the kill: {error}")
        back = time.monotonic() - killed
        say(f"SSH screens back after {back:.1f} s")
        play_all(after)
        load_ssh_done = os.getloadavg()[0]
        say("SSH moves after the kill done; waiting for the simulated deals")
        report = receive_report(report_parent)
        say("simulated deals done")
        sampling.set()
        bytes_after, calls_after = store.commands()
        stats_after = ask(paths[survivor], "stats")
        loads = store.loads - loads_before
        # -- checks: every table, from Redis alone ---------------------------------------------------
        lost = check_tables(store, report, failures)
        for table_id, seats in ssh_tables:
            match = store.match(table_id)
            old = ssh_before[table_id]
            if [e.action for e in match.log][: len(old.log)] != [e.action for e in old.log]:
                failures.append(f"SSH table {table_id}: the moves stored before the kill changed")
            try:
                wait_until(
                    lambda m=match, s=seats: all(
                        hand_on_screen(t) == names(m.state.seats[n].hand) for n, t in enumerate(s)
                    ),
                    30,
                    "the screens to show the stored hands",
                )
            except AssertionError:
                failures.append(f"SSH table {table_id}: a screen differs from the stored hand")
        ssh_moves = sum(len(store.match(t).log) for t, _ in ssh_tables)
    finally:
        sampling.set()
        for terminal in terminals:
            terminal.close()
        for index, pid in enumerate(pids):
            if index != victim:
                os.kill(pid, signal.SIGTERM)
                os.waitpid(pid, 0)
        os.kill(people_pid, signal.SIGKILL)
        os.waitpid(people_pid, 0)
        store.close()
        end_rooms(tmp)
        redis_server.cleanup()
        import shutil

        if args.keep:
            say(f"kept: {folder} (the hosts' logs: host-*.log)")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    figures(
        args,
        report,
        lost,
        failures,
        victim,
        killed,
        held,
        at_kill,
        before,
        after,
        (bytes_after - bytes_before, calls_after, calls_before, loads, ssh_moves),
        stats_before,
        stats_after,
        clients_seen,
        (load_start, load_kill, load_ssh_done, os.getloadavg()[0]),
        back,
    )
    return 1 if failures or lost else 0


def check_tables(store: Store, report: dict, failures: list[str]) -> list[str]:
    """Every SEVEN table from Redis: finished, replays, shows nothing it does not hold; the people whose
    last view differs from the replayed match's."""
    from gamenight.tables.persist import describe

    lost = []
    shown: dict[str, dict[int, list[Any]]] = {}
    for table_id, index, entry in report["shown"]:
        shown.setdefault(table_id, {})[index] = entry
    for table_id in sorted({final["table"] for final in report["finals"]}):
        try:
            match = store.match(table_id)
        except Exception as error:  # a log that does not replay: the failure says how
            failures.append(f"table {table_id} does not replay: {type(error).__name__}: {error}")
            continue
        if match is None or not match.over:
            failures.append(f"table {table_id} did not finish")
            continue
        log = [list(entry) for entry in describe(match)]
        for index, entry in shown.get(table_id, {}).items():
            if index >= len(log) or log[index] != list(entry):
                failures.append(
                    f"table {table_id}: move {index + 1} shown as {entry}, stored as {log[index : index + 1]}"
                )
        for final in (f for f in report["finals"] if f["table"] == table_id):
            view = msgspec.msgpack.decode(msgspec.msgpack.encode(match.view(final["seat"])))
            same = final["view"] == view and final["turn"] == len(match.log) and final["log"] == log
            if not same or final["status"] != "over":
                lost.append(f"{table_id}:{final['seat']}")
    if report["stuck"]:
        failures.append(f"{len(report['stuck'])} people never saw their deal's end: {report['stuck'][:5]}")
    if report["conflicts"]:
        failures.append(f"{len(report['conflicts'])} moves shown two ways: {report['conflicts'][:2]}")
    return lost


def end_rooms(tmp: Path) -> None:
    """The rooms of both hosts end (the dead host's too: their sessions are gone)."""
    for log_path in tmp.glob("host-*.log"):
        for line in log_path.read_text(errors="replace").splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "session_start" and event.get("pid"):
                try:
                    wait_until(lambda pid=event["pid"]: not _group(pid), 10, "a room to end")
                except AssertionError:
                    os.killpg(event["pid"], signal.SIGKILL)


def _group(pgid: int) -> list[int]:
    from tests.core.ssh.processes import process_group

    return process_group(pgid)


def _ms(values: list[float]) -> str:
    if not values:
        return "none"
    ms = [v * 1000 for v in values]
    return (
        f"median {statistics.median(ms):.1f} ms, IQR {percentile(ms, 0.25):.1f}-{percentile(ms, 0.75):.1f}, "
        f"p95 {percentile(ms, 0.95):.1f}, p99 {percentile(ms, 0.99):.1f}, max {max(ms):.1f}, n={len(ms)}"
    )


def figures(
    args, report, lost, failures, victim, killed, held, at_kill, before, after, redis, stats_before, stats_after,
    clients_seen, loads, back,
) -> None:  # fmt: skip
    sent = {(t, turn): (when, host) for t, turn, when, host in report["sent"]}
    latency: dict[str, list[float]] = {}
    for t, turn, when, host in report["received"]:
        if (t, turn) not in sent:
            continue
        began, mover = sent[(t, turn)]
        period = "before" if began < killed else "after"
        where = "same host" if mover == host else "cross-host"
        latency.setdefault(f"{period}, {where}", []).append(when - began)
    first: dict[str, list[tuple[int, float]]] = {}
    for t, turn, when in report["first"]:
        first.setdefault(t, []).append((turn, when))
    failover = []
    simulated = {final["table"] for final in report["finals"]}
    for t, moves in at_kill.items():
        if t not in simulated:
            continue  # an SSH table: its people are back when their screens are ("SSH screens back")
        after_kill = [when for turn, when in first.get(t, []) if turn > moves and when > killed]
        if after_kill:
            failover.append(min(after_kill) - killed)
        else:
            failures.append(f"table {t}: no move after the kill")
    size, calls_after, calls_before, own_loads, ssh_moves = redis
    delta = {name: calls_after.get(name, 0) - calls_before.get(name, 0) for name in calls_after}
    total = sum(delta.values()) - own_loads
    moves = sum(len(report["finals"][i]["log"]) for i in range(0, len(report["finals"]), SEATS)) + ssh_moves
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores")
    print(
        f"command: .venv/bin/python bench/bench_tables_load2.py --tables {args.tables} --think {args.think} "
        f"--seed {args.seed} --pairs {args.pairs} --moves {args.moves} --quiet {args.quiet} "
        f"--kill-after {args.kill_after}"
    )
    print(
        "load average (1 min): {:.1f} at the start, {:.1f} at the kill, {:.1f} when the SSH tables were done, "
        "{:.1f} at the end".format(*loads)
    )
    print(
        f"simulated: {args.tables} SEVEN tables x {SEATS} seats, {len(sent)} moves by people, deals done in "
        f"{report['elapsed']:.1f} s; kill at {killed - report['started']:.1f} s"
    )
    print(
        f"killed {HOSTS[victim]} holding {len(held[victim])} tables (the other held {len(held[1 - victim])}); "
        f"people: {report['reconnects']} reconnects, {report['moved']} told table-moved, "
        f"{report['rejoins']} joins asked again"
    )
    if failover:
        print(
            f"failover, kill -> first move accepted on the survivor, per table (n={len(failover)}): median "
            f"{statistics.median(failover):.2f} s, min {min(failover):.2f}, max {max(failover):.2f} s; "
            f"SSH screens back at their tables {back:.1f} s after the kill"
        )
    for label in sorted(latency):
        print(f"simulated move -> other seats' Event, {label}: {_ms(latency[label])}")
    every_before = [v for values in before.values() for v in values]
    every_after = [v for values in after.values() for v in values]
    print(f"SSH move -> other person's screen (cross-host), before the kill: {_ms(every_before)}")
    print(f"SSH move -> other person's screen (cross-host), after the kill: {_ms(every_after)}")
    top = sorted(((n, c) for n, c in delta.items() if c), key=lambda x: -x[1])[:8]
    print(
        f"Redis: {total} commands for {moves} moves ({total / max(1, moves):.1f} per move; the bench's own "
        f"{own_loads} reads left out), {size / max(1, moves) / 1024:.1f} KiB in+out per move; "
        + ", ".join(f"{n.removeprefix('cmdstat_')} {c}" for n, c in top)
    )
    kill_at = killed
    pre = [c for when, c in clients_seen if when < kill_at]
    post = [c for when, c in clients_seen if when > kill_at + 10]
    print(
        f"Redis connections: max {max(pre, default=0)} with both hosts (pools: "
        + ", ".join(f"{HOSTS[i]} {s['redis_connections']}" for i, s in enumerate(stats_before))
        + f"), max {max(post, default=0)} after the kill (the survivor's pool at the end "
        f"{stats_after['redis_connections']}; the bench's own 2)"
    )
    print(
        f"survivor ({HOSTS[1 - victim]}): CPU {stats_after['cpu']:.1f} s over {stats_after['wall']:.1f} s "
        f"({stats_after['cpu'] / stats_after['wall'] * 100:.0f}% of one core); "
        f"RSS {stats_after['rss_mark'] / 1024:.1f} -> {stats_after['rss'] / 1024:.1f} MiB "
        f"(peak {stats_after['rss_peak'] / 1024:.1f}); "
        f"{len(stats_after['tables'])} tables held at the end"
    )
    print(
        f"lost: {len(lost)} of {len(report['finals'])} people's last view differs from the replayed log {lost[:3]}; "
        f"failures: {len(failures)}"
    )
    for failure in failures[:20]:
        print(f"  FAILED: {failure}")


if __name__ == "__main__":
    raise SystemExit(main())
