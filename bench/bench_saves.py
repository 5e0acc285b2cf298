"""Saves under attack and at length: a mutation fuzzer's verdicts, and load times.

1. The fuzzer: ``--mutations`` seeded mutations of real saves of Mille, SEVEN,
   Yatzy and Mate (one finished game in the history, the next under way),
   half of them structured (a field of the document changed, deleted or
   retyped), half edits of the TOML text (bytes inserted, deleted, replaced,
   lines dropped or doubled).  Each is classified as the tampering test does
   (``tests/core/test_saves_tampering.py``): refused, harmless, another
   variant, other moves -- or a failure: a crash, forged chance accepted,
   other finished games or totals accepted.
2. Load times (CPU seconds, median and IQR of ``--runs``): a long Mille session
   (``--games`` finished games in the history) and a file over the 4 MB cap.

    .venv/bin/python bench/bench_saves.py --mutations 2832 --runs 9 --games 20
"""

from __future__ import annotations

import argparse
import copy
import random
import statistics
import sys
import tempfile
import time
import tomllib
from collections import Counter
from pathlib import Path

import tomli_w

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gamenight.saves import MAX_SAVE_BYTES, SaveError, load_match, save_match

from tests.core.real_saves import play, registry, save_of
from tests.core.test_saves_tampering import (
    ALLOWED,
    PIECES,
    apply_edits,
    delete,
    get,
    leaves,
    mutations,
    put,
    verdict,
)

GAMES = ("mille", "seven", "yatzy", "mate")


def structured(document: dict, rng: random.Random) -> dict:
    """The document with one field changed, deleted or retyped."""
    paths = [path for path in leaves(document, rng=rng) if path]
    where = rng.choice(paths)
    mutated = copy.deepcopy(document)
    value = get(document, where)
    changes = mutations(value, in_log=len(where) > 1 and where[0] in ("log", "history"))
    if not changes or rng.random() < 0.1:
        delete(mutated, where)
    else:
        put(mutated, where, rng.choice(changes)[1](value))
    return mutated


def fuzz(count: int, seed: int, folder: Path) -> Counter:
    rng = random.Random(seed)
    saves = {game_id: save_of(game_id, folder) for game_id in GAMES}
    verdicts: Counter = Counter()
    for number in range(count):
        game_id = GAMES[number % len(GAMES)]
        original, path = saves[game_id]
        text = path.read_text(encoding="utf-8")
        if number % 2:
            edits = [
                (
                    rng.choice(["insert", "delete", "replace", "duplicate-line", "drop-line"]),
                    rng.random(),
                    rng.choice(PIECES),
                )
                for _ in range(rng.randint(1, 4))
            ]
            data = apply_edits(text, edits).encode("utf-8", "surrogatepass")
        else:
            data = tomli_w.dumps(structured(tomllib.loads(text), rng)).encode()
        result = verdict(game_id, original, folder / "fuzzed.toml", data)
        verdicts[result if result in ALLOWED else result.split(":")[0]] += 1
    return verdicts


def cpu_times(action, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.process_time()
        action()
        times.append(time.process_time() - started)
    return times


def summary(times: list[float]) -> str:
    quartiles = statistics.quantiles(times, n=4) if len(times) > 1 else [times[0]] * 3
    low, high = quartiles[0] * 1000, quartiles[2] * 1000
    return f"median {statistics.median(times) * 1000:.0f} ms, IQR {low:.0f}-{high:.0f} ms"


def long_session(games: int, folder: Path) -> Path:
    from gamenight.match import Match, SeatConfig

    rng = random.Random(3)
    match = Match(registry().game("mille"), [SeatConfig("You"), SeatConfig("Computer", "expert")], {}, seed=3)
    for _ in range(games):
        play(match, rng)
        match.record_result()
        match.start_game()
    play(match, rng, 40)
    return save_match(match, folder / "long.toml")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutations", type=int, default=2832)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())

    verdicts = fuzz(args.mutations, args.seed, folder)
    print(f"fuzzer: {args.mutations} mutations (seed {args.seed})")
    for name, count in verdicts.most_common():
        print(f"  {count:5d}  {name}{'' if name in ALLOWED else '   <-- FAILURE'}")

    path = long_session(args.games, folder)
    print(
        f"Mille session with {args.games} finished games: {path.stat().st_size / 1024:.0f} KB, load "
        f"{summary(cpu_times(lambda: load_match(registry(), path), args.runs))}"
    )

    big = folder / "big.toml"
    big.write_bytes(b"# " + b"x" * MAX_SAVE_BYTES + b"\n")

    def refuse() -> None:
        try:
            load_match(registry(), big)
        except SaveError:
            return
        raise AssertionError("a file over the cap loaded")

    print(
        f"file over the cap ({big.stat().st_size / 2**20:.1f} MB): refused in {summary(cpu_times(refuse, args.runs))}"
    )


if __name__ == "__main__":
    main()
