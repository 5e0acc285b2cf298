"""The expert's posterior sampler: deals of the hidden cards that explain the public log."""

from __future__ import annotations

import random

import pytest
from gamenight.sdk import BotContext
from gamenight_seven.bots import ExpertBot
from gamenight_seven.inference import ungreedy_seats
from gamenight_seven.posterior import Posterior

from .conftest import GREEDY_TABLE, bot_deals


def greedy_deals(rules, seeds, kinds=GREEDY_TABLE):
    """Seeded deals of bots; yields (state, view of seat 0, cards each other seat received so far, in order)."""
    received: dict[int, list[int]] = {}
    last_seed, before = -1, None
    for seed, state, view in bot_deals(rules, seeds, kinds):
        if seed != last_seed:
            last_seed, received = seed, {seat: list(state.hands[seat]) for seat in range(1, len(kinds))}
        else:  # one move since the last view (and maybe a reshuffle): what came into each hand
            for seat in received:
                received[seat] += sorted(c for c in state.hands[seat] if c not in before.hands[seat])
        before = state
        if view.seat == 0:
            yield state, view, received


def test_the_true_cards_explain_the_log_of_greedy_seats(rules):
    """The model is right: put every card where it truly came from and nothing is left unexplained."""
    checked = 0
    for _state, view, received in greedy_deals(rules, range(12)):
        chain = Posterior(view, random.Random(0))
        assert chain.ok
        for seat, entries in chain.timeline.items():
            slots = [entry[1] for entry in entries if entry[0] == "recv"]
            assert len(slots) == len(received[seat])
            for slot, card in zip(slots, received[seat], strict=True):
                chain.slot_card[slot] = card
            assert chain._energy(seat) == 0
            checked += 1
    assert checked > 500


def test_the_chains_deals_fit_the_table_and_mostly_explain_the_whole_log(rules):
    explained = total = 0
    for _state, view, _received in greedy_deals(rules, range(6)):
        if len(view.events) < 20:
            continue
        chain = Posterior(view, random.Random(len(view.events)))
        before = chain.total_energy()
        chain.step(2000, beta_from=0.5)
        hands, stock = chain.deal()
        assert [len(hand) for hand in hands] == list(view.hand_sizes)
        assert hands[0] == list(view.hand) and len(stock) == view.stock_count
        assert sorted([c for hand in hands for c in hand] + stock + list(view.played)) == list(range(52))
        assert chain.total_energy() <= before
        total += 1
        explained += chain.total_energy() == 0
    assert total > 30
    assert explained >= total * 0.5


def test_a_seat_that_plays_otherwise_is_held_only_to_the_cards_it_played(rules):
    seen_wild = 0
    mixed = ("greedy", "random", "greedy", "random", "greedy")
    for _state, view, _received in greedy_deals(rules, range(8), kinds=mixed):
        wild = ungreedy_seats(view)
        if not wild:
            continue
        seen_wild += 1
        chain = Posterior(view, random.Random(1), wild=wild)
        assert chain.ok
        for seat in wild:
            assert all(check[0] != 2 for check in chain.checks[seat])  # its draws tell nothing
            assert chain._energy(seat) == 0  # and any hand that held what it played will do
    assert seen_wild


@pytest.mark.parametrize("seats", [2, 3])
def test_the_sampler_reads_short_tables_too(rules, seats):
    for _state, view, _received in greedy_deals(rules, range(3), kinds=("greedy",) * seats):
        chain = Posterior(view, random.Random(2))
        assert chain.ok
        chain.step(200)
        hands, stock = chain.deal()
        assert [len(hand) for hand in hands] == list(view.hand_sizes) and len(stock) == view.stock_count


def test_the_expert_asked_to_stop_still_answers_with_a_legal_move_from_its_first_deal(rules):
    state, view, _received = next(
        (state, view, received)
        for state, view, received in greedy_deals(rules, range(5))
        if len(view.events) > 30 and len(ExpertBot().candidates(view, rules.legal_actions(state))) > 1
    )
    bot = ExpertBot()
    asked = []  # deals made when it asked

    def stop() -> bool:
        asked.append(bot.chain_stats[2])
        return True

    choice = bot.choose(view, rules.legal_actions(state), BotContext(0, random.Random(1), should_stop=stop))
    assert choice in rules.legal_actions(state)
    assert asked[0] == 0  # asked while running the chain in, before its first deal
    assert bot.chain_stats[2] == 1  # and looked ahead on that one deal only
