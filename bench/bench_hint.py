"""The coach's hint: from the ``?`` key to the panel drawn with its figures, in a headless room at 80×24.

    .venv/bin/python bench/bench_hint.py              # every game with an advisor, 40 runs each
    .venv/bin/python bench/bench_hint.py --runs 100 --games goofspiel

For each game whose plugin registers an advisor (the example plugin's Goofspiel from its
source folder, and every installed game that has one), a local game against its strongest
bot is opened at the first position where a person moves, and timed:

* **cold** -- the hint asked with nothing cached for the position (``screen.action_hint()``,
  what ``?`` runs) until the panel shows a ranking: the worker thread started, the advisor on
  the seat's view, its answer checked, each choice put in words, the panel's widgets updated.
  Textual paints them in its next frame, after this clock.  A search advisor's first ranking
  is its answer at ``FIRST_BUDGET`` (marked "refining…");
* **cold, refined** -- the same, until its full answer is in the panel (a search advisor);
* **of which the advisor** -- the advisor's ``advise`` call(s) before the first ranking, and
  **their CPU time** (the worker thread's, ``time.thread_time``: what the figure would be on an
  idle machine, the other engineers' jobs on the shared cores aside);
* **cached** -- the panel hidden and asked again for the same position (drawn from the cache);
* **through Pilot, cold** -- the real ``?`` key pressed with Pilot until the frame after the
  panel showed a ranking, beside **Pilot, a key that does nothing** (an unbound key, the same
  waits): the difference is what the hint adds to a key press as a person sees it;
* **the event loop's lag, idle** and **while the coach computes** -- how late a 10 ms timer of
  the room's event loop fires (20 of them), with nothing else to do and while the advisor works
  on the position in its worker thread, as when a turn's advice is readied in the background:
  what that costs the UI (the GIL shared with the worker).  Pilot cannot time this: it waits for
  the whole process to be idle, a computing worker included;
* **a cancelled computation's tail** -- from the coach's cancel (the position changed: the
  player moved) to the advisor's return: how long it still competes with the bot that moves
  next.

Median, interquartile range, p95 and max of ``--runs`` runs each.  ``--no-first`` asks a search
advisor once, at the full budget (as before the first ranking): the same load, for comparison.
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
from gamenight.ui import coach as coach_module
from gamenight.ui.coach import Coach

EXAMPLE_SRC = Path(__file__).resolve().parents[1] / "examples" / "gamenight-example" / "src"


def row(label: str, times: list[float]) -> str:
    q1, _median, q3 = statistics.quantiles(times, n=4)
    p95 = statistics.quantiles(times, n=20, method="inclusive")[-1]
    return (
        f"| {label} | {statistics.median(times):.1f} ms | {q1:.1f}–{q3:.1f} ms | {p95:.1f} ms | {max(times):.1f} ms |"
    )


async def time_game(registry, game_id: str, runs: int) -> dict[str, list[float]]:
    game = registry.game(game_id)
    bot = max(game.bots, key=lambda spec: spec.strength).id if game.bots else None
    seats = [SeatConfig("Kei")] + [SeatConfig("Bot", bot) for _ in range(game.default_seats - 1)]
    match = Match(game, seats, {}, seed=1)
    app = make_room(registry, Path(tempfile.mkdtemp()), start_match=match)
    drawn = asyncio.Event()
    refined = asyncio.Event()
    advised: list[float] = []
    advised_cpu: list[float] = []
    returned: list[float] = []
    in_flight = [0]
    """``advise`` calls under way (a cancelled worker's thread runs on until its advisor returns)."""
    original_draw = Coach.draw

    def draw(self, key, advice, refining=False):
        original_draw(self, key, advice, refining)
        drawn.set()
        if not refining:
            refined.set()

    Coach.draw = draw  # type: ignore[method-assign]
    times: dict[str, list[float]] = {
        "cold": [],
        "cold, refined": [],
        "of which the advisor": [],
        "of which the advisor, CPU time": [],
        "cached": [],
        "through Pilot, cold": [],
        "Pilot, a key that does nothing": [],
        "the event loop's lag, idle": [],
        "the event loop's lag while the coach computes": [],
        "a cancelled computation's tail": [],
    }

    async def lags() -> list[float]:
        found = []
        for _ in range(20):
            start = time.perf_counter()
            await asyncio.sleep(0.01)
            found.append((time.perf_counter() - start - 0.01) * 1000)
        return found

    async def hint(cold: bool) -> float:
        if cold:
            coach.cache.clear()
            coach.words.clear()
        drawn.clear()
        refined.clear()
        del advised[:]
        del advised_cpu[:]
        start = time.perf_counter()
        screen.action_hint()
        await drawn.wait()
        elapsed = (time.perf_counter() - start) * 1000
        advised_first, advised_first_cpu = sum(advised), sum(advised_cpu)
        await refined.wait()
        if cold:
            times["cold, refined"].append((time.perf_counter() - start) * 1000)
            times["of which the advisor"].append(advised_first)
            times["of which the advisor, CPU time"].append(advised_first_cpu)
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
                    start, cpu = time.perf_counter(), time.thread_time()
                    in_flight[0] += 1
                    try:
                        return advise(view, legal, ctx)
                    finally:
                        advised.append((time.perf_counter() - start) * 1000)
                        advised_cpu.append((time.thread_time() - cpu) * 1000)
                        returned.append(time.perf_counter())
                        in_flight[0] -= 1

                advisor.advise = timed
                return advisor

            coach.advisors.clear()
            object.__setattr__(coach.spec, "factory", timed_factory)
            await hint(cold=True)  # the advisor built, its module imported: a first hint's cost, not timed
            for _ in range(runs):
                times["cold"].append(await hint(cold=True))
                times["cached"].append(await hint(cold=False))
                coach.cache.clear()
                coach.words.clear()
                drawn.clear()
                start = time.perf_counter()
                await pilot.press("question_mark")
                await drawn.wait()
                await pilot.pause()
                times["through Pilot, cold"].append((time.perf_counter() - start) * 1000)
                await refined.wait()
                await pilot.press("question_mark")
                start = time.perf_counter()
                await pilot.press("f12")
                await pilot.pause()
                times["Pilot, a key that does nothing"].append((time.perf_counter() - start) * 1000)
                # The advice computed in the background (the panel hidden, as when a turn is readied):
                coach.cache.clear()
                coach.words.clear()
                del advised[:]
                del returned[:]
                times["the event loop's lag, idle"].extend(await lags())
                coach.want(coach.position())
                await asyncio.sleep(0.02)  # the worker under way
                times["the event loop's lag while the coach computes"].extend(await lags())
                cancelled = time.perf_counter()
                coach.cancel()  # as when the player moves: the position is left
                await asyncio.sleep(0.005)  # (a worker between its two calls: it sees the cancel then)
                while in_flight[0]:
                    await asyncio.sleep(0.001)
                tail = returned[-1] - cancelled if returned else 0.0  # (it may have returned before)
                times["a cancelled computation's tail"].append(max(0.0, tail) * 1000)
                await asyncio.sleep(0.05)
            object.__setattr__(coach.spec, "factory", advisor_of)
    finally:
        Coach.draw = original_draw  # type: ignore[method-assign]
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--games", nargs="*", help="only these game ids")
    parser.add_argument("--no-first", action="store_true", help="no first ranking: one answer at the full budget")
    args = parser.parse_args()
    if args.no_first:
        coach_module.FIRST_BUDGET = coach_module.ADVICE_BUDGET
    sys.path.append(str(EXAMPLE_SRC))
    import gamenight_example.plugin as example

    registry = load_registry(extra_plugins={"gamenight-example": example})
    games = sorted(game.id for game in registry.games.values() if game.advisor is not None)
    if args.games:
        games = [game for game in games if game in args.games]
    print("| game · figure | median | IQR | p95 | max |")
    print("|---|---|---|---|---|")
    for game_id in games:
        for label, times in asyncio.run(time_game(registry, game_id, args.runs)).items():
            print(row(f"{game_id} · {label}", times))


if __name__ == "__main__":
    main()
