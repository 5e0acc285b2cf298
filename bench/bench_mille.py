"""Mille Bornes benchmarks: bot strength, bot thinking time, engine speed, invariants.

    .venv/bin/python bench/bench_mille.py                  # 400 games per pairing
    .venv/bin/python bench/bench_mille.py --games 100 --invariants 200
    .venv/bin/python bench/bench_mille.py --write bench/results/mille.md

* expert vs greedy and expert vs random, whole games to 5000, seats alternating:
  win rate with a 95% Wilson interval, mean final margin with a 95% interval,
  average points per hand per seat;
* the expert's thinking time per whole game and per decision (median, p99);
* random hands per CPU second of the engine the room plays (the plugin's rules:
  the fast kernel ``gamenight_mille.fast``) with random legal moves, and of the
  readable reference ``gamenight_mille.rules`` beside it;
* ``--invariants N``: N seeded bot-vs-bot games (random and greedy mixes) with
  every invariant checked after every action (101 cards accounted for, scores =
  sum of their lines, every hand ends).
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import random
import statistics
import sys
import time
from pathlib import Path

from gamenight.sdk import CHANCE, TERMINAL, BotContext
from gamenight_mille.bots import ExpertBot, GreedyBot, RandomBot
from gamenight_mille.plugin import GAME
from gamenight_mille.rules import (
    GAME_OVER,
    HAND_OVER,
    MilleRules,
    hand_lines,
    hand_totals,
    invariant_errors,
)

RULES = GAME.rules
"""The engine the room plays (the fast kernel); ``MilleRules()`` is the readable reference."""
BOTS = {"random": RandomBot, "greedy": GreedyBot, "expert": ExpertBot}


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def mean_ci(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% normal interval."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, half


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0-1) by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def play_game(names: tuple[str, str], seed: int, check: bool = False) -> dict:
    """One game to 5000; returns totals, hands, per-seat thinking time and decision times."""
    rng = random.Random(f"bench:{seed}")
    bots = [BOTS[names[0]](), BOTS[names[1]]()]
    contexts = [BotContext(seat=i, rng=random.Random(f"bench:{seed}:{i}")) for i in (0, 1)]
    state = RULES.new_game(2, {})
    thinking = [0.0, 0.0]
    decisions: list[list[float]] = [[], []]
    hand_points = [0, 0]
    hands = 0
    steps = 0
    while True:
        seat = RULES.to_move(state)
        if seat == TERMINAL:
            break
        if seat == CHANCE:
            state = RULES.apply(state, RULES.sample_chance(state, rng))
            hands += 1
            steps = 0
            continue
        legal = RULES.legal_actions(state)
        view = RULES.view(state, seat)
        started = time.perf_counter()
        action = bots[seat].choose(view, legal, contexts[seat])
        spent = time.perf_counter() - started
        thinking[seat] += spent
        decisions[seat].append(spent)
        before = state
        state = RULES.apply(state, action)
        steps += 1
        if check:
            assert action in legal, f"game {seed}: illegal {action!r}"
            assert steps < 400, f"game {seed}: hand {hands} did not end"
            errors = invariant_errors(state)
            assert not errors, f"game {seed}: {errors}"
        if state.phase in (HAND_OVER, GAME_OVER):
            totals = hand_totals(state)
            if check:
                lines = hand_lines(state)
                assert totals == tuple(sum(v[i] for _l, v in lines) for i in (0, 1)), f"game {seed}: lines"
                assert state.totals == (before.totals[0] + totals[0], before.totals[1] + totals[1])
            hand_points[0] += totals[0]
            hand_points[1] += totals[1]
    outcome = RULES.outcome(state)
    return {
        "totals": state.totals,
        "winner": outcome.winners[0],
        "hands": hands,
        "thinking": thinking,
        "decisions": decisions,
        "hand_points": hand_points,
    }


def pairing(bot: str, opponent: str, games: int) -> dict:
    """``bot`` against ``opponent`` over ``games`` games, seats alternating."""
    wins = 0
    margins: list[float] = []
    think_per_game: list[float] = []
    decision_times: list[float] = []
    points = [0, 0]
    hands = 0
    for index in range(games):
        seat = index % 2
        names = (bot, opponent) if seat == 0 else (opponent, bot)
        result = play_game(names, index)
        wins += result["winner"] == seat
        margins.append(result["totals"][seat] - result["totals"][1 - seat])
        think_per_game.append(result["thinking"][seat])
        decision_times.extend(result["decisions"][seat])
        points[0] += result["hand_points"][seat]
        points[1] += result["hand_points"][1 - seat]
        hands += result["hands"]
    low, high = wilson(wins, games)
    margin, margin_half = mean_ci(margins)
    return {
        "bot": bot,
        "opponent": opponent,
        "games": games,
        "wins": wins,
        "rate": wins / games,
        "ci": (low, high),
        "margin": (margin, margin_half),
        "per_hand": (points[0] / hands, points[1] / hands),
        "hands_per_game": hands / games,
        "think_median": statistics.median(think_per_game),
        "think_p99": percentile(think_per_game, 0.99),
        "think_max": max(think_per_game),
        "decision_median": statistics.median(decision_times),
        "decision_p99": percentile(decision_times, 0.99),
    }


def random_hands_per_second(seconds: float = 5.0, rules=RULES) -> tuple[float, int]:
    """Hands per CPU second of ``rules`` with uniformly random legal moves.

    CPU time (``process_time``), so other jobs on the shared machine do not count.
    """
    rng = random.Random(1)
    hands = 0
    started = time.process_time()
    state = rules.new_game(2, {})
    while time.process_time() - started < seconds:
        seat = rules.to_move(state)
        if seat == TERMINAL:
            state = rules.new_game(2, {})
        elif seat == CHANCE:
            state = rules.apply(state, rules.sample_chance(state, rng))
        else:
            state = rules.apply(state, rng.choice(rules.legal_actions(state)))
            if state.phase in (HAND_OVER, GAME_OVER):
                hands += 1
    elapsed = time.process_time() - started
    return hands / elapsed, hands


def invariant_run(games: int) -> dict:
    """``games`` seeded games across random/greedy pairings with every invariant checked."""
    pairs = [("random", "random"), ("greedy", "random"), ("random", "greedy"), ("greedy", "greedy")]
    started = time.perf_counter()
    hands = 0
    for index in range(games):
        hands += play_game(pairs[index % len(pairs)], 100_000 + index, check=True)["hands"]
    return {"games": games, "hands": hands, "seconds": time.perf_counter() - started}


def report(
    results: list[dict],
    speed: tuple[float, int] | None,
    invariants: dict | None,
    command: str,
    heading: bool = True,
) -> str:
    """The results as Markdown (without the page title when appended to an earlier run)."""
    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["# Mille Bornes benchmarks", ""] if heading else [""]
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    lines += [
        f"Measured {today} on the shared 2-core machine (load average {load}: other jobs share it) with:",
        "",
        "```",
        command,
        "```",
    ]
    if results:
        lines += [
            "",
            "## Bot strength (whole games to 5000, seats alternating)",
            "",
            "| pairing | games | wins | win rate (95% CI) | mean final margin (95% CI) "
            "| points/hand (bot / opponent) | hands/game |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for r in results:
            low, high = r["ci"]
            margin, half = r["margin"]
            lines.append(
                f"| {r['bot']} vs {r['opponent']} | {r['games']} | {r['wins']} | "
                f"{r['rate']:.1%} ({low:.1%}–{high:.1%}) | {margin:+.0f} (±{half:.0f}) | "
                f"{r['per_hand'][0]:.0f} / {r['per_hand'][1]:.0f} | {r['hands_per_game']:.2f} |"
            )
        lines += [
            "",
            "## Expert thinking time",
            "",
            "| pairing | per game: median | per game: p99 | per game: max | per decision: median | per decision: p99 |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for r in results:
            lines.append(
                f"| {r['bot']} vs {r['opponent']} | {r['think_median'] * 1000:.0f} ms | "
                f"{r['think_p99'] * 1000:.0f} ms | {r['think_max'] * 1000:.0f} ms | "
                f"{r['decision_median'] * 1e6:.0f} µs | {r['decision_p99'] * 1e6:.0f} µs |"
            )
        lines += ["", "Target: under 2 s of thinking for a whole game."]
    if speed is not None:
        lines += [
            "",
            "## Engine speed",
            "",
            f"Random legal moves, bare rules engine: **{speed[0]:.0f} hands per CPU second** ({speed[1]} hands; "
            "target ≥ 500).",
        ]
    if invariants is not None:
        lines += [
            "",
            "## Invariants",
            "",
            f"{invariants['games']} seeded games (random/greedy mixes, {invariants['hands']} hands) with every "
            "invariant checked after every action — all 101 cards accounted for, mileage = its distance cards, "
            "at most two 200s, hand totals = the sum of their lines, overall totals = the sum of the hands, "
            f"every hand ending within 400 actions: **all passed** in {invariants['seconds']:.0f} s.",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per pairing (default 400)")
    parser.add_argument("--invariants", type=int, default=0, help="seeded games with invariant checks")
    parser.add_argument("--speed-seconds", type=float, default=5.0, help="seconds for the hands/s measure")
    parser.add_argument("--write", type=Path, help="write the Markdown report to this file")
    parser.add_argument("--append", action="store_true", help="append to --write instead of replacing it")
    args = parser.parse_args(argv)
    command = "$ .venv/bin/python bench/bench_mille.py " + " ".join(argv if argv is not None else sys.argv[1:])
    results = []
    for opponent in ("greedy", "random") if args.games else ():
        result = pairing("expert", opponent, args.games)
        print(f"expert vs {opponent}: {result['rate']:.1%} {result['ci']} margin {result['margin']}", flush=True)
        results.append(result)
    speed = random_hands_per_second(args.speed_seconds) if args.speed_seconds > 0 else None
    if speed:
        print(f"random hands/s: {speed[0]:.0f}", flush=True)
        readable = random_hands_per_second(args.speed_seconds, MilleRules())
        print(f"random hands/s, readable rules.py: {readable[0]:.0f}", flush=True)
    invariants = invariant_run(args.invariants) if args.invariants else None
    if invariants:
        print(f"invariants: {invariants}", flush=True)
    text = report(results, speed, invariants, command.strip(), heading=not args.append)
    if args.write:
        with args.write.open("a" if args.append else "w", encoding="utf-8") as handle:
            handle.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
