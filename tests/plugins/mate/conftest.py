"""Shared helpers for the Mate tests: deals from chosen hands, positions mid-play."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from gamenight_mate.rules import DOUBLE_DECK, SINGLE_DECK, MateRules, MateState, sort_hand


@pytest.fixture
def rules() -> MateRules:
    return MateRules()


def deal_action(dealer_hand: list[str], other_hand: list[str]) -> str:
    """The shuffle that deals ``dealer_hand`` to the dealer and ``other_hand`` to the other seat.

    Cards 1-5 and 11-15 go to the non-dealer, 6-10 and 16-20 to the dealer.
    """
    order = other_hand[:5] + dealer_hand[:5] + other_hand[5:] + dealer_hand[5:]
    return " ".join(order)


def split_deck(a_hand: list[str], double: bool = False) -> list[str]:
    """The cards of the deck that are not in ``a_hand`` (B's hand)."""
    rest = list(DOUBLE_DECK if double else SINGLE_DECK)
    for card in a_hand:
        rest.remove(card)
    return rest


def dealt(rules: MateRules, a_hand: list[str], options: dict | None = None) -> MateState:
    """A match with play 1 dealt: ``a_hand`` to A (the dealer), the other ten cards to B."""
    options = dict(options or {})
    state = rules.new_game(2, options)
    return rules.apply(state, deal_action(a_hand, split_deck(a_hand, options.get("double_deck", False))))


def position(
    rules: MateRules,
    a_hand: list[str],
    b_hand: list[str],
    *,
    move: int,
    leader: int,
    foreplaced: tuple[str | None, str | None] = (None, None),
    played: tuple[list[str], list[str]] | None = None,
    options: dict | None = None,
) -> MateState:
    """A play-1 position at ``move`` with these hands left (the rest counts as played or aside)."""
    options = {"foreplacing": False, **(options or {})}
    state = rules.new_game(2, options)
    if played is None:
        deck = list(DOUBLE_DECK if options.get("double_deck") else SINGLE_DECK)
        for card in [*a_hand, *b_hand, *(c for c in foreplaced if c)]:
            deck.remove(card)
        played = ([], [])
        for index in range(2 * (move - 1)):
            played[index % 2].append(deck[index])
    return replace(
        state,
        phase="play",
        hands=(sort_hand(a_hand), sort_hand(b_hand)),
        deal=(sort_hand(a_hand), sort_hand(b_hand)),
        foreplaced=foreplaced,
        played=(tuple(played[0]), tuple(played[1])),
        move=move,
        leader=leader,
    )


def random_deal(rules: MateRules, seed: int, options: dict | None = None) -> MateState:
    """Play 1 of a match dealt from a seeded shuffle."""
    state = rules.new_game(2, options or {})
    return rules.apply(state, rules.sample_chance(state, random.Random(seed)))


def finish(rules: MateRules, state: MateState, actions: list[str]) -> MateState:
    """Apply ``actions`` in turn."""
    for action in actions:
        state = rules.apply(state, action)
    return state
