"""A shared table as each person sees it at 80x24: the screen dimmed behind the end dialog shows
the finished game, not a stale "Waiting for …" from the last turn; a watcher's key bar offers no
move.  The whole Yatzy game's first rounds are played at the service (the rooms are sent every
move); the people play the last rounds, the ones the claim is about, by keys."""

from __future__ import annotations

import contextlib
import random

from gamenight.dialogs import ResultDialog
from gamenight.sdk import CHANCE
from gamenight.widgets.key_bar import KeyBar
from textual.widgets import OptionList, Select, Static

from tests.core.tables.conftest import REGISTRY
from tests.core.tables.test_tables_lobby import room_for, table_screen, until


async def open_shared_table(pilot, app, game: str, person: bool = True) -> None:
    """Tables, n, the game, seat 2 open for a person, Ctrl+R: the host sits and waits
    (``person`` False: the bots the setup offers in the other seats, and the game starts)."""
    await until(pilot, lambda: "t" in app.screen.active_bindings, what="the Tables key")
    await pilot.press("t")
    await until(pilot, lambda: type(app.screen).__name__ == "TablesScreen")
    await pilot.press("n")
    await until(pilot, lambda: type(app.screen).__name__ == "GamePicker")
    picker = app.screen.query_one(OptionList)
    ids = [picker.get_option_at_index(i).id for i in range(picker.option_count)]
    for _ in range(ids.index(game)):
        await pilot.press("down")
    await pilot.press("enter")
    await until(pilot, lambda: type(app.screen).__name__ == "SetupScreen")
    for _ in range(6 if person else 0):
        if app.screen.focused.id == "kind-1":
            break
        await pilot.press("tab")
    if person:
        assert app.screen.focused.id == "kind-1"
        await pilot.press("enter", "home", "enter")  # the first choice: open for a person
        await until(pilot, lambda: app.screen.query_one("#kind-1", Select).value == "human")
    await pilot.press("ctrl+r")
    await until(pilot, lambda: table_screen(app) is not None, what="the host's table")


async def play_nim_against_its_bot(pilot, app, service) -> None:
    """At a shared Nim table against the service's bot (:func:`open_shared_table` with ``person=False``):
    take one stick on each of the person's turns, by key, until the game is over and the end dialog is up."""
    table = next(iter(service.tables.values()))
    screen = table_screen(app)
    for _ in range(60):
        if table.match.over:
            break
        if app.screen is screen and screen.match.human_to_move():
            turn = app.tables.snapshot.turn
            await pilot.press("1")
            await until(pilot, lambda turn=turn: app.tables.snapshot.turn != turn, what="a move")
        await pilot.pause(0.02)
    await until(pilot, lambda: isinstance(app.screen, ResultDialog), what="the end dialog")


async def join_first_table(pilot, app) -> None:
    await until(pilot, lambda: "t" in app.screen.active_bindings, what="the Tables key")
    await pilot.press("t")
    await until(pilot, lambda: type(app.screen).__name__ == "TablesScreen")
    await until(pilot, lambda: app.screen.query_one("#tables", OptionList).get_option_at_index(0).id, what="listed")
    await pilot.press("enter")
    await until(pilot, lambda: table_screen(app) is not None, what="the guest's table")


def screen_text(app) -> str:
    """What the terminal shows: the top screen and the ones dimmed behind it."""
    return app.export_screenshot().replace("&#160;", " ")


KEYED_ROUNDS = 2
"""The last rounds the people play by keys; the service plays the ones before as their moves."""


def last_rounds_by_keys(service, table, rng: random.Random) -> None:
    """Play the table's Yatzy at the service, the people's moves random and chance drawn as the table's
    driver draws it, until each sheet has :data:`KEYED_ROUNDS` boxes open and the first seat is to roll:
    the rooms are sent every move, as when they are played by keys."""
    match = table.match
    while True:
        state = match.state
        if state.seat == 0 and state.rolls == 0 and all(sheet.count(None) <= KEYED_ROUNDS for sheet in state.sheets):
            return
        if match.to_move() == CHANCE:
            service._apply(table, match.rules.sample_chance(match.state, match._chance_rng()))
        else:
            service._apply(table, rng.choice(match.legal_actions()))


