"""The search coaches of Mille Bornes, SEVEN and Battle of LITS: strength, stability, latency, review.

Usage (prints Markdown for bench/RESULTS.md)::

    .venv/bin/python bench/bench_advisors_search.py --games mille,seven,lits \
        --parts strength,stability,review --pairs 20 --positions 30 --budget 1.0

Parts, per game:

* ``strength``: a bot that plays the advisor's best choice against the expert, over
  seeded pairs with the seats swapped on the same seed.  Mille: the first hand of a game
  to 5000 (a whole game is 4.5 hands: too long to play many), won by the higher Hand
  Total.  SEVEN (5 seats): the advisor at one seat among four experts, against the
  expert at that same seat on the same seed (the deal and the other experts' seeds).
  LITS: whole games on random layouts (``--layout``), each layout played from both seats.
  Both sides get ``--strength-budget`` seconds a decision.
* ``stability``: positions from seeded expert games, each advised twice with different
  sampling seeds at ``--budget``: how often the best action is the same, and how often the
  first run's best costs at most 0.02 (2 points of chance) by the second run's values
  (near ties count as agreement there).  The same calls give the hint latency (median, p95).
* ``review``: one whole game (Mille: to 5000) between experts, every decision of seat 0
  advised at ``--budget``, forced ones included: the total time.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugins"))

from gamenight.sdk import CHANCE, TERMINAL, Advice, BotContext


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a win rate."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


class AdvisorBot:
    """Plays the advisor's best choice."""

    def __init__(self, advisor: Any) -> None:
        self.advisor = advisor

    def choose(self, view: Any, legal: Sequence[str], ctx: BotContext) -> str:
        if len(legal) == 1:
            return legal[0]
        return self.advisor.advise(view, legal, ctx)[0].action


@dataclass
class Kit:
    """What the bench needs of one game."""

    name: str
    rules: Any
    seats: int
    options: dict[str, Any]
    expert: Callable[[int], Any]
    advisor: Callable[[int], Any]
    done: Callable[[Any], bool]
    """The series' unit is over (Mille: the first hand)."""
    winners: Callable[[Any], tuple[int, ...]]


def mille_kit() -> Kit:
    from gamenight_mille.advisor import MilleAdvisor
    from gamenight_mille.bots import ExpertBot
    from gamenight_mille.plugin import GAME
    from gamenight_mille.rules import GAME_OVER, HAND_OVER, hand_totals

    def hand_winners(state: Any) -> tuple[int, ...]:
        first, second = hand_totals(state)
        return (0,) if first > second else (1,) if second > first else (0, 1)

    return Kit(
        "Mille Bornes",
        GAME.rules,
        2,
        {},
        lambda seat: ExpertBot(),
        lambda seat: MilleAdvisor(seat),
        lambda state: state.phase in (HAND_OVER, GAME_OVER),
        hand_winners,
    )


def seven_kit() -> Kit:
    from gamenight_seven.advisor import SevenAdvisor
    from gamenight_seven.bots import ExpertBot
    from gamenight_seven.plugin import GAME

    return Kit(
        "SEVEN",
        GAME.rules,
        5,
        {},
        lambda seat: ExpertBot(seat),
        lambda seat: SevenAdvisor(seat),
        lambda state: GAME.rules.to_move(state) == TERMINAL,
        lambda state: (state.winner,),
    )


def lits_kit(layout: str) -> Kit:
    from gamenight_lits.advisor import LitsAdvisor
    from gamenight_lits.bots import ExpertBot
    from gamenight_lits.plugin import GAME

    return Kit(
        "Battle of LITS",
        GAME.rules,
        2,
        {"layout": layout},
        lambda seat: ExpertBot(),
        lambda seat: LitsAdvisor(seat),
        lambda state: state.turn == TERMINAL,
        lambda state: GAME.rules.outcome(state).winners,
    )


def play(kit: Kit, bots: Sequence[Any], seed: int, budget: float, visit: Callable[..., None] | None = None) -> Any:
    """One seeded game (or Mille hand) with ``bots``; ``visit(state, seat, legal, step)`` before each decision."""
    rules = kit.rules
    chance = random.Random(f"chance:{seed}")
    state = rules.new_game(kit.seats, kit.options)
    step = 0
    while not kit.done(state):
        seat = rules.to_move(state)
        if seat == CHANCE:
            state = rules.apply(state, rules.sample_chance(state, chance))
            continue
        legal = rules.legal_actions(state)
        if visit is not None:
            visit(state, seat, legal, step)
        ctx = BotContext(seat, random.Random(f"{seed}:{seat}:{step}"), time_budget=budget)
        state = rules.apply(state, bots[seat].choose(rules.view(state, seat), legal, ctx))
        step += 1
    return state


