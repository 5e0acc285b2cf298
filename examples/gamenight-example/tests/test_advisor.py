"""The coach (SDK 1.2): each bid valued from the view, by the model advisor.py states."""

from __future__ import annotations

import random

from gamenight.sdk import BotContext

from gamenight_example.advisor import TAKES, make_advisor
from gamenight_example.rules import GoofspielRules


def test_a_bid_is_worth_the_prize_it_expects_minus_what_the_card_pays_later():
    rules = GoofspielRules()
    state = rules.apply(rules.new_game(2, {"cards": 5}), "prize:5")
    state = rules.apply(state, "bid:3")  # North bids 3 face down; East is to bid
    view = rules.view(state, 1)
    advice = make_advisor(rules, 1, {}).advise(view, rules.legal_actions(state), BotContext(1, random.Random(0)))
    values = {entry.action: entry.value for entry in advice}
    # North's five cards are all unshown to East: a 4 beats three of them (1, 2, 3) -- 3/5 of 5 points;
    # the prizes left (1-4, 10 points) pay 10/15 of a point per card point: 4 costs 8/3.
    assert values["bid:4"] == 5 * 3 / 5 - 4 * 10 / 15
    assert values["bid:1"] == 0 - 1 * 10 / 15
    assert [entry.value for entry in advice] == sorted(values.values(), reverse=True)
    assert advice[0].reason == TAKES and set(advice[0].params) == {"percent"}
