"""``gamenight replay FILE`` of a save holding several games: ``--game N``, or the room asks which."""

from __future__ import annotations

import pytest
from gamenight.cli import main
from gamenight.i18n import set_language
from gamenight.match import Match, SeatConfig
from gamenight.saves import save_match
from gamenight.screens.replay_screen import ReplayBehaviour, ReplayGameChooser
from gamenight.sdk import CHANCE
from gamenight.sdk.testing import make_room
from textual.widgets import OptionList

from tests.core.tour import screen_text


def play(match: Match, moves: int | None = None) -> None:
    """Play ``match``'s current game on (to its end, or ``moves`` more actions)."""
    done = 0
    while not match.over and (moves is None or done < moves):
        if match.to_move() == CHANCE:
            match.apply_chance()
        elif match.bot_to_move():
            match.apply(match.bot_choice())
        else:
            match.apply(match.legal_actions()[-1])
        done += 1


def a_save_of_three_games(registry, tmp_path):
    """Two finished games of Nim and a third one move in; the save's path and each game's length."""
    match = Match(registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "first")], {"sticks": 7}, seed=5)
    lengths = []
    for _ in range(2):
        play(match)
        lengths.append(len(match.log))
        match.record_result()
        match.start_game()
    play(match, moves=1)
    lengths.append(1)
    return save_match(match, tmp_path / "three.toml"), lengths


async def until_screen(pilot, kind) -> None:
    for _ in range(3000):
        await pilot.pause(0.01)
        if isinstance(pilot.app.screen, kind) and pilot.app.screen.is_mounted:
            return
    raise AssertionError(f"{kind.__name__} never came")


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_a_save_of_several_games_asks_which_to_replay(nim_registry, tmp_path, language):
    set_language(language)
    path, lengths = a_save_of_three_games(nim_registry, tmp_path)
    app = make_room(nim_registry, tmp_path, start_replay=path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until_screen(pilot, ReplayGameChooser)
        chooser = app.screen.query_one(OptionList)
        assert chooser.option_count == 3 and chooser.highlighted == 2  # the latest, as without a choice
        text = "\n".join(screen_text(app))
        if language == "ja":
            assert "このセーブには 3 ゲームあります" in text and "ゲーム 3: 途中（1 手）" in text
        else:
            assert "This save holds 3 games: which one?" in text and "Game 3: unfinished, 1 move" in text
            assert "1 moves" not in text
        # each finished game's scores beside the seats' names
        first = str(chooser.get_option_at_index(0).prompt)
        assert "Ann 1 – Bob 0" in first and f"{lengths[0]} " in first
        await pilot.press("up", "enter")
        await until_screen(pilot, ReplayBehaviour)
        assert app.screen.replay.game_number == 1 and app.screen.replay.steps == lengths[1]
        assert all(len(line) <= 80 for line in screen_text(app))


async def test_a_save_of_one_game_replays_it_without_asking(nim_registry, tmp_path):
    match = Match(nim_registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "first")], {"sticks": 7}, seed=5)
    play(match, moves=2)
    path = save_match(match, tmp_path / "one.toml")
    app = make_room(nim_registry, tmp_path, start_replay=path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until_screen(pilot, ReplayBehaviour)
        assert app.screen.replay.steps == 2


async def test_game_n_replays_that_game_and_a_missing_one_is_refused(nim_registry, tmp_path, capsys, monkeypatch):
    path, lengths = a_save_of_three_games(nim_registry, tmp_path)
    app = make_room(nim_registry, tmp_path, start_replay=path, start_replay_game=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await until_screen(pilot, ReplayBehaviour)
        assert app.screen.replay.game_number == 0 and app.screen.replay.steps == lengths[0]
    monkeypatch.setattr("gamenight.plugins.load_registry", lambda: nim_registry)
    assert main(["replay", str(path), "--game", "4"]) == 1
    assert "The save holds 3 games; there is no game 4." in capsys.readouterr().err
    ran = []
    monkeypatch.setattr("gamenight.app.GameNightApp.run", lambda self: ran.append(self.start_replay_game))
    monkeypatch.setattr("gamenight.cli._terminal_problem", lambda: None)  # as in a terminal
    assert main(["replay", str(path), "--game", "2"]) == 0
    assert ran == [1]


@pytest.mark.parametrize("key", ["q", "escape"])
async def test_leaving_a_replay_the_command_opened_ends_the_room(nim_registry, tmp_path, key):
    match = Match(nim_registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "first")], {"sticks": 7}, seed=5)
    play(match, moves=2)
    path = save_match(match, tmp_path / "one.toml")
    app = make_room(nim_registry, tmp_path, start_replay=path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until_screen(pilot, ReplayBehaviour)
        await pilot.press(key)
        await pilot.pause()
        assert app.return_code == 0  # `gamenight replay FILE` ends: no lobby it came from


async def test_escape_on_the_choice_of_game_ends_the_room(nim_registry, tmp_path):
    path, _lengths = a_save_of_three_games(nim_registry, tmp_path)
    app = make_room(nim_registry, tmp_path, start_replay=path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until_screen(pilot, ReplayGameChooser)
        await pilot.press("escape")
        await pilot.pause()
        assert app.return_code == 0


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_the_choice_of_game_shows_its_own_keys_and_return_chooses(nim_registry, tmp_path, language):
    """The chooser is a dialog over the lobby: its key bar shows its own keys (choose, back), not the
    lobby's (it showed "r Resume  s Settings …", keys that did nothing there)."""
    set_language(language)
    path, _lengths = a_save_of_three_games(nim_registry, tmp_path)
    app = make_room(nim_registry, tmp_path, start_replay=path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until_screen(pilot, ReplayGameChooser)
        await pilot.pause()
        bar = screen_text(app)[-1]
        choose, back = ("選ぶ", "戻る") if language == "ja" else ("Choose", "Back")
        assert f"⏎ {choose}" in bar and f"esc {back}" in bar, bar
        assert ("設定" if language == "ja" else "Settings") not in bar, bar
        await pilot.press("enter")  # the highlighted (latest) game
        await until_screen(pilot, ReplayBehaviour)
        assert app.screen.replay.game_number == 2
