"""SEVEN's package keeps its shape: no private name crosses a module, each card table is defined
once, and bots.py holds the bots (the playouts, sampling and log reading live in their modules)."""

from __future__ import annotations

import ast
import importlib
from dataclasses import is_dataclass
from pathlib import Path

import gamenight_seven

PACKAGE = Path(gamenight_seven.__file__).parent
AI_MODULES = ("cards", "rules", "policies", "inference", "posterior", "simulator", "bots", "plugin")


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


NAMEDTUPLE_API = {"_replace", "_fields", "_asdict", "_make", "_field_defaults"}


def private_crossings(package: Path) -> list[str]:
    """Every place a module of ``package`` reaches for another module's private name.

    That is: ``from x import _name``; ``module._name`` on an imported module; and
    ``obj._name`` (``obj`` not ``self``/``cls``) where ``_name`` is defined in another
    module of the package and not in this one.
    """
    trees = {path.stem: ast.parse(path.read_text(), str(path)) for path in sorted(package.glob("*.py"))}
    defined: dict[str, set[str]] = {}
    for module, tree in trees.items():
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.add(node.value)  # __slots__ entries
        defined[module] = {name for name in names if private(name)}
    found = []
    for module, tree in trees.items():
        modules_bound: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if private(alias.name):
                        found.append(f"{module}.py:{node.lineno} imports {alias.name} from {node.module}")
            elif isinstance(node, ast.Import):
                modules_bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elsewhere = set().union(*(names for other, names in defined.items() if other != module))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and private(node.attr)) or node.attr in NAMEDTUPLE_API:
                continue
            owner = node.value.id if isinstance(node.value, ast.Name) else None
            if owner in ("self", "cls"):
                continue
            if owner in modules_bound or (node.attr in elsewhere and node.attr not in defined[module]):
                found.append(f"{module}.py:{node.lineno} uses {ast.unparse(node)}")
    return found


def test_no_module_of_seven_reaches_for_another_modules_private_names():
    assert private_crossings(PACKAGE) == []


def test_the_scan_finds_each_kind_of_private_crossing(tmp_path: Path):
    (tmp_path / "engine.py").write_text("class Deal:\n    def _draw(self):\n        self._cards = []\n\n_TABLE = ()\n")
    (tmp_path / "bot.py").write_text(
        "import engine\nfrom .engine import Deal, _TABLE\n\n"
        "def go(deal: Deal):\n    deal._draw()\n    deal._cards.clear()\n    return engine._TABLE, deal._replace\n"
    )
    (tmp_path / "fine.py").write_text(
        "class Own:\n    def _step(self):\n        return self._step\n\ndef use(o: Own):\n    return o._step\n"
    )
    found = private_crossings(tmp_path)
    assert sorted(found) == [
        "bot.py:2 imports _TABLE from engine",
        "bot.py:5 uses deal._draw",
        "bot.py:6 uses deal._cards",
        "bot.py:7 uses engine._TABLE",
    ]


def card_tables(module) -> dict[str, object]:
    """A module's globals that are tables over the 52 cards (by card, or sets of cards)."""
    tables = {}
    for name, value in vars(module).items():
        if isinstance(value, (tuple, list)) and len(value) == 52:
            tables[name] = value
        elif isinstance(value, frozenset) and value and all(isinstance(c, int) and 0 <= c < 52 for c in value):
            tables[name] = value
        elif isinstance(value, dict) and len(value) == 52:
            tables[name] = value
    return tables


def test_each_card_table_is_defined_once_and_shared():
    modules = {name: importlib.import_module(f"gamenight_seven.{name}") for name in AI_MODULES}
    seen: list[tuple[str, object]] = []
    copies = []
    for module_name, module in modules.items():
        for name, value in card_tables(module).items():
            for where, other in seen:
                if other == value and other is not value:
                    copies.append(f"{module_name}.{name} repeats {where}")
            seen.append((f"{module_name}.{name}", value))
    assert not copies
    assert len(seen) > 8  # the scan does see the tables (SUIT_OF, RANK_OF, PENALTY_OF, SEVEN_CARDS, ...)


def test_bots_py_holds_the_bots_and_their_settings_only():
    module = importlib.import_module("gamenight_seven.bots")
    classes = {
        name: value
        for name, value in vars(module).items()
        if isinstance(value, type) and value.__module__ == module.__name__
    }
    assert classes, "no class found"
    for name, cls in classes.items():
        assert callable(getattr(cls, "choose", None)) or is_dataclass(cls), f"{name} is neither a bot nor settings"
