"""run_conformance runs every check its documentation lists, the watchers' one included: a game whose
watcher view leaks a hand fails it, with and without a screen, and an honest one passes."""

from __future__ import annotations

import dataclasses
import random

import pytest
from gamenight.sdk import OBSERVER
from gamenight.testing import run_conformance

from tests.core.nim import NIM, NimRules


class HonestWatchableNim(NimRules):
    watchable = True

    def view(self, state, seat):
        if seat == OBSERVER:
            return {"sticks": state.sticks, "secret": None}
        return super().view(state, seat)


class LeakyWatchableNim(NimRules):
    """Shows watchers seat 0's view: its secret number included."""

    watchable = True

    def view(self, state, seat):
        return super().view(state, 0 if seat == OBSERVER else seat)


class BrokenWatchableNim(NimRules):
    """Reads the watcher's "seat" as an index from the end, as ``hands[OBSERVER]`` would."""

    watchable = True

    def view(self, state, seat):
        hands = [{"sticks": state.sticks, "secret": state.secret if s == 0 else None} for s in range(state.seats)]
        return hands[seat]


def perturb(state, seat, rng: random.Random):
    """Seat 0's secret is the only hidden information: change it for every other seat."""
    return state if seat == 0 else dataclasses.replace(state, secret=rng.randint(0, 99))


def game(rules) -> object:
    return dataclasses.replace(NIM, id="nimw", rules=rules, screen=None)


def test_an_honest_watchable_game_passes():
    run_conformance(game(HonestWatchableNim()), perturb=perturb, games=4, screen=False)


@pytest.mark.parametrize("rules", [LeakyWatchableNim(), BrokenWatchableNim()], ids=["leaky", "broken"])
def test_a_game_whose_watchers_see_a_hand_fails_the_conformance_kit(rules):
    with pytest.raises((AssertionError, IndexError)) as failure:
        run_conformance(game(rules), perturb=perturb, games=4, screen=False)
    assert "watchers' view" in str(failure.value) or isinstance(failure.value, IndexError)


def test_a_perfect_information_game_whose_watcher_view_breaks_fails_without_perturb():
    perfect = dataclasses.replace(game(BrokenWatchableNim()), perfect_information=True)
    with pytest.raises(IndexError):
        run_conformance(perfect, games=4, screen=False)


def test_a_game_that_is_not_watchable_must_refuse_watchers():
    class Careless(NimRules):  # not watchable, yet observer_view would be answered if it were asked
        pass

    run_conformance(game(Careless()), perturb=perturb, games=4, screen=False)  # observer_view refuses it
