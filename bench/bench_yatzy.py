"""Yatzy benchmarks: the optimal bot's table and decisions, random playouts, bot strength.

Run: ``.venv/bin/python bench/bench_yatzy.py`` (flags for the counts; ``--help``).
Prints a Markdown report (``--out FILE`` also writes it).  The tables are built
afresh (so the build time is always measured) and compared with the files the
package ships; a newcomer's start is timed in fresh processes with an empty cache.
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gamenight.arena import run_arena
from gamenight.match import SeatConfig, play_headless
from gamenight.sdk import CHANCE, TERMINAL, BotContext
from gamenight_yatzy import strategy
from gamenight_yatzy.bots import OptimalBot
from gamenight_yatzy.plugin import GAME
from gamenight_yatzy.rules import YATZY, YatzyRules, lower_total, upper_bonus, upper_total


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def spread(values: list[float], digits: int = 1) -> str:
    """``median (min–max, n runs)``."""
    return (
        f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}–{max(values):.{digits}f}, "
        f"{len(values)} runs)"
    )


def bench_table(lines: list[str], runs: int) -> None:
    """Build both tables from scratch and compare them with the shipped files; time reading those
    files, the user cache, and a newcomer's whole start (fresh processes, empty cache)."""
    lines.append("## Optimal table (DP over 2^13 used-box sets × upper 0..63 × Yatzy flag)\n")
    lines.append(
        "| ruleset | expected score | build wall s | build CPU s | equal to the shipped file | "
        "shipped file MB | read shipped ms | read cache ms |"
    )
    lines.append("|---|---|---|---|---|---|---|---|")
    for joker in (True, False):
        wall, cpu = time.perf_counter(), time.process_time()
        table = strategy.build_table(joker)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        shipped_path = strategy.packaged_path(joker)
        shipped = strategy.read_packaged(shipped_path)
        same = "bit for bit" if shipped is not None and shipped.tobytes() == table.tobytes() else "**NO**"
        reads = []
        for _ in range(runs):
            started = time.perf_counter()
            strategy.read_packaged(shipped_path)
            reads.append((time.perf_counter() - started) * 1000)
        path = strategy.cache_path(joker)
        strategy.load_or_build(path, lambda table=table: table)
        loads = []
        for _ in range(runs):
            started = time.perf_counter()
            strategy.load_or_build(path, lambda: sys.exit("cache unreadable"))
            loads.append((time.perf_counter() - started) * 1000)
        name = "joker (official Hasbro)" if joker else "default (docs/rules/yatzy.md 3.4)"
        lines.append(
            f"| {name} | {strategy.expected_score(table):.4f} | {wall:.1f} | {cpu:.1f} | {same} | "
            f"{shipped_path.stat().st_size / 1e6:.2f} | {spread(reads)} | {spread(loads)} |"
        )
    lines.append("")
    lines.append("A newcomer (fresh process, empty user cache, the shipped tables):\n")
    lines.append("| what | seconds, median (min–max) |")
    lines.append("|---|---|")
    for label, probe in (
        ("`import gamenight_yatzy.strategy` + `load_table(False)`, whole process", "load"),
        ("setup's Return → the Yatzy table on screen, Optimal bot seated (Pilot, 80×24)", "start"),
    ):
        seconds = [newcomer(probe) for _ in range(runs)]
        lines.append(f"| {label} | {spread(seconds, 2)} |")
    lines.append("")


