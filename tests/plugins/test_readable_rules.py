"""The rules modules of SEVEN, Mille Bornes and Yatzy stay plain statements of their rules:
states and events built by name or ``_replace``, read by field name, no module
state.  The speed tricks belong in ``fast.py`` beside them (checked by each game's
test_fast_paths.py), where a new field cannot silently shift a reference constructor."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"
GAMES = ("seven", "mille", "yatzy")
RECORDS = {"SevenState", "SevenView", "Event", "MilleState", "MilleView", "Seat", "YatzyState"}
"""The records of the three rules modules (besides, any NamedTuple or dataclass a module defines)."""
STATE_NAMES = {"state", "s", "after", "new", "played", "done", "owing", "shuffled", "over"}


def tricks(source: str) -> list[str]:
    """Every construct of the kind the readable-rules work moved out of the reference rules, with its line."""
    found = []
    records = {
        node.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ClassDef)
        and (
            any(isinstance(base, ast.Name) and base.id == "NamedTuple" for base in node.bases)
            or any("dataclass" in ast.unparse(decorator) for decorator in node.decorator_list)
            or node.name in RECORDS
        )
    }
    for node in ast.walk(ast.parse(source)):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Attribute) and node.attr == "__new__":
            found.append(f"{where}: a __new__ construction")
        elif isinstance(node, ast.Name) and node.id.startswith("_I_"):
            found.append(f"{where}: index constant {node.id}")
        elif isinstance(node, ast.Global):
            found.append(f"{where}: module state (global {', '.join(node.names)})")
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in STATE_NAMES:
            found.append(f"{where}: {node.value.id}[...] instead of a field name")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in records and node.args:
            found.append(f"{where}: {node.func.id}(...) built positionally")
    return found


@pytest.mark.parametrize("game", GAMES)
def test_the_rules_module_builds_and_reads_its_states_by_name(game):
    source = (PLUGINS / f"gamenight_{game}" / "rules.py").read_text(encoding="utf-8")
    assert tricks(source) == []


def test_the_check_finds_each_kind_of_trick():
    source = """
class SevenState(tuple): ...
class Note(NamedTuple):
    text: str
_I_PHASE = 1
def f(state, cache):
    global cache
    return tuple.__new__(SevenState, (*state[5:17], state[_I_PHASE])), SevenState(1, 2), Note("x")
"""
    found = "\n".join(tricks(source))
    for kind in (
        "a __new__ construction",
        "index constant _I_PHASE",
        "global cache",
        "state[...]",
        "SevenState(...) built positionally",
        "Note(...) built positionally",
    ):
        assert kind in found
