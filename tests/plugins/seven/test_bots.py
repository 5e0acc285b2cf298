"""Bots choose legal moves from their own view only; the expert looks ahead."""

from __future__ import annotations

import inspect
import random

import pytest
from gamenight.sdk import BotContext
from gamenight.testing import check_bot_legality
from gamenight_seven.bots import ExpertBot, ExpertSettings, GreedyBot, RandomBot
from gamenight_seven.inference import Knowledge, determinize, infer_knowledge, track_table, ungreedy_seats
from gamenight_seven.plugin import GAME
from gamenight_seven.policies import best_call, greedy_card, keeper_card

from .conftest import bot_deals, cards, pile, table


@pytest.mark.parametrize("bot_id", ["random", "greedy", "expert"])
def test_every_bot_picks_only_legal_moves(bot_id):
    check_bot_legality(GAME, [bot_id, "greedy", "random", "greedy", "random"], games=2, seed=9)


def shuffled_hidden_cards(state, seat, rng):
    """The same table with every card ``seat`` cannot see dealt again (same hand sizes)."""
    hidden = [c for other, hand in enumerate(state.hands) if other != seat for c in hand] + list(state.stock)
    rng.shuffle(hidden)
    hands, start = [], 0
    for other, hand in enumerate(state.hands):
        if other == seat:
            hands.append(hand)
        else:
            hands.append(tuple(sorted(hidden[start : start + len(hand)])))
            start += len(hand)
    return state._replace(hands=tuple(hands), stock=tuple(hidden[start:]))


@pytest.mark.parametrize(
    "bot",
    [
        RandomBot(),
        GreedyBot(),
        ExpertBot(settings=ExpertSettings(samples=12)),
        ExpertBot(settings=ExpertSettings(samples=12, posterior=False)),
    ],
)
def test_a_bots_choice_does_not_change_when_the_other_seats_hidden_cards_change(rules, bot):
    state = table(
        ["7C 2C 9H QS 5H KC", "3D 9D 4S", "4D 8S", "AD TH JH", "6D 2H"],
        top="5C",
        stock="KS 8D 6S 3H 2S 7D AH",
        discards="9S 3C",
    )
    rng = random.Random(3)
    legal = rules.legal_actions(state)
    for trial in range(5):
        other = shuffled_hidden_cards(state, 0, rng)
        assert other.hands[1:] != state.hands[1:]
        assert rules.view(other, 0) == rules.view(state, 0)
        assert rules.legal_actions(other) == legal
        first = bot.choose(rules.view(state, 0), legal, BotContext(0, random.Random(trial)))
        second = bot.choose(rules.view(other, 0), legal, BotContext(0, random.Random(trial)))
        assert first == second


def test_a_view_shows_hand_sizes_but_never_another_seats_cards(rules):
    state = table(["7C 2C", "3D 9D 4S", "4D"], top="5C", stock="KS 8D")
    view = rules.view(state, 1)
    assert view.hand == cards("3D 9D 4S") and view.hand_sizes == (2, 3, 1)
    seen = {c for field in (view.hand, view.played) for c in field}
    assert not seen & set(cards("7C 2C 4D KS 8D"))


def test_greedy_answers_a_seven_with_a_seven_and_otherwise_hits_with_sevens_and_aces():
    assert greedy_card(cards("7H 2C"), pile("7C")[0], -1, 3) == pile("7H")[0]
    assert greedy_card(cards("2D 2C"), pile("7C")[0], -1, 3) == -1
    assert greedy_card(cards("QS 2C 7C AC"), pile("5C")[0], -1, 0) == pile("7C")[0]
    assert greedy_card(cards("QS 2C AC"), pile("5C")[0], -1, 0) == pile("AC")[0]
    assert greedy_card(cards("QS 2H"), pile("5C")[0], -1, 0) == pile("QS")[0]


def test_the_call_after_a_queen_is_the_suit_held_most():
    assert best_call(cards("2H 3H 4D QS")) == 1


def test_the_expert_answers_a_pending_seven_rather_than_draw_six(rules):
    state = table(["7H 2C 9D", "3D 9D 4S KD", "4D 8S 2S"], top="7C", stock="KS 8D 6S 3H 2D 4C 5S 6H", penalty=6)
    view = rules.view(state, 0)
    bot = ExpertBot(settings=ExpertSettings(samples=16))
    choice = bot.choose(view, rules.legal_actions(state), BotContext(0, random.Random(2)))
    assert choice == "7H"


