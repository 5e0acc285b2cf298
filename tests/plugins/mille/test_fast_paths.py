"""The fast kernel (gamenight_mille.fast: positional states, hoisted legality checks) agrees with
the readable rules (gamenight_mille.rules), state by state, over seeded random games."""

from __future__ import annotations

import random

import pytest
from gamenight.sdk import CHANCE, TERMINAL, IllegalAction
from gamenight_mille.fast import FastMilleRules
from gamenight_mille.plugin import GAME
from gamenight_mille.rules import EXTRA_TANK, SLOT_INDEX, MilleRules

PROBES = ["draw", "extend", "stop", "pass", "", "use:", "use:7", "deal:abc"] + [
    f"{verb}:{slot}" for verb in ("use", "discard") for slot in SLOT_INDEX
]
"""Every action a seat could send, legal or not, tried on every state."""


def test_the_room_plays_the_fast_kernel():
    assert type(GAME.rules) is FastMilleRules


def outcome_of(rules, state, action):
    """What ``apply`` does: the new state, or the reason it refuses."""
    try:
        return rules.apply(state, action)
    except IllegalAction as refusal:
        return ("refused", str(refusal))


FULL_GAMES = {("uniform", 5000): 4, ("safeties first", 1500): 12}
"""(policy, target) -> the games ``bench/bench_playouts.py`` compares.  The test compares the first 3
uniform games to 5000 (4,070 states; an extension first in the second) and the first 6 safeties-first
games to 1500 (2,880 states; every kind of action by the fifth)."""


@pytest.mark.parametrize(("policy", "games", "target"), [("uniform", 3, 5000), ("safeties first", 6, 1500)])
def test_the_kernel_gives_the_readable_rules_states_in_seeded_random_games(policy, games, target):
    """Every state of seeded random games: to_move, legal actions, both views, the interlude,
    and what every action a seat could send does (the new state, or the same reason)."""
    fast, readable = FastMilleRules(), MilleRules()
    seen: set[str] = set()
    states = 0
    for seed in range(games):
        rng = random.Random(seed)
        state = readable.new_game_in_match(2, {"target": target}, seed)
        assert fast.new_game_in_match(2, {"target": target}, seed) == state
        while True:
            states += 1
            mover = readable.to_move(state)
            assert fast.to_move(state) == mover
            legal = readable.legal_actions(state)
            assert fast.legal_actions(state) == legal
            for seat in (0, 1):
                assert fast.view(state, seat) == readable.view(state, seat)
            assert fast.interlude(state) == readable.interlude(state)
            for attempt in PROBES:
                assert outcome_of(fast, state, attempt) == outcome_of(readable, state, attempt), attempt
            if mover == TERMINAL:
                assert fast.outcome(state) == readable.outcome(state)
                break
            if mover == CHANCE:
                action = readable.sample_chance(state, rng)
                miscounted = action[:-1] + ("a" if action[-1] != "a" else "b")
                for attempt in (action, miscounted, action[:-1] + "z", action + "a", action.upper()):
                    assert outcome_of(fast, state, attempt) == outcome_of(readable, state, attempt)
            else:
                safeties = [
                    a
                    for a in legal
                    if a.startswith("use:") and state.seats[mover].hand[SLOT_INDEX[a[4:]]] >= EXTRA_TANK
                ]
                action = rng.choice(safeties if safeties and policy == "safeties first" else legal)
                seen.add(action.partition(":")[0])
            after = readable.apply(state, action)
            assert fast.apply(state, action) == after
            state = after
    assert seen == {"draw", "use", "discard", "extend", "stop"}, seen
    assert states > 2_000, states
