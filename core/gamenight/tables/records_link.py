"""The service's link to the server-wide records (``DATA_DIR/records.sqlite3``, :mod:`gamenight.records.store`),
which no sandboxed room can reach: every finished game of its tables, one record per game, and the hall of
fame.  The database is used from one thread of its own, never from the event loop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gamenight.tables import protocol as p
from gamenight.tables.base import _ServiceBase
from gamenight.tables.table import Table, people_at_the_end
from gamenight.text import safe_text

if TYPE_CHECKING:
    from gamenight.tables.service import Connection

log = logging.getLogger("gamenight.tables")

RECORDS_FILE = "records.sqlite3"
LOGGED_WAIT = 1.0
"""With the tables in Redis: seconds between two looks at whether a finished game's last move is written
(woken at once when it is; the bound only notices a table let go, which wakes nothing)."""


class RecordsLink(_ServiceBase):
    """Part of :class:`~gamenight.tables.service.TableService`: records written off the loop, the hall of fame read."""

    _halls_changes = 0
    """How many times the cached halls of fame were dropped (a record here, or on another host)."""

    async def _in_db(self, function: Any, *args: Any) -> Any:
        """Run ``function(*args)`` in the records' own thread (SQLite's connection lives there)."""
        assert self._db is not None
        return await asyncio.get_running_loop().run_in_executor(self._db, function, *args)

    async def _open_records(self, path: Path | str) -> None:
        from gamenight.records.backends import open_records
        from gamenight.records.store import RecordsUnavailable

        assert self.data_dir is not None
        self._db = ThreadPoolExecutor(max_workers=1, thread_name_prefix="records")
        try:
            # a database's games wait in the spool while it cannot be reached (a file is always at hand)
            self.records = await self._in_db(open_records, path, self.data_dir / "records-spool")
        except RecordsUnavailable as error:
            log.warning("no server-wide records: %s", safe_text(error, limit=300))
            self.records = None
            return
        loop = asyncio.get_running_loop()

        def changed(_game: str | None) -> None:  # another host (or this one) changed the hall of fame
            with contextlib.suppress(RuntimeError):  # the loop has closed: nothing is cached any more
                loop.call_soon_threadsafe(self._forget_halls)

        self.records.listen(changed)

    def _forget_halls(self) -> None:
        """Drop every cached hall of fame; an answer read before this is not cached after it."""
        self._halls.clear()
        self._halls_changes += 1

    async def _close_records(self) -> None:
        """Wait for the writes under way (a few seconds at most), then close the database."""
        if self._db is None:
            return
        pending = [task for task in self._db_tasks if not task.done()]
        if pending:
            await asyncio.wait(pending, timeout=10)
        if self.records is not None:
            store, self.records = self.records, None
            with contextlib.suppress(Exception):
                await self._in_db(store.close)
        self._db.shutdown(wait=False)
        self._db = None

    def _background(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._db_tasks.add(task)
        task.add_done_callback(self._db_tasks.discard)

    def _record_table(self, table: Table) -> None:
        """Keep a shared table's finished game in the server-wide records (written off the loop)."""
        if self.records is None or not people_at_the_end(table):
            return
        from gamenight.records.store import record_from_match
        from gamenight.records.verify import with_identities

        try:
            record = record_from_match(table.match)
        except Exception as error:  # a plugin's outcome failing: the table goes on unrecorded
            log.warning("table %s: not recorded: %s", table.id, safe_text(error, limit=200))
            return
        identities = [
            owner if owner is not None and not table.bot_plays(seat) else None
            for seat, owner in enumerate(table.owners)
        ]
        # The game as this service issued it: its table, number and secret seed (fresh per game).  The
        # database keeps one row per server game: a second host recording it too (after a takeover) adds none.
        record = replace(record, server_game=f"{table.id}/{record.game_number}/{table.match.seed:x}")
        record = with_identities(record, identities)
        if self.store is not None and table.logged < table.applied:
            # With the tables in Redis, the game is recorded once the move that ended it is written there:
            # a host that lost the table (paused past its lease) never records an end no one else has.
            self._background(self._write_once_logged(table, table.applied, record))
        else:
            self._background(self._write(record, f"table {table.id}"))

    async def _write_once_logged(self, table: Table, applied: int, record: Any) -> bool:
        """Write ``record`` once the first ``applied`` moves of ``table`` are in Redis; nothing if the table
        is let go first (its moves not written are no one's: the host that runs it now has its own end)."""
        while table.logged < applied:
            if table.gone:
                log.warning("table %s: its end not recorded here: the table was let go first", table.id)
                return False
            with contextlib.suppress(TimeoutError):  # (a table let go never sets it: looked at again)
                await asyncio.wait_for(table.durable.wait(), LOGGED_WAIT)
        return await self._write(record, f"table {table.id}")

    async def _write(self, record: Any, what: str) -> bool:
        try:
            await self._in_db(self.records.add, record)
        except Exception as error:  # busy past the timeout, disk full: logged, nothing else stops
            log.warning("%s: not recorded: %s", what, safe_text(error, limit=200))
            return False
        self._forget_halls()
        log.info("%s: %s recorded", what, record.game)
        return True

    def _hall_name(self, connection: Connection, message: p.HallName) -> None:
        if not connection.halls.allow():
            return self._refuse(connection, "hall-flood", "too many hall of fame requests", fatal=False)
        if self.records is None or self._shown.get(connection.identity) == message.shown:
            return
        self._shown[connection.identity] = message.shown
        self._background(self._write_shown(connection.identity, message.shown))

    async def _write_shown(self, identity: str, shown: bool) -> None:
        try:
            await self._in_db(self.records.set_shown, identity, shown)
        except Exception as error:
            log.warning("hall of fame setting of %s not kept: %s", identity, safe_text(error, limit=200))
            self._shown.pop(identity, None)
            return
        self._forget_halls()

    def _hall(self, connection: Connection, message: p.HallQuery) -> None:
        if not connection.halls.allow():
            return self._refuse(connection, "hall-flood", "too many hall of fame requests", fatal=False)
        if self.records is None:
            return connection.send(p.HallOfFame(message.game, False, [], []))
        cached = self._halls.get(message.game)
        if cached is not None:
            return connection.send(cached)
        self._background(self._answer_hall(connection, message.game))

    async def _answer_hall(self, connection: Connection, game: str) -> None:
        changes = self._halls_changes
        try:
            answer = await self._in_db(_read_hall, self.records, game)
        except Exception as error:
            log.warning("hall of fame not read: %s", safe_text(error, limit=200))
            answer = p.HallOfFame(game, False, [], [])
        else:
            # a made-up game id is answered, never kept; nor one read while another host recorded
            if game in self.registry.games and changes == self._halls_changes:
                self._halls[game] = answer
        connection.send(answer)


def _read_hall(store: Any, game: str) -> p.HallOfFame:
    """The hall of fame of ``game`` from the records (in the records' thread), bounded and plain."""
    top = [
        p.HallScore(rank, float(score), safe_text(name or "", limit=32), float(finished))
        for rank, (score, name, finished) in enumerate(store.hall_high_scores(game, p.HALL_SIZE), start=1)
    ]
    recent = [
        p.HallGame(
            record.game,
            record.finished,
            [
                p.HallSeat(safe_text(seat.name or "", limit=32), seat.bot or "", seat.score, seat.place == 1)
                for seat in record.seats[:16]
            ],
        )
        for record in store.hall_recent(p.HALL_SIZE)
    ]
    return p.HallOfFame(game, True, top, recent)
