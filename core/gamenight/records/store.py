"""The records database: one row per finished game, in SQLite or PostgreSQL (no Textual here).

A record holds what decides a game and what it gave: the game, its plugin's
version, options, seed and game number, when it started and finished, the
seats (a person's name, or which bot), scores, placings and the full action
log, so it can be replayed later.  Ratings (:mod:`gamenight.records.ratings`)
are updated in the same transaction as the record is written.

The file is opened in WAL mode so readers never wait for a writer; every
write is one ``BEGIN IMMEDIATE`` transaction with a busy timeout, so two rooms
writing at once both land.  The schema is versioned with ``PRAGMA
user_version``: :data:`MIGRATIONS` takes a file from each earlier version to
the next, on either engine.  A file that is not a database, or one written by a newer
gamenight, is moved aside (never deleted or overwritten) and
:class:`RecordsUnavailable` says where it went.

``serve-ssh --records-url postgresql://...`` keeps the server-wide records in PostgreSQL
instead (:mod:`gamenight.records.postgres`, loaded only then): the same schema, migrations and
queries, the differences in :mod:`gamenight.records.dialect`.
:func:`gamenight.records.backends.open_records` opens either.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
import urllib.parse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import platformdirs

from gamenight.i18n import _, gettext
from gamenight.records import ratings as rating_math
from gamenight.records.dialect import SQLITE, Dialect, seed_value
from gamenight.text import shown_path

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "GameRecord",
    "RecordsStore",
    "RecordsUnavailable",
    "SeatRecord",
    "default_records_path",
    "placings",
]

RECORDS_FILE = "records.sqlite3"
BUSY_TIMEOUT_S = 30.0
"""How long a writer waits for another one before giving up (a write takes milliseconds)."""


def default_records_path() -> Path:
    """``$GAMENIGHT_DATA/records.sqlite3``, else ``records.sqlite3`` in the user data dir.

    A hosted room's user data dir is that user's own folder (the SSH server sets
    ``XDG_DATA_HOME`` for each room), so every user has their own records.
    """
    override = os.environ.get("GAMENIGHT_DATA")
    folder = Path(override) if override else Path(platformdirs.user_data_dir("gamenight"))
    return folder / RECORDS_FILE


class RecordsUnavailable(Exception):
    """The records file cannot be used; the message says why and where it was moved."""


class _Damaged(sqlite3.DatabaseError):
    """A file that opens as SQLite but does not hold our tables."""


DAMAGED_CODES = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})
"""SQLite's answers for a file that is not (or no longer) a database."""


# -- the records ----------------------------------------------------------------------


@dataclass(frozen=True)
class SeatRecord:
    """One seat of a finished game: who sat there and how they did."""

    name: str
    bot: str | None
    """The bot's id, or ``None`` for a person."""
    score: float
    place: int
    """1 for the winner(s); ties share a place."""
    win: float
    """The seat's share of the win: 1, 1/k on a k-way tie, or 0."""
    mu: float | None = field(default=None, compare=False)
    """The seat's rating after this game (``None`` until rated)."""
    sigma: float | None = field(default=None, compare=False)
    identity: str | None = field(default=None, compare=False)
    """Who held the seat as the server knows them (an SSH identity), in the server-wide records only."""

    @property
    def kind(self) -> str:
        """``"person"`` or ``"bot"``."""
        return "person" if self.bot is None else "bot"

    @property
    def rater(self) -> tuple[str, str]:
        """Who is rated for this seat: ``("person", name)`` or ``("bot", bot id)``."""
        return (self.kind, self.name if self.bot is None else self.bot)


@dataclass(frozen=True)
class GameRecord:
    """A finished game."""

    game: str
    plugin_version: str
    options: dict[str, Any]
    seed: int
    game_number: int
    started: float
    finished: float
    seats: tuple[SeatRecord, ...]
    log: tuple[tuple[int, str], ...] = ()
    id: int | None = field(default=None, compare=False)
    server_game: str | None = field(default=None, compare=False)
    """The game as the table service issued it (``TABLE/NUMBER/SEED``); ``None`` for a room's own game.
    The database holds at most one record per server game, whatever is sent or restored."""
    coached: bool = field(default=False, compare=False)
    """The coach showed advice during the game (a hint or a warning): it is listed, marked, but
    counts for no rating and no high score."""

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats that won (several on a tie)."""
        return tuple(index for index, seat in enumerate(self.seats) if seat.place == 1)

    def digest(self) -> str:
        """What makes this game this game: the same finished game recorded twice has the same digest."""
        key = json.dumps(
            [
                self.game,
                self.seed,
                self.game_number,
                self.options,
                [(seat.name, seat.bot) for seat in self.seats],
                list(self.log),
            ],
            sort_keys=True,
            default=str,
            ensure_ascii=False,
        )
        return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True)
class _Rated:
    """What a rating update reads of a game: the game and its seats."""

    game: str
    seats: tuple[SeatRecord, ...]


def placings(scores: Sequence[float], winners: Sequence[int]) -> list[int]:
    """Each seat's place: the winners share 1st, the rest follow by score (ties share a place)."""
    places = [0] * len(scores)
    for seat in winners:
        places[seat] = 1
    rest = sorted((seat for seat in range(len(scores)) if seat not in winners), key=lambda seat: -scores[seat])
    previous: float | None = None
    place = len(set(winners))
    for position, seat in enumerate(rest, start=len(set(winners)) + 1):
        if scores[seat] != previous:
            place, previous = position, scores[seat]
        places[seat] = place
    return places


