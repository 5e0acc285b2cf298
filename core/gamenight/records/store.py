"""The records database: one row per finished game, in SQLite (no Textual here).

A record holds what decides a game and what it gave: the game, its plugin's
version, options, seed and game number, when it started and finished, the
seats (a person's name, or which bot), scores, placings and the full action
log, so it can be replayed later.  Ratings (:mod:`gamenight.records.ratings`)
are updated in the same transaction as the record is written.

The file is opened in WAL mode so readers never wait for a writer; every
write is one ``BEGIN IMMEDIATE`` transaction with a busy timeout, so two rooms
writing at once both land.  The schema is versioned with ``PRAGMA
user_version``: :data:`MIGRATIONS` takes a file from each earlier version to
the next.  A file that is not a database, or one written by a newer
gamenight, is moved aside (never deleted or overwritten) and
:class:`RecordsUnavailable` says where it went.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import platformdirs

from gamenight.i18n import _, gettext
from gamenight.records import ratings as rating_math
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


def _seed_column(seed: int) -> int | str:
    """A seed as the ``seed`` column holds it: an integer, or hex text when wider than SQLite's 64 bits
    (a fresh seed has 128; hex text is never turned into a number by the column's affinity)."""
    return seed if -(2**63) <= seed < 2**63 else hex(seed)


def _seed_value(raw: int | str) -> int:
    """The seed a ``seed`` column's value stands for (see :func:`_seed_column`)."""
    return int(raw, 16) if isinstance(raw, str) else int(raw)


# -- the schema -------------------------------------------------------------------------


def _run_script(connection: sqlite3.Connection, script: str) -> None:
    """Each statement of ``script`` inside the caller's transaction (``executescript`` would commit first)."""
    for statement in script.split(";"):
        if statement.strip():
            connection.execute(statement)


def _migrate_0_to_1(connection: sqlite3.Connection) -> None:
    _run_script(
        connection,
        """
        CREATE TABLE games (
            id INTEGER PRIMARY KEY,
            digest TEXT NOT NULL UNIQUE,
            game TEXT NOT NULL,
            plugin_version TEXT NOT NULL,
            options TEXT NOT NULL,
            seed INTEGER NOT NULL,
            game_number INTEGER NOT NULL,
            started REAL NOT NULL,
            finished REAL NOT NULL,
            seat_count INTEGER NOT NULL
        );
        CREATE TABLE game_logs (
            record INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
            log TEXT NOT NULL
        );
        CREATE INDEX games_by_time ON games (finished DESC, id DESC);
        CREATE INDEX games_by_game_time ON games (game, finished DESC, id DESC);
        CREATE TABLE seats (
            record INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            game TEXT NOT NULL,
            name TEXT NOT NULL,
            bot TEXT,
            score REAL NOT NULL,
            place INTEGER NOT NULL,
            win REAL NOT NULL,
            mu REAL,
            sigma REAL,
            PRIMARY KEY (record, seat)
        ) WITHOUT ROWID;
        CREATE INDEX seats_by_person ON seats (game, name, record, score, win) WHERE bot IS NULL;
        CREATE INDEX seats_by_score ON seats (game, score DESC) WHERE bot IS NULL;
        CREATE TABLE ratings (
            game TEXT NOT NULL,
            kind TEXT NOT NULL,
            name TEXT NOT NULL,
            mu REAL NOT NULL,
            sigma REAL NOT NULL,
            games INTEGER NOT NULL,
            seats INTEGER NOT NULL,
            score_sum REAL NOT NULL,
            PRIMARY KEY (game, kind, name)
        ) WITHOUT ROWID;
        CREATE TABLE game_totals (
            game TEXT PRIMARY KEY,
            records INTEGER NOT NULL,
            last_finished REAL NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE person_totals (
            game TEXT NOT NULL,
            name TEXT NOT NULL,
            played INTEGER NOT NULL,
            won REAL NOT NULL,
            best REAL NOT NULL,
            score_sum REAL NOT NULL,
            PRIMARY KEY (game, name)
        ) WITHOUT ROWID;
        CREATE TABLE versus (
            game TEXT NOT NULL,
            name TEXT NOT NULL,
            bot TEXT NOT NULL,
            games INTEGER NOT NULL,
            won REAL NOT NULL,
            PRIMARY KEY (game, name, bot)
        ) WITHOUT ROWID;
        """,
    )


def _migrate_1_to_2(connection: sqlite3.Connection) -> None:
    """Who held each person seat as the server knows them, and whether they show their name.

    Only the server-wide records (written by ``serve-ssh``'s table service) fill these;
    a room's own records leave them empty.
    """
    _run_script(
        connection,
        """
        CREATE TABLE seat_owners (
            record INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            identity TEXT NOT NULL,
            PRIMARY KEY (record, seat)
        ) WITHOUT ROWID;
        CREATE TABLE players (
            identity TEXT PRIMARY KEY,
            shown INTEGER NOT NULL
        ) WITHOUT ROWID;
        """,
    )


READ_TABLES = frozenset({"games", "game_logs", "seats", "ratings", "game_totals", "person_totals", "versus"})
"""The tables the figures are read from (schema 1 on): a file without them holds no records."""
ALL_TABLES = READ_TABLES | {"seat_owners", "players"}


def _migrate_2_to_3(connection: sqlite3.Connection) -> None:
    """One record per game the table service issued: a key of its own, unique in the database.

    The digest only makes identical records one; two finishes of one server game (processed
    twice, or again after a restore, with a seat's name changed meanwhile) would be two rows.
    """
    _run_script(
        connection,
        """
        ALTER TABLE games ADD COLUMN server_game TEXT;
        CREATE UNIQUE INDEX games_by_server_game ON games (server_game) WHERE server_game IS NOT NULL;
        """,
    )


def _migrate_3_to_4(connection: sqlite3.Connection) -> None:
    """Whether the coach showed advice during a game (a hint or a warning): such a game is listed
    but counts for no rating and no high score.  Every earlier game was played without one."""
    _run_script(connection, "ALTER TABLE games ADD COLUMN coached INTEGER NOT NULL DEFAULT 0")


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _migrate_0_to_1,
    _migrate_1_to_2,
    _migrate_2_to_3,
    _migrate_3_to_4,
]
"""``MIGRATIONS[v]`` takes a file at schema version ``v`` to ``v + 1``; never edit one that shipped."""
SCHEMA_VERSION = len(MIGRATIONS)


