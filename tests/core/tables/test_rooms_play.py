"""Rooms at a shared table: two GameNightApps (Pilot, 80x24) play a Mille hand, a third watches.

One TableService runs in-process; each room reaches it over a real socketpair
(as serve-ssh gives each session), the service told the identity.  Each room
only ever holds -- and draws -- its own seat's view; the watcher sees no hand;
Ben's room goes away mid-hand and a new room of his lands back at his seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import random

from gamenight.app import GameNightApp
from gamenight.dialogs import ResultDialog, YesNoDialog
from gamenight.sdk import OBSERVER
from gamenight.tables.client import RemoteTable
from textual.widgets import OptionList

from tests.core.tables.conftest import REGISTRY
from tests.core.tables.test_shared_end import open_shared_table
from tests.core.tables.test_tables_lobby import room_for, table_screen, until

MILLE_EMPTY = -1


def check_views(service, apps: dict[str, GameNightApp]) -> None:
    """Every room's snapshot and screen hold exactly its own seat's view: no other hand."""
    table = next(iter(service.tables.values()))
    state = table.match.state
    for name, app in apps.items():
        screen = table_screen(app)
        snap = app.tables.snapshot
        if screen is None or snap is None or snap.turn != len(table.match.log):
            continue  # this room has not heard of the latest move yet
        view = screen.match.view(screen.view_seat)  # what the screen draws from
        assert tuple(view.opponent.hand) == (MILLE_EMPTY,) * 7, name
        if snap.seat == OBSERVER:
            assert tuple(view.me.hand) == (MILLE_EMPTY,) * 7, name  # a watcher sees no hand at all
            assert view == table.match.rules.view(state, OBSERVER), name
        else:
            assert tuple(view.me.hand) == tuple(state.seats[snap.seat].hand), name
            assert screen.view == table.match.rules.view(state, snap.seat), name


def choose(legal: list[str], rng) -> str:
    """A random card to play (``use:``) when there is one, else any legal move (a draw, a discard).

    Uniformly random moves took about 185 moves to end a hand (median of 30 seeded hands), mostly
    discards; playing a card when one can ends it in about 97, so the three rooms draw half as many
    moves.  Every move is still checked in every room (:func:`check_views`); draws, plays, discards
    and the declined "Extension?" all still come up (this seed: 51, 34, 17 and 1)."""
    uses = [action for action in legal if action.startswith("use:")]
    return rng.choice(uses or legal)


async def play(service, pilots: dict[str, object], apps: dict[str, GameNightApp], rng, moves: int) -> str:
    """Play legal moves (:func:`choose`) by the seated rooms; stop after ``moves`` or at the end of the hand."""
    table = next(iter(service.tables.values()))
    for _ in range(moves):
        check_views(service, apps)
        if table.match.pending_interlude() is not None:
            return "interlude"
        for name, app in apps.items():
            screen = table_screen(app)
            if isinstance(app.screen, YesNoDialog):  # Mille's "Extension?": stop at 700
                await pilots[name].press("n")
            elif screen is not None and app.screen is screen and screen.match.human_to_move():
                turn = app.tables.snapshot.turn
                assert screen.submit(choose(list(screen.match.legal_actions()), rng))
                await until(pilots[name], lambda app=app, turn=turn: app.tables.snapshot.turn != turn, what="move")
                break
        else:
            await asyncio.sleep(0.02)
    return "moves"


async def test_two_rooms_play_a_mille_hand_a_third_watches_one_reconnects(service, tmp_path):
    rng = random.Random(16)
    async with contextlib.AsyncExitStack() as stack:
        ann = await room_for(service, "ann", tmp_path, REGISTRY)
        ben = await room_for(service, "ben", tmp_path, REGISTRY)
        cat = await room_for(service, "cat", tmp_path, REGISTRY)
        a = await stack.enter_async_context(ann.run_test(size=(80, 24)))
        b_stack = contextlib.AsyncExitStack()
        b = await b_stack.enter_async_context(ben.run_test(size=(80, 24)))
        c = await stack.enter_async_context(cat.run_test(size=(80, 24)))
        for pilot, app in ((a, ann), (b, ben), (c, cat)):
            await until(pilot, lambda app=app: "t" in app.screen.active_bindings, what="the Tables key")

        # Ann opens a Mille table: Tables, n, the game, seat 2 open for a person, Ctrl+R.
        await open_shared_table(a, ann, "mille")
        assert "waiting for 1 more" in str(ann.screen.query_one("#title-bar").render())

        # Ben sees it live in his Tables list and joins with Return; the game starts.
        await b.press("t")
        await until(b, lambda: type(ben.screen).__name__ == "TablesScreen")
        await until(b, lambda: ben.screen.query_one("#tables", OptionList).get_option_at_index(0).id, what="listed")
        listed = str(ben.screen.query_one("#tables", OptionList).get_option_at_index(0).prompt)
        assert "free" in listed and "Ann" in listed
        await b.press("enter")
        await until(b, lambda: table_screen(ben) is not None, what="Ben's table")

        # Cat watches.
        await c.press("t")
        await until(c, lambda: type(cat.screen).__name__ == "TablesScreen")
        await until(c, lambda: cat.screen.query_one("#tables", OptionList).get_option_at_index(0).id, what="listed")
        await c.press("w")
        await until(c, lambda: table_screen(cat) is not None, what="Cat's view")
        assert isinstance(table_screen(cat).match, RemoteTable) and table_screen(cat).match.watching

        apps = {"ann": ann, "ben": ben, "cat": cat}
        pilots = {"ann": a, "ben": b, "cat": c}
        await play(service, pilots, apps, rng, 30)

        # Ben's room goes away: his seat waits, marked away on Ann's title bar.
        await b_stack.aclose()
        table = next(iter(service.tables.values()))
        await until(a, lambda: 1 in table.away, what="Ben away")
        await until(a, lambda: "away: Ben" in str(ann.screen.query_one("#title-bar").render()), what="away shown")
        # He connects again: his room lands back at his seat with the full current view.
        ben = await room_for(service, "ben", tmp_path, REGISTRY)
        b = await stack.enter_async_context(ben.run_test(size=(80, 24)))
        await until(b, lambda: table_screen(ben) is not None, what="Ben back at his seat")
        assert table_screen(ben).match.seat == 1 and not table.away
        apps["ben"], pilots["ben"] = ben, b

        assert await play(service, pilots, apps, rng, 2000) == "interlude"
        # End of the hand: each person answers "Another hand?"; the watcher is not asked.
        for pilot, app in ((a, ann), (b, ben)):
            await until(pilot, lambda app=app: isinstance(app.screen, ResultDialog), what="the hand's result")
        assert not isinstance(cat.screen, ResultDialog)
        await a.press("y")
        await until(a, lambda: "Waiting for others" in str(table_screen(ann).query_one("#message").render()))
        await b.press("y")
        await until(a, lambda: table.match.pending_interlude() is None, what="the next hand")
        check_views(service, apps)
        await stack.aclose()
