"""Rules engines side by side: each game's fast kernel, its readable rules.py, and (optionally)
the rules.py of another checkout, timed in alternating rounds in one process.

    .venv/bin/python bench/bench_kernels.py --rounds 15
    .venv/bin/python bench/bench_kernels.py --rounds 15 --against /tmp/main/plugins

``--against DIR`` loads ``DIR/gamenight_<game>/rules.py`` of an older checkout (e.g. main
before the rules were split, made by ``git archive main | tar -x -C /tmp/main``) as a
stand-alone module, so old and new engines run the same seeded work in the same process,
round by round: a change of machine load between rounds hits all of them alike, and the
ratio within each round cancels it.  Rates are per CPU second of this process.

The work is the speed loop of each game's bench script: SEVEN, 5-seat deals with a random
legal card (drawing only when no card is legal; ``bench_seven.py speed``); Mille Bornes,
uniformly random legal moves, counted in hands (``bench_mille.py``); Yatzy, random solo games
with the joker option on every other game (``bench_yatzy.py --only random``).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from gamenight.sdk import CHANCE, TERMINAL
from gamenight_mille.plugin import GAME as MILLE
from gamenight_mille.rules import GAME_OVER, HAND_OVER, MilleRules
from gamenight_seven.plugin import GAME as SEVEN
from gamenight_seven.rules import SevenRules
from gamenight_yatzy.plugin import GAME as YATZY
from gamenight_yatzy.rules import YatzyRules


def seven_deals(rules, seed: int, count: int) -> int:
    """``count`` 5-seat deals, a random legal card each turn (``draw``/``pass`` only when no card is legal)."""
    for deal in range(count):
        rng = random.Random(seed + deal)
        state = rules.new_game(5, {})
        while (seat := rules.to_move(state)) != TERMINAL:
            if seat == CHANCE:
                action = rules.sample_chance(state, rng)
            else:
                legal = rules.legal_actions(state)
                cards = [a for a in legal if a != "draw" and a != "pass"]
                action = rng.choice(cards) if cards else legal[0]
            state = rules.apply(state, action)
    return count


def mille_hands(rules, seed: int, count: int) -> int:
    """``count`` hands of uniformly random legal moves (games to 5000, a new one when one ends)."""
    rng = random.Random(seed)
    hands = 0
    state = rules.new_game(2, {})
    while hands < count:
        seat = rules.to_move(state)
        if seat == TERMINAL:
            state = rules.new_game(2, {})
        elif seat == CHANCE:
            state = rules.apply(state, rules.sample_chance(state, rng))
        else:
            state = rules.apply(state, rng.choice(rules.legal_actions(state)))
            hands += state.phase in (HAND_OVER, GAME_OVER)
    return hands


def yatzy_games(rules, seed: int, count: int) -> int:
    """``count`` random solo games, the joker option on every other one."""
    for game in range(count):
        rng = random.Random(seed + game)
        state = rules.new_game(1, {"joker": game % 2 == 1})
        while (seat := rules.to_move(state)) != TERMINAL:
            action = rules.sample_chance(state, rng) if seat == CHANCE else rng.choice(rules.legal_actions(state))
            state = rules.apply(state, action)
    return count


GAMES: dict[str, tuple[str, Callable[[object, int, int], int], object, type, str]] = {
    "seven": ("deals", seven_deals, SEVEN.rules, SevenRules, "SevenRules"),
    "mille": ("hands", mille_hands, MILLE.rules, MilleRules, "MilleRules"),
    "yatzy": ("games", yatzy_games, YATZY.rules, YatzyRules, "YatzyRules"),
}


def load_rules(directory: Path, game: str, class_name: str) -> object:
    """The rules class of ``directory/gamenight_<game>/rules.py``, loaded as a module of its own."""
    path = directory / f"gamenight_{game}" / "rules.py"
    spec = importlib.util.spec_from_file_location(f"_against_{game}_rules", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return getattr(module, class_name)()


def measure(game: str, rounds: int, seconds: float, against: Path | None) -> list[str]:
    unit, work, kernel, readable_class, class_name = GAMES[game]
    engines = {"kernel (what the room plays)": kernel, "readable rules.py": readable_class()}
    if against is not None:
        engines[f"rules.py of {against}"] = load_rules(against, game, class_name)
    names = list(engines)
    work(kernel, 0, 1)  # warm up tables and caches built on first use
    size = 1
    while True:  # a round of the kernel takes about ``seconds``
        cpu = time.process_time()
        work(kernel, 0, size)
        spent = time.process_time() - cpu
        if spent > 0.2:
            break
        size *= 2
    size = max(1, round(size * seconds / spent))
    rates: dict[str, list[float]] = {name: [] for name in names}
    for round_number in range(rounds):
        order = names if round_number % 2 == 0 else names[::-1]
        for name in order:
            cpu = time.process_time()
            done = work(engines[name], 10_000 * round_number, size)
            rates[name].append(done / max(time.process_time() - cpu, 1e-9))
    lines = [
        f"### {game}: {unit} per CPU second ({rounds} alternating rounds of {size} {unit} each)",
        "",
        f"| engine | median {unit}/CPU s | min – max | ratio to the kernel, round by round (median; quartiles) |",
        "|---|---|---|---|",
    ]
    base = rates[names[0]]
    for name in names:
        ratios = sorted(a / b for a, b in zip(rates[name], base, strict=True))
        quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
        lines.append(
            f"| {name} | {statistics.median(rates[name]):,.0f} | {min(rates[name]):,.0f} – {max(rates[name]):,.0f} | "
            f"{statistics.median(ratios):.2f} ({quartiles[0]:.2f} – {quartiles[2]:.2f}) |"
        )
    return [*lines, ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--round-seconds", type=float, default=1.0, help="CPU seconds of the kernel per round")
    parser.add_argument("--against", type=Path, help="the plugins directory of another checkout")
    parser.add_argument("--games", default="seven,mille,yatzy")
    args = parser.parse_args()
    print(f"Load average {os.getloadavg()[0]:.1f} at start; Python {sys.version.split()[0]}.\n")
    for game in args.games.split(","):
        print("\n".join(measure(game, args.rounds, args.round_seconds, args.against)), flush=True)


if __name__ == "__main__":
    main()
