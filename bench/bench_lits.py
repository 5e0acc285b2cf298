"""Battle of LITS benchmarks: move generation, random games, bot strength, expert timing.

Usage (each section prints a Markdown block for bench/results/lits.md)::

    .venv/bin/python bench/bench_lits.py --sections movegen,random,greedy,expert \
        --positions 2000 --random-seconds 10 --games 200 --expert-budget 0.25

Bot series alternate who starts; pairs of games share one random layout
(``--layout random``, seeded by the game number) so both seatings see it.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugins"))

from gamenight.sdk import CHANCE, TERMINAL, BotContext
from gamenight_lits.bots import ExpertBot, GreedyBot, RandomBot
from gamenight_lits.rules import LitsRules, LitsState, legal_placements

RULES = LitsRules()


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a win rate."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def new_game(layout: str, seed: int) -> LitsState:
    state = RULES.new_game(2, {"layout": layout})
    if state.turn == CHANCE:
        state = RULES.apply(state, RULES.sample_chance(state, random.Random(f"layout:{seed}")))
    return state


def bench_movegen(positions: int, layout: str) -> str:
    rng = random.Random(1)
    samples: list[LitsState] = []
    game = 0
    while len(samples) < positions:
        state = new_game(layout, game)
        game += 1
        while state.turn != TERMINAL:
            if not state.pie_pending and state.covered:
                samples.append(state)
            state = RULES.apply(state, rng.choice(RULES.legal_actions(state)))
    samples = samples[:positions]
    times, counts = [], []
    for state in samples:
        best = math.inf
        for _ in range(5):
            started = time.perf_counter()
            legal = legal_placements(state.covered, state.shapes, state.remaining)
            best = min(best, time.perf_counter() - started)
        times.append(best * 1e3)
        counts.append(len(legal))
    return (
        "### Legal-placement generation\n\n"
        f"{len(samples)} positions from seeded random games (every position after the first piece; "
        "best of 5 timings each).\n\n"
        f"- median **{statistics.median(times):.3f} ms**, p90 {percentile(times, 0.9):.3f} ms, "
        f"p99 {percentile(times, 0.99):.3f} ms, max {max(times):.3f} ms (target ≤ 1 ms)\n"
        f"- legal placements per position: median {statistics.median(counts):.0f}, "
        f"max {max(counts)}\n"
    )


def bench_random(seconds: float, layout: str) -> str:
    rng = random.Random(2)
    games = steps = 0
    started, cpu_started = time.perf_counter(), time.process_time()
    while time.perf_counter() - started < seconds:
        state = new_game(layout, games)
        while state.turn != TERMINAL:
            state = RULES.apply(state, rng.choice(RULES.legal_actions(state)))
            steps += 1
        games += 1
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    return (
        "### Random games\n\n"
        f"{games} games in {elapsed:.1f} s through the Rules API (legal_actions + validated apply): "
        f"**{games / elapsed:.0f} games/s** wall clock, **{games / cpu:.0f} games per CPU second** "
        f"(this process got {cpu / elapsed:.0%} of a core; target ≥ 200), {steps / games:.1f} actions per game.\n"
    )


def play(bots: list, layout: str, seed: int, timings: list[float] | None) -> tuple[tuple[int, ...], int]:
    state = new_game(layout, seed)
    step = 0
    while state.turn != TERMINAL:
        seat = state.turn
        ctx = BotContext(seat=seat, rng=random.Random(f"{seed}:{step}"))
        started = time.perf_counter()
        action = bots[seat].choose(state, RULES.legal_actions(state), ctx)
        if timings is not None and isinstance(bots[seat], ExpertBot):
            timings.append(time.perf_counter() - started)
        state = RULES.apply(state, action)
        step += 1
    outcome = RULES.outcome(state)
    return outcome.winners, int(outcome.scores[0] - outcome.scores[1])


def series(name: str, strong, weak, games: int, layout: str, note: str) -> str:
    wins = 0
    timings: list[float] = []
    margins: list[int] = []
    started = time.perf_counter()
    for game in range(games):
        strong_seat = game % 2
        bots = [strong(), weak()] if strong_seat == 0 else [weak(), strong()]
        winners, margin = play(bots, layout, game // 2, timings)
        wins += strong_seat in winners
        margins.append(margin if strong_seat == 0 else -margin)
    elapsed = time.perf_counter() - started
    low, high = wilson(wins, games)
    text = (
        f"### {name}\n\n{note}\n\n"
        f"- {games} games, alternating who starts: **{wins}/{games} = {wins / games:.1%}** "
        f"(95% Wilson CI {low:.1%}–{high:.1%}); mean margin {statistics.mean(margins):+.2f} marks; "
        f"{elapsed:.0f} s\n"
    )
    if timings:
        text += (
            f"- expert time per move: median {statistics.median(timings) * 1e3:.0f} ms, "
            f"p99 {percentile(timings, 0.99) * 1e3:.0f} ms, max {max(timings) * 1e3:.0f} ms "
            f"({len(timings)} moves)\n"
        )
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sections", default="movegen,random,greedy,expert")
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--random-seconds", type=float, default=10.0)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--expert-budget", type=float, default=0.25, help="seconds per expert move")
    parser.add_argument("--full-games", type=int, default=20, help="games for the 'full' section")
    parser.add_argument("--layout", default="random")
    args = parser.parse_args()
    sections = args.sections.split(",")
    if "movegen" in sections:
        print(bench_movegen(args.positions, args.layout), flush=True)
    if "random" in sections:
        print(bench_random(args.random_seconds, args.layout), flush=True)
    if "greedy" in sections:
        print(
            series("greedy vs random", GreedyBot, RandomBot, args.games, args.layout, "Layouts: " + args.layout + "."),
            flush=True,
        )
    if "expert" in sections:
        budget = args.expert_budget
        note = f"Expert at a reduced budget of {budget} s per move (the default is 2 s); layouts: {args.layout}."
        print(
            series("expert vs greedy", lambda: ExpertBot(budget), GreedyBot, args.games, args.layout, note), flush=True
        )
    if "full" in sections:
        note = f"Expert at its full budget of 2 s per move; layouts: {args.layout}."
        print(
            series("expert (2 s) vs greedy", lambda: ExpertBot(2.0), GreedyBot, args.full_games, args.layout, note),
            flush=True,
        )


if __name__ == "__main__":
    main()
