"""The games' seeded playout tests at their full counts.

The suite plays a bounded, seeded count of each (tests/plugins: the counts that still reach every
case the test names); this script calls the same test functions with the counts they were written
with, and prints the CPU time each takes (median and range over ``--runs`` runs; one run is the
check itself, which raises if anything it checks fails):

    .venv/bin/python bench/bench_playouts.py --runs 1

* SEVEN's fast kernel against the readable rules, state by state: 40 uniform deals and 150
  cards-first deals (the suite: 12 and 60);
* SEVEN's five-seat deals with random and greedy bots: 2,500 each (the suite: 1,000;
  ``bench/bench_seven.py invariants --deals 20000`` plays the 20,000 the game was specified with);
* SEVEN's expert simulator against the rules, move by move: 40 uniform, 120 card-first and 20
  hoarding deals (the suite: 12, 60 and 6);
* Mille's fast kernel against the readable rules: 4 uniform games to 5000 and 12 safeties-first
  games to 1500 (the suite: 3 and 6);
* Mille's seeded bot-vs-bot games to 5000, every pair of bots: 500 games (the suite: 200;
  ``bench/bench_mille.py --invariants 2000`` plays the specified 2,000).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def cases() -> list[tuple[str, Callable[[], object]]]:
    from gamenight_seven.bots import GreedyBot, RandomBot
    from gamenight_seven.plugin import GAME

    from tests.plugins.mille import test_fast_paths as mille_kernel
    from tests.plugins.mille import test_playouts as mille
    from tests.plugins.seven import test_fast_paths as seven_kernel
    from tests.plugins.seven import test_playouts as seven
    from tests.plugins.seven import test_simulator as seven_simulator

    found: list[tuple[str, Callable[[], object]]] = []
    for policy, deals in seven_kernel.FULL_DEALS.items():
        found.append(
            (
                f"SEVEN kernel = readable rules, {deals} {policy} deals",
                lambda policy=policy, deals=deals: (
                    seven_kernel.test_the_kernel_gives_the_readable_rules_states_in_seeded_random_deals(policy, deals)
                ),
            )
        )
    for bot in (RandomBot, GreedyBot):  # on the engine the room plays, as the test's fixture gives it
        found.append(
            (
                f"SEVEN 2,500 five-seat deals, {bot.__name__}",
                lambda bot=bot: seven.test_seeded_five_seat_deals_end_with_cards_conserved_and_zero_sum_scores(
                    GAME.rules, bot, deals=2_500
                ),
            )
        )
    found.append(
        (
            f"SEVEN simulator = rules, {' + '.join(map(str, seven_simulator.FULL_DEALS))} deals",
            lambda: seven_simulator.test_seeded_random_deals_play_the_same_in_the_simulator_and_the_rules(
                seven_simulator.FULL_DEALS
            ),
        )
    )
    for (policy, target), games in mille_kernel.FULL_GAMES.items():
        found.append(
            (
                f"Mille kernel = readable rules, {games} {policy} games to {target}",
                lambda policy=policy, games=games, target=target: (
                    mille_kernel.test_the_kernel_gives_the_readable_rules_states_in_seeded_random_games(
                        policy, games, target
                    )
                ),
            )
        )
    total = sum(mille.FULL_GAMES.values())
    found.append(
        (
            f"Mille {total} games to 5000, every pair of bots",
            lambda: [
                mille.test_seeded_bot_games_keep_every_invariant_and_every_hand_ends(pair, games)
                for pair, games in mille.FULL_GAMES.items()
            ],
        )
    )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--only", default="", help="only the playouts whose label holds this text")
    args = parser.parse_args()
    print("| playout, full count | CPU s (median) | min – max |")
    print("|---|---|---|")
    for label, check in cases():
        if args.only not in label:
            continue
        times = []
        for _run in range(args.runs):
            started = time.process_time()
            check()
            times.append(time.process_time() - started)
        print(f"| {label} | {statistics.median(times):.1f} | {min(times):.1f} – {max(times):.1f} |", flush=True)


if __name__ == "__main__":
    main()
