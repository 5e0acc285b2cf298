"""The bots: legal moves only, from the seat's view; the expert's reasoning on crafted positions."""

from __future__ import annotations

import random

from gamenight.sdk import BotContext
from gamenight_mille.bots import ExpertBot, GreedyBot, RandomBot
from gamenight_mille.rules import EXTENSION, MilleRules

from .conftest import card, cards, hand, seat, state

RULES = MilleRules()


def choose(bot, game, seat_index: int = 0) -> str:
    legal = RULES.legal_actions(game)
    action = bot.choose(RULES.view(game, seat_index), legal, BotContext(seat=seat_index, rng=random.Random(1)))
    assert action in legal
    return action


def played_card(game, action: str) -> str:
    from gamenight_mille.rules import CARD_NAMES, SLOT_INDEX

    return CARD_NAMES[game.seats[game.turn].hand[SLOT_INDEX[action.partition(":")[2]]]]


def test_every_bot_takes_a_coup_fourre_before_drawing():
    attacker = seat(hand("Flat Tire", "25"), p="25")
    victim = seat(hand("100", "Puncture Proof", "75", "50", "25", "Go"), battle="Go")
    hit = RULES.apply(state(victim, other=attacker, turn=1, picked=True), "use:1")
    assert choose(ExpertBot(), hit) == "use:2"
    assert choose(GreedyBot(), hit) == "use:2"


def test_the_expert_holds_a_safety_for_a_coup_fourre_early_in_the_hand():
    me = seat(hand("Extra Tank", "25", "Go", "Gasoline", "Stop", "75"), p="50", battle="Go")
    game = state(me, other=seat(hand("25"), battle="Go"), deck=cards(*["Go"] * 60), picked=True)
    assert played_card(game, choose(ExpertBot(), game)) != "Extra Tank"
    assert played_card(game, choose(GreedyBot(), game)) == "Extra Tank"  # the plain bot does not wait


def test_the_expert_plays_its_safeties_before_its_finishing_card():
    me = seat(hand("Driving Ace", "25", "Go", "Gasoline", "Stop", "75"), p="100", battle="Go", mileage=600)
    game = state(me, other=seat(hand("25"), mileage=200), deck=cards(*["Go"] * 60), picked=True)
    assert played_card(game, choose(ExpertBot(), game)) == "Driving Ace"


def test_the_expert_plays_a_safety_that_nothing_unseen_can_hit_any_more():
    # Both Out of Gas cards are already in the discards: no coup is possible with Extra Tank.
    me = seat(hand("Extra Tank", "25", "Go", "Gasoline", "Stop", "75"), p="50", battle="Go")
    game = state(
        me,
        other=seat(hand("25"), battle="Go"),
        deck=cards(*["Go"] * 60),
        picked=True,
        discards=cards("Out of Gas", "Out of Gas"),
    )
    assert played_card(game, choose(ExpertBot(), game)) == "Extra Tank"


def test_the_expert_finishes_the_trip_exactly():
    me = seat(hand("25", "50", "75", "200", "Stop", "Go"), p="100", battle="Go", mileage=600)
    game = state(me, other=seat(hand("25"), mileage=200), deck=cards(*["Go"] * 60), picked=True)
    assert played_card(game, choose(ExpertBot(), game)) == "100"


def test_the_expert_attacks_a_moving_opponent_close_to_the_end():
    me = seat(hand("Accident", "25", "50", "Go", "Repairs", "75"), p="Gasoline", battle="Go", mileage=100)
    game = state(
        me,
        other=seat(hand("25"), battle="Go", mileage=550),
        deck=cards(*["Go"] * 40),
        picked=True,
        discards=cards("Driving Ace"),
    )
    assert played_card(game, choose(ExpertBot(), game)) == "Accident"


def test_the_expert_discards_a_remedy_it_no_longer_needs_rather_than_miles():
    # It has played Extra Tank: Gasoline is useless; it cannot move, so it must discard.
    me = seat(
        hand("Gasoline", "100", "75", "Stop", "Go", "Repairs"),
        p="100",
        battle="Stop",
        safeties=("Extra Tank",),
        speed="Speed Limit",
    )
    other = seat(hand("25"))
    game = state(me, other=other, deck=cards(*["Go"] * 40), picked=True)
    discard = ExpertBot()
    legal = [a for a in RULES.legal_actions(game) if a.startswith("discard:")]
    view = RULES.view(game, 0)
    worst = min(legal, key=lambda a: -discard.score(view, a, view.unseen_counts()))
    assert played_card(game, worst) == "Gasoline"


def _extension_state(deck: int, opponent_miles: int, totals=(0, 0)):
    me = seat(hand("100", "100", "75", "Go", "Stop", "Right of Way"), battle="Go", mileage=700)
    game = state(
        me, other=seat(hand("25"), battle="Stop", mileage=opponent_miles), deck=cards(*["Go"] * deck), totals=totals
    )
    return game._replace(phase=EXTENSION)


def test_the_expert_extends_with_a_long_deck_and_an_opponent_far_behind():
    assert choose(ExpertBot(), _extension_state(deck=50, opponent_miles=100)) == "extend"


def test_the_expert_stops_when_the_deck_is_short_or_the_opponent_is_close():
    assert choose(ExpertBot(), _extension_state(deck=10, opponent_miles=100)) == "stop"
    assert choose(ExpertBot(), _extension_state(deck=50, opponent_miles=600)) == "stop"


def test_the_expert_stops_when_stopping_wins_the_game():
    assert choose(ExpertBot(), _extension_state(deck=50, opponent_miles=0, totals=(4500, 3000))) == "stop"


def test_the_expert_goes_on_when_stopping_would_lose_the_game():
    assert choose(ExpertBot(), _extension_state(deck=0, opponent_miles=100, totals=(2000, 6000))) == "extend"


def test_the_random_bot_plays_any_legal_move():
    game = state(seat(hand("25", "50"), p="Go"), picked=True)
    seen = {
        RandomBot().choose(RULES.view(game, 0), RULES.legal_actions(game), BotContext(seat=0, rng=random.Random(s)))
        for s in range(40)
    }
    assert seen == set(RULES.legal_actions(game))


def test_the_view_hides_the_opponents_hand_but_shows_its_size():
    game = state(seat(hand("25")), other=seat(hand("Stop", "Go", "Go")))
    view = RULES.view(game, 0)
    assert view.opponent_hand_size == 3
    assert card("Stop") not in view.opponent.hand
    assert view.deck_count == len(game.deck)
