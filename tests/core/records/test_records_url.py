"""``serve-ssh --records-url``: the table service's records in PostgreSQL, and a database that is away.

Without the option nothing changes (``DATA_DIR/records.sqlite3``, psycopg never imported:
``tests/test_headless_imports.py``).  At start an unusable database is one line and exit
status 2; while the server runs, a finished game waits in ``DATA_DIR/records-spool`` until the
database answers again.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from gamenight.records.backends import open_records
from gamenight.records.postgres import PostgresRecordsStore
from gamenight.records.store import SCHEMA_VERSION
from gamenight.ssh.settings import parser, settings_from_args
from gamenight.tables.service import TableService

from tests.core.records.test_postgres import answering
from tests.core.tables.conftest import FAST, REGISTRY, connect
from tests.core.tables.test_server_records import play_solo


def serve_ssh(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "gamenight",
            "serve-ssh",
            "--guest",
            "--port",
            "0",
            "--data-dir",
            str(tmp_path / "d"),
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_the_option_reaches_the_settings(tmp_path: Path) -> None:
    options = parser()
    url = "postgresql://gamenight@db.example:5432/records"
    assert settings_from_args(options, options.parse_args(["--guest", "--records-url", url])).records_url == url
    assert settings_from_args(options, options.parse_args(["--guest"])).records_url is None


def test_an_unreachable_database_at_start_is_one_line_and_exit_status_2(tmp_path: Path) -> None:
    url = f"postgresql://gamenight:s3cret@/records?host={tmp_path}&port=1"  # no server listens there
    result = serve_ssh(tmp_path, "--records-url", url)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr and "s3cret" not in result.stderr
    assert lines[0].startswith("gamenight serve-ssh: The records database at postgresql://gamenight@/records")
    assert not (tmp_path / "d").exists()  # it stopped before it made anything


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--records-url", "mysql://x@y/z"], "must be a postgresql:// URL"),
        (["--records-url", "postgresql://x@y/z", "--tables", "off"], "needs --tables on"),
    ],
)
def test_a_records_url_that_cannot_work_is_a_usage_error(tmp_path: Path, args: list[str], said: str) -> None:
    result = serve_ssh(tmp_path, *args)
    assert result.returncode == 2 and said in result.stderr and "Traceback" not in result.stderr


async def test_the_table_service_records_in_the_database(database: str, tmp_path: Path) -> None:
    service = TableService(
        REGISTRY, tmp_path / "data", bot_time_budget=0.2, seed=7, message_rate=FAST, records_url=database
    )
    await service.start()
    try:
        assert isinstance(service.records, PostgresRecordsStore)
        ann = await connect(service, "k-ann", "ann")
        await play_solo(ann)
        store = open_records(database)
        for _ in range(200):
            if store.count("yatzy"):
                break
            await asyncio.sleep(0.05)
        (record,) = store.recent("yatzy")
        assert record.seats[0].name == "ann"
        assert store.query("SELECT identity FROM seat_owners") == [("k-ann",)]
        assert store.query("SELECT count(*) FROM games WHERE server_game IS NOT NULL") == [(1,)]
        assert not (tmp_path / "data" / "records.sqlite3").exists()  # the file is not used
        store.close()
    finally:
        await asyncio.wait_for(service.close(), 15)


async def test_a_game_finished_while_the_database_is_away_waits_in_the_data_dir(
    postgres, database: str, tmp_path: Path, monkeypatch
) -> None:
    import gamenight.records.postgres as postgres_module

    monkeypatch.setattr(postgres_module, "POOL_TIMEOUT_S", 1.0)
    monkeypatch.setattr(postgres_module, "RETRY_S", 0.0)  # no retry thread: the test says when
    service = TableService(
        REGISTRY, tmp_path / "data", bot_time_budget=0.2, seed=7, message_rate=FAST, records_url=database
    )
    await service.start()
    spool = tmp_path / "data" / "records-spool"
    try:
        postgres.block(database)
        try:
            ann = await connect(service, "k-ann", "ann")
            await play_solo(ann)
            for _ in range(200):
                if any(spool.glob("*.json")):
                    break
                await asyncio.sleep(0.05)
            assert len(list(spool.glob("*.json"))) == 1
        finally:
            postgres.unblock(database)
        await service._in_db(answering, service.records)
        assert await service._in_db(service.records.drain) == 1
        store = open_records(database)
        assert store.count("yatzy") == 1 and store.query("SELECT identity FROM seat_owners") == [("k-ann",)]
        store.close()
        assert not list(spool.glob("*.json"))
    finally:
        await asyncio.wait_for(service.close(), 15)


def test_serve_ssh_starts_on_the_database_and_says_so_without_the_password(postgres, database: str, tmp_path) -> None:
    from tests.core.ssh.conftest import Server

    postgres.admin("ALTER USER gamenight PASSWORD 'pw'")  # trust auth: any password is taken, never shown
    url = database.replace("gamenight@", "gamenight:pw@")
    server = Server(tmp_path / "data", ["--guest", "--template", "off", "--records-url", url])
    try:
        listening = server.of_kind("listening")[0]
        assert listening["records"] == database.split("?")[0]  # no password, no parameters
        assert "pw@" not in "".join(server.raw)
        assert open_records(database).version == SCHEMA_VERSION  # migrated at start
    finally:
        assert server.stop() == 0
