"""Mate benchmarks: the perfect bot's solve time, perfect vs greedy, and game values.

Run from the repository root, e.g.::

    .venv/bin/python bench/bench_mate.py timing --deals 500
    .venv/bin/python bench/bench_mate.py versus --games 250 --first-seed 0 --raw /tmp/mate-versus.jsonl
    .venv/bin/python bench/bench_mate.py summarise --raw /tmp/mate-versus.jsonl
    .venv/bin/python bench/bench_mate.py agree --deals 10

``timing`` solves 500 seeded deals from scratch (a fresh solver each), with and
without foreplacing, timing the dealer's first decision of the play: with
foreplacing that decision is solved by solving every foreplacing choice of both
seats; without, it is the first lead.  It also reports the distribution of the
deal's value for the leader (how often the leader can force a mate).
``versus`` plays whole matches (four plays) perfect vs greedy, alternating
seats, and appends one JSON line per match to ``--raw`` so that a long series
can be run in chunks of a few minutes; ``summarise`` reports the mean score
difference with its 95% confidence interval.  ``agree`` checks the solver
against a plain memoised minimax on full deals.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from gamenight.match import Match, SeatConfig
from gamenight.sdk import BotContext
from gamenight_mate.bots import PerfectBot
from gamenight_mate.plugin import GAME
from gamenight_mate.reference import plain_minimax
from gamenight_mate.rules import MateRules, MateState
from gamenight_mate.solver import Solver

RULES = MateRules()


def deal(seed: int, options: dict) -> MateState:
    """Play 1 of a match dealt from the shuffle of ``seed``."""
    state = RULES.new_game(2, options)
    return RULES.apply(state, RULES.sample_chance(state, random.Random(seed)))


def percentile(sorted_values: list[float], fraction: float) -> float:
    """The nearest-rank percentile of already sorted values."""
    index = max(0, math.ceil(fraction * len(sorted_values)) - 1)
    return sorted_values[index]


def timing(deals: int) -> None:
    """Solve time of the first decision of a fresh deal, and the deal values."""
    print(f"## Solve time of a full deal ({deals} seeded deals, fresh solver each)\n")
    print("| foreplacing | clock | median s | p90 s | p99 s | max s | mean nodes |")
    print("|---|---|---|---|---|---|---|")
    values: dict[bool, list[int]] = {}
    for foreplacing in (False, True):
        times, cpu_times, nodes, found = [], [], [], []
        for seed in range(deals):
            state = deal(seed, {"foreplacing": foreplacing})
            bot = PerfectBot()
            legal = RULES.legal_actions(state)
            started, cpu_started = time.perf_counter(), time.process_time()
            bot.choose(state, legal, BotContext(seat=0, rng=random.Random(seed)))
            times.append(time.perf_counter() - started)
            cpu_times.append(time.process_time() - cpu_started)
            solver = bot.solver(state.variant)
            nodes.append(solver.nodes)
            found.append(solver.play_value(state, 0))
        values[foreplacing] = found
        for clock, measured in (("wall", sorted(times)), ("cpu", sorted(cpu_times))):
            print(
                f"| {'on' if foreplacing else 'off'} | {clock} | {statistics.median(measured):.3f} | "
                f"{percentile(measured, 0.9):.3f} | {percentile(measured, 0.99):.3f} | {measured[-1]:.3f} | "
                f"{statistics.mean(nodes):.0f} |"
            )
        sys.stdout.flush()
    print("\n## Value of a deal for the leader (A deals and leads), perfect play by both\n")
    print("| foreplacing | leader forces a mate | draw | other seat forces a mate | mean value | median |")
    print("|---|---|---|---|---|---|")
    for foreplacing, found in values.items():
        count = len(found)
        wins = sum(v > 0 for v in found) / count
        draws = sum(v == 0 for v in found) / count
        losses = sum(v < 0 for v in found) / count
        print(
            f"| {'on' if foreplacing else 'off'} | {wins:.1%} | {draws:.1%} | {losses:.1%} | "
            f"{statistics.mean(found):+.1f} | {statistics.median(found):+.0f} |"
        )
    for foreplacing, found in values.items():
        print(f"\nMost frequent values (foreplacing {'on' if foreplacing else 'off'}): ", end="")
        print(", ".join(f"{value:+d} ×{n}" for value, n in Counter(found).most_common(10)))


def versus(games: int, first_seed: int, raw: Path) -> None:
    """Perfect vs greedy, whole matches, seats alternating; one JSON line per match."""
    with raw.open("a", encoding="utf-8") as out:
        for seed in range(first_seed, first_seed + games):
            perfect_seat = seed % 2
            seats = [SeatConfig("greedy", "greedy"), SeatConfig("greedy", "greedy")]
            seats[perfect_seat] = SeatConfig("perfect", "perfect")
            match = Match(GAME, seats, {}, seed=seed)
            started = time.perf_counter()
            while not match.over:
                if match.to_move() < 0:
                    match.apply_chance()
                else:
                    match.apply(match.bot_choice())
            scores = match.outcome().scores
            record = {
                "seed": seed,
                "perfect_seat": perfect_seat,
                "perfect": scores[perfect_seat],
                "greedy": scores[1 - perfect_seat],
                "seconds": round(time.perf_counter() - started, 3),
            }
            out.write(json.dumps(record) + "\n")
            out.flush()


def summarise(raw: Path) -> None:
    """Mean score difference (perfect - greedy) per match with a 95% confidence interval."""
    records = {}
    for line in raw.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        records[record["seed"]] = record  # a seed run twice counts once
    diffs = [r["perfect"] - r["greedy"] for r in records.values()]
    n = len(diffs)
    mean = statistics.mean(diffs)
    half = 1.96 * statistics.stdev(diffs) / math.sqrt(n)
    wins = sum(d > 0 for d in diffs) / n
    ties = sum(d == 0 for d in diffs) / n
    seconds = sorted(r["seconds"] for r in records.values())
    print(f"## Perfect vs greedy: {n} matches of four plays (seeds {min(records)}-{max(records)})\n")
    print(
        f"- mean score difference per match (perfect - greedy): **{mean:+.1f}** "
        f"(95% CI {mean - half:+.1f} to {mean + half:+.1f}; sd {statistics.stdev(diffs):.1f})"
    )
    print(f"- perfect wins {wins:.1%} of the matches, ties {ties:.1%}")
    print(
        f"- mean match totals: perfect {statistics.mean(r['perfect'] for r in records.values()):.1f}, "
        f"greedy {statistics.mean(r['greedy'] for r in records.values()):.1f}"
    )
    print(f"- seconds per match: median {statistics.median(seconds):.2f}, max {seconds[-1]:.2f}")


def agree(deals: int) -> None:
    """The solver against plain minimax on full deals (variants and foreplaced cards vary)."""
    variants = [{}, {"double_deck": True}, {"kings_privilege": True}, {"free_move": True}]
    agreed = 0
    for seed in range(deals):
        rng = random.Random(seed)
        state = deal(seed, {**variants[seed % len(variants)], "foreplacing": seed % 3 == 2})
        while state.phase == "foreplace":
            state = RULES.apply(state, rng.choice(RULES.legal_actions(state)))
        solved = Solver(state.variant).play_value(state, state.leader)
        plain = plain_minimax(state, state.leader)
        agreed += solved == plain
        print(f"- deal {seed}: solver {solved:+d}, plain minimax {plain:+d}", flush=True)
    print(f"\n{agreed} of {deals} full deals agree.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    timing_parser = sub.add_parser("timing")
    timing_parser.add_argument("--deals", type=int, default=500)
    versus_parser = sub.add_parser("versus")
    versus_parser.add_argument("--games", type=int, default=1000)
    versus_parser.add_argument("--first-seed", type=int, default=0)
    versus_parser.add_argument("--raw", type=Path, required=True)
    summary_parser = sub.add_parser("summarise")
    summary_parser.add_argument("--raw", type=Path, required=True)
    agree_parser = sub.add_parser("agree")
    agree_parser.add_argument("--deals", type=int, default=10)
    args = parser.parse_args()
    if args.command == "timing":
        timing(args.deals)
    elif args.command == "versus":
        versus(args.games, args.first_seed, args.raw)
    elif args.command == "summarise":
        summarise(args.raw)
    else:
        agree(args.deals)


if __name__ == "__main__":
    main()
