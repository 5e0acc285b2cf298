"""Exactly one server record per game the table service issued: a finish processed twice, or again
after a restore (even with a seat renamed meanwhile, so the records differ), is one row."""

from __future__ import annotations

import asyncio
import dataclasses

from gamenight.records.store import RecordsStore, record_from_match
from gamenight.tables import protocol as p
from gamenight.tables.service import TableService

from .conftest import FAST, NIM_REGISTRY, connect, play_to_the_end


async def finish_a_nim_table(service: TableService):
    ann = await connect(service, "k-ann", "Ann")
    await ann.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("bot", "first")], public=False))
    await play_to_the_end(ann)
    return ann, next(iter(service.tables.values()))


async def rows(service: TableService, expected: int = 1) -> int:
    store = RecordsStore.open(service.data_dir / "records.sqlite3")
    try:
        for _ in range(100):
            count = store.count("nim")
            if count >= expected:
                await asyncio.sleep(0.1)  # a second write, if any, lands too
                return store.count("nim")
            await asyncio.sleep(0.05)
        return store.count("nim")
    finally:
        store.close()


async def test_a_finish_processed_twice_is_recorded_once(tmp_path):
    service = TableService(NIM_REGISTRY, tmp_path / "data", bot_time_budget=0.2, seed=3, message_rate=FAST)
    await service.start()
    try:
        ann, table = await finish_a_nim_table(service)
        assert await rows(service) == 1
        table.match.seats[0] = dataclasses.replace(table.match.seats[0], name="Ann 2")  # another digest
        service._record_table(table)
        service._record_table(table)
        assert await rows(service, 2) == 1
        await ann.close()
    finally:
        await asyncio.wait_for(service.close(), 10)


async def test_a_restored_table_never_records_its_game_again(tmp_path):
    data = tmp_path / "data"
    service = TableService(NIM_REGISTRY, data, bot_time_budget=0.2, seed=3, message_rate=FAST)
    await service.start()
    ann, table = await finish_a_nim_table(service)
    assert await rows(service) == 1
    await ann.close()
    await asyncio.wait_for(service.close(), 10)

    again = TableService(NIM_REGISTRY, data, bot_time_budget=0.2, message_rate=FAST)
    await again.start()
    try:
        restored = again.tables[table.id]
        restored.match.seats[0] = dataclasses.replace(restored.match.seats[0], name="Someone else")
        again._record_table(restored)  # the finish processed again after the restore
        assert await rows(again, 2) == 1
    finally:
        await asyncio.wait_for(again.close(), 10)


def test_the_store_keeps_one_row_per_server_game(tmp_path):
    from gamenight.match import SeatConfig, play_headless

    game = NIM_REGISTRY.game("nim")
    one = play_headless(game, [SeatConfig("A", "first"), SeatConfig("B", "first")], seed=1)
    two = play_headless(game, [SeatConfig("C", "first"), SeatConfig("D", "first")], seed=2)
    store = RecordsStore.open(tmp_path / "records.sqlite3")
    first = dataclasses.replace(record_from_match(one), server_game="t1/0/ab")
    assert store.add(first) is not None
    assert store.add(dataclasses.replace(record_from_match(two), server_game="t1/0/ab")) is None
    assert store.add(dataclasses.replace(record_from_match(two), server_game="t1/1/cd")) is not None
    assert store.add(record_from_match(one)) is None  # the digest still makes identical games one
    assert store.count("nim") == 2
