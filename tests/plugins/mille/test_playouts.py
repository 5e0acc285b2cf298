"""Seeded bot-vs-bot games with invariants (cards accounted for, scores = sum of lines,
every hand ends): 200 seeded games to 5000 here; the 2,000 the game was specified with are
``bench/bench_mille.py --invariants 2000``, and this test's pairs at 500 games
``bench/bench_playouts.py``."""

from __future__ import annotations

import random

import pytest
from gamenight.match import Match, SeatConfig
from gamenight.sdk import CHANCE, TERMINAL, BotContext
from gamenight.testing import check_view_hiding, random_playouts
from gamenight_mille.bots import ExpertBot, GreedyBot, RandomBot
from gamenight_mille.plugin import GAME
from gamenight_mille.rules import (
    EMPTY,
    EXTENSION,
    GAME_OVER,
    HAND_OVER,
    PLAY,
    MilleRules,
    deal_action,
    full_deck,
    hand_lines,
    hand_totals,
    invariant_errors,
)
from hypothesis import given, settings
from hypothesis import strategies as st

RULES = MilleRules()
MAX_ACTIONS_PER_HAND = 400
BOTS = {"random": RandomBot, "greedy": GreedyBot, "expert": ExpertBot}


def play_checked(pair: tuple[str, str], seed: int) -> int:
    """One whole game with invariants checked after every action; returns the hands played."""
    rng = random.Random(seed)
    bots = [BOTS[pair[0]](), BOTS[pair[1]]()]
    contexts = [BotContext(seat=i, rng=random.Random(f"{seed}:{i}")) for i in (0, 1)]
    game = RULES.new_game(2, {})
    hands = 0
    actions_this_hand = 0
    while RULES.to_move(game) != TERMINAL:
        seat = RULES.to_move(game)
        if seat == CHANCE:
            game = RULES.apply(game, RULES.sample_chance(game, rng))
            hands += 1
            actions_this_hand = 0
            continue
        legal = RULES.legal_actions(game)
        assert legal
        action = bots[seat].choose(RULES.view(game, seat), legal, contexts[seat])
        assert action in legal
        before = game
        game = RULES.apply(game, action)
        actions_this_hand += 1
        assert actions_this_hand < MAX_ACTIONS_PER_HAND, "a hand did not end"
        assert invariant_errors(game) == []
        if game.phase in (HAND_OVER, GAME_OVER):
            totals = hand_totals(game)
            lines = hand_lines(game)
            assert totals == tuple(sum(values[i] for _label, values in lines) for i in (0, 1))
            assert game.totals == (before.totals[0] + totals[0], before.totals[1] + totals[1])
    assert max(game.totals) >= 5000 and game.totals[0] != game.totals[1]
    return hands


FULL_GAMES = {
    ("random", "random"): 125,
    ("greedy", "random"): 150,
    ("greedy", "greedy"): 150,
    ("expert", "greedy"): 50,
    ("expert", "expert"): 25,
}
"""500 games to 5000 in all (a quarter of the specified 2,000): what bench/bench_playouts.py plays."""


@pytest.mark.parametrize(
    ("pair", "games"),
    # 200 games to 5000 in all, every pair of bots (two fifths of each pair's games in FULL_GAMES)
    [(pair, games * 2 // 5) for pair, games in FULL_GAMES.items()],
)
def test_seeded_bot_games_keep_every_invariant_and_every_hand_ends(pair, games):
    hands = sum(play_checked(pair, seed) for seed in range(games))
    assert hands >= games * 2  # no game to 5000 is a single hand


def _sound(state) -> None:
    assert invariant_errors(state) == []


def test_games_follow_the_sdk_contract_through_the_match_runner():
    assert len(random_playouts(GAME, 4, seed=2, invariant=_sound)) == 4


def _reshuffle_hidden(state, seat, rng):
    """Swap the opponent's hand cards with deck cards: only what ``seat`` may not see changes."""
    if state.phase != PLAY or not state.deck:
        return state
    other = 1 - seat
    hidden = [c for c in state.seats[other].hand if c != EMPTY] + list(state.deck)
    rng.shuffle(hidden)
    slots = list(state.seats[other].hand)
    for index, card in enumerate(slots):
        if card != EMPTY:
            slots[index] = hidden.pop()
    seats = list(state.seats)
    seats[other] = seats[other]._replace(hand=tuple(slots))
    return state._replace(seats=tuple(seats), deck=tuple(hidden))


def test_a_seats_view_never_shows_the_opponents_hand_or_the_deck():
    check_view_hiding(GAME, _reshuffle_hidden, games=2, seed=4)


def test_a_match_replays_to_the_identical_position():
    match = Match(GAME, [SeatConfig("a", "greedy"), SeatConfig("b", "expert")], {}, seed=8)
    for _step in range(300):
        if match.to_move() == CHANCE:
            match.apply_chance()
        else:
            match.apply(match.bot_choice())
    replay = Match(GAME, match.seats, match.options, seed=8)
    replay.replay(match.log)
    assert replay.state == match.state


def test_the_invariant_check_catches_a_lost_card_and_bad_mileage():
    game = RULES.apply(RULES.new_game(2, {}), RULES.sample_chance(RULES.new_game(2, {}), random.Random(1)))
    assert invariant_errors(game) == []
    lost = game._replace(deck=game.deck[1:])
    assert any("accounted" in error for error in invariant_errors(lost))
    cheat = game._replace(seats=(game.seats[0]._replace(mileage=100), game.seats[1]))
    assert any("mileage" in error for error in invariant_errors(cheat))


@settings(max_examples=25, deadline=None)
@given(deck=st.permutations(full_deck()), seed=st.integers(0, 2**32 - 1))
def test_any_deal_played_at_random_keeps_the_invariants_and_ends(deck, seed):
    rng = random.Random(seed)
    game = RULES.apply(RULES.new_game(2, {}), deal_action(deck))
    for _step in range(MAX_ACTIONS_PER_HAND):
        if game.phase not in (PLAY, EXTENSION):
            break
        legal = RULES.legal_actions(game)
        assert legal and all(RULES.refusal(game, action) is None for action in legal)
        game = RULES.apply(game, rng.choice(legal))
        assert invariant_errors(game) == []
    assert game.phase in (HAND_OVER, GAME_OVER)
