"""The records screen, from the lobby, played like a player at 80×24 in English and Japanese."""

from __future__ import annotations

import pytest
from gamenight.dialogs import ResultDialog
from gamenight.i18n import set_language
from gamenight.match import Match, SeatConfig
from gamenight.screens.lobby_screen import LobbyScreen
from gamenight.screens.records_screen import RecordsScreen
from gamenight.testing import settle
from gamenight.widgets.key_bar import KeyBar
from textual.widgets import OptionList

from tests.core.records.test_recording import make_app
from tests.core.tour import screen_text


async def until_shown(pilot, screen: RecordsScreen) -> None:
    for _ in range(1500):
        await pilot.pause(0.02)
        if screen.figures is not None and screen.query_one("#past", OptionList).option_count:
            return
    raise AssertionError("the records never came")


async def open_and_load(pilot, app) -> RecordsScreen:
    """``c`` in the lobby, then wait (bounded) until the records screen has read what it can."""
    await pilot.press("c")
    screen = app.screen
    for _ in range(200):
        await pilot.pause(0.02)
        if screen.loaded:
            break
    await pilot.pause()
    assert screen.loaded, "the records screen never finished reading"
    return screen


async def play_a_game_then_open_the_records(pilot, app) -> RecordsScreen:
    await settle(pilot)
    await pilot.press("1")  # 5 -> 4, the bot takes 1 -> 3
    await settle(pilot)
    await pilot.press("3")  # Ann takes the last three and wins
    await settle(pilot)
    assert isinstance(app.screen, ResultDialog)
    await pilot.press("l")  # leave: back to the lobby
    await settle(pilot)
    assert isinstance(app.screen, LobbyScreen)
    await pilot.press("c")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, RecordsScreen)
    await until_shown(pilot, screen)
    return screen


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_a_game_played_shows_in_the_records_screen(nim_registry, config, tmp_path, language):
    set_language(language)
    match = Match(nim_registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "perfect")], {"sticks": 5})
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await play_a_game_then_open_the_records(pilot, app)
        assert screen.figures.player == "Ann" and screen.figures.played == 1 and screen.figures.won == 1
        lines = screen_text(app)
        text = "\n".join(lines)
        assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
        if language == "en":
            assert "Ann: played 1, won 1 (100%; 95% 21%–100%)" in text
            assert "1 game recorded" in text and "1 games" not in text  # it said "1 games recorded"
            assert "Perfect" in text and "1/1" in text  # the bot met, by its label
            assert "Past games, newest first" in text
        else:
            assert "Ann: 1 回対戦、1 勝（勝率 100%、95% 区間 21%–100%）" in text
            assert "過去のゲーム（新しい順）" in text and "戻る" in text
        past = screen.query_one("#past", OptionList)
        assert past.option_count == 1 and "Ann 1" in str(past.get_option_at_index(0).prompt)
        await pilot.press("escape")
        assert isinstance(app.screen, LobbyScreen)


