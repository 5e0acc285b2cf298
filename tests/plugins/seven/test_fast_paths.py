"""The fast kernel (gamenight_seven.fast: precomputed tables, positional states, a one-card
draw, a parse cache for chance actions) agrees with the readable rules (gamenight_seven.rules)
and with docs/rules/seven.md 3 and 4, card by card and state by state."""

from __future__ import annotations

import random

import pytest
from gamenight.sdk import CHANCE, TERMINAL, IllegalAction
from gamenight_seven.fast import FastSevenRules
from gamenight_seven.plugin import GAME
from gamenight_seven.rules import CARD_CODES, QUEEN, SEVEN, SUITS, SevenRules, rank_of, suit_of

from .conftest import table


def expected_legal(hand: list[int], top: int, called: int, penalty: int, can_draw: bool) -> list[str]:
    """seven.md 3.1, 3.6, 3.7 and 4.3, written out plainly: the reference the tables must match."""
    if penalty:
        return [CARD_CODES[c] for c in hand if rank_of(c) == SEVEN] + ["draw"]
    suit, rank = (called, QUEEN) if called >= 0 else (suit_of(top), rank_of(top))
    actions: list[str] = []
    for card in hand:
        if rank_of(card) == QUEEN:
            actions += [CARD_CODES[card]] if len(hand) == 1 else [f"{CARD_CODES[card]}:{s}" for s in SUITS]
        elif rank_of(card) == rank or suit_of(card) == suit:
            actions.append(CARD_CODES[card])
    return [*actions, "draw"] if can_draw else actions or ["pass"]


LEADS = [(top, -1, 0) for top in range(52)] + [(9, called, 0) for called in range(4)] + [(19, -1, 3), (32, -1, 6)]


@pytest.mark.parametrize("engine", [SevenRules, FastSevenRules])
@pytest.mark.parametrize(("top", "called", "penalty"), LEADS)
def test_every_card_is_legal_exactly_when_the_rules_say_and_apply_agrees(engine, top, called, penalty):
    rules = engine()
    for card in range(52):
        if card == top:
            continue
        other = next(c for c in (12, 25, 38, 51) if c not in (card, top))  # a King to keep it company
        for hand, stock in (([card, other], "8D"), ([card], ""), ([card, other], "")):
            state = table(
                [" ".join(CARD_CODES[c] for c in hand), "3D 4D"],
                top=CARD_CODES[top],
                stock=stock,
                called=called,
                penalty=penalty,
            )
            legal = rules.legal_actions(state)
            assert legal == expected_legal(sorted(hand), top, called, penalty, bool(stock) or penalty > 0)
            code = CARD_CODES[card]
            tries = [f"{code}:{s}" for s in SUITS] + [code] if rank_of(card) == QUEEN else [code]
            for action in tries:
                if action in legal:
                    after = rules.apply(state, action)
                    assert after.discards[-1] == card and card not in after.hands[0]
                else:
                    with pytest.raises(IllegalAction):
                        rules.apply(state, action)


def seeded_states(rules, deals: int):
    for seed in range(deals):
        rng = random.Random(seed)
        state = rules.new_game(2 + seed % 4, {})
        while rules.to_move(state) != TERMINAL:
            yield state
            if rules.to_move(state) == CHANCE:
                action = rules.sample_chance(state, rng)
            else:
                action = rng.choice(rules.legal_actions(state))
            state = rules.apply(state, action)


def test_the_fast_draws_give_the_same_states_as_the_general_draw(rules):
    readable = SevenRules()
    draws, penalties = 0, 0
    for state in seeded_states(rules, 60):
        if state.phase == 1 and "draw" in rules.legal_actions(state):
            assert rules.apply(state, "draw") == readable._apply_draw(state)
            draws += 1
            penalties += state.penalty > 0
    assert draws > 1000 and penalties > 100


