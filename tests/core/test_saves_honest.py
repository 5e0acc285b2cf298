"""Saves that cannot lie: every field is checked, the totals re-derived and chance re-drawn.

What a review found accepted before: a tampered total, values the game never produced, forged
chance, huge files and deep nesting.
"""

from __future__ import annotations

import random
import tomllib

import pytest
import tomli_w
from gamenight.match import LogEntry, Match, SeatConfig
from gamenight.saves import FORMAT_VERSION, MAX_SAVE_BYTES, SaveError, load_match, save_match
from gamenight.sdk import CHANCE

from tests.core.real_saves import GAME_IDS, registry, same_session, save_of, session


def rewrite(path, change) -> bytes:
    """Apply ``change`` to the save's document, write it back and return the bytes written."""
    document = tomllib.loads(path.read_text(encoding="utf-8"))
    change(document)
    path.write_text(tomli_w.dumps(document), encoding="utf-8")
    return path.read_bytes()


def refused(path, message: str) -> str:
    """Loading ``path`` raises SaveError matching ``message`` and leaves the file as it was."""
    before = path.read_bytes()
    with pytest.raises(SaveError, match=message) as raised:
        load_match(registry(), path)
    assert path.read_bytes() == before
    return str(raised.value)


# -- 13.3: the running totals come from the games, not from the file ---------------------------


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_session_with_a_finished_game_round_trips(tmp_path, game_id):
    match, path = save_of(game_id, tmp_path)
    assert match.games_played == 1 and len(match.history) == 1
    loaded = load_match(registry(), path)
    assert same_session(loaded, match)


def test_editing_mille_totals_from_0_to_9999_is_refused_with_the_reason(tmp_path):
    match = Match(registry().game("mille"), [SeatConfig("You"), SeatConfig("Computer", "expert")], {}, seed=3)
    match.apply_chance()
    path = save_match(match, tmp_path / "mille.toml")
    assert "totals = [\n    0.0,\n    0.0,\n]" in path.read_text(encoding="utf-8")
    path.write_text(
        path.read_text(encoding="utf-8").replace("    0.0,\n    0.0,", "    9999.0,\n    0.0,", 1), encoding="utf-8"
    )
    assert "not what its games give (0, 0)" in refused(path, "'totals' .9999, 0. are not what its games give")


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["totals"].__setitem__(0, d["totals"][0] + 1), "'totals'"),
        (lambda d: d["wins"].reverse() if d["wins"][0] != d["wins"][-1] else d["wins"].__setitem__(0, 5), "'wins'"),
        (lambda d: d.__setitem__("games_played", 2), "says 2 games were played, but its history holds 1"),
        (lambda d: d.__setitem__("history", []), "its history holds 0|chance outcome is not|'seeds'"),
        (lambda d: d["history"][0].pop(), "did not end|history"),
    ],
    ids=["totals", "wins", "games_played", "history-dropped", "history-cut"],
)
def test_counts_that_the_games_do_not_give_are_refused(tmp_path, game_id, change, message):
    _match, path = save_of(game_id, tmp_path)
    rewrite(path, change)
    refused(path, message)


def test_a_finished_game_saved_and_resumed_counts_once(tmp_path, nim_registry):
    game = nim_registry.game("nim")
    match = Match(game, [SeatConfig("A", "first"), SeatConfig("B", "first")], {}, seed=1)
    while not match.over:
        match.apply(match.bot_choice())
    match.record_result()
    loaded = load_match(nim_registry, save_match(match, tmp_path / "done.toml"))
    assert loaded.recorded and loaded.totals == match.totals and loaded.games_played == 1
    loaded.record_result()  # what the table does when it shows the end again
    assert loaded.totals == match.totals and loaded.games_played == 1
    loaded.start_game()
    assert loaded.history == [tuple(match.log)]


def test_a_format_1_save_without_earlier_games_still_loads(tmp_path, nim_registry):
    game = nim_registry.game("nim")
    match = Match(game, [SeatConfig("A"), SeatConfig("B")], {"dice": True}, seed=4)
    match.run_chance()
    match.apply("2")
    path = save_match(match, tmp_path / "old.toml")
    rewrite(path, lambda d: (d.__setitem__("format", 1), d.pop("history")))
    loaded = load_match(nim_registry, path)
    assert loaded.state == match.state and loaded.totals == [0.0, 0.0]


