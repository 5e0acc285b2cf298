"""SEVEN benchmarks: bot strength, decision time, engine speed, and 20,000 checked deals.

Run from the repository root (each part can be run on its own)::

    .venv/bin/python bench/bench_seven.py strength --opponent greedy --deals 2000
    .venv/bin/python bench/bench_seven.py strength --opponent random --deals 2000
    .venv/bin/python bench/bench_seven.py ceiling --knows hands,stock,next,short --deals 400
    .venv/bin/python bench/bench_seven.py ceiling --knows voids,suits,specials,plain,suits+specials --deals 400
    .venv/bin/python bench/bench_seven.py speed --seconds 40
    .venv/bin/python bench/bench_seven.py decisions --deals 20 --every 4
    .venv/bin/python bench/bench_seven.py invariants --deals 20000

* ``strength``: ``expert`` in one seat against four ``greedy`` or four
  ``random`` bots (or four ``expert`` ones at their defaults).  The expert's
  seat rotates with the deal number (seat 0 always leads), deal ``i`` uses
  seed ``i``.  Win rate and mean points per deal with 95% confidence
  intervals (fair share: 20% and 0 points), and the expert's decision time
  (median and 99th percentile).  ``--bot greedy``,
  ``random`` or ``keeper`` (the expert's playout policy alone) put a baseline
  in the same seat on the same deals; the expert's settings (an
  :class:`~gamenight_seven.bots.ExpertSettings` built from ``--samples``,
  ``--horizon``, ``--no-posterior`` for the plain sampler, the posterior
  chain's ``--burn``/``--thin``/``--beta`` ...) can be varied, and
  ``--outcomes FILE`` keeps every deal's result for paired comparisons.
* ``ceiling``: the expert's search handed some of the true hidden cards (a
  bench-only oracle: all other hands, also the stock order, the next seat's
  hand, the hands of the seats close to going out, or a part of every hand:
  its voids, its suit counts, where the 7s/Aces/Queens or the plain cards
  are), to show how far hidden information limits any honest bot, and which
  of it matters.
* ``speed``: random deals per second of the engine the room plays (the plugin's
  rules: the fast kernel ``gamenight_seven.fast``), and of the readable
  reference ``gamenight_seven.rules`` beside it, measured side by side in
  this one process with OpenSpiel's ``crazy_eights`` (``pip install
  open_spiel``; not a project dependency) driven by random legal actions from
  Python.  All are timed in alternating rounds so machine load hits each alike;
  deals per CPU second of this process are given beside wall clock.
* ``decisions``: the room's expert on fixed positions (real choices of seeded
  greedy deals), CPU time per decision: the same search on the same
  positions, so two versions compare whatever the machine's load.
* ``invariants``: seeded 5-seat deals with random bots; after every action the
  52 cards are conserved; every deal ends; every deal's scores sum to zero.

The bounded check before and after a change to the expert (a few minutes of CPU, ~10 of
wall clock on the shared box): ``strength --deals 400 --seed 0 --outcomes FILE`` (pair the
two files deal by deal) and ``decisions --deals 20 --every 4``.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / p) for p in ("core", "plugins")]

from gamenight.sdk import CHANCE, TERMINAL, BotContext  # noqa: E402
from gamenight_seven.bots import ExpertBot, ExpertSettings, GreedyBot, RandomBot  # noqa: E402
from gamenight_seven.plugin import GAME  # noqa: E402
from gamenight_seven.policies import action_for, keeper_card  # noqa: E402
from gamenight_seven.rules import SevenRules  # noqa: E402

RULES = GAME.rules
"""The engine the room plays (the fast kernel); ``SevenRules()`` is the readable reference."""
CHOICES = ExpertBot()
"""Used only to tell decisions with a real choice from the others (its candidates)."""


def mean_ci(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("nan")
    return mean, half


def wilson(successes: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    z = 1.96
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def play_deal(bots: list, seed: int, timed: int = -1, times: list[tuple[float, bool, float]] | None = None):
    """One deal; ``timed`` is the seat whose decision times go into ``times``.

    Each as (wall seconds, whether it had a real choice, CPU seconds of this process: load-proof).
    """
    rng = random.Random(seed)
    state = RULES.new_game(len(bots), {})
    while True:
        seat = RULES.to_move(state)
        if seat == TERMINAL:
            return state
        if seat == CHANCE:
            action = RULES.sample_chance(state, rng)
        else:
            view, legal = RULES.view(state, seat), RULES.legal_actions(state)
            ctx = BotContext(seat, random.Random(rng.getrandbits(32)))
            if seat == timed and times is not None:
                started, cpu = time.perf_counter(), time.process_time()
                action = bots[seat].choose(view, legal, ctx)
                spent, cpu = time.perf_counter() - started, time.process_time() - cpu
                times.append((spent, len(CHOICES.candidates(view, legal)) > 1, cpu))
            else:
                action = bots[seat].choose(view, legal, ctx)
        state = RULES.apply(state, action)


def expert_settings(args: argparse.Namespace) -> ExpertSettings:
    """The expert's settings from the command line (the room's where not given)."""
    return ExpertSettings(
        samples=args.samples,
        horizon=args.horizon,
        win_bonus=args.win_bonus,
        greedy_model=not args.no_greedy_model,
        keeper=not args.no_keeper,
        all_calls=not args.best_call_only,
        track=not args.no_track,
        adapt=not args.no_adapt,
        posterior=not args.no_posterior,
        burn=args.burn,
        thin=args.thin,
        beta=args.beta,
    )


class _KeeperBot:
    """Bench-only baseline: the expert's playout policy on its own (no search)."""

    def choose(self, view, legal, ctx):
        card = keeper_card(view.hand, view.top, view.called, view.penalty)
        return legal[-1] if card < 0 else action_for(card, view.hand, legal)