def test_the_expert_reads_from_the_log_what_a_seat_that_had_to_draw_lacks(rules):
    state = table(["5H 9C 2S", "3D 9D", "4H 8S"], top="5C", stock="KS 8D 6C")
    state = rules.apply(state, "9C")  # seat 1 holds no club, no 9, no Queen: it draws 6C and plays it
    state = rules.apply(rules.apply(state, "draw"), "6C")
    view = rules.view(state, 0)
    knowledge = infer_knowledge(view, greedy_model=False)
    assert set(knowledge) == {1} and knowledge[1].fresh == 0
    assert knowledge[1].forbidden == {c for c in range(52) if c // 13 == 2 or c % 13 in (8, 11)}
    unseen = sorted(set(range(52)) - set(view.hand) - set(view.played))
    for seed in range(20):
        random.Random(seed).shuffle(unseen)
        hands, stock = determinize(view, unseen, knowledge)
        assert len(hands[1]) == 2 and len(hands[2]) == 2 and len(stock) == len(unseen) - 4
        assert not set(hands[1]) & knowledge[1].forbidden


def test_cards_received_after_the_evidence_may_be_anything(rules):
    state = table(["5H 9C 2S", "3D 9D", "6H 8S"], top="5C", stock="2C 3C 4C KS 8D 6C")
    state = rules.apply(rules.apply(rules.apply(state, "9C"), "draw"), "6C")
    state = rules.apply(state, "6H")  # seat 2
    state = rules.apply(state, "5H")  # seat 0; seat 1 draws at will, twice
    state = rules.apply(rules.apply(state, "draw"), "draw")
    assert infer_knowledge(rules.view(state, 0), greedy_model=False)[1].fresh == 2


def test_with_the_greedy_model_plays_tell_which_sevens_aces_and_others_a_seat_lacks(rules):
    state = table(["5H 9C 2S 3S", "QD 3D 4H", "4S 8S 2D", "KC KH"], top="5C", stock="KS 8D 6C")
    state = rules.apply(state, "9C")
    state = rules.apply(state, "QD:S")  # a Queen: nothing else matched 9C
    state = rules.apply(state, "4S")  # a plain spade: no matching 7 or Ace
    knowledge = infer_knowledge(rules.view(state, 0))
    clubs_and_nines = {c for c in range(52) if (c // 13 == 2 or c % 13 == 8) and c % 13 != 11}
    assert knowledge[1].forbidden == clubs_and_nines
    assert knowledge[2].forbidden == set(pile("7S AS"))
    state = table(["7C 2D", "3D 9H", "4D"], top="5C", stock="KS 8D 6C 2C")
    state = rules.apply(rules.apply(state, "7C"), "draw")  # seat 1 takes the penalty: it had no 7
    knowledge = infer_knowledge(rules.view(state, 0))
    assert knowledge[1] == Knowledge(frozenset(pile("7S 7H 7C 7D")), 3)


def test_a_seat_that_plays_a_card_it_held_back_is_known_not_to_play_greedily(rules):
    deal = ["5H 9C 2C 3S", "4C 7C 3D", "8C 2D"]
    state = table(deal, top="5C", stock="KS 8D 6H")
    for action in ("9C", "4C", "8C", "2C"):  # seat 1 played 4C on 9C holding 7C: a greedy seat plays the 7
        state = rules.apply(state, action)
    assert ungreedy_seats(rules.view(state, 0)) == frozenset()  # nothing shows it yet
    drawn_first = rules.apply(rules.apply(state, "draw"), "7C")
    assert ungreedy_seats(rules.view(drawn_first, 0)) == frozenset()  # the 7C may be the card it drew
    state = rules.apply(state, "7C")
    view = rules.view(state, 0)
    assert ungreedy_seats(view) == {1}
    # Its plain play then no longer tells it had no 7 or Ace of clubs; a greedy seat's still would.
    assert pile("7C AC")[0] in infer_knowledge(view)[1].forbidden
    assert 1 not in infer_knowledge(view, wild=ungreedy_seats(view))


def test_greedy_seats_are_never_taken_for_seats_that_play_otherwise_and_random_ones_often_are(rules):
    kinds = ("greedy", "random", "greedy", "random", "greedy")
    flagged: set[tuple[int, int]] = set()
    for seed, _state, view in bot_deals(rules, range(40), kinds):
        flagged |= {(seed, seat) for seat in ungreedy_seats(view)}
    assert not [seat for _seed, seat in flagged if kinds[seat] == "greedy"]
    assert len(flagged) >= 10


def test_the_expert_keeps_its_sevens_in_its_own_playouts_unless_answering_one():
    assert keeper_card(cards("7C 2C AH"), pile("5C")[0], -1, 0) == pile("2C")[0]
    assert keeper_card(cards("7C AC 2C"), pile("5C")[0], -1, 0) == pile("AC")[0]
    assert keeper_card(cards("7C QH 2H"), pile("5C")[0], -1, 0) == pile("7C")[0]  # before the Queen
    assert keeper_card(cards("7H 2C"), pile("7C")[0], -1, 3) == pile("7H")[0]


def test_the_expert_weighs_every_suit_a_queen_could_call(rules):
    state = table(["QS 2C 9H", "3D 9D 4S", "4D 8S"], top="5C", stock="KS 8D 6S")
    actions = ExpertBot().candidates(rules.view(state, 0), rules.legal_actions(state))
    assert set(actions) == {"2C", "QS:S", "QS:H", "QS:C", "QS:D"}


def greedy_views(rules, deals):
    """Every (state, view) of the seats in seeded deals of five greedy bots."""
    for _seed, state, view in bot_deals(rules, range(deals)):
        yield state, view


def test_what_the_log_tells_about_the_stock_is_true_and_the_samples_respect_it(rules):
    reshuffled = known_places = known_holders = 0
    for count, (state, view) in enumerate(greedy_views(rules, 25)):
        known = track_table(view)
        assert known is not None and len(known.stock_slots) == len(state.stock)
        if known.stock_pool is not None:
            reshuffled += 1
            assert set(state.stock) <= known.stock_pool
        for place, card in enumerate(known.stock_slots):
            if card >= 0:
                known_places += 1
                assert state.stock[place] == card
        for card, seat in known.held.items():
            known_holders += 1
            assert card in state.hands[seat]
        if count % 7 == 0:
            unseen = sorted(set(range(52)) - set(view.hand) - set(view.played))
            rng = random.Random(count)
            rng.shuffle(unseen)
            hands, stock = determinize(view, unseen, infer_knowledge(view), known, rng)
            assert tuple(map(len, hands)) == view.hand_sizes and len(stock) == view.stock_count
            assert sorted([c for hand in hands for c in hand] + stock) == sorted(unseen + list(view.hand))
            if known.stock_pool is not None:
                assert set(stock) <= known.stock_pool
            assert all(card in hands[seat] for card, seat in known.held.items())
            assert all(card < 0 or stock[place] == card for place, card in enumerate(known.stock_slots))
    assert reshuffled and known_places and known_holders


def test_reading_the_log_never_looks_at_the_hidden_cards(rules):
    """The expert reading the whole log (the posterior chain) still sees only the view."""
    bot = ExpertBot(settings=ExpertSettings(samples=8))
    rng = random.Random(5)
    checked = 0
    for count, (state, view) in enumerate(greedy_views(rules, 6)):
        legal = rules.legal_actions(state)
        if count % 5 or len(bot.candidates(view, legal)) < 2 or len(view.events) < 10:
            continue
        other = shuffled_hidden_cards(state, view.seat, rng)
        assert rules.view(other, view.seat) == view
        first = bot.choose(view, legal, BotContext(view.seat, random.Random(count)))
        second = bot.choose(rules.view(other, view.seat), legal, BotContext(view.seat, random.Random(count)))
        assert first == second
        checked += 1
    assert checked >= 5


def test_the_expert_the_room_builds_takes_a_seat_options_and_a_time_budget_and_no_bench_knob():
    parameters = inspect.signature(ExpertBot).parameters
    assert list(parameters) == ["seat", "options", "time_budget", "settings"]
    assert parameters["settings"].kind is inspect.Parameter.KEYWORD_ONLY
    with pytest.raises(TypeError):
        ExpertBot(samples=12)  # type: ignore[call-arg]  # the bench's knobs live in ExpertSettings
    spec = next(spec for spec in GAME.bots if spec.id == "expert")
    bot = spec.factory(GAME.rules, 2, {})
    assert isinstance(bot, ExpertBot) and bot.seat == 2 and bot.time_budget is None
    assert bot.settings == ExpertSettings()


def a_position_with_a_choice(rules):
    """A mid-deal position of five greedy seats where the expert has several moves to weigh."""
    return next(
        (state, view)
        for _seed, state, view in bot_deals(rules, range(5))
        if len(view.events) > 30 and len(ExpertBot().candidates(view, rules.legal_actions(state))) > 1
    )


def test_the_experts_own_time_budget_overrides_the_runners(rules):
    state, view = a_position_with_a_choice(rules)
    legal = rules.legal_actions(state)
    patient = ExpertBot(view.seat, {}, time_budget=None, settings=ExpertSettings(samples=6))
    assert patient.choose(view, legal, BotContext(view.seat, random.Random(1), time_budget=600.0)) in legal
    assert patient.chain_stats[2] == 6  # every sample it was set to take
    hurried = ExpertBot(view.seat, {}, time_budget=0.0, settings=ExpertSettings(samples=6))
    assert hurried.choose(view, legal, BotContext(view.seat, random.Random(1), time_budget=600.0)) in legal
    assert hurried.chain_stats[2] == 1  # out of time at once: its first deal is all it looked at


def test_the_expert_of_one_seat_refuses_another_seats_view(rules):
    state, view = a_position_with_a_choice(rules)
    other = (view.seat + 1) % view.seats
    with pytest.raises(ValueError, match="seat"):
        ExpertBot(other).choose(view, rules.legal_actions(state), BotContext(other, random.Random(1)))