def record_from_match(match: Any, started: float | None = None, finished: float | None = None) -> GameRecord:
    """The record of ``match``'s finished game (a :class:`gamenight.match.Match`)."""
    outcome = match.outcome()
    places = placings(outcome.scores, outcome.winners)
    # A name the game chose is kept as its English id, as saves keep it: shown in today's language,
    # and the same person in the records whichever language the room spoke.
    defaults = {gettext(name, match.game.id): name for name in reversed(match.game.seat_names)}
    seats = tuple(
        SeatRecord(
            name=defaults.get(seat.name, seat.name),
            bot=seat.bot,
            score=float(outcome.scores[index]),
            place=places[index],
            win=outcome.win_share(index),
        )
        for index, seat in enumerate(match.seats)
    )
    now = time.time()
    return GameRecord(
        game=match.game.id,
        plugin_version=str(match.game.version),
        options=json.loads(json.dumps(match.options, default=str)),
        seed=int(match.seed),
        # the game's number in its session: record_result has counted it already
        game_number=max(0, match.games_played - 1) if match.recorded else match.games_played,
        started=started if started is not None else getattr(match, "started_at", now),
        finished=finished if finished is not None else now,
        seats=seats,
        log=tuple((entry.seat, entry.action) for entry in match.log),
        coached=bool(getattr(match, "coached", False)),
    )


# -- the schema -------------------------------------------------------------------------
#
# One schema for both engines: each migration is its statements, with the few type names that
# differ as {tokens} (see gamenight.records.dialect); SQLite gets exactly what it always had.

