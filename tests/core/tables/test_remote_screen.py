"""A game screen at a shared table: chat, the move timer, a lost connection, a screen that
cannot draw remotely, and a returning player whose room is still looking for its games."""

from __future__ import annotations

import asyncio
import threading
import time

import gamenight.plugins
import gamenight.ui.shared_table
from gamenight.app import GameNightApp
from gamenight.tables import protocol as p
from gamenight.tables.client import TableClient

from tests.core.nim import NimScreen
from tests.core.tables.conftest import connect
from tests.core.tables.test_tables_lobby import (
    listed,
    notices,
    open_tables,
    room_for,
    table_screen,
    until,
)


def status(app) -> str:
    screen = table_screen(app)
    return f"{screen.query_one('#message').render()} {screen.query_one('#thinking').render()}"


async def join_bens_table(service, tmp_path, timer: int = 0) -> tuple[GameNightApp, TableClient]:
    ben = await connect(service, "ben", "Ben")
    await ben.send(p.OpenTable("nim", [p.SeatSpec("person"), p.SeatSpec("person")], {}, True, timer))
    await ben.wait_for(lambda c: c.snapshot)
    return await room_for(service, "ann", tmp_path), ben


class FrozenClock:
    """The table screen's ``time`` module with a clock that moves only when the test moves it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def __getattr__(self, name: str):
        return getattr(time, name)


def seconds_left(text: str) -> int:
    return int(text.split("s left")[0].split()[-1])


async def test_chat_is_one_clean_line_both_ways_and_the_timer_counts_down(nim_service, tmp_path, monkeypatch):
    clock = FrozenClock()
    monkeypatch.setattr(gamenight.ui.shared_table, "time", clock)  # the move timer's clock
    ann, ben = await join_bens_table(nim_service, tmp_path, timer=30)
    async with ann.run_test(size=(80, 24)) as a:
        await open_tables(a, ann)
        await until(a, lambda: listed(ann)[0] != "", what="Ben's table listed")
        assert "30 s a move" in str(ann.screen.query_one("#table-about").render())
        await a.press("enter")
        await until(a, lambda: table_screen(ann) is not None, what="Ann seated")
        # Ben (seat 1) is to move: Ann sees whom the table waits for and the timer running down.
        await until(a, lambda: "Waiting for Ben" in status(ann) and "s left" in status(ann), what="the timer")
        seconds = seconds_left(status(ann))
        assert 0 < seconds <= 30
        clock.now += 7  # seven seconds later, by the screen's clock: the next tick says so
        await until(a, lambda: seconds_left(status(ann)) == seconds - 7, what="the timer counting down")
        # Ben's room is hostile: escape sequences and a bidi override never reach Ann's terminal.
        await ben.send(p.Chat("\x1b]0;owned\x07hi \x1b[31mthere\u202e!"))
        await until(a, lambda: "Ben: " in status(ann), what="the chat line")
        line = status(ann)
        assert "\x1b" not in line and "\u202e" not in line and "\x07" not in line
        assert "there!" in line.split("Ben: ", 1)[1]
        # Ann says one line with Ctrl+T; Ben hears it from her, cut at 200 characters.
        assert "ctrl+t" in ann.screen.active_bindings
        await a.press("ctrl+t")
        await until(a, lambda: type(ann.screen).__name__ == "TextPrompt")
        await a.press(*"good luck", "enter")
        await ben.wait_for(lambda c: c.chats and c.chats[-1].name == "Ann")
        assert ben.chats[-1].text == "good luck"
        await ben.close()


async def test_a_lost_connection_is_said_at_the_table(nim_service, tmp_path):
    ann, ben = await join_bens_table(nim_service, tmp_path)
    async with ann.run_test(size=(80, 24)) as a:
        await open_tables(a, ann)
        await until(a, lambda: listed(ann)[0] != "")
        await a.press("enter")
        await until(a, lambda: table_screen(ann) is not None)
        for connection in list(nim_service.connections):
            connection.close()
        await until(a, lambda: "connection to the shared tables was lost" in status(ann), what="the loss")
        assert table_screen(ann).submit("1") is False or ann.tables is None
    await ben.close()


async def test_a_screen_that_reads_the_full_state_leaves_the_table_instead_of_crashing(
    nim_service, tmp_path, monkeypatch
):
    def reads_state(screen) -> None:
        screen.query_one("#sticks").update(str(screen.match.state.sticks))

    monkeypatch.setattr(NimScreen, "refresh_view", reads_state)
    ann, ben = await join_bens_table(nim_service, tmp_path)
    async with ann.run_test(size=(80, 24)) as a:
        await open_tables(a, ann)
        await until(a, lambda: listed(ann)[0] != "")
        await a.press("enter")
        await until(a, lambda: any("cannot be played at a shared table" in n for n in notices(ann)), what="notice")
        await until(a, lambda: table_screen(ann) is None, what="back from the table")
        assert ann.is_running and ann.return_code is None
        table = next(iter(nim_service.tables.values()))
        await until(a, lambda: table.owners[1] is None or table.bot_plays(1), what="the seat given up")
    await ben.close()


async def test_a_returning_player_lands_at_the_seat_even_before_the_games_are_found(service, tmp_path, monkeypatch):
    ann = await connect(service, "ann")
    await ann.send(p.OpenTable("mille", [p.SeatSpec("person"), p.SeatSpec("person")]))
    await ann.wait_for(lambda c: c.snapshot)
    ben = await connect(service, "ben")
    await ben.send(p.Join(ann.snapshot.table.table))
    await ben.wait_for(lambda c: c.snapshot and c.snapshot.table.status == "playing")
    await ben.close()  # Ben's connection drops
    table = next(iter(service.tables.values()))
    for _ in range(100):
        if 1 in table.away:
            break
        await asyncio.sleep(0.02)
    assert 1 in table.away

    real = gamenight.plugins.load_registry
    snapshot_seen = threading.Event()

    def late_load_registry(*args, **kwargs):  # the room looks for plugins in a thread of its own
        snapshot_seen.wait(60)  # the plugins come in after the service's snapshot
        return real(*args, **kwargs)

    monkeypatch.setattr(gamenight.plugins, "load_registry", late_load_registry)
    back = await room_for(service, "ben", tmp_path, registry=None)
    async with back.run_test(size=(80, 24)) as b:
        try:
            await until(b, lambda: back.tables is not None and back.tables.snapshot is not None, what="the snapshot")
            assert not back.registry_loaded
        finally:
            snapshot_seen.set()
        await until(b, lambda: table_screen(back) is not None, rounds=1500, what="Ben back at his seat")
        assert table_screen(back).match.seat == 1 and 1 not in table.away
        # Under his table, the Tables list: leaving it lands there, not in the lobby.
        assert type(back.screen_stack[-2]).__name__ == "TablesScreen"
    await ann.close()
