"""The records database: schema versions, damaged files, two writers, paging.

A test that takes ``records_target`` runs on both engines: a SQLite file, and a PostgreSQL
database of its own in the session's throwaway cluster (``conftest.py``).
"""

from __future__ import annotations

import multiprocessing
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from gamenight.records.backends import open_records
from gamenight.records.dialect import POSTGRESQL, SQLITE, VERSION_TABLE
from gamenight.records.store import (
    SCHEMA_VERSION,
    GameRecord,
    RecordsStore,
    RecordsUnavailable,
    SeatRecord,
    default_records_path,
    migrate,
    placings,
)


def a_record(number: int = 0, game: str = "nim", winner: int = 0, finished: float | None = None) -> GameRecord:
    scores = [10.0 + number, 5.0]
    scores[winner] += 20
    places = placings(scores, [winner])
    return GameRecord(
        game=game,
        plugin_version="1.0",
        options={"heaps": 3},
        seed=1234 + number,
        game_number=0,
        started=1000.0 + number,
        finished=finished if finished is not None else 2000.0 + number,
        seats=(
            SeatRecord("You", None, scores[0], places[0], 1.0 if winner == 0 else 0.0),
            SeatRecord("Bot", "random", scores[1], places[1], 1.0 if winner == 1 else 0.0),
        ),
        log=((0, "take 1 2"), (1, "take 0 1"), (-1, "roll 5")),
    )


