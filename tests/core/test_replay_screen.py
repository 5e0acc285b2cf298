"""The replay viewer, played like a player at 80×24 in English and Japanese."""

from __future__ import annotations

import pytest
from gamenight.i18n import set_language
from gamenight.match import Match, SeatConfig, play_headless
from gamenight.plugins import load_registry
from gamenight.replay import Replay
from gamenight.saves import save_match
from gamenight.screens import replay_screen as replay_module
from gamenight.screens.replay_screen import ReplayBehaviour
from gamenight.sdk import OBSERVER
from gamenight.sdk.testing import make_room
from gamenight_seven.cards import card_label

from tests.core.tour import screen_text

REGISTRY = load_registry()


def seven_replay(seed: int = 4) -> Replay:
    game = REGISTRY.game("seven")
    seats = [SeatConfig("Ann")] + [SeatConfig(f"Bot {n}", "random") for n in (1, 2)]
    played = play_headless(game, [SeatConfig(seat.name, "random") for seat in seats], seed=seed)
    return Replay(game, seats, {}, seed, 0, list(played.log))


def text_of(app) -> str:
    return "\n".join(screen_text(app))


async def open_replay(pilot, app, replay: Replay):
    app.open_replay(replay)
    for _ in range(100):
        await pilot.pause(0.01)
        if isinstance(app.screen, ReplayBehaviour) and app.screen.is_mounted:
            break
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, ReplayBehaviour)
    return screen