def newcomer(probe: str) -> float:
    """Seconds one fresh process with an empty table cache takes for ``probe``."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "GAMENIGHT_YATZY_CACHE": cache}
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, __file__, "--probe", probe], env=env, capture_output=True, text=True, check=True
        )
        whole = time.perf_counter() - started
        if os.listdir(cache):
            sys.exit(f"the newcomer built a table: {os.listdir(cache)}")
    return whole if probe == "load" else float(done.stdout.split()[-1])


def probe_start() -> float:
    """Lobby -> Yatzy -> Return -> Return: seconds from the last Return to the table with its bot."""
    import asyncio

    from gamenight.app import GameNightApp
    from gamenight.config import Config
    from gamenight.plugins import load_registry
    from gamenight_yatzy.screen import YatzyScreen

    async def run() -> float:
        with tempfile.TemporaryDirectory() as home:
            app = GameNightApp(
                registry=load_registry(), config=Config.load(Path(home) / "c.toml"), saves_dir=Path(home), bot_delay=0
            )
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.pause()
                while app.screen.query_one("#games").highlighted_option.id != "yatzy":
                    await pilot.press("down")
                await pilot.press("enter")
                started = time.perf_counter()
                await pilot.press("enter")
                while not isinstance(app.screen, YatzyScreen):
                    await pilot.pause(0.01)
                return time.perf_counter() - started

    return asyncio.run(run())


def bench_decisions(lines: list[str], games: int) -> None:
    """Time every decision of the optimal bot (table loaded) over ``games`` solo games."""
    bot = OptimalBot(joker=False)
    rules = GAME.rules
    times: list[float] = []
    cold: list[float] = []
    cpu_times: list[float] = []
    for seed in range(games):
        rng = random.Random(seed)
        state = rules.new_game(1, {})
        while (seat := rules.to_move(state)) != TERMINAL:
            if seat == CHANCE:
                state = rules.apply(state, rules.sample_chance(state, rng))
                continue
            legal = rules.legal_actions(state)
            first_of_turn = state.rolls == 1
            started, cpu = time.perf_counter(), time.process_time()
            action = bot.choose(rules.view(state, 0), legal, BotContext(seat=0, rng=rng))
            elapsed = (time.perf_counter() - started) * 1000
            cpu_times.append((time.process_time() - cpu) * 1000)
            (cold if first_of_turn else times).append(elapsed)
            state = rules.apply(state, action)
    everything = times + cold
    lines.append(f"## Optimal bot time per decision ({games} solo games, {len(everything)} decisions)\n")
    lines.append("| decisions | median ms | p99 ms | max ms |")
    lines.append("|---|---|---|---|")
    for label, values in (
        ("all, wall clock", everything),
        ("first of a turn (turn expectimax computed), wall clock", cold),
        ("all, CPU time of this process (no waiting for a core)", cpu_times),
    ):
        lines.append(
            f"| {label} | {statistics.median(values):.3f} | {percentile(values, 0.99):.3f} | {max(values):.3f} |"
        )
    lines.append("")


def random_games(count: int, rules=GAME.rules) -> tuple[float, float]:
    """``count`` random solo games straight on ``rules``, checking the invariants.

    ``rules``: the engine the room plays (the fast kernel ``gamenight_yatzy.fast``) unless
    given (``YatzyRules()``: the readable reference).  Returns games per wall-clock second
    and per CPU second (this process's).
    """
    started, cpu = time.perf_counter(), time.process_time()
    for seed in range(count):
        rng = random.Random(seed)
        state = rules.new_game(1, {"joker": seed % 2 == 1})
        while (seat := rules.to_move(state)) != TERMINAL:
            action = rules.sample_chance(state, rng) if seat == CHANCE else rng.choice(rules.legal_actions(state))
            state = rules.apply(state, action)
        sheet, bonuses = state.sheets[0], state.bonuses[0]
        assert None not in sheet, "a box left open"
        total = upper_total(sheet) + upper_bonus(sheet) + lower_total(sheet) + 100 * bonuses
        assert rules.outcome(state).scores == (total,), "totals do not add up"
        assert bonuses == 0 or sheet[YATZY] == 50
    return count / (time.perf_counter() - started), count / (time.process_time() - cpu)


def bench_random(lines: list[str], count: int) -> None:
    runs = [random_games(count) for _ in range(3)]
    rates, cpu_rates = [wall for wall, _cpu in runs], [cpu for _wall, cpu in runs]
    readable = [random_games(count, YatzyRules())[1] for _ in range(3)]
    started = time.perf_counter()
    headless = count // 10
    for seed in range(headless):
        play_headless(GAME, [SeatConfig("r", "random")], {}, seed=seed)
    through_match = headless / (time.perf_counter() - started)
    lines.append(f"## Random full games per second (solo, invariants checked on every game: {count} × 3)\n")
    lines.append("| path | games/s |")
    lines.append("|---|---|")
    lines.append(
        f"| rules only, wall clock (median of 3 runs; runs: {', '.join(f'{r:.0f}' for r in rates)}) | "
        f"{statistics.median(rates):.0f} |"
    )
    lines.append(
        f"| rules only, per CPU second of this process (median of 3; runs: "
        f"{', '.join(f'{r:.0f}' for r in cpu_rates)}) | {statistics.median(cpu_rates):.0f} |"
    )
    lines.append(
        f"| readable `rules.YatzyRules` (not what the room plays), per CPU second (median of 3; runs: "
        f"{', '.join(f'{r:.0f}' for r in readable)}) | {statistics.median(readable):.0f} |"
    )
    lines.append(f"| through `Match`/`play_headless` with the `random` bot ({headless} games) | {through_match:.0f} |")
    lines.append("")


def bench_strength(lines: list[str], optimal_games: int, greedy_games: int, dp_value: float) -> None:
    lines.append("## Bot strength (solo games, `gamenight.arena.run_arena`, seed 0)\n")
    lines.append("| bot | games | mean | 95% CI | games/s |")
    lines.append("|---|---|---|---|---|")
    verdict = ""
    for bot, games in (("optimal", optimal_games), ("greedy", greedy_games), ("random", greedy_games)):
        result = run_arena(GAME, [bot], games, seed=0)
        seat = result.seats[0]
        low, high = seat.mean - seat.ci95, seat.mean + seat.ci95
        lines.append(f"| {bot} | {games} | {seat.mean:.2f} | {low:.2f} – {high:.2f} | {result.games_per_s:.0f} |")
        if bot == "optimal":
            verdict = "contains" if low <= dp_value <= high else "DOES NOT contain"
    lines.append(f"\nThe optimal bot's 95% CI {verdict} the DP value {dp_value:.4f} (default ruleset).\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decision-games", type=int, default=200)
    parser.add_argument("--random-games", type=int, default=10_000)
    parser.add_argument("--optimal-games", type=int, default=2_000)
    parser.add_argument("--greedy-games", type=int, default=2_000)
    parser.add_argument("--table-runs", type=int, default=7, help="repeats of each table timing")
    parser.add_argument("--probe", choices=["load", "start"], help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--only",
        choices=["table", "decisions", "random", "strength"],
        action="append",
        help="run only these parts (repeatable)",
    )
    args = parser.parse_args()
    if args.probe == "load":
        strategy.load_table(False)
        return
    if args.probe == "start":
        print(f"{probe_start():.4f}")
        return
    lines = [
        "# Yatzy benchmarks\n",
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start.\n",
        "Command: `.venv/bin/python bench/bench_yatzy.py " + " ".join(sys.argv[1:]) + "`\n",
    ]
    with tempfile.TemporaryDirectory() as cache:
        os.environ["GAMENIGHT_YATZY_CACHE"] = cache
        parts = set(args.only or ["table", "decisions", "random", "strength"])
        if "table" in parts:
            bench_table(lines, args.table_runs)
        if "decisions" in parts:
            bench_decisions(lines, args.decision_games)
        if "random" in parts:
            bench_random(lines, args.random_games)
        if "strength" in parts:
            dp_value = strategy.expected_score(strategy.load_table(False))
            bench_strength(lines, args.optimal_games, args.greedy_games, dp_value)
    report = "\n".join(lines)
    print(report)
    if args.out:
        args.out.write_text(report + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
