"""A person at a shared table: why a move is refused, the status line when the next game starts,
chat that shows whole and stays in a log."""

from __future__ import annotations

import contextlib

import pytest
from gamenight.i18n import set_language
from gamenight.tables import protocol as p
from gamenight.ui.game_screen import StatusLine
from rich.cells import cell_len
from textual.widgets import Static

from tests.core.tables.conftest import REGISTRY, connect
from tests.core.tables.test_shared_end import open_shared_table, play_nim_against_its_bot
from tests.core.tables.test_tables_lobby import room_for, table_screen, until


@pytest.fixture(autouse=True)
def english_after():
    yield
    set_language("en")


def status(app) -> str:
    return str(table_screen(app).query_one(StatusLine).query_one("#message", Static).render())


async def test_a_refused_move_at_a_shared_table_says_the_rules_reason_in_the_rooms_language(service, tmp_path):
    set_language("ja")
    ann = await room_for(service, "ann", tmp_path, REGISTRY)
    async with ann.run_test(size=(80, 24)) as pilot:
        await open_shared_table(pilot, ann, "yatzy", person=False)
        screen = table_screen(ann)
        await until(pilot, lambda: screen.match.human_to_move() and ann.tables.snapshot.legal, what="Ann's turn")
        assert not screen.submit("score:ones")  # before rolling: not in the legal list
        await until(pilot, lambda: "記録する前にサイコロを振ってください。" in status(ann), what="the reason")
        table = next(iter(service.tables.values()))
        assert table.match.log == [] or all(entry.action != "score:ones" for entry in table.match.log)
        # A person's mistakes are no attack: many of them do not cut the room off.
        for _ in range(8):
            screen.submit("score:ones")
        await pilot.pause(0.2)
        assert not ann.tables.closed.is_set()


async def test_the_service_sends_a_refused_moves_reason_as_data(service):
    ann = await connect(service, "key:ann", "Ann")
    await ann.send(p.OpenTable("yatzy", [p.SeatSpec("person")]))
    snap = await ann.wait_for(lambda c: c.snapshot and c.snapshot.legal and c.snapshot)
    await ann.send(p.Move("score:ones", snap.turn))
    error = await ann.wait_for(lambda c: c.errors and c.errors[-1])
    assert error.code == "illegal" and error.message == "Roll the dice before scoring."
    assert error.reason == p.Reason("roll-first", "Roll the dice before scoring.", {})
    await ann.send(p.Move("score:nothing", snap.turn))
    error = await ann.wait_for(lambda c: len(c.errors) > 1 and c.errors[-1])
    assert error.reason == p.Reason("no-such-box", "There is no box called {name}.", {"name": "nothing"})
    with contextlib.suppress(Exception):
        await ann.close()


async def test_play_again_clears_the_last_games_last_move_from_the_status_line(nim_service, tmp_path):
    """At a shared table (the service starts the next game) ..."""
    ann = await room_for(nim_service, "ann", tmp_path)
    async with ann.run_test(size=(80, 24)) as pilot:
        await open_shared_table(pilot, ann, "nim", person=False)
        table = next(iter(nim_service.tables.values()))
        screen = table_screen(ann)
        await play_nim_against_its_bot(pilot, ann, nim_service)
        assert "takes" in status(ann)  # the last move of the game
        await pilot.press("a")
        await until(pilot, lambda: not table.match.over, what="the next game")
        await until(pilot, lambda: ann.screen is screen and screen.match.human_to_move(), what="the first turn")
        assert status(ann) == ""


async def test_play_again_in_a_local_game_clears_the_last_move_too(nim_registry, tmp_path):
    """... and in a room's own game against a bot."""
    from gamenight.match import Match, SeatConfig
    from gamenight.testing import settle

    from tests.core.test_text import nim_app

    match = Match(nim_registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "first")], {"sticks": 5})
    app = nim_app(tmp_path, nim_registry, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("1")  # 4 left, the bot takes 1: 3
        await settle(pilot)
        await pilot.press("3")  # Ann takes the last three
        await settle(pilot)
        screen = app.screen_stack[-2]
        assert "takes 3" in str(screen.query_one(StatusLine).query_one("#message", Static).render())
        await pilot.press("a")
        await settle(pilot)
        assert app.screen is screen and match.log == []
        assert str(screen.query_one(StatusLine).query_one("#message", Static).render()) == ""


async def two_at_a_table(service, tmp_path, stack):
    """Ann (host) and Ben at a shared Yatzy table, each in a room at 80x24."""
    from tests.core.tables.test_shared_end import join_first_table

    ann = await room_for(service, "ann", tmp_path, REGISTRY)
    ben = await room_for(service, "ben", tmp_path, REGISTRY)
    a = await stack.enter_async_context(ann.run_test(size=(80, 24)))
    b = await stack.enter_async_context(ben.run_test(size=(80, 24)))
    await open_shared_table(a, ann, "yatzy")
    await join_first_table(b, ben)
    for connection in service.connections:  # people chat at machine speed here
        connection.chats = p.RateLimiter(1000, 1000)
    return (a, ann), (b, ben)


def screenshot(app) -> str:
    """The terminal's text as the person sees it (the top screen and any dimmed behind it)."""
    import io

    from rich.console import Console

    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, record=True)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


