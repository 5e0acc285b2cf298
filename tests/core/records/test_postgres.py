"""The records on PostgreSQL: writers on several hosts, a database that is away, the spool.

The queries themselves run on both engines in ``test_store.py``; these are what only a server
database meets.  Every test has a database of its own in the session's throwaway cluster.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import pytest
from gamenight.records.backends import open_records
from gamenight.records.postgres import PostgresRecordsStore, record_from_spool, shown_url, spool_bytes
from gamenight.records.store import SCHEMA_VERSION, RecordsUnavailable

from tests.core.records.test_store import a_record


def answering(store: PostgresRecordsStore) -> None:
    """Wait until the store's pool has connected again (it retries with a growing delay: 1, 2, 4 s...)."""
    import psycopg

    for _ in range(120):
        try:
            store.query("SELECT 1")
            return
        except psycopg.OperationalError:
            continue  # each try waits up to the pool's timeout
    raise AssertionError("the database never answered again")


def test_two_hosts_writing_at_once_never_double_a_game_nor_lose_a_rating(database: str) -> None:
    """Two stores (two pools, as two serve-ssh hosts) write the same server games and their own."""
    stores = [open_records(database), open_records(database)]
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def write(host: int) -> None:
        try:
            start.wait()
            for number in range(25):
                shared = replace(a_record(number), server_game=f"t1/{number}/ff")
                if host:  # the other host's copy of the game: another digest, the same server game
                    shared = replace(shared, seats=(replace(shared.seats[0], name="Ann"), shared.seats[1]))
                stores[host].add(shared)
                stores[host].add(replace(a_record(1000 * (host + 1) + number), server_game=f"h{host}/{number}/1"))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=write, args=(host,)) for host in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors
    store = stores[0]
    assert store.count() == 25 + 2 * 25
    assert store.query("SELECT count(*), count(DISTINCT server_game) FROM games") == [(75, 75)]
    assert store.query("SELECT count(*) FROM seats") == [(150,)]
    games = {(kind, name): games for kind, name, _mu, _sigma, games in store.ratings("nim")}
    assert games[("bot", "random")] == 75  # every game rated once: no update lost between the hosts
    assert sum(games[key] for key in games if key[0] == "person") == 75
    for each in stores:
        each.close()