# -- the store --------------------------------------------------------------------------


class RecordsStore:
    """An open records database.  Use :meth:`open`; one per thread (SQLite connections are not shared)."""

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

    def _migrate(self) -> None:
        if self.connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            return
        with self._writing() as connection:
            version = connection.execute("PRAGMA user_version").fetchone()[0]  # another room may have migrated
            for step in range(version, SCHEMA_VERSION):
                MIGRATIONS[step](connection)
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

    def _insert(self, connection: sqlite3.Connection, record: GameRecord) -> int | None:
        cursor = connection.execute(
            "INSERT OR IGNORE INTO games (digest, game, plugin_version, options, seed, game_number, started,"
            " finished, seat_count, server_game, coached) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.digest(),
                record.game,
                record.plugin_version,
                json.dumps(record.options, sort_keys=True, default=str, ensure_ascii=False),
                _seed_column(record.seed),
                record.game_number,
                record.started,
                record.finished,
                len(record.seats),
                record.server_game,
                int(record.coached),
            ),
        )
        if cursor.rowcount == 0:  # recorded before: the same digest, or the same server game
            return None
        record_id = cursor.lastrowid
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

    def _count(self, connection: sqlite3.Connection, record: GameRecord) -> None:
        """Keep the running totals that the figures read, so no figure scans every game."""
        connection.execute(
            "INSERT INTO game_totals (game, records, last_finished) VALUES (?, 1, ?)"
            " ON CONFLICT (game) DO UPDATE SET records = records + 1,"
            " last_finished = max(last_finished, excluded.last_finished)",
            (record.game, record.finished),
        )
        people = [seat for seat in record.seats if seat.bot is None]
        connection.executemany(
            "INSERT INTO person_totals (game, name, played, won, best, score_sum) VALUES (?, ?, 1, ?, ?, ?)"
            " ON CONFLICT (game, name) DO UPDATE SET played = played + 1, won = won + excluded.won,"
            " best = max(best, excluded.best), score_sum = score_sum + excluded.score_sum",
            [(record.game, seat.name, seat.win, seat.score, seat.score) for seat in people],
        )
        bots = sorted({seat.bot for seat in record.seats if seat.bot is not None})
        connection.executemany(
            "INSERT INTO versus (game, name, bot, games, won) VALUES (?, ?, ?, 1, ?)"
            " ON CONFLICT (game, name, bot) DO UPDATE SET games = games + 1, won = won + excluded.won",
            [(record.game, seat.name, bot, seat.win) for seat in people for bot in bots],
        )

    def _rate(self, connection: sqlite3.Connection, record: GameRecord) -> list[tuple[float, float]]:
        """Update the ratings of everyone at the table; each seat's rating after the game."""
        return self._rate_seats(connection, record.game, record.seats)

    def _rate_seats(
        self, connection: sqlite3.Connection, game: str, seats_played: Sequence[SeatRecord]
    ) -> list[tuple[float, float]]:
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
            " games = games + 1, seats = seats + excluded.seats, score_sum = score_sum + excluded.score_sum",
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

    # -- reading -----------------------------------------------------------------------

    def hall_high_scores(self, game: str, limit: int = 10) -> list[tuple[float, str | None, float]]:
        """The best scores people made at ``game``: (score, name or ``None`` for anonymous, finished).

        A seat whose identity chose not to show their name gives ``None``.
        """
        return self.connection.execute(
            "SELECT s.score, CASE WHEN coalesce(p.shown, 1) THEN s.name END, g.finished"
            " FROM seats AS s JOIN games AS g ON g.id = s.record"
            " LEFT JOIN seat_owners AS o ON o.record = s.record AND o.seat = s.seat"
            " LEFT JOIN players AS p ON p.identity = o.identity"
            " WHERE s.game = ? AND s.bot IS NULL AND g.coached = 0 ORDER BY s.score DESC, g.finished LIMIT ?",
            (game, limit),
        ).fetchall()

    def hall_recent(self, limit: int = 10) -> list[GameRecord]:
        """The latest games, newest first, a hidden person's name as ``None`` (never their identity)."""
        records = self.recent(limit=limit)
        if not records:
            return records
        marks = ",".join("?" * len(records))
        hidden = {
            (record, seat)
            for record, seat in self.connection.execute(
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
        rows = self.connection.execute(
            "SELECT mu, sigma FROM seats WHERE game = ? AND name = ? AND bot IS NULL AND mu IS NOT NULL"
            " ORDER BY record DESC LIMIT ?",
            (game, name, limit),
        ).fetchall()
        return [(mu, sigma) for mu, sigma in reversed(rows)]

    def count(self, game: str | None = None) -> int:
        """How many games are recorded (of ``game``)."""
        if game is None:
            return self.connection.execute("SELECT coalesce(sum(records), 0) FROM game_totals").fetchone()[0]
        row = self.connection.execute("SELECT records FROM game_totals WHERE game = ?", (game,)).fetchone()
        return row[0] if row else 0

    def games_played(self) -> list[str]:
        """The ids of the games with records, most recently played first; then those only rated (by an arena)."""
        rows = self.connection.execute("SELECT game FROM game_totals ORDER BY last_finished DESC, game")
        games = [row[0] for row in rows]
        rated = self.connection.execute(
            "SELECT DISTINCT game FROM ratings WHERE game NOT IN (SELECT game FROM game_totals) ORDER BY game"
        )
        return games + [row[0] for row in rated]

    def recent(
        self, game: str | None = None, limit: int = 50, before: tuple[float, int] | None = None
    ) -> list[GameRecord]:
        """Records newest first, without their logs; ``before`` (finished, id) pages on from a row."""
        where, parameters = [], []
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
        rows = self.connection.execute(sql, (*parameters, limit)).fetchall()
        return self._with_seats(rows, with_log=False)

    def get(self, record_id: int) -> GameRecord | None:
        """One record with its log."""
        row = self.connection.execute(
            "SELECT id, game, plugin_version, options, seed, game_number, started, finished, log, coached FROM games"
            " JOIN game_logs ON record = id WHERE id = ?",
            (record_id,),
        ).fetchone()
        return self._with_seats([row], with_log=True)[0] if row is not None else None

    def _with_seats(self, rows: list[tuple], with_log: bool) -> list[GameRecord]:
        if not rows:
            return []
        ids = [row[0] for row in rows]
        seats: dict[int, list[SeatRecord]] = {record_id: [] for record_id in ids}
        marks = ",".join("?" * len(ids))
        for record_id, name, bot, score, place, win, mu, sigma in self.connection.execute(
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
                    seed=_seed_value(row[4]),
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
        return self.connection.execute(
            "SELECT played, won, best, score_sum FROM person_totals WHERE game = ? AND name = ?", (game, name)
        ).fetchone()

    def person_latest(
        self, game: str, name: str, limit: int, before: int | None = None
    ) -> list[tuple[int, float, float]]:
        """``name``'s latest games of ``game`` as a person, newest first: (record, score, win)."""
        return self.connection.execute(
            "SELECT record, score, win FROM seats WHERE game = ? AND name = ? AND bot IS NULL AND record < ?"
            " ORDER BY record DESC LIMIT ?",
            (game, name, before if before is not None else 2**63 - 1, limit),
        ).fetchall()

    def opponents(self, game: str, name: str) -> list[tuple[str, int, float]]:
        """Per bot met by ``name`` in ``game``: (bot id, games, ``name``'s win share summed)."""
        return self.connection.execute(
            "SELECT bot, games, won FROM versus WHERE game = ? AND name = ? ORDER BY bot", (game, name)
        ).fetchall()

    def people(self, game: str) -> list[tuple[str, int]]:
        """People who played ``game`` and how many seats they took, most first."""
        return self.connection.execute(
            "SELECT name, played FROM person_totals WHERE game = ? ORDER BY played DESC, name", (game,)
        ).fetchall()

    def high_scores(self, game: str, limit: int = 10) -> list[tuple[float, str, float]]:
        """The best scores people made at ``game``: (score, name, finished), best first."""
        return self.connection.execute(
            "SELECT s.score, s.name, g.finished FROM seats AS s JOIN games AS g ON g.id = s.record"
            " WHERE s.game = ? AND s.bot IS NULL AND g.coached = 0 ORDER BY s.score DESC, g.finished LIMIT ?",
            (game, limit),
        ).fetchall()

    def mean_scores(self, game: str) -> list[tuple[str, str, float, int]]:
        """Everyone's mean score at ``game``: (kind, name, mean, seats played), highest first."""
        return self.connection.execute(
            "SELECT kind, name, score_sum / seats AS mean, seats FROM ratings WHERE game = ? AND seats > 0"
            " ORDER BY mean DESC, name",
            (game,),
        ).fetchall()

    def ratings(self, game: str) -> list[tuple[str, str, float, float, int]]:
        """Everyone rated at ``game``: (kind, name, mu, sigma, games), best (by mu - 3 sigma) first."""
        return self.connection.execute(
            "SELECT kind, name, mu, sigma, games FROM ratings WHERE game = ? ORDER BY mu - 3 * sigma DESC, name",
            (game,),
        ).fetchall()


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
