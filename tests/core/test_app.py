"""The room driven like a player: real key presses through Pilot."""

import pytest
from gamenight.app import GameNightApp
from gamenight.dialogs import MessageDialog, ResultDialog, YesNoDialog
from gamenight.match import Match, SeatConfig
from gamenight.screens.lobby_screen import LobbyScreen
from gamenight.screens.setup_screen import SetupScreen
from gamenight.screens.too_small_screen import TooSmallScreen
from gamenight.testing import settle
from gamenight.ui.game_screen import GameScreen
from gamenight.widgets.key_bar import KeyBar


def make_app(registry, config, tmp_path, **kwargs):
    return GameNightApp(registry=registry, config=config, saves_dir=tmp_path / "saves", bot_delay=0, **kwargs)


async def test_lobby_lists_games_and_setup_starts_a_game_against_a_bot(nim_registry, config, tmp_path):
    app = make_app(nim_registry, config, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert isinstance(app.screen, LobbyScreen)
        assert "Nim" in str(app.screen.query_one("#games").get_option_at_index(0).prompt)
        await pilot.press("enter")
        assert isinstance(app.screen, SetupScreen)
        await pilot.press("enter")  # Return in the first name field starts
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        assert [s.name for s in screen.match.seats] == ["Ann", "Bob"]
        assert screen.match.seats[1].bot == "perfect"
        await pilot.press("2")  # 10 -> 8: the perfect bot cannot leave a multiple of 4
        await settle(pilot)
        assert len(screen.match.log) == 2


async def test_a_whole_game_ends_in_the_result_dialog_and_play_again_keeps_totals(nim_registry, config, tmp_path):
    game = nim_registry.game("nim")
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bob", "first")], {"sticks": 5})
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("1")  # 4 left, bot takes 1 -> 3
        await settle(pilot)
        await pilot.press("3")  # Ann takes the last three
        await settle(pilot)
        assert isinstance(app.screen, ResultDialog)
        assert "Winner: Ann" in str(app.screen.query_one("#headline").render())
        table = app.screen_stack[-2]
        assert "Take 1" not in str(table.query_one(KeyBar).render())  # the finished game's keys are gone
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)
        assert match.totals == [1.0, 0.0] and match.games_played == 1 and match.log == []
        assert "1 Take 1" in str(app.screen.query_one(KeyBar).render())  # and back for the next game


async def test_keys_pressed_while_a_bot_thinks_are_not_applied_to_its_turn(nim_registry, config, tmp_path):
    game = nim_registry.game("nim")
    match = Match(game, [SeatConfig("Bot", "first"), SeatConfig("Ann")], {"sticks": 10})
    # A long pacing delay keeps the bot's turn open while the keys arrive.
    app = GameNightApp(registry=nim_registry, config=config, saves_dir=tmp_path, bot_delay=30, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.bot_thinking
        await pilot.press("3", "2", "1")
        assert match.log == [] and match.to_move() == 0
        assert "Bot is thinking" in str(app.screen.query_one("#message").render())
        await pilot.pause(0.2)
        assert "Bot is thinking" in str(app.screen.query_one("#thinking").render())


async def test_illegal_key_shows_an_error_and_changes_nothing(nim_registry, config, tmp_path):
    game = nim_registry.game("nim")
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bob")], {"sticks": 2})
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        before = match.state
        await pilot.press("3")
        assert match.state is before
        assert "at most 2" in str(app.screen.query_one("#message").render())


async def test_resize_below_80x24_mid_game_covers_and_then_restores(nim_registry, config, tmp_path):
    game = nim_registry.game("nim")
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bob")], {})
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.resize_terminal(70, 20)
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        await pilot.press("1")  # swallowed
        assert match.log == []
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        await pilot.press("1")
        assert len(match.log) == 1


async def test_autosave_is_offered_in_the_lobby_and_resumes(nim_registry, config, tmp_path):
    game = nim_registry.game("nim")
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bob")], {"sticks": 9}, seed=2)
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await pilot.pause()
    assert (tmp_path / "saves" / "autosave-nim.toml").exists()
    app = make_app(nim_registry, config, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, YesNoDialog)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, MessageDialog)  # Bob is to move: hand the keyboard over
        await pilot.press("enter")
        assert isinstance(app.screen, GameScreen)
        assert app.screen.match.state.sticks == 7 and app.screen.view_seat == 1


async def test_resuming_a_corrupt_save_shows_why_and_leaves_it(nim_registry, config, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("format = 1\ngame = ", encoding="utf-8")
    app = make_app(nim_registry, config, tmp_path, start_save=bad)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, MessageDialog)
        assert "not a valid save" in app.screen.message
    assert bad.read_text(encoding="utf-8") == "format = 1\ngame = "


async def test_save_key_asks_for_a_name_then_saves_to_the_same_file(nim_registry, config, tmp_path):
    game = nim_registry.game("nim")
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bob", "first")], {})
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        app.screen.query_one("Input").value = "my game"
        await pilot.press("enter")
        await pilot.pause()
        saved = tmp_path / "saves" / "my-game.toml"
        assert saved.exists()
        await pilot.press("1")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert '"0 1"' in saved.read_text(encoding="utf-8")