async def test_a_chat_line_of_one_long_word_or_wide_characters_shows_on_the_status_line(service, tmp_path):
    async with contextlib.AsyncExitStack() as stack:
        (a, ann), (_b, ben) = await two_at_a_table(service, tmp_path, stack)
        table_screen(ben).match.chat("x" * 200)
        await until(a, lambda: status(ann).startswith("Ben: x"), what="the chat line")
        await a.pause(0.1)
        assert "Ben: " + "x" * 60 in screenshot(ann)  # the word shows, cut at the line's end ("…")
        table_screen(ben).match.chat("あ" * 100)
        await until(a, lambda: status(ann).startswith("Ben: あ"), what="the wide chat line")
        await a.pause(0.1)
        assert "Ben: " + "あ" * 30 in screenshot(ann)


async def test_the_chat_log_keeps_the_last_fifty_lines_wrapped_and_a_key_shows_and_hides_it(service, tmp_path):
    async with contextlib.AsyncExitStack() as stack:
        (a, ann), (_b, ben) = await two_at_a_table(service, tmp_path, stack)
        screen = table_screen(ann)
        assert "Chat log (^o)" in palette_titles(ann, screen)  # named in the command palette
        log = screen.query_one("#chat-log")
        assert not log.display
        for number in range(55):
            table_screen(ben).match.chat(f"line {number}")
        long_word = "".join(chr(ord("a") + n % 26) for n in range(200))
        table_screen(ben).match.chat(long_word)
        table_screen(ben).match.chat("ありがとう、アン。" * 10)
        await until(a, lambda: len(screen.chat_lines) == 50 and screen.chat_lines[-1][1].startswith("あ"))
        assert screen.chat_lines[0] == ("Ben", "line 7")  # the oldest went
        before = screenshot(ann)
        await a.press("ctrl+o")
        await a.pause(0.2)
        assert log.display and screen.focused is log
        assert "Chat log · Ctrl+O hides it" in screenshot(ann)
        shown = "".join(strip.text for strip in log.lines)
        assert long_word in shown.replace(" ", "")  # wrapped over lines, all of it
        assert "ありがとう、アン。" * 3 in shown.replace(" ", "")
        assert all(cell_len(strip.text.rstrip()) <= log.scrollable_content_region.width for strip in log.lines)
        shown = screenshot(ann)
        assert "yzabcdefghijklmnopqr" in shown and "ありがとう、アン。" * 4 in shown  # the newest, whole
        await a.press("home")  # focused, it scrolls: back to the oldest line kept
        await a.pause(0.2)
        assert "Ben: line 7" in screenshot(ann) and "Ben: line 6" not in screenshot(ann)
        await a.press("ctrl+o")
        await a.pause(0.2)
        assert not log.display and screenshot(ann) == before  # the table as it was


async def test_the_chat_log_and_its_key_are_in_japanese(service, tmp_path):
    set_language("ja")
    async with contextlib.AsyncExitStack() as stack:
        (a, ann), _ben = await two_at_a_table(service, tmp_path, stack)
        assert "チャット履歴 (^o)" in palette_titles(ann, table_screen(ann))
        await a.press("ctrl+o")
        await a.pause(0.1)
        assert "チャット履歴 · Ctrl+O で閉じる" in screenshot(ann)


def palette_titles(app, screen) -> list[str]:
    from gamenight.commands import game_key_commands

    return [command.title for command in game_key_commands(app, screen)]


async def test_a_watcher_of_a_waiting_table_its_host_left_is_told_and_taken_back_to_tables(service, tmp_path):
    from textual.widgets import OptionList

    from tests.core.tables.test_tables_lobby import notices

    ann = await room_for(service, "ann", tmp_path, REGISTRY)
    ben = await room_for(service, "ben", tmp_path, REGISTRY)
    async with ann.run_test(size=(80, 24)) as a, ben.run_test(size=(80, 24)) as b:
        await open_shared_table(a, ann, "yatzy")  # waits for a second person
        await until(b, lambda: "t" in ben.screen.active_bindings, what="the Tables key")
        await b.press("t")
        await until(b, lambda: type(ben.screen).__name__ == "TablesScreen")
        await until(b, lambda: ben.screen.query_one("#tables", OptionList).get_option_at_index(0).id, what="listed")
        await b.press("w")
        await until(b, lambda: table_screen(ben) is not None and ben.screen is table_screen(ben), what="watching")
        await a.press("escape")
        await until(a, lambda: type(ann.screen).__name__ == "YesNoDialog")
        await a.press("y")
        await until(b, lambda: table_screen(ben) is None, what="Ben back at the Tables list")
        assert type(ben.screen).__name__ == "TablesScreen"
        assert "The table was closed: everyone left it." in notices(ben)
        await until(b, lambda: ben.screen.query_one("#tables", OptionList).get_option_at_index(0).id == "")
        assert not service.tables