def strength(kit: Kit, pairs: int, budget: float) -> str:
    started = time.perf_counter()
    if kit.seats == 2:
        wins = 0.0
        for seed in range(pairs):
            for coach_seat in (0, 1):
                bots = [kit.expert(s) if s != coach_seat else AdvisorBot(kit.advisor(s)) for s in (0, 1)]
                winners = kit.winners(play(kit, bots, seed, budget))
                wins += (coach_seat in winners) / len(winners)
        games = 2 * pairs
        low, high = wilson(wins, games)
        line = (
            f"coach-bot vs expert, {pairs} seeds × both seats = {games}: **{wins:g}/{games} = {wins / games:.1%}** "
            f"(95% Wilson CI {low:.1%}–{high:.1%}; a tie counts half)"
        )
    else:
        coach = expert = 0
        differ = []
        for seed in range(pairs):
            seat = seed % kit.seats
            with_coach = [kit.expert(s) if s != seat else AdvisorBot(kit.advisor(s)) for s in range(kit.seats)]
            plain = [kit.expert(s) for s in range(kit.seats)]
            won_coach = seat in kit.winners(play(kit, with_coach, seed, budget))
            won_expert = seat in kit.winners(play(kit, plain, seed, budget))
            coach += won_coach
            expert += won_expert
            differ.append(won_coach - won_expert)
        low, high = wilson(coach, pairs)
        elow, ehigh = wilson(expert, pairs)
        mean = statistics.mean(differ)
        half = 1.96 * statistics.pstdev(differ) / math.sqrt(pairs)
        line = (
            f"{pairs} seeded deals, the tested seat rotating among {kit.seats} (four experts around it): "
            f"coach-bot won **{coach}/{pairs} = {coach / pairs:.1%}** (CI {low:.1%}–{high:.1%}), the expert in the "
            f"same seat on the same seeds {expert}/{pairs} = {expert / pairs:.1%} (CI {elow:.1%}–{ehigh:.1%}); "
            f"paired difference {mean:+.1%} ± {half:.1%} (95%)"
        )
    return f"- strength ({budget:g} s a decision): {line}; {time.perf_counter() - started:.0f} s\n"


def positions(kit: Kit, count: int, budget: float) -> list[tuple[Any, int, list[str]]]:
    """Decisions with two or more legal actions from seeded expert games, spread over the games."""
    found: list[tuple[Any, int, list[str]]] = []
    seed = 1000
    while len(found) < count:

        def visit(state: Any, seat: int, legal: list[str], step: int) -> None:
            if len(legal) > 1 and step % 5 == 2 and len(found) < count:
                found.append((state, seat, legal))

        play(kit, [kit.expert(s) for s in range(kit.seats)], seed, budget, visit)
        seed += 1
    return found


def stability(kit: Kit, count: int, budget: float, position_budget: float) -> str:
    same = near = 0
    latencies: list[float] = []
    cpu: list[float] = []
    samples: list[int] = []
    for index, (state, seat, legal) in enumerate(positions(kit, count, position_budget)):
        view = kit.rules.view(state, seat)
        runs: list[list[Advice]] = []
        for salt in (1, 2):
            advisor = kit.advisor(seat)
            ctx = BotContext(seat, random.Random(f"{index}:{salt}"), time_budget=budget)
            started, cpu_started = time.perf_counter(), time.process_time()
            runs.append(advisor.advise(view, legal, ctx))
            latencies.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - cpu_started) * 1000)
            samples.append(max(a.samples for a in runs[-1]))
        first, second = runs
        same += first[0].action == second[0].action
        value = {a.action: a.value for a in second}
        near += second[0].value - value[first[0].action] <= 0.02
    return (
        f"- stability ({count} positions from seeded expert games, each advised twice, {budget:g} s budget): "
        f"same best action **{same}/{count} = {same / count:.0%}**; first run's best within 0.02 of the "
        f"second run's best {near}/{count} = {near / count:.0%}\n"
        f"- hint latency ({len(latencies)} calls): median **{statistics.median(latencies):.0f} ms**, "
        f"p95 {percentile(latencies, 0.95):.0f} ms, max {max(latencies):.0f} ms (CPU median "
        f"{statistics.median(cpu):.0f} ms: the rest is waiting for a core); deals/playouts per call "
        f"median {statistics.median(samples):.0f} (min {min(samples)}, max {max(samples)})\n"
    )


def review(kit: Kit, budget: float, position_budget: float, whole: Callable[[Any], bool] | None) -> str:
    done = kit.done
    if whole is not None:
        kit.done = whole
    decisions: list[float] = []
    cpu: list[float] = []

    def visit(state: Any, seat: int, legal: list[str], step: int) -> None:
        if seat != 0:
            return
        advisor = kit.advisor(0)
        ctx = BotContext(0, random.Random(f"review:{step}"), time_budget=budget)
        started, cpu_started = time.perf_counter(), time.process_time()
        advisor.advise(kit.rules.view(state, 0), legal, ctx)
        decisions.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)

    play(kit, [kit.expert(s) for s in range(kit.seats)], 7, position_budget, visit)
    kit.done = done
    return (
        f"- review of one whole game (seat 0's {len(decisions)} decisions, forced ones included, {budget:g} s "
        f"budget): **{sum(decisions):.1f} s** wall, {sum(cpu):.1f} s CPU (median "
        f"{statistics.median(decisions) * 1000:.0f} ms a decision)\n"
    )


def game_over(rules: Any) -> Callable[[Any], bool]:
    """The whole game is over (not just the hand)."""
    return lambda state: rules.to_move(state) == TERMINAL


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="mille,seven,lits")
    parser.add_argument("--parts", default="strength,stability,review")
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--budget", type=float, default=1.0, help="seconds a hint (stability, latency, review)")
    parser.add_argument("--strength-budget", type=float, default=1.0, help="seconds a decision, both sides")
    parser.add_argument("--expert-budget", type=float, default=0.2, help="the experts that make the positions")
    parser.add_argument("--layout", default="random", help="LITS layout (random: one per seed)")
    args = parser.parse_args()
    kits = {"mille": mille_kit, "seven": seven_kit, "lits": lambda: lits_kit(args.layout)}
    for name in args.games.split(","):
        kit = kits[name]()
        print(f"### {kit.name}\n")
        for part in args.parts.split(","):
            if part == "strength":
                print(strength(kit, args.pairs, args.strength_budget), end="", flush=True)
            elif part == "stability":
                print(stability(kit, args.positions, args.budget, args.expert_budget), end="", flush=True)
            elif part == "review":
                whole = game_over(kit.rules) if name == "mille" else None
                print(review(kit, args.budget, args.expert_budget, whole), end="", flush=True)
        print()


if __name__ == "__main__":
    main()