def strength(args: argparse.Namespace) -> str:
    opponent = {"greedy": GreedyBot, "random": RandomBot, "expert": ExpertBot}[args.opponent]
    if args.bot == "expert":
        expert = ExpertBot(settings=expert_settings(args))
    else:  # a baseline: the same seat played by a plain bot
        expert = {"greedy": GreedyBot, "random": RandomBot, "keeper": _KeeperBot}[args.bot]()
    wins, points, times, turns, limit_hits = 0, [], [], [], 0
    outcomes = []
    started = time.perf_counter()
    for deal in range(args.deals):
        seat = deal % 5
        bots = [opponent() for _ in range(5)]
        bots[seat] = expert
        state = play_deal(bots, args.seed + deal, timed=seat, times=times)
        wins += state.winner == seat
        points.append(RULES.scores(state)[seat])
        outcomes.append(f"{deal} {int(state.winner == seat)} {points[-1]}")
        turns.append(state.turns)
        limit_hits += state.turns >= 500
    elapsed = time.perf_counter() - started
    if args.outcomes:
        Path(args.outcomes).write_text("\n".join(outcomes) + "\n")
    low, high = wilson(wins, args.deals)
    mean, half = mean_ci(points)
    choices = [spent for spent, chose, _cpu in times if chose]
    every = [spent for spent, _chose, _cpu in times]
    choices_cpu = [cpu for _spent, chose, cpu in times if chose]
    return "\n".join(
        [
            f"### {args.bot} vs four {args.opponent} ({args.deals} deals"
            + (f", {asdict(expert_settings(args))})" if args.bot == "expert" else ")"),
            "",
            "| measure | value |",
            "|---|---|",
            f"| win rate | {wins / args.deals:.1%} (95% CI {low:.1%} – {high:.1%}); fair share 20% |",
            f"| mean points per deal | {mean:+.2f} ± {half:.2f} (95% CI); fair share 0 |",
            f"| decision time, all {len(every)} decisions: median / p99 | "
            f"{statistics.median(every) * 1e3:.2f} ms / {percentile(every, 0.99) * 1e3:.1f} ms |",
            f"| decision time, the {len(choices)} with a real choice: median / p99 / max | "
            f"{statistics.median(choices) * 1e3:.1f} ms / {percentile(choices, 0.99) * 1e3:.1f} ms / "
            f"{max(choices) * 1e3:.1f} ms |",
            f"| CPU time of those decisions: median / p99 / total | {statistics.median(choices_cpu) * 1e3:.1f} ms / "
            f"{percentile(choices_cpu, 0.99) * 1e3:.1f} ms / {sum(choices_cpu):.1f} s |",
            f"| turns per deal, median (p99) | {statistics.median(turns):.0f} ({percentile(turns, 0.99):.0f}) |",
            f"| deals ended by the 500-turn guard | {limit_hits} |",
            f"| wall time | {elapsed:.0f} s |",
            *(
                [
                    f"| posterior chain: decisions, of which fell back; deals, of which not yet explaining the log | "
                    f"{', '.join(map(str, expert.chain_stats))} |"
                ]
                if args.bot == "expert"
                else []
            ),
        ]
    )


