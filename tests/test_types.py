"""The public SDK is fully typed: `mypy --strict` passes on gamenight.sdk, and its generics bite.

A plugin written as ``class MyRules(Rules[MyState, MyView])`` has its states and views
checked by a type checker; the second test shows mypy catching a wrong state type.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.xdist_group("mypy")  # one worker, so the second run reuses the first's cache


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mypy-cache")  # shared: the second run reuses the SDK's analysis


def mypy(cache: Path, *targets: str, strict: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MYPYPATH": str(ROOT / "core")}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            *(["--strict"] if strict else []),
            "--follow-imports=silent",
            "--no-error-summary",
            "--cache-dir",
            str(cache),
            *targets,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )


def test_the_sdk_passes_mypy_strict(cache: Path):
    result = mypy(cache, str(ROOT / "core" / "gamenight" / "sdk" / "__init__.py"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_plugins_state_type_is_checked_through_the_generic_rules(cache: Path, tmp_path: Path):
    plugin = tmp_path / "typed_plugin.py"
    plugin.write_text(
        "from collections.abc import Mapping\n"
        "from typing import Any\n"
        "from gamenight.sdk import Action, Rules\n\n"
        "class Counting(Rules[int, str]):\n"
        "    def new_game(self, seats: int, options: Mapping[str, Any]) -> int:\n"
        "        return 0\n"
        "    def apply(self, state: int, action: Action) -> int:\n"
        "        return state + 1\n"
        "    def view(self, state: int, seat: int) -> str:\n"
        "        return str(state)\n\n"
        "def first_view(rules: Counting) -> int:\n"
        "    return rules.view(rules.new_game(2, {}), 0)\n"  # a str, not an int: mypy must say so
    )
    result = mypy(cache, str(plugin))
    assert result.returncode == 1
    assert 'Incompatible return value type (got "str", expected "int")' in result.stdout, result.stdout


def test_the_three_things_a_screen_is_given_are_game_tables(cache: Path, tmp_path: Path):
    """A local match, a shared table and a replay all satisfy ``gamenight.sdk.GameTable`` (what a game's
    screen is declared to take); a class lacking one of its members does not (the check bites)."""
    check = tmp_path / "tables.py"
    check.write_text(
        "from gamenight.match import Match, SeatConfig\n"
        "from gamenight.replay import ReplayTable\n"
        "from gamenight.sdk import GameTable\n"
        "from gamenight.tables.client import RemoteTable\n\n"
        "def tables(match: Match, remote: RemoteTable, replay: ReplayTable) -> list[GameTable]:\n"
        "    first: GameTable = match\n"
        "    second: GameTable = remote\n"
        "    third: GameTable = replay\n"
        "    return [first, second, third]\n\n"
        "class SeatsOnly:\n"
        "    seats: list[SeatConfig] = []\n\n"
        "def half(table: SeatsOnly) -> GameTable:\n"
        "    return table  # not a GameTable\n"
    )
    result = mypy(cache, str(check))
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, result.stdout + result.stderr
    assert f"{check.name}:16:" in errors[0] and '(got "SeatsOnly", expected "GameTable")' in errors[0], errors


def test_the_game_screen_and_its_shared_table_part_pass_mypy(tmp_path: Path):
    """GameScreen reads its match as a GameTable, and a shared table's part (SharedTableControls) its
    RemoteTable: mypy finds nothing (it found 34 errors when the screen was typed against Match and
    reached the shared table's members through it)."""
    ui = ROOT / "core" / "gamenight" / "ui"
    result = mypy(tmp_path / "cache", str(ui / "game_screen.py"), str(ui / "shared_table.py"), strict=False)
    assert result.returncode == 0, result.stdout + result.stderr
