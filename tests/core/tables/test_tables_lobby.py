"""The lobby's shared tables, by keys at 80x24: a private table joined by its code, the live list,
refusals in the person's language, a finished game in each player's saves, play again."""

from __future__ import annotations

import asyncio
import socket

from gamenight.app import GameNightApp
from gamenight.dialogs import ResultDialog
from gamenight.i18n import gettext, set_language
from gamenight.saves import load_match
from gamenight.sdk.testing import make_room
from gamenight.ui.game_screen import GameScreen
from gamenight.widgets.key_bar import KeyBar
from rich.cells import cell_len
from textual.widgets import Checkbox, OptionList, Select

from tests.core.tables.conftest import NIM_REGISTRY, REGISTRY


async def room_for(service, identity: str, tmp_path, registry=NIM_REGISTRY) -> GameNightApp:
    """A room (Pilot-ready) connected to ``service`` as ``identity`` through a socketpair."""
    ours, theirs = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=theirs)
    asyncio.get_running_loop().create_task(service.serve(reader, writer, identity, identity.title()))
    folder = tmp_path / identity
    folder.mkdir(exist_ok=True)
    return make_room(
        registry,
        folder,
        bot_delay=0,
        records_path=folder / "records.sqlite3",
        tables_streams=await asyncio.open_connection(sock=ours),
    )


async def until(pilot, predicate, rounds: int = 1500, what: str = "condition") -> None:
    for _ in range(rounds):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"{what} not reached")


def table_screen(app) -> GameScreen | None:
    return next((s for s in reversed(app.screen_stack) if isinstance(s, GameScreen) and s.remote), None)


def notices(app) -> list[str]:
    """The notices shown, and those held while a dialog (the end's result) is open."""
    return [str(n.message) for n in app._notifications] + [str(n.message) for n in app.held_notices]


def listed(app) -> list[str]:
    tables = app.screen.query_one("#tables", OptionList)
    return [tables.get_option_at_index(i).id or "" for i in range(tables.option_count)]


async def open_tables(pilot, app) -> None:
    await until(pilot, lambda: "t" in app.screen.active_bindings, what="the Tables key")
    await pilot.press("t")
    await until(pilot, lambda: type(app.screen).__name__ == "TablesScreen", what="Tables")


async def open_a_table_for_two(pilot, app) -> None:
    """On the Tables list, by keys: a new table of the first game, seat 2 open for a person, started."""
    await pilot.press("n", "enter")
    await until(pilot, lambda: type(app.screen).__name__ == "SetupScreen")
    await pilot.press("tab", "enter", "home", "enter")  # seat 2 open for a person
    await until(pilot, lambda: app.screen.query_one("#kind-1", Select).value == "human")
    await pilot.press("ctrl+r")
    await until(pilot, lambda: table_screen(app) is not None, what="the new table")


