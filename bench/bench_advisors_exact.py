"""The exact coaches (Yatzy, Mate): agreement with independent paths, and a whole game's review time.

Run from the repository root::

    .venv/bin/python bench/bench_advisors_exact.py --yatzy 10000 --mate 1000 --reviews 5

* **Yatzy** -- ``--yatzy N`` positions, every decision of seeded random games (one and two
  seats, plain and joker rules alternating by game).  For each: (1) the ``optimal`` bot's choice
  must be worth the advisor's best value (within 1e-9): the advisor's best choice is the
  table's; (2) every action's value is recomputed by another road -- a box through the rules'
  own scoring (``Rules.apply``, ``current_scores``) plus a direct look-up of the table at the
  sheet after it; a hold through ``strategy.TurnValues`` looked up by the faces kept
  (``strategy.keep_index``), not by the hold mask; the first roll as the table's value of the
  sheet -- and the largest difference is reported.
* **Mate** -- ``--mate N`` positions, decisions of seeded random matches (every variant, foreplacing
  on and off).  Each advice must equal, action by action, ``Solver.action_values`` of a solver
  of its own (its own transposition table), and the verdict (win / draw / lose) must match.
* **Review** -- ``--reviews K`` saved games per game (a person playing as the ``greedy`` bot
  against the strongest bot), each reviewed by ``gamenight.coach.review`` with cold caches:
  median and range of the wall time and of the process's CPU time (on a shared machine the
  wall time is mostly waiting for a core).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from gamenight.coach import review
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.saves import save_match
from gamenight.sdk import CHANCE, BotContext
from gamenight.testing import random_playouts

REGISTRY = load_registry()


def yatzy(count: int) -> None:
    from gamenight_yatzy import strategy
    from gamenight_yatzy.advisor import yatzy_advisor
    from gamenight_yatzy.bots import OptimalBot, position
    from gamenight_yatzy.rules import FIRST_ROLL, seat_total

    game = REGISTRY.game("yatzy")
    rules = game.rules
    advisor = yatzy_advisor(rules, 0, {})
    bots = {joker: OptimalBot(joker) for joker in (False, True)}
    checked = agree = same_action = 0
    worst = 0.0
    started = time.perf_counter()
    advise_time = 0.0
    index = 0
    while checked < count:
        joker = index % 2 == 1
        (match,) = random_playouts(game, 1, seed=1000 + index, seats=1 + index % 2, options={"joker": joker})
        index += 1
        replay = Match(game, match.seats, match.options, seed=match.seed)
        for entry in match.log:
            if entry.seat != CHANCE and checked < count:
                state, seat = replay.state, entry.seat
                legal = rules.legal_actions(state)
                context = BotContext(seat=seat, rng=random.Random(0))
                tick = time.perf_counter()
                advice = advisor.advise(rules.view(state, seat), legal, context)
                advise_time += time.perf_counter() - tick
                values = {entry.action: entry.value for entry in advice}
                choice = bots[joker].choose(state, legal, context)
                agree += abs(values[choice] - advice[0].value) <= 1e-9
                same_action += choice == advice[0].action
                sheet = state.sheets[seat]
                now = float(seat_total(sheet, state.bonuses[seat]))
                table = strategy.load_table(joker)
                turn = strategy.turn_values(joker, *position(sheet))
                for action, value in values.items():
                    if action == FIRST_ROLL and state.rolls == 0:
                        expected = now + float(table[position(sheet)])
                    elif action.startswith("roll:"):
                        kept = [face for face, mark in zip(state.dice, action[5:], strict=True) if mark == "1"]
                        after = turn.after_one if state.rolls == 1 else turn.after_two
                        expected = now + float(after[strategy.keep_index(kept)])
                    else:
                        scored = rules.apply(state, action)
                        rest = scored.sheets[seat]
                        expected = rules.current_scores(scored)[seat] + (
                            float(table[position(rest)]) if None in rest else 0.0
                        )
                    worst = max(worst, abs(value - expected))
                checked += 1
            replay.apply(entry.action)
    print("## Yatzy: the advisor against the optimal bot and the table, looked up by another road\n")
    print("| figure | result |")
    print("|---|---|")
    print(f"| positions (from {index} random games, plain and joker) | {checked} |")
    print(f"| the optimal bot's choice is worth the advisor's best (within 1e-9) | {agree} of {checked} |")
    print(f"| ... and is the advisor's first action itself | {same_action} of {checked} |")
    print(f"| largest difference of any action's value | {worst:.3g} |")
    print(f"| advice time per position | {1000 * advise_time / checked:.2f} ms (mean) |")
    print(f"| wall time | {time.perf_counter() - started:.1f} s |\n")


def mate(count: int) -> None:
    from gamenight_mate.advisor import mate_advisor
    from gamenight_mate.solver import Solver

    game = REGISTRY.game("mate")
    rules = game.rules
    variants = [
        {},
        {"foreplacing": False},
        {"double_deck": True},
        {"kings_privilege": True},
        {"free_move": True, "foreplacing": False},
    ]
    checked = values_agree = verdicts_agree = 0
    kinds = {"win": 0, "draw": 0, "lose": 0}
    started = time.perf_counter()
    index = 0
    rng = random.Random(7)
    while checked < count:
        options = variants[index % len(variants)]
        (match,) = random_playouts(game, 1, seed=2000 + index, options=options)
        index += 1
        advisors = [mate_advisor(rules, seat, {}) for seat in (0, 1)]
        reference = Solver(match.state.variant)
        replay = Match(game, match.seats, match.options, seed=match.seed)
        for entry in match.log:
            # about one decision in four, so the positions spread over the plays of many matches
            if entry.seat != CHANCE and checked < count and rng.random() < 0.25:
                state, seat = replay.state, entry.seat
                legal = rules.legal_actions(state)
                advice = advisors[seat].advise(rules.view(state, seat), legal, BotContext(seat, random.Random(0)))
                expected = reference.action_values(rules.current(state), seat)
                got = {entry.action: entry.value for entry in advice}
                values_agree += got == {action: float(value) for action, value in expected.items()}
                verdicts_agree += all((got[a] > 0) - (got[a] < 0) == (v > 0) - (v < 0) for a, v in expected.items())
                best = advice[0].value
                kinds["win" if best > 0 else "lose" if best < 0 else "draw"] += 1
                checked += 1
            replay.apply(entry.action)
    print("## Mate: the advisor against Solver.action_values (a solver of its own)\n")
    print("| figure | result |")
    print("|---|---|")
    print(f"| positions (from {index} random matches, 5 variants) | {checked} |")
    print(f"| every action's value equal | {values_agree} of {checked} |")
    print(f"| every action's verdict (win / draw / lose) equal | {verdicts_agree} of {checked} |")
    print(f"| best verdict of the position: win / draw / lose | {kinds['win']} / {kinds['draw']} / {kinds['lose']} |")
    print(f"| wall time | {time.perf_counter() - started:.1f} s |\n")


def played(folder: Path, game_id: str, seed: int) -> Path:
    """A finished game: a person who moves as the greedy bot would, against the strongest bot."""
    game = REGISTRY.game(game_id)
    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bot", game.bots[-1].id)], {}, seed=seed)
    person = game.bot("greedy").factory(game.rules, 0, match.options)
    while not match.over:
        if match.to_move() == CHANCE:
            match.apply_chance()
        elif match.human_to_move():
            match.apply(person.choose(match.view(0), match.legal_actions(), BotContext(0, random.Random(seed))))
        else:
            match.apply(match.bot_choice())
    return save_match(match, folder / f"{game_id}-{seed}.toml")


def reviews(count: int) -> None:
    from gamenight_yatzy import strategy

    print("## A whole game's review (`gamenight.coach.review`), cold caches\n")
    print("| game | person decisions | wall: median | range | CPU: median | range | target |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for game_id in ("yatzy", "mate"):
            times, cpu, decisions = [], [], []
            for seed in range(count):
                path = played(Path(folder), game_id, seed)
                strategy._cached_turn.cache_clear()  # the turn values; the table itself stays loaded
                start, start_cpu = time.perf_counter(), time.process_time()
                result = review(REGISTRY, path)
                times.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
                decisions.append(len(result.decisions))
            print(
                f"| {game_id} | {statistics.median(decisions):.0f} | {statistics.median(times):.2f} s "
                f"| {min(times):.2f}–{max(times):.2f} s | {statistics.median(cpu):.2f} s "
                f"| {min(cpu):.2f}–{max(cpu):.2f} s | ≤ 5 s |"
            )
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--yatzy", type=int, default=10_000, metavar="N", help="Yatzy positions")
    parser.add_argument("--mate", type=int, default=1_000, metavar="N", help="Mate positions")
    parser.add_argument("--reviews", type=int, default=5, metavar="K", help="games reviewed per game")
    args = parser.parse_args()
    if args.yatzy:
        yatzy(args.yatzy)
    if args.mate:
        mate(args.mate)
    if args.reviews:
        reviews(args.reviews)


if __name__ == "__main__":
    main()