async def test_the_records_key_is_in_the_key_bar_and_the_palette(nim_registry, config, tmp_path):
    app = make_app(nim_registry, config, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "c Records" in str(app.screen.query_one(KeyBar).render())
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Records" in titles


async def test_no_records_yet_says_so_and_creates_nothing(nim_registry, config, tmp_path):
    app = make_app(nim_registry, config, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(await open_and_load(pilot, app), RecordsScreen)
        assert "No games recorded yet." in "\n".join(screen_text(app))
    assert not (tmp_path / "records.sqlite3").exists()


async def test_a_damaged_records_file_is_reported_on_the_screen(nim_registry, config, tmp_path):
    (tmp_path / "records.sqlite3").write_bytes(b"junk" * 2000)
    app = make_app(nim_registry, config, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_and_load(pilot, app)
        assert "damaged" in "\n".join(screen_text(app))
    assert [p for p in tmp_path.iterdir() if ".broken-" in p.name]


async def test_g_plots_the_scores_beside_each_bots_mean(nim_registry, config, tmp_path):
    match = Match(nim_registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "perfect")], {"sticks": 5})
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await play_a_game_then_open_the_records(pilot, app)
        assert screen.history == [1.0] and screen.means == [("perfect", 0.0)]
        await pilot.press("g")
        await pilot.pause()
        text = "\n".join(screen_text(app))
        assert "Ann: the latest score" in text and "1 scores" not in text and "Perfect: mean 0" in text
        assert not screen.query_one("#figures").display
        await pilot.press("g")  # and back to the figures
        await pilot.pause()
        assert "Ann: played 1" in "\n".join(screen_text(app))


async def test_the_past_games_page_on_from_the_end_of_the_list(nim_registry, config, tmp_path, monkeypatch):
    import gamenight.screens.records_screen as records_screen
    from gamenight.records.store import GameRecord, RecordsStore, SeatRecord

    monkeypatch.setattr(records_screen, "PAST_GAMES", 5)
    store = RecordsStore.open(tmp_path / "records.sqlite3")
    store.add_many(
        [
            GameRecord(
                "nim",
                "1",
                {},
                number,
                0,
                float(number),
                1000.0 + number,
                (SeatRecord("Ann", None, number, 1, 1.0), SeatRecord("Bob", "first", 0, 2, 0.0)),
                ((0, "1"),),
            )
            for number in range(12)
        ]
    )
    store.close()
    app = make_app(nim_registry, config, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        screen = app.screen
        await until_shown(pilot, screen)
        past = screen.query_one("#past", OptionList)
        assert past.option_count == 5
        past.focus()
        for _ in range(12):
            await pilot.press("end")
            await pilot.pause(0.05)
        assert past.option_count == 12  # three pages, newest first, none twice
        assert [record.finished for record in screen.past] == [1000.0 + n for n in range(11, -1, -1)]


async def test_records_that_fail_to_read_are_told_not_left_waiting(nim_registry, config, tmp_path, monkeypatch):
    import sqlite3

    from gamenight.records.store import GameRecord, RecordsStore, SeatRecord

    store = RecordsStore.open(tmp_path / "records.sqlite3")
    store.add(GameRecord("nim", "1", {}, 1, 0, 1.0, 2.0, (SeatRecord("Ann", None, 1, 1, 1.0),), ()))
    store.close()

    def broken(self, *args, **kwargs):
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(RecordsStore, "games_played", broken)
    app = make_app(nim_registry, config, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_and_load(pilot, app)
        text = "\n".join(screen_text(app))
        assert "The records cannot be read: database disk" in text and "malformed" in text


async def test_a_local_rooms_records_show_the_configured_first_player(nim_registry, tmp_path):
    from gamenight.config import Config
    from gamenight.records.store import GameRecord, RecordsStore, SeatRecord

    (tmp_path / "config.toml").write_text('[default]\nplayer.1 = "Kei"\n')
    store = RecordsStore.open(tmp_path / "records.sqlite3")
    store.add_many(
        [
            GameRecord(
                "nim",
                "1",
                {},
                number,
                0,
                float(number),
                1000.0 + number,
                (SeatRecord(name, None, 1, 1, 1.0), SeatRecord("Bob", "first", 0, 2, 0.0)),
                ((0, "1"),),
            )
            for number, name in enumerate(["Zed", "Zed", "Kei"])  # a guest at this keyboard played most
        ]
    )
    store.close()
    app = make_app(nim_registry, Config.load(tmp_path / "config.toml"), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        screen = app.screen
        await until_shown(pilot, screen)
        assert screen.figures.player == "Kei" and screen.figures.played == 1
        assert "Kei: played 1, won 1" in "\n".join(screen_text(app))


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_figures_below_the_fold_are_hinted_until_scrolled_to(nim_registry, config, tmp_path, language):
    set_language(language)
    match = Match(nim_registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "perfect")], {"sticks": 5})
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    hint = "続きは下: Tab、↓" if language == "ja" else "more below: Tab, ↓"
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await play_a_game_then_open_the_records(pilot, app)
        await pilot.pause()
        figures = screen.query_one("#figures")
        assert figures.max_scroll_y > 0  # at 80x24 the top ten starts below the fold
        assert hint in "\n".join(screen_text(app))
        await pilot.press("tab")
        assert app.focused is figures
        for _ in range(int(figures.max_scroll_y) + 1):
            await pilot.press("down")
        await pilot.pause()
        assert hint not in "\n".join(screen_text(app))  # at the bottom: nothing more to hint
