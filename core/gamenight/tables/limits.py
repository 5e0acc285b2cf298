"""How many tables one identity, one client address and the whole server may keep: the service's caps;
and how many wrong codes of private tables one identity or address may try.

The caps' values are the service's (:mod:`gamenight.tables.service` declares them); the checks are here.
With the tables in Redis (``--tables-url``) the caps per identity and per address hold across every host
of the game room (:mod:`gamenight.tables.shared_caps`): each host checks its own tables first, then admits
a new one against every host's counts in one atomic script; Redis unreachable, its own caps still hold.
The caps on the whole server (:attr:`max_tables`, :attr:`max_solo_tables`) are each host's own: they keep
one machine's memory and bots' threads bounded, and a second machine is there to add room.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from gamenight.tables import protocol as p
from gamenight.tables.base import _ServiceBase
from gamenight.tables.shared_caps import SharedCaps, bounded, field, kept_entry
from gamenight.tables.table import Table
from gamenight.text import MAX_NAME_CHARS, safe_text

if TYPE_CHECKING:
    from gamenight.tables.service import Connection

log = logging.getLogger("gamenight.tables")

WRONG_CODES_PER_IDENTITY = 10
"""Wrong codes of private tables one identity may try in :data:`CODE_WINDOW` (on every host together)."""
WRONG_CODES_PER_ADDRESS = 30
"""Wrong codes the identities of one client address may try in :data:`CODE_WINDOW` (guests share an address)."""
CODE_WINDOW = 600.0
"""Seconds over which wrong codes are counted.  A code is six hex digits (16.7 million): at 30 tries per ten
minutes, finding one table of a thousand open takes some four months on average."""
CAPS_CHECK = 1.0
"""Seconds between two looks at this host's counts (written to Redis when they changed, or a beat is due)."""
MAX_KEPT_LISTED = 4 * p.MAX_KEPT
"""Kept solo games one ``ListKept`` answer lists at most (five per host, on a few hosts)."""
MAX_TRACKED = 20_000
"""Identities and addresses whose recent wrong codes one host remembers (the oldest forgotten first)."""


