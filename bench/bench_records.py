"""Cost of the records: recording one finished game, and opening the records over 100,000 games.

    .venv/bin/python bench/bench_records.py --games 100000 --runs 50

1. **record**: one real finished game (a Yatzy game between a person's seat
   and a bot, played headless beforehand, each run a different seed) turned
   into a record and written -- ``record_from_match`` then ``RecordsStore.add``:
   the insert, the rating update, the commit -- into a database that already
   holds ``--games`` games.  Target ≤ 5 ms.
2. **open**: what the records screen does when it opens, on a fresh
   connection: open the file, list the games with records, the figures of the
   most recent game (played, won, each bot met, scores, streak, ratings, top
   ten) and its 200 newest past games.  Target ≤ 300 ms.
3. **screen**: the same through the room: ``c`` pressed in the lobby until the
   figures and the list are on the screen (Pilot, 80×24).
4. **verify** (``--only verify`` runs just this): the server's proof of a room's
   finished solo game, per game -- :func:`gamenight.records.verify.verify_game`,
   the log replayed from the seed with the game's rules (every move checked,
   every chance outcome drawn again) and the record built -- for a solitaire
   Yatzy game, a Yatzy game against a bot, and a Mille game against a bot
   (each run a different seed, played headless beforehand).

The 100,000 games (three games, two to five seats, an 80-move log each) are
made once and kept in ``bench/out/records-<N>.sqlite3``.  Prints median, IQR
p95, max and the first run (cold: the modules' first import) in milliseconds, as a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from gamenight.match import SeatConfig, play_headless
from gamenight.plugins import load_registry
from gamenight.records.stats import game_stats
from gamenight.records.store import GameRecord, RecordsStore, SeatRecord, placings, record_from_match

OUT = Path(__file__).parent / "out"
BOTS = ("expert", "basic", "random", "greedy", "optimal")


def synthetic(number: int, rng: random.Random) -> GameRecord:
    game = ("yatzy", "seven", "mille")[number % 3]
    seats_count = 5 if game == "seven" else 2
    seats = [("You", None)] + [(f"Bot {i}", rng.choice(BOTS)) for i in range(1, seats_count)]
    scores = [float(rng.randint(100, 320)) for _ in seats]
    best = max(scores)
    winners = [seat for seat, score in enumerate(scores) if score == best]
    places = placings(scores, winners)
    return GameRecord(
        game=game,
        plugin_version="1.0",
        options={"rules": "default"},
        seed=rng.randrange(2**31),
        game_number=number,
        started=1.7e9 + number * 600,
        finished=1.7e9 + number * 600 + 300,
        seats=tuple(
            SeatRecord(name, bot, scores[i], places[i], 1 / len(winners) if i in winners else 0.0)
            for i, (name, bot) in enumerate(seats)
        ),
        log=tuple((i % seats_count, f"keep {rng.randint(10000, 99999)}") for i in range(80)),
    )


def filled(games: int) -> Path:
    path = OUT / f"records-{games}.sqlite3"
    if path.exists():
        return path
    OUT.mkdir(exist_ok=True)
    partial = path.with_suffix(".partial")
    for leftover in OUT.glob(f"{partial.name}*"):
        leftover.unlink()
    rng = random.Random(17)
    store = RecordsStore.open(partial)
    started = time.perf_counter()
    for first in range(0, games, 5000):
        store.add_many([synthetic(number, rng) for number in range(first, min(games, first + 5000))])
    store.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    partial.rename(path)
    print(f"(filled {games} games in {time.perf_counter() - started:.1f} s: {path.stat().st_size / 1e6:.0f} MB)")
    return path


def row(label: str, times: list[float], target: str) -> str:
    q1, _median, q3 = statistics.quantiles(times, n=4, method="inclusive")
    p95 = statistics.quantiles(times, n=20, method="inclusive")[-1]
    return (
        f"| {label} | {statistics.median(times):.2f} ms | {q1:.2f}–{q3:.2f} ms | {p95:.2f} ms | {max(times):.2f} ms"
        f" | {times[0]:.2f} ms | {target} |"
    )


def timed(action: Callable[[], object], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return times


def bench_record(path: Path, runs: int) -> list[float]:
    registry = load_registry()
    game = registry.game("yatzy")
    work = path.with_name("records-work.sqlite3")
    shutil.copyfile(path, work)
    matches = []
    for seed in range(runs):
        match = play_headless(game, [SeatConfig("You", "greedy"), SeatConfig("Urd", "greedy")], {}, seed=seed)
        match.seats[0] = SeatConfig("You")
        match.record_result()
        matches.append(match)
    store = RecordsStore.open(work)
    times = []
    for match in matches:
        start = time.perf_counter()
        store.add(record_from_match(match))
        times.append((time.perf_counter() - start) * 1000)
    store.close()
    for leftover in OUT.glob("records-work.sqlite3*"):
        leftover.unlink()
    return times


def open_records(path: Path) -> None:
    store = RecordsStore.open(path)
    games = store.games_played()
    game_stats(store, games[0])
    store.recent(games[0], limit=200)
    store.close()


def bench_screen(path: Path, runs: int) -> list[float]:
    """Key ``c`` in the lobby → the figures and past games put on the records screen (then painted next frame)."""
    import tempfile

    from gamenight.app import GameNightApp
    from gamenight.config import Config
    from gamenight.screens.records_screen import RecordsScreen

    registry = load_registry()
    shown: list[float] = []
    show_game = RecordsScreen._show_game

    def timed_show_game(self, *args):
        show_game(self, *args)
        shown.append(time.perf_counter())

    RecordsScreen._show_game = timed_show_game  # type: ignore[method-assign]

    async def once() -> float:
        shown.clear()
        with tempfile.TemporaryDirectory() as folder:
            app = GameNightApp(
                registry=registry,
                config=Config.load(Path(folder) / "config.toml"),
                saves_dir=Path(folder) / "saves",
                records_path=path,
            )
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.pause()
                start = time.perf_counter()
                await pilot.press("c")
                for _ in range(5000):
                    if shown:
                        break
                    await asyncio.sleep(0.001)
                assert isinstance(app.screen, RecordsScreen) and app.screen.figures is not None
                return (shown[0] - start) * 1000

    try:
        return [asyncio.run(once()) for _ in range(runs)]
    finally:
        RecordsScreen._show_game = show_game  # type: ignore[method-assign]


def bench_verify(game_id: str, bots: list[str], runs: int) -> tuple[list[float], float]:
    """The replay-verify step of ``runs`` finished games (seat 0 the person); its times and the mean log length."""
    from gamenight.records.verify import verify_game

    registry = load_registry()
    game = registry.game(game_id)
    players = [SeatConfig(f"P{seat}", bot or "random") for seat, bot in enumerate(bots)]
    logs = []
    for seed in range(runs):
        match = play_headless(game, players, {}, seed=seed, bot_time_budget=0.05)
        logs.append((seed, [(entry.seat, entry.action) for entry in match.log]))
    times = []
    for seed, log in logs:
        start = time.perf_counter()
        verify_game(registry, game.id, str(game.version), {}, seed, 0, bots, log, "ann", "k-ann")
        times.append((time.perf_counter() - start) * 1000)
    return times, statistics.fmean(len(log) for _seed, log in logs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--screen-runs", type=int, default=10)
    parser.add_argument("--only", choices=("verify",), help="run only this figure")
    args = parser.parse_args()
    if args.only == "verify":
        print("| server's replay-verify step, per game | median | IQR | p95 | max | first run | log |")
        print("|---|---|---|---|---|---|---|")
        for game_id, bots in (("yatzy", [""]), ("yatzy", ["", "greedy"]), ("mille", ["", "greedy"])):
            times, moves = bench_verify(game_id, bots, args.runs)
            label = f"{game_id}, {' vs '.join(bot or 'person' for bot in bots)}"
            print(row(label, times, f"{moves:.0f} moves"))
        return
    path = filled(args.games)
    print(f"| figure ({args.games} games recorded) | median | IQR | p95 | max | first run | target |")
    print("|---|---|---|---|---|---|---|")
    print(row("record one finished Yatzy game", bench_record(path, args.runs), "≤ 5 ms"))
    open_records(path)  # the file's pages in the OS cache, as after the room's start
    print(row("open the records (data, fresh connection)", timed(lambda: open_records(path), args.runs), "≤ 300 ms"))
    if args.screen_runs:
        print(row("records screen: c → figures and list shown", bench_screen(path, args.screen_runs), "≤ 300 ms"))


if __name__ == "__main__":
    main()
