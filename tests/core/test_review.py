"""Game review (gamenight.coach, ``gamenight review``): every decision of every person seat
against the game's coach, with costs and an accuracy figure; refusals in one line."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace
from pathlib import Path

import pytest
from gamenight.cli import main
from gamenight.coach import Decision, ReviewError, accuracy, review
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.saves import save_match
from gamenight.sdk import CHANCE, Advice, AdviceUnit, AdvisorSpec, BotContext

from tests.core.nim import NimPlugin

REGISTRY = load_registry()


def played_save(folder: Path, game_id: str, person_bot: str, seed: int = 5) -> tuple[Path, Match]:
    """A finished game: a person (Ann, who moves as ``person_bot`` would) against the game's strongest bot."""
    game = REGISTRY.game(game_id)
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bot", game.bots[-1].id)], {}, seed=seed)
    person = game.bot(person_bot).factory(game.rules, 0, match.options)
    while not match.over:
        if match.to_move() == CHANCE:
            match.apply_chance()
        elif match.human_to_move():
            context = BotContext(0, random.Random(len(match.log)))
            match.apply(person.choose(match.view(0), match.legal_actions(), context))
        else:
            match.apply(match.bot_choice())
    return save_match(match, folder / f"{game_id}.toml"), match


def run_json(capsys, path: Path) -> dict:
    assert main(["review", str(path), "--json"]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return json.loads(out)


def check_shape(data: dict, match: Match, path: Path) -> None:
    """The documented shape, the person's decisions only, each cost against the best."""
    assert data["file"] == str(path) and data["game"] == match.game.id and data["game_number"] == 1
    assert set(data["unit"]) == {"kind", "label", "digits"} and data["exact"] is True
    asked = [number + 1 for number, entry in enumerate(match.log) if entry.seat == 0]
    assert [decision["step"] for decision in data["decisions"]] == asked
    assert {decision["seat"] for decision in data["decisions"]} == {0}
    for decision in data["decisions"]:
        assert decision["action"] == match.log[decision["step"] - 1].action
        assert decision["cost"] == pytest.approx(decision["best"]["value"] - decision["value"])
        assert decision["cost"] >= 0 and decision["swing"] >= decision["cost"] and decision["choices"] >= 1
    (seat,) = data["seats"]
    assert seat["seat"] == 0 and seat["name"] == "Ann" and seat["decisions"] == len(asked)
    assert seat["cost"] == pytest.approx(sum(decision["cost"] for decision in data["decisions"]))


def test_review_json_of_a_yatzy_save_values_each_decision_in_expected_points(tmp_path, capsys):
    path, match = played_save(tmp_path, "yatzy", "greedy")
    data = run_json(capsys, path)
    check_shape(data, match, path)
    assert data["unit"] == {"kind": "points", "label": "expected final score", "digits": 1}
    mattered = [d for d in data["decisions"] if d["choices"] > 1 and d["swing"] > 0]
    expected = 100 * (1 - sum(d["cost"] for d in mattered) / sum(d["swing"] for d in mattered))
    (seat,) = data["seats"]
    assert seat["accuracy"] == pytest.approx(expected) and 0 < seat["accuracy"] < 100  # greedy is not perfect
    # The first decision is the turn's first roll: worth the whole game played perfectly, 253.97 (bench).
    assert data["decisions"][0]["action"] == "roll:00000"
    assert data["decisions"][0]["value"] == pytest.approx(253.9702, abs=1e-4)


def test_review_json_of_a_mate_save_gives_the_exact_results(tmp_path, capsys):
    path, match = played_save(tmp_path, "mate", "greedy")
    data = run_json(capsys, path)
    check_shape(data, match, path)
    assert data["unit"]["kind"] == "outcome"
    labels = {d["label"] for d in data["decisions"]} | {d["best"]["label"] for d in data["decisions"]}
    assert labels <= {
        "win in {moves}, +{points}",
        "draw",
        "lose in {moves}, -{points}",
    }
    mattered = [d for d in data["decisions"] if d["choices"] > 1 and d["swing"] > 0]
    (seat,) = data["seats"]
    assert seat["counted"] == len(mattered)
    assert seat["accuracy"] == pytest.approx(100 * sum(d["cost"] == 0 for d in mattered) / len(mattered))


def test_a_person_who_plays_the_coachs_choice_is_100_percent_accurate(tmp_path):
    path, _match = played_save(tmp_path, "yatzy", "optimal", seed=9)
    result = review(REGISTRY, path)
    (seat,) = result.seats
    assert seat.cost == pytest.approx(0, abs=1e-9) and seat.accuracy == pytest.approx(100)
    assert result.costliest() == [] or result.costliest()[0].cost < 1e-9


def test_the_text_review_names_the_seat_and_its_accuracy_and_progress_is_told(tmp_path, capsys):
    path, _match = played_save(tmp_path, "yatzy", "random", seed=2)
    told = []
    result = review(REGISTRY, path, progress=lambda done, total: told.append((done, total)))
    assert told == [(n, len(result.decisions)) for n in range(1, len(result.decisions) + 1)]
    assert main(["review", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("Yatzy, game 1: ") and "Ann" in out and "Accuracy" in out and err == ""
    assert "The costliest decisions" in out


def test_a_match_just_finished_and_recorded_is_reviewed_as_the_game_it_shows(tmp_path):
    _path, match = played_save(tmp_path, "yatzy", "greedy", seed=4)
    before = review(REGISTRY, match)
    match.record_result()  # counted: games_played moves on, the log is still the finished game's
    after = review(REGISTRY, match)
    assert [d.number for d in after.decisions] == [d.number for d in before.decisions] and after.decisions
    assert after.seats[0].cost == pytest.approx(before.seats[0].cost)


def test_accuracy_is_defined_per_unit():
    def decision(value, best, worst, choices=3):
        return Decision(1, 0, "a", value, "b", best, worst, choices)

    moves = [decision(7, 10, 0), decision(10, 10, 4), decision(5, 5, 5), decision(1, 1, 1, choices=1)]
    assert accuracy("points", moves) == pytest.approx(100 * (1 - 3 / 16))  # forced moves do not count
    lost = 100 * 0.1  # ten points of winning chance
    chances = [decision(0.5, 0.6, 0.1), decision(0.6, 0.6, 0.2)]
    expected = (min(100, 103.1668 * math.exp(-0.04354 * lost) - 3.1669) + 100) / 2
    assert accuracy("chance", chances) == pytest.approx(expected)
    assert accuracy("outcome", moves) == pytest.approx(50)
    assert accuracy("points", [decision(1, 1, 1)]) is None


@pytest.mark.parametrize("content", ["not a save at all [", None])
def test_a_bad_file_is_refused_in_one_line_with_exit_2(tmp_path, capsys, content):
    path = tmp_path / "bad.toml"
    if content is not None:
        path.write_text(content)
    assert main(["review", str(path), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("gamenight review: ") and err.count("\n") == 1 and "Traceback" not in err


def test_a_game_without_a_coach_says_so(tmp_path, capsys, monkeypatch):
    registry = load_registry(extra_plugins={"nim": NimPlugin()}, entry_points=[])
    match = Match(registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bot", "first")], {}, seed=1)
    match.apply("1")
    with pytest.raises(ReviewError, match="nim has no coach"):
        review(registry, match)
    monkeypatch.setattr("gamenight.plugins.load_registry", lambda: registry)
    path = save_match(match, tmp_path / "nim.toml")
    assert main(["review", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "nim has no coach" in err and err.count("\n") == 1 and out == ""


class Broken:
    """A third-party coach that fails in the two ways a review must survive."""

    def __init__(self, how):
        self.how = how

    def advise(self, view, legal, ctx):
        if self.how == "raises":
            raise RuntimeError("\x1b[31mboom")
        return [Advice(action, float("nan")) for action in legal]


@pytest.mark.parametrize(("how", "message"), [("raises", "failed: RuntimeError"), ("nan", "not a number")])
def test_a_failing_coach_is_one_line_never_a_traceback(how, message):
    base = load_registry(extra_plugins={"nim": NimPlugin()}, entry_points=[])
    game = replace(base.game("nim"), advisor=AdvisorSpec(lambda *_: Broken(how), AdviceUnit("chance", "c")))
    registry = load_registry(extra_plugins={"nim": NimPlugin()}, entry_points=[])
    registry.games["nim"] = game
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bot", "first")], {}, seed=1)
    match.apply("1")
    with pytest.raises(ReviewError, match=message) as caught:
        review(registry, match)
    assert "\x1b" not in str(caught.value) and "\n" not in str(caught.value)


class Sloppy:
    """A third-party coach that ranks an action not legal now first, says one action twice, and hands
    back parameters no JSON can hold and a label whose placeholder nothing fills."""

    def advise(self, view, legal, ctx):
        odd = {"why": object(), "deep": {"a": [1, 2]}, "n": 3}
        return [
            Advice("9", 100.0, label="{missing} wins"),  # not legal: Nim takes 1 to 3
            *(Advice(action, float(action), label="{missing} wins", params=odd) for action in legal),
            Advice(legal[0], 50.0),  # the same action again: the first entry counts
        ]


def test_a_sloppy_coachs_review_keeps_to_legal_actions_and_prints_as_json_and_text(tmp_path, capsys, monkeypatch):
    base = load_registry(extra_plugins={"nim": NimPlugin()}, entry_points=[])
    game = replace(base.game("nim"), advisor=AdvisorSpec(lambda *_: Sloppy(), AdviceUnit("points", "sticks")))
    registry = load_registry(extra_plugins={"nim": NimPlugin()}, entry_points=[])
    registry.games["nim"] = game
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bot", "first")], {}, seed=1)
    match.apply("1")
    (decision,) = review(registry, match).decisions
    # The illegal "9" is never the best, and "1" is worth its first advice (1.0), not the repeat (50.0).
    assert (decision.best_action, decision.best_value, decision.value) == ("3", 3.0, 1.0)
    assert decision.params == {"n": 3}  # only what JSON holds
    monkeypatch.setattr("gamenight.plugins.load_registry", lambda: registry)
    path = save_match(match, tmp_path / "nim.toml")
    assert main(["review", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["decisions"][0]["best"]["action"] == "3"
    assert main(["review", str(path)]) == 0  # the label's unfilled placeholder is shown as written
    out, err = capsys.readouterr()
    assert "{missing} wins" in out and "Traceback" not in err


def test_the_review_says_the_coachs_choice_as_a_choice_and_the_move_played_as_the_log_does(tmp_path):
    """The coach's choice reads "coach: Score 12 in Chance", not the log's "Scores 12 in Chance.";
    what was played keeps the log's words."""
    path, _match = played_save(tmp_path, "yatzy", "random", seed=2)
    result = review(REGISTRY, path)
    costly = [decision for decision in result.decisions if decision.cost > 0]
    assert costly
    for decision in costly:
        assert decision.best_text.startswith(("Score ", "Keep ", "Reroll ")), decision.best_text
        assert not decision.best_text.endswith("."), decision.best_text
        assert decision.text.endswith((".", "!")), decision.text  # the move played: the log's sentence