async def test_a_private_table_by_its_code_to_the_end_saved_by_each_player_then_again(nim_service, tmp_path):
    ann = await room_for(nim_service, "ann", tmp_path)
    ben = await room_for(nim_service, "ben", tmp_path)
    async with ann.run_test(size=(80, 24)) as a, ben.run_test(size=(80, 24)) as b:
        await open_tables(b, ben)
        assert listed(ben) == [""]  # "No open tables yet"

        # Ann opens a public table first: Ben's open list shows it without a key.
        await open_tables(a, ann)
        await a.press("n", "enter")  # the only game: Nim
        await until(a, lambda: type(ann.screen).__name__ == "SetupScreen")
        assert ann.screen.focused.id == "kind-0"
        await a.press("ctrl+r")
        await until(a, lambda: table_screen(ann) is not None, what="Ann's first table")
        first = next(iter(nim_service.tables))
        await until(b, lambda: listed(ben) == [first], what="the list, live")
        # She leaves it (it is still waiting: her seat is freed) and opens a private one.
        await a.press("escape")
        await until(a, lambda: type(ann.screen).__name__ == "YesNoDialog")
        await a.press("y")
        await until(a, lambda: table_screen(ann) is None)
        await a.press("t", "n", "enter")
        await until(a, lambda: type(ann.screen).__name__ == "SetupScreen")
        await a.press("tab")
        assert ann.screen.focused.id == "kind-1"
        await a.press("enter", "home", "enter")  # seat 2: open for a person
        await until(a, lambda: ann.screen.query_one("#kind-1", Select).value == "human")
        await a.press("tab")
        assert ann.screen.focused.id == "public"
        await a.press("space")
        assert ann.screen.query_one("#public", Checkbox).value is False
        await a.press("ctrl+r")
        await until(a, lambda: table_screen(ann) is not None, what="Ann's private table")
        private = next(t for t in nim_service.tables.values() if not t.public)
        assert f"code {private.code}" in str(ann.screen.query_one("#title-bar").render())
        await a.pause(0.4)
        assert private.id not in listed(ben)  # a private table is not listed

        # Ben types the code in his lobby's Tables and sits down; the game starts.
        await b.press("c")
        await b.press(*private.code.lower())
        await b.press("enter")
        await until(b, lambda: table_screen(ben) is not None, what="Ben at the private table")
        assert private.started and table_screen(ben).match.seat == 1

        # They play Nim to the end by keys (1 stick a turn).
        pilots = {"ann": (a, ann), "ben": (b, ben)}
        for _ in range(60):
            if private.match.over:
                break
            for pilot, app in pilots.values():
                screen = table_screen(app)
                if app.screen is screen and screen.match.human_to_move():
                    turn = app.tables.snapshot.turn
                    await pilot.press("1")
                    await until(pilot, lambda app=app, turn=turn: app.tables.snapshot.turn != turn, what="a move")
            await a.pause(0.02)
        assert private.match.over
        for pilot, app in pilots.values():
            await until(pilot, lambda app=app: isinstance(app.screen, ResultDialog), what="the end dialog")
            await until(pilot, lambda app=app: any("saved to" in n for n in notices(app)), what="the save")
            saves = list((tmp_path / app.tables.name.lower() / "saves").glob("nim-table-*.toml"))
            assert len(saves) == 1
            kept = load_match(NIM_REGISTRY, saves[0])  # every move replayed by the rules
            assert kept.over and len(kept.log) == len(private.match.log)
            (record,) = app.records_store().recent("nim")  # in each person's own records too
            assert [seat.name for seat in record.seats] == [seat.name for seat in private.match.seats]

        # Play again with the same seats: it starts once both asked.
        await a.press("a")
        await until(a, lambda: "play again" in str(table_screen(ann).query_one("#message").render()))
        assert private.match.over
        await b.press("a")
        await until(a, lambda: not private.match.over, what="the next game")
        await until(a, lambda: "(10)" in str(table_screen(ann).query_one("#sticks").render()), what="a fresh game")
        assert private.owners == ["ann", "ben"]


async def test_refusals_and_the_tables_keys_are_in_japanese(nim_service, tmp_path):
    set_language("ja")
    ann = await room_for(nim_service, "ann", tmp_path)
    ben = await room_for(nim_service, "ben", tmp_path)
    async with ann.run_test(size=(80, 24)) as a, ben.run_test(size=(80, 24)) as b:
        await open_tables(a, ann)
        bar = str(ann.screen.query_one(KeyBar).render())
        for label in ("着席", "観戦", "新しいテーブル", "コード"):
            assert label in bar
        await a.press("c", "z", "z", "9", "enter")
        await until(a, lambda: any("そのテーブルはありません" in n for n in notices(ann)), what="the refusal")
        # Nim cannot be watched: the service refuses, the room says why in Japanese.
        await open_tables(b, ben)
        await b.press("n", "enter")
        await until(b, lambda: type(ben.screen).__name__ == "SetupScreen")
        await b.press("ctrl+r")
        await until(b, lambda: table_screen(ben) is not None)
        await until(a, lambda: listed(ann)[0] != "", what="Ben's table listed")
        await a.press("w")
        await until(a, lambda: any("このゲームは観戦できません" in n for n in notices(ann)), what="no watching")


async def test_the_host_starts_a_waiting_table_with_bots_in_the_free_seats(nim_service, tmp_path):
    ann = await room_for(nim_service, "ann", tmp_path)
    async with ann.run_test(size=(80, 24)) as a:
        await open_tables(a, ann)
        await open_a_table_for_two(a, ann)
        table = next(iter(nim_service.tables.values()))
        assert not table.started
        await until(a, lambda: "ctrl+b" in ann.screen.active_bindings, what="the host's start key")
        assert "Start with bots" in str(ann.screen.query_one(KeyBar).render())
        await a.press("ctrl+b")
        await until(a, lambda: table.started and table.bot_plays(1), what="started with a bot")
        await until(a, lambda: "ctrl+b" not in ann.screen.active_bindings, what="the start key gone")
        # Ann plays; the table's bot answers on the server.
        await until(a, lambda: table_screen(ann).match.human_to_move(), what="Ann to move")
        await a.press("1")
        await until(a, lambda: len(table.match.log) >= 2, what="the bot's answer")