def seen_cards(view) -> set[int]:
    """The cards a SEVEN view shows: its own hand, the pile, the top, any hands laid open."""
    cards = set(view.hand) | set(view.played) | {view.top}
    for hand in view.shown_hands:
        cards |= set(hand)
    return cards


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_a_replay_never_shows_a_card_the_followed_seat_could_not_see(tmp_path, language):
    set_language(language)
    replay = seven_replay()
    app = make_room(REGISTRY, tmp_path)
    async with app.run_test(size=(100, 24)) as pilot:  # from 100 columns the move log stands beside the table
        screen = await open_replay(pilot, app, replay)
        assert screen.query_one("#replay-log").display  # its text is checked too
        fresh = Match(replay.game, list(replay.seats), {}, seed=replay.seed)
        public: set[int] = set()
        own_seen = 0
        for n in range(replay.steps + 1):
            if n:
                await pilot.press("right")
                await pilot.pause()
            assert replay.position == n and screen.match.position == n
            fresh.replay(replay.entries[:n], check_chance=True)
            assert screen.view == fresh.view(0)  # what the screen draws from: a fresh replay's view
            state = replay.state_at(n)
            view = replay.view_at(n, 0)
            public |= seen_cards(view)  # what Ann has seen so far (a reshuffled card may come back)
            hidden = {card for seat in (1, 2) for card in state.hands[seat]} - public
            text = text_of(app)
            shown = [card_label(card) for card in hidden if card_label(card) in text]
            assert not shown, f"step {n}: {shown} of another seat's hand on screen"
            own_seen += sum(card_label(card) in text for card in view.hand)
        assert own_seen > replay.steps  # the check can see cards: Ann's own are on screen


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_following_another_seat_shows_its_hand_and_the_public_view_shows_none(tmp_path, language):
    set_language(language)
    replay = seven_replay(seed=9)
    app = make_room(REGISTRY, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_replay(pilot, app, replay)
        for _ in range(12):
            await pilot.press("right")
        await pilot.pause()
        state = replay.state_at(12)
        assert any(card_label(card) in text_of(app) for card in state.hands[0])
        await pilot.press("v")
        await pilot.pause()
        assert replay.follow == 1 and screen.view_seat == 1
        text = text_of(app)
        assert screen.viewpoint_name(1) in text  # the title says whose view
        assert any(card_label(card) in text for card in state.hands[1])
        await pilot.press("v", "v")
        await pilot.pause()
        assert replay.follow == OBSERVER
        text = text_of(app)
        pile = set(replay.view_at(12, OBSERVER).played) | {replay.view_at(12, OBSERVER).top}
        for seat in (0, 1, 2):
            assert not [card_label(c) for c in state.hands[seat] if c not in pile and card_label(c) in text]
        await pilot.press("v")
        await pilot.pause()
        assert replay.follow == 0


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_home_end_and_space_step_and_moves_are_refused(tmp_path, language, monkeypatch):
    set_language(language)
    monkeypatch.setattr(replay_module, "PLAY_INTERVAL", 0.1)
    replay = seven_replay()
    app = make_room(REGISTRY, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_replay(pilot, app, replay)
        await pilot.press("end")
        await pilot.pause()
        assert replay.position == replay.steps and screen.match.over
        assert not [s for s in app.screen_stack if type(s).__name__ == "ResultDialog"]  # no end dialog
        await pilot.press("home")
        await pilot.pause()
        assert replay.position == 0
        await pilot.press("space")
        assert screen._replay_playing
        for _ in range(200):
            await pilot.pause(0.02)
            if replay.position >= 3:
                break
        assert 3 <= replay.position < replay.steps  # playing (5 s to the end: far from it)
        await pilot.press("space")
        assert not screen._replay_playing
        stopped = replay.position
        await pilot.pause(0.3)
        assert replay.position == stopped  # paused
        refused = "再生" if language == "ja" else "replay"
        for key in ("d", "enter", "ctrl+s"):  # draw, Enter on a card of the hand, save
            await pilot.press(key)
            await pilot.pause()
            assert (key, replay.position, screen._replay_playing) == (key, stopped, False)
            assert len(screen.match.log) == stopped
            assert refused in text_of(app)
        await pilot.press("q")
        await pilot.pause()
        assert not isinstance(app.screen, ReplayBehaviour)


@pytest.mark.parametrize("language", ["en", "ja"])
@pytest.mark.parametrize("game_id", sorted(REGISTRY.games))
async def test_every_game_replays_on_its_own_screen_at_80x24_its_key_bar_offering_no_move_or_save(
    tmp_path, game_id, language
):
    """One room per game and language (opening a replay is most of the cost): the key bar right
    after opening, then the replay's keys."""
    from gamenight.widgets.key_bar import KeyBar

    set_language(language)
    game = REGISTRY.game(game_id)
    seats = [SeatConfig(f"P{n}", "random") for n in range(game.default_seats)]
    played = play_headless(game, seats, seed=3)
    replay = Replay(game, seats, {}, 3, 0, list(played.log))
    app = make_room(REGISTRY, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_replay(pilot, app, replay)
        assert isinstance(screen, type(game.screen(Match(game, seats, {}))))  # the game's own screen
        # the key bar offers the replay's keys, not moves or save
        bar = screen.query_one(KeyBar)
        str(bar.render())  # laid out at 80 columns: what the line shows
        shown = {entry.key for entry in bar._entries}
        assert {"left", "right", "space", "v", "l", "escape"} <= shown
        if language == "en" or game_id != "mille":  # Mille's Japanese "Leave" is wider: Home/End then drop
            assert {"home", "end"} <= shown
        assert "ctrl+s" not in shown
        refused = {key for key, active in screen.active_bindings.items() if active.binding.action == "save"}
        assert not refused
        moves = [key for key in shown if key not in {"left", "right", "space", "v", "l", "escape", "home", "end"}]
        assert set(moves) <= {"f1", "ctrl+p"}, moves  # no key of the game's that would play
        # the replay's keys step it, and its screen keeps to 80x24
        for key in ("right", "right", "end", "left", "home", "v", "l"):
            await pilot.press(key)
            await pilot.pause()
        assert replay.position == 0
        text = text_of(app)
        if language == "ja":
            assert "再生 · " in text and "手の記録" in text
        else:
            assert "Replay · " in text and "Moves" in text
        assert len(screen_text(app)) == 24 and all(len(line) <= 80 for line in screen_text(app))


async def test_gamenight_replay_opens_a_save_and_refuses_a_bad_one(tmp_path, capsys):
    from gamenight.cli import main

    set_language("en")
    game = REGISTRY.game("yatzy")
    whole = play_headless(game, [SeatConfig("A", "random"), SeatConfig("B", "random")], seed=1)
    match = Match(game, [SeatConfig("Ann"), SeatConfig("B", "random")], {}, seed=1)
    match.replay(whole.log[:40], check_chance=True)
    path = save_match(match, tmp_path / "y.toml")
    app = make_room(REGISTRY, tmp_path, start_replay=path)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(100):
            await pilot.pause(0.01)
            if isinstance(app.screen, ReplayBehaviour):
                break
        assert isinstance(app.screen, ReplayBehaviour)
        assert app.screen.replay.steps == 40 and app.screen.replay.follow == 0
    path.write_text(path.read_text().replace('plugin_version = "1"', 'plugin_version = "7"'))
    assert main(["replay", str(path)]) == 1
    assert "newer than the installed 1" in capsys.readouterr().err


@pytest.mark.parametrize(("language", "how"), [("en", "r"), ("ja", "click")])
async def test_a_past_game_in_the_records_opens_as_a_replay(nim_registry, config, tmp_path, language, how):
    from tests.core.records.test_records_screen import make_app, play_a_game_then_open_the_records

    set_language(language)
    match = Match(nim_registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "perfect")], {"sticks": 5})
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await play_a_game_then_open_the_records(pilot, app)
        if how == "r":
            await pilot.press("r")
        else:
            await pilot.click("#past", offset=(3, 1))  # the first past game: selected, as Enter does
        for _ in range(200):
            await pilot.pause(0.02)
            if isinstance(app.screen, ReplayBehaviour):
                break
        screen = app.screen
        assert isinstance(screen, ReplayBehaviour)
        replay = screen.replay
        assert [(entry.seat, entry.action) for entry in replay.entries] == [(0, "1"), (1, "1"), (0, "3")]
        assert replay.follow == 0  # as played: Ann 1, Bob 1, Ann takes the last three
        await pilot.press("end")
        await pilot.pause()
        assert screen.match.over and replay.state_at(replay.steps) == replay.step(replay.steps)._state
        assert ("再生" if language == "ja" else "Replay") in text_of(app)


async def test_a_record_of_a_newer_plugin_is_not_replayed_and_says_why(nim_registry, config, tmp_path):
    import dataclasses

    from gamenight.records.store import RecordsStore, record_from_match

    from tests.core.records.test_records_screen import make_app, until_shown

    set_language("en")
    game = nim_registry.game("nim")
    played = play_headless(game, [SeatConfig("Ann", "perfect"), SeatConfig("Bob", "perfect")], {"sticks": 5})
    store = RecordsStore.open(tmp_path / "records.sqlite3")
    store.add(dataclasses.replace(record_from_match(played), plugin_version="99"))
    store.close()
    app = make_app(nim_registry, config, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await until_shown(pilot, app.screen)
        await pilot.press("r")
        said: list[str] = []
        for _ in range(100):
            await pilot.pause(0.02)
            said = [notice.message for notice in app._notifications]
            if said:
                break
        assert any("newer than the installed" in message for message in said), said
        assert not isinstance(app.screen, ReplayBehaviour)


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_the_public_view_shows_every_seats_count_and_no_hand_as_a_watcher_sees_it(tmp_path, language):
    from gamenight_seven.widgets import HandView, SeatPanel

    set_language(language)
    replay = seven_replay(seed=4)
    app = make_room(REGISTRY, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_replay(pilot, app, replay)
        await pilot.press("right", "right", "right")
        while replay.follow != OBSERVER:
            await pilot.press("v")
        await pilot.pause()
        view = replay.view_at(3, OBSERVER)
        assert not screen.query_one(HandView).display  # no hand, no Draw row: the public view holds none
        panels = {panel.seat: panel for panel in screen.query(SeatPanel)}
        assert all(panels[seat].display for seat in range(3))  # seat 1 too, with its real count
        text = text_of(app)
        count = screen._count_text(view.hand_sizes[0])
        assert view.hand_sizes[0] > 0 and count in text
        assert screen._count_text(0) not in text
        assert screen.watching
        await pilot.press("v")  # back to seat 1: its own hand again
        await pilot.pause()
        assert not screen.watching and screen.query_one(HandView).display


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_return_on_the_past_games_replays_without_an_arrow_first(nim_registry, config, tmp_path, language):
    from textual.widgets import OptionList

    from tests.core.records.test_records_screen import make_app, play_a_game_then_open_the_records

    set_language(language)
    match = Match(nim_registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "perfect")], {"sticks": 5})
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await play_a_game_then_open_the_records(pilot, app)
        past = screen.query_one("#past", OptionList)
        for _ in range(4):  # Tab to the past games, as a newcomer does
            if app.focused is past:
                break
            await pilot.press("tab")
        assert app.focused is past
        await pilot.press("enter")
        for _ in range(200):
            await pilot.pause(0.02)
            if isinstance(app.screen, ReplayBehaviour):
                break
        assert isinstance(app.screen, ReplayBehaviour)
        assert [(entry.seat, entry.action) for entry in app.screen.replay.entries] == [(0, "1"), (1, "1"), (0, "3")]


async def test_the_move_log_at_80_columns_takes_the_tables_place_not_squeezing_it(tmp_path):
    game = REGISTRY.game("yatzy")
    seats = [SeatConfig("Ann", "random"), SeatConfig("Bob", "random")]
    played = play_headless(game, seats, seed=3)
    replay = Replay(game, seats, {}, 3, 0, list(played.log))
    app = make_room(REGISTRY, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_replay(pilot, app, replay)
        await pilot.press("right", "right", "right")
        sheet = screen.query_one("#sheet-scroll")
        before = sheet.region
        await pilot.press("l")
        await pilot.pause()
        assert "Moves" in text_of(app) and "3. Ann: Keeps 6 4 4 and rolls 2 dice." in text_of(app)
        assert not screen.query_one("#replay-table").display or sheet.region == before  # never squeezed
        await pilot.press("right", "l")  # a step on, then the table again
        await pilot.pause()
        assert sheet.region == before  # Yatzy's sheet at its own width: the scores in view
        assert "Ann    Bob" in text_of(app) and "Moves" not in text_of(app)


async def test_a_games_screen_knows_it_shows_a_replay(tmp_path):
    """``GameScreen.in_replay``: the game's own screen under the replay viewer says so; at a table it does not."""
    from gamenight.sdk import GameScreen

    app = make_room(REGISTRY, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_replay(pilot, app, seven_replay())
        assert isinstance(screen, GameScreen) and screen.in_replay
    game = REGISTRY.game("seven")
    local = Match(game, [SeatConfig("Ann"), SeatConfig("Bot", "random")], {}, seed=1)
    assert not game.screen(local).in_replay


@pytest.mark.parametrize("language", ["en", "ja"])
@pytest.mark.parametrize(("game_id", "hint"), [("yatzy", "#keys-help"), ("lits", "#hint")])
async def test_a_replay_shows_no_help_line_of_the_games_own_keys(tmp_path, game_id, hint, language):
    """Yatzy's "Space roll · 1-5 hold" and LITS' "Return place" sat beside a replay whose Space plays
    it on (and whose moves are refused): the replay's keys are in its key bar."""
    set_language(language)
    game = REGISTRY.game(game_id)
    seats = [SeatConfig(f"P{n}", "random") for n in range(game.default_seats)]
    played = play_headless(game, seats, seed=3)
    app = make_room(REGISTRY, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_replay(pilot, app, Replay(game, seats, {}, 3, 0, list(played.log)))
        await pilot.press("right", "right", "right")
        await pilot.pause()
        assert str(screen.query_one(hint).render()).strip() == ""
    set_language("en")