def test_a_format_1_save_with_earlier_games_is_refused_as_uncheckable(tmp_path, nim_registry):
    game = nim_registry.game("nim")
    match = Match(game, [SeatConfig("A"), SeatConfig("B")], {}, seed=4)
    path = save_match(match, tmp_path / "old.toml")
    rewrite(path, lambda d: d.update(format=1, games_played=3, totals=[2.0, 1.0], wins=[2.0, 1.0]) or d.pop("history"))
    with pytest.raises(SaveError, match=r"older gamenight \(save format 1\).*3 earlier games cannot be checked"):
        load_match(nim_registry, path)


def test_the_format_written_is_3_with_a_history_and_per_game_seeds():
    assert FORMAT_VERSION == 3


# -- 14.10: values the game never produced -------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["totals"].__setitem__(0, float("nan")), "'totals' field is malformed"),
        (lambda d: d["totals"].__setitem__(0, float("inf")), "'totals' field is malformed"),
        (lambda d: d["wins"].__setitem__(0, -1.0), "'wins' field is malformed"),
        (lambda d: d.__setitem__("games_played", True), "'games_played' field has the wrong type"),
        (lambda d: d.__setitem__("games_played", -1), "'games_played' field is malformed"),
        (lambda d: d["seats"][0].__setitem__("name", ""), "Seat 1's name .* cannot be empty"),
        (lambda d: d["seats"][1].__setitem__("name", "x" * 100_000), "Seat 2's name .* at most 16 cells"),
        (lambda d: d["seats"][0].__setitem__("colour", "red"), "seats are malformed"),
        (lambda d: d.__setitem__("seed", 2**256), "'seed' field is malformed"),
        (lambda d: d.__setitem__("extra", 1), "unknown field 'extra'"),
        (lambda d: d["options"].__setitem__("dice", [True]), "options are malformed"),
        (lambda d: d["log"].append("0 \x1b[2J"), "Move 4 of the save is malformed"),
        (lambda d: d["log"].__setitem__(0, "+1 die:3"), "Move 1 of the save is malformed"),
        (lambda d: d["log"].__setitem__(0, "7 die:3"), "Move 1 of the save is malformed"),
        (lambda d: d.__setitem__("game", "nim\x1b]0;x\x07"), "'game' field is malformed"),
    ],
    ids=[
        "nan",
        "inf",
        "negative-wins",
        "bool-games",
        "negative-games",
        "empty-name",
        "huge-name",
        "seat-key",
        "seed-range",
        "unknown-field",
        "option-list",
        "control-in-log",
        "plus-seat",
        "no-such-seat",
        "game-escape",
    ],
)
def test_values_the_game_never_produced_are_refused(tmp_path, nim_registry, change, message):
    game = nim_registry.game("nim")
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bob")], {"dice": True}, seed=4)
    match.run_chance()
    match.apply("2")
    match.apply("1")
    path = save_match(match, tmp_path / "s.toml")
    rewrite(path, change)
    before = path.read_bytes()
    with pytest.raises(SaveError, match=message):
        load_match(nim_registry, path)
    assert path.read_bytes() == before


def test_a_file_larger_than_the_cap_is_refused_unread(tmp_path, nim_registry):
    path = tmp_path / "big.toml"
    path.write_bytes(b"# " + b"x" * MAX_SAVE_BYTES + b"\n")
    with pytest.raises(SaveError, match="larger than a save can be"):
        load_match(nim_registry, path)


