"""The coach at a local table: the hint panel (``?``), its cost line, the warning before a costly
move, the ``[coach]`` setting, no hints where games count for everyone, and "coached" games.

Driven with real key presses at 80×24, with two advisors: the example plugin's Goofspiel coach
(a third-party game with no coach code in its screen but two optional hooks) and a Nim coach
defined here (a game whose screen knows nothing of the coach at all).
"""

from __future__ import annotations

import dataclasses
import sys
import threading
from pathlib import Path

import pytest
from gamenight.config import CoachSettings, Config
from gamenight.dialogs import YesNoDialog
from gamenight.i18n import set_language
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.records.store import RecordsStore
from gamenight.records.text import past_game_text
from gamenight.saves import load_match, save_match
from gamenight.sdk import Advice, AdviceUnit, AdvisorSpec, hookimpl
from gamenight.sdk.testing import make_room, wait_for_bots
from gamenight.ui.coach import CoachPanel
from gamenight.ui.coach_text import checked_advice, cost_text, costly, value_text, warning_text

from tests.core.nim import NIM, NimPlugin

EXAMPLE_SRC = Path(__file__).resolve().parents[2] / "examples" / "gamenight-example" / "src"
if str(EXAMPLE_SRC) not in sys.path:
    sys.path.append(str(EXAMPLE_SRC))

import gamenight_example.plugin as example  # noqa: E402  (the example's source, as tests/core/real_saves.py)

OUTCOME = AdviceUnit("outcome", "outcome with perfect play")


class NimAdvisor:
    """Exact: leaving a multiple of four wins. Counts its calls; can be held until released."""

    calls = 0
    gate: threading.Event | None = None

    def advise(self, view, legal, ctx):
        type(self).calls += 1
        if self.gate is not None:
            while not self.gate.wait(0.01):
                if ctx.should_stop():
                    break
        wins = [(view["sticks"] - int(action)) % 4 == 0 for action in legal]
        advice = [
            Advice(a, 1.0 if won else 0.0, label="win" if won else "loss") for a, won in zip(legal, wins, strict=True)
        ]
        return sorted(advice, key=lambda entry: -entry.value)


COACHED_NIM = dataclasses.replace(NIM, advisor=AdvisorSpec(lambda rules, seat, options: NimAdvisor(), OUTCOME))


class CoachedNimPlugin:
    @hookimpl
    def register_games(self, register):
        register(COACHED_NIM)


@pytest.fixture
def nim():
    NimAdvisor.calls = 0
    NimAdvisor.gate = None
    return load_registry(extra_plugins={"nim": CoachedNimPlugin()}, entry_points=[])


@pytest.fixture(scope="module")
def goofspiel_registry():
    return load_registry(extra_plugins={"gamenight-example": example}, entry_points=[])


def write_config(folder: Path, text: str) -> None:
    (folder / "config.toml").write_text(text, encoding="utf-8")


def panel_text(app) -> str:
    panel = app.screen.query_one(CoachPanel)
    return "\n".join(str(widget.render()) for widget in panel.query("Static") if widget.display)


async def until(pilot, condition, rounds: int = 1500) -> None:
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError("the condition never held")


def goofspiel_match(registry, **options) -> Match:
    return Match(registry.game("goofspiel"), [SeatConfig("Kei"), SeatConfig("Bot", "matcher")], options, seed=2)


# -- the figures in words ------------------------------------------------------------------


def test_values_and_costs_are_printed_in_the_units_own_figures():
    t = lambda text, **params: text.format(**params)  # noqa: E731
    points = AdviceUnit("points", "expected final score", digits=1)
    best, worse = Advice("a", 231.44), Advice("b", 227.2)
    assert (value_text(points, best, t), cost_text(points, best, best, t)) == ("231.4", "best")
    assert cost_text(points, best, worse, t) == "\u22124.2"
    assert value_text(points, Advice("c", -0.04), t) == "0.0"  # no "−0.0"
    chance = AdviceUnit("chance", "chance to win the game", digits=3)
    assert value_text(chance, Advice("a", 0.625), t) == "62.5%"
    assert cost_text(chance, Advice("a", 0.625), Advice("b", 0.5), t) == "\u221212.5%"
    win, draw = Advice("a", 1.0, label="win in {moves}", params={"moves": 3}), Advice("b", 0.5, label="draw")
    assert (value_text(OUTCOME, win, t), cost_text(OUTCOME, win, draw, t)) == ("win in 3", "draw")
    assert warning_text(points, best, worse, "Chance", t) == "Are you sure? Best was Chance (\u22124.2 points)."


