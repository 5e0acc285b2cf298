"""Tables in Redis (``serve-ssh --tables-url``): this host as the one authority of the tables it runs.

Part of :class:`~gamenight.tables.service.TableService`, used only when it is given a Redis
(:mod:`gamenight.tables.redis_store`; without one nothing here runs and ``redis`` is never imported):

* **A lease per table.**  Opening a table, or taking one over, acquires the table's lease for this host
  (:data:`LEASE_TTL`), renewed every :data:`RENEW_INTERVAL` by a task of the table's own.  Its moves,
  timers and bots run only on the host holding the lease.
* **A move is durable before anyone sees it.**  Each move applied is queued (``Table.outbox``) and
  ``append``-ed to the table's log in Redis, fenced by the lease's epoch; until that write is made,
  every frame to the table's connections waits (``Connection.held``), and the table's driver plays
  no bot or chance move.  The table's state (its save document and seats) is stored at each game's
  start, when its seats change, at a pause or the game's end, and every :data:`SAVE_EVERY` moves.
* **A stale authority lets go.**  A write refused for its epoch (another host took the table while
  this one was paused or cut off), a renewal refused, or a lease surely lapsed while Redis could not
  be reached: the table stops here at once (driver, timers, bots), the moves not written are never
  shown, and its rooms are told the table moved (``table-moved``).
* **Redis unreachable.**  The table waits, its players told (``store-down``): nothing is lost, and
  play goes on once the writes go through again (its players told: ``store-up``).
* **Taking a table over.**  A table whose lease lapsed (its host died) is taken by the next host that
  looks: on demand when one of its rooms asks for it, and by a sweep of the store's list of tables
  every :data:`SWEEP_INTERVAL`, so bots and timers resume with no one asking.  The host loads the
  stored state, replays the moves logged since with the game's rules, and goes on; the seats wait
  for their players (``--away-timeout``).  A table stored by another gamenight or game version is
  not taken, and the log says which.
* **One Tables list across hosts.**  The authority of a public table keeps its summary (what the
  Tables list shows: game, seats' names and kinds, status, watchers -- never a hand) in the store's
  lobby, fenced like every write and removed when the table ends; while a room here keeps the list
  open, the lobby is read every :data:`LOBBY_INTERVAL` and the other hosts' tables join this host's list
  (at most :data:`MAX_REMOTE_LISTED`, each checked as hostile on reading).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import socket
import time
import tomllib
from typing import TYPE_CHECKING, Any

import msgspec
import tomli_w

from gamenight import __version__
from gamenight.sdk import OBSERVER
from gamenight.tables import protocol as p
from gamenight.tables.base import _ServiceBase
from gamenight.tables.table import Table
from gamenight.text import MAX_NAME_CHARS, safe_text

if TYPE_CHECKING:
    from gamenight.tables.redis_store import StoredTable, TableState
    from gamenight.tables.service import Connection

log = logging.getLogger("gamenight.tables")

LEASE_TTL = 6.0
"""Seconds a table's lease lives unless renewed: the longest a dead host keeps its tables from the others
(with :data:`SWEEP_INTERVAL`, a dead host's table moves on elsewhere within 8 s: the target is 10)."""
RENEW_INTERVAL = 2.0
"""Seconds between two renewals of a lease (three chances within :data:`LEASE_TTL`)."""
SWEEP_INTERVAL = 2.0
"""Seconds between two looks at the store's list of tables for a table no host runs (one ``HGETALL`` and
one pipelined ``EXISTS`` per table not run here)."""
SWEEP_TAKES = 8
"""Tables one sweep takes at once (a dead host's: together, within this bound)."""
SAVE_EVERY = 64
"""Moves between two stored states at most (the log a host taking the table over replays)."""
LOBBY_INTERVAL = 1.0
"""Seconds between two reads of the store's lobby (one ``HGETALL``), only while a room here keeps the list open."""
MAX_REMOTE_LISTED = 500
"""Other hosts' tables one list shows at most (the first by table id)."""
TAKE_POLL = 0.05
"""Seconds between two looks at a take of the same table already under way here (a room's join waits for it)."""
STORE_RETRY = 0.5
"""Seconds between two tries of a write Redis did not take (unreachable)."""


class CannotRun(Exception):
    """A stored table this host cannot run (another gamenight or game version, or a game not installed)."""


def default_host_id() -> str:
    """This process's name among the hosts: the machine's name and the process id."""
    name = re.sub(r"[^A-Za-z0-9._-]", "-", socket.gethostname())[:40] or "host"
    return f"{name}:{os.getpid()}"


class Authority(_ServiceBase):
    """Part of :class:`~gamenight.tables.service.TableService`: its tables' leases, writes and takeovers in Redis."""

    # -- life cycle ------------------------------------------------------------------------------

    async def _open_store(self) -> None:
        from gamenight.tables.redis_store import RedisTableStore

        if self.store is None:
            assert self.tables_url is not None  # started only with a store or its URL
            self.store = RedisTableStore.connect(self.tables_url)
        self._start_caps()  # the caps per identity and per address, across hosts (limits.py)
        self._sweeper = asyncio.create_task(self._sweep_loop(), name="tables-sweep")
        self._lobby_reader = asyncio.create_task(self._lobby_loop(), name="tables-lobby")

    async def _close_store(self) -> None:
        """Write what is queued (briefly), then give every lease up: another host takes the tables at once."""
        for task in (self._sweeper, self._lobby_reader):
            if task is not None:
                task.cancel()
                await asyncio.wait({task}, timeout=1)
        from gamenight.tables.redis_store import StoreError

        await self._close_relays()
        await self._stop_caps()
        for table in list(self.tables.values()):
            for task in (table.renewer, table.inbox_reader):
                if task is not None:
                    task.cancel()
                    await asyncio.wait({task}, timeout=1)
            if table.gone or not table.epoch:
                continue
            with contextlib.suppress(StoreError, TimeoutError, ValueError):
                await asyncio.wait_for(self._write_out(table, retry=False), 5)
                await self.store.release(table.id, self.host_id, table.epoch)
        if self._own_store:
            with contextlib.suppress(Exception):
                await self.store.close()

    # -- queued writes ---------------------------------------------------------------------------

    def _log_move(self, table: Table, seat: int, action: str) -> None:
        """Queue the move just applied at ``table``: frames to its connections wait until it is written."""
        from gamenight.tables.redis_store import LogEntry

        table.outbox.append(("move", LogEntry(seq=table.since_state, seat=seat, action=action, at=time.time())))
        table.since_state += 1
        table.applied += 1
        table.durable.clear()
        match = table.match
        if table.since_state >= SAVE_EVERY or match.pending_interlude() is not None:
            self._queue_state(table)
        table.dirty.set()

    def _queue_state(self, table: Table) -> None:
        """Queue the table's whole state as it is now (it covers every move queued before it)."""
        table.outbox.append(("state", self._stored_state(table)))
        table.since_state = 0
        table.dirty.set()

    def _stored_state(self, table: Table) -> TableState:
        from gamenight.tables.redis_store import TableState

        match_doc, table_doc = self._documents(table)
        table.stored_doc = table_doc
        runs = {"gamenight": __version__, "game": table.game.version}
        text = tomli_w.dumps({"runs": runs, "table": table_doc, "match": match_doc})
        return TableState(game=table.game.id, document=text, turn=len(table.match.log))

    async def _keep(self, table: Table) -> None:
        """The table's writer while this host runs it: the lease, then every queued write, in order."""
        from gamenight.tables.redis_store import LeaseHeld, StoreError

        try:
            if not table.epoch:  # a table opened here: take its lease before anything is written
                table.epoch = await self._retrying(
                    table, lambda: self.store.acquire(table.id, self.host_id, self.lease_ttl)
                )
                self._queue_state(table)
            await self._retrying(table, lambda: self._list_in_store(table))  # listed before its first write
            await self._write_out(table)
            if table.gone:  # let go meanwhile (a cancel lost in the client): nothing more runs for it
                return
            table.renewer = asyncio.create_task(self._renew(table), name=f"table-{table.id}-lease")
            table.inbox_reader = asyncio.create_task(self._read_inbox(table), name=f"table-{table.id}-inbox")
            await self._publish(table)
            while True:
                await table.dirty.wait()
                table.dirty.clear()
                if table.forgotten:
                    await self._write_out(table)
                    await self._retrying(table, lambda: self.store.drop(table.id, table.epoch))
                    table.renewer.cancel()
                    table.inbox_reader.cancel()
                    return
                if table.stored_doc != self._table_document(table):  # seats, a pause answered, the start
                    self._queue_state(table)
                await self._write_out(table)
                if table.gone:
                    return
                await self._publish(table)
        except LeaseHeld as error:
            self._let_go(table, str(error))
        except StoreError as error:  # a stale epoch, or a value that is not gamenight's
            self._let_go(table, str(error))

    async def _write_out(self, table: Table, retry: bool = True) -> None:
        """Make the queued writes, in order; each move's frames go out once it (and those before) is written."""
        while table.outbox:
            kind, value = table.outbox[0]
            if kind == "move":
                await self._retrying(table, lambda v=value: self.store.append(table.id, table.epoch, v), retry)
                table.logged += 1
                if table.logged == table.applied:
                    self._release(table)
            elif not (len(table.outbox) > 1 and table.outbox[1][0] == "state"):  # a later state covers it
                await self._retrying(table, lambda v=value: self.store.save_state(table.id, table.epoch, v), retry)
            if table.gone:  # let go meanwhile (by its renewer): its queue was emptied, nothing more is written
                return
            table.outbox.pop(0)

    def _release(self, table: Table) -> None:
        """Every move of ``table`` is written: the frames that waited for it go."""
        table.durable.set()
        holding, table.holding = table.holding, []
        for connection in holding:
            frames, connection.held = connection.held or [], None
            for frame in frames:
                connection.send_frame(frame)
            connection.flush()

    async def _retrying(self, table: Table, call: Any, retry: bool = True) -> Any:
        """``call()``, again every :data:`STORE_RETRY` while Redis cannot be reached (its players told once),
        and again once the table's lease is taken back if it lapsed meanwhile (:meth:`_reclaim`)."""
        from gamenight.tables.redis_store import StaleEpoch, StoreUnavailable

        while True:
            epoch = table.epoch
            try:
                result = await call()
            except StaleEpoch as error:  # its lease lapsed while Redis was away: taken again if no one took it
                if not await self._reclaim(table, epoch, error):
                    raise
                continue
            except StoreUnavailable as error:
                if not retry:
                    raise
                if not table.store_down:
                    table.store_down = True
                    log.warning("table %s waits: %s", table.id, safe_text(error, limit=200))
                    self._tell(table, "store-down", "the table waits: its store cannot be reached")
                await self._store_pause(STORE_RETRY)
                continue
            if table.store_down:
                table.store_down = False
                log.info("table %s: its store answers again", table.id)
                self._tell(table, "store-up", "the table goes on: its store answers again")
            return result

    async def _store_pause(self, seconds: float) -> None:
        """Wait before trying Redis again (a test counts these instead of timing them)."""
        await asyncio.sleep(seconds)

    def _tell(self, table: Table, code: str, reason: str) -> None:
        """Tell everyone at ``table`` about its store now, ahead of any frame that waits."""
        frame = p.encode(p.Error(code, reason))
        for connection in table.connections:
            connection.send_now(frame)

    async def _list_in_store(self, table: Table) -> None:
        from gamenight.tables.redis_store import Listed

        await self.store.list_table(table.id, table.epoch, Listed(table.game.id, self.host_id, table.epoch))

    # -- the Tables list across hosts -----------------------------------------------------------

    async def _publish(self, table: Table) -> None:
        """Keep the table's summary in the store's lobby as the list shows it now (out of it once the
        table is over, private or solo); written only when it changed."""
        from gamenight.tables.redis_store import Summary

        info = self._info(table)
        shown = info.public and not info.solo and info.status != "over"
        encoded = msgspec.msgpack.encode(info) if shown else b""
        if encoded == table.published:
            return
        summary = Summary(self.host_id, table.epoch, info) if shown else None
        await self._retrying(table, lambda: self.store.publish(table.id, table.epoch, summary))
        table.published = encoded

    async def _lobby_loop(self) -> None:
        failing = ""  # the last failure logged: an outage is logged once, not at every read
        while True:
            await self._lobby_pause(self.lobby_interval)
            if not any(c.listing and c.table is None and not c.closed for c in self.connections):
                continue  # no one here looks at the list: the lobby is not read
            try:
                await self._read_lobby()
            except Exception as error:  # the list keeps what it had; read again next time
                what = safe_text(f"{type(error).__name__}: {error}", limit=300)
                if what != failing:
                    log.warning("tables lobby: %s", what)
                failing = what
            else:
                if failing:
                    log.info("tables lobby: read again")
                failing = ""

    async def _lobby_pause(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    async def _read_lobby(self) -> None:
        """Read the other hosts' public tables from the store's lobby; the lists here change if they did."""
        remote: dict[str, p.TableInfo] = {}
        for table_id, summary in sorted((await self.store.lobby()).items()):
            if summary.host == self.host_id or table_id in self.tables:
                continue  # this host's own tables are listed as they are here, not as last written
            if summary.info.game not in self.registry.games:
                continue  # a game this host does not have: its rooms could not show it
            for seat in summary.info.seats:
                seat.name = safe_text(seat.name, limit=MAX_NAME_CHARS)
            remote[table_id] = summary.info
            if len(remote) >= MAX_REMOTE_LISTED:
                break
        if remote != self._remote:
            self._remote = remote
            self._list_changed()

    # -- the lease -------------------------------------------------------------------------------

    async def _renew(self, table: Table) -> None:
        """Keep the table's lease; let the table go when another host took it."""
        from gamenight.tables.redis_store import StaleEpoch, StoreError, StoreUnavailable

        pause = self.renew_interval
        while not table.gone:
            await self._lease_pause(pause)
            epoch = table.epoch
            try:
                await self.store.renew(table.id, self.host_id, epoch, self.lease_ttl)
                pause = self.renew_interval
            except StoreUnavailable:
                # The lease may lapse meanwhile; no host can take the table while no host reaches Redis,
                # so the table waits here, its players seated.  Tried again soon: this host should be
                # the first to find Redis back (the others' sweeps look every 2 s).
                pause = min(STORE_RETRY, self.renew_interval)
            except StaleEpoch as error:
                if not await self._reclaim(table, epoch, error):
                    return self._let_go(table, str(error))
                pause = self.renew_interval
            except StoreError as error:
                return self._let_go(table, str(error))

    async def _reclaim(self, table: Table, epoch: int, error: Exception) -> bool:
        """The lease of ``epoch`` is lost: take it again, at the next epoch, if it only lapsed (Redis was
        away, or this host stalled) and no other host took the table since -- nothing was written for
        it but this host's writes, so the table goes on here with its players seated.  ``False`` when
        another host took it (or holds it): this host must let it go."""
        from gamenight.tables.redis_store import LeaseHeld, StaleEpoch, StoreError, StoreUnavailable

        if table.epoch != epoch:  # taken again meanwhile (by the writer or the renewer): nothing to do
            return not table.gone
        if not isinstance(error, StaleEpoch) or error.current != epoch or table.gone:
            return False
        async with table.reclaiming:
            if table.epoch != epoch:
                return not table.gone
            while not table.gone:
                try:
                    table.epoch = await self.store.reclaim(table.id, self.host_id, epoch, self.lease_ttl)
                    break
                except StoreUnavailable:
                    await self._store_pause(STORE_RETRY)
                except (LeaseHeld, StoreError):
                    return False
            if table.gone:
                return False
            log.info("table %s: its lease lapsed (%s); taken again, epoch %d", table.id, error, table.epoch)
            with contextlib.suppress(StoreError):
                await self._list_in_store(table)
            return True

    async def _lease_pause(self, seconds: float) -> None:
        """Wait between two renewals (a test pauses a host here: it stops renewing, as a SIGSTOP would)."""
        await asyncio.sleep(seconds)

    def _let_go(self, table: Table, why: str) -> None:
        """This host no longer runs ``table``: its driver stops, what was not written is never shown, and
        its rooms are told the table moved.  Nothing more is written for it from here."""
        if table.gone:
            return
        table.gone = True
        log.warning("table %s let go: %s", table.id, safe_text(why, limit=300))
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
        current = asyncio.current_task()
        for task in (table.driver, table.saver, table.renewer, table.inbox_reader):
            if task is not None and task is not current:
                task.cancel()
        for connection in table.holding:
            connection.held = None  # the frames of moves never written: never sent
        table.holding = []
        table.outbox.clear()
        moved = p.encode(p.Error("table-moved", "the table moved to another server: join it again"))
        for connection in table.connections:
            connection.table, connection.seat = None, OBSERVER
            connection.send_now(moved)
            connection.flush()
        table.connections = []
        self._list_changed()

    # -- taking tables over ----------------------------------------------------------------------

    async def _sweep_loop(self) -> None:
        while True:
            await self._sweep_pause(self.sweep_interval)
            try:
                await self._sweep()
            except Exception as error:  # a sweep that fails is tried again at the next one
                log.warning("tables sweep: %s", safe_text(f"{type(error).__name__}: {error}", limit=300))

    async def _sweep_pause(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    async def _sweep(self) -> list[str]:
        """Take every listed table no host holds (its host died or let it go); the ids taken.  Up to
        :data:`SWEEP_TAKES` at once: a dead host's tables are taken together, not one after another
        (each take is a few round trips to Redis and its log's replay; 13 in a row under load kept
        the last table's people waiting seconds longer)."""
        listed = await self.store.listed()
        free = await self.store.unheld([table_id for table_id in listed if table_id not in self.tables])
        gate = asyncio.Semaphore(SWEEP_TAKES)

        async def take(table_id: str) -> bool:
            async with gate:
                with contextlib.suppress(CannotRun):
                    return await self._take(table_id) is not None
            return False

        taken = await asyncio.gather(*(take(table_id) for table_id in free))
        return [table_id for table_id, done in zip(free, taken, strict=True) if done]

    async def _take(self, table_id: str) -> Table | None:
        """Run the stored table ``table_id`` here if no host holds it: ``None`` when another does, or it
        is not stored; :class:`CannotRun` when this host cannot run it (it is left to one that can)."""
        from gamenight.tables.redis_store import LeaseHeld, StoreError

        if table_id in self.tables:
            return self.tables[table_id]
        if table_id in self._taking:  # a take of it is under way here (the sweep's): its outcome is this one's
            while table_id in self._taking:  # (a room that asks meanwhile is seated, not told "no such table")
                await asyncio.sleep(TAKE_POLL)
            return self.tables.get(table_id)
        self._taking.add(table_id)
        try:
            if not await self.store.unheld([table_id]):  # held: one cheap look, not the whole state read
                return None
            stored = await self.store.load(table_id)
            if stored.holder is not None or stored.state is None:
                return None
            inbox_from = await self._inbox_end(table_id)  # before the lease: what comes after it is read
            epoch = await self.store.acquire(table_id, self.host_id, self.lease_ttl)
            stored = await self.store.load(table_id)  # again, under this host's lease: nothing moves it now
            try:
                table = self._from_stored(stored)
                table.inbox_from = inbox_from
            except CannotRun as error:
                log.warning("table %s not taken: %s", table_id, safe_text(error, limit=300))
                with contextlib.suppress(StoreError):
                    await self.store.release(table_id, self.host_id, epoch)
                raise
        except LeaseHeld:
            return None
        except StoreError as error:
            log.warning("table %s not taken: %s", table_id, safe_text(error, limit=300))
            return None
        finally:
            self._taking.discard(table_id)
        if table_id in self.tables:  # (cannot happen: one take at a time per id)
            return self.tables[table_id]
        table.epoch = epoch
        now = time.monotonic()
        for seat, owner in enumerate(table.owners):
            if owner is not None:
                table.away[seat] = now
        self._queue_state(table)  # the state under this host's epoch: the log starts again from it
        self.tables[table.id] = table
        self._launch(table)
        if table.match.over and table.match.recorded:  # (one over but not counted yet: the driver records it)
            # Its game ended on the host before, which may have died before its record reached the
            # database: recorded from here too (one row per server game: a record that landed stays).
            self._record_table(table)
        log.info("table %s taken (epoch %d, %d moves replayed)", table.id, epoch, len(stored.log))
        self._list_changed()
        return table

    def _from_stored(self, stored: StoredTable) -> Table:
        """The table as stored: its state replayed with the game's rules, then the moves logged since."""
        from gamenight.saves import SaveError, match_from_document
        from gamenight.tables.persist import describe

        assert stored.state is not None
        try:
            document = tomllib.loads(stored.state.document)
            runs = document["runs"]
            game = self.registry.game(stored.state.game)
        except (tomllib.TOMLDecodeError, KeyError, TypeError) as error:
            raise CannotRun(f"its state is not one this host can read ({safe_text(error, limit=120)})") from None
        here = {"gamenight": __version__, "game": game.version}
        if runs != here:
            raise CannotRun(
                f"it runs on gamenight {safe_text(runs.get('gamenight'), limit=20)} with {game.id} "
                f"{safe_text(runs.get('game'), limit=20)}; this host has gamenight {__version__} with "
                f"{game.id} {game.version}"
            )
        try:
            match = match_from_document(self.registry, document["match"], f"table {stored.table}")
            table = self._table_from(document["table"], match)
            for entry in stored.log:
                if entry.seat != match.to_move():
                    raise ValueError(f"move {entry.seq} is seat {entry.seat}'s, but seat {match.to_move()} moves")
                match.apply(entry.action)  # a game that ended here is recorded by the driver, as ever
        except (SaveError, KeyError, ValueError, TypeError) as error:
            raise CannotRun(f"its state does not replay ({safe_text(error, limit=200)})") from None
        except Exception as error:  # a plugin's rules failing on the stored moves
            raise CannotRun(f"its moves do not replay ({safe_text(error, limit=200)})") from None
        table.descriptions = describe(match)
        return table

    def _take_for(self, connection: Connection, message: p.Join | p.Watch) -> bool:
        """A room asks for a table this host does not run: take it if no host does, then answer it.
        ``False`` when there is nothing to take (the ordinary refusal follows)."""
        if self.store is None or not message.table or message.table in self.tables:
            return False

        from gamenight.tables.redis_store import StoreUnavailable

        async def take_then_answer() -> None:
            try:
                table = await self._take(message.table)
            except CannotRun as error:
                self._refuse(connection, "table-version", str(error), fatal=False)
                return connection.flush()
            except Exception as error:  # never a traceback, and the room gets its answer
                log.warning("table %s not taken: %s", message.table, safe_text(f"{type(error).__name__}: {error}"))
                table = None
            if connection.closed:
                return
            if table is None and connection.relayed_from is None and not connection.closed:
                try:
                    if not await self.store.unheld([message.table]):  # another host runs it: relay to it
                        return self._relay_to(connection, message)
                except StoreUnavailable:  # Redis away: the table is not gone, it waits (asked again later)
                    self._refuse(
                        connection, "store-down", "the table's store cannot be reached", fatal=False, counted=False
                    )
                    return connection.flush()
                except Exception as error:
                    log.warning("table %s: %s", message.table, safe_text(f"{type(error).__name__}: {error}"))
            if table is None:
                self._refuse(connection, "no-table", "no such table (or a wrong code)", fatal=False)
            elif isinstance(message, p.Join):
                self._join(connection, message)
            else:
                self._watch(connection, message)
            self._flush(connection)

        task = asyncio.create_task(take_then_answer())
        self._takes.add(task)
        task.add_done_callback(self._takes.discard)
        return True
