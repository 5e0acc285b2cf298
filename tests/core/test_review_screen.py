"""The review screen, played like a player at 80×24 in English and Japanese: from the end
dialog of a local game, from the records screen and from the replay viewer."""

from __future__ import annotations

import random
import threading

import pytest
from gamenight.coach import review
from gamenight.dialogs import ResultDialog
from gamenight.i18n import set_language
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.replay import Replay
from gamenight.screens.lobby_screen import LobbyScreen
from gamenight.screens.replay_screen import ReplayBehaviour
from gamenight.sdk import CHANCE, Advice, BotContext
from gamenight.sdk.testing import make_room
from gamenight.testing import settle
from gamenight.ui import review_screen as review_module
from gamenight.ui.coach_text import cost_text
from gamenight.ui.review_screen import ReviewScreen
from textual.widgets import OptionList, ProgressBar

from tests.core.tour import screen_text

REGISTRY = load_registry()


def finished_yatzy(seed: int = 5) -> Match:
    """A finished Yatzy game: Ann (who plays as the greedy bot would: some costly choices) against the optimum."""
    game = REGISTRY.game("yatzy")
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bot", "optimal")], {}, seed=seed)
    person = game.bot("greedy").factory(game.rules, 0, match.options)
    while not match.over:
        if match.to_move() == CHANCE:
            match.apply_chance()
        elif match.human_to_move():
            match.apply(
                person.choose(match.view(0), match.legal_actions(), BotContext(0, random.Random(len(match.log))))
            )
        else:
            match.apply(match.bot_choice())
    return match


def text_of(app) -> str:
    return "\n".join(screen_text(app))


def notices(app) -> list[str]:
    return [str(notice.message) for notice in app._notifications]


def fits(app) -> None:
    lines = screen_text(app)
    assert len(lines) == 24 and all(len(line) <= 80 for line in lines)


async def until_reviewed(pilot, app) -> ReviewScreen:
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    for _ in range(3000):
        await pilot.pause(0.01)
        if screen.result is not None or screen.error:
            break
    await pilot.pause()
    assert screen.result is not None, screen.error
    return screen


def highlighted_row(screen: ReviewScreen) -> int:
    return screen.query_one("#review-list", OptionList).highlighted


async def check_review(pilot, app, screen: ReviewScreen, expected, language: str) -> None:
    """The list is the coach's review of the same game: its decisions, their costs, the jump keys."""
    decisions = screen.query_one("#review-list", OptionList)
    assert decisions.option_count == len(expected.decisions) > 0
    assert screen.result.decisions == expected.decisions  # the same figures as gamenight.coach.review
    unit = expected.unit
    for index, decision in enumerate(expected.decisions):
        prompt = str(decisions.get_option_at_index(index).prompt)
        best = Advice(decision.best_action, decision.best_value)
        cost = cost_text(unit, best, Advice(decision.action, decision.value), str)
        assert prompt.startswith(f"{decision.number}. Ann: {decision.text}")
        assert cost in prompt
        if decision.cost > 0:
            assert decision.best_text in prompt
    (seat,) = expected.seats
    text = text_of(app)
    assert f"{seat.accuracy:.1f}%" in text
    assert f"{seat.cost:.1f}" in text  # the total cost, in points
    assert ("accuracy" in text) == (language == "en") and ("精度" in text) == (language == "ja")
    fits(app)
    costliest = expected.costliest(3)
    assert len(costliest) == 3
    await pilot.press("n")
    assert highlighted_row(screen) == expected.decisions.index(costliest[0])
    assert f"{costliest[0].cost:.1f}" in text_of(app) and costliest[0].best_text in text_of(app)
    await pilot.press("n")
    assert highlighted_row(screen) == expected.decisions.index(costliest[1])
    await pilot.press("p")
    assert highlighted_row(screen) == expected.decisions.index(costliest[0])


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_the_end_dialog_reviews_the_game_just_played(tmp_path, language):
    set_language(language)
    match = finished_yatzy()
    expected = review(REGISTRY, match)
    app = make_room(REGISTRY, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ResultDialog)
        assert ("e Review" in text_of(app)) == (language == "en")  # in the key bar
        assert ("e 振り返り" in text_of(app)) == (language == "ja")
        fits(app)
        await pilot.press("e")
        screen = await until_reviewed(pilot, app)
        await check_review(pilot, app, screen, expected, language)
        assert not match.coached  # review is after the game: it marks nothing
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ResultDialog)  # back to the result, its choices still there
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)


