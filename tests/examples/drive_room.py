"""Run by the tests inside a fresh venv: open the room headless, play a game's first keys, print JSON.

Usage: ``python drive_room.py GAME [KEY ...]`` -- the room starts as ``gamenight`` does
(every installed plugin), shows the lobby, opens GAME's setup, starts with the
defaults (a person against the strongest bot), presses the keys and reports.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

from gamenight.app import GameNightApp
from gamenight.config import Config
from gamenight.testing import wait_for_bots


async def main(game_id: str, keys: list[str]) -> dict[str, object]:
    report: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as folder:
        app = GameNightApp(
            config=Config.load(Path(folder) / "config.toml"), saves_dir=Path(folder) / "saves", bot_delay=0
        )
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(400):  # the games arrive from a worker thread (slow on a loaded machine)
                await pilot.pause(0.05)
                if app.registry_loaded:
                    break
            report["lobby"] = type(app.screen).__name__
            report["games"] = sorted(app.registry.games)
            report["notices"] = str(app.screen.query_one("#notices").render())
            report["theme_errors"] = list(app.theme_errors)
            report["themes"] = sorted(app.available_themes)
            app.open_setup(game_id)
            await pilot.pause()
            report["setup"] = type(app.screen).__name__
            await pilot.press("ctrl+r")
            await wait_for_bots(pilot)
            screen = app.screen
            report["table"] = type(screen).__name__
            for key in keys:
                await pilot.press(key)
                await wait_for_bots(pilot)
            report["seats"] = [[seat.name, seat.bot] for seat in screen.match.seats]
            report["log"] = [f"{entry.seat} {entry.action}" for entry in screen.match.log]
    return report


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2:]))))
