"""Every finished local game is recorded once: played like a player, through Pilot at 80×24."""

from __future__ import annotations

from pathlib import Path

from gamenight.app import GameNightApp
from gamenight.dialogs import ResultDialog
from gamenight.match import Match, SeatConfig
from gamenight.records.store import RecordsStore
from gamenight.saves import save_match
from gamenight.testing import settle
from gamenight.ui.game_screen import GameScreen


def make_app(registry, config, tmp_path: Path, **kwargs) -> GameNightApp:
    return GameNightApp(
        registry=registry,
        config=config,
        saves_dir=tmp_path / "saves",
        bot_delay=0,
        records_path=tmp_path / "records.sqlite3",
        **kwargs,
    )


async def play_to_the_end(pilot) -> None:
    await settle(pilot)
    await pilot.press("1")  # 5 -> 4, the bot takes 1 -> 3
    await settle(pilot)
    await pilot.press("3")  # Ann takes the last three
    await settle(pilot)


def a_match(registry, seed: int = 99) -> Match:
    return Match(registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "first")], {"sticks": 5}, seed=seed)


async def test_a_finished_game_is_recorded_with_its_log_and_replays(nim_registry, config, tmp_path):
    match = a_match(nim_registry)
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await play_to_the_end(pilot)
        assert isinstance(app.screen, ResultDialog)
        await pilot.press("a")  # play again: the first game is recorded once, the second not yet
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)
    store = RecordsStore.open(tmp_path / "records.sqlite3")
    [summary] = store.recent()
    record = store.get(summary.id)
    assert record.game == "nim" and record.seed == 99 and record.options == {"sticks": 5, "dice": False}
    assert [(s.name, s.bot, s.score, s.place, s.win) for s in record.seats] == [
        ("Ann", None, 1.0, 1, 1.0),
        ("Bob", "first", 0.0, 2, 0.0),
    ]
    assert record.started <= record.finished
    again = Match(nim_registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "first")], record.options, seed=99)
    again.replay(record.log, check_chance=True)  # the log is the whole game
    assert again.over and again.outcome().winners == (0,)
    assert {(kind, name) for kind, name, *_rest in store.ratings("nim")} == {("person", "Ann"), ("bot", "first")}


async def test_each_game_of_a_session_is_recorded(nim_registry, config, tmp_path):
    match = a_match(nim_registry)
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await play_to_the_end(pilot)
        await pilot.press("a")
        await settle(pilot)
        await play_to_the_end(pilot)
        assert isinstance(app.screen, ResultDialog)
    store = RecordsStore.open(tmp_path / "records.sqlite3")
    assert store.count() == 2
    assert sorted(r.game_number for r in store.recent()) == [0, 1]


async def test_resuming_a_finished_save_does_not_record_it_twice(nim_registry, config, tmp_path):
    match = a_match(nim_registry)
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await play_to_the_end(pilot)
        assert isinstance(app.screen, ResultDialog)
    save = save_match(match, tmp_path / "finished.toml")  # written after the end, counted
    app = make_app(nim_registry, config, tmp_path, start_save=save)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ResultDialog)  # the end again, from the save
    assert RecordsStore.open(tmp_path / "records.sqlite3").count() == 1


async def test_a_game_left_unfinished_is_not_recorded(nim_registry, config, tmp_path):
    app = make_app(nim_registry, config, tmp_path, start_match=a_match(nim_registry))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        await pilot.press("escape")  # leave: asks whether to save
        await settle(pilot)
    store = RecordsStore.open(tmp_path / "records.sqlite3")
    assert store.count() == 0


async def test_records_that_cannot_be_kept_never_break_the_game(nim_registry, config, tmp_path, monkeypatch):
    monkeypatch.setenv("GAMENIGHT_CRASH_LOG", str(tmp_path / "crash.log"))
    broken = tmp_path / "records.sqlite3"
    broken.write_bytes(b"not a database" * 500)
    app = make_app(nim_registry, config, tmp_path, start_match=a_match(nim_registry))
    notices: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        app.notify = lambda message, **kw: notices.append(str(message))  # type: ignore[method-assign]
        await play_to_the_end(pilot)
        assert isinstance(app.screen, ResultDialog)  # the game ended as always
        await pilot.press("a")
        await settle(pilot)
        await play_to_the_end(pilot)
        assert isinstance(app.screen, ResultDialog)
    assert len(notices) == 1 and "damaged" in notices[0]  # told once, not at every game
    assert [p for p in tmp_path.iterdir() if ".broken-" in p.name]  # the file kept aside
    assert "could not keep a record" in (tmp_path / "crash.log").read_text()


async def test_a_failure_while_recording_is_logged_and_told_once(nim_registry, config, tmp_path, monkeypatch):
    monkeypatch.setenv("GAMENIGHT_CRASH_LOG", str(tmp_path / "crash.log"))

    def fail(self, record):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(RecordsStore, "add", fail)
    app = make_app(nim_registry, config, tmp_path, start_match=a_match(nim_registry))
    notices: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        app.notify = lambda message, **kw: notices.append(str(message))  # type: ignore[method-assign]
        await play_to_the_end(pilot)
        assert isinstance(app.screen, ResultDialog)
        await pilot.press("a")
        await settle(pilot)
        await play_to_the_end(pilot)
        assert isinstance(app.screen, ResultDialog)
    assert len(notices) == 1 and "could not be recorded" in notices[0]
    assert "No space left on device" in (tmp_path / "crash.log").read_text()


async def test_a_default_name_is_recorded_as_its_id_and_shown_in_todays_language(
    nim_registry, config, tmp_path, monkeypatch
):
    from gamenight import i18n
    from gamenight.i18n import register_catalogue, set_language
    from gamenight.screens.records_screen import RecordsScreen
    from textual.widgets import OptionList

    from tests.core.tour import screen_text

    monkeypatch.setattr(i18n, "_sources", {key: list(value) for key, value in i18n._sources.items()})
    monkeypatch.setattr(i18n, "_catalogues", {})  # this test's Japanese Nim is gone after it
    register_catalogue("nim", {"ja": {"Ann": "アン", "Bob": "ボブ"}})
    set_language("ja")  # a game played in Japanese: the seats are named アン and ボブ by the game
    match = Match(nim_registry.game("nim"), [SeatConfig("アン"), SeatConfig("ボブ", "first")], {"sticks": 5}, seed=3)
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await play_to_the_end(pilot)
    store = RecordsStore.open(tmp_path / "records.sqlite3")
    assert [seat.name for seat in store.recent()[0].seats] == ["Ann", "Bob"]  # one person in any language
    store.close()
    set_language("en")
    app = make_app(nim_registry, config, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.open_records()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RecordsScreen)
        for _ in range(200):
            await pilot.pause(0.02)
            if screen.figures is not None and screen.query_one("#past", OptionList).option_count:
                break
        text = "\n".join(screen_text(app))
        assert "Ann: played 1" in text and "アン" not in text