async def test_the_review_shows_progress_then_the_list(tmp_path, monkeypatch):
    """Held after its first decision, the screen shows the progress bar and no list; then the list."""
    set_language("en")
    match = finished_yatzy()
    gate = threading.Event()
    real = review_module.review

    def held(registry, source, progress=None, **kwargs):
        def told(done, total):
            progress(done, total)
            if done == 1:
                gate.wait(10)

        return real(registry, source, progress=told, **kwargs)

    monkeypatch.setattr(review_module, "review", held)
    app = make_room(REGISTRY, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = ReviewScreen(match, REGISTRY)
        app.push_screen(screen)
        await pilot.pause()
        bar = screen.query_one("#review-progress", ProgressBar)
        for _ in range(300):
            await pilot.pause(0.01)
            if bar.progress:
                break
        assert bar.display and bar.progress == 1 and bar.total == 51
        assert not screen.query_one("#review-list", OptionList).display
        assert "The coach is going through the game…" in text_of(app)
        gate.set()
        screen = await until_reviewed(pilot, app)
        assert not bar.display and screen.query_one("#review-list", OptionList).display


async def test_closing_the_screen_cancels_the_review(tmp_path, monkeypatch):
    set_language("en")
    match = finished_yatzy()
    gate = threading.Event()
    told: list[int] = []
    real = review_module.review

    def held(registry, source, progress=None, **kwargs):
        def tell(done, total):
            told.append(done)
            if done == 1:
                gate.wait(10)
            progress(done, total)

        return real(registry, source, progress=tell, **kwargs)

    monkeypatch.setattr(review_module, "review", held)
    app = make_room(REGISTRY, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = ReviewScreen(match, REGISTRY)
        app.push_screen(screen)
        for _ in range(300):
            await pilot.pause(0.01)
            if told:
                break
        (worker,) = [worker for worker in app.workers if worker.group == "review"]
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ReviewScreen) and worker.is_cancelled
        gate.set()
        await settle(pilot)
        assert told == [1]  # it stopped at once, not after all 51 decisions
        assert screen.result is None


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_the_replay_viewer_reviews_its_game(tmp_path, language):
    set_language(language)
    match = finished_yatzy(seed=8)
    replay = Replay(match.game, list(match.seats), {}, match.seed, 0, list(match.log))
    expected = review(REGISTRY, replay)
    app = make_room(REGISTRY, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_replay(replay)
        for _ in range(100):
            await pilot.pause(0.01)
            if isinstance(app.screen, ReplayBehaviour) and app.screen.is_mounted:
                break
        await pilot.pause()
        viewer = app.screen
        assert isinstance(viewer, ReplayBehaviour)
        assert viewer.active_bindings["e"].binding.action == "replay_review"  # in the palette too
        await pilot.press("e")
        screen = await until_reviewed(pilot, app)
        await check_review(pilot, app, screen, expected, language)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is viewer


async def test_a_game_without_a_coach_says_so_in_the_replay_viewer(tmp_path, nim_registry):
    set_language("en")
    game = nim_registry.game("nim")
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bob", "perfect")], {"sticks": 5}, seed=3)
    match.apply("1")
    replay = Replay(game, list(match.seats), dict(match.options), match.seed, 0, list(match.log))
    app = make_room(nim_registry, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_replay(replay)
        for _ in range(100):
            await pilot.pause(0.01)
            if isinstance(app.screen, ReplayBehaviour) and app.screen.is_mounted:
                break
        viewer = app.screen
        await pilot.press("e")
        await pilot.pause()
        assert app.screen is viewer
        assert "has no coach, so there is nothing to review." in text_of(app)


async def open_records(pilot, app):
    from gamenight.screens.records_screen import RecordsScreen

    await pilot.press("c")
    screen = app.screen
    assert isinstance(screen, RecordsScreen)
    for _ in range(300):
        await pilot.pause(0.01)
        if screen.loaded and screen.query_one("#past", OptionList).option_count:
            break
    await pilot.pause()
    return screen


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_the_records_screen_reviews_a_past_game(tmp_path, language):
    set_language(language)
    match = finished_yatzy(seed=11)
    expected = review(REGISTRY, match)
    app = make_room(REGISTRY, tmp_path, start_match=match, records_path=tmp_path / "records.sqlite3")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("l")  # the end dialog: leave, the game recorded
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        records = await open_records(pilot, app)
        assert ("e Review" in text_of(app)) == (language == "en")  # the key in the key bar
        await pilot.press("e")
        for _ in range(300):
            await pilot.pause(0.01)
            if isinstance(app.screen, ReviewScreen):
                break
        screen = await until_reviewed(pilot, app)
        await check_review(pilot, app, screen, expected, language)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is records


async def test_a_game_without_a_coach_says_so_in_the_records_screen(tmp_path, nim_registry):
    set_language("en")
    match = Match(nim_registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "perfect")], {"sticks": 5}, seed=3)
    while not match.over:
        match.apply(match.bot_choice() if not match.human_to_move() else match.legal_actions()[0])
    app = make_room(nim_registry, tmp_path, start_match=match, records_path=tmp_path / "records.sqlite3")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        records = await open_records(pilot, app)
        await pilot.press("e")
        said = "Nim has no coach, so there is nothing to review."
        for _ in range(300):
            await pilot.pause(0.01)
            if said in notices(app):
                break
        assert app.screen is records
        assert said in notices(app)


async def test_a_game_without_a_coach_says_so_at_the_end_dialog(tmp_path, nim_registry):
    set_language("en")
    match = Match(nim_registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "perfect")], {"sticks": 5}, seed=3)
    while not match.over:
        match.apply(match.bot_choice() if not match.human_to_move() else match.legal_actions()[0])
    app = make_room(nim_registry, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ResultDialog)
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, ResultDialog)  # the result again, its choices still there
        assert "Nim has no coach, so there is nothing to review." in notices(app)


def test_the_review_screen_snapshot(snap_compare, tmp_path):
    """The review of a finished Yatzy game at 80×24, on its costliest decision."""
    set_language("en")
    match = finished_yatzy()

    async def review_it(pilot):
        await settle(pilot)
        await pilot.press("e")
        await until_reviewed(pilot, pilot.app)
        await pilot.press("n")
        await pilot.pause()

    app = make_room(REGISTRY, tmp_path, start_match=match, theme_name="gamenight")
    assert snap_compare(app, run_before=review_it, terminal_size=(80, 24))