MIGRATIONS: list[tuple[str, ...]] = [
    (  # 0 -> 1: the games, their seats and logs, the ratings, and running totals
        """CREATE TABLE games (
            id {id},
            digest TEXT NOT NULL UNIQUE,
            game TEXT NOT NULL,
            plugin_version TEXT NOT NULL,
            options TEXT NOT NULL,
            seed {seed} NOT NULL,
            game_number {int} NOT NULL,
            started {real} NOT NULL,
            finished {real} NOT NULL,
            seat_count {int} NOT NULL
        )""",
        """CREATE TABLE game_logs (
            record {int} PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
            log TEXT NOT NULL
        )""",
        "CREATE INDEX games_by_time ON games (finished DESC, id DESC)",
        "CREATE INDEX games_by_game_time ON games (game, finished DESC, id DESC)",
        """CREATE TABLE seats (
            record {int} NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            seat {int} NOT NULL,
            game TEXT NOT NULL,
            name TEXT NOT NULL,
            bot TEXT,
            score {real} NOT NULL,
            place {int} NOT NULL,
            win {real} NOT NULL,
            mu {real},
            sigma {real},
            PRIMARY KEY (record, seat)
        ){without_rowid}""",
        "CREATE INDEX seats_by_person ON seats (game, name, record, score, win) WHERE bot IS NULL",
        "CREATE INDEX seats_by_score ON seats (game, score DESC) WHERE bot IS NULL",
        """CREATE TABLE ratings (
            game TEXT NOT NULL,
            kind TEXT NOT NULL,
            name TEXT NOT NULL,
            mu {real} NOT NULL,
            sigma {real} NOT NULL,
            games {int} NOT NULL,
            seats {int} NOT NULL,
            score_sum {real} NOT NULL,
            PRIMARY KEY (game, kind, name)
        ){without_rowid}""",
        """CREATE TABLE game_totals (
            game TEXT PRIMARY KEY,
            records {int} NOT NULL,
            last_finished {real} NOT NULL
        ){without_rowid}""",
        """CREATE TABLE person_totals (
            game TEXT NOT NULL,
            name TEXT NOT NULL,
            played {int} NOT NULL,
            won {real} NOT NULL,
            best {real} NOT NULL,
            score_sum {real} NOT NULL,
            PRIMARY KEY (game, name)
        ){without_rowid}""",
        """CREATE TABLE versus (
            game TEXT NOT NULL,
            name TEXT NOT NULL,
            bot TEXT NOT NULL,
            games {int} NOT NULL,
            won {real} NOT NULL,
            PRIMARY KEY (game, name, bot)
        ){without_rowid}""",
    ),
    (  # 1 -> 2: who held each person seat as the server knows them, and whether they show their name
        # (only the server-wide records, written by serve-ssh's table service, fill these)
        """CREATE TABLE seat_owners (
            record {int} NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            seat {int} NOT NULL,
            identity TEXT NOT NULL,
            PRIMARY KEY (record, seat)
        ){without_rowid}""",
        """CREATE TABLE players (
            identity TEXT PRIMARY KEY,
            shown {int} NOT NULL
        ){without_rowid}""",
    ),
    (  # 2 -> 3: one record per game the table service issued, a key of its own, unique in the database
        # (the digest only makes identical records one; two finishes of one server game, processed
        # twice or again after a restore with a seat's name changed meanwhile, would be two rows)
        "ALTER TABLE games ADD COLUMN server_game TEXT",
        "CREATE UNIQUE INDEX games_by_server_game ON games (server_game) WHERE server_game IS NOT NULL",
    ),
    (  # 3 -> 4: whether the coach showed advice during a game (a hint or a warning): such a game is
        # listed but counts for no rating and no high score; every earlier game was played without one
        "ALTER TABLE games ADD COLUMN coached {int} NOT NULL DEFAULT 0",
    ),
    (  # 4 -> 5: the guest names of serve-ssh --guest, in the server-wide database (with --records-url, one
        # book for every host): each name bound to a key's fingerprint or a reconnect code's salted hash,
        # under its skeleton (what it looks like, gamenight.tables.names.name_key), unique: two hosts
        # binding look-alike names at once cannot both succeed
        """CREATE TABLE guest_names (
            skeleton TEXT NOT NULL,
            name TEXT NOT NULL,
            user_id TEXT NOT NULL,
            key_hash TEXT NOT NULL,
            salt TEXT NOT NULL,
            code_hash TEXT NOT NULL,
            used {real} NOT NULL
        )""",
        "CREATE UNIQUE INDEX guest_names_by_skeleton ON guest_names (skeleton)",
        "CREATE UNIQUE INDEX guest_names_by_user ON guest_names (user_id)",
        "CREATE INDEX guest_names_by_use ON guest_names (used)",
    ),
]
"""``MIGRATIONS[v]`` takes a database at schema version ``v`` to ``v + 1``, on either engine (its
statements' ``{tokens}`` are filled by :meth:`Dialect.ddl`); never edit one that shipped."""
SCHEMA_VERSION = len(MIGRATIONS)

READ_TABLES = frozenset({"games", "game_logs", "seats", "ratings", "game_totals", "person_totals", "versus"})
"""The tables the figures are read from (schema 1 on): a file without them holds no records."""
ALL_TABLES = READ_TABLES | {"seat_owners", "players", "guest_names"}


def migrate(connection: Any, dialect: Dialect, version: int, target: int = SCHEMA_VERSION) -> None:
    """Take the schema from ``version`` to ``target`` inside the caller's transaction (not the version number)."""
    for step in range(version, target):
        for statement in MIGRATIONS[step]:
            connection.execute(dialect.ddl(statement))


# -- the store --------------------------------------------------------------------------


