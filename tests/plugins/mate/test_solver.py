"""The exact solver agrees with plain minimax, on endgames and on full deals."""

from __future__ import annotations

import random

import pytest
from gamenight_mate.reference import plain_minimax
from gamenight_mate.rules import NONE, MateRules, MateState, score_for
from gamenight_mate.solver import Solver

from .conftest import position, random_deal

VARIANTS = [
    {},
    {"double_deck": True},
    {"kings_privilege": True},
    {"free_move": True},
    {"double_deck": True, "kings_privilege": True, "free_move": True},
]


def engine_minimax(rules: MateRules, state: MateState, seat: int) -> int:
    """Plain minimax through the rules engine itself: no pruning, no table."""
    if state.phase == "ended":
        result = state.results[-1]
        return 0 if result.winner is None else (result.score if result.winner == seat else -result.score)
    mover = rules.to_move(state)
    values = [engine_minimax(rules, rules.apply(state, action), seat) for action in rules.legal_actions(state)]
    return max(values) if mover == seat else min(values)


def endgame(rules: MateRules, seed: int, fewest: int = 4, most: int = 6) -> MateState | None:
    """A random position of play 1 with ``fewest``-``most`` cards a hand, reached by random actions."""
    rng = random.Random(seed)
    options = {**rng.choice(VARIANTS), "foreplacing": rng.random() < 0.6}
    state = random_deal(rules, seed, options)
    cards_left = rng.randint(fewest, most)
    while state.phase != "ended":
        if state.phase == "play" and state.lead is None and len(state.hands[state.leader]) <= cards_left:
            return state
        state = rules.apply(state, rng.choice(rules.legal_actions(state)))
    return None


def test_the_solver_agrees_with_plain_minimax_on_endgames_of_4_to_6_cards(rules: MateRules) -> None:
    checked = 0
    for seed in range(100):
        state = endgame(rules, seed)
        if state is None:
            continue
        seat = seed % 2
        assert Solver(state.variant).play_value(state, seat) == plain_minimax(state, seat), seed
        checked += 1
    assert checked >= 50


def test_the_solver_agrees_with_minimax_through_the_rules_engine_on_4_card_endgames(rules: MateRules) -> None:
    checked = 0
    for seed in range(100, 160):
        state = endgame(rules, seed, most=4)
        if state is None:
            continue
        seat = seed % 2
        assert Solver(state.variant).play_value(state, seat) == engine_minimax(rules, state, seat), seed
        checked += 1
    assert checked >= 30


def test_the_solver_values_each_answer_as_minimax_does(rules: MateRules) -> None:
    for seed in range(200, 240):
        state = endgame(rules, seed, most=5)
        if state is None:
            continue
        state = rules.apply(state, rules.legal_actions(state)[0])
        if state.phase == "ended":
            continue
        solver = Solver(state.variant)
        seat = rules.to_move(state)
        for action, value in solver.action_values(state, seat).items():
            assert value == engine_minimax(rules, rules.apply(state, action), seat)


@pytest.mark.slow
def test_the_solver_agrees_with_plain_minimax_on_a_full_deal(rules: MateRules) -> None:
    state = random_deal(rules, 1, {"foreplacing": False})
    assert Solver(state.variant).play_value(state, 0) == plain_minimax(state, 0) == 80


@pytest.mark.slow
def test_the_solver_agrees_with_plain_minimax_on_a_full_deal_after_foreplacing(rules: MateRules) -> None:
    state = random_deal(rules, 9)
    rng = random.Random(9)
    for _decision in range(2):
        state = rules.apply(state, rng.choice([a for a in rules.legal_actions(state) if a != NONE]))
    assert all(state.foreplaced) and state.phase == "play"
    assert Solver(state.variant).play_value(state, 1) == plain_minimax(state, 1)


def test_foreplacing_is_decided_by_solving_every_choice(rules: MateRules) -> None:
    state = random_deal(rules, 3)
    solver = Solver(state.variant)
    dealer_values = solver.action_values(state, 0)
    assert set(dealer_values) == set(rules.legal_actions(state))
    for action in (NONE, *list(dealer_values)[1:3]):
        after = rules.apply(state, action)
        replies = solver.action_values(after, 1)
        assert dealer_values[action] == -max(replies.values())
        for reply, value in replies.items():
            assert value == -solver.play_value(rules.apply(after, reply), 0)
    best_action, best_value = solver.best_action(state, 0)
    assert best_value == max(dealer_values.values()) == dealer_values[best_action]
    assert solver.play_value(state, 0) == best_value


def test_solving_from_either_seat_gives_opposite_values(rules: MateRules) -> None:
    state = random_deal(rules, 5, {"foreplacing": False})
    assert Solver(state.variant).play_value(state, 0) == -Solver(state.variant).play_value(state, 1)


def test_the_best_line_ends_as_the_value_says(rules: MateRules) -> None:
    state = random_deal(rules, 6, {"foreplacing": False})
    solver = Solver(state.variant)
    line = solver.best_line(state, 0)
    assert line.value == solver.play_value(state, 0)
    if line.winner is not None:
        assert abs(line.value) == score_for(line.move, line.card, line.foreplaced)


def test_a_forced_mate_is_found_at_the_right_move() -> None:
    rules = MateRules()
    # A leads K♣; B, holding no club and no King, is mated at once: 10 × 4 = 40 on move 10.
    state = position(rules, ["KC"], ["AH"], move=10, leader=0)
    solver = Solver(state.variant)
    line = solver.best_line(state, 1)
    assert (line.value, line.winner, line.move, line.card) == (-40, 0, 10, "KC")
