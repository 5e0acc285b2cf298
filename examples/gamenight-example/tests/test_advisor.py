"""The Goofspiel coach (the advisor the room's hint panel, warning and review use)."""

from __future__ import annotations

import random

from gamenight.sdk import BotContext
from test_conformance import reshuffle_hidden_bids  # the same perturbation as the bots are checked with

from gamenight_example.advisor import GoofspielAdvisor
from gamenight_example.rules import GoofspielRules

RULES = GoofspielRules()


def advise(state, seat):
    legal = RULES.legal_actions(state)
    return GoofspielAdvisor().advise(RULES.view(state, seat), legal, BotContext(seat, random.Random(0))), legal


def with_prize(prize: int, seats: int = 2):
    return RULES.apply(RULES.new_game(seats, {}), f"prize:{prize}")


def test_every_legal_bid_once_best_first():
    advice, legal = advise(with_prize(7), 0)
    assert sorted(entry.action for entry in advice) == sorted(legal)
    assert [entry.value for entry in advice] == sorted((entry.value for entry in advice), reverse=True)


def test_the_king_on_the_richest_prize_and_the_ace_on_the_poorest():
    assert advise(with_prize(13), 0)[0][0].action == "bid:13"
    assert advise(with_prize(1), 0)[0][0].action == "bid:1"


def test_the_advice_is_the_same_whatever_the_hidden_bids_are():
    state = RULES.apply(with_prize(9, seats=3), "bid:4")  # seat 0 bid face down; seat 1 to move
    rng = random.Random(3)
    first = advise(state, 1)[0]
    perturbed = [reshuffle_hidden_bids(state, 1, rng) for _ in range(10)]
    assert any(other.bids != state.bids for other in perturbed)  # the hidden bid does move
    assert all(advise(other, 1)[0] == first for other in perturbed)
