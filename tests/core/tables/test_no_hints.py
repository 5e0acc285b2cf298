"""Fairness: no coach at a shared table nor in a game hosted on the server -- ``?`` says why."""

from __future__ import annotations

import asyncio
import contextlib
from types import SimpleNamespace

from gamenight.plugins import load_registry
from gamenight.tables import protocol as p
from gamenight.tables.service import TableService
from gamenight.ui.coach import Coach, CoachPanel

from tests.core.tables.conftest import FAST, connect
from tests.core.tables.test_tables_lobby import listed, open_tables, room_for, table_screen, until
from tests.core.test_coach import CoachedNimPlugin, NimAdvisor


def test_a_game_hosted_on_the_server_says_its_own_reason():
    screen = SimpleNamespace(remote=True, match=SimpleNamespace(solo=True))  # a hosted solo table's screen
    reason = Coach(screen).refusal()  # type: ignore[arg-type]
    assert reason == "No hints in a game hosted on the server: its results count for everyone."


@contextlib.asynccontextmanager
async def at_a_shared_table(tmp_path, registry, game: str):
    """Ben opens a ``game`` table for two people; Ann takes the other seat by keys in her room, and
    it is her turn (Ben plays first if the deal says so).  Yields (Ann's pilot, her table screen)."""
    service = TableService(registry, tmp_path / "data", bot_time_budget=0.2, seed=3, message_rate=FAST)
    await service.start()
    try:
        ben = await connect(service, "ben", "Ben")
        await ben.send(p.OpenTable(game, [p.SeatSpec("person"), p.SeatSpec("person")], {}, True, 0))
        await ben.wait_for(lambda c: c.snapshot)
        ann = await room_for(service, "ann", tmp_path, registry=registry)
        async with ann.run_test(size=(80, 24)) as pilot:
            await open_tables(pilot, ann)
            await until(pilot, lambda: listed(ann)[0] != "")
            await pilot.press("enter")
            await until(pilot, lambda: table_screen(ann) is not None, what="at the table")
            screen = table_screen(ann)
            await until(pilot, lambda: screen.match.to_move() >= 0, what="the deal")
            if screen.match.to_move() != screen.match.seat:  # Ben first: his move makes it Ann's turn
                snapshot = await ben.wait_for(lambda c: c.snapshot if c.snapshot.legal else None)
                await ben.send(p.Move(snapshot.legal[0], snapshot.turn))
            await until(pilot, lambda: screen.match.to_move() == screen.match.seat, what="Ann's turn")
            yield pilot, screen
        await ben.close()
    finally:
        await asyncio.wait_for(service.close(), 5)


async def test_no_hint_at_a_shared_table_even_on_the_players_own_turn(tmp_path):
    NimAdvisor.calls = 0
    registry = load_registry(extra_plugins={"nim": CoachedNimPlugin()}, entry_points=[])
    assert registry.game("nim").advisor is not None
    async with at_a_shared_table(tmp_path, registry, "nim") as (pilot, screen):
        await pilot.press("question_mark")
        await pilot.pause()
        assert "No hints at a shared table" in str(screen.query_one("#message").render())
        assert not screen.query_one(CoachPanel).display and NimAdvisor.calls == 0
        assert not hasattr(screen.match, "coached") or not screen.match.coached


async def test_mates_own_best_play_keys_are_refused_at_a_shared_table(tmp_path):
    """Mate's ``e`` (the solver's best play) and F1's "how this play ends" are the coach too."""
    async with at_a_shared_table(tmp_path, load_registry(), "mate") as (pilot, screen):
        solved = []
        screen._explain = lambda *args, **kwargs: solved.append(args)
        await pilot.press("e")
        await pilot.pause()
        assert "No hints at a shared table" in str(screen.query_one("#message").render())
        await pilot.press("f1")
        await until(pilot, lambda: screen.app.screen is not screen, what="the rules")
        assert not solved and not screen.hint
