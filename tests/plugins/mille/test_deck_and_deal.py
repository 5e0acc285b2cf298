"""docs/rules/mille.md 2 and 3: the deck, the deal, the P slot and the turns."""

from __future__ import annotations

import random

import pytest
from gamenight.sdk import CHANCE, IllegalAction
from gamenight_mille.rules import (
    CARD_NAMES,
    DEAL,
    DECK_COUNTS,
    EMPTY,
    HAND_OVER,
    PLAY,
    MilleRules,
    deal_action,
    full_deck,
)

from .conftest import assert_all_cards_accounted, card


def test_the_deck_holds_101_cards_in_the_counts_of_the_manual():
    expected = {
        "25": 10, "50": 10, "75": 10, "100": 12, "200": 4,
        "Out of Gas": 2, "Flat Tire": 2, "Accident": 2, "Stop": 4, "Speed Limit": 3,
        "Gasoline": 6, "Spare Tire": 6, "Repairs": 6, "Go": 14, "End of Limit": 6,
        "Extra Tank": 1, "Puncture Proof": 1, "Driving Ace": 1, "Right of Way": 1,
    }  # fmt: skip
    assert {name: DECK_COUNTS[card(name)] for name in CARD_NAMES} == expected
    assert len(full_deck()) == 101


def test_a_game_starts_with_a_deal_as_a_chance_action(rules: MilleRules):
    start = rules.new_game(2, {})
    assert start.phase == DEAL and rules.to_move(start) == CHANCE
    assert rules.legal_actions(start) == []


def test_the_deal_gives_six_cards_each_into_slots_1_to_6_and_leaves_89(rules: MilleRules):
    deck = full_deck()
    random.Random(4).shuffle(deck)
    dealt = rules.apply(rules.new_game(2, {}), deal_action(deck))
    assert dealt.phase == PLAY
    assert dealt.seats[0].hand == (EMPTY, *deck[0:6])
    assert dealt.seats[1].hand == (EMPTY, *deck[6:12])
    assert len(dealt.deck) == 89 and dealt.deck[0] == deck[12]
    assert_all_cards_accounted(dealt)


def test_the_seeded_shuffle_is_a_valid_deal_and_reproducible(rules: MilleRules):
    start = rules.new_game(2, {})
    first = rules.sample_chance(start, random.Random(9))
    assert first == rules.sample_chance(start, random.Random(9))
    assert rules.apply(start, first).phase == PLAY


@pytest.mark.parametrize(
    "action",
    [
        "deal:" + "a" * 101,  # wrong counts
        "deal:" + deal_action(full_deck())[5:-1],  # a card short
        "deal:" + deal_action(full_deck())[5:-1] + "z",  # not a card letter
        "draw",  # no deal yet
    ],
)
def test_a_deal_that_is_not_exactly_the_101_cards_is_refused(rules: MilleRules, action: str):
    start = rules.new_game(2, {})
    with pytest.raises(IllegalAction):
        rules.apply(start, action)
    assert start == rules.new_game(2, {})


def test_the_first_drawer_alternates_from_hand_to_hand(rules: MilleRules):
    game = rules.new_game(2, {})
    starters = []
    for _hand in range(4):
        game = rules.apply(game, deal_action(full_deck()))
        starters.append(rules.to_move(game))
        game = game._replace(phase=HAND_OVER)  # end the hand at once to deal the next
    assert starters == [0, 1, 0, 1]


@pytest.mark.parametrize(("game_number", "first"), [(0, 0), (1, 1), (2, 0), (7, 1)])
def test_the_first_drawer_goes_on_alternating_from_game_to_game(rules: MilleRules, game_number, first):
    game = rules.new_game_in_match(2, {}, game_number)
    starters = []
    for _hand in range(2):
        game = rules.apply(game, deal_action(full_deck()))
        starters.append(rules.to_move(game))
        game = game._replace(phase=HAND_OVER)
    assert starters == [first, 1 - first]


def test_only_two_seats_may_play(rules: MilleRules):
    with pytest.raises(ValueError):
        rules.new_game(3, {})
