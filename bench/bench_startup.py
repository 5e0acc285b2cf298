"""Cold start to the first frame: the gamenight lobby beside a bare Textual app.

Each run is a fresh Python process (cold imports) that prints a line when
its first screen has been drawn (headless, 80×24), then exits.  The two apps
alternate so machine load affects both alike.  The room paints its lobby
before it looks for plugins (in a thread), so it is timed twice: at its first
frame, and when the games found are on the screen.

    .venv/bin/python bench/bench_startup.py --runs 15
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

BARE = """
from textual.app import App
from textual.widgets import Static
class Bare(App):
    def compose(self):
        yield Static("hello")
    def on_mount(self):
        self.call_after_refresh(self.ready)
    def ready(self):
        print("READY", flush=True)
        self.exit()
Bare().run(headless=True, size=(80, 24))
"""

ROOM = """
import tempfile
from pathlib import Path
from gamenight.app import GameNightApp
from gamenight.config import Config
class Timed(GameNightApp):
    def on_mount(self):
        self.call_after_refresh(self.ready)
    def ready(self):
        print("READY", flush=True)
        self.set_interval(0.005, self.listed)
    def listed(self):
        if self.registry_loaded:
            self.call_after_refresh(self.done)
    def done(self):
        print("GAMES", len(self.registry.games), flush=True)
        self.exit()
folder = Path(tempfile.mkdtemp())
Timed(config=Config.load(folder / "config.toml"), saves_dir=folder / "saves").run(headless=True, size=(80, 24))
"""


def first_frame(code: str) -> tuple[float, float]:
    """Seconds from spawning to the first frame, and to the games listed (the same for the bare app)."""
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    frame = listed = None
    for line in process.stdout:
        if line.startswith("READY"):
            frame = time.perf_counter() - started
            if code is BARE:
                listed = frame
                break
        elif line.startswith("GAMES"):
            listed = time.perf_counter() - started
            if int(line.split()[1]) < 5:
                raise RuntimeError(f"the lobby listed too few games: {line.strip()}")
            break
    if frame is None or listed is None:
        raise RuntimeError("the app never drew its first frame")
    process.wait(timeout=30)
    return frame, listed


def _row(name: str, values: list[float]) -> str:
    q = statistics.quantiles(values, n=4)
    return (
        f"{name:34} median {statistics.median(values) * 1000:7.1f} ms   "
        f"IQR {q[0] * 1000:.1f}–{q[2] * 1000:.1f} ms   min {min(values) * 1000:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    first_frame(BARE), first_frame(ROOM)  # warm the OS file cache, not the interpreter
    bare, room, listed = [], [], []
    for _ in range(args.runs):
        bare.append(first_frame(BARE)[0])
        frame, games = first_frame(ROOM)
        room.append(frame)
        listed.append(games)
    print(_row("bare Textual app, first frame", bare))
    print(_row("gamenight lobby, first frame", room))
    print(_row("gamenight lobby, games listed", listed))
    print(f"ratio first frame (median lobby / median bare): {statistics.median(room) / statistics.median(bare):.2f}")
    print(f"ratio games listed (median / median bare):      {statistics.median(listed) / statistics.median(bare):.2f}")


if __name__ == "__main__":
    main()
