"""Shared helpers for the Battle of LITS tests."""

from __future__ import annotations

import random

import pytest
from gamenight_lits.rules import KEEP, LitsRules, LitsState, Placement


@pytest.fixture
def rules() -> LitsRules:
    return LitsRules()


def play(rules: LitsRules, *moves: Placement | str, layout: str = "weave") -> LitsState:
    """A fresh game with ``moves`` applied (placements or pie answers)."""
    state = rules.new_game(2, {"layout": layout})
    for move in moves:
        state = rules.apply(state, move.action if isinstance(move, Placement) else move)
    return state


def random_position(rules: LitsRules, seed: int, steps: int, layout: str = "weave") -> LitsState:
    """The position after up to ``steps`` random actions from a seeded game."""
    rng = random.Random(seed)
    state = rules.new_game(2, {"layout": layout})
    if state.turn < 0:
        state = rules.apply(state, rules.sample_chance(state, rng))
    for _ in range(steps):
        legal = rules.legal_actions(state)
        if not legal:
            break
        state = rules.apply(state, rng.choice(legal))
    return state


FIRST_I = Placement("I", 0, 0, 1)
"""A horizontal I on row 0, columns 0-3."""
OPENING = (FIRST_I, KEEP)
