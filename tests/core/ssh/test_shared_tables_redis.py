"""Two ``serve-ssh`` hosts on one Redis (``--tables-url``) and one PostgreSQL (``--records-url``), over
real SSH: the host running a table dies.

Ann and Ben (real OpenSSH clients, pyte screens, 80x24) play a Mille game to 700 (one hand, Mille's
shortest game) by keys on host A, while host B runs beside it on the same Redis and database.  Host A
is killed mid-hand (SIGKILL: nothing more written, no lease given up).  Host B's sweep takes the table
once A's lease lapses; both players connect again, through host B, land at their seats with their own
hands, and play on from exactly the position before the kill (every move any screen showed is in
Redis, and none is lost) to the game's end on host B.  The finished game is in PostgreSQL once, as the
table's game (``TABLE/0/SEED``): its log holds every move any screen showed before the kill, and it
replays with the rules to the scores recorded.  Split brain: host A paused past its lease, then woken,
has its write refused and lets go.  And the front ends relay: Ann on host A, Ben and a watcher on host
B play one table that host A runs, each screen its own view.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import tomllib
from pathlib import Path

import pytest
from gamenight.match import Match
from gamenight.saves import match_from_document
from gamenight.sdk import TERMINAL
from gamenight_mille.texts import CARD_NAMES

from tests.core.records import conftest as records_fixtures
from tests.core.ssh import test_shared_tables as shared
from tests.core.ssh.conftest import Terminal, needs_ssh, wait_until
from tests.core.ssh.processes import process_group
from tests.core.ssh.test_shared_tables import People, Table, open_and_join, start_move, title_bar

postgres, database = records_fixtures.postgres, records_fixtures.database  # the records tests' fixtures


def game_to_700(ann: Terminal) -> None:
    """On the setup screen, from seat 2's kind: Tab to Public, to the move timer, to "Game to"; its text
    deleted, then 700 typed, so the game ends with its first hand (Mille's shortest game).  Typed in two
    steps: a key a binding takes (Tab, Backspace) acts after the printable keys sent with it are typed."""

    def field(pattern: str) -> bool:
        return any(re.search(rf"Game to +▊ {pattern}▎", line) for line in ann.text().splitlines())

    ann.send("\t\t\t" + "\x7f" * 5)
    wait_until(lambda: field(" +"), 20, "the Game to field empty")
    ann.send("700")
    wait_until(lambda: field(" *700 +"), 20, "700 in the Game to field")


def racing_keys(match: Match) -> tuple[str, str, str, str]:
    """:func:`~tests.core.ssh.test_shared_tables.move_keys`, racing to 700: the seat to move plays its
    longest distance card, else a remedy or a safety, never a hazard, and else discards its first card
    (by keys, as a person could).  The hand ends in a median of 59 moves, not 97 (80 seeded deals)."""
    legal = match.legal_actions()
    if "extend" in legal or "draw" in legal:
        return MOVE_KEYS(match)
    hand = match.state.seats[match.to_move()].hand

    def card(action: str) -> int:
        return hand[shared.SLOT_NAMES.index(action.split(":")[1])]

    uses = [a for a in legal if a.startswith("use:") and not FIRST_HAZARD <= card(a) < FIRST_REMEDY]
    if uses:
        action = min(uses, key=lambda a: -card(a) if card(a) < FIRST_HAZARD else 0)
    else:
        action = next((a for a in legal if a.startswith("discard:")), legal[0])
    verb, slot = action.split(":")
    return ("u" if verb == "use" else "d") + slot.lower(), f": {slot}_", "\r", action


MOVE_KEYS = shared.move_keys
FIRST_HAZARD, FIRST_REMEDY = CARD_NAMES.index("Out of Gas"), CARD_NAMES.index("Gasoline")
"""Mille's cards in the rules' order: distances (25 to 200), hazards, remedies, safeties."""


class RedisView:
    """The test's view of the one table in Redis (no host keeps table files with --tables-url): one
    connection, on an event loop of its own, and the match rebuilt only when what Redis holds changed.
    The tests poll it ten times a second while the screens catch up: a new connection and a whole
    replay at every poll cost the test process most of its CPU in a game played to its end."""

    def __init__(self, url: str) -> None:
        from gamenight.tables.redis_store import RedisTableStore

        self.loop = asyncio.Runner()
        self.store = RedisTableStore.connect(url)
        self._seen: tuple | None = None
        self._match: Match | None = None

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.loop.run(self.store.close())
        self.loop.close()

    def listed(self) -> tuple[str, str] | None:
        """The one table's id and the process id of the host running it (as the store's list of tables says)."""
        found = next(iter(self.loop.run(self.store.listed()).items()), None)
        return None if found is None else (found[0], found[1].host.rsplit(":", 1)[1])

    def runner(self) -> str | None:
        """The process id of the host running the one table."""
        found = self.listed()
        return None if found is None else found[1]

    def match(self) -> Match | None:
        """The one table's match as stored: its state, then the moves logged since (shared between calls
        until it changes: callers only read it)."""
        from gamenight.tables.redis_store import StoreError

        async def read():
            listed = await self.store.listed()
            return await self.store.load(next(iter(listed))) if listed else None

        try:
            stored = self.loop.run(read())
        except StoreError:
            return None
        if stored is None or stored.state is None:
            return None
        seen = (stored.state.document, tuple((entry.seq, entry.action) for entry in stored.log))
        if seen != self._seen:
            match = match_from_document(shared.REGISTRY, tomllib.loads(stored.state.document)["match"], "redis")
            for entry in stored.log:
                match.apply(entry.action)
            self._seen, self._match = seen, match
        return self._match


def recorded_once(database: str, table_id: str, final: Match):
    """The table's finished game as PostgreSQL holds it, once every host's write has landed: it must be the
    database's one record, as that table's first game (``TABLE/0/SEED``); returns it (with its log)."""
    from gamenight.records.postgres import PostgresRecordsStore

    store = PostgresRecordsStore.open(database)
    try:
        rows = wait_until(lambda: store.query("SELECT id, server_game FROM games"), 30, "the game in PostgreSQL")
        assert [server_game for _id, server_game in rows] == [f"{table_id}/0/{final.seed:x}"], rows
        return store.get(rows[0][0])
    finally:
        store.close()


@pytest.fixture
def redis_url(request) -> str:
    from tests.core.tables.redis_server import RedisServer, missing_reason

    reason = missing_reason()
    if reason is not None:
        pytest.skip(reason)
    server = RedisServer(appendonly=True, fsync="always")
    request.addfinalizer(server.cleanup)
    server.start()
    return server.url


@pytest.fixture
def redis(redis_url: str, request) -> RedisView:
    """The test's view of the table in Redis (what the screens must show)."""
    view = RedisView(redis_url)
    request.addfinalizer(view.close)
    return view


