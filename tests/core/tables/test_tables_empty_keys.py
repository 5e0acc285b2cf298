"""The Tables list with no table: its Join and Watch keys are dimmed, then lit when a table opens."""

from __future__ import annotations

from gamenight.tables import protocol as p

from tests.core.tables.conftest import connect
from tests.core.tables.test_tables_lobby import listed, open_tables, room_for, until


async def test_join_and_watch_are_dimmed_until_there_is_a_table(service, tmp_path):
    """Walking a new server, the empty list's bar offered "⏎ Join  w Watch", which did nothing."""
    ann = await room_for(service, "ann", tmp_path)
    async with ann.run_test(size=(80, 24)) as pilot:
        await open_tables(pilot, ann)
        await until(pilot, lambda: listed(ann) == [""], what="the empty list")
        keys = ann.screen.active_bindings
        assert not keys["enter"].enabled and not keys["w"].enabled
        assert keys["n"].enabled and keys["c"].enabled
        ben = await connect(service, "ben", "Ben")
        game = next(iter(service.registry.games))
        await ben.send(p.OpenTable(game, [p.SeatSpec("person"), p.SeatSpec("person")], {}, True, 0))
        await until(pilot, lambda: listed(ann) != [""], what="Ben's table listed")
        await until(pilot, lambda: ann.screen.active_bindings["w"].enabled, what="Watch lit")
        assert ann.screen.active_bindings["enter"].enabled
        await ben.close()
