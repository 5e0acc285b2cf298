"""The kit's advisor check (gamenight.testing.check_advisor) catches each way an advisor can break
its contract -- above all one that peeks at hidden state -- and passes an honest one.

The game is the shell's Nim, whose seat 0 holds a secret seat 1 may not see (tests/core/nim.py).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from gamenight.sdk import Advice, AdviceUnit, AdvisorSpec
from gamenight.sdk.testing import check_advisor as exported
from gamenight.testing import check_advisor, run_conformance

from tests.core.nim import NIM, NimRules

UNIT = AdviceUnit("chance", "chance of winning")


class StashingRules(NimRules):
    """Nim whose rules object remembers the last state it was asked about (a door to peek through)."""

    last = None

    def view(self, state, seat):
        self.last = state
        return super().view(state, seat)

    def legal_actions(self, state):
        self.last = state
        return super().legal_actions(state)


def perturb(state, seat, rng: random.Random):
    """Seat 1 may not see the secret: change it."""
    return state if seat == 0 else replace(state, secret=rng.randint(0, 99))


def honest_values(view, legal):
    """Win (1) for taking the sticks that leave a multiple of four, else 0.5: from the view only."""
    return {action: 1.0 if (view["sticks"] - int(action)) % 4 == 0 else 0.5 for action in legal}


class Honest:
    def __init__(self, rules=None):
        self.rules = rules

    def values(self, view, legal, ctx):
        return honest_values(view, legal)

    def advise(self, view, legal, ctx):
        values = self.values(view, legal, ctx)
        ordered = sorted(legal, key=lambda action: -values[action])
        return [Advice(action, values[action]) for action in ordered]


class PeeksThroughTheRules(Honest):
    """Reads the secret from the state the rules object last saw: hidden from seat 1."""

    def values(self, view, legal, ctx):
        values = honest_values(view, legal)
        favourite = legal[self.rules.last.secret % len(legal)]
        values[favourite] += 0.25
        return values


_SEEN = {}


class PeeksThroughAGlobal(Honest):
    """Reads the secret the way a plugin module might: a global the rules keep up to date."""

    def values(self, view, legal, ctx):
        values = honest_values(view, legal)
        values[legal[_SEEN["state"].secret % len(legal)]] -= 0.25
        return values


class GlobalRules(NimRules):
    def legal_actions(self, state):
        _SEEN["state"] = state
        return super().legal_actions(state)


class IllegalAdvice(Honest):
    def advise(self, view, legal, ctx):
        return [*super().advise(view, legal, ctx), Advice("4", 0.0)]


class MissingAdvice(Honest):
    def advise(self, view, legal, ctx):
        return super().advise(view, legal, ctx)[:-1] if len(legal) > 1 else []


class DuplicateAdvice(Honest):
    def advise(self, view, legal, ctx):
        advice = super().advise(view, legal, ctx)
        return [*advice, advice[-1]]


class WorstFirst(Honest):
    def advise(self, view, legal, ctx):
        return [Advice(action, float(int(action))) for action in legal]  # 1, 2, 3: ascending


class NotANumber(Honest):
    def advise(self, view, legal, ctx):
        return [Advice(action, float("nan")) for action in legal]


class IgnoresStop(Honest):
    """Searches on whatever ``should_stop`` says."""

    def advise(self, view, legal, ctx):
        for _sample in range(200):
            ctx.should_stop()
        return super().advise(view, legal, ctx)


class StopsShort(Honest):
    """Stops when told, but leaves the actions it did not reach without advice."""

    def advise(self, view, legal, ctx):
        reached = []
        for action in legal:
            if ctx.should_stop():
                break
            reached.append(action)
        return super().advise(view, reached, ctx)


class ChangesTheView(Honest):
    def advise(self, view, legal, ctx):
        view["sticks"] = 0
        return [Advice(action, 0.0) for action in legal]


class Searching(Honest):
    """A sampling advisor that obeys the contract: its RNG, stopping on ``should_stop``, one check per sample."""

    def advise(self, view, legal, ctx):
        totals = dict.fromkeys(legal, 0.0)
        samples = 0
        while samples < 500 and not ctx.should_stop():
            for action in legal:
                totals[action] += honest_values(view, legal)[action] + ctx.rng.random() / 100
            samples += 1
        ordered = sorted(legal, key=lambda action: -totals[action])
        return [Advice(action, totals[action] / max(1, samples), samples=samples) for action in ordered]


def nim_with(advisor_class, rules_class=NimRules):
    rules = rules_class()
    return replace(NIM, rules=rules, advisor=AdvisorSpec(lambda _rules, _seat, _options: advisor_class(rules), UNIT))


@pytest.mark.parametrize("advisor_class", [Honest, Searching])
def test_an_honest_advisor_passes_with_the_rules_that_could_be_peeked_through(advisor_class):
    check_advisor(nim_with(advisor_class, StashingRules), perturb, games=3, options={"sticks": 12})


def test_the_kit_is_the_one_the_sdk_exports():
    assert exported is check_advisor


@pytest.mark.parametrize(
    ("advisor_class", "rules_class"),
    [(PeeksThroughTheRules, StashingRules), (PeeksThroughAGlobal, GlobalRules)],
)
def test_an_advisor_that_peeks_at_the_hidden_secret_is_caught(advisor_class, rules_class):
    game = nim_with(advisor_class, rules_class)
    with pytest.raises(AssertionError, match="reads more than its view"):
        check_advisor(game, perturb, games=3, options={"sticks": 12})
    # Without perturb there is nothing to compare: the same advisor passes the other checks.
    check_advisor(game, None, games=1, options={"sticks": 12})


@pytest.mark.parametrize(
    ("advisor_class", "message"),
    [
        (IllegalAdvice, "not legal"),
        (MissingAdvice, "no advice for the legal actions"),
        (DuplicateAdvice, "advice twice"),
        (WorstFirst, "not sorted best first"),
        (NotANumber, "a finite number is needed"),
        (IgnoresStop, "went on and checked should_stop"),
        (StopsShort, "no advice for the legal actions"),
        (ChangesTheView, "changed the view"),
    ],
)
def test_each_broken_contract_is_caught(advisor_class, message):
    with pytest.raises(AssertionError, match=message):
        check_advisor(nim_with(advisor_class), perturb, games=2, options={"sticks": 12})


def test_run_conformance_checks_the_advisor_of_a_game_that_has_one():
    game = nim_with(PeeksThroughTheRules, StashingRules)
    with pytest.raises(AssertionError, match="reads more than its view"):
        run_conformance(game, perturb, games=10, screen=False)
    run_conformance(nim_with(Honest, StashingRules), perturb, games=10, screen=False)


def test_a_game_without_an_advisor_is_refused_by_the_check():
    with pytest.raises(AssertionError, match="not an AdvisorSpec"):
        check_advisor(NIM)


def test_a_search_advisors_near_tie_does_not_pass_its_anchor_on_noise():
    from gamenight.sdk import anchored_values

    anchor = [0.5, 0.6, 0.4, 0.5, 0.5, 0.6, 0.4, 0.5, 0.5, 0.5]
    noisy = [0.6, 0.5, 0.5, 0.6, 0.4, 0.7, 0.5, 0.4, 0.6, 0.5]  # +0.03 on average, spread 0.1
    better = [x + 0.3 for x in anchor]
    worse = [x - 0.2 for x in anchor]
    few = [1.0, 1.0]  # a big lead on two deals only: noise
    values = anchored_values([anchor, noisy, better, worse, few], 0)
    assert values[0] == values[1] == values[4] == sum(anchor) / len(anchor)
    assert values[2] == pytest.approx(0.8)  # a steady lead: no noise to take off
    assert values[3] == pytest.approx(0.3)  # worse: shown as measured


def test_a_stop_latch_asks_until_told_to_stop_then_never_again():
    from gamenight.sdk import StopLatch

    answers = iter([False, False, True])
    asked = []

    def should_stop() -> bool:
        asked.append(1)
        return next(answers)

    stop = StopLatch(should_stop)
    assert [stop() for _ in range(6)] == [False, False, True, True, True, True]
    assert len(asked) == 3
