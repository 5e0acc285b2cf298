"""Rules return data; the texts modules and the screens translate.

Done for all five games: their ``rules.py`` calls no ``translator`` and no ``_``; every
sentence (events, refusals) is made by ``texts.py``, with the game's catalogue or the
translator a screen passes, so headless logs stay readable.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from gamenight.i18n import set_language, translator
from gamenight.plugins import load_registry
from gamenight.sdk import PublicEvent, fill_seat_names

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"
REGISTRY = load_registry()  # registers the games' catalogues


def _calls(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            names.add(func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else "")
    return names


@pytest.mark.parametrize("game_id", ["lits", "yatzy", "seven", "mille", "mate"])
def test_the_rules_module_translates_nothing(game_id):
    for module in ("rules.py", "fast.py"):
        path = PLUGINS / f"gamenight_{game_id}" / module
        assert not path.exists() or not {"translator", "_", "gettext"} & _calls(path), module


def test_the_texts_say_an_event_in_the_language_they_are_given():
    from gamenight_lits.texts import describe_event
    from gamenight_yatzy.texts import describe_event as yatzy_event

    place = PublicEvent("place", {"seat": 0, "shape": "L", "row": 1, "col": 4})
    score = PublicEvent("score", {"seat": 1, "box": "full_house", "index": 8, "points": 25, "bonus": 0})
    assert fill_seat_names(describe_event(place)) == "Seat 1 places L on e2."
    assert yatzy_event(score) == "Scores 25 in Full house."
    set_language("ja")
    try:
        assert fill_seat_names(describe_event(place, translator("lits")), ["ケイ"]) == "ケイ が L を e2 に置きます。"
        assert "フルハウス" in yatzy_event(score, translator("yatzy"))
    finally:
        set_language("en")
