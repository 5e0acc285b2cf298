"""The replay model: every built-in game rebuilt from its seed and log, step by step."""

from __future__ import annotations

import dataclasses

import pytest
from gamenight.match import Match, SeatConfig, play_headless
from gamenight.plugins import load_registry
from gamenight.records.store import RecordsStore, record_from_match
from gamenight.replay import Replay, ReplayError, version_problem
from gamenight.saves import save_match
from gamenight.sdk import CHANCE, OBSERVER, IllegalAction

REGISTRY = load_registry()
GAMES = sorted(REGISTRY.games)


def finished(game_id: str, seed: int = 5, game_number: int = 0) -> Match:
    game = REGISTRY.game(game_id)
    seats = [SeatConfig(f"P{index}", "random") for index in range(game.default_seats)]
    return play_headless(game, seats, seed=seed, game_number=game_number)


def test_every_built_in_game_is_here():
    assert set(GAMES) >= {"yatzy", "seven", "mille", "mate", "lits"}


@pytest.mark.parametrize("game_id", GAMES)
def test_a_record_replays_to_the_original_end_and_each_step_matches_a_fresh_replay(game_id, tmp_path):
    match = finished(game_id, seed=11, game_number=1)  # not the first game: who starts and chance follow it
    store = RecordsStore.open(tmp_path / "r.sqlite3")
    record_id = store.add(record_from_match(match))
    record = store.get(record_id)
    store.close()
    replay = Replay.from_record(REGISTRY, record)
    assert replay.steps == len(match.log)
    assert replay.state_at(replay.steps) == match.state
    table = replay.step(replay.steps)
    assert table.over and table.outcome() == match.outcome()
    # each step's view (every viewpoint) equals a fresh replay of the log up to there
    fresh = Match(match.game, list(match.seats), dict(match.options), seed=match.seed, games_played=1)
    stride = max(1, replay.steps // 40)
    for n in [*range(0, replay.steps, stride), replay.steps]:
        fresh.replay(match.log[:n], check_chance=True)
        for viewpoint in replay.viewpoints():
            replay.set_follow(viewpoint)
            assert replay.step(n).view() == fresh.rules.view(fresh.state, viewpoint), (n, viewpoint)
        assert replay.step(n).last_events() == fresh.last_events()
        assert replay.step(n).to_move() == fresh.to_move()


@pytest.mark.parametrize("game_id", GAMES)
def test_a_save_replays_its_game_in_progress(game_id, tmp_path):
    game = REGISTRY.game(game_id)
    seats = [SeatConfig("Ann")] + [SeatConfig(f"B{i}", "random") for i in range(1, game.default_seats)]
    whole = finished(game_id, seed=2)
    match = Match(game, seats, {}, seed=2)
    match.replay(whole.log[: len(whole.log) // 2], check_chance=True)
    path = save_match(match, tmp_path / "s.toml")
    replay = Replay.from_save(REGISTRY, path)
    assert replay.steps == len(match.log)
    assert replay.follow == 0  # the person's own seat
    assert replay.step(replay.steps).view(0) == match.view(0)
    assert replay.step(0).view(0) == Match(game, seats, {}, seed=2).view(0)


def test_the_move_log_holds_the_public_events_up_to_the_step():
    match = finished("mille")
    replay = Replay(match.game, list(match.seats), dict(match.options), match.seed, 0, list(match.log))
    log = replay.move_log(30)
    assert [number for number, _seat, _events in log] == list(range(1, 31))
    assert [seat for _number, seat, _events in log] == [entry.seat for entry in match.log[:30]]
    assert all(events for _number, _seat, events in log)
    assert replay.move_log(0) == []


def test_the_table_has_no_state_shows_one_viewpoint_and_refuses_moves():
    match = finished("seven")
    replay = Replay(match.game, list(match.seats), dict(match.options), match.seed, 0, list(match.log))
    replay.set_follow(2)
    table = replay.step(10)
    with pytest.raises(AttributeError):
        table.state  # noqa: B018
    with pytest.raises(PermissionError):
        table.view(1)
    assert table.view(2) == match.rules.view(replay.state_at(10), 2)
    assert not table.human_to_move() and not table.bot_to_move() and table.legal_actions() == []
    for act in (lambda: table.apply("x"), table.apply_chance, table.bot_choice, table.start_game):
        with pytest.raises(IllegalAction):
            act()
    replay.set_follow(OBSERVER)
    assert replay.step(10).view(1) == match.rules.view(replay.state_at(10), OBSERVER)
    with pytest.raises(ValueError, match="no view"):
        replay.set_follow(7)


def test_step_is_clamped():
    match = finished("lits")
    replay = Replay(match.game, list(match.seats), dict(match.options), match.seed, 0, list(match.log))
    assert replay.step(-5).position == 0
    assert replay.step(10_000).position == replay.steps


def record_of(game_id: str, **changes):
    record = record_from_match(finished(game_id))
    return dataclasses.replace(record, **changes)


def test_a_game_whose_plugin_is_missing_is_refused_with_the_reason():
    with pytest.raises(ReplayError, match="'chess' is not installed"):
        Replay.from_record(REGISTRY, record_of("yatzy", game="chess"))


@pytest.mark.parametrize(
    ("version", "reason"),
    [("2", "newer than the installed 1"), ("1.0.1", "newer"), ("banana", "cannot be compared"), ("", "compared")],
)
def test_a_newer_or_unknown_plugin_version_is_refused(version, reason):
    with pytest.raises(ReplayError, match=reason):
        Replay.from_record(REGISTRY, record_of("yatzy", plugin_version=version))


def test_an_older_plugin_version_replays_when_its_log_is_still_legal():
    game = REGISTRY.game("yatzy")
    assert version_problem(game, "0") is None
    assert version_problem(game, "0.9") is None
    Replay.from_record(REGISTRY, record_of("yatzy", plugin_version="0"))


def test_a_tampered_log_is_refused_with_the_move_number():
    record = record_from_match(finished("yatzy"))
    log = list(record.log)
    chance = next(index for index, (seat, _action) in enumerate(log) if seat == CHANCE)
    log[chance] = (CHANCE, "6,6,6,6,6" if log[chance][1] != "6,6,6,6,6" else "1,1,1,1,1")
    with pytest.raises(ReplayError, match=f"move {chance + 1}"):
        Replay.from_record(REGISTRY, dataclasses.replace(record, log=tuple(log)))
    with pytest.raises(ReplayError, match="move 1"):
        Replay.from_record(REGISTRY, dataclasses.replace(record, log=((0, "nonsense"), *record.log)))
