"""The Yatzy bots: legal moves only; the optimal bot's choices in clear spots."""

from __future__ import annotations

import random

import pytest
from gamenight.match import SeatConfig, play_headless
from gamenight.sdk import BotContext
from gamenight_yatzy.bots import GreedyBot, OptimalBot, RandomBot
from gamenight_yatzy.plugin import GAME

from .conftest import RULES, full_sheet, rolled, sheet


@pytest.mark.parametrize("bot", ["random", "greedy", "optimal"])
def test_every_bot_finishes_games_with_legal_moves_only(bot, joker_table):
    for seed in range(3):
        match = play_headless(GAME, [SeatConfig("a", bot), SeatConfig("b", "random")], {"joker": True}, seed=seed)
        assert match.over  # Match.apply would have raised on an illegal move
        assert all(None not in s for s in match.state.sheets)


def choose(bot, state) -> str:
    return bot.choose(RULES.view(state, 0), RULES.legal_actions(state), BotContext(seat=0, rng=random.Random(1)))


def test_the_optimal_bot_scores_a_first_yatzy_at_once(joker_table):
    assert choose(OptimalBot(joker=True), rolled("66666")) == "score:yatzy"


def test_the_optimal_bot_takes_a_large_straight_and_chases_an_open_one(joker_table):
    late = full_sheet(large_straight=None, ones=None, chance=None)
    assert choose(OptimalBot(joker=True), rolled("23451", late)) == "score:large_straight"
    action = choose(OptimalBot(joker=True), rolled("23466", late))
    assert action.startswith("roll:")
    kept = [int(face) for face, hold in zip("23466", action[5:], strict=True) if hold == "1"]
    assert {2, 3, 4} <= set(kept) and kept.count(6) <= 1


def test_the_optimal_bot_obeys_the_forced_joker(joker_table):
    state = rolled("44444", sheet(yatzy=50), rolls=3, joker=True)
    assert choose(OptimalBot(joker=True), state) == "score:fours"


def test_greedy_takes_a_large_straight_and_chases_the_most_common_face():
    assert choose(GreedyBot(), rolled("65432")) == "score:large_straight"
    action = choose(GreedyBot(), rolled("51535"))
    assert action == "roll:10101"


def test_greedy_scores_instead_of_holding_every_die():
    # Five alike with the Yatzy box filled: holding all five is no roll, so greedy scores.
    assert choose(GreedyBot(), rolled("33333", sheet(yatzy=0))).startswith("score:")


def test_random_picks_among_the_legal_actions():
    state = rolled("12345")
    picks = {RandomBot().choose(state, RULES.legal_actions(state), BotContext(0, random.Random(s))) for s in range(60)}
    assert picks <= set(RULES.legal_actions(state)) and len(picks) > 10