async def test_hot_seat_with_hidden_information_hands_over(nim_registry, config, tmp_path):
    game = nim_registry.game("nim")
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bob")], {})
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("1")
        await pilot.pause()
        assert isinstance(app.screen, MessageDialog)
        await pilot.press("enter")
        assert app.screen.view_seat == 1 and app.screen.view["secret"] is None


async def test_help_and_command_palette_open(nim_registry, config, tmp_path):
    game = nim_registry.game("nim")
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bob")], {})
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen"
        await pilot.press("escape", "ctrl+p")
        await pilot.pause()
        from textual.command import CommandPalette

        assert isinstance(app.screen, CommandPalette)


async def test_bots_prepare_with_a_progress_bar_before_the_table_opens(nim_registry, config, tmp_path):
    import dataclasses
    import threading

    from gamenight.screens.preparing_screen import PreparingScreen

    release = threading.Event()
    calls = []

    def prepare(options, progress):
        calls.append(dict(options))
        progress(0.5)
        release.wait(5)
        progress(1.0)

    game = nim_registry.game("nim")
    slow = dataclasses.replace(game.bots[1], prepare=prepare)
    game = dataclasses.replace(game, bots=(game.bots[0], slow))
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bob", "perfect")], {"sticks": 6})
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, PreparingScreen)
        release.set()
        await settle(pilot)
        await pilot.pause()
        assert isinstance(app.screen, GameScreen) and calls == [{"sticks": 6, "dice": False}]


async def test_a_failing_preparation_is_reported_and_the_room_goes_on(nim_registry, config, tmp_path):
    import dataclasses

    def prepare(options, progress):
        raise OSError("disk full")

    game = nim_registry.game("nim")
    broken = dataclasses.replace(game.bots[1], prepare=prepare)
    game = dataclasses.replace(game, bots=(game.bots[0], broken))
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bob", "perfect")], {})
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)
        assert any("disk full" in str(n.message) for n in app._notifications)


def test_result_rows_may_hold_short_texts_beside_numbers():
    from gamenight.dialogs.result_dialog import ResultTable
    from rich.console import Console

    table = ResultTable(["Ann", "Bob"], [("Marks", (3, 2.5)), ("Placed the last piece", ("✓", ""))], (3, 2))
    console = Console(width=60, record=True)
    console.print(table.content)
    text = console.export_text()
    assert "✓" in text and "2.5" in text and "Placed the last piece" in text


async def test_an_unexpected_error_keeps_the_game_in_the_autosave(nim_registry, config, tmp_path, monkeypatch):
    # A crash must keep the autosave and log the traceback, never show it.
    monkeypatch.setenv("GAMENIGHT_CRASH_LOG", str(tmp_path / "crash.log"))
    game = nim_registry.game("nim")
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bob")], {"sticks": 10})
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    app.saves.clear_autosave("nim")
    shown = []
    panic = app.panic
    app.panic = lambda *renderables: (shown.extend(map(str, renderables)), panic(*renderables))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert not app.saves.autosave_path("nim").exists()  # nothing played yet: no autosave
            app.call_later(lambda: 1 / 0)
            await pilot.pause()
    except ZeroDivisionError:
        pass
    assert app.return_code == 1
    assert app.saves.autosave_path("nim").exists()
    assert "ZeroDivisionError" in (tmp_path / "crash.log").read_text()
    assert shown and "stopped because of an unexpected error" in shown[0] and "autosave" in shown[0]
    assert "Traceback" not in shown[0] and "ZeroDivisionError" not in shown[0]


