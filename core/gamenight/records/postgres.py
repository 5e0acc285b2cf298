"""The server-wide records in PostgreSQL (``serve-ssh --records-url postgresql://...``).

The same schema, migrations and queries as the SQLite file (:mod:`gamenight.records.store`);
what differs is in :mod:`gamenight.records.dialect`.  Connections come from a psycopg 3 pool
(``psycopg_pool``), so several ``serve-ssh`` hosts share one hall of fame.  This module is
imported only when a database URL is given: the embedded default never loads psycopg.

* Every write is one transaction that first takes one advisory lock
  (``pg_advisory_xact_lock``), so writers queue as SQLite's ``BEGIN IMMEDIATE`` makes them
  queue: no rating update is lost between two hosts, and a server game (``server_game``, unique)
  is one row however many hosts send it.
* The migrations run at start, under the same lock (two hosts starting at once migrate once);
  the version is in the one-row table ``gamenight_schema``.
* Every write that changes the hall of fame (a game recorded, a name hidden or shown) sends a
  ``NOTIFY`` on :data:`CHANNEL` in its own transaction, so it is delivered when, and only if, it
  commits; each host listens (:meth:`~PostgresRecordsStore.listen`) on a connection of its own and drops
  its cached hall of fame (``None`` after a lost connection: it may have missed some).
* A finished game that cannot be written because the database cannot be reached is kept in
  the spool folder (one JSON file per game, written atomically) and written when the database
  answers again: before the next game is written, every :data:`RETRY_S` seconds while any game
  waits, and at the next start.  Writing a game twice is harmless (its digest and server game
  are unique keys), so a game is never lost and never doubled.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
import psycopg
from psycopg_pool import ConnectionPool

from gamenight.i18n import _
from gamenight.records.dialect import POSTGRESQL, VERSION_TABLE, shown_url
from gamenight.records.store import (
    ALL_TABLES,
    SCHEMA_VERSION,
    GameRecord,
    RecordsStore,
    RecordsUnavailable,
    SeatRecord,
    migrate,
)

__all__ = ["PostgresRecordsStore", "shown_url"]

log = logging.getLogger("gamenight.tables.records")
"""A child of the table service's logger: its lines go where the server's event log goes."""
logging.getLogger("psycopg.pool").setLevel(logging.CRITICAL)
"""The pool warns at each failed reconnection, in plain text on stderr (the server's is JSON lines
only): the store says once, in the event log, that the database is away and what it kept."""

CHANNEL = "gamenight_records"
"""The ``NOTIFY`` channel of changes to the hall of fame (payload: the game's id, or ``""`` for all)."""
LISTEN_RETRY_S = 2.0
"""How long a host waits before listening again after its listening connection was lost."""
LOCK_KEY = 0x67616D656E69
"""The advisory lock every write takes (``'gameni'`` in ASCII): writers one at a time."""
CONNECT_TIMEOUT_S = 5.0
"""How long opening the database waits for it at start."""
POOL_TIMEOUT_S = 10.0
"""How long a write or a read waits for a connection before the database counts as unreachable."""
RETRY_S = 30.0
"""How often the games in the spool are tried again while the database cannot be reached."""
POOL_SIZE = 4
RECONNECT_S = 60.0
SPOOL_FILE_CAP = 16 * 1024 * 1024
"""A spooled game bigger than this is not ours (a game's log is far smaller): it is set aside."""

UNREACHABLE: tuple[type[BaseException], ...] = (psycopg.OperationalError, psycopg.InterfaceError)
"""What a database that cannot be reached raises (a lost connection, a pool's timeout, a server
shutting down); anything else (a constraint, a bug) is an error of the write itself."""


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())[:300] or type(error).__name__


class _Writer:
    """A pool connection inside a write transaction, speaking the queries' ``?`` placeholders."""

    def __init__(self, connection: psycopg.Connection) -> None:
        self.connection = connection

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> psycopg.Cursor:
        return self.connection.execute(POSTGRESQL.sql(sql), parameters)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        rows = list(rows)
        if rows:
            with self.connection.cursor() as cursor:
                cursor.executemany(POSTGRESQL.sql(sql), rows)


# -- the spool: finished games waiting for the database ------------------------------------


