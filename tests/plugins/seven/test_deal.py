"""docs/rules/seven.md 1 and 2: 52 cards, 5 each, the first up-card; the deal is a chance action."""

from __future__ import annotations

import random

import pytest
from gamenight.sdk import CHANCE, IllegalAction
from gamenight_seven.plugin import GAME, SEAT_NAMES
from gamenight_seven.rules import CARD_CODES, HAND_SIZE, SevenRules, parse_card, rank_of

from .conftest import pile

SPECIAL_RANKS = {0, 6, 11}  # Ace, 7, Queen


def deal(rules: SevenRules, seats: int, order: list[int]):
    state = rules.new_game(seats, {})
    return rules.apply(state, "deal:" + "".join(CARD_CODES[c] for c in order))


def test_five_seats_by_default_named_after_the_original():
    assert (GAME.min_seats, GAME.max_seats, GAME.default_seats) == (2, 5, 5)
    assert SEAT_NAMES == ("You", "Urd", "Belldandy", "Skuld", "Marller")


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_each_seat_gets_five_cards_and_the_rest_is_the_stock_with_one_card_turned_up(rules, seats):
    state = rules.new_game(seats, {})
    assert rules.to_move(state) == CHANCE
    state = rules.apply(state, rules.sample_chance(state, random.Random(seats)))
    assert [len(hand) for hand in state.hands] == [HAND_SIZE] * seats
    assert len(state.discards) == 1
    assert len(state.stock) == 52 - HAND_SIZE * seats - 1
    everything = [c for hand in state.hands for c in hand] + list(state.stock) + list(state.discards)
    assert sorted(everything) == list(range(52))
    assert rules.to_move(state) == 0


def test_seat_counts_outside_two_to_five_are_refused(rules):
    for seats in (1, 6):
        with pytest.raises(ValueError):
            rules.new_game(seats, {})


def test_a_seven_ace_or_queen_turned_up_goes_back_into_the_middle_of_the_stock(rules):
    # The deck's end is the top of the stock: here 7S, then AH, then QD would be turned up.
    order = [c for c in range(52) if c not in pile("7S AH QD 4C")] + list(pile("4C QD AH 7S"))
    state = deal(rules, 5, order)
    assert state.discards == pile("4C")
    middle = state.stock[len(state.stock) // 2 - 3 : len(state.stock) // 2 + 3]
    assert set(pile("7S AH QD")) <= set(middle)
    assert [(e.kind, CARD_CODES[e.card]) for e in state.events] == [
        ("bury", "7S"),
        ("bury", "AH"),
        ("bury", "QD"),
        ("up", "4C"),
    ]


def test_the_first_up_card_is_never_a_seven_ace_or_queen(rules):
    rng = random.Random(7)
    for seats in (2, 5):
        for _ in range(300):
            state = rules.new_game(seats, {})
            state = rules.apply(state, rules.sample_chance(state, rng))
            assert rank_of(state.discards[-1]) not in SPECIAL_RANKS


def test_the_first_up_card_rule_ends_even_when_all_twelve_special_cards_are_on_top(rules):
    specials = [c for c in range(52) if rank_of(c) in SPECIAL_RANKS]
    order = [c for c in range(52) if c not in specials] + specials
    state = deal(rules, 5, order)
    assert rank_of(state.discards[-1]) not in SPECIAL_RANKS
    assert len(state.stock) == 26


@pytest.mark.parametrize(
    "action",
    [
        "deal:",
        "deal:" + "AS" * 52,
        "deal:" + "".join(CARD_CODES[:51]),
        "deal:" + "".join(CARD_CODES[:51]) + "XX",
        "shuffle:" + "".join(CARD_CODES),
        "draw",
    ],
)
def test_a_malformed_deal_is_refused_and_nothing_changes(rules, action):
    state = rules.new_game(5, {})
    with pytest.raises(IllegalAction):
        rules.apply(state, action)
    assert rules.to_move(state) == CHANCE and state.hands == ((),) * 5


def test_card_codes_read_both_ways():
    assert parse_card("TD") == 3 * 13 + 9
    assert parse_card("qh") == 13 + 11
    with pytest.raises(ValueError):
        parse_card("1S")


def test_the_lead_passes_one_seat_on_with_every_deal_of_a_session(tmp_path):
    from gamenight.match import Match, SeatConfig
    from gamenight.plugins import Registry
    from gamenight.saves import load_match, save_match

    match = Match(GAME, [SeatConfig(name, "greedy") for name in SEAT_NAMES[:3]], {}, seed=2)
    leads = []
    for _ in range(4):
        match.apply_chance()
        leads.append(match.to_move())
        while not match.over:
            match.apply_chance() if match.to_move() == CHANCE else match.apply(match.bot_choice())
        match.record_result()
        match.start_game()
    assert leads == [0, 1, 2, 0]
    match.apply_chance()
    registry = Registry()
    registry.games[GAME.id] = GAME
    resumed = load_match(registry, save_match(match, tmp_path / "seven.toml"))
    assert resumed.state == match.state and resumed.to_move() == 1
