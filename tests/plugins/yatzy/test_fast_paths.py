"""The fast kernel (gamenight_yatzy.fast: roll tables, memoised scores and actions, positional
states) agrees with the readable rules (gamenight_yatzy.rules), state by state, over seeded
random games, and its memoised box scores agree with the plain ones for every roll."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from gamenight.sdk import CHANCE, TERMINAL, IllegalAction
from gamenight_yatzy import fast
from gamenight_yatzy.fast import FastYatzyRules
from gamenight_yatzy.plugin import GAME
from gamenight_yatzy.rules import BOXES, REROLL_ACTIONS, YATZY, YatzyRules, box_score

PROBES = [
    *REROLL_ACTIONS,
    "roll:11111",
    "roll:0000",
    "roll:000000",
    "roll:2000a",
    "roll:",
    *(f"score:{name}" for name in BOXES),
    "score:nope",
    "score:",
    "dice:12345",
    "dice:66666",
    "dice:1234",
    "dice:12347",
    "draw",
    "",
]
"""Actions a seat could send, legal or not, tried on every state."""


def test_the_room_plays_the_fast_kernel():
    assert type(GAME.rules) is FastYatzyRules


def outcome_of(rules, state, action):
    """What ``apply`` does: the new state, or the reason it refuses."""
    try:
        return rules.apply(state, action)
    except IllegalAction as refusal:
        return ("refused", str(refusal))


def keep_the_most_common_face(state, legal, rng):
    """Roll for a Yatzy and score one as such (so jokers and bonuses happen); else score at random."""
    if state.rolls and len(set(state.dice)) == 1 and "score:yatzy" in legal:
        return "score:yatzy"
    rolls = [a for a in legal if a.startswith("roll:")]
    if state.rolls == 0 or not rolls or rng.random() < 0.1:
        return rng.choice(legal)
    face, _count = Counter(state.dice).most_common(1)[0]
    mask = "".join("1" if die == face else "0" for die in state.dice)
    return f"roll:{mask}" if f"roll:{mask}" in legal else rng.choice(legal)


@pytest.mark.parametrize(("policy", "games"), [("uniform", 30), ("yatzy hunting", 80)])
def test_the_kernel_gives_the_readable_rules_states_in_seeded_random_games(policy, games):
    """Every state: to_move, legal actions, the chance outcome sampled, and what every action a
    seat could send does (the new state, or the same reason); 1-3 seats, joker on and off."""
    kernel, readable = FastYatzyRules(), YatzyRules()
    bonuses = jokers = 0
    for seed in range(games):
        rng = random.Random(seed)
        options = {"joker": seed % 2 == 1}
        state = readable.new_game(1 + seed % 3, options)
        assert kernel.new_game(1 + seed % 3, options) == state
        while True:
            mover = readable.to_move(state)
            assert kernel.to_move(state) == mover
            legal = readable.legal_actions(state)
            assert kernel.legal_actions(state) == legal
            for attempt in PROBES:
                assert outcome_of(kernel, state, attempt) == outcome_of(readable, state, attempt), attempt
            if mover == TERMINAL:
                assert kernel.outcome(state) == readable.outcome(state)
                break
            if mover == CHANCE:
                before = rng.getstate()
                action = kernel.sample_chance(state, rng)
                rng.setstate(before)
                assert readable.sample_chance(state, rng) == action
                changed = action[:5] + "".join(str(7 - int(face)) for face in action[5:])  # every die turned over
                assert outcome_of(kernel, state, changed) == outcome_of(readable, state, changed)
            elif policy == "uniform":
                action = rng.choice(legal)
            else:
                action = keep_the_most_common_face(state, legal, rng)
            after = readable.apply(state, action)
            assert kernel.apply(state, action) == after
            if action.startswith("score:") and state.joker and state.sheets[state.seat][YATZY] is not None:
                jokers += len(set(state.dice)) == 1
            state = after
        bonuses += sum(state.bonuses)
    if policy == "yatzy hunting":
        assert bonuses > 5 and jokers > 5, (bonuses, jokers)


def test_the_memoised_box_scores_are_the_plain_ones_for_every_roll():
    sheets = [(None,) * 13, (None,) * 11 + (50, None), (1, 2, 3, 4, 5, 6, None, None, None, 0, None, 0, None)]
    for dice in itertools.product(range(1, 7), repeat=5):
        for sheet, box, joker in itertools.product(sheets, range(13), (False, True)):
            assert fast.box_score(sheet, dice, box, joker) == box_score(sheet, dice, box, joker)
