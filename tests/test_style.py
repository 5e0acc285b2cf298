"""The tree stays lint-clean and formatted: `ruff check` and `ruff format --check` over every Python folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUFF = Path(sys.executable).with_name("ruff")
FOLDERS = ["core", "plugins", "tests", "examples", "bench"]


def test_ruff_check_is_clean():
    result = subprocess.run(
        [str(RUFF), "check", "--no-cache", *FOLDERS], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_would_see_a_problem(tmp_path: Path):
    (tmp_path / "bad.py").write_text("import os\n")  # unused import: F401
    result = subprocess.run(
        [str(RUFF), "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), "bad.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1 and "F401" in result.stdout


def test_ruff_format_leaves_the_tree_as_it_is():
    """The whole tree, as `ruff format --check .` sees it: the Python in README.md and docs/*.md too."""
    result = subprocess.run(
        [str(RUFF), "format", "--check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, "run `ruff format .`:\n" + result.stdout
