"""The optimal strategy's DP: Verhoeff's value, an independent recomputation, the cache."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from functools import cache

import numpy as np
import pytest
from gamenight_yatzy import strategy
from gamenight_yatzy.bots import position
from gamenight_yatzy.rules import (
    BOX_INDEX,
    YATZY,
    box_score,
    earns_yatzy_bonus,
    scoring_boxes,
    upper_bonus,
    upper_total,
)

from .conftest import full_sheet

# -- an independent, slow, straightforward expectimax over real dice and sheets --------------

ROLLS = sorted({tuple(sorted(dice)) for dice in itertools.product(range(1, 7), repeat=5)})


@cache
def outcomes(count: int) -> dict[tuple[int, ...], float]:
    """Sorted outcomes of rolling ``count`` dice, with their probabilities."""
    tally = Counter(tuple(sorted(dice)) for dice in itertools.product(range(1, 7), repeat=count))
    return {dice: n / 6**count for dice, n in tally.items()}


@cache
def sub_multisets(roll: tuple[int, ...]) -> frozenset[tuple[int, ...]]:
    return frozenset(
        tuple(sorted(roll[i] for i in chosen)) for size in range(6) for chosen in itertools.combinations(range(5), size)
    )


def after_reroll(values: dict[tuple[int, ...], float]) -> dict[tuple[int, ...], float]:
    """Value of each roll when one more re-roll of any subset is allowed before ``values``."""
    keep_value = {
        keep: sum(p * values[tuple(sorted(keep + out))] for out, p in outcomes(5 - len(keep)).items())
        for keep in {keep for roll in ROLLS for keep in sub_multisets(roll)}
    }
    return {roll: max(keep_value[keep] for keep in sub_multisets(roll)) for roll in ROLLS}


def solve(sheet: tuple[int | None, ...], joker: bool) -> float:
    """Expected further points from the start of a turn, playing perfectly (by brute force)."""
    key = (tuple(score is None for score in sheet), upper_total(sheet), sheet[YATZY], joker)
    if key not in _MEMO:
        _MEMO[key] = _solve(sheet, joker)
    return _MEMO[key]


_MEMO: dict[tuple, float] = {}


def _solve(sheet: tuple[int | None, ...], joker: bool) -> float:
    if None not in sheet:
        return 0.0

    def score_now(dice: tuple[int, ...]) -> float:
        best = -1.0
        for box in scoring_boxes(sheet, dice, joker):
            points = box_score(sheet, dice, box, joker)
            after = (*sheet[:box], points, *sheet[box + 1 :])
            gain = points + upper_bonus(after) - upper_bonus(sheet) + 100 * earns_yatzy_bonus(sheet, dice)
            best = max(best, gain + solve(after, joker))
        return best

    third = {roll: score_now(roll) for roll in ROLLS}
    first = after_reroll(after_reroll(third))
    return sum(p * first[roll] for roll, p in outcomes(5).items())


END_GAME_SHEETS = [
    # (open boxes as None, the rest as given / 0)
    full_sheet(full_house=None, small_straight=None, chance=None, ones=3, twos=6, threes=9, fours=12, yatzy=50),
    full_sheet(fives=None, sixes=None, yatzy=None, ones=3, twos=6, threes=9, fours=16),
    full_sheet(three_kind=None, sixes=None, ones=4, twos=8, threes=12, fours=16, fives=15),
    full_sheet(fours=None, large_straight=None, yatzy=0, sixes=24),
    full_sheet(ones=None, twos=None, yatzy=50, sixes=30, fives=25),
    full_sheet(twos=None, chance=None, three_kind=None, yatzy=50, ones=3, sixes=30, fives=20),
]


@pytest.fixture(scope="module")
def end_game_tables():
    """The last three turns of the table, for each ruleset (quick to build)."""
    return {joker: strategy.build_table(joker, lowest_level=10) for joker in (False, True)}


@pytest.mark.parametrize("joker", [False, True])
@pytest.mark.parametrize("sheet", END_GAME_SHEETS)
def test_end_game_values_match_an_independent_brute_force(end_game_tables, sheet, joker):
    mask, upper, flag = position(sheet)
    assert end_game_tables[joker][mask, upper, flag] == pytest.approx(solve(sheet, joker), abs=1e-9)


def test_the_last_turn_of_a_chance_only_sheet_is_the_expected_best_sum():
    table = strategy.build_table(False, lowest_level=12)
    # Chance alone: keep the dice above the threshold each roll; 23.33... is the known optimum.
    assert table[(1 << 13) - 1 - (1 << BOX_INDEX["chance"]), 0, 0] == pytest.approx(23.33, abs=0.01)


def test_with_the_joker_rule_the_optimum_is_verhoeffs_254_59(joker_table):
    assert round(strategy.expected_score(joker_table), 2) == 254.59


def test_the_full_joker_table_agrees_with_the_brute_force_at_the_end(joker_table):
    for sheet in END_GAME_SHEETS:
        mask, upper, flag = position(sheet)
        assert joker_table[mask, upper, flag] == pytest.approx(solve(sheet, True), abs=1e-9)


def test_one_position_turn_values_match_the_batched_computation(joker_table):
    rng = random.Random(7)
    flat = joker_table.reshape(-1)
    for _ in range(40):
        mask = rng.randrange((1 << 13) - 1)
        upper = rng.choice(strategy.reachable_uppers(mask & 63))
        flag = rng.randrange(2) if mask >> YATZY & 1 else 0
        at = strategy.Positions(np.array([mask]), np.array([upper]), np.array([flag]))
        batched = strategy._scoring_values(flat, at, True)[:, 0]
        single = strategy.single_scoring_values(joker_table, mask, upper, flag, True)
        np.testing.assert_allclose(single, batched, atol=1e-9)


def test_the_table_grows_with_the_upper_total_and_the_yatzy_flag(joker_table):
    mask = 0b0_0000_0000_0111  # ones, twos, threes used
    uppers = strategy.reachable_uppers(mask)
    values = [joker_table[mask, upper, 0] for upper in uppers]
    assert values == sorted(values)
    with_yatzy = mask | 1 << YATZY
    assert joker_table[with_yatzy, 12, 1] > joker_table[with_yatzy, 12, 0]


# -- the cache file -----------------------------------------------------------------------------


def test_a_missing_cache_is_built_once_then_read(tmp_path):
    calls = []

    def build():
        calls.append(1)
        return np.arange(np.prod(strategy.TABLE_SHAPE), dtype=np.float64).reshape(strategy.TABLE_SHAPE)

    path = tmp_path / "t.npy"
    first = strategy.load_or_build(path, build)
    second = strategy.load_or_build(path, build)
    assert len(calls) == 1
    assert np.array_equal(first, second)
    assert not second.flags.writeable


@pytest.mark.parametrize("damage", ["truncate", "garbage", "tamper", "no-checksum"])
def test_a_corrupt_cache_is_rebuilt(tmp_path, damage):
    path = tmp_path / "t.npy"
    good = np.ones(strategy.TABLE_SHAPE)
    strategy.load_or_build(path, lambda: good)
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        path.write_bytes(b"not a table")
    elif damage == "tamper":
        path.write_bytes(data[:-8] + np.float64(999.0).tobytes())
    else:
        path.with_suffix(".sha256").unlink()
    rebuilt = strategy.load_or_build(path, lambda: good * 2)
    assert rebuilt[0, 0, 0] == 2.0
    assert strategy.load_or_build(path, lambda: good * 3)[0, 0, 0] == 2.0  # and cached again


def test_the_cached_table_is_read_back_equal(joker_table, tmp_path):
    path = tmp_path / "t.npy"
    strategy.load_or_build(path, joker_table.copy)
    loaded = strategy.load_or_build(path, lambda: pytest.fail("the cache should have been read"))
    assert np.array_equal(loaded, joker_table)


def test_an_unwritable_cache_only_costs_a_rebuild(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache folder should be")
    table = strategy.load_or_build(blocker / "t.npy", lambda: np.ones(strategy.TABLE_SHAPE))
    assert table[0, 0, 0] == 1.0


# -- the tables shipped in the package ----------------------------------------------------------


@pytest.mark.parametrize(("joker", "value"), [(False, 253.9702), (True, 254.5877)])
def test_the_shipped_tables_hold_the_known_optima(joker, value):
    table = strategy.read_packaged(strategy.packaged_path(joker))
    assert table is not None, "the package's table is missing or damaged"
    assert round(strategy.expected_score(table), 4) == value


@pytest.mark.parametrize("joker", [False, True])
def test_the_shipped_tables_equal_the_builder_on_the_last_three_turns(end_game_tables, joker):
    """Bounded: the full builds (10-30 s each) are compared by ``python -m gamenight_yatzy.build_table``
    and ``bench/bench_yatzy.py --only table``; here every position of the last three turns."""
    shipped = strategy.read_packaged(strategy.packaged_path(joker))
    built = end_game_tables[joker]
    filled = built != 0
    assert filled.sum() > 5000
    np.testing.assert_allclose(shipped[filled], built[filled], rtol=0, atol=1e-9)


def test_the_stored_positions_are_those_the_build_fills():
    reachable = strategy.reachable_positions(range(strategy.FULL_MASK)).flat_index()
    assert np.array_equal(np.flatnonzero(strategy.reachable_mask().reshape(-1)), reachable)


def fake_table(value: float = 1.0) -> np.ndarray:
    return np.where(strategy.reachable_mask(), value, 0.0)


def test_a_table_is_written_and_read_back_exactly(tmp_path):
    table = fake_table() + np.random.default_rng(3).random(strategy.TABLE_SHAPE) * strategy.reachable_mask()
    path = tmp_path / "t.gz"
    strategy.write_packaged(path, table)
    assert np.array_equal(strategy.read_packaged(path), table)
    assert [p.name for p in tmp_path.iterdir()] == ["t.gz"]  # no temporary file left


def test_writing_refuses_what_the_format_cannot_hold(tmp_path):
    with pytest.raises(ValueError, match="unreachable"):
        strategy.write_packaged(tmp_path / "t.gz", np.ones(strategy.TABLE_SHAPE))
    assert not (tmp_path / "t.gz").exists()


def damage_file(path, damage: str) -> None:
    import gzip

    data = path.read_bytes()
    raw = gzip.decompress(data)
    if damage == "missing":
        path.unlink()
    elif damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        path.write_bytes(b"not a table")
    elif damage == "flipped byte":
        path.write_bytes(data[:1000] + bytes([data[1000] ^ 0xFF]) + data[1001:])
    elif damage == "changed value":  # a valid gzip whose table no longer matches its checksum
        path.write_bytes(gzip.compress(raw[:-1] + bytes([raw[-1] ^ 1])))
    elif damage == "short table":
        path.write_bytes(gzip.compress(raw[:-8]))
    elif damage == "wrong magic":
        path.write_bytes(gzip.compress(b"X" + raw[1:]))


DAMAGES = ["missing", "truncated", "garbage", "flipped byte", "changed value", "short table", "wrong magic"]


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_shipped_file_reads_as_none(tmp_path, damage):
    path = tmp_path / "t.gz"
    strategy.write_packaged(path, fake_table())
    damage_file(path, damage)
    assert strategy.read_packaged(path) is None


@pytest.fixture
def cold_process(tmp_path, monkeypatch):
    """No table loaded yet, an empty user cache, and a package file we may damage."""
    monkeypatch.setenv("GAMENIGHT_YATZY_CACHE", str(tmp_path / "cache"))
    shipped = tmp_path / "shipped.gz"
    strategy.write_packaged(shipped, fake_table(7.0))
    monkeypatch.setattr(strategy, "packaged_path", lambda joker: shipped)
    strategy.load_table.cache_clear()
    yield shipped
    strategy.load_table.cache_clear()


def test_the_shipped_table_is_used_first_without_a_build_or_a_cache(cold_process, monkeypatch):
    monkeypatch.setattr(strategy, "build_table", lambda *a, **k: pytest.fail("built although shipped"))
    seen = []
    table = strategy.load_table(False, seen.append)
    assert table[0, 0, 0] == 7.0 and not table.flags.writeable
    assert seen == [1.0]
    assert not strategy.cache_path(False).exists()


@pytest.mark.parametrize("damage", ["missing", "flipped byte", "changed value"])
def test_without_a_good_shipped_file_the_table_is_built_with_progress_then_cached(cold_process, monkeypatch, damage):
    damage_file(cold_process, damage)
    builds = []

    def build(joker, progress=None, **kwargs):
        builds.append(joker)
        for step in (0.25, 0.5, 1.0):
            progress(step)
        return fake_table(3.0)

    monkeypatch.setattr(strategy, "build_table", build)
    seen = []
    assert strategy.load_table(True, seen.append)[0, 0, 0] == 3.0
    assert builds == [True] and seen[:3] == [0.25, 0.5, 1.0]
    assert strategy.cache_path(True).exists()
    strategy.load_table.cache_clear()  # a new process: the cache now serves it, no second build
    assert strategy.load_table(True)[0, 0, 0] == 3.0
    assert builds == [True]
