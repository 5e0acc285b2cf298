"""The coach's hint: from the ``?`` key to the panel drawn with its figures, in a headless room at 80×24.

    .venv/bin/python bench/bench_hint.py              # every game with an advisor, 40 runs each
    .venv/bin/python bench/bench_hint.py --runs 100 --games goofspiel

For each game whose plugin registers an advisor (the example plugin's Goofspiel from its
source folder, and every installed game that has one), a local game against its strongest
bot is opened at the first position where a person moves, and timed:

* **cold** -- the hint asked with nothing cached for the position (``screen.action_hint()``,
  what ``?`` runs) until the panel is filled: the worker thread started, the advisor on the
  seat's view, its answer checked, each choice put in words, the panel's widgets updated.
  Textual paints them in its next frame, after this clock;
* **of which the advisor** -- the advisor's ``advise`` call inside that;
* **cached** -- the panel hidden and asked again for the same position (drawn from the cache);
* **through Pilot, cold** -- the real ``?`` key pressed with Pilot until the frame after the
  panel was filled, beside **Pilot, a key that does nothing** (an unbound key, the same
  waits): the difference is what the hint adds to a key press as a person sees it.

Median, interquartile range and max of ``--runs`` runs each.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.sdk.testing import make_room, wait_for_bots
from gamenight.ui.coach import Coach

EXAMPLE_SRC = Path(__file__).resolve().parents[1] / "examples" / "gamenight-example" / "src"


def row(label: str, times: list[float]) -> str:
    q1, _median, q3 = statistics.quantiles(times, n=4)
    return f"| {label} | {statistics.median(times):.1f} ms | {q1:.1f}–{q3:.1f} ms | {max(times):.1f} ms |"


async def time_game(registry, game_id: str, runs: int) -> dict[str, list[float]]:
    game = registry.game(game_id)
    bot = max(game.bots, key=lambda spec: spec.strength).id if game.bots else None
    seats = [SeatConfig("Kei")] + [SeatConfig("Bot", bot) for _ in range(game.default_seats - 1)]
    match = Match(game, seats, {}, seed=1)
    app = make_room(registry, Path(tempfile.mkdtemp()), start_match=match)
    drawn = asyncio.Event()
    advised: list[float] = []
    original_draw = Coach.draw

    def draw(self, key, advice):
        original_draw(self, key, advice)
        drawn.set()

    Coach.draw = draw  # type: ignore[method-assign]
    times: dict[str, list[float]] = {
        "cold": [],
        "of which the advisor": [],
        "cached": [],
        "through Pilot, cold": [],
        "Pilot, a key that does nothing": [],
    }

    async def hint(cold: bool) -> float:
        if cold:
            coach.cache.clear()
            coach.words.clear()
        drawn.clear()
        start = time.perf_counter()
        screen.action_hint()
        await drawn.wait()
        elapsed = (time.perf_counter() - start) * 1000
        screen.action_hint()  # hidden again
        return elapsed

    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for_bots(pilot)
            screen = app.screen
            coach = screen.coach
            advisor_of = coach.spec.factory

            def timed_factory(rules, seat, options):
                advisor = advisor_of(rules, seat, options)
                advise = advisor.advise

                def timed(view, legal, ctx):
                    start = time.perf_counter()
                    try:
                        return advise(view, legal, ctx)
                    finally:
                        advised.append((time.perf_counter() - start) * 1000)

                advisor.advise = timed
                return advisor

            coach.advisors.clear()
            object.__setattr__(coach.spec, "factory", timed_factory)
            await hint(cold=True)  # the advisor built, its module imported: a first hint's cost, not timed
            for _ in range(runs):
                times["cold"].append(await hint(cold=True))
                times["of which the advisor"].append(advised[-1])
                times["cached"].append(await hint(cold=False))
                coach.cache.clear()
                coach.words.clear()
                drawn.clear()
                start = time.perf_counter()
                await pilot.press("question_mark")
                await drawn.wait()
                await pilot.pause()
                times["through Pilot, cold"].append((time.perf_counter() - start) * 1000)
                await pilot.press("question_mark")
                start = time.perf_counter()
                await pilot.press("f12")
                await pilot.pause()
                times["Pilot, a key that does nothing"].append((time.perf_counter() - start) * 1000)
            object.__setattr__(coach.spec, "factory", advisor_of)
    finally:
        Coach.draw = original_draw  # type: ignore[method-assign]
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--games", nargs="*", help="only these game ids")
    args = parser.parse_args()
    sys.path.append(str(EXAMPLE_SRC))
    import gamenight_example.plugin as example

    registry = load_registry(extra_plugins={"gamenight-example": example})
    games = sorted(game.id for game in registry.games.values() if game.advisor is not None)
    if args.games:
        games = [game for game in games if game in args.games]
    print("| game · figure | median | IQR | max |")
    print("|---|---|---|---|")
    for game_id in games:
        for label, times in asyncio.run(time_game(registry, game_id, args.runs)).items():
            print(row(f"{game_id} · {label}", times))


if __name__ == "__main__":
    main()