class _Oracle(ExpertBot):
    """The expert's search given information no seat has (bench-only).

    ``knows``: one of :data:`KNOWS` -- whole hands (``stock``, ``hands``, ``next``,
    ``short``) or parts of every other hand (``suits``, ``voids``, ``specials``,
    ``plain``, ``suits+specials``: see :meth:`_reveal`).  Whatever it does not
    know it samples (as the honest expert does for whole hands; at random for
    the parts).  This measures how much the hidden cards limit any honest bot,
    and which of them matter.
    """

    def __init__(self, knows: str, settings: ExpertSettings) -> None:
        super().__init__(settings=settings)
        self.knows = knows
        self.state = None

    def deals(self, view, rng, stop):
        """The expert's plain deals, each then corrected by what the oracle knows."""
        unseen = sorted(set(range(52)) - set(view.hand) - set(view.played))
        for hands, stock in super().deals(view, rng, stop):
            yield self._correct(view, hands, stock, unseen, rng)

    def _correct(self, view, hands, stock, unseen, rng):
        true = self.state.hands
        if self.knows in ("suits", "voids", "specials", "plain", "suits+specials"):
            return self._reveal(view, unseen, rng)
        if self.knows in ("hands", "stock"):
            stock = list(self.state.stock)
            if self.knows == "hands":
                rng.shuffle(stock)
            return [list(hand) for hand in true], stock
        if self.knows == "next":
            known = [(view.seat + 1) % view.seats]
        else:
            known = [seat for seat in range(view.seats) if seat != view.seat and len(true[seat]) <= 2]
        for seat in known:
            wanted = set(true[seat])
            spare = [c for c in hands[seat] if c not in wanted]
            for card in wanted - set(hands[seat]):
                place = stock if card in stock else next(h for h in hands if card in h)
                place[place.index(card)] = spare.pop()
            hands[seat] = list(true[seat])
        return hands, stock

    def _reveal(self, view, unseen, rng):
        """A deal of the unseen cards that honours what the oracle knows of each other hand.

        ``specials``/``plain``: where every 7, Ace and Queen (or every other card)
        is, the rest of each hand dealt from the other kind; ``suits``: each hand's
        count of each suit; ``voids``: which suits each hand lacks;
        ``suits+specials``: both the specials and the suits of the rest.
        """
        knows = self.knows
        special = frozenset(c for c in range(52) if c % 13 in (0, 6, 11))
        kind = {"specials": special, "suits+specials": special, "plain": frozenset(range(52)) - special}.get(
            knows, frozenset()
        )
        true = self.state.hands
        hands = [list(hand) if seat == view.seat else [c for c in hand if c in kind] for seat, hand in enumerate(true)]
        fixed = {c for seat, hand in enumerate(hands) if seat != view.seat for c in hand}
        pool = [c for c in unseen if c not in fixed and c not in kind]
        rng.shuffle(pool)
        for seat, hand in enumerate(true):
            if seat == view.seat:
                continue
            rest = [c for c in hand if c not in kind]
            quota = [sum(1 for c in rest if c // 13 == suit) for suit in range(4)]
            if knows == "voids":
                present = [suit for suit in range(4) if quota[suit]]
                quota = [1 if quota[suit] else 0 for suit in range(4)]
                for _ in range(len(rest) - len(present)):
                    quota[rng.choice(present)] += 1
            elif "suits" not in knows:
                quota = None
            taken = []
            for card in pool:
                if len(taken) == len(rest):
                    break
                if quota is None or quota[card // 13] > 0:
                    taken.append(card)
                    if quota is not None:
                        quota[card // 13] -= 1
            hands[seat] += taken
            chosen = set(taken)
            pool = [c for c in pool if c not in chosen]
        stock = pool + [c for c in unseen if c in kind and c not in fixed]
        rng.shuffle(stock)
        return hands, stock


KNOWS = {
    "hands": "the other hands (not the stock order)",
    "stock": "the other hands and the stock order",
    "next": "the next seat's hand only",
    "short": "the hands of the seats holding 2 cards or fewer",
    "suits": "how many cards of each suit each other hand holds",
    "voids": "which suits each other hand holds none of",
    "specials": "where every 7, Ace and Queen is (the plain cards sampled)",
    "plain": "where every plain card is (7s, Aces, Queens sampled)",
    "suits+specials": "where every 7, Ace and Queen is, and the suits of each hand's other cards",
}


def ceiling(args: argparse.Namespace) -> str:
    # The oracles replace the dealt hidden cards, so they deal them the plain way (no posterior chain).
    options = replace(expert_settings(args), posterior=False)
    lines = [
        f"### the same search with hidden cards revealed (bench-only oracle; {args.deals} deals "
        f"vs four greedy, {asdict(options)})",
        "",
        "| knows | win rate | mean points |",
        "|---|---|---|",
    ]
    for knows in args.knows.split(","):
        oracle = _Oracle(knows, options)
        wins, points = 0, []
        for deal in range(args.deals):
            seat = deal % 5
            rng = random.Random(args.seed + deal)
            bots = [GreedyBot() for _ in range(5)]
            state = RULES.new_game(5, {})
            while RULES.to_move(state) != TERMINAL:
                mover = RULES.to_move(state)
                if mover == CHANCE:
                    action = RULES.sample_chance(state, rng)
                else:
                    ctx = BotContext(mover, random.Random(rng.getrandbits(32)))
                    oracle.state = state
                    bot = oracle if mover == seat else bots[mover]
                    action = bot.choose(RULES.view(state, mover), RULES.legal_actions(state), ctx)
                state = RULES.apply(state, action)
            wins += state.winner == seat
            points.append(RULES.scores(state)[seat])
        low, high = wilson(wins, args.deals)
        mean, half = mean_ci(points)
        lines.append(
            f"| {KNOWS[knows]} | {wins / args.deals:.1%} ({low:.1%} – {high:.1%}) | {mean:+.2f} ± {half:.2f} |"
        )
    return "\n".join(lines)


def _random_card(legal: list[str], rng: random.Random) -> str:
    """A random legal discard; ``draw`` (or ``pass``) only when there is none."""
    cards = [action for action in legal if action != "draw" and action != "pass"]
    return rng.choice(cards) if cards else legal[0]


def _seven_random_deals(count: int, seed: int, policy: str, rules=RULES) -> tuple[int, int]:
    """Play ``count`` deals driven by ``policy`` (uniform, card or bot); return (deals, actions)."""
    actions = 0
    bot = RandomBot()
    for deal in range(count):
        rng = random.Random(seed + deal)
        ctx = BotContext(0, rng)
        state = rules.new_game(5, {})
        while True:
            seat = rules.to_move(state)
            if seat == TERMINAL:
                break
            if seat == CHANCE:
                action = rules.sample_chance(state, rng)
            else:
                legal = rules.legal_actions(state)
                if policy == "uniform":
                    action = rng.choice(legal)
                elif policy == "card":
                    action = _random_card(legal, rng)
                else:
                    action = bot.choose(rules.view(state, seat), legal, ctx)
            state = rules.apply(state, action)
            actions += 1
    return count, actions


def _spiel_random_deals(game, count: int, seed: int) -> tuple[int, int]:
    rng = random.Random(seed)
    actions = 0
    for _ in range(count):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                action = rng.choices([a for a, _p in outcomes], [p for _a, p in outcomes])[0]
            else:
                action = rng.choice(state.legal_actions())
            state.apply_action(action)
            actions += 1
    return count, actions


HEADLINE = "seven, random legal card from `legal_actions` (draws only when no card is legal)"
READABLE = "seven, the same with the readable reference `rules.SevenRules` (not what the room plays)"
READABLE_RULES = SevenRules()


def speed(args: argparse.Namespace) -> str:
    try:
        import pyspiel
    except ImportError:
        pyspiel = None
    runners = {
        HEADLINE: lambda n, s: _seven_random_deals(n, s, "card"),
        READABLE: lambda n, s: _seven_random_deals(n, s, "card", READABLE_RULES),
        "seven, the `random` bot (builds the seat's view for every move)": lambda n, s: _seven_random_deals(
            n, s, "bot"
        ),
        "seven, uniformly random legal actions (incl. draws at will, so deals run long)": lambda n, s: (
            _seven_random_deals(n, s, "uniform")
        ),
    }
    if pyspiel is not None:
        game = pyspiel.load_game("crazy_eights", {"players": 5})
        runners["OpenSpiel crazy_eights (5 players), uniformly random legal actions"] = lambda n, s: (
            _spiel_random_deals(game, n, s)
        )
    batch = {name: 0 for name in runners}
    totals = {name: [0, 0, 0.0] for name in runners}
    rates: dict[str, list[float]] = {name: [] for name in runners}
    cpu_rates: dict[str, list[float]] = {name: [] for name in runners}
    deadline = time.perf_counter() + args.seconds
    round_number = 0
    while time.perf_counter() < deadline:  # alternate short rounds so load hits every engine alike
        for name, run in runners.items():
            size = batch[name] or 20
            started, cpu = time.perf_counter(), time.process_time()
            deals, actions = run(size, 1000 * round_number)
            spent = time.perf_counter() - started
            cpu_rates[name].append(deals / max(time.process_time() - cpu, 1e-6))
            batch[name] = max(5, int(size * 0.5 / max(spent, 1e-3)))  # ~0.5 s per round
            totals[name][0] += deals
            totals[name][1] += actions
            totals[name][2] += spent
            rates[name].append(deals / spent)
        round_number += 1
    lines = [
        f"### random deals per second ({args.seconds:.0f} s, {round_number} alternating rounds, one process)",
        "",
        "| engine | deals/s (median of rounds; min – max) | deals per CPU s (median; min – max) | actions/s "
        "| actions per deal |",
        "|---|---|---|---|---|",
    ]
    for name, (deals, actions, spent) in totals.items():
        rounds, cpu_rounds = rates[name], cpu_rates[name]
        lines.append(
            f"| {name} | {statistics.median(rounds):,.0f} ({min(rounds):,.0f} – {max(rounds):,.0f}) | "
            f"{statistics.median(cpu_rounds):,.0f} ({min(cpu_rounds):,.0f} – {max(cpu_rounds):,.0f}) | "
            f"{actions / spent:,.0f} | {actions / deals:.0f} |"
        )
    if pyspiel is not None:
        spiel = rates["OpenSpiel crazy_eights (5 players), uniformly random legal actions"]
        ours, theirs = statistics.median(rates[HEADLINE]), statistics.median(spiel)
        # Paired within each round (run a second or two apart), so a change of load between rounds cancels out.
        paired = sorted(a / b for a, b in zip(rates[HEADLINE], spiel, strict=True))
        quartiles = statistics.quantiles(paired, n=4) if len(paired) > 1 else paired * 3
        lines += [
            "",
            f"Ratio seven (random legal card) / crazy_eights: **{ours / theirs:.2f}** in deals per second "
            f"(ratio of the medians); round by round **{statistics.median(paired):.2f}** "
            f"(median; quartiles {quartiles[0]:.2f} – {quartiles[2]:.2f}; {len(paired)} rounds).",
        ]
    else:
        lines += ["", "open_spiel is not installed: no crazy_eights comparison."]
    return "\n".join(lines)


def invariants(args: argparse.Namespace) -> str:
    bot = RandomBot()
    started = time.perf_counter()
    turns, blocked, actions = [], 0, 0
    for deal in range(args.deals):
        rng = random.Random(args.seed + deal)
        ctx = BotContext(0, rng)
        state = RULES.new_game(5, {})
        for _step in range(100_000):
            seat = RULES.to_move(state)
            if seat == TERMINAL:
                break
            if seat == CHANCE:
                action = RULES.sample_chance(state, rng)
            else:
                action = bot.choose(RULES.view(state, seat), RULES.legal_actions(state), ctx)
            state = RULES.apply(state, action)
            actions += 1
            held = sum(len(hand) for hand in state.hands) + len(state.stock) + len(state.discards)
            assert held == 52 or state.phase == 0, f"deal {deal}: {held} cards"
        else:
            raise AssertionError(f"deal {deal} did not end")
        everything = sorted([c for hand in state.hands for c in hand] + list(state.stock) + list(state.discards))
        assert everything == list(range(52)), f"deal {deal}: cards lost or doubled"
        assert sum(RULES.scores(state)) == 0, f"deal {deal}: scores do not sum to zero"
        turns.append(state.turns)
        blocked += state.blocked_from >= 0
    elapsed = time.perf_counter() - started
    return "\n".join(
        [
            f"### {args.deals} seeded 5-seat deals, random bots, checked after every action",
            "",
            f"All {args.deals} deals ended; 52 cards conserved after each of {actions:,} actions; every deal's "
            f"scores sum to zero. Turns per deal: median {statistics.median(turns):.0f}, p99 "
            f"{percentile(turns, 0.99):.0f}, max {max(turns)}; blocked deals {blocked}. Wall time {elapsed:.0f} s.",
        ]
    )


def decisions(args: argparse.Namespace) -> str:
    """The room's expert deciding on fixed positions: CPU time per decision (load-proof, comparable across versions).

    The positions are every ``--every``-th real choice of any seat in seeded deals of five
    greedy bots; the expert gets a fresh RNG per position and an unlimited time budget, so
    each version does the same search on the same positions.
    """
    positions = []
    for seed in range(args.seed, args.seed + args.deals):
        rng = random.Random(seed)
        greedy = GreedyBot()
        state = RULES.new_game(5, {})
        while (mover := RULES.to_move(state)) != TERMINAL:
            if mover == CHANCE:
                action = RULES.sample_chance(state, rng)
            else:
                view, legal = RULES.view(state, mover), RULES.legal_actions(state)
                if len(CHOICES.candidates(view, legal)) > 1:
                    positions.append((view, legal))
                action = greedy.choose(view, legal, BotContext(mover, rng))
            state = RULES.apply(state, action)
    positions = positions[:: args.every]
    times = []
    for index, (view, legal) in enumerate(positions):
        bot = ExpertBot()
        ctx = BotContext(view.seat, random.Random(index), time_budget=3600.0)
        started = time.process_time()
        bot.choose(view, legal, ctx)
        times.append(time.process_time() - started)
    quartiles = statistics.quantiles(times, n=4)
    return "\n".join(
        [
            f"### the room's expert on {len(positions)} fixed positions "
            f"(seeds {args.seed}-{args.seed + args.deals - 1}, every {args.every}th real choice)",
            "",
            "| CPU time per decision | value |",
            "|---|---|",
            f"| median (IQR) | {statistics.median(times) * 1e3:.1f} ms "
            f"({quartiles[0] * 1e3:.1f} – {quartiles[2] * 1e3:.1f}) |",
            f"| p90 / max | {percentile(times, 0.9) * 1e3:.1f} ms / {max(times) * 1e3:.1f} ms |",
            f"| total | {sum(times):.2f} s |",
        ]
    )


def add_expert_options(p: argparse.ArgumentParser) -> None:
    default = ExpertSettings()
    p.add_argument("--samples", type=int, default=default.samples)
    p.add_argument("--horizon", type=int, default=default.horizon, help="turns per playout (0: to the end)")
    p.add_argument("--win-bonus", type=float, default=default.win_bonus)
    p.add_argument(
        "--no-greedy-model",
        action="store_true",
        help="infer hidden cards from forced draws only, not from how 7s, Aces and Queens are played",
    )
    p.add_argument("--no-keeper", action="store_true", help="the expert's own playouts play greedy_card")
    p.add_argument("--best-call-only", action="store_true", help="a Queen is tried with best_call only")
    p.add_argument("--no-track", action="store_true", help="ignore what the log tells about the stock")
    p.add_argument(
        "--no-posterior",
        action="store_true",
        help="deal the hidden cards as infer_knowledge bends them, not by the posterior chain",
    )
    p.add_argument("--burn", type=int, default=default.burn, help="posterior chain moves before the first deal")
    p.add_argument("--thin", type=int, default=default.thin, help="posterior chain moves between deals")
    p.add_argument(
        "--beta",
        type=float,
        default=default.beta,
        help="posterior chain's energy weight (rises from 0.5 while burning in)",
    )
    p.add_argument(
        "--no-adapt",
        action="store_true",
        help="read every seat's plays by the greedy model, even a seat whose plays contradict it",
    )
    p.add_argument("--seed", type=int, default=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="part", required=True)
    p = sub.add_parser("strength")
    p.add_argument(
        "--opponent",
        choices=("greedy", "random", "expert"),
        default="greedy",
        help="the four other seats (expert: at its defaults, whatever the measured seat is given)",
    )
    p.add_argument(
        "--bot",
        choices=("expert", "greedy", "random", "keeper"),
        default="expert",
        help="the bot in the measured seat (greedy/random/keeper give baselines)",
    )
    p.add_argument("--deals", type=int, default=2000)
    p.add_argument("--outcomes", help="write each deal's result (deal, won, points) to this file")
    add_expert_options(p)
    p = sub.add_parser("ceiling")
    p.add_argument("--deals", type=int, default=400)
    p.add_argument("--knows", default="hands,stock", help="comma-separated: " + ", ".join(KNOWS))
    add_expert_options(p)
    p = sub.add_parser("speed")
    p.add_argument("--seconds", type=float, default=20.0)
    p = sub.add_parser("decisions")
    p.add_argument("--deals", type=int, default=20)
    p.add_argument("--every", type=int, default=2, help="take every n-th real choice")
    p.add_argument("--seed", type=int, default=0)
    p = sub.add_parser("invariants")
    p.add_argument("--deals", type=int, default=20000)
    p.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    parts = {"strength": strength, "ceiling": ceiling, "speed": speed, "decisions": decisions, "invariants": invariants}
    print(parts[args.part](args))


if __name__ == "__main__":
    main()
