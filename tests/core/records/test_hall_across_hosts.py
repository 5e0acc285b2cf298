"""Several hosts, one hall of fame: a game recorded on one host drops every host's cached hall.

Each write that changes the hall (a game recorded, a name hidden or shown) sends a PostgreSQL
``NOTIFY`` in its own transaction (delivered on commit only); each host listens on a connection of
its own.  Two stores (two hosts) on one database, then two table services.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path

from gamenight.records.postgres import PostgresRecordsStore
from gamenight.tables import protocol as p
from gamenight.tables.service import TableService

from tests.core.records.test_store import a_record
from tests.core.tables.conftest import FAST, REGISTRY, connect
from tests.core.tables.test_server_records import play_solo


def wait_until(check, what: str, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, what
        time.sleep(0.02)
    return found


def test_a_host_hears_what_another_host_records_once_it_is_committed(postgres, database: str) -> None:
    one, two = PostgresRecordsStore.open(database), PostgresRecordsStore.open(database)
    heard: list[str | None] = []
    one.listen(heard.append)
    try:
        wait_until(lambda: _listening(postgres), "one listens")
        assert two.add(a_record(1)) is not None
        wait_until(lambda: heard == ["nim"], f"the record heard: {heard}")
        assert two.add(a_record(1)) is None  # the same game again: nothing written, nothing said
        assert two.add(replace(a_record(2), game="yatzy")) is not None
        two.set_shown("k-ann", False)  # a name hidden changes every game's hall
        wait_until(lambda: heard == ["nim", "yatzy", ""], f"in commit order: {heard}")
    finally:
        one.close()
        two.close()


def _listening(postgres) -> bool:
    rows = postgres.admin("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN gamenight_records%'")
    return bool(rows and rows[0][0])


def test_a_lost_listening_connection_says_changes_may_have_been_missed(postgres, database: str, monkeypatch) -> None:
    import gamenight.records.postgres as module

    monkeypatch.setattr(module, "LISTEN_RETRY_S", 0.05)
    one = PostgresRecordsStore.open(database)
    heard: list[str | None] = []
    one.listen(heard.append)
    try:
        wait_until(lambda: _listening(postgres), "one listens")
        postgres.admin(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN gamenight_records%'"
        )
        wait_until(lambda: None in heard, f"told it may have missed a change: {heard}")
    finally:
        one.close()


async def test_a_game_recorded_on_one_host_shows_in_the_other_hosts_hall(database: str, tmp_path: Path) -> None:
    hosts = [
        TableService(REGISTRY, tmp_path / name, bot_time_budget=0.2, seed=7, message_rate=FAST, records_url=database)
        for name in ("one", "two")
    ]
    for service in hosts:
        await service.start()
    try:
        cat = await connect(hosts[0], "k-cat", "cat")

        async def hall_of_host_one() -> p.HallOfFame:
            cat.received.clear()
            await cat.send(p.HallQuery("yatzy"))
            return await cat.wait_for(lambda c: next((m for m in c.received if isinstance(m, p.HallOfFame)), None))

        empty = await hall_of_host_one()
        assert empty.available and empty.recent == [] and "yatzy" in hosts[0]._halls  # cached on host one
        ann = await connect(hosts[1], "k-ann", "ann")
        scores = await play_solo(ann)  # recorded by host two
        for _ in range(600):
            if "yatzy" not in hosts[0]._halls:  # host one heard it and dropped its cached answer
                break
            await asyncio.sleep(0.05)
        hall = await hall_of_host_one()
        assert [(entry.name, entry.score) for entry in hall.top] == [("ann", scores[0])]
        assert [seat.name for seat in hall.recent[0].seats] == ["ann"]
    finally:
        for service in hosts:
            await asyncio.wait_for(service.close(), 15)