def test_default_path_follows_gamenight_data(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("GAMENIGHT_DATA", str(tmp_path / "data"))
    assert default_records_path() == tmp_path / "data" / "records.sqlite3"


def test_a_hosted_room_keeps_its_records_in_the_users_own_folder(tmp_path: Path, monkeypatch) -> None:
    from gamenight.ssh.sessions import build_environment

    home = tmp_path / "users" / "k-abc"
    monkeypatch.delenv("GAMENIGHT_DATA", raising=False)
    for key, value in build_environment(home, "xterm-256color", "256", None).items():
        if key.startswith("XDG_") or key == "HOME":
            monkeypatch.setenv(key, value)
    assert default_records_path().is_relative_to(home)


def test_a_record_round_trips_with_its_log(records_target) -> None:
    store = open_records(records_target)
    record = a_record()
    record_id = store.add(record)
    assert record_id is not None
    loaded = store.get(record_id)
    assert loaded == record  # every field, the log included (ids do not compare)
    assert loaded.seats[0].mu is not None and loaded.seats[0].sigma is not None
    assert store.recent()[0].log == ()  # the list does not carry the logs
    if isinstance(records_target, Path):
        assert store.connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()


def test_a_seed_of_128_bits_round_trips(records_target) -> None:
    store = open_records(records_target)
    seeds = [2**127 + 12345, -(2**70), 2**63 - 1, 7]
    ids = [store.add(replace(a_record(number), seed=seed)) for number, seed in enumerate(seeds)]
    assert [store.get(record_id).seed for record_id in ids] == seeds
    store.close()


def test_the_same_game_is_recorded_once(records_target) -> None:
    store = open_records(records_target)
    assert store.add(a_record()) is not None
    assert store.add(a_record()) is None
    assert store.count() == 1
    assert store.ratings("nim")[0][4] == 1  # and rated once
    store.close()


def test_a_server_game_is_one_row_whatever_is_sent(records_target) -> None:
    store = open_records(records_target)
    first = replace(a_record(1), server_game="t1/0/abc")
    renamed = replace(first, seats=(replace(first.seats[0], name="Ann"), first.seats[1]))  # another digest
    assert store.add(first) is not None
    assert store.add(renamed) is None and store.add(first) is None
    assert store.count() == 1 and store.query("SELECT count(*) FROM seats") == [(2,)]
    assert store.add(replace(a_record(2), server_game="t1/1/abd")) is not None  # the next game of the table
    assert store.count() == 2
    store.close()


# -- every schema version, on both engines --------------------------------------------------


def _old_database(engine: str, target, version: int) -> None:
    """A database as gamenight left it at schema ``version``, holding one game of that time
    (schema 2 on: a seat owner who hides their name; schema 3: a server game key; schema 5: a guest name)."""
    if engine == "sqlite":
        connection = sqlite3.connect(target, isolation_level=None)
        dialect = SQLITE
    else:
        import psycopg

        connection = psycopg.connect(target, autocommit=True)
        dialect = POSTGRESQL

    def run(sql: str, parameters=()) -> None:
        connection.execute(dialect.sql(sql), parameters)

    migrate(connection, dialect, 0, version)
    if version >= 1:
        run(
            "INSERT INTO games (id, digest, game, plugin_version, options, seed, game_number, started, finished,"
            " seat_count) VALUES (7, 'x', 'yatzy', '1.0', '{}', 5, 0, 1.0, 2.0, 2)"
        )
        run("INSERT INTO game_logs VALUES (7, ?)", ('[[0,"keep 11111"],[1,"keep 22222"]]',))
        run("INSERT INTO seats VALUES (7, 0, 'yatzy', 'You', NULL, 254.0, 1, 1.0, NULL, NULL)")
        run("INSERT INTO seats VALUES (7, 1, 'yatzy', 'Kei', NULL, 180.0, 2, 0.0, NULL, NULL)")
        run("INSERT INTO game_totals VALUES ('yatzy', 1, 2.0)")
        run("INSERT INTO person_totals VALUES ('yatzy', 'You', 1, 1.0, 254.0, 254.0)")
        run("INSERT INTO person_totals VALUES ('yatzy', 'Kei', 1, 0.0, 180.0, 180.0)")
    if version >= 2:
        run("INSERT INTO seat_owners VALUES (7, 1, 'k-kei')")
        run("INSERT INTO players VALUES ('k-kei', 0)")
    if version >= 3:
        run("UPDATE games SET server_game = 't9/0/5' WHERE id = 7")
    if version >= 5:
        run("INSERT INTO guest_names VALUES ('ben', 'Ben', 'g-ben-1', 'ab', '', '', 5.0)")
    if engine == "sqlite":
        run(f"PRAGMA user_version = {version}")
    elif version:
        run(f"CREATE TABLE {VERSION_TABLE} (version INTEGER NOT NULL)")
        run(f"INSERT INTO {VERSION_TABLE} VALUES ({version})")
    connection.close()


@pytest.mark.parametrize("version", range(SCHEMA_VERSION + 1))
def test_every_earlier_schema_version_opens_with_its_games(engine: str, records_target, version: int) -> None:
    _old_database(engine, records_target, version)
    store = open_records(records_target)
    assert store.version == SCHEMA_VERSION
    if version >= 1:  # the game of before is there, whole, and counts
        record = store.get(7)
        assert record is not None and record.log == ((0, "keep 11111"), (1, "keep 22222"))
        assert not record.coached  # schema 4: a game from before the coach was played without one
        assert [(seat.name, seat.score, seat.place) for seat in record.seats] == [("You", 254.0, 1), ("Kei", 180.0, 2)]
        assert store.games_played() == ["yatzy"] and store.person_totals("yatzy", "You") == (1, 1.0, 254.0, 254.0)
        hidden = "Kei" if version < 2 else None  # schema 2 on: Kei chose not to show their name
        assert store.hall_high_scores("yatzy") == [(254.0, "You", 2.0), (180.0, hidden, 2.0)]
        assert [seat.name for seat in store.hall_recent()[0].seats] == ["You", hidden]
    assert store.add(a_record()) is not None
    # schema 3's key holds on the migrated database: the same server game twice is one row
    assert store.add(replace(a_record(1), server_game="t9/0/6")) is not None
    assert store.add(replace(a_record(2), server_game="t9/0/6")) is None
    if version >= 3:
        assert store.add(replace(a_record(3), server_game="t9/0/5")) is None
    # schema 5's guest names: a name bound before is kept, and a skeleton is bound once
    assert (store.guest_find("ben") is not None) == (version >= 5)
    assert store.guest_bind(("ann", "Ann", "g-ann-1", "cd", "", "", 6.0), 10) == "bound"
    assert store.guest_bind(("ann", "ANN", "g-ann-2", "ef", "", "", 7.0), 10) == "taken"
    assert store.guest_find("ann") == ("ann", "Ann", "g-ann-1", "cd", "", "", 6.0)
    store.close()
    again = open_records(records_target)  # opening a current database changes nothing
    assert again.version == SCHEMA_VERSION and again.count() == 2 + (version >= 1)
    again.close()


def test_an_empty_file_is_schema_version_0_and_opens(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    path.write_bytes(b"")
    assert RecordsStore.open(path).version == SCHEMA_VERSION


V1_SCHEMA = """
CREATE TABLE games (id INTEGER PRIMARY KEY, digest TEXT NOT NULL UNIQUE, game TEXT NOT NULL,
    plugin_version TEXT NOT NULL, options TEXT NOT NULL, seed INTEGER NOT NULL, game_number INTEGER NOT NULL,
    started REAL NOT NULL, finished REAL NOT NULL, seat_count INTEGER NOT NULL);
CREATE TABLE game_logs (record INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE, log TEXT NOT NULL);
CREATE TABLE seats (record INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE, seat INTEGER NOT NULL,
    game TEXT NOT NULL, name TEXT NOT NULL, bot TEXT, score REAL NOT NULL, place INTEGER NOT NULL, win REAL NOT NULL,
    mu REAL, sigma REAL, PRIMARY KEY (record, seat)) WITHOUT ROWID;
CREATE TABLE ratings (game TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL, mu REAL NOT NULL,
    sigma REAL NOT NULL, games INTEGER NOT NULL, seats INTEGER NOT NULL, score_sum REAL NOT NULL,
    PRIMARY KEY (game, kind, name)) WITHOUT ROWID;
CREATE TABLE game_totals (game TEXT PRIMARY KEY, records INTEGER NOT NULL, last_finished REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE person_totals (game TEXT NOT NULL, name TEXT NOT NULL, played INTEGER NOT NULL, won REAL NOT NULL,
    best REAL NOT NULL, score_sum REAL NOT NULL, PRIMARY KEY (game, name)) WITHOUT ROWID;
CREATE TABLE versus (game TEXT NOT NULL, name TEXT NOT NULL, bot TEXT NOT NULL, games INTEGER NOT NULL,
    won REAL NOT NULL, PRIMARY KEY (game, name, bot)) WITHOUT ROWID;
INSERT INTO game_totals VALUES ('yatzy', 1, 2.0);
INSERT INTO person_totals VALUES ('yatzy', 'You', 1, 1.0, 254.0, 254.0);
INSERT INTO games VALUES (7, 'x', 'yatzy', '1.0', '{}', 5, 0, 1.0, 2.0, 1);
INSERT INTO game_logs VALUES (7, '[[0,"keep 11111"]]');
INSERT INTO seats VALUES (7, 0, 'yatzy', 'You', NULL, 254.0, 1, 1.0, NULL, NULL);
PRAGMA user_version = 1;
"""


def test_a_file_written_at_schema_1_keeps_its_games(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    connection = sqlite3.connect(path)
    connection.executescript(V1_SCHEMA)
    connection.close()
    store = RecordsStore.open(path)
    record = store.get(7)
    assert record is not None and record.seats[0].score == 254.0 and record.log == ((0, "keep 11111"),)
    assert store.games_played() == ["yatzy"] and store.person_totals("yatzy", "You") == (1, 1.0, 254.0, 254.0)
    # schema 2: who held a seat on a server, and whether they show their name; a game of before has no owner
    assert store.version == SCHEMA_VERSION >= 2
    assert store.hall_high_scores("yatzy") == [(254.0, "You", 2.0)]
    store.set_shown("k-you", False)
    assert [seat.name for seat in store.hall_recent()[0].seats] == ["You"]


@pytest.mark.parametrize(
    "content",
    [b"this is not a database at all" * 100, b"SQLite format 3\x00" + b"\xff" * 4000],
    ids=["text", "bad-header"],
)
def test_a_damaged_file_is_moved_aside_not_deleted(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "r.sqlite3"
    path.write_bytes(content)
    with pytest.raises(RecordsUnavailable, match="damaged") as raised:
        RecordsStore.open(path)
    aside = [p for p in tmp_path.iterdir() if ".broken-" in p.name]
    assert len(aside) == 1 and aside[0].read_bytes() == content
    assert str(aside[0]) in str(raised.value)
    assert not path.exists()  # nothing was written in its place: this room keeps no records


def test_a_newer_file_is_moved_aside_untouched(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE future (x)")
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    connection.commit()
    connection.close()
    content = path.read_bytes()
    with pytest.raises(RecordsUnavailable, match="newer"):
        RecordsStore.open(path)
    aside = [p for p in tmp_path.iterdir() if ".broken-" in p.name and p.name.endswith(tuple("0123456789"))]
    assert len(aside) == 1 and aside[0].read_bytes() == content
    assert not path.exists()


def test_an_earlier_aside_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    for number in range(2):
        path.write_bytes(b"garbage %d" % number * 100)
        with pytest.raises(RecordsUnavailable):
            RecordsStore.open(path)
    kept = sorted(p.read_bytes()[:9] for p in tmp_path.iterdir() if ".broken-" in p.name)
    assert kept == [b"garbage 0", b"garbage 1"]


def _write_many(path: str, writer: int, count: int) -> None:
    store = RecordsStore.open(Path(path))
    for number in range(count):
        store.add(a_record(writer * 1000 + number, winner=number % 2))
    store.close()


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    context = multiprocessing.get_context("fork")
    writers = [context.Process(target=_write_many, args=(str(path), writer, 40)) for writer in range(3)]
    for process in writers:
        process.start()
    for process in writers:
        process.join(timeout=120)
    assert [process.exitcode for process in writers] == [0, 0, 0]
    store = RecordsStore.open(path)
    assert store.count() == 120
    assert store.connection.execute("SELECT count(*) FROM seats").fetchone()[0] == 240
    games = {(kind, name): games for kind, name, _mu, _sigma, games in store.ratings("nim")}
    assert games == {("person", "You"): 120, ("bot", "random"): 120}  # no rating update lost either


def test_paging_newest_first_uses_the_indexes(records_target) -> None:
    store = open_records(records_target)
    store.add_many(
        [a_record(number, game="nim" if number % 3 else "yatzy", finished=5000.0 - number) for number in range(30)]
    )
    first = store.recent(limit=10)
    assert [r.finished for r in first] == sorted((r.finished for r in first), reverse=True)
    rest = store.recent(limit=100, before=(first[-1].finished, first[-1].id))
    assert len(first) + len(rest) == 30 and rest[0].finished < first[-1].finished
    assert all(r.game == "yatzy" for r in store.recent(game="yatzy"))
    assert [record.id for record in store.recent(limit=40)] == [record.id for record in first + rest]
    if not isinstance(records_target, Path):
        return  # PostgreSQL plans by its statistics: a table this small is read whole
    for sql in (
        "SELECT id FROM games ORDER BY finished DESC, id DESC LIMIT 50",
        "SELECT id FROM games WHERE game = 'nim' ORDER BY finished DESC, id DESC LIMIT 50",
        "SELECT s.score FROM seats AS s WHERE s.game = 'nim' AND s.bot IS NULL ORDER BY s.score DESC LIMIT 10",
    ):
        plan = " ".join(row[3] for row in store.connection.execute(f"EXPLAIN QUERY PLAN {sql}"))
        assert "USING" in plan and "TEMP B-TREE" not in plan, plan


@pytest.mark.parametrize(
    ("scores", "winners", "expected"),
    [
        ([10, 30, 20], [1], [3, 1, 2]),
        ([30, 30, 10], [0, 1], [1, 1, 3]),
        ([5, 9, 9, 1, 12], [4], [4, 2, 2, 5, 1]),
        ([50, 10, 20], [2], [2, 3, 1]),  # a winner that is not the top score (a tie-break, a match target)
    ],
)
def test_placings(scores, winners, expected) -> None:
    assert placings(scores, winners) == expected


def test_a_locked_file_is_reported_and_left_in_place(tmp_path: Path, monkeypatch) -> None:
    import gamenight.records.store as store_module

    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_S", 0.2)
    path = tmp_path / "r.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE other (x)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(RecordsUnavailable, match="cannot be used now"):
            RecordsStore.open(path)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert path.exists() and not [p for p in tmp_path.iterdir() if ".broken-" in p.name]


def test_the_running_totals_agree_with_the_games(records_target) -> None:
    import random

    rng = random.Random(5)
    store = open_records(records_target)
    for number in range(60):
        names = [("You", None), ("Kei", None), ("B1", rng.choice(["x", "y"])), ("B2", rng.choice(["x", "z"]))]
        names = names[: rng.randint(2, 4)]
        scores = [float(rng.randint(0, 5)) for _ in names]
        winners = [i for i, score in enumerate(scores) if score == max(scores)]
        places = placings(scores, winners)
        seats = tuple(
            SeatRecord(name, bot, scores[i], places[i], 1 / len(winners) if i in winners else 0.0)
            for i, (name, bot) in enumerate(names)
        )
        store.add(GameRecord(rng.choice(["a", "b"]), "1", {}, number, 0, 0.0, float(number), seats, ()))

    def sql(query: str):
        return Rows(store.query(query))

    def rounded(rows):
        return [tuple(round(value, 9) if isinstance(value, float) else value for value in row) for row in rows]

    assert (
        sql("SELECT game, records FROM game_totals ORDER BY game").fetchall()
        == sql("SELECT game, count(*) FROM games GROUP BY game ORDER BY game").fetchall()
    )
    assert rounded(sql("SELECT * FROM person_totals ORDER BY game, name").fetchall()) == rounded(
        sql(
            "SELECT game, name, count(*), sum(win), max(score), sum(score) FROM seats WHERE bot IS NULL"
            " GROUP BY game, name ORDER BY game, name"
        ).fetchall()
    )
    expected = sql(
        "SELECT p.game, p.name, b.bot, count(*), sum(p.win) FROM seats AS p"
        " JOIN (SELECT DISTINCT record, bot FROM seats WHERE bot IS NOT NULL) AS b ON b.record = p.record"
        " WHERE p.bot IS NULL GROUP BY p.game, p.name, b.bot ORDER BY p.game, p.name, b.bot"
    ).fetchall()
    assert rounded(sql("SELECT * FROM versus ORDER BY game, name, bot").fetchall()) == rounded(expected)
    means = sql(
        "SELECT game, CASE WHEN bot IS NULL THEN 'person' ELSE 'bot' END AS kind, coalesce(bot, name) AS who,"
        " avg(score), count(*) FROM seats GROUP BY game, kind, who ORDER BY game, kind, who"
    ).fetchall()
    stored = [
        (game, kind, name, mean, seats) for game in ("a", "b") for kind, name, mean, seats in store.mean_scores(game)
    ]
    assert rounded(sorted(stored)) == rounded(means)


class Rows(list):
    def fetchall(self) -> list:
        return list(self)


def test_a_damaged_file_is_moved_aside_without_hard_links_too(tmp_path: Path, monkeypatch) -> None:
    def no_links(source, target):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr("os.link", no_links)
    path = tmp_path / "r.sqlite3"
    path.write_bytes(b"junk" * 1000)
    with pytest.raises(RecordsUnavailable, match="damaged"):
        RecordsStore.open(path)
    aside = [p for p in tmp_path.iterdir() if ".broken-" in p.name]
    assert len(aside) == 1 and aside[0].read_bytes() == b"junk" * 1000 and not path.exists()


def test_a_damaged_file_that_cannot_be_moved_is_left_untouched(tmp_path: Path, monkeypatch) -> None:
    def refuse(source, target):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr("os.link", refuse)
    monkeypatch.setattr("os.rename", refuse)
    path = tmp_path / "r.sqlite3"
    path.write_bytes(b"junk" * 1000)
    with pytest.raises(RecordsUnavailable, match="left as it is"):
        RecordsStore.open(path)
    assert path.read_bytes() == b"junk" * 1000 and [p.name for p in tmp_path.iterdir()] == ["r.sqlite3"]


def test_the_hall_of_fames_best_scores_break_ties_by_time_on_the_boundary(records_target) -> None:
    """The ten best: by score, then the earlier game; ties on the tenth score are ordered exactly."""
    store = open_records(records_target)
    scores = [50.0, 40.0, 40.0, 30.0, 30.0, 30.0, 20.0, 20.0, 20.0, 20.0, 20.0, 20.0, 10.0]
    for number, score in enumerate(scores):  # later games first, so time order is not insertion order
        seats = (SeatRecord(f"P{number}", None, score, 1, 1.0), SeatRecord("Bot", "random", 0.0, 2, 0.0))
        store.add(GameRecord("yatzy", "1", {}, number, 0, 0.0, 9000.0 - number, seats, ()))
    expected = sorted(
        ((score, f"P{number}", 9000.0 - number) for number, score in enumerate(scores)), key=lambda r: (-r[0], r[2])
    )
    for limit in (1, 3, 10, 12, 20):
        assert store.hall_high_scores("yatzy", limit) == expected[:limit], limit
    assert store.hall_high_scores("yatzy", 0) == [] and store.hall_high_scores("nim", 10) == []
    store.close()


def test_every_figure_of_the_records_screen_is_the_same_on_both_engines(database: str, tmp_path: Path) -> None:
    """The same games on SQLite and on PostgreSQL give the same figures (``gamenight records``,
    the records screen), the same pages and the same arena ratings."""
    import random

    from gamenight.records.stats import game_stats

    stores = [open_records(tmp_path / "r.sqlite3"), open_records(database)]
    rng = random.Random(9)
    games = []
    for number in range(150):
        names = [("You", None), ("Kei", None), ("B1", rng.choice(["x", "y"])), ("B2", "z")][: rng.randint(2, 4)]
        scores = [float(rng.randint(0, 9)) for _ in names]
        winners = [i for i, score in enumerate(scores) if score == max(scores)]
        places = placings(scores, winners)
        seats = tuple(
            SeatRecord(name, bot, scores[i], places[i], 1 / len(winners) if i in winners else 0.0)
            for i, (name, bot) in enumerate(names)
        )
        games.append(GameRecord(rng.choice(["a", "b"]), "1", {"n": number}, number, 0, 0.0, float(number), seats, ()))
    arena = [
        [SeatRecord("x", "x", 3.0, 1, 1.0), SeatRecord("q", "q", 1.0, 2, 0.0)] for _ in range(5)
    ]  # an arena's series: rated, not listed
    for store in stores:
        store.add_many(games[:100])
        for record in games[100:]:
            store.add(record)
        store.rate_games("c", arena)

    def figures(store) -> list:
        answers: list = [store.games_played(), store.count(), [r.seed for r in store.recent(limit=200)]]
        for game in ("a", "b", "c"):
            for player in (None, "You", "Kei", "nobody"):
                answers.append(game_stats(store, game, player))
            answers += [store.people(game), store.mean_scores(game), store.ratings(game), store.high_scores(game)]
            answers += [store.person_ratings(game, "You", 20), store.person_latest(game, "You", 30, before=120)]
        return answers

    sqlite, postgres = (figures(store) for store in stores)
    assert sqlite == postgres
    assert sqlite[0] == ["b", "a", "c"] or sqlite[0] == ["a", "b", "c"]  # "c" only rated: listed last
    for store in stores:
        store.close()
