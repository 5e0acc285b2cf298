"""Seeded deals end and keep their invariants: 52 cards, zero-sum scores (docs/rules/seven.md 5.4, 6.2).

2,000 five-seat deals here (1,000 each with random and greedy bots), a bounded seeded count;
the full 20,000 the game was specified with, checking the cards after every single action, are
``bench/bench_seven.py invariants --deals 20000`` (random bots), and this test's 2,500 deals each
with random and greedy bots ``bench/bench_playouts.py``.
"""

from __future__ import annotations

import random

import pytest
from gamenight.sdk import CHANCE, TERMINAL, BotContext
from gamenight_seven.bots import GreedyBot, RandomBot
from gamenight_seven.rules import DRY_DISCARDS, TURN_LIMIT, SevenRules, SevenState

from .conftest import table


def check_invariants(state: SevenState) -> None:
    everything = [c for hand in state.hands for c in hand] + list(state.stock) + list(state.discards)
    assert sorted(everything) == list(range(52))
    assert state.penalty in (0, 3, 6, 9, 12)
    assert state.turns <= TURN_LIMIT


def play_deal(rules: SevenRules, bots, seed: int) -> SevenState:
    rng = random.Random(seed)
    state = rules.new_game(len(bots), {})
    for _step in range(20 * TURN_LIMIT):
        seat = rules.to_move(state)
        if seat == TERMINAL:
            return state
        if seat == CHANCE:
            state = rules.apply(state, rules.sample_chance(state, rng))
        else:
            legal = rules.legal_actions(state)
            action = bots[seat].choose(rules.view(state, seat), legal, BotContext(seat, rng))
            assert action in legal
            state = rules.apply(state, action)
        if state.phase != 0:
            check_invariants(state)
    raise AssertionError(f"deal {seed} did not end")


DEALS = 1_000
"""Seeded deals per bot here (bench/bench_playouts.py plays 2,500, bench/bench_seven.py 20,000)."""


@pytest.mark.parametrize("bot", [RandomBot, GreedyBot])
def test_seeded_five_seat_deals_end_with_cards_conserved_and_zero_sum_scores(rules, bot, deals=DEALS):
    for seed in range(deals):
        state = play_deal(rules, [bot() for _ in range(5)], seed)
        scores = rules.scores(state)
        assert sum(scores) == 0
        assert scores[state.winner] >= 0 and all(s <= 0 for i, s in enumerate(scores) if i != state.winner)


def test_uniformly_random_legal_moves_including_draws_at_will_still_end_every_deal(rules):
    class Uniform:
        def choose(self, view, legal, ctx):
            return ctx.rng.choice(legal)

    for seed in range(12):
        for seats in (2, 5):
            play_deal(rules, [Uniform() for _ in range(seats)], seed)


def test_the_dance_of_the_sevens_is_seen_as_a_loop_and_blocks_the_deal(rules):
    # Seed 35 with greedy bots reaches the dance that hung the original: nearly every card is
    # in the hands, a penalty of 3 draws only the 7 under the top, the next seat plays it on.
    state = play_deal(rules, [GreedyBot() for _ in range(5)], 35)
    assert state.blocked_from >= 0 and state.turns < TURN_LIMIT
    last = [e for e in state.events[-30:] if e.kind in ("play", "penalty")]
    assert all(e.kind == "penalty" or e.card % 13 == 6 for e in last)
    assert not state.stock and len(state.discards) <= DRY_DISCARDS
    assert state.dry_positions.count(state.dry_positions[-1]) == 2  # its third time ended the deal


def test_a_position_is_only_watched_while_the_table_is_dry(rules):
    state = table(["5H 9C", "3D 9D", "4H 8S"], top="5C", stock="KS 8D 6C")
    state = rules.apply(state, "9C")
    assert state.dry_positions == ()
    dry = table(["5H 9C", "3D 9D", "4H 8S"], top="5C")
    assert len(rules.apply(dry, "9C").dry_positions) == 1
