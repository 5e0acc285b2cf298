"""Cold start to the first frame: the gamenight lobby beside a bare Textual app.

Each run is a fresh Python process (cold imports) that prints a line when
its first screen has been drawn (headless, 80×24), then exits.  The two apps
alternate so machine load affects both alike.

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
        super().on_mount()
        self.call_after_refresh(self.ready)
    def ready(self):
        print("READY", len(self.registry.games), flush=True)
        self.exit()
folder = Path(tempfile.mkdtemp())
Timed(config=Config.load(folder / "config.toml"), saves_dir=folder / "saves").run(headless=True, size=(80, 24))
"""


def first_frame(code: str) -> float:
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("READY"):
            elapsed = time.perf_counter() - started
            break
    else:
        raise RuntimeError("the app never drew its first frame")
    process.wait(timeout=30)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    first_frame(BARE), first_frame(ROOM)  # warm the OS file cache, not the interpreter
    bare, room = [], []
    for _ in range(args.runs):
        bare.append(first_frame(BARE))
        room.append(first_frame(ROOM))
    for name, values in (("bare Textual app", bare), ("gamenight lobby", room)):
        q = statistics.quantiles(values, n=4)
        print(f"{name:18} median {statistics.median(values) * 1000:7.1f} ms   "
              f"IQR {q[0] * 1000:.1f}–{q[2] * 1000:.1f} ms   min {min(values) * 1000:.1f} ms")
    print(f"ratio (median lobby / median bare): {statistics.median(room) / statistics.median(bare):.2f}")


if __name__ == "__main__":
    main()
