"""Per-game seeds in saves: each finished game replays from its own seed; older saves (one seed for
every game) still load; seeds are as wide as a fresh one (128 bits)."""

from __future__ import annotations

import tomllib

import pytest
import tomli_w
from gamenight.match import Match, SeatConfig, new_seed
from gamenight.plugins import load_registry
from gamenight.replay import Replay
from gamenight.saves import SaveError, load_match, save_match
from gamenight.sdk import CHANCE

REGISTRY = load_registry()


def play_out(match: Match) -> None:
    while not match.over:
        if match.to_move() == CHANCE:
            match.apply_chance()
        else:
            match.apply(match.legal_actions()[-1])
    match.record_result()


def two_games(seeds: tuple[int, int | None]) -> Match:
    match = Match(REGISTRY.game("yatzy"), [SeatConfig("Ann")], {}, seed=seeds[0])
    play_out(match)
    match.start_game(seed=seeds[1])
    play_out(match)
    return match


def test_each_game_of_a_save_replays_from_its_own_wide_seed(tmp_path):
    first, second = new_seed(), new_seed()
    match = two_games((first, second))
    path = save_match(match, tmp_path / "two.toml")
    document = tomllib.loads(path.read_text())
    assert document["seeds"] == [first] and document["seed"] == second
    loaded = load_match(REGISTRY, path)
    assert loaded.seeds == [first] and loaded.seed == second and loaded.totals == match.totals
    assert Replay.from_save(REGISTRY, path, 0).seed == first
    assert Replay.from_save(REGISTRY, path, 1).seed == second
    assert [game[1] for game in Replay.save_games(REGISTRY, path)] == [
        tuple(s) for s in (_scores(match, 0), _scores(match, 1))
    ]


def _scores(match: Match, number: int) -> list[float]:
    replay = Match(match.game, list(match.seats), {}, seed=([*match.seeds, match.seed])[number], games_played=number)
    replay.replay(([*list(match.history), tuple(match.log)])[number], check_chance=True)
    return replay.outcome().scores


def test_a_game_replayed_with_another_games_seed_is_refused(tmp_path):
    path = save_match(two_games((new_seed(), new_seed())), tmp_path / "two.toml")
    document = tomllib.loads(path.read_text())
    document["seeds"] = [document["seed"]]  # claims the first game drew from the second's seed
    path.write_text(tomli_w.dumps(document))
    with pytest.raises(SaveError, match="seed"):
        load_match(REGISTRY, path)


@pytest.mark.parametrize("seeds", [[], [1, 2], ["1"], [True]])
def test_malformed_seeds_are_refused(tmp_path, seeds):
    path = save_match(two_games((5, 6)), tmp_path / "two.toml")
    document = tomllib.loads(path.read_text())
    document["seeds"] = seeds
    path.write_text(tomli_w.dumps(document))
    with pytest.raises(SaveError, match="seeds"):
        load_match(REGISTRY, path)


def test_an_old_save_without_per_game_seeds_replays_every_game_from_its_one_seed(tmp_path):
    match = two_games((41, None))  # as before: "play again" kept the seed
    path = save_match(match, tmp_path / "old.toml")
    document = tomllib.loads(path.read_text())
    document["format"] = 2
    del document["seeds"]
    path.write_text(tomli_w.dumps(document))
    loaded = load_match(REGISTRY, path)
    assert loaded.seeds == [41] and loaded.seed == 41 and loaded.totals == match.totals
    assert loaded.games_played == 2


async def test_a_local_game_started_from_its_setup_gets_a_128_bit_seed(tmp_path):
    from gamenight.sdk.testing import make_room
    from gamenight.ui.game_screen import GameScreen

    seeds = []
    for attempt in range(2):
        app = make_room(REGISTRY, tmp_path / str(attempt), start_game="yatzy")
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(200):
                await pilot.pause(0.01)
                if type(app.screen).__name__ == "SetupScreen":
                    break
            await pilot.press("ctrl+r")
            for _ in range(200):
                await pilot.pause(0.01)
                if isinstance(app.screen, GameScreen):
                    break
            assert isinstance(app.screen, GameScreen) and not app.screen.remote
            seeds.append(app.screen.match.seed)
    # 2**31 seeds were searchable from three rolls; these are from the OS, 128 bits each
    assert min(seed.bit_length() for seed in seeds) > 64 and seeds[0] != seeds[1]
