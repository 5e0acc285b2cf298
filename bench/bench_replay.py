"""Replay stepping: per step, for every installed game; target ≤ 20 ms a step.

    .venv/bin/python bench/bench_replay.py            # a seeded random game of each, 80×24

For each game one seeded game is played by random bots, then replayed:

* **build** -- ``Replay(...)``: the whole log applied through the rules from the seed
  (every chance outcome checked against the seed), each state kept;
* **model step** -- ``replay.step(n).view()``: the followed seat's view at action ``n``;
* **screen step** -- ``ReplayScreen.show_step(n)`` on the game's own screen in a headless
  room at 80×24: the table moved to ``n``, the game's screen told the latest moves'
  events, redrawn, the move log rebuilt (Textual paints after it, off this clock).

Steps are taken forwards through the whole game (at most 2000), median, interquartile range and max.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from gamenight.match import SeatConfig, play_headless
from gamenight.plugins import load_registry
from gamenight.replay import Replay
from gamenight.sdk.testing import make_room

MAX_STEPS = 2000


def row(label: str, times: list[float]) -> str:
    q1, _median, q3 = statistics.quantiles(times, n=4)
    over = sum(value > 20 for value in times)
    return (
        f"| {label} | {statistics.median(times):.2f} ms | {q1:.2f}–{q3:.2f} ms | {max(times):.2f} ms "
        f"| {over} of {len(times)} |"
    )


async def screen_steps(registry, replay: Replay) -> list[float]:
    app = make_room(registry, Path(tempfile.mkdtemp()))
    steps = []
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_replay(replay)
        await pilot.pause(0.2)
        screen = app.screen
        for n in range(min(replay.steps, MAX_STEPS) + 1):
            start = time.perf_counter()
            screen.show_step(n)
            steps.append((time.perf_counter() - start) * 1000)
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    registry = load_registry()
    print("| game · what | median | IQR | max | over 20 ms |")
    print("|---|---|---|---|---|")
    for game_id, game in sorted(registry.games.items()):
        seats = [SeatConfig(f"P{n}", "random") for n in range(game.default_seats)]
        played = play_headless(game, seats, seed=args.seed)
        builds = []
        for _ in range(5):
            start = time.perf_counter()
            replay = Replay(game, seats, {}, args.seed, 0, list(played.log))
            builds.append((time.perf_counter() - start) * 1000)
        model = []
        for n in range(min(replay.steps, MAX_STEPS) + 1):
            start = time.perf_counter()
            replay.step(n).view()
            model.append((time.perf_counter() - start) * 1000)
        steps = asyncio.run(screen_steps(registry, replay))
        print(row(f"{game_id} ({replay.steps} actions) · build", builds))
        print(row(f"{game_id} · model step", model))
        print(row(f"{game_id} · screen step", steps))


if __name__ == "__main__":
    main()