def test_a_costly_move_is_one_past_its_units_threshold():
    settings = CoachSettings(mode="warn", warn_points=2.0, warn_chance=5.0)
    points, chance = AdviceUnit("points", "p"), AdviceUnit("chance", "c")
    assert costly(points, Advice("a", 10.0), Advice("b", 7.9), settings)
    assert not costly(points, Advice("a", 10.0), Advice("b", 8.1), settings)
    assert costly(chance, Advice("a", 0.60), Advice("b", 0.55), settings)
    assert not costly(chance, Advice("a", 0.60), Advice("b", 0.56), settings)
    assert costly(OUTCOME, Advice("a", 1.0), Advice("b", 0.5), settings)
    assert not costly(OUTCOME, Advice("a", 1.0), Advice("b", 1.0), settings)


def test_an_advisors_answer_is_kept_to_legal_actions_with_finite_values_best_first():
    answer = [
        Advice("1", 0.2),
        Advice("9", 5.0),  # not legal
        Advice("2", float("nan")),
        "3",  # not an Advice
        Advice("3", 0.7),
        Advice("1", 9.0),  # the same action again: the first one counts
        Advice("2", True),  # a bool is no number
    ]
    assert [(a.action, a.value) for a in checked_advice(answer, ["1", "2", "3"])] == [("3", 0.7), ("1", 0.2)]
    assert checked_advice(None, ["1"]) == []


# -- the setting ---------------------------------------------------------------------------


