"""A room's own work for a move at a shared table: what one room's CPU does per move.

Two rooms (the real ``GameNightApp``, Pilot, 80x24) sit at one Mille table of an
in-process table service, each on its own socketpair, and play ``--moves`` moves
(the first legal move, 0.05 s apart).  Per move and room it reports the time the
room spent handling the service's messages (``on_table_message``: the snapshot
turned into widgets) and redrawing (the screen's update: layout if any, render,
the frame), the layouts and the key bar's renders -- the work a room does
between the snapshot arriving and its frame going out over SSH.  In-process and
headless, so the figures are the room's Python work, not its terminal's.

Run:  .venv/bin/python bench/bench_tables_room.py [--moves 60] [--game mille]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gamenight.app import GameNightApp  # noqa: E402
from gamenight.tables import protocol as p  # noqa: E402
from gamenight.tables.service import TableService  # noqa: E402
from gamenight.widgets.key_bar import KeyBar  # noqa: E402
from textual.screen import Screen  # noqa: E402

from tests.core.tables.conftest import FAST, REGISTRY  # noqa: E402
from tests.core.tables.test_tables_lobby import room_for, table_screen, until  # noqa: E402

COUNTS = {"messages": [0, 0.0], "updates": [0, 0.0], "layouts": [0, 0.0], "key bar": [0, 0.0]}


def counted(owner: type, name: str, label: str) -> None:
    """Wrap ``owner.name`` to count its calls and their time under ``label``."""
    original = getattr(owner, name)

    def wrapper(self, *args, **kwargs):
        began = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            COUNTS[label][0] += 1
            COUNTS[label][1] += time.perf_counter() - began

    setattr(owner, name, wrapper)


async def run(game: str, moves: int) -> tuple[int, float]:
    tmp = Path(tempfile.mkdtemp())
    service = TableService(REGISTRY, tmp / "data", seed=7, message_rate=FAST)
    await service.start()
    ann = await room_for(service, "ann", tmp, REGISTRY)
    ben = await room_for(service, "ben", tmp, REGISTRY)
    done = 0
    async with ann.run_test(size=(80, 24)) as a, ben.run_test(size=(80, 24)) as b:
        await until(a, lambda: ann.tables is not None and ann.tables.name, what="Ann's connection")
        await until(b, lambda: ben.tables is not None and ben.tables.name, what="Ben's connection")
        await ann.tables.send(p.OpenTable(game, [p.SeatSpec("person"), p.SeatSpec("person")]))
        await until(a, lambda: table_screen(ann) is not None, what="Ann's table")
        await ben.tables.send(p.Join(next(iter(service.tables))))
        await until(b, lambda: table_screen(ben) is not None, what="Ben's table")
        await asyncio.sleep(0.5)
        for values in COUNTS.values():
            values[:] = [0, 0.0]
        table = next(iter(service.tables.values()))
        began = time.perf_counter()
        while done < moves and not table.match.over and table.match.pending_interlude() is None:
            for app, pilot, other in ((ann, a, ben), (ben, b, ann)):
                screen = table_screen(app)
                snap = app.tables.snapshot
                if screen is not None and app.screen is screen and snap.legal and "extend" not in snap.legal:
                    screen.submit(snap.legal[0])
                    await until(pilot, lambda o=other, t=snap.turn: o.tables.snapshot.turn > t, what="the move")
                    await asyncio.sleep(0.05)
                    done += 1
                    break
            else:
                if any(s.legal and "extend" in s.legal for s in (ann.tables.snapshot, ben.tables.snapshot)):
                    break  # Mille's "Extension?" dialog: the hand's end, enough moves
                await asyncio.sleep(0.02)
        elapsed = time.perf_counter() - began
    await service.close()
    return done, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--game", default="mille")
    args = parser.parse_args()
    counted(GameNightApp, "on_table_message", "messages")
    counted(Screen, "_on_timer_update", "updates")
    counted(Screen, "_refresh_layout", "layouts")
    counted(KeyBar, "render", "key bar")
    moves, elapsed = asyncio.run(run(args.game, args.moves))
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print(f"command: .venv/bin/python bench/bench_tables_room.py --moves {args.moves} --game {args.game}")
    room_moves = 2 * moves  # each move reaches both rooms
    print(f"{moves} moves in {elapsed:.1f} s; per move and room:")
    for label, (count, seconds) in COUNTS.items():
        print(f"  {label}: {count / room_moves:.2f} calls, {seconds * 1000 / room_moves:.2f} ms")


if __name__ == "__main__":
    main()
