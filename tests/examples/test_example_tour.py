"""The tour (tests/core/tour.py) over the example plugin, pip-installed in a fresh venv: Mate, then Goofspiel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.examples.conftest import ONE_WORKER

TOUR = Path(__file__).resolve().parents[1] / "core" / "tour.py"
pytestmark = ONE_WORKER


@pytest.mark.parametrize("language", ["en", "ja"])
def test_the_example_games_screens_pass_the_tour_after_another_game(plugin_env, language):
    findings = json.loads(plugin_env.run(str(TOUR), language, "mate", "goofspiel", timeout=300).stdout)
    goofspiel = {stop: problems for stop, problems in findings.items() if stop.startswith("goofspiel/")}
    assert set(goofspiel) >= {
        f"goofspiel/{stop}" for stop in ("setup", "table", "help", "leave", "save", "handover", "end", "board")
    }
    assert {stop: problems for stop, problems in goofspiel.items() if problems} == {}