def test_the_coach_setting_is_checked_read_and_written_keeping_the_files_style(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('# mine\n[coach]\nmode = "loud"  # a typo\nwarn_points = 3\nwarn_chance = -1\n', encoding="utf-8")
    config = Config.load(path)
    assert config.coach == CoachSettings(mode="off", warn_points=3.0, warn_chance=5.0)
    assert any("[coach] mode" in warning for warning in config.warnings)
    assert any("[coach] warn_chance" in warning for warning in config.warnings)
    with pytest.raises(ValueError):
        config.set_coach("mode", "sometimes")
    config.set_coach("mode", "warn")
    config.save()
    text = path.read_text(encoding="utf-8")
    assert text.startswith('# mine\n[coach]\nmode = "warn"  # a typo\nwarn_points = 3\n'), text
    assert Config.load(path).coach.mode == "warn"


async def test_the_settings_screen_saves_the_coach_mode(nim, tmp_path):
    app = make_room(nim, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_settings()
        await pilot.pause()
        from textual.widgets import Select

        app.screen.query_one("#coach-mode", Select).value = "always"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert Config.load(tmp_path / "config.toml").coach.mode == "always"
    assert app.config.coach.mode == "always"  # the room's next table follows it at once


async def test_the_settings_screen_refuses_a_threshold_that_is_not_a_number_from_0_to_100(nim, tmp_path):
    app = make_room(nim, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_settings()
        await pilot.pause()
        from textual.widgets import Input

        points = app.screen.query_one("#warn-points", Input)
        points.value = "250"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "from 0 to 100" in str(app.screen.query_one("#settings-message").render())
        assert not (tmp_path / "config.toml").exists()
        points.value = "3.5"
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert Config.load(tmp_path / "config.toml").coach == CoachSettings(mode="off", warn_points=3.5)


# -- the hint panel ------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_the_hint_key_shows_the_best_choices_with_values_and_costs(goofspiel_registry, tmp_path, language):
    set_language(language)
    match = goofspiel_match(goofspiel_registry)
    app = make_room(goofspiel_registry, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        screen = app.screen
        assert not screen.query_one(CoachPanel).display and not match.coached
        await pilot.press("question_mark")
        await until(pilot, lambda: "best" in panel_text(app) or "最善" in panel_text(app))
        text = panel_text(app)
        bid_word = "入札" if language == "ja" else "Bid"
        assert f"1 {bid_word}" in text or "1 A" in text, text
        assert "\u2212" in text  # the costs of the worse bids
        assert match.coached  # a hint was shown: the game is coached
        # The cursor (→) puts a bid under it: the last line says what that one costs.
        await pilot.press("right", "right")
        assert screen.highlighted_action() == "bid:2"

        def cost_line() -> str:
            return str(screen.query_one("#coach-cost").render())

        await until(pilot, lambda: screen.describe_choice("bid:2") in cost_line())
        line = cost_line()
        assert ("Your choice" in line or "あなたの選択" in line) and "\u2212" in line, line
        await pilot.press("right")
        await until(pilot, lambda: screen.describe_choice("bid:3") in str(screen.query_one("#coach-cost").render()))
        # Hidden again with ?; shown again from the cache: the advisor was asked once for this position.
        computed = screen.coach.computed
        await pilot.press("question_mark")
        assert not screen.query_one(CoachPanel).display
        await pilot.press("question_mark")
        await pilot.pause()
        assert screen.coach.computed == computed == 1


async def test_the_hint_is_in_the_command_palette_and_runs_the_coach(nim, tmp_path):
    match = Match(nim.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {"sticks": 10}, seed=1)
    app = make_room(nim, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        [hint] = [command for command in app.get_system_commands(app.screen) if command.title == "Hint (?)"]
        assert "best choices" in hint.help
        await hint.callback()
        await until(pilot, lambda: "best" in panel_text(app))


async def test_a_game_whose_screen_knows_nothing_of_the_coach_gets_the_panel(nim, tmp_path):
    match = Match(nim.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {"sticks": 10}, seed=1)
    app = make_room(nim, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: "best" in panel_text(app))
        unit, *lines = panel_text(app).splitlines()
        assert unit == "outcome with perfect play"
        assert "seat 1 takes 2" in lines[0] and "win" in lines[0] and "best" in lines[0], lines
        assert any("seat 1 takes 1" in line and "loss" in line for line in lines), lines
        assert "Best: seat 1 takes 2" in panel_text(app)  # no cursor to follow: the best is on the last line


class NimChoiceRules(type(NIM.rules)):  # type: ignore[misc]
    """Nim whose rules name an action as a choice (SDK 1.4), as the log does not."""

    def describe_choice(self, state, action, seat):
        return f"Take {action}"


async def test_the_panel_lists_the_rules_words_for_a_choice_where_the_game_has_them(tmp_path):
    """``Rules.describe_choice`` (SDK 1.4) names each choice; a game without it gets its log sentence
    (the test above): the same panel, no screen code."""
    game = dataclasses.replace(COACHED_NIM, rules=NimChoiceRules())

    class Plugin:
        @hookimpl
        def register_games(self, register):
            register(game)

    registry = load_registry(extra_plugins={"nim": Plugin()}, entry_points=[])
    match = Match(registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {"sticks": 10}, seed=1)
    app = make_room(registry, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: "best" in panel_text(app))
        _unit, *lines = panel_text(app).splitlines()
        assert lines[0].startswith("1 Take 2 ") and "takes" not in panel_text(app), lines
        assert "Best: Take 2" in panel_text(app)


async def test_advice_for_a_position_the_game_has_left_is_cancelled_and_never_shown(nim, tmp_path):
    NimAdvisor.gate = threading.Event()
    match = Match(nim.game("nim"), [SeatConfig("Ann"), SeatConfig("Ben")], {"sticks": 10}, seed=1)
    app = make_room(nim, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        await pilot.press("question_mark")
        await until(pilot, lambda: NimAdvisor.calls == 1)
        assert "thinking" in panel_text(app)
        await pilot.press("2")  # Ann moves while the coach thinks: Ben's turn, after the hand-over
        await pilot.pause()
        assert screen.coach.computing is None and not screen.query_one(CoachPanel).display
        await pilot.press("enter")  # Ben has the keyboard
        await pilot.pause(0.1)
        assert NimAdvisor.calls == 1  # Ann asked, not Ben: nothing is readied for his turn
        await pilot.press("question_mark")
        await until(pilot, lambda: NimAdvisor.calls == 2)
        NimAdvisor.gate.set()
        await until(pilot, lambda: "best" in panel_text(app) and screen.coach.cache)
        assert list(screen.coach.cache) == [(0, 1, 1)]  # only Ben's position: Ann's was cancelled
        assert "seat 2 takes" in panel_text(app)


# -- the warning before a costly move --------------------------------------------------------


@pytest.mark.parametrize(("answer", "language"), [("y", "en"), ("n", "en"), ("y", "ja"), ("n", "ja")])
async def test_in_warn_mode_a_costly_move_asks_first_and_only_yes_makes_it(nim, tmp_path, answer, language):
    set_language(language)
    write_config(tmp_path, '[coach]\nmode = "warn"\n')
    match = Match(nim.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {"sticks": 10}, seed=1)
    app = make_room(nim, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        await pilot.press("1")  # leaves 9: a loss against perfect play, where taking 2 wins
        await until(pilot, lambda: isinstance(app.screen, YesNoDialog))
        question = str(app.screen.query_one("#question").render())
        expected = {
            "en": "Are you sure? Best was seat 1 takes 2 (loss instead of win).",
            "ja": "本当にこの手でいいですか? 最善は seat 1 takes 2 でした (win ではなく loss)。",  # Nim: English words
        }
        assert expected[language] in question, question
        assert match.log == [] and match.coached
        await pilot.press(answer)
        await wait_for_bots(pilot)
        assert [entry.action for entry in match.log][:1] == (["1"] if answer == "y" else [])
        assert not app.screen.query_one(CoachPanel).display  # a warning shows no panel


async def test_in_warn_mode_the_best_move_is_made_without_a_question(nim, tmp_path):
    write_config(tmp_path, '[coach]\nmode = "warn"\n')
    match = Match(nim.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {"sticks": 10}, seed=1)
    app = make_room(nim, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        await pilot.press("2")
        await wait_for_bots(pilot)
        assert match.log[0].action == "2" and not isinstance(app.screen, YesNoDialog)
        assert not match.coached  # nothing was shown


async def test_in_always_mode_the_panel_opens_on_every_turn(nim, tmp_path):
    write_config(tmp_path, '[coach]\nmode = "always"\n')
    match = Match(nim.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {"sticks": 10}, seed=1)
    app = make_room(nim, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        await until(pilot, lambda: "best" in panel_text(app))
        await pilot.press("2")
        await wait_for_bots(pilot)
        await until(pilot, lambda: "seat 1 takes" in panel_text(app) and len(match.log) == 2)
        assert app.screen.coach.computed == 2


class Failing:
    def advise(self, view, legal, ctx):
        raise RuntimeError("no idea")


def nim_with(spec: AdvisorSpec):
    class Plugin:
        @hookimpl
        def register_games(self, register):
            register(dataclasses.replace(NIM, advisor=spec))

    return load_registry(extra_plugins={"nim": Plugin()}, entry_points=[])


async def test_an_advisor_that_fails_is_said_and_holds_up_no_move(tmp_path):
    write_config(tmp_path, '[coach]\nmode = "warn"\n')
    registry = nim_with(AdvisorSpec(lambda rules, seat, options: Failing(), OUTCOME))
    match = Match(registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {"sticks": 10}, seed=1)
    app = make_room(registry, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        await pilot.press("1")
        await until(pilot, lambda: len(match.log) >= 1)
        assert match.log[0].action == "1" and not match.coached
        await pilot.press("question_mark")
        await until(
            pilot, lambda: "The coach failed: RuntimeError: no idea" in str(app.screen.query_one("#message").render())
        )
        assert app.is_running


class Sampled:
    def advise(self, view, legal, ctx):
        return [Advice(action, 0.5 - 0.1 * int(action), samples=400) for action in legal]


async def test_a_search_advisors_sample_count_is_said_with_its_unit(tmp_path):
    registry = nim_with(AdvisorSpec(lambda rules, seat, options: Sampled(), AdviceUnit("chance", "chance to win")))
    match = Match(registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {"sticks": 10}, seed=1)
    app = make_room(registry, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: "best" in panel_text(app))
        unit, first, second, *_rest = panel_text(app).splitlines()
        assert unit == "chance to win · from 400 samples"
        assert first.endswith("40%  best") and second.endswith("30%  \u221210%"), (first, second)


class OneSample:
    def advise(self, view, legal, ctx):
        return [Advice(action, 1.0 - 0.5 * int(action), samples=1) for action in legal]


@pytest.mark.parametrize(("language", "said"), [("en", "from 1 sample"), ("ja", "1 回の試行から")])
async def test_one_sample_is_said_in_the_singular(tmp_path, language, said):
    """A search advisor that could afford one playout an action (LITS' opening): "from 1 sample"."""
    set_language(language)
    registry = nim_with(AdvisorSpec(lambda rules, seat, options: OneSample(), AdviceUnit("chance", "chance to win")))
    match = Match(registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {"sticks": 10}, seed=1)
    app = make_room(registry, tmp_path, start_match=match)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for_bots(pilot)
            await pilot.press("question_mark")
            await until(pilot, lambda: "best" in panel_text(app) or "最善" in panel_text(app))
            unit = panel_text(app).splitlines()[0]
            assert unit.endswith(said) and "samples" not in unit, unit
    finally:
        set_language("en")


class Refined:
    """A search advisor: a small budget ranks "1" first; the full budget, held until released, "2"."""

    budgets: list[float] = []
    release = threading.Event()

    def advise(self, view, legal, ctx):
        type(self).budgets.append(ctx.time_budget)
        full = ctx.time_budget > 1
        if full:
            while not self.release.wait(0.01):
                if ctx.should_stop():
                    break
        best = "2" if full else "1"
        ranked = [Advice(action, 0.6 if action == best else 0.2, samples=400 if full else 8) for action in legal]
        return sorted(ranked, key=lambda entry: -entry.value)


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_a_search_advisors_first_ranking_is_shown_at_once_then_refined_in_place(tmp_path, language):
    set_language(language)
    Refined.budgets, Refined.release = [], threading.Event()
    unit = AdviceUnit("chance", "chance to win")
    registry = nim_with(AdvisorSpec(lambda rules, seat, options: Refined(), unit))
    match = Match(registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {"sticks": 10}, seed=1)
    app = make_room(registry, tmp_path, start_match=match)
    refining = "精度を上げています" if language == "ja" else "refining"
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: refining in panel_text(app))
        unit_line, *lines = panel_text(app).splitlines()
        first = [line for line in lines if line.startswith("1 ")]
        assert "takes 1" in first[0] and " 8 " in f"{unit_line} ", (unit_line, first)  # "· from 8 samples"
        assert match.coached  # figures were shown: the game is coached
        assert app.screen.coach.cache == {}  # a first answer is never kept as the position's advice
        Refined.release.set()
        await until(pilot, lambda: refining not in panel_text(app) and " 400 " in f"{panel_text(app)} ")
        first = [line for line in panel_text(app).splitlines() if line.startswith("1 ")]
        assert "takes 2" in first[0], panel_text(app)
        assert Refined.budgets == [0.1, 2.0]  # one small budget, then the full one, for the one position


def exact_nim():
    NimAdvisor.calls, NimAdvisor.gate = 0, None
    return nim_with(AdvisorSpec(lambda rules, seat, options: NimAdvisor(), OUTCOME, exact=True))


async def test_an_exact_advisor_answers_once_with_no_first_ranking(tmp_path):
    nim = exact_nim()
    match = Match(nim.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {"sticks": 10}, seed=1)
    app = make_room(nim, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: "best" in panel_text(app))
        assert NimAdvisor.calls == 1 and "refining" not in panel_text(app)


async def test_once_asked_the_coach_readies_each_turns_advice_as_it_starts(tmp_path):
    nim = exact_nim()
    match = Match(nim.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {"sticks": 20}, seed=1)
    app = make_room(nim, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        coach = app.screen.coach
        await pilot.press("1")  # never asked: the coach computes nothing
        await wait_for_bots(pilot)
        assert NimAdvisor.calls == 0 and not match.coached
        await pilot.press("question_mark")
        await until(pilot, lambda: "best" in panel_text(app))
        await pilot.press("question_mark")  # hidden
        await pilot.press("1")
        await wait_for_bots(pilot)
        turn = coach.position()
        assert turn[1] == 4 and turn[2] == 0  # Ann's turn again
        await until(pilot, lambda: turn in coach.cache)  # computed as the turn started, no key pressed
        assert NimAdvisor.calls == 2
        await pilot.press("question_mark")  # shown at once, from the cache
        assert "best" in panel_text(app) and NimAdvisor.calls == 2


async def test_an_advisors_preparation_shows_its_progress_in_the_panel(tmp_path):
    halfway, go_on = threading.Event(), threading.Event()

    def prepare(options, progress):
        progress(0.5)
        halfway.set()
        go_on.wait(10)
        progress(1.0)

    registry = nim_with(AdvisorSpec(lambda rules, seat, options: NimAdvisor(), OUTCOME, prepare=prepare))
    match = Match(registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {"sticks": 10}, seed=1)
    app = make_room(registry, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: "The coach is thinking… 50%" in panel_text(app))
        await pilot.press("2")  # the game takes keys meanwhile
        go_on.set()
        await wait_for_bots(pilot)
        assert match.log[0].action == "2"


# -- fairness --------------------------------------------------------------------------------


async def test_no_hint_in_a_replay(nim, tmp_path):
    match = Match(nim.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {"sticks": 10}, seed=1)
    app = make_room(nim, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        screen = app.screen
        screen.match.replay = True  # as a ReplayTable says it
        await pilot.press("question_mark")
        await pilot.pause()
        assert not screen.query_one(CoachPanel).display and NimAdvisor.calls == 0
        assert "No hints in a replay." in str(screen.query_one("#message").render())


async def test_a_coached_game_is_saved_and_recorded_as_such_and_counts_for_no_rating(nim, tmp_path):
    match = Match(nim.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {"sticks": 3}, seed=1)
    app = make_room(nim, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: "best" in panel_text(app))
        saved = save_match(match, tmp_path / "coached.toml")
        assert load_match(nim, saved).coached
        await pilot.press("3")  # the last stick: Ann wins
        await wait_for_bots(pilot)
    store = RecordsStore.open()
    try:
        [record] = store.recent()
        assert record.coached and store.get(record.id).coached
        assert store.high_scores("nim") == [] and store.ratings("nim") == []
        assert store.hall_high_scores("nim") == []  # nor in a server's hall of fame
        assert "(coached)" in past_game_text(record, {}).plain  # the records' past games say so
        assert store.person_totals("nim", "Ann")[:2] == (1, 1.0)  # still a game played, and won
    finally:
        store.close()
    match.start_game()
    assert not match.coached  # the next game starts uncoached


# -- the panel as drawn ----------------------------------------------------------------------


def test_the_panel_at_80x24(snap_compare, goofspiel_registry, tmp_path):
    """The hint panel over the right of a third party's table, a bid under the cursor: the prize,
    the prizes to come and the hand stay in view."""
    match = goofspiel_match(goofspiel_registry)

    async def ask(pilot):
        await wait_for_bots(pilot)
        await pilot.press("question_mark", "right", "right")
        await until(pilot, lambda: "Bid 2" in str(pilot.app.screen.query_one("#coach-cost").render()))

    app = make_room(goofspiel_registry, tmp_path, start_match=match, theme_name="gamenight")
    assert snap_compare(app, run_before=ask, terminal_size=(80, 24))


@pytest.mark.parametrize("theme", ["gamenight", "gamenight-16", "gamenight-contrast", "example-dusk"])
async def test_the_panels_text_meets_wcag_aa_in_every_shipped_theme(goofspiel_registry, tmp_path, theme):
    """Every run of text inside the panel (its unit in muted italics, the list, the cost line and the
    reason) is at least 4.5:1 on the panel, measured as tests/core/test_contrast.py measures screens."""
    from rich.cells import cell_len

    from tests.core.contrast import AA, TANGO, XTERM, blend, contrast, is_text, rgb, screen_segments

    app = make_room(goofspiel_registry, tmp_path, start_match=goofspiel_match(goofspiel_registry), theme_name=theme)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        await pilot.press("question_mark", "right")
        await until(pilot, lambda: "Bid A" in str(app.screen.query_one("#coach-cost").render()))
        region = app.screen.query_one(CoachPanel).region
        palettes = [TANGO, XTERM] if app.current_theme.ansi else [app.ansi_theme]
        low = []
        for palette in palettes:
            for y, line in enumerate(screen_segments(app)):
                x = 0
                for segment in line:
                    start, x = x, x + (0 if segment.control else cell_len(segment.text))
                    if segment.control or segment.style is None or not is_text(segment.text):
                        continue
                    if not (region.x <= start < region.right and region.y <= y < region.bottom):
                        continue
                    style = segment.style
                    fg, bg = rgb(style.color, palette, True), rgb(style.bgcolor, palette, False)
                    if style.reverse:
                        fg, bg = bg, fg
                    if style.dim:
                        fg = blend(fg, bg, 0.5)
                    if contrast(fg, bg) < AA:
                        low.append((segment.text.strip(), round(contrast(fg, bg), 2)))
        assert not low, low


def test_a_save_whose_coached_field_is_not_true_or_false_is_refused(nim, tmp_path):
    from gamenight.saves import SaveError

    match = Match(nim.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {"sticks": 10}, seed=1)
    path = save_match(match, tmp_path / "game.toml")
    assert "coached" not in path.read_text(encoding="utf-8")  # an uncoached game's save is as before
    path.write_text(path.read_text(encoding="utf-8").replace("format = 3\n", 'format = 3\ncoached = "yes"\n'))
    with pytest.raises(SaveError, match="'coached' field has the wrong type"):
        load_match(nim, path)


# -- where a player learns of ``?`` --------------------------------------------------------


def help_text(app) -> str:
    from gamenight.screens.help_screen import HelpScreen

    assert isinstance(app.screen, HelpScreen)
    return app.screen.extra


@pytest.mark.parametrize(("language", "said"), [("en", "`?` shows the best choices"), ("ja", "`?` で、手番")])
async def test_the_rules_page_of_a_local_game_with_a_coach_tells_of_the_hint_key(nim, tmp_path, language, said):
    """``?`` is in no key bar (at 80 columns the game's keys need the room), and the games' rules pages
    never named it: F1 at a table where the coach can speak says what ``?`` does."""
    set_language(language)
    try:
        match = Match(nim.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {"sticks": 10}, seed=1)
        app = make_room(nim, tmp_path, start_match=match)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for_bots(pilot)
            await pilot.press("f1")
            await until(pilot, lambda: hasattr(app.screen, "extra"))
            assert said in help_text(app)
    finally:
        set_language("en")


@pytest.mark.parametrize("where", ["no coach", "replay"])
async def test_the_rules_page_says_nothing_of_the_hint_key_where_there_is_none(nim, tmp_path, where):
    registry = load_registry(extra_plugins={"nim": NimPlugin()}, entry_points=[]) if where == "no coach" else nim
    match = Match(registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {"sticks": 10}, seed=1)
    app = make_room(registry, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        if where == "replay":
            app.screen.match.replay = True  # as a ReplayTable says it
        await pilot.press("f1")
        await until(pilot, lambda: hasattr(app.screen, "extra"))
        assert "`?`" not in help_text(app)