async def test_ctrl_p_under_the_too_small_screen_opens_no_second_palette(nim_registry, config, tmp_path):
    app = make_app(nim_registry, config, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.resize_terminal(40, 10)
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        await pilot.press("ctrl+p")
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert [screen.id for screen in app.screen_stack].count("--command-palette") == 1


async def settings_palette(app, pilot):
    """Ctrl+P, "settings" typed, and the palette once its hits are in."""
    from textual.command import CommandList

    await pilot.press("ctrl+p", *"settings")
    palette = app.screen
    commands = palette.query_one(CommandList)
    for _ in range(100):
        if commands.option_count:
            break
        await pilot.pause(0.05)
    assert commands.option_count, "the palette offered nothing for 'settings'"
    return palette, commands


async def test_a_command_chosen_twice_in_a_hurry_runs_once_and_the_room_lives(nim_registry, config, tmp_path):
    # A fast typist's second selection reached a palette that had
    # already closed; it popped the lobby and the room died (ScreenStackError).
    from textual.widgets import OptionList

    app = make_app(nim_registry, config, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        palette, commands = await settings_palette(app, pilot)
        option = commands.get_option_at_index(0)
        for _ in range(2):
            palette.post_message(OptionList.OptionSelected(commands, option, 0))
        for _ in range(5):
            await pilot.pause()
        assert app._exception is None
        assert [type(screen).__name__ for screen in app.screen_stack] == ["LobbyScreen", "SettingsScreen"]


async def test_two_returns_typed_at_once_into_the_palette_open_one_screen(nim_registry, config, tmp_path):
    # The same race through the keyboard: both Returns reach the room's queue before it draws again
    # (as from a fast typist over SSH); the first runs the command, the second must not run it again
    # nor pop a screen the palette does not own.
    from textual import events

    app = make_app(nim_registry, config, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settings_palette(app, pilot)
        await pilot.press("down")
        for _ in range(2):
            app.post_message(events.Key("enter", "\r"))
        for _ in range(5):
            await pilot.pause()
        assert app._exception is None
        assert [type(screen).__name__ for screen in app.screen_stack] == ["LobbyScreen", "SettingsScreen"]


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_a_bots_description_wraps_under_itself_in_the_lobby(config, tmp_path, language):
    # The walk-through at 80x24: a long bot description went on at the panel's left edge, under the
    # bot's name; it now wraps in its own column for every game, in both languages.
    from gamenight.i18n import set_language
    from gamenight.plugins import load_registry
    from rich.cells import cell_len
    from textual.widgets import OptionList

    from tests.core.tour import screen_text

    set_language(language)
    try:
        registry = load_registry()
        app = make_app(registry, config, tmp_path)
        wrapped = 0
        async with app.run_test(size=(80, 24)) as pilot:
            games = app.screen.query_one("#games", OptionList)
            for index in range(games.option_count):
                games.highlighted = index
                await pilot.pause()
                # the about panel, without its border and its one cell of padding
                lines = [line.split("││", 1)[1][1:].rstrip("│ ") for line in screen_text(app) if "││" in line]
                start = next(i for i, line in enumerate(lines) if line.strip() in ("Bots", "ボット"))
                column = None
                for line in lines[start + 1 :]:
                    if not line.strip():
                        break
                    if not line.startswith("   "):  # "  Name  description": where descriptions begin
                        name_end = 2 + len(line[2:].split("  ")[0])
                        gap = len(line[name_end:]) - len(line[name_end:].lstrip(" "))
                        column = cell_len(line[: name_end + gap])
                        continue
                    wrapped += 1
                    assert cell_len(line) - cell_len(line.lstrip(" ")) == column, (games.highlighted, lines)
        assert wrapped, "no description was long enough to wrap: the test saw nothing"
    finally:
        set_language("en")


async def test_a_game_screen_that_fails_to_build_is_told_and_the_room_lives(
    nim_registry, config, tmp_path, monkeypatch
):
    # A plugin's screen raising while it is built (here for a replay) must not end the room.
    import gamenight.screens.replay_screen

    def broken(_replay):
        raise RuntimeError("the screen broke")

    monkeypatch.setattr(gamenight.screens.replay_screen, "replay_screen", broken)
    app = make_app(nim_registry, config, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.open_replay(object())
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen) and app._exception is None
        assert any("failed to open" in n.message and "the screen broke" in n.message for n in app._notifications)


async def test_return_resumes_the_autosave_when_the_room_starts_unfocused(nim_registry, config, tmp_path):
    """A browser tab starts the room without focus (no button of the first dialog has it): Return
    still answers "Resume it?" with its first choice, as in a terminal."""
    game = nim_registry.game("nim")
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bob")], {"sticks": 9}, seed=2)
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await pilot.pause()
    app = make_app(nim_registry, config, tmp_path)
    app.set_reactive(type(app).app_focus, False)  # as textual-serve starts it, until the page is focused
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, YesNoDialog) and app.screen.focused is None
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MessageDialog)  # resumed: Bob is to move, hand the keyboard over


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_a_dialog_shows_its_own_keys_not_the_screens_under_it(nim_registry, config, tmp_path, language):
    from gamenight.i18n import set_language
    from gamenight.widgets.key_bar import KeyBar

    from tests.core.tour import screen_text

    set_language(language)
    game = nim_registry.game("nim")
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bob")], {"sticks": 9}, seed=2)
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await pilot.pause()
    app = make_app(nim_registry, config, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(100):  # the question is pushed at start; wait until it is drawn (a loaded box is slow)
            await pilot.pause(0.02)
            if isinstance(app.screen, YesNoDialog) and screen_text(app):
                break
        assert isinstance(app.screen, YesNoDialog)  # "Resume it?" over the lobby
        bottom = screen_text(app)[-1]
        yes, no = ("はい", "いいえ") if language == "ja" else ("Yes", "No")
        assert f"y {yes}" in bottom and f"n {no}" in bottom
        lobby = app.screen_stack[-2]
        assert f"c {lobby.active_bindings['c'].binding.description}" in str(lobby.query_one(KeyBar).render())
        assert f"c {lobby.active_bindings['c'].binding.description}" not in bottom  # the lobby's Records key
