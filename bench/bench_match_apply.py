"""What public events cost headless play: whole random games through ``Match`` per second.

    .venv/bin/python bench/bench_match_apply.py                 # Yatzy 150, Mille 60 games a run
    PYTHONPATH=core:plugins .venv/bin/python bench/bench_match_apply.py   # another checkout's code

``Match.apply`` keeps the latest move (seat, state before, action) so that
``Match.last_events()`` can work the move's public events out when a screen asks;
the arena and the bots never ask. Each run plays seeded games with random legal
moves through ``Match`` (chance included); five runs, median and range.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.sdk import CHANCE


def games_per_second(game, games: int) -> float:
    started = time.perf_counter()
    for index in range(games):
        rng = random.Random(index)
        match = Match(game, [SeatConfig("a"), SeatConfig("b")], {}, seed=index)
        while not match.over:
            if match.to_move() == CHANCE:
                match.apply_chance()
            else:
                match.apply(rng.choice(match.legal_actions()))
    return games / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    registry = load_registry()
    for game_id, games in (("yatzy", 150), ("mille", 60)):
        rates = [games_per_second(registry.game(game_id), games) for _ in range(args.runs)]
        print(
            f"{game_id}: median {statistics.median(rates):.0f} games/s, "
            f"runs {min(rates):.0f}-{max(rates):.0f} ({args.runs} runs of {games} games)"
        )


if __name__ == "__main__":
    main()