class _SpooledSeat(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    bot: str | None
    score: float
    place: int
    win: float
    identity: str | None = None


class _Spooled(msgspec.Struct, forbid_unknown_fields=True):
    format: int
    game: str
    plugin_version: str
    options: dict[str, Any]
    seed: str
    """Hex: a fresh seed has 128 bits (JSON readers stop at 64)."""
    game_number: int
    started: float
    finished: float
    seats: list[_SpooledSeat]
    log: list[tuple[int, str]]
    server_game: str | None = None


SPOOL_FORMAT = 1


def spool_bytes(record: GameRecord) -> bytes:
    """A finished game as its spool file holds it."""
    return msgspec.json.encode(
        _Spooled(
            format=SPOOL_FORMAT,
            game=record.game,
            plugin_version=record.plugin_version,
            options=record.options,
            seed=hex(record.seed),
            game_number=record.game_number,
            started=record.started,
            finished=record.finished,
            seats=[
                _SpooledSeat(seat.name, seat.bot, seat.score, seat.place, seat.win, seat.identity)
                for seat in record.seats
            ],
            log=[(int(seat), str(action)) for seat, action in record.log],
            server_game=record.server_game,
        )
    )


def record_from_spool(data: bytes) -> GameRecord:
    """The game a spool file holds; raises ``ValueError`` for anything else."""
    try:
        spooled = msgspec.json.decode(data, type=_Spooled)
    except msgspec.DecodeError as error:
        raise ValueError(str(error)) from None
    if spooled.format != SPOOL_FORMAT:
        raise ValueError(f"spool format {spooled.format}")
    return GameRecord(
        game=spooled.game,
        plugin_version=spooled.plugin_version,
        options=spooled.options,
        seed=int(spooled.seed, 16),
        game_number=spooled.game_number,
        started=spooled.started,
        finished=spooled.finished,
        seats=tuple(
            SeatRecord(seat.name, seat.bot, seat.score, seat.place, seat.win, identity=seat.identity)
            for seat in spooled.seats
        ),
        log=tuple((seat, action) for seat, action in spooled.log),
        server_game=spooled.server_game,
    )


# -- the store -----------------------------------------------------------------------------


class PostgresRecordsStore(RecordsStore):
    """The records in a PostgreSQL database.  Use :meth:`open`; safe to share between threads."""

    dialect = POSTGRESQL
    unavailable = UNREACHABLE

    def __init__(
        self, pool: ConnectionPool, url: str, spool: Path | None = None, retry_interval: float = RETRY_S
    ) -> None:
        self.connection = None  # type: ignore[assignment]  # no one connection: the pool's
        self.path = None  # type: ignore[assignment]
        self.pool = pool
        self.url = shown_url(url)
        """The database, as it may be shown (no password)."""
        self._url = url
        self.spool = spool
        """Where games wait while the database cannot be reached (``None``: a failed write raises)."""
        self.retry_interval = retry_interval
        self._spool_lock = threading.Lock()
        self._pending = False
        """Whether any game may be waiting in the spool."""
        self._closed = threading.Event()
        self._retrier: threading.Thread | None = None
        self._listener: threading.Thread | None = None
        self._listening: psycopg.Connection | None = None

    @classmethod
    def open(  # type: ignore[override]
        cls,
        url: str,
        spool: Path | None = None,
        *,
        connect_timeout: float = CONNECT_TIMEOUT_S,
        pool_timeout: float = POOL_TIMEOUT_S,
        retry_interval: float = RETRY_S,
    ) -> PostgresRecordsStore:
        """Connect (creating or migrating the schema); raises :class:`RecordsUnavailable`, one line."""
        shown = shown_url(url)
        try:
            # One plain connection first: its error says why (refused, no such database, a password),
            # where a pool only says that it timed out.
            with psycopg.connect(url, connect_timeout=max(1, round(connect_timeout))):
                pass
        except (psycopg.Error, ValueError) as error:
            raise RecordsUnavailable(
                _("The records database at {url} cannot be reached: {error}", url=shown, error=_one_line(error))
            ) from None
        pool = ConnectionPool(
            url,
            min_size=1,
            max_size=POOL_SIZE,
            open=False,
            timeout=pool_timeout,
            kwargs={
                "autocommit": True,  # a read is one statement; a write opens its own transaction
                "connect_timeout": max(1, round(connect_timeout)),
                "application_name": "gamenight",
            },
            check=ConnectionPool.check_connection,  # a connection the server dropped is replaced, not used
            # The pool retries a lost connection with a growing delay (1, 2, 4... s); after this long it
            # gives up, and the next request (a game, a retry of the spool) starts again at once: a
            # database back after a long outage is found within about half a minute, not 5.
            reconnect_timeout=RECONNECT_S,
            name="gamenight-records",
        )
        try:
            pool.open(wait=True, timeout=connect_timeout)
            store = cls(pool, url, spool, retry_interval)
            store._migrate()
            store._check_schema()
        except RecordsUnavailable:
            pool.close()
            raise
        except psycopg.Error as error:
            pool.close()
            raise RecordsUnavailable(
                _("The records database at {url} cannot be used: {error}", url=shown, error=_one_line(error))
            ) from None
        if spool is not None:
            store._pending = any(spool.glob("*.json")) if spool.is_dir() else False
            if store._pending:  # games kept by an earlier run: written now, or retried
                try:
                    store.drain()
                except UNREACHABLE:
                    with store._spool_lock:
                        store._start_retrying()
        return store

    def close(self) -> None:
        self._closed.set()
        retrier = self._retrier
        if retrier is not None:
            retrier.join(timeout=POOL_TIMEOUT_S + 1)
        listener = self._listener
        if listener is not None:
            listener.join(timeout=LISTEN_RETRY_S + 2)
        self.pool.close()

    # -- the hall of fame on every host ------------------------------------------------

    def _changed(self, connection: Any, game: str) -> None:
        connection.execute("SELECT pg_notify(?, ?)", (CHANNEL, game[:64]))

    def listen(self, changed: Any) -> None:
        """Call ``changed(game)`` (from a thread of its own) whenever any host's write changes the hall of
        fame, this one's included, once it has committed; ``changed(None)`` when the listening connection
        was lost (changes meanwhile were not heard) and again made.  Until :meth:`close`."""
        if self._listener is None:
            self._listener = threading.Thread(target=self._listen, args=(changed,), name="records-listen", daemon=True)
            self._listener.start()

    def _listen(self, changed: Any) -> None:
        missed = False
        while not self._closed.is_set():
            try:
                with psycopg.connect(
                    self._url, autocommit=True, connect_timeout=max(1, round(CONNECT_TIMEOUT_S))
                ) as connection:
                    connection.execute(f"LISTEN {CHANNEL}")
                    if missed:
                        changed(None)
                    missed = True  # from here on, a lost connection may have lost a change
                    while not self._closed.is_set():
                        for notice in connection.notifies(timeout=0.5):
                            changed(notice.payload[:64])
            except psycopg.Error as error:
                log.info("records database %s: not listening for changes (%s)", self.url, _one_line(error))
                missed = True
                self._closed.wait(LISTEN_RETRY_S)

    # -- the engine --------------------------------------------------------------------

    def _read(self, sql: str, parameters: Sequence[Any] = ()) -> list[tuple]:
        with self.pool.connection() as connection:
            return connection.execute(POSTGRESQL.sql(sql), parameters).fetchall()

    @contextmanager
    def _writing(self) -> Iterator[_Writer]:  # type: ignore[override]
        """One write transaction, after every other writer's (one advisory lock), committed whole or not at all."""
        with self.pool.connection() as connection, connection.transaction():
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
            yield _Writer(connection)

    @staticmethod
    def _schema_version(connection: Any) -> int:
        exists = connection.execute("SELECT to_regclass(?) IS NOT NULL", (VERSION_TABLE,)).fetchone()[0]
        if not exists:
            return 0
        row = connection.execute(f"SELECT max(version) FROM {VERSION_TABLE}").fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def _migrate(self) -> None:
        with self._writing() as connection:
            version = self._schema_version(connection)  # after the lock: another host may have migrated
            if version > SCHEMA_VERSION:
                raise RecordsUnavailable(
                    _("The records were written by a newer gamenight (schema {version}).", version=version)
                )
            if version == SCHEMA_VERSION:
                return
            migrate(connection, POSTGRESQL, version)
            connection.execute(f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} (version INTEGER NOT NULL)")
            connection.execute(f"DELETE FROM {VERSION_TABLE}")
            connection.execute(f"INSERT INTO {VERSION_TABLE} (version) VALUES (?)", (SCHEMA_VERSION,))
        log.info("records database %s: schema %d -> %d", self.url, version, SCHEMA_VERSION)

    def _check_schema(self, wanted: frozenset[str] | None = None) -> None:
        tables = {
            row[0]
            for row in self._read(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
            )
        }
        missing = (ALL_TABLES if wanted is None else wanted) - tables
        if missing:
            raise RecordsUnavailable(
                _(
                    "The records database at {url} cannot be used: {error}",
                    url=self.url,
                    error=f"missing tables: {', '.join(sorted(missing))}",
                )
            )

    @property
    def version(self) -> int:
        with self.pool.connection() as connection:
            return self._schema_version(_Writer(connection))

    # -- writing, or keeping the game until the database answers -----------------------

    def add(self, record: GameRecord) -> int | None:
        """Record a finished game; while the database cannot be reached, keep it in the spool
        (``None``, as for a game recorded before) and record it when the database answers."""
        if self.spool is None:
            return super().add(record)
        with self._spool_lock:
            try:
                self._drain_locked()  # the games that waited go first, in the order they finished
                return super().add(record)
            except UNREACHABLE as error:
                self._keep(record, error)
                return None

    def add_many(self, records: Sequence[GameRecord]) -> int:
        if self.spool is None:
            return super().add_many(records)
        return sum(self.add(record) is not None for record in records)

    def waiting(self) -> int:
        """How many finished games wait in the spool for the database."""
        return len(list(self.spool.glob("*.json"))) if self.spool is not None and self.spool.is_dir() else 0

    def drain(self) -> int:
        """Record the games waiting in the spool, oldest first; how many were taken from it.

        Raises what an unreachable database raises (the games stay in the spool).
        """
        with self._spool_lock:
            return self._drain_locked()

    def _drain_locked(self) -> int:
        if not self._pending or self.spool is None:
            return 0
        taken = 0
        for file in sorted(self.spool.glob("*.json")):
            try:
                with file.open("rb") as handle:
                    data = handle.read(SPOOL_FILE_CAP + 1)
                if len(data) > SPOOL_FILE_CAP:
                    raise ValueError(f"over {SPOOL_FILE_CAP} bytes")
                record = record_from_spool(data)
            except (OSError, ValueError) as error:
                log.warning("records spool: %s set aside: %s", file.name, _one_line(error))
                with contextlib.suppress(OSError):
                    file.rename(file.with_name(file.name + ".bad"))
                continue
            try:
                RecordsStore.add(self, record)  # twice is harmless: its digest and server game are unique
            except UNREACHABLE:
                raise  # it stays, with every game after it, for the next try
            except psycopg.Error as error:  # refused by the database itself: never a reason to stop the rest
                log.warning("records spool: %s refused, set aside: %s", file.name, _one_line(error))
                with contextlib.suppress(OSError):
                    file.rename(file.with_name(file.name + ".bad"))
                continue
            file.unlink(missing_ok=True)
            taken += 1
        self._pending = False
        if taken:
            log.info("records database %s: %d waiting game(s) recorded", self.url, taken)
        return taken

    def _keep(self, record: GameRecord, error: BaseException) -> None:
        """Write ``record`` to the spool (atomically: a whole file or none) and retry later."""
        assert self.spool is not None
        self.spool.mkdir(mode=0o700, parents=True, exist_ok=True)
        name = f"{time.time_ns():020d}-{record.digest()[:16]}.json"
        partial = self.spool / (name + ".partial")
        with partial.open("wb") as handle:
            handle.write(spool_bytes(record))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, self.spool / name)
        self._pending = True
        log.warning(
            "records database %s unreachable (%s): %s kept in %s, recorded when the database answers",
            self.url,
            _one_line(error),
            record.game,
            self.spool,
        )
        self._start_retrying()

    def _start_retrying(self) -> None:
        """Start the retry thread unless it runs (with :attr:`_spool_lock` held)."""
        if self._retrier is None and self.retry_interval > 0 and not self._closed.is_set():
            self._retrier = threading.Thread(target=self._retry, name="records-retry", daemon=True)
            self._retrier.start()

    def _retry(self) -> None:
        """Try the spool again every :attr:`retry_interval` seconds until it is empty or the store closes."""
        while not self._closed.wait(self.retry_interval):
            try:
                self.drain()
            except UNREACHABLE:
                continue
            except Exception as error:  # a bug must not end the retries silently
                log.warning("records spool: not written: %s", _one_line(error))
                continue
            with self._spool_lock:
                if not self._pending:
                    self._retrier = None
                    return
        self._retrier = None
