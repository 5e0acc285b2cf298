"""The tree is typed: mypy passes on all of it, and `mypy --strict` on the public SDK, whose generics bite.

The whole tree -- core/gamenight, the five games and the example plugin, as ``[tool.mypy]`` in
pyproject.toml lists them -- has no mypy error.  A plugin written as
``class MyRules(Rules[MyState, MyView])`` has its states and views checked by a type checker; a
test shows mypy catching a wrong state type.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.xdist_group("mypy")  # one worker, so the second run reuses the first's cache


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Shared: the later ``--strict`` runs reuse the SDK's analysis.  The whole tree's run, without
    ``--strict``, comes last: it rewrites every module's entry with its own options, and a strict run
    after it analysed everything again (5 CPU-s)."""
    return tmp_path_factory.mktemp("mypy-cache")


def mypy(cache: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    """``mypy --strict`` on ``targets`` (pyproject.toml's [tool.mypy] for the rest)."""
    return run_mypy(cache, "--strict", "--follow-imports=silent", "--no-error-summary", *targets)


def run_mypy(cache: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MYPYPATH": str(ROOT / "core")}
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(cache), *arguments],
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


def test_the_whole_tree_passes_mypy(cache: Path):
    """Every file [tool.mypy] lists (core/gamenight, plugins/, the example plugin) is checked: no error.

    On failure the message counts the errors per file, most first, then gives mypy's own lines."""
    result = run_mypy(cache)  # no targets: the files of pyproject.toml's [tool.mypy]
    errors = [line for line in result.stdout.splitlines() if ": error: " in line]
    per_file = Counter(line.split(":", 1)[0] for line in errors)
    summary = "\n".join(f"{count:5d}  {path}" for path, count in per_file.most_common())
    assert result.returncode == 0 and not errors, (
        f"mypy: {len(errors)} errors in {len(per_file)} files\n{summary}\n\n{result.stdout}{result.stderr}"
    )
    # ... and it checked the whole tree, not a part that a narrowed setting left it
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert {"core/gamenight", "plugins", "examples/gamenight-example/src/gamenight_example"} <= set(config["files"])
    sources = sum(len(list((ROOT / folder).rglob("*.py"))) for folder in config["files"])
    checked = re.search(r"no issues found in (\d+) source files", result.stdout)
    assert checked is not None and int(checked[1]) == sources, result.stdout