async def test_finished_and_abandoned_tables_make_room_for_new_ones(nim_service, monkeypatch):
    from gamenight.tables import service as service_module
    from gamenight.tables.protocol import Leave, Move, OpenTable, SeatSpec

    from tests.core.tables.conftest import connect

    monkeypatch.setattr(service_module, "MAX_TABLES", 1)
    ann = await connect(nim_service, "ann")
    await ann.send(OpenTable("nim", [SeatSpec("person"), SeatSpec("bot", "first")], {"sticks": 2}))
    await ann.wait_for(lambda c: c.snapshot and c.snapshot.legal)
    first = ann.snapshot.table.table
    await ann.send(Move("2", ann.snapshot.turn))  # takes the last sticks: over
    await ann.wait_for(lambda c: c.snapshot.table.status == "over")
    await ann.wait_for(lambda c: c.finished)  # the finished game's save came to her room
    save_path, table_path = nim_service._paths(first)
    await ann.send(Leave())
    await ann.send(OpenTable("nim", [SeatSpec("person"), SeatSpec("person")]))
    await ann.wait_for(lambda c: c.snapshot.table.table != first)
    assert first not in nim_service.tables and len(nim_service.tables) == 1
    assert not any(error.code == "full" for error in ann.errors)
    # A waiting table its only person left goes too; a running one would stay.
    second = ann.snapshot.table.table
    await ann.send(Leave())
    await ann.send(OpenTable("nim", [SeatSpec("person"), SeatSpec("person")]))
    await ann.wait_for(lambda c: c.snapshot.table.table not in (first, second))
    assert set(nim_service.tables) == {ann.snapshot.table.table}
    await asyncio.sleep(0.1)
    assert not table_path.exists() and not save_path.exists()
    await ann.close()


async def test_leaving_a_table_or_its_finished_game_lands_on_the_tables_list(nim_service, tmp_path):
    ann = await room_for(nim_service, "ann", tmp_path)
    ben = await room_for(nim_service, "ben", tmp_path)
    async with ann.run_test(size=(80, 24)) as a, ben.run_test(size=(80, 24)) as b:
        await open_tables(a, ann)
        await open_a_table_for_two(a, ann)
        first = next(iter(nim_service.tables.values()))
        await open_tables(b, ben)
        await until(b, lambda: listed(ben) == [first.id], what="Ann's table listed")
        await b.press("enter")
        await until(b, lambda: table_screen(ben) is not None and first.started, what="Ben at Ann's table")
        # They play it to the end (three sticks a turn: 10 sticks, four moves).
        for _ in range(20):
            if first.match.over:
                break
            for pilot, app in ((a, ann), (b, ben)):
                screen = table_screen(app)
                if app.screen is screen and screen.match.human_to_move():
                    turn = app.tables.snapshot.turn
                    await pilot.press("3" if first.match.state.sticks >= 3 else str(first.match.state.sticks))
                    await until(pilot, lambda app=app, turn=turn: app.tables.snapshot.turn != turn, what="a move")
        assert first.match.over
        # Ben closes the finished game ("Leave"): he is on the Tables list, and opens another table from it.
        await until(b, lambda: isinstance(ben.screen, ResultDialog), what="Ben's end dialog")
        await b.press("l")
        await until(b, lambda: type(ben.screen).__name__ == "TablesScreen", what="Ben back on the Tables list")
        assert table_screen(ben) is None
        await open_a_table_for_two(b, ben)
        second = next(t for t in nim_service.tables.values() if t is not first)
        # Ann leaves hers too; her list shows Ben's new table, live, and Return sits her there.
        await until(a, lambda: isinstance(ann.screen, ResultDialog), what="Ann's end dialog")
        await a.press("l")
        await until(a, lambda: type(ann.screen).__name__ == "TablesScreen", what="Ann back on the Tables list")
        await until(a, lambda: listed(ann) == [second.id], what="Ben's new table on Ann's list")
        await a.press("enter")
        await until(a, lambda: table_screen(ann) is not None and second.started, what="Ann at Ben's table")
        # Mid-game, Ann leaves by keys (Escape, yes): the Tables list again, her seat the bot's there.
        await until(a, lambda: second.match.log or table_screen(ben).match.human_to_move(), what="Ben to move")
        await a.press("escape")
        await until(a, lambda: type(ann.screen).__name__ == "YesNoDialog")
        await a.press("y")
        await until(a, lambda: type(ann.screen).__name__ == "TablesScreen", what="the Tables list after leaving")
        await until(a, lambda: second.bot_plays(1), what="the bot in Ann's seat")
        await until(a, lambda: "Ann (bot)" in str(ann.screen.query_one("#table-about").render()), what="her seat")
        await a.press("enter")  # and she takes it back from there
        await until(a, lambda: table_screen(ann) is not None and not second.bot_plays(1), what="Ann back")