class CodeTries:
    """Tries of private tables' codes per identity and per address, on this host: each try counted before
    it is checked and forgiven when it was right (bounded: :data:`MAX_TRACKED` names)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.tries: OrderedDict[str, list[tuple[float, int]]] = OrderedDict()
        self._next = 0

    def take(self, windows: list[tuple[str, int]], window: float) -> int | None:
        """Count a try under each (name, cap) of ``windows``: its token, or ``None`` when one is at its cap."""
        now = self.clock()
        for name, cap in windows:
            recent = [entry for entry in self.tries.get(name, []) if entry[0] > now - window]
            self.tries[name] = recent
            if len(recent) >= cap:
                return None
        self._next += 1
        for name, _cap in windows:
            self.tries[name].append((now, self._next))
            self.tries.move_to_end(name)
        while len(self.tries) > MAX_TRACKED:
            self.tries.popitem(last=False)
        return self._next

    def forgive(self, names: list[str], token: int) -> None:
        for name in names:
            if name in self.tries:
                self.tries[name] = [entry for entry in self.tries[name] if entry[1] != token]


class Limits(_ServiceBase):
    """Part of :class:`~gamenight.tables.service.TableService`: the caps on tables per identity, per address,
    per server (per identity and per address across hosts, with the tables in Redis), and on wrong codes."""

    def _init_limits(self) -> None:
        """The limits' state (called by ``TableService.__init__``)."""
        self._caps: SharedCaps | None = None
        self._caps_pending: Counter[str] = Counter()
        self._caps_task: asyncio.Task[None] | None = None
        self._limit_tasks: set[asyncio.Task[None]] = set()
        self._code_tries = CodeTries()
        self._caps_wake = asyncio.Event()
        self._kept_written: dict[str, tuple[str, bytes]] = {}
        """This host's kept solo games as last written for every host: table id -> (person's field, entry)."""
        """Set when a table closes: this host's counts are written at once, not at the next look."""

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._limit_tasks.add(task)
        task.add_done_callback(self._limit_tasks.discard)

    def _table_limit(self, connection: Connection) -> tuple[str, str] | None:
        """Why ``connection`` may not open another shared table now, as (code, reason), or ``None``.

        Solo tables count apart (:meth:`_solo_limit`): a person's kept games never stop them hosting."""
        open_tables = [table for table in self.tables.values() if not table.solo and table.status() != "over"]
        if sum(table.host == connection.identity for table in open_tables) >= self.tables_per_identity:
            return "host-limit", f"you host {self.tables_per_identity} open tables already"
        if connection.address and (
            sum(table.address == connection.address for table in open_tables) >= self.tables_per_address
        ):
            return "address-limit", f"your address hosts {self.tables_per_address} open tables"
        if self._count(solo=False) >= self.max_tables:
            self._prune()
        if self._count(solo=False) >= self.max_tables:
            return "full", "this server has no room for another table"
        return None

    def _solo_limit(self, connection: Connection) -> tuple[str, str] | None:
        """Why ``connection`` may not open a solo table now, or ``None``.  Its own identity's are capped
        by closing the oldest (:meth:`_keep_room_for_solo`); one address's identities together (many guest
        names) and the server as a whole have caps of their own, so solo games never fill the server."""
        kept_here = [
            table
            for table in self.tables.values()
            if table.solo and not table.match.over and connection.address and table.address == connection.address
        ]
        if len([table for table in kept_here if table.host != connection.identity]) >= self.solo_tables_per_address:
            return "address-limit", f"your address keeps {self.solo_tables_per_address} games already"
        if self._count(solo=True) >= self.max_solo_tables:
            self._prune()
        if self._count(solo=True) >= self.max_solo_tables and len(self._kept(connection.identity)) < p.MAX_KEPT:
            return "full", "this server has no room for another table"
        return None

    def _count(self, solo: bool) -> int:
        return sum(table.solo == solo for table in self.tables.values())

    def _kept(self, identity: str) -> list[Table]:
        """``identity``'s unfinished solo tables, oldest first."""
        kept = [t for t in self.tables.values() if t.solo and t.host == identity and not t.match.over]
        return sorted(kept, key=lambda table: table.opened)

    def _keep_room_for_solo(self, connection: Connection) -> None:
        """Before a new solo table: close the person's oldest ones past the cap, and say so."""
        kept = self._kept(connection.identity)
        for table in kept[: max(0, len(kept) - p.MAX_KEPT + 1)]:
            self._forget(table, "its person's oldest kept game, for a new one")
            connection.send(p.Error("solo-closed", f"your oldest kept game ({table.game.id}) was closed"))

    def _prune(self) -> None:
        """Drop the tables nobody is at any more: finished ones (their game went to its players'
        saves) and waiting ones every person left.  Running tables stay: their players may return."""
        for table in list(self.tables.values()):
            if table.connections:
                continue
            if table.status() == "over" or (table.status() == "waiting" and not any(table.owners)):
                self._forget(table, "nobody there")

    # -- the caps across hosts (with the tables in Redis) ------------------------------------------

    def _start_caps(self) -> None:
        """Count this host's tables with every other host's (the store is open)."""
        self._caps = SharedCaps(self.store.client, self.host_id, self.store.prefix)
        self._caps_task = asyncio.get_running_loop().create_task(self._caps_loop(), name="tables-caps")

    async def _stop_caps(self) -> None:
        """This host stops: its counts leave Redis at once (the other hosts need not wait for them to lapse)."""
        from gamenight.tables.redis_store import StoreError

        if self._caps_task is not None:
            self._caps_task.cancel()
            await asyncio.wait({self._caps_task}, timeout=1)
        if self._limit_tasks:
            await asyncio.wait(set(self._limit_tasks), timeout=1)
        if self._caps is not None:
            with contextlib.suppress(StoreError):
                await bounded(self._caps.forget_host(), "this host's end")

    def _cap_checks(self, connection: Connection, solo: bool) -> tuple[list[tuple[str, str, int]], list[str]]:
        """What a new table of ``connection`` is checked against on every host, and the counts it adds."""
        address, identity = connection.address, connection.identity
        if solo:
            if not address:
                return [], []
            others = field("s:a", address), field("s:ai", address, identity)
            return [(others[0], others[1], self.solo_tables_per_address)], list(others)
        hosted = field("t:i", identity)
        checks, counted = [(hosted, "", self.tables_per_identity)], [hosted]
        if address:
            checks.append((field("t:a", address), "", self.tables_per_address))
            counted.append(field("t:a", address))
        return checks, counted

    def _own_counts(self) -> Counter[str]:
        """This host's counts as every host adds them up: its tables, and those being admitted."""
        counts: Counter[str] = Counter()
        for table in self.tables.values():
            if table.solo:
                if not table.match.over and table.address:
                    counts[field("s:a", table.address)] += 1
                    counts[field("s:ai", table.address, table.host)] += 1
            elif table.status() != "over":
                counts[field("t:i", table.host)] += 1
                if table.address:
                    counts[field("t:a", table.address)] += 1
        counts.update(self._caps_pending)
        return counts

    async def _shared_limit(self, connection: Connection, solo: bool) -> tuple[tuple[str, str] | None, list[str]]:
        """Why every host's tables together leave ``connection`` no room for another (or ``None``), and
        the counts taken for it meanwhile (given back by :meth:`_caps_done` once the table is open or refused).
        Redis unreachable: no refusal (the host's own caps were checked before)."""
        from gamenight.tables.redis_store import StoreError

        caps = self._caps
        checks, counted = self._cap_checks(connection, solo)
        if caps is None or not checks:
            return None, []
        taken: list[str] = []

        def admitted() -> None:
            self._caps_pending.update(counted)
            taken.extend(counted)

        try:
            refused = await bounded(caps.admit(self._own_counts, checks, counted, admitted), "a new table's caps")
        except StoreError as error:
            log.warning("table caps: %s; this host's own caps hold", safe_text(error, limit=200))
            refused = None
        except BaseException:
            self._caps_done(taken)
            raise
        if refused is None:
            return None, taken
        self._caps_done(taken)
        log.info("%s refused a table on every host's count (%d)", connection.identity, refused[1])
        if refused[0].startswith("t:i:"):
            return ("host-limit", f"you host {self.tables_per_identity} open tables already"), []
        if solo:
            return ("address-limit", f"your address keeps {self.solo_tables_per_address} games already"), []
        return ("address-limit", f"your address hosts {self.tables_per_address} open tables"), []

    def _caps_done(self, counted: list[str]) -> None:
        """The counts taken for a table being admitted go: it is open (and counted as such) or refused."""
        self._caps_pending.subtract(counted)
        self._caps_pending = +self._caps_pending

    async def _caps_loop(self) -> None:
        """Write this host's counts to Redis when they change, and at least every third of their ttl."""
        from gamenight.tables.redis_store import StoreError

        caps = self._caps
        assert caps is not None
        beaten = -float("inf")
        while True:
            await self._caps_pause(min(CAPS_CHECK, caps.ttl / 3))
            due = time.monotonic() - beaten >= caps.ttl / 3
            try:
                if due or self._own_counts() != caps.written:
                    await bounded(caps.beat(self._own_counts), "this host's counts")
                await self._write_kept(caps, refresh=due)
                if due:
                    beaten = time.monotonic()
            except StoreError as error:  # written again at the next look
                caps.written = None
                log.warning("table caps: %s", safe_text(error, limit=200))

    async def _write_kept(self, caps: SharedCaps, refresh: bool) -> None:
        """Write this host's kept solo games for every host's ``ListKept`` where they changed (and keep
        every person's entry alive another ttl when ``refresh``)."""
        now: dict[str, tuple[str, bytes]] = {}
        for table in self.tables.values():
            if table.solo and not table.match.over and not table.gone:
                entry = kept_entry(caps.host_id, table.opened, self._info(table))
                now[table.id] = (field("k", table.host), entry)
        sets = [(person, table_id, entry) for table_id, (person, entry) in now.items()]
        sets = [change for change in sets if self._kept_written.get(change[1]) != (change[0], change[2])]
        gone = [(person, table_id) for table_id, (person, _) in self._kept_written.items() if table_id not in now]
        if not sets and not gone and not refresh:
            return
        alive = sorted({person for person, _ in now.values()} if refresh else {person for person, _, _ in sets})
        await bounded(caps.write_kept(sets, gone, alive), "the kept games")
        self._kept_written = now

    def _list_kept(self, connection: Connection) -> None:
        """``ListKept``: the person's kept solo games here, oldest first, then (with the tables in Redis)
        those other hosts run, which a ``Join`` reaches through the relay."""
        from gamenight.tables.redis_store import StoreError

        here = [self._info(table) for table in self._kept(connection.identity)]
        caps = self._caps
        if caps is None:
            return connection.send(p.KeptTables(here))

        async def with_the_others() -> None:
            try:
                others = await bounded(caps.kept_of(field("k", connection.identity)), "the kept games")
            except StoreError as error:
                log.warning("kept games: %s; this host's only", safe_text(error, limit=200))
                others = []
            listed = {info.table for info in here}
            for kept in sorted(others, key=lambda kept: kept.opened):
                info = kept.info
                if info.table in listed or info.game not in self.registry.games or len(listed) >= MAX_KEPT_LISTED:
                    continue
                for seat in info.seats:
                    seat.name = safe_text(seat.name, limit=MAX_NAME_CHARS)
                listed.add(info.table)
                here.append(info)
            if not connection.closed:
                connection.send(p.KeptTables(here))
                connection.flush()

        self._spawn(with_the_others())

    async def _caps_pause(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._caps_wake.wait(), seconds)
        self._caps_wake.clear()

    # -- wrong codes -------------------------------------------------------------------------------

    def _code_windows(self, connection: Connection) -> list[tuple[str, int]]:
        windows = [(field("c:i", connection.identity), WRONG_CODES_PER_IDENTITY)]
        if connection.address:
            windows.append((field("c:a", connection.address), WRONG_CODES_PER_ADDRESS))
        return windows

    async def _forgive_shared(self, caps: SharedCaps, names: list[str], token: str) -> None:
        from gamenight.tables.redis_store import StoreError

        with contextlib.suppress(StoreError):
            await bounded(caps.forgive(names, token), "a right code")