@needs_ssh
def test_the_host_running_a_table_dies_and_the_other_host_plays_its_game_to_the_end_recorded_once(
    start_server, terminals, tmp_path: Path, redis_url: str, redis: RedisView, database: str, monkeypatch
) -> None:
    from gamenight.replay import Replay

    # The test's view of the table: what Redis holds (no host keeps table files with --tables-url).
    monkeypatch.setattr(shared, "saved_match", lambda _data_dir: redis.match())
    monkeypatch.setattr(shared, "move_keys", racing_keys)  # to the end in fewer moves
    people = People(tmp_path, terminals, ("ann", "ben"))
    # one data dir for both hosts, as a game room of several hosts requires (docs/hosting.md)
    shared_args = ("--tables-url", redis_url, "--records-url", database)
    host_b = people.start(start_server, *shared_args, data_dir=tmp_path / "shared")
    host_a = people.start(start_server, *shared_args, data_dir=tmp_path / "shared")  # they connect here
    ann, ben = people.connect("ann"), people.connect("ben")
    open_and_join(ann, ben, options=game_to_700)
    wait_until(lambda: redis.runner() == f"{host_a.process.pid}", 20, "host A to hold the table")
    table_id = redis.listed()[0]  # type: ignore[index]
    table = Table(tmp_path, [ann, ben])
    for _ in range(6):
        table.move()
    before = table.check("every screen shows what Redis holds, before the kill")
    assert before.options["target"] == 700
    moves = [entry.action for entry in before.log]
    hands = [list(seat.hand) for seat in before.state.seats]

    host_a.process.kill()  # host A dies while it runs the table
    host_a.process.wait(15)
    for event in host_a.find(lambda e: e["event"] == "session_start"):
        wait_until(lambda pid=event["pid"]: not process_group(pid), 30, "the dead host's rooms to end")
    for terminal in (ann, ben):
        terminal.wait_exit(30)
    # B's sweep takes the table once A's lease lapses (6 s, and a sweep every 2 s).
    wait_until(lambda: redis.runner() == f"{host_b.process.pid}", 30, "host B to take the table")
    after = redis.match()
    assert after is not None and [entry.action for entry in after.log] == moves, "a move was lost"
    assert [list(seat.hand) for seat in after.state.seats] == hands

    people.server = host_b  # both connect again, through host B: straight back at their seats
    ann, ben = people.client("ann"), people.client("ben")
    table.seats = [ann, ben]
    table.check("both back at their seats on host B", 40)
    wait_until(lambda: all("away" not in title_bar(t) for t in table.seats), 20, "nobody away")
    # On to the game's end on host B, by keys (Mille to 700: one hand, at most MAX_MOVES moves).
    played = []
    while not (now := redis.match()).over:  # type: ignore[union-attr]
        assert len(played) < shared.MAX_MOVES, f"no end of the game in {shared.MAX_MOVES} moves"
        played.append(table.move())
        if played[-1] == "end of hand":  # (both short of 700: another hand, once both say yes)
            for terminal in (ann, ben):
                terminal.wait_for("Another hand?", 20)
                terminal.send("y")
            wait_until(lambda: redis.match().pending_interlude() is None, 30, "the next hand")  # type: ignore[union-attr]
    assert [entry.action for entry in now.log][: len(moves)] == moves
    for terminal in (ann, ben):
        terminal.wait_for("Game over", 20)

    # PostgreSQL holds the game once, as the table's: every move any screen showed before the kill, and
    # the rest played on host B; replayed with the rules (chance checked against the seed), it ends
    # with the scores recorded, ann's and ben's (people at their seats at the end).
    record = recorded_once(database, table_id, now)
    assert list(record.log) == [(entry.seat, entry.action) for entry in now.log]
    assert [action for _seat, action in record.log][: len(moves)] == moves
    assert [(seat.name, seat.bot) for seat in record.seats] == [("ann", None), ("ben", None)]
    replay = Replay.from_record(shared.REGISTRY, record)
    end = replay.states[-1]
    assert replay.game.rules.to_move(end) == TERMINAL  # the log finishes the game
    scores = tuple(replay.game.rules.outcome(end).scores)
    assert scores == tuple(seat.score for seat in record.seats) == tuple(now.outcome().scores)