class RecordsStore:
    """An open records database.  Use :meth:`open`; one per thread (SQLite connections are not shared).

    Every query is written once for both engines; :class:`gamenight.records.postgres.PostgresRecordsStore`
    runs them on PostgreSQL by giving :meth:`_read` and :meth:`_writing` a pool's connections.
    """

    dialect: Dialect = SQLITE
    unavailable: tuple[type[BaseException], ...] = (sqlite3.OperationalError,)
    """What this engine raises when the database cannot be used now (busy, unreachable), not a bug."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self.connection = connection
        self.path = path

    @classmethod
    def open(cls, path: Path | None = None) -> RecordsStore:
        """Open (creating or migrating) the records at ``path``; raises :class:`RecordsUnavailable`."""
        path = Path(path) if path is not None else default_records_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as error:
            raise RecordsUnavailable(
                _("The records at {path} cannot be opened: {error}", path=shown_path(path), error=error)
            ) from None
        try:
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                connection.close()
                raise RecordsUnavailable(
                    _(
                        "The records were written by a newer gamenight (schema {version}).",
                        version=version,
                    )
                    + " "
                    + _aside_text(path)
                )
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute("PRAGMA foreign_keys=ON")
            store = cls(connection, path)
            store._migrate()
            store._check_schema()
        except sqlite3.DatabaseError as error:
            connection.close()
            if not isinstance(error, _Damaged) and getattr(error, "sqlite_errorcode", None) not in DAMAGED_CODES:
                # busy past the timeout, read-only, out of space: the file is fine, leave it be
                raise RecordsUnavailable(
                    _("The records at {path} cannot be used now: {error}", path=shown_path(path), error=error)
                ) from None
            raise RecordsUnavailable(
                _("The records file is damaged ({error}).", error=error) + " " + _aside_text(path)
            ) from None
        return store

    @classmethod
    def open_read_only(cls, path: Path) -> RecordsStore:
        """Open the records at ``path`` to read them only (``gamenight records --file``).

        The file is opened read-only (SQLite's ``mode=ro``): never created, migrated, or moved
        aside when damaged -- whoever only reads a file leaves it as it is.  Raises
        :class:`RecordsUnavailable`, saying why, when it cannot be read.
        """
        path = Path(path)
        uri = "file:" + urllib.parse.quote(str(path.absolute())) + "?mode=ro"
        try:
            connection = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except sqlite3.Error as error:
            raise RecordsUnavailable(
                _("The records at {path} cannot be opened: {error}", path=shown_path(path), error=error)
            ) from None
        try:
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise RecordsUnavailable(
                    _("The records were written by a newer gamenight (schema {version}).", version=version)
                )
            store = cls(connection, path)
            store._check_schema(READ_TABLES)
        except sqlite3.DatabaseError as error:
            connection.close()
            if isinstance(error, _Damaged) or getattr(error, "sqlite_errorcode", None) in DAMAGED_CODES:
                raise RecordsUnavailable(_("The records file is damaged ({error}).", error=error)) from None
            raise RecordsUnavailable(
                _("The records at {path} cannot be used now: {error}", path=shown_path(path), error=error)
            ) from None
        except RecordsUnavailable:
            connection.close()
            raise
        return store

    def close(self) -> None:
        """Close the database."""
        self.connection.close()

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: taken at once (``BEGIN IMMEDIATE``), committed whole or not at all."""
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            yield self.connection
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise
        self.connection.execute("COMMIT")

    def _read(self, sql: str, parameters: Sequence[Any] = ()) -> list[tuple]:
        """The rows of one query (written with ``?`` placeholders)."""
        return self.connection.execute(sql, parameters).fetchall()

    def _read_one(self, sql: str, parameters: Sequence[Any] = ()) -> tuple | None:
        rows = self._read(sql, parameters)
        return rows[0] if rows else None

    def query(self, sql: str, parameters: Sequence[Any] = ()) -> list[tuple]:
        """Any query's rows, on either engine (for checks and tools; the store's own methods come first)."""
        return [tuple(row) for row in self._read(sql, parameters)]

    def _migrate(self) -> None:
        if self.connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            return
        with self._writing() as connection:
            version = connection.execute("PRAGMA user_version").fetchone()[0]  # another room may have migrated
            migrate(connection, self.dialect, version)
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _check_schema(self, wanted: frozenset[str] | None = None) -> None:
        """A file with our version number but not our tables is damaged too."""
        tables = {row[0] for row in self.connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        missing = (ALL_TABLES if wanted is None else wanted) - tables
        if missing:
            raise _Damaged(f"missing tables: {', '.join(sorted(missing))}")

    @property
    def version(self) -> int:
        """The file's schema version."""
        return self.connection.execute("PRAGMA user_version").fetchone()[0]

    # -- writing -----------------------------------------------------------------------

    def add(self, record: GameRecord) -> int | None:
        """Record a finished game and update the ratings; its id, or ``None`` if it was recorded before."""
        with self._writing() as connection:
            return self._insert(connection, record)

    def add_many(self, records: Sequence[GameRecord]) -> int:
        """Record many games in one transaction (oldest first); how many were new."""
        with self._writing() as connection:
            return sum(self._insert(connection, record) is not None for record in records)

    def _insert(self, connection: Any, record: GameRecord) -> int | None:
        record_id = self.dialect.insert_ignoring(
            connection,
            "games",
            (
                "digest",
                "game",
                "plugin_version",
                "options",
                "seed",
                "game_number",
                "started",
                "finished",
                "seat_count",
                "server_game",
                "coached",
            ),
            (
                record.digest(),
                record.game,
                record.plugin_version,
                json.dumps(record.options, sort_keys=True, default=str, ensure_ascii=False),
                self.dialect.seed_column(record.seed),
                record.game_number,
                record.started,
                record.finished,
                len(record.seats),
                record.server_game,
                int(record.coached),
            ),
        )
        if record_id is None:  # recorded before: the same digest, or the same server game
            return None
        self._changed(connection, record.game)
        connection.execute(
            "INSERT INTO game_logs (record, log) VALUES (?, ?)",
            (record_id, json.dumps([list(entry) for entry in record.log], ensure_ascii=False, separators=(",", ":"))),
        )
        # a coached game moves no rating: its seats keep none
        rated = [(None, None)] * len(record.seats) if record.coached else self._rate(connection, record)
        connection.executemany(
            "INSERT INTO seats (record, seat, game, name, bot, score, place, win, mu, sigma)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    record_id,
                    index,
                    record.game,
                    seat.name,
                    seat.bot,
                    seat.score,
                    seat.place,
                    seat.win,
                    *rated[index],
                )
                for index, seat in enumerate(record.seats)
            ],
        )
        connection.executemany(
            "INSERT INTO seat_owners (record, seat, identity) VALUES (?, ?, ?)",
            [(record_id, index, seat.identity) for index, seat in enumerate(record.seats) if seat.identity],
        )
        self._count(connection, record)
        return record_id

    def _count(self, connection: Any, record: GameRecord) -> None:
        """Keep the running totals that the figures read, so no figure scans every game."""
        connection.execute(
            "INSERT INTO game_totals (game, records, last_finished) VALUES (?, 1, ?)"
            " ON CONFLICT (game) DO UPDATE SET records = game_totals.records + 1,"
            " last_finished = CASE WHEN excluded.last_finished > game_totals.last_finished"
            " THEN excluded.last_finished ELSE game_totals.last_finished END",
            (record.game, record.finished),
        )
        people = [seat for seat in record.seats if seat.bot is None]
        connection.executemany(
            "INSERT INTO person_totals (game, name, played, won, best, score_sum) VALUES (?, ?, 1, ?, ?, ?)"
            " ON CONFLICT (game, name) DO UPDATE SET played = person_totals.played + 1,"
            " won = person_totals.won + excluded.won,"
            " best = CASE WHEN excluded.best > person_totals.best THEN excluded.best ELSE person_totals.best END,"
            " score_sum = person_totals.score_sum + excluded.score_sum",
            [(record.game, seat.name, seat.win, seat.score, seat.score) for seat in people],
        )
        bots = sorted({seat.bot for seat in record.seats if seat.bot is not None})
        connection.executemany(
            "INSERT INTO versus (game, name, bot, games, won) VALUES (?, ?, ?, 1, ?)"
            " ON CONFLICT (game, name, bot) DO UPDATE SET games = versus.games + 1, won = versus.won + excluded.won",
            [(record.game, seat.name, bot, seat.win) for seat in people for bot in bots],
        )

    def _rate(self, connection: Any, record: GameRecord) -> list[tuple[float, float]]:
        """Update the ratings of everyone at the table; each seat's rating after the game."""
        return self._rate_seats(connection, record.game, record.seats)

    def _rate_seats(self, connection: Any, game: str, seats_played: Sequence[SeatRecord]) -> list[tuple[float, float]]:
        record = _Rated(game, tuple(seats_played))
        raters = sorted({seat.rater for seat in record.seats})
        before: dict[tuple[str, str], tuple[float, float, int]] = {}
        for kind, name in raters:
            row = connection.execute(
                "SELECT mu, sigma, games FROM ratings WHERE game = ? AND kind = ? AND name = ?",
                (record.game, kind, name),
            ).fetchone()
            before[(kind, name)] = row if row is not None else (*rating_math.initial(), 0)
        after = rating_math.rate(
            [before[seat.rater][:2] for seat in record.seats],
            [seat.rater for seat in record.seats],
            [seat.place for seat in record.seats],
        )
        seats = {rater: [seat.score for seat in record.seats if seat.rater == rater] for rater in raters}
        connection.executemany(
            "INSERT INTO ratings (game, kind, name, mu, sigma, games, seats, score_sum) VALUES (?, ?, ?, ?, ?, 1, ?, ?)"
            " ON CONFLICT (game, kind, name) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
            " games = ratings.games + 1, seats = ratings.seats + excluded.seats,"
            " score_sum = ratings.score_sum + excluded.score_sum",
            [
                (record.game, kind, name, *after[(kind, name)], len(seats[(kind, name)]), sum(seats[(kind, name)]))
                for kind, name in raters
            ],
        )
        return [after[seat.rater] for seat in record.seats]

    def rate_games(self, game: str, games: Sequence[Sequence[SeatRecord]]) -> int:
        """Rate ``games`` (each its seats, oldest first) without recording them: an arena's series.

        Only the ratings move (and each rater's games, seats and score sum, so a bot's mean
        score is known); no game is listed.  One transaction; how many games were rated.
        """
        with self._writing() as connection:
            for seats in games:
                self._rate_seats(connection, game, seats)
        return len(games)

    def set_shown(self, identity: str, shown: bool) -> None:
        """Whether ``identity`` shows their name in the hall of fame (else "anonymous")."""
        with self._writing() as connection:
            connection.execute(
                "INSERT INTO players (identity, shown) VALUES (?, ?)"
                " ON CONFLICT (identity) DO UPDATE SET shown = excluded.shown",
                (identity, int(bool(shown))),
            )
            self._changed(connection, "")

    def _changed(self, connection: Any, game: str) -> None:
        """Inside a write: the hall of fame changed (``game``'s, or everyone's names).  A file has one
        host; :class:`~gamenight.records.postgres.PostgresRecordsStore` tells every host, on commit."""

    def listen(self, changed: Any) -> None:
        """Call ``changed(game)`` whenever another writer changes the records (``None``: some changes may
        have been missed); one host's file has no other writer, so this does nothing."""

    # -- guest names (serve-ssh --guest; gamenight.ssh.guests.DatabaseGuestBook) ----------

    GUEST_COLUMNS = ("skeleton", "name", "user_id", "key_hash", "salt", "code_hash", "used")

    def guest_find(self, skeleton: str) -> tuple | None:
        """The guest name bound under ``skeleton``: a row of :attr:`GUEST_COLUMNS`, or ``None``."""
        return self._read_one(
            f"SELECT {', '.join(self.GUEST_COLUMNS)} FROM guest_names WHERE skeleton = ?", (skeleton,)
        )

    def guest_count(self) -> int:
        return int(self._read("SELECT count(*) FROM guest_names")[0][0])

    def guest_user_known(self, user_id: str) -> bool:
        """Whether some guest name holds the folder ``user_id``."""
        return self._read_one("SELECT 1 FROM guest_names WHERE user_id = ?", (user_id,)) is not None

    def guest_bind(self, row: Sequence[Any], limit: int) -> str:
        """Bind a guest name (``row``: :attr:`GUEST_COLUMNS`) unless its skeleton is bound already:
        ``"bound"``, ``"taken"`` (by anyone, on any host, even a moment ago) or ``"full"`` (``limit``
        names are bound).  One transaction; the unique skeleton decides between two hosts at once."""
        with self._writing() as connection:
            if int(connection.execute("SELECT count(*) FROM guest_names").fetchone()[0]) >= limit:
                return "full"
            cursor = connection.execute(
                f"INSERT INTO guest_names ({', '.join(self.GUEST_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT DO NOTHING",
                tuple(row),
            )
            return "bound" if cursor.rowcount == 1 else "taken"

    def guest_touch(self, skeleton: str, used: float) -> None:
        with self._writing() as connection:
            connection.execute(
                "UPDATE guest_names SET used = ? WHERE skeleton = ? AND used < ?", (used, skeleton, used)
            )

    def guest_expire(self, cutoff: float, busy: Sequence[str] = ()) -> list[tuple]:
        """Forget the guest names not used since ``cutoff`` whose folder is not in ``busy``: their rows."""
        with self._writing() as connection:
            rows = connection.execute(
                f"SELECT {', '.join(self.GUEST_COLUMNS)} FROM guest_names WHERE used < ? ORDER BY used", (cutoff,)
            ).fetchall()
            keep = set(busy)
            gone = [tuple(row) for row in rows if row[2] not in keep]
            for row in gone:
                connection.execute("DELETE FROM guest_names WHERE skeleton = ? AND used < ?", (row[0], cutoff))
            return gone

    # -- reading -----------------------------------------------------------------------

    def hall_high_scores(self, game: str, limit: int = 10) -> list[tuple[float, str | None, float]]:
        """The best scores people made at ``game``: (score, name or ``None`` for anonymous, finished).

        A seat whose identity chose not to show their name gives ``None``.
        """
        if limit < 1:
            return []
        # Only the seats from the limit-th best score up are joined and sorted (ties on it included,
        # so the order by time among them is exact): the index hands them over and the query costs
        # the same at a hundred games or a million, whatever the engine's statistics say.
        return self._read(
            "SELECT s.score, CASE WHEN coalesce(p.shown, 1) <> 0 THEN s.name END, g.finished"
            " FROM seats AS s JOIN games AS g ON g.id = s.record"
            " LEFT JOIN seat_owners AS o ON o.record = s.record AND o.seat = s.seat"
            " LEFT JOIN players AS p ON p.identity = o.identity"
            " WHERE s.game = ? AND s.bot IS NULL AND g.coached = 0 AND s.score >= coalesce((SELECT s2.score"
            " FROM seats AS s2 JOIN games AS g2 ON g2.id = s2.record WHERE s2.game = ? AND s2.bot IS NULL"
            " AND g2.coached = 0 ORDER BY s2.score DESC LIMIT 1 OFFSET ?), -1e308)"
            " ORDER BY s.score DESC, g.finished, s.record, s.seat LIMIT ?",
            (game, game, limit - 1, limit),
        )

    def hall_recent(self, limit: int = 10) -> list[GameRecord]:
        """The latest games, newest first, a hidden person's name as ``None`` (never their identity)."""
        records = self.recent(limit=limit)
        if not records:
            return records
        marks = ",".join("?" * len(records))
        hidden = {
            (record, seat)
            for record, seat in self._read(
                "SELECT o.record, o.seat FROM seat_owners AS o JOIN players AS p ON p.identity = o.identity"
                f" WHERE p.shown = 0 AND o.record IN ({marks})",
                [record.id for record in records],
            )
        }
        return [
            replace(
                record,
                seats=tuple(
                    replace(seat, name=None) if (record.id, index) in hidden else seat  # type: ignore[arg-type]
                    for index, seat in enumerate(record.seats)
                ),
            )
            for record in records
        ]

    def person_ratings(self, game: str, name: str, limit: int) -> list[tuple[float, float]]:
        """``name``'s rating after each of their latest ``limit`` games of ``game``, oldest first: (mu, sigma)."""
        rows = self._read(
            "SELECT mu, sigma FROM seats WHERE game = ? AND name = ? AND bot IS NULL AND mu IS NOT NULL"
            " ORDER BY record DESC LIMIT ?",
            (game, name, limit),
        )
        return [(mu, sigma) for mu, sigma in reversed(rows)]

    def count(self, game: str | None = None) -> int:
        """How many games are recorded (of ``game``)."""
        if game is None:
            return int(self._read("SELECT coalesce(sum(records), 0) FROM game_totals")[0][0])
        row = self._read_one("SELECT records FROM game_totals WHERE game = ?", (game,))
        return int(row[0]) if row else 0

    def games_played(self) -> list[str]:
        """The ids of the games with records, most recently played first; then those only rated (by an arena)."""
        rows = self._read("SELECT game FROM game_totals ORDER BY last_finished DESC, game")
        games = [row[0] for row in rows]
        rated = self._read(
            "SELECT DISTINCT game FROM ratings WHERE game NOT IN (SELECT game FROM game_totals) ORDER BY game"
        )
        return games + [row[0] for row in rated]

    def recent(
        self, game: str | None = None, limit: int = 50, before: tuple[float, int] | None = None
    ) -> list[GameRecord]:
        """Records newest first, without their logs; ``before`` (finished, id) pages on from a row."""
        where: list[str] = []
        parameters: list[object] = []
        if game is not None:
            where.append("game = ?")
            parameters.append(game)
        if before is not None:
            where.append("(finished, id) < (?, ?)")
            parameters.extend(before)
        sql = (
            "SELECT id, game, plugin_version, options, seed, game_number, started, finished, NULL, coached FROM games"
            + (f" WHERE {' AND '.join(where)}" if where else "")
            + " ORDER BY finished DESC, id DESC LIMIT ?"
        )
        rows = self._read(sql, (*parameters, limit))
        return self._with_seats(rows, with_log=False)

    def get(self, record_id: int) -> GameRecord | None:
        """One record with its log."""
        row = self._read_one(
            "SELECT id, game, plugin_version, options, seed, game_number, started, finished, log, coached FROM games"
            " JOIN game_logs ON record = id WHERE id = ?",
            (record_id,),
        )
        return self._with_seats([row], with_log=True)[0] if row is not None else None

    def _with_seats(self, rows: list[tuple], with_log: bool) -> list[GameRecord]:
        if not rows:
            return []
        ids = [row[0] for row in rows]
        seats: dict[int, list[SeatRecord]] = {record_id: [] for record_id in ids}
        marks = ",".join("?" * len(ids))
        for record_id, name, bot, score, place, win, mu, sigma in self._read(
            f"SELECT record, name, bot, score, place, win, mu, sigma FROM seats WHERE record IN ({marks})"
            " ORDER BY record, seat",
            ids,
        ):
            seats[record_id].append(SeatRecord(name, bot, score, place, win, mu, sigma))
        records = []
        for row in rows:
            log = tuple((int(seat), str(action)) for seat, action in json.loads(row[8])) if with_log else ()
            records.append(
                GameRecord(
                    game=row[1],
                    plugin_version=row[2],
                    options=json.loads(row[3]),
                    seed=seed_value(row[4]),
                    game_number=row[5],
                    started=row[6],
                    finished=row[7],
                    seats=tuple(seats[row[0]]),
                    log=log,
                    id=row[0],
                    coached=bool(row[9]),
                )
            )
        return records

    def person_totals(self, game: str, name: str) -> tuple[int, float, float, float] | None:
        """``name``'s games of ``game`` as a person: (played, won, best score, sum of scores)."""
        return self._read_one(
            "SELECT played, won, best, score_sum FROM person_totals WHERE game = ? AND name = ?", (game, name)
        )

    def person_latest(
        self, game: str, name: str, limit: int, before: int | None = None
    ) -> list[tuple[int, float, float]]:
        """``name``'s latest games of ``game`` as a person, newest first: (record, score, win)."""
        return self._read(
            "SELECT record, score, win FROM seats WHERE game = ? AND name = ? AND bot IS NULL AND record < ?"
            " ORDER BY record DESC LIMIT ?",
            (game, name, before if before is not None else 2**63 - 1, limit),
        )

    def opponents(self, game: str, name: str) -> list[tuple[str, int, float]]:
        """Per bot met by ``name`` in ``game``: (bot id, games, ``name``'s win share summed)."""
        return self._read("SELECT bot, games, won FROM versus WHERE game = ? AND name = ? ORDER BY bot", (game, name))

    def people(self, game: str) -> list[tuple[str, int]]:
        """People who played ``game`` and how many seats they took, most first."""
        return self._read("SELECT name, played FROM person_totals WHERE game = ? ORDER BY played DESC, name", (game,))

    def high_scores(self, game: str, limit: int = 10) -> list[tuple[float, str, float]]:
        """The best scores people made at ``game``: (score, name, finished), best first (on a tie, the
        earlier game; in one game, the earlier seat: the same order on either engine)."""
        return self._read(
            "SELECT s.score, s.name, g.finished FROM seats AS s JOIN games AS g ON g.id = s.record"
            " WHERE s.game = ? AND s.bot IS NULL AND g.coached = 0"
            " ORDER BY s.score DESC, g.finished, s.record, s.seat LIMIT ?",
            (game, limit),
        )

    def mean_scores(self, game: str) -> list[tuple[str, str, float, int]]:
        """Everyone's mean score at ``game``: (kind, name, mean, seats played), highest first."""
        return self._read(
            "SELECT kind, name, score_sum / seats AS mean, seats FROM ratings WHERE game = ? AND seats > 0"
            " ORDER BY mean DESC, name",
            (game,),
        )

    def ratings(self, game: str) -> list[tuple[str, str, float, float, int]]:
        """Everyone rated at ``game``: (kind, name, mu, sigma, games), best (by mu - 3 sigma) first."""
        return self._read(
            "SELECT kind, name, mu, sigma, games FROM ratings WHERE game = ? ORDER BY mu - 3 * sigma DESC, name",
            (game,),
        )