async def test_the_hosted_lobby_key_bar_shows_every_label_whole_at_80_columns(service, tmp_path, monkeypatch):
    """With Tables in the bar the English labels were 2 columns too long: "q Quit" was cut to "q Qu"."""
    monkeypatch.setenv("GAMENIGHT_HOSTED", "1")
    for language, quit_label, palette in (("en", "Quit", "^p palette"), ("ja", "終了", "^p コマンド")):
        set_language(language)
        room = await room_for(service, f"ann-{language}", tmp_path, registry=REGISTRY)
        async with room.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda room=room: "t" in room.screen.active_bindings, what="the Tables key")
            await pilot.pause()
            bar = room.screen.query_one(KeyBar)
            text = str(bar.render())
            assert cell_len(text) <= 80 and text.rstrip().endswith(palette)
            shown = {}  # the first key of each action shown, as the bar lists them
            for _n, binding, _e, _t in room.screen.active_bindings.values():
                if binding.show:
                    shown.setdefault(binding.action, binding)
            assert len(shown) >= 7  # the lobby's keys, Tables and Records among them
            for binding in shown.values():
                label = f"{room.get_key_display(binding)} {gettext(binding.description)}"
                assert label in text, f"{label!r} not whole in {text!r}"
            # A click on "Quit" still lands on its key.
            assert bar._entry_at(cell_len(text[: text.index(quit_label)])).key == "q"
    set_language("en")


async def test_the_tables_list_shows_a_tables_options_as_the_setup_does(service, tmp_path):
    """The details beside the list said "ジョーカールール: False" and "配置: weave": raw values."""
    from tests.core.tables.test_shared_end import open_shared_table

    set_language("ja")
    ann = await room_for(service, "ann", tmp_path, registry=REGISTRY)
    cat = await room_for(service, "cat", tmp_path, registry=REGISTRY)
    ben = await room_for(service, "ben", tmp_path, registry=REGISTRY)
    try:
        async with ann.run_test(size=(80, 24)) as a, cat.run_test(size=(80, 24)) as c, ben.run_test(size=(80, 24)) as b:
            await open_shared_table(a, ann, "yatzy")  # the joker rule off, as the setup offers it
            await open_shared_table(c, cat, "lits")  # the first layout
            await open_tables(b, ben)
            await until(b, lambda: len([t for t in listed(ben) if t]) == 2, what="both tables listed")
            about = {}
            for _ in range(2):
                text = str(ben.screen.query_one("#table-about").render())
                about[text.splitlines()[0]] = text
                await b.press("down")
            yatzy, lits = about["ヤッツィー"], about["バトル・オブ・リッツ"]
            assert "ジョーカールール: いいえ" in yatzy and "False" not in yatzy
            assert "配置: 織り目" in lits and "weave" not in lits
    finally:
        set_language("en")


async def test_a_shared_tables_first_seat_is_the_hosts_and_offers_no_bot(nim_service, tmp_path):
    """Seat 1 read "you (host)" beside a menu "Open for a person / Bot: …": a bot chosen there only
    earned "Seat 1 is yours" at Start.  Its menu now holds the host alone."""
    ann = await room_for(nim_service, "ann", tmp_path)
    async with ann.run_test(size=(80, 24)) as a:
        await open_tables(a, ann)
        await a.press("n", "enter")
        await until(a, lambda: type(ann.screen).__name__ == "SetupScreen")
        assert ann.screen.focused.id == "kind-0"
        await a.press("enter", "end", "enter")  # open seat 1's menu, take its last entry
        await a.pause()
        assert ann.screen.query_one("#kind-0", Select).value == "human"
        seat_one = ann.screen.query_one("#kind-0", Select)
        assert [str(prompt) for prompt, value in seat_one._options if value != Select.BLANK] == ["Person"]
        # Seat 2 still offers a person or the bots; the table opens.
        await a.press("tab")
        assert ann.screen.focused.id == "kind-1"
        await a.press("ctrl+r")
        await until(a, lambda: table_screen(ann) is not None, what="Ann's table")