@needs_ssh
def test_a_paused_host_that_lost_its_table_writes_nothing_and_lets_go(
    start_server, terminals, tmp_path: Path, redis_url: str, redis: RedisView, database: str, monkeypatch
) -> None:
    monkeypatch.setattr(shared, "saved_match", lambda _data_dir: redis.match())
    people = People(tmp_path, terminals, ("ann", "ben"))
    # one data dir for both hosts, as a game room of several hosts requires (docs/hosting.md)
    shared_args = ("--tables-url", redis_url, "--records-url", database)  # one Redis, one PostgreSQL
    host_b = people.start(start_server, *shared_args, data_dir=tmp_path / "shared")
    host_a = people.start(start_server, *shared_args, data_dir=tmp_path / "shared")
    ann, ben = people.connect("ann"), people.connect("ben")
    open_and_join(ann, ben)
    wait_until(lambda: redis.runner() == f"{host_a.process.pid}", 20, "host A to hold the table")
    table = Table(tmp_path, [ann, ben])
    for _ in range(4):
        table.move()
    before = table.check("every screen shows what Redis holds, before the pause")
    moves = [entry.action for entry in before.log]
    mover = table.seats[before.to_move()]
    final, _action = start_move(mover, before)  # all but the last key of the next move

    os.kill(host_a.process.pid, signal.SIGSTOP)  # split brain: A is paused past its lease...
    try:
        wait_until(lambda: redis.runner() == f"{host_b.process.pid}", 30, "host B to take the table")
        mover.send(final)  # ... and a move reaches it, to be taken when it wakes up
    finally:
        os.kill(host_a.process.pid, signal.SIGCONT)
    for terminal in (ann, ben):  # A lets go: its rooms are told, and leave the table
        terminal.wait_for("moved to another server", 30)
    wait_until(lambda: host_a.find(lambda e: e["event"] == "tables" and "let go" in e.get("detail", "")), 20, "A's log")
    after = redis.match()
    assert after is not None and [entry.action for entry in after.log] == moves, "the stale host wrote a move"

    for terminal in (ann, ben):
        terminal.kill()
    people.server = host_b  # through host B, both land back at their seats and play on
    ann, ben = people.client("ann"), people.client("ben")
    table.seats = [ann, ben]
    table.check("both back at their seats on host B", 40)
    table.move()
    now = redis.match()
    assert now is not None and [entry.action for entry in now.log][: len(moves)] == moves