async def test_a_shared_yatzy_game_ends_without_a_stale_wait_behind_the_dialog(service, tmp_path):
    rng = random.Random(5)
    async with contextlib.AsyncExitStack() as stack:
        ann = await room_for(service, "ann", tmp_path, REGISTRY)
        ben = await room_for(service, "ben", tmp_path, REGISTRY)
        a = await stack.enter_async_context(ann.run_test(size=(80, 24)))
        b = await stack.enter_async_context(ben.run_test(size=(80, 24)))
        await open_shared_table(a, ann, "yatzy")
        await join_first_table(b, ben)
        pilots = {"ann": (a, ann), "ben": (b, ben)}
        # What each status line says as the end dialog goes up: the terminal keeps that picture
        # of the screen behind the dialog (Textual repaints no covered screen), whatever the
        # status line's timer writes afterwards.
        behind: dict[str, str] = {}
        bars: dict[str, str] = {}
        for name, (_pilot, app) in pilots.items():

            def push_screen(screen, *args, app=app, name=name, push=app.push_screen, **kwargs):
                if isinstance(screen, ResultDialog):
                    table = table_screen(app)
                    behind[name] = str(table.query_one("#thinking").render())
                    bars[name] = str(table.query_one(KeyBar).render())
                return push(screen, *args, **kwargs)

            app.push_screen = push_screen
        table = next(iter(service.tables.values()))
        await until(a, lambda: table.started and table_screen(ann) is not None, what="the game")
        last_rounds_by_keys(service, table, rng)
        # Both play the last rounds by keys: Space rolls, a box's letter scores in it, until the end.
        for _ in range(400):
            if table.match.over:
                break
            for pilot, app in pilots.values():
                screen = table_screen(app)
                if app.screen is screen and screen.match.human_to_move():
                    turn = app.tables.snapshot.turn
                    state = screen.state
                    free = [box for box, score in enumerate(state.sheets[state.seat]) if score is None]
                    if state.rolls == 0 or (state.rolls < 3 and rng.random() < 0.5):
                        await pilot.press("space")
                    else:
                        await pilot.press("abcdefghijklm"[rng.choice(free)])
                    await until(pilot, lambda app=app, turn=turn: app.tables.snapshot.turn != turn, what="a move")
                    break
            else:
                await a.pause(0.02)
        assert table.match.over
        for name, (pilot, app) in pilots.items():
            await until(pilot, lambda app=app: isinstance(app.screen, ResultDialog), what="the end dialog")
            await pilot.pause(0.3)  # a few of the status line's ticks
            shown = screen_text(app)
            assert "Game over" in shown and "Waiting for" not in shown, name
        # Ben made the last move: Ann's line said "Waiting for Ben…" until the end came.
        assert behind == {"ann": "", "ben": ""}
        # Nor does the key bar behind it offer moves of the finished game ("space Roll ... ⏎ Score").
        for bar in bars.values():
            assert "f1 Help" in bar and "Roll" not in bar and "Score" not in bar, bar


async def test_a_watchers_key_bar_offers_no_move(service, tmp_path):
    """Watching Yatzy, Ben's bar showed "space Roll  1 Hold 1-5  ⏎ Score": keys that only said
    "Wait: Ann is playing."  A watcher's bar has the room's keys alone, and a move key does nothing."""
    ann = await room_for(service, "ann", tmp_path, REGISTRY)
    ben = await room_for(service, "ben", tmp_path, REGISTRY)
    async with ann.run_test(size=(80, 24)) as a, ben.run_test(size=(80, 24)) as b:
        await open_shared_table(a, ann, "yatzy", person=False)
        await until(b, lambda: "t" in ben.screen.active_bindings, what="the Tables key")
        await b.press("t")
        await until(b, lambda: type(ben.screen).__name__ == "TablesScreen")
        await until(b, lambda: ben.screen.query_one("#tables", OptionList).get_option_at_index(0).id, what="listed")
        await b.press("w")
        await until(b, lambda: table_screen(ben) is not None and ben.screen is table_screen(ben), what="watching")
        await b.pause(0.2)
        bar = str(ben.screen.query_one(KeyBar).render())
        assert "f1 Help" in bar and "esc Leave" in bar and "^t Chat" in bar
        for move in ("Roll", "Hold", "Score"):
            assert move not in bar, bar
        # Ann's bar still has them: she plays.
        player_bar = str(table_screen(ann).query_one(KeyBar).render())
        assert "space Roll" in player_bar and "⏎ Score" in player_bar
        status = table_screen(ben).query_one("#message", Static)
        before = str(status.render())
        await b.press("space", "1", "enter")
        await b.pause(0.1)
        assert str(status.render()) == before and not status.has_class("error")


async def test_a_waiting_table_offers_no_move_until_it_starts(service, tmp_path):
    """Waiting for Ben, Ann's Yatzy said "Yatzy — Ann to move" with "space Roll" in its bar (SEVEN
    "d Draw"), keys that could not move yet.  Until the table starts: no one to move, no move key."""
    ann = await room_for(service, "ann", tmp_path, REGISTRY)
    ben = await room_for(service, "ben", tmp_path, REGISTRY)
    async with ann.run_test(size=(80, 24)) as a, ben.run_test(size=(80, 24)) as b:
        await open_shared_table(a, ann, "yatzy")
        await a.pause(0.2)
        screen = table_screen(ann)
        title = str(screen.query_one("#title-bar").render())
        bar = str(screen.query_one(KeyBar).render())
        assert "waiting for 1 more" in title and "to move" not in title, title
        assert "^b Start with bots" in bar and "Roll" not in bar and "Score" not in bar, bar
        await join_first_table(b, ben)
        await until(a, lambda: "space Roll" in str(screen.query_one(KeyBar).render()), what="the move keys")
        assert "Ann to move" in str(screen.query_one("#title-bar").render())
        assert "Start with bots" not in str(screen.query_one(KeyBar).render())
