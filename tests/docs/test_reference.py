"""docs/reference/game-screen.md is GameScreen's own docstrings, and places every public member."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MAKER = REPO / "docs" / "reference" / "make_game_screen.py"


def test_the_game_screen_reference_is_up_to_date_and_complete() -> None:
    # --check renders from the class as it is: a member no group places, or a docstring changed
    # without the file being written again, fails here with the command to run.
    done = subprocess.run([sys.executable, str(MAKER), "--check"], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_guide_links_the_reference() -> None:
    guide = (REPO / "docs" / "plugins.md").read_text(encoding="utf-8")
    assert "(reference/game-screen.md)" in guide