@needs_ssh
def test_two_hosts_one_table_ann_on_one_ben_and_a_watcher_on_the_other(
    start_server, terminals, tmp_path: Path, redis_url: str, redis: RedisView, database: str, monkeypatch
) -> None:
    """Ann connects to host A and opens a Mille table there; Ben and Cat connect to host B: Ben sees
    the table in B's Tables list and takes its seat, Cat watches it, both through B's relay to A. They
    play by keys; every screen shows what Redis holds, each seat its own hand, the watcher none."""
    monkeypatch.setattr(shared, "saved_match", lambda _data_dir: redis.match())
    people = People(tmp_path, terminals, ("ann", "ben", "cat"))
    # one data dir for both hosts, as a game room of several hosts requires (docs/hosting.md)
    shared_args = ("--tables-url", redis_url, "--records-url", database)  # one Redis, one PostgreSQL
    host_b = people.start(start_server, *shared_args, data_dir=tmp_path / "shared")
    host_a = people.start(start_server, *shared_args, data_dir=tmp_path / "shared")
    ann = people.connect("ann")  # on host A
    people.server = host_b
    ben = people.connect("ben")  # on host B
    open_and_join(ann, ben)  # Ann opens it on A; Ben takes the seat from B's list
    assert redis.runner() == f"{host_a.process.pid}", "the table runs on host A"
    table = Table(tmp_path, [ann, ben])
    for _ in range(3):
        table.move()
    cat = people.connect("cat")  # on host B too: she watches
    cat.send("t")
    cat.wait_for("playing", 30)
    cat.send("w")
    table.watchers.append(cat)
    for _ in range(5):
        table.move()
    final = table.check("every screen at the end shows what Redis holds")
    assert len(final.log) >= 8
    # Ben and Cat reached it through B's relay: the table never left host A.
    assert redis.runner() == f"{host_a.process.pid}"
    assert all(terminal.process.poll() is None for terminal in (ann, ben, cat))