def test_two_hosts_starting_at_once_migrate_once(database: str) -> None:
    opened: list = []
    threads = [threading.Thread(target=lambda: opened.append(open_records(database))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(opened) == 3 and all(store.version == SCHEMA_VERSION for store in opened)
    assert opened[0].query("SELECT count(*) FROM gamenight_schema") == [(1,)]
    for store in opened:
        store.close()


def test_a_database_of_a_newer_gamenight_is_refused_untouched(database: str) -> None:
    open_records(database).close()
    store = open_records(database)
    store.query("UPDATE gamenight_schema SET version = version + 1 RETURNING version")
    store.close()
    with pytest.raises(RecordsUnavailable, match="newer gamenight"):
        open_records(database)
    import psycopg

    with psycopg.connect(database) as connection:  # left as it was
        assert connection.execute("SELECT version FROM gamenight_schema").fetchall() == [(SCHEMA_VERSION + 1,)]


def test_an_unreachable_database_at_start_is_one_line_without_its_password(tmp_path: Path) -> None:
    url = f"postgresql://gamenight:s3cret@/records?host={tmp_path}&port=1"  # no server on that socket
    with pytest.raises(RecordsUnavailable) as raised:
        open_records(url)
    text = str(raised.value)
    assert "\n" not in text and "s3cret" not in text
    assert text.startswith("The records database at postgresql://gamenight@/records cannot be reached:")


def test_a_shown_url_has_no_password_nor_parameters() -> None:
    assert shown_url("postgresql://ann:pw@db.example:5433/gn?sslmode=require&password=x") == (
        "postgresql://ann@db.example:5433/gn"
    )


def test_a_spooled_game_round_trips() -> None:
    record = replace(a_record(3), seed=2**127 + 1, server_game="t2/0/9")
    record = replace(record, seats=(replace(record.seats[0], identity="k-ann"), record.seats[1]))
    back = record_from_spool(spool_bytes(record))
    assert back == record and back.server_game == "t2/0/9" and back.seats[0].identity == "k-ann"
    for bad in (b"", b"{}", b"[1]", spool_bytes(record).replace(b'"format":1', b'"format":9'), b"\xff" * 10):
        with pytest.raises(ValueError):
            record_from_spool(bad)


def test_a_game_finished_while_the_database_is_away_is_kept_and_recorded_once_it_is_back(
    postgres, database: str, tmp_path: Path
) -> None:
    spool = tmp_path / "spool"
    store = PostgresRecordsStore.open(database, spool, pool_timeout=1, retry_interval=0)  # no retry thread
    assert store.add(replace(a_record(0), server_game="t1/0/1")) is not None
    postgres.block(database)
    try:
        first = replace(a_record(1), server_game="t1/1/1")
        second = replace(a_record(2), server_game="t1/2/1")
        assert store.add(first) is None and store.add(second) is None  # kept, not lost
        assert store.waiting() == 2
        assert sorted(p.suffix for p in spool.iterdir()) == [".json", ".json"]  # whole files only
        with pytest.raises(Exception):  # noqa: B017 - what psycopg raises for a database that is away
            store.drain()
        assert store.waiting() == 2
    finally:
        postgres.unblock(database)
    answering(store)
    third = replace(a_record(3), server_game="t1/3/1")
    assert store.add(third) is not None  # the waiting games go first, then this one
    assert store.waiting() == 0
    in_order = [row[0] for row in store.query("SELECT server_game FROM games ORDER BY id")]
    assert in_order == ["t1/0/1", "t1/1/1", "t1/2/1", "t1/3/1"]
    assert store.add(first) is None and store.count() == 4  # and a game sent again is still one row
    store.close()


def test_the_spool_is_retried_in_the_background_and_at_the_next_start(postgres, database: str, tmp_path: Path) -> None:
    spool = tmp_path / "spool"
    store = PostgresRecordsStore.open(database, spool, pool_timeout=1, retry_interval=0.05)
    postgres.block(database)
    try:
        assert store.add(replace(a_record(1), server_game="t1/1/1")) is None
        assert store.waiting() == 1
    finally:
        postgres.unblock(database)
    for _ in range(400):  # the retry thread records it with no other write to carry it
        if store.waiting() == 0:
            break
        threading.Event().wait(0.05)
    assert store.waiting() == 0 and store.count() == 1
    # the server stops while a game waits: the next start records it
    postgres.block(database)
    try:
        assert store.add(replace(a_record(2), server_game="t1/2/1")) is None
        store.close()
    finally:
        postgres.unblock(database)
    (spool / "0-junk.json").write_bytes(b"not a game")  # set aside, never a reason to stop
    again = PostgresRecordsStore.open(database, spool, retry_interval=0)
    assert again.count() == 2 and again.waiting() == 0
    assert [p.name for p in spool.iterdir()] == ["0-junk.json.bad"]
    again.close()


def test_a_spooled_game_the_database_refuses_is_set_aside_and_the_rest_recorded(database: str, tmp_path: Path) -> None:
    spool = tmp_path / "spool"
    spool.mkdir()
    refused = replace(a_record(1), seats=(replace(a_record(1).seats[0], name="A\x00n"), a_record(1).seats[1]))
    (spool / "1-refused.json").write_bytes(spool_bytes(refused))  # PostgreSQL's text holds no NUL
    (spool / "2-fine.json").write_bytes(spool_bytes(a_record(2)))
    store = PostgresRecordsStore.open(database, spool, retry_interval=0)  # a start drains the spool
    assert store.count() == 1 and store.recent()[0].seed == a_record(2).seed
    assert sorted(p.name for p in spool.iterdir()) == ["1-refused.json.bad"]
    store.close()


def test_a_cluster_left_by_a_killed_test_process_is_stopped_and_deleted_by_the_next(postgres) -> None:
    import signal
    import subprocess
    import sys

    from tests.core.records import pg_cluster

    script = (
        "import sys, time\n"
        "from tests.core.records.pg_cluster import running_cluster\n"
        "with running_cluster() as cluster:\n"
        "    print(cluster.folder, flush=True)\n"
        "    time.sleep(300)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], cwd=Path(__file__).resolve().parents[3], stdout=subprocess.PIPE, text=True
    )
    try:
        folder = Path(child.stdout.readline().strip())
        postmaster = int((folder / "data" / "postmaster.pid").read_text().split()[0])
    finally:
        child.send_signal(signal.SIGKILL)  # as a worker ended by a timeout: no teardown
        child.wait()
    assert folder.is_dir() and running(postmaster)  # its server runs on, its owner gone
    assert folder in pg_cluster.sweep_orphans()
    assert not folder.exists() and postgres.folder.is_dir()  # a live owner's cluster is left alone
    assert not running(postmaster)


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie no one reaped is not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False
