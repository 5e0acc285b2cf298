"""Review from a shared table's end dialog: the game is over, so each player may review it -- their
own decisions only, from the game's save the service sends its players.

What a player may see: the coach's advice for a decision rests on the deciding seat's view (its
hand), so another seat's decisions are not reviewed at all ("best was 5♥" would show their hand);
a player's own decisions are, each from their own view at that moment, as the live coach would
have shown them (which a shared table never does while the game is on).
"""

from __future__ import annotations

import contextlib
import dataclasses

from gamenight.dialogs import ResultDialog
from gamenight.plugins import load_registry
from gamenight.sdk import Advice, AdviceUnit, AdvisorSpec, hookimpl
from gamenight.tables.service import TableService
from gamenight.ui.review_screen import ReviewScreen

from tests.core.nim import NIM
from tests.core.tables.conftest import FAST
from tests.core.tables.test_shared_end import join_first_table, open_shared_table
from tests.core.tables.test_tables_lobby import room_for, table_screen, until


class LeaveFours:
    """Nim's exact coach: leaving a multiple of four sticks wins."""

    def advise(self, view, legal, ctx):
        won = [(view["sticks"] - int(action)) % 4 == 0 for action in legal]
        advice = [Advice(a, 1.0 if w else 0.0, label="win" if w else "loss") for a, w in zip(legal, won, strict=True)]
        return sorted(advice, key=lambda entry: -entry.value)


class CoachedNim:
    @hookimpl
    def register_games(self, register):
        spec = AdvisorSpec(lambda rules, seat, options: LeaveFours(), AdviceUnit("outcome", "outcome"), exact=True)
        register(dataclasses.replace(NIM, advisor=spec))


REGISTRY = load_registry(extra_plugins={"nim": CoachedNim()}, entry_points=[])


async def test_each_player_reviews_their_own_decisions_from_the_shared_end_dialog(tmp_path):
    service = TableService(REGISTRY, tmp_path / "data", bot_time_budget=0.2, seed=3, message_rate=FAST)
    await service.start()
    try:
        async with contextlib.AsyncExitStack() as stack:
            ann = await room_for(service, "ann", tmp_path, REGISTRY)
            ben = await room_for(service, "ben", tmp_path, REGISTRY)
            a = await stack.enter_async_context(ann.run_test(size=(80, 24)))
            b = await stack.enter_async_context(ben.run_test(size=(80, 24)))
            await open_shared_table(a, ann, "nim")
            await join_first_table(b, ben)
            table = next(iter(service.tables.values()))
            pilots = [(a, ann), (b, ben)]
            for _ in range(100):  # each takes one stick on their turn, by key, to the end
                if table.match.over:
                    break
                for pilot, app in pilots:
                    screen = table_screen(app)
                    if app.screen is screen and screen.match.human_to_move():
                        turn = app.tables.snapshot.turn
                        await pilot.press("1")
                        await until(pilot, lambda app=app, turn=turn: app.tables.snapshot.turn != turn, what="a move")
                await a.pause(0.02)
            assert table.match.over
            moves = {seat: sum(entry.seat == seat for entry in table.match.log) for seat in (0, 1)}
            for (pilot, app), seat in zip(pilots, (0, 1), strict=True):
                await until(pilot, lambda app=app: isinstance(app.screen, ResultDialog), what="the end dialog")
                assert "Review" in str(app.screen.query_one("KeyBar").render())
                await until(pilot, lambda app=app: app.shared_saves, what="the game's save")
                if seat == 0:  # before the save has come: said, and the dialog is back
                    kept, app.shared_saves = app.shared_saves, {}
                    await pilot.press("e")
                    await until(pilot, lambda app=app: isinstance(app.screen, ResultDialog), what="the dialog")
                    said = [notice.message for notice in app._notifications]
                    assert any("has not come from the server yet" in message for message in said), said
                    app.shared_saves = kept
                await pilot.press("e")
                await until(pilot, lambda app=app: isinstance(app.screen, ReviewScreen), what="the review")
                review = app.screen
                await until(pilot, lambda review=review: review.result is not None, what="the review's result")
                decisions = review.result.decisions
                assert len(decisions) == moves[seat] > 0  # every one of their own decisions...
                assert {decision.seat for decision in decisions} == {seat}  # ...and no one else's
                assert [total.seat for total in review.result.seats] == [seat]
                await pilot.press("escape")  # back to the end dialog
                await until(pilot, lambda app=app: isinstance(app.screen, ResultDialog), what="the dialog again")
    finally:
        await service.close()


async def test_a_hosted_solo_games_end_dialog_reviews_the_players_decisions(tmp_path):
    """A hosted room's game against a bot runs at the service as a solo table: over, it is reviewed
    as a shared one (the bot's moves are not decisions of a person: nothing of it is reviewed)."""
    from gamenight.ui.game_screen import GameScreen

    service = TableService(REGISTRY, tmp_path / "data", bot_time_budget=0.2, seed=3, message_rate=FAST)
    await service.start()
    try:
        room = await room_for(service, "ann", tmp_path, REGISTRY)

        def at_table() -> bool:
            return isinstance(room.screen, GameScreen) and room.screen.remote

        async with room.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: room.tables is not None and room.tables.name and room.registry_loaded)
            await until(pilot, lambda: type(room.screen).__name__ == "LobbyScreen")
            await pilot.press("enter")  # Nim's setup (the only game): me, then a bot
            await until(pilot, lambda: type(room.screen).__name__ == "SetupScreen")
            await pilot.press("ctrl+r")
            await until(pilot, at_table, what="the solo table")
            (table,) = service.tables.values()
            assert table.solo
            for _ in range(100):
                if table.match.over:
                    break
                screen = table_screen(room)
                if room.screen is screen and screen.match.human_to_move():
                    turn = room.tables.snapshot.turn
                    await pilot.press("1")
                    await until(pilot, lambda turn=turn: room.tables.snapshot.turn != turn, what="a move")
                await pilot.pause(0.02)
            assert table.match.over
            mine = sum(entry.seat == 0 for entry in table.match.log)
            await until(pilot, lambda: isinstance(room.screen, ResultDialog), what="the end dialog")
            await until(pilot, lambda: room.shared_saves, what="the game's save")
            await pilot.press("e")
            await until(pilot, lambda: isinstance(room.screen, ReviewScreen), what="the review")
            review = room.screen
            await until(pilot, lambda: review.result is not None, what="the review's result")
            assert len(review.result.decisions) == mine > 0
            assert {decision.seat for decision in review.result.decisions} == {0}
    finally:
        await service.close()
