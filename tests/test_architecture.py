"""The architecture holds: import-linter's contracts in pyproject.toml ([tool.importlinter]).

- the room's core never imports a game; the built-in games never import each other;
- rules, bots and the headless core never import Textual (rules are pure and fast), through any chain
  of imports (tests/test_headless_imports.py checks the same in fresh interpreters);
- no import cycle between the modules of any package.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint(cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def test_the_projects_import_contracts_hold():
    result = lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 5 kept, 0 broken." in result.stdout


def test_every_private_module_of_the_room_is_closed_to_the_built_in_games():
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (public_only,) = [c for c in contracts if c["name"].startswith("Built-in games use only the public SDK")]
    core = ROOT / "core" / "gamenight"
    modules = {f"gamenight.{path.stem}" for path in core.glob("*.py") if path.stem not in {"__init__", "__main__"}}
    modules |= {f"gamenight.{path.name}" for path in core.iterdir() if (path / "__init__.py").exists()}
    assert set(public_only["forbidden_modules"]) == modules - {"gamenight.sdk"}


def test_a_cycle_and_a_textual_import_break_the_same_kinds_of_contract(tmp_path: Path):
    package = tmp_path / "toy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "rules.py").write_text("import textual\n")
    (package / "a.py").write_text("from toy import b\n")
    (package / "b.py").write_text("def f():\n    from toy import a\n")  # a lazy import is a cycle too
    (tmp_path / ".importlinter").write_text(
        "[importlinter]\nroot_package = toy\ninclude_external_packages = True\n\n"
        "[importlinter:contract:pure]\nname = pure\ntype = forbidden\nsource_modules = toy.rules\n"
        "forbidden_modules = textual\n\n"
        "[importlinter:contract:acyclic]\nname = acyclic\ntype = acyclic_siblings\nancestors = toy\n"
    )
    result = lint(tmp_path, env={"PYTHONPATH": str(tmp_path)})
    assert result.returncode == 1
    assert "pure BROKEN" in result.stdout and "acyclic BROKEN" in result.stdout


def test_the_purity_contract_catches_an_indirect_import(tmp_path: Path):
    """A rules module that imports Textual through another module breaks a contract written as ours is."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (pure,) = [c for c in contracts if c["name"].startswith("Rules, bots and the headless core are pure")]
    package = tmp_path / "toy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "rules.py").write_text("from toy import helper\n")
    (package / "helper.py").write_text("def colour():\n    from toy import screen\n")  # lazy, as cli's is
    (package / "screen.py").write_text("import textual\n")
    indirect = "True" if pure.get("allow_indirect_imports", False) else "False"
    (tmp_path / ".importlinter").write_text(
        "[importlinter]\nroot_package = toy\ninclude_external_packages = True\n\n"
        "[importlinter:contract:pure]\nname = pure\ntype = forbidden\nsource_modules = toy.rules\n"
        f"forbidden_modules = textual\nallow_indirect_imports = {indirect}\n"
    )
    result = lint(tmp_path, env={"PYTHONPATH": str(tmp_path)})
    assert result.returncode == 1, result.stdout
    assert "toy.rules -> toy.helper" in result.stdout and "toy.helper -> toy.screen" in result.stdout