def _aside_text(path: Path) -> str:
    """Move ``path`` aside and say where it went (or that it stayed); the room keeps no records either way."""
    aside = _move_aside(path)
    if aside == path:
        return _("It could not be moved, so it was left as it is; this room keeps no records.")
    return _("It was moved to {aside}; this room keeps no records.", aside=aside)


def _move_aside(path: Path) -> Path:
    """Rename ``path`` (and its WAL files) to a free ``…broken-<time>`` name beside it; the new path."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    for number in range(1000):
        aside = path.with_name(f"{path.name}.broken-{stamp}" + (f"-{number}" if number else ""))
        if not aside.exists():
            break
    if not _move(path, aside):
        return path  # cannot move it: it stays where it is, untouched
    for suffix in ("-wal", "-shm"):
        extra = path.with_name(path.name + suffix)
        if extra.exists():
            _move(extra, aside.with_name(aside.name + suffix))
    return aside


def _move(source: Path, target: Path) -> bool:
    """Move ``source`` to ``target``, which must not exist; False if it could not be moved."""
    try:
        os.link(source, target)  # fails rather than replace a file that appeared meanwhile
    except FileExistsError:
        return False
    except OSError:  # no hard links on this file system: a rename, after looking
        if target.exists():
            return False
        try:
            os.rename(source, target)
        except OSError:
            return False
        return True
    source.unlink(missing_ok=True)
    return True