def forgeries(game_id: str, match: Match) -> tuple[dict[str, str], int]:
    """Legal chance outcomes for the first chance entry that the seed did not draw: named ones, and any other."""
    from gamenight_mate.rules import SINGLE_DECK
    from gamenight_mille.rules import deal_action, full_deck
    from gamenight_seven.rules import _encode

    named = {
        "yatzy": "dice:66666",
        "seven": "deal:" + _encode(range(52)),
        "mille": deal_action(full_deck()),
        "mate": " ".join(SINGLE_DECK),
    }
    first = next(number for number, entry in enumerate(match.log) if entry.seat == CHANCE)
    replay = Match(match.game, match.seats, match.options, seed=match.seed, games_played=match.games_played)
    replay.replay(match.log[:first])
    other = next(
        outcome
        for attempt in range(100)
        if (outcome := match.rules.sample_chance(replay.state, random.Random(attempt))) != match.log[first].action
    )
    forged = {"other": other}
    if game_id in named:
        forged[game_id] = named[game_id]
    for action in forged.values():
        match.rules.apply(replay.state, action)  # each is legal: only the seed can tell
    return {name: f"{CHANCE} {action}" for name, action in forged.items()}, first


@pytest.mark.parametrize("game_id", ["mille", "seven", "yatzy", "mate", "goofspiel"])
def test_forged_chance_is_refused(tmp_path, game_id):
    match, path = save_of(game_id, tmp_path)
    forged, first = forgeries(game_id, match)
    original = path.read_bytes()
    for line in forged.values():
        path.write_bytes(original)
        rewrite(path, lambda d, line=line: d["log"].__setitem__(first, line))
        refused(path, f"move {first + 1}: this chance outcome is not the one the seed draws")


@pytest.mark.parametrize("game_id", ["mille", "seven", "yatzy", "mate", "goofspiel"])
def test_forged_chance_in_an_earlier_game_is_refused(tmp_path, game_id):
    match, path = save_of(game_id, tmp_path)
    first = next(number for number, entry in enumerate(match.history[0]) if entry.seat == CHANCE)
    early = session(match.game, seed=12)  # another seed's outcome: legal, but not this seed's
    line = next(f"{entry.seat} {entry.action}" for entry in early.history[0] if entry.seat == CHANCE)
    rewrite(path, lambda d: d["history"][0].__setitem__(first, line))
    refused(path, "game 1 of the history")


def test_scripted_chance_still_replays_in_memory_for_tests(nim_registry):
    match = Match(nim_registry.game("nim"), [SeatConfig("A"), SeatConfig("B")], {"dice": True}, seed=4)
    match.replay([LogEntry(CHANCE, "die:6"), LogEntry(0, "3")])
    assert match.state.sticks == 10 + 6 - 3


# -- 14.9: deep nesting ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "format = 2\nlog = " + "[" * 1000 + "]" * 1000 + "\n",
        "format = 2\noptions = " + "{a = " * 1000 + "1" + "}" * 1000 + "\n",
        "format = 2\nseed = " + "9" * 5000 + "\n",
    ],
    ids=["arrays", "tables", "huge-integer"],
)
def test_deep_nesting_and_huge_numbers_give_a_clear_message(tmp_path, nim_registry, text):
    path = tmp_path / "deep.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SaveError, match="not a valid save file"):
        load_match(nim_registry, path)


def test_nesting_that_parses_is_refused_by_the_schema(tmp_path, nim_registry):
    game = nim_registry.game("nim")
    path = save_match(Match(game, [SeatConfig("A"), SeatConfig("B")], {}), tmp_path / "s.toml")
    rewrite(path, lambda d: d.__setitem__("log", [[[["0 1"]]]]))
    with pytest.raises(SaveError, match="Move 1 of the save is malformed"):
        load_match(nim_registry, path)


def test_saves_written_under_another_hash_seed_load(tmp_path):
    # Chance is re-drawn on loading: if any game's sample_chance depended on set or dict order
    # of strings (which PYTHONHASHSEED changes between runs), a genuine save would be refused.
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = (
        "import sys; from pathlib import Path; from tests.core.real_saves import GAME_IDS, save_of\n"
        "for game_id in GAME_IDS: save_of(game_id, Path(sys.argv[1]), seed=5)\n"
    )
    for hash_seed in ("1", "2"):
        folder = tmp_path / hash_seed
        folder.mkdir()
        subprocess.run(
            [sys.executable, "-c", script, str(folder)],
            check=True,
            cwd=Path(__file__).parents[2],
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
        )
    for game_id in GAME_IDS:
        first = load_match(registry(), tmp_path / "1" / f"{game_id}.toml")
        assert same_session(first, load_match(registry(), tmp_path / "2" / f"{game_id}.toml"))
        assert first.games_played == 1 and first.history
