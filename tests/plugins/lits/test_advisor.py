"""The coach: every legal action ranked by its chance of winning, from the position as the seat sees it."""

from __future__ import annotations

import random

from gamenight.sdk import TERMINAL, BotContext
from gamenight.testing import check_advisor
from gamenight_lits.advisor import LitsAdvisor
from gamenight_lits.bots import ExpertBot
from gamenight_lits.plugin import GAME

from .conftest import play

SAMPLES = 4

ENDGAME = (
    "L:r5c6:o0 swap S:r2c5:o1 T:r2c8:o1 L:r0c8:o2 S:r7c8:o1 S:r4c3:o2 T:r3c1:o2 "
    "S:r5c1:o1 S:r8c5:o0 L:r0c0:o2 I:r6c0:o0 T:r1c3:o1 T:r0c4:o0 L:r4c9:o4"
).split()
"""Fifteen actions on the weave layout: seat 1 to move, 13 of its marks open against seat 0's 14."""

MIDGAME = ENDGAME[:7]


class SteppingClock:
    """A clock that moves one millisecond a reading: the expert's search is as deep on any machine."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.001
        return self.now


def _advise(rules, state, seed=0, samples=SAMPLES, **context):
    advisor = LitsAdvisor(state.turn, samples=samples, expert_budget=0.05, clock=SteppingClock)
    return advisor.advise(
        rules.view(state, state.turn),
        rules.legal_actions(state),
        BotContext(state.turn, random.Random(seed), time_budget=60.0, **context),
    )


def test_every_legal_action_gets_one_advice_best_first(rules):
    state = play(rules, *MIDGAME)
    legal = rules.legal_actions(state)
    advice = _advise(rules, state)
    assert sorted(a.action for a in advice) == sorted(legal) and len(legal) > 50
    values = [a.value for a in advice]
    assert values == sorted(values, reverse=True)
    assert all(0.0 <= v <= 1.0 for v in values)
    assert max(a.samples for a in advice) == SAMPLES and min(a.samples for a in advice) == 1  # halving


def test_nothing_is_hidden_so_the_view_is_the_position_and_the_advice_is_reproducible(rules):
    # lits.md 1.1: "Nothing is hidden: both seats see the whole board." There is no hidden
    # information to perturb; the advisor reads the view it is given, and nothing else.
    state = play(rules, *MIDGAME)
    assert GAME.perfect_information and rules.view(state, 0) == rules.view(state, 1) == state
    assert _advise(rules, state, seed=3) == _advise(rules, state, seed=3)


def test_the_placement_that_ends_the_game_ahead_is_ranked_first(rules):
    # lits.md 5.1: "The game ends when the seat to move has no legal placement"; 5.2: "The seat
    # with more of its own marks left uncovered wins; on a tie, the seat that placed the last
    # piece wins." T:r8c2:o2 covers two of seat 0's marks and leaves it nothing to place: 12
    # all, and seat 1 placed last. It is the last of the six legal placements.
    state = play(rules, *ENDGAME)
    legal = rules.legal_actions(state)
    assert state.turn == 1 and legal[-1] == "T:r8c2:o2" and len(legal) == 6
    after = rules.apply(state, "T:r8c2:o2")
    assert after.turn == TERMINAL and rules.outcome(after).winners == (1,)
    advice = _advise(rules, state, samples=8)
    assert advice[0].action == "T:r8c2:o2"
    assert advice[0].value == 1.0 > advice[1].value


def test_a_stop_request_returns_every_action_the_unmeasured_last(rules):
    state = play(rules, *MIDGAME)
    legal = rules.legal_actions(state)
    advice = _advise(rules, state, samples=1000, should_stop=lambda: True)
    assert sorted(a.action for a in advice) == sorted(legal)
    assert [a.samples for a in advice] == [1] + [0] * (len(legal) - 1)
    assert all(a.value == advice[0].value for a in advice)  # unmeasured: shown at the lowest measured


def test_the_game_registers_its_advisor_lazily_with_a_translated_unit():
    spec = GAME.advisor
    assert spec is not None and spec.unit.kind == "chance" and not spec.exact
    assert isinstance(spec.factory(GAME.rules, 0, {}), LitsAdvisor)
    assert GAME.translations["ja"][spec.unit.label]


def test_the_experts_search_names_the_choice_the_playouts_must_beat(rules):
    state = play(rules, *MIDGAME)
    legal = rules.legal_actions(state)
    ctx = BotContext(state.turn, random.Random(0), time_budget=60.0)
    choice = ExpertBot(0.05, clock=SteppingClock()).choose(state, legal, ctx)
    assert choice != legal[0]
    advice = _advise(rules, state)  # 4 playouts at most: too few for any action to pass it
    assert advice[0].action == choice


def test_no_legal_action_no_advice():
    assert GAME.advisor.factory(GAME.rules, 0, {}).advise(None, [], BotContext(0, random.Random(0))) == []


def test_the_sdk_kit_finds_the_advisor_keeps_its_contract():
    # Nothing is hidden (no perturbation): one advice per legal action, sorted, a stop
    # request kept, at the kit's 0.2 s budget.
    check_advisor(GAME, None, games=1, positions=4)