def test_a_chance_action_applies_alike_whether_or_not_it_was_just_sampled(rules):
    rng = random.Random(7)
    state = rules.new_game(5, {})
    sampled = rules.sample_chance(state, rng)
    other = rules.sample_chance(state, rng)  # now the cache holds another deal
    assert rules.apply(state, sampled) == rules.apply(state, "".join(sampled))
    assert rules.apply(state, sampled).hands != rules.apply(state, other).hands
    with pytest.raises(IllegalAction, match="all 52 cards"):
        rules.apply(state, other[:-2] + other[5:7])  # the last card replaced by a second copy of the first


def test_the_room_plays_the_fast_kernel():
    assert type(GAME.rules) is FastSevenRules


def outcome_of(rules, state, action):
    """What ``apply`` does: the new state, or the reason it refuses."""
    try:
        return rules.apply(state, action)
    except IllegalAction as refusal:
        return ("refused", str(refusal))


def probes(state) -> list[str]:
    """Actions to try beside the legal ones: every card of the mover's hand each way, others' cards, junk."""
    hand = state.hands[state.turn]
    other = [c for c in range(52) if c not in hand][:3]
    tries = ["draw", "pass", "7X", "deal:", ""]
    for card in (*hand, *other):
        tries.append(CARD_CODES[card])
        if rank_of(card) == QUEEN:
            tries += [f"{CARD_CODES[card]}:{s}" for s in SUITS]
    return tries


FULL_DEALS = {"uniform": 40, "cards first": 150}
"""The deals ``bench/bench_playouts.py`` compares; the test compares the first of them: 12 uniform
deals (7,355 states, every kind of event by the eighth) and 60 cards-first ones (5,886 states)."""


@pytest.mark.parametrize(("policy", "deals"), [("uniform", 12), ("cards first", 60)])
def test_the_kernel_gives_the_readable_rules_states_in_seeded_random_deals(policy, deals):
    """Every state of seeded deals (2-5 seats): to_move, legal actions, every seat's view,
    the chance outcome sampled, and what every legal action and many illegal ones do.
    Uniform play draws at will (long deals: reshuffles, dry tables, blocked deals); playing a
    card whenever one is legal gives short deals, 7 penalties and wins."""
    fast, readable = FastSevenRules(), SevenRules()
    kinds: dict[str, int] = {}
    states = 0
    for seed in range(deals):
        seats = 2 + seed % 4
        rng = random.Random(seed)
        state = readable.new_game_in_match(seats, {}, seed)
        assert fast.new_game_in_match(seats, {}, seed) == state
        while True:
            states += 1
            mover = readable.to_move(state)
            assert fast.to_move(state) == mover
            assert fast.legal_actions(state) == readable.legal_actions(state)
            for seat in range(seats):
                assert fast.view(state, seat) == readable.view(state, seat)
            if mover == TERMINAL:
                assert fast.scores(state) == readable.scores(state)
                assert outcome_of(fast, state, "draw") == outcome_of(readable, state, "draw")
                break
            if mover == CHANCE:
                state_of_rng = rng.getstate()
                action = fast.sample_chance(state, rng)
                rng.setstate(state_of_rng)
                assert readable.sample_chance(state, rng) == action
                forged = action[:-2] + action[-4:-2]  # the last card replaced by a copy of the one before
                for attempt in (action, forged, "draw", action.upper().lower()):
                    assert outcome_of(fast, state, attempt) == outcome_of(readable, state, attempt)
            else:
                legal = readable.legal_actions(state)
                for attempt in [*legal, *probes(state)]:
                    assert outcome_of(fast, state, attempt) == outcome_of(readable, state, attempt), attempt
                cards = [a for a in legal if a not in ("draw", "pass")]
                action = rng.choice(cards if cards and policy == "cards first" else legal)
            after = readable.apply(state, action)
            assert fast.apply(state, action) == after
            for event in after.events[len(state.events) :]:
                kinds[event.kind] = kinds.get(event.kind, 0) + 1
            state = after
    # The deals reached every kind of event, so every path of the kernel was compared.
    assert set(kinds) == {"up", "bury", "play", "draw", "penalty", "pass", "skip", "shuffle", "win", "blocked"} or (
        policy == "cards first" and set(kinds) >= {"up", "bury", "play", "draw", "penalty", "skip", "win"}
    ), kinds
    assert states > 5_000, states
