"""The example plugin is what docs/plugins.md says a plugin is: the guide's rules, checked on its source.

The example is the template plugin authors copy, so it must not be older than the guide: it imports
only ``gamenight.sdk`` (and its testing kit), its rules translate nothing and say what a move did as
public events and why a move is refused as data, it names the SDK version it needs, and its widgets
are named after its game.  (tests/examples/ install it and run its own tests.)
"""

from __future__ import annotations

import ast
from pathlib import Path

import gamenight.sdk as sdk
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gamenight-example"
PACKAGE = EXAMPLE / "src" / "gamenight_example"
PUBLIC = {"gamenight.sdk", "gamenight.sdk.testing"}


def tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def python_files() -> list[Path]:
    return sorted([*PACKAGE.rglob("*.py"), *(EXAMPLE / "tests").rglob("*.py")])


def room_imports(path: Path) -> list[str]:
    """Every module of the room (``gamenight`` or under it) that ``path`` imports."""
    found = []
    for node in ast.walk(tree(path)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found += [name for name in names if name == "gamenight" or name.startswith("gamenight.")]
    return found


@pytest.mark.parametrize("path", python_files(), ids=lambda path: str(path.relative_to(EXAMPLE)))
def test_the_example_imports_only_the_sdk_of_the_room(path: Path):
    assert [name for name in room_imports(path) if name not in PUBLIC] == []


def calls(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(tree(path)):
        if isinstance(node, ast.Call):
            func = node.func
            names.add(func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else "")
    return names


def test_the_examples_rules_translate_nothing_and_refuse_as_data():
    rules = PACKAGE / "rules.py"
    assert not {"translator", "_", "gettext"} & calls(rules)
    for node in ast.walk(tree(rules)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "IllegalAction":
            raise AssertionError(f"rules.py:{node.lineno}: IllegalAction(...) -- say why as data: .because(code, ...)")
    assert "because" in calls(rules)


def test_the_examples_rules_say_what_a_move_did_as_public_events():
    rules = tree(PACKAGE / "rules.py")
    (cls,) = [node for node in rules.body if isinstance(node, ast.ClassDef) and node.name.endswith("Rules")]
    methods = {node.name for node in cls.body if isinstance(node, ast.FunctionDef)}
    assert {"public_events", "view", "apply"} <= methods
    screen = tree(PACKAGE / "screen.py")
    (table,) = [node for node in screen.body if isinstance(node, ast.ClassDef) and node.name.endswith("Screen")]
    assert "describe_event" in {node.name for node in table.body if isinstance(node, ast.FunctionDef)}


def test_the_example_names_the_sdk_version_it_needs():
    plugin = tree(PACKAGE / "plugin.py")
    declared = [
        node.value.value
        for node in plugin.body
        if isinstance(node, ast.Assign)
        and any(isinstance(target, ast.Name) and target.id == "GAMENIGHT_API" for target in node.targets)
        and isinstance(node.value, ast.Constant)
    ]
    assert declared == [sdk.API_VERSION]


def test_the_examples_widgets_are_named_after_its_game():
    screen = tree(PACKAGE / "screen.py")
    classes = [node.name for node in screen.body if isinstance(node, ast.ClassDef)]
    assert classes and all(name.startswith("Goofspiel") for name in classes), classes
