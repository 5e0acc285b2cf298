"""Helpers for the Yatzy tests: crafted sheets and positions, and one DP table per session."""

from __future__ import annotations

import os

import pytest
from gamenight_yatzy.rules import BOX_INDEX, YatzyRules, YatzyState

RULES = YatzyRules()


def sheet(**filled: int) -> tuple[int | None, ...]:
    """A score sheet with the named boxes filled (``sheet(ones=3, yatzy=50)``), the rest open."""
    boxes: list[int | None] = [None] * 13
    for name, score in filled.items():
        boxes[BOX_INDEX[name]] = score
    return tuple(boxes)


def full_sheet(**open_or_filled: int | None) -> tuple[int | None, ...]:
    """A sheet with every box filled with 0 except as given (``None`` leaves a box open)."""
    boxes: list[int | None] = [0] * 13
    for name, score in open_or_filled.items():
        boxes[BOX_INDEX[name]] = score
    return tuple(boxes)


def rolled(
    dice: str, the_sheet: tuple[int | None, ...] | None = None, rolls: int = 1, joker: bool = False, bonuses: int = 0
) -> YatzyState:
    """Seat 0 of a solo game with ``dice`` on the table after ``rolls`` rolls."""
    return YatzyState(
        joker=joker,
        sheets=(the_sheet if the_sheet is not None else sheet(),),
        bonuses=(bonuses,),
        seat=0,
        dice=tuple(int(face) for face in dice),
        rolls=rolls,
        held=None,
    )


@pytest.fixture(scope="session")
def table_cache(tmp_path_factory):
    """Point the DP's table cache at a temporary directory for the whole session."""
    folder = tmp_path_factory.mktemp("yatzy-tables")
    previous = os.environ.get("GAMENIGHT_YATZY_CACHE")
    os.environ["GAMENIGHT_YATZY_CACHE"] = str(folder)
    from gamenight_yatzy import strategy

    strategy.load_table.cache_clear()
    strategy._cached_turn.cache_clear()
    yield folder
    if previous is None:
        os.environ.pop("GAMENIGHT_YATZY_CACHE", None)
    else:
        os.environ["GAMENIGHT_YATZY_CACHE"] = previous
    strategy.load_table.cache_clear()
    strategy._cached_turn.cache_clear()


@pytest.fixture(scope="session")
def joker_table(table_cache):
    """The full table of the joker ruleset, built once per session (the slow part of this directory)."""
    from gamenight_yatzy import strategy

    return strategy.load_table(True)
