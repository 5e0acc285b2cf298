"""Seeded random games: every game ends with 13 boxes filled per seat and totals that add up."""

from __future__ import annotations

import random

import pytest
from gamenight.sdk import CHANCE, TERMINAL
from gamenight_yatzy.rules import YATZY, YatzyRules, lower_total, upper_bonus, upper_total

GAMES = 2_500  # a bounded seeded count; bench/bench_yatzy.py plays the specified 10,000 and more


def random_game(rules: YatzyRules, seed: int):
    """A whole game of random legal actions, seats and joker option drawn from the seed."""
    rng = random.Random(seed)
    seats = 1 + seed % 2
    state = rules.new_game(seats, {"joker": seed % 2 == 1})
    actions = 0
    while (seat := rules.to_move(state)) != TERMINAL:
        action = rules.sample_chance(state, rng) if seat == CHANCE else rng.choice(rules.legal_actions(state))
        state = rules.apply(state, action)
        actions += 1
    return state, actions


@pytest.mark.slow
def test_thousands_of_random_games_keep_the_invariants():
    rules = YatzyRules()
    for seed in range(GAMES):
        state, actions = random_game(rules, seed)
        seats = len(state.sheets)
        assert actions <= seats * 13 * 7  # roll, dice, (reroll, dice) x2, score
        outcome = rules.outcome(state)
        for seat, (sheet, bonuses) in enumerate(zip(state.sheets, state.bonuses, strict=True)):
            assert None not in sheet and len(sheet) == 13
            assert all(0 <= points <= 50 for points in sheet)
            assert upper_total(sheet) <= 30 * 6
            expected = upper_total(sheet) + upper_bonus(sheet) + lower_total(sheet) + 100 * bonuses
            assert outcome.scores[seat] == expected
            sections = {label: values[seat] for label, values in outcome.lines}
            place = sections.pop("Place", 1.0)
            assert sum(sections.values()) == outcome.scores[seat]
            assert place == 1 + sum(other > outcome.scores[seat] for other in outcome.scores)
            assert bonuses == 0 or sheet[YATZY] == 50
        assert outcome.winners == tuple(i for i, s in enumerate(outcome.scores) if s == max(outcome.scores))


def test_a_game_is_determined_by_its_seed():
    rules = YatzyRules()
    assert random_game(rules, 42) == random_game(rules, 42)
