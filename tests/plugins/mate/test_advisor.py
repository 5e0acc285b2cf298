"""Mate's coach: every legal play's exact result, checked against plain minimax and the rules.

The value of an action is the current play's score for the seat with best play by both
(docs/rules/mate.md 3.1: move × card value; 2.6: ten moves without a mate score nothing).
"""

from __future__ import annotations

import random

import pytest
from gamenight.sdk import BotContext
from gamenight.testing import check_advisor
from gamenight_mate.advisor import DRAW, LOSE, WIN, mate_advisor
from gamenight_mate.plugin import GAME
from gamenight_mate.reference import plain_minimax
from gamenight_mate.rules import MateRules, MateState
from gamenight_mate.solver import Solver

from .conftest import position
from .test_solver import endgame


def advise(rules: MateRules, state: MateState, seat: int | None = None):
    seat = rules.to_move(state) if seat is None else seat
    advisor = mate_advisor(rules, seat, {})
    return advisor.advise(rules.view(state, seat), rules.legal_actions(state), BotContext(seat, random.Random(0)))


def reference_value(rules: MateRules, state: MateState, action: str, seat: int) -> int:
    """The action's value by plain minimax over the rules' own functions (no solver)."""
    child = rules.apply(state, action)
    if child.phase == "ended":
        result = child.results[-1]
        return 0 if result.winner is None else (result.score if result.winner == seat else -result.score)
    worst = None
    for reply in rules.legal_actions(child):  # the other seat answers the lead
        after = rules.apply(child, reply)
        if after.phase == "ended":
            result = after.results[-1]
            value = 0 if result.winner is None else (result.score if result.winner == seat else -result.score)
        else:
            value = plain_minimax(after, seat)
        worst = value if worst is None else min(worst, value)
    assert worst is not None
    return worst


def test_every_lead_is_valued_as_plain_minimax_values_it_on_endgames(rules: MateRules) -> None:
    checked = 0
    for seed in range(60):
        state = endgame(rules, seed)
        if state is None:
            continue
        seat = state.leader
        for entry in advise(rules, state, seat):
            assert entry.value == reference_value(rules, state, entry.action, seat), (seed, entry.action)
            checked += 1
    assert checked >= 60


def test_the_labels_say_win_draw_or_lose_and_when(rules: MateRules) -> None:
    for seed in range(40):
        state = endgame(rules, seed, fewest=3, most=5)
        if state is None:
            continue
        for entry in advise(rules, state):
            if entry.value > 0:
                assert entry.label == WIN and entry.params["points"] == entry.value
            elif entry.value < 0:
                assert entry.label == LOSE and entry.params["points"] == -entry.value
            else:
                assert entry.label == DRAW and entry.params == {}
            if entry.label != DRAW:
                # The mate comes on a move of this play, counted from the current one.
                assert entry.params["move"] == state.move + entry.params["moves"] - 1
                assert state.move <= entry.params["move"] <= 10


def test_a_higher_score_comes_first_and_a_mate_now_is_a_win_in_one(rules: MateRules) -> None:
    # Seat 0 leads on move 9; seat 1 holds neither clubs nor hearts, Aces nor Kings: either lead mates.
    state = position(rules, ["AC", "KH"], ["7D", "QD"], move=9, leader=0)
    advice = advise(rules, state)
    assert [(entry.action, entry.value) for entry in advice] == [("AC", 99.0), ("KH", 36.0)]  # 3.1: 9 × 11, 9 × 4
    assert advice[0].label == WIN and advice[0].params == {"moves": 1, "move": 9, "points": 99}


def test_the_advice_agrees_with_the_solver_on_whole_deals_for_both_seats(rules: MateRules) -> None:
    from .conftest import random_deal

    for seed in range(2):
        state = random_deal(rules, seed, {"foreplacing": seed != 0})
        seat = rules.to_move(state)
        advice = advise(rules, state, seat)
        expected = Solver(state.variant).action_values(state, seat)
        assert {entry.action: entry.value for entry in advice} == expected
        assert [entry.value for entry in advice] == sorted(expected.values(), reverse=True)


def test_mate_registers_an_exact_coach_and_the_kit_passes_it() -> None:
    spec = GAME.advisor
    assert spec is not None and spec.exact and spec.unit.kind == "outcome"
    catalogue = GAME.translations["ja"]
    assert all(text in catalogue for text in (WIN, DRAW, LOSE, spec.unit.label))
    check_advisor(GAME, games=1, seed=1, positions=10)


@pytest.mark.parametrize("options", [{"double_deck": True}, {"kings_privilege": True, "free_move": True}])
def test_the_kit_passes_the_coach_in_the_variants(options) -> None:
    check_advisor(GAME, games=1, seed=2, options=options, positions=6)
