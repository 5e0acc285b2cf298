"""Bad input: an illegal action raises IllegalAction with the original's message and changes nothing."""

from __future__ import annotations

import pytest
from gamenight.i18n import set_language
from gamenight.sdk import IllegalAction
from gamenight_mille.plugin import GAME
from gamenight_mille.rules import EXTENSION, GAME_OVER, MilleRules

from .conftest import cards, hand, seat, state

CASES = [
    # (seat 0, seat 1, deck, picked, action, message)
    (seat(hand("25")), seat(hand("25")), None, False, "use:1", "must pick first"),
    (seat(hand("25")), seat(hand("25")), None, True, "draw", "already picked"),
    (seat(hand("25")), seat(hand("25")), (), False, "draw", "no more cards"),
    (seat(hand("25")), seat(hand("25")), None, True, "use:4", "no card there"),
    (seat(hand("25")), seat(hand("25")), None, True, "use:9", "unknown command: use:9"),
    (seat(hand("25")), seat(hand("25")), None, True, "fly", "unknown command: fly"),
    (seat(hand("25")), seat(hand("25")), None, True, "use:1", "cannot move now"),
    (seat(hand("Stop")), seat(hand("25")), None, True, "use:1", "opponent cannot go"),
    (seat(hand("Right of Way")), seat(hand("25")), None, True, "discard:1", "discard a safety?"),
    (seat(hand("Go"), battle="Go"), seat(hand("25")), None, True, "use:1", 'cannot play "Go" on a "Go"'),
]


@pytest.mark.parametrize(("me", "other", "deck", "picked", "action", "message"), CASES)
def test_an_illegal_action_is_refused_with_a_clear_message_and_changes_nothing(
    rules: MilleRules, me, other, deck, picked, action, message
):
    game = state(me, other=other, deck=cards("Go", "Go") if deck is None else deck, picked=picked)
    snapshot = game
    assert action not in rules.legal_actions(game)
    with pytest.raises(IllegalAction) as raised:
        rules.apply(game, action)
    assert str(raised.value) == message
    assert game == snapshot


def test_the_extension_prompt_takes_only_extend_or_stop(rules: MilleRules):
    game = state(seat(hand("25"), mileage=700, battle="Go"), deck=cards("Go"))._replace(phase=EXTENSION)
    with pytest.raises(IllegalAction, match="extension"):
        rules.apply(game, "draw")


def test_no_action_is_taken_after_the_game(rules: MilleRules):
    over = state(seat(hand("25")))._replace(phase=GAME_OVER, totals=(5000, 100))
    with pytest.raises(IllegalAction):
        rules.apply(over, "draw")


def test_messages_are_translated(rules: MilleRules):
    game = state(seat(hand("25")), deck=cards("Go"))
    set_language("ja")
    try:
        from gamenight.i18n import register_catalogue, translator
        from gamenight_mille.rules import say_refusal

        register_catalogue("mille", GAME.translations)
        with pytest.raises(IllegalAction) as raised:
            rules.apply(game, "use:1")
        # the rules say why as data, in English (headless logs); the screen translates it
        assert (raised.value.code, str(raised.value)) == ("must-pick-first", "must pick first")
        assert say_refusal(raised.value, translator("mille")) == GAME.translations["ja"]["must pick first"]
        assert rules.refusal(game, "use:1") == GAME.translations["ja"]["must pick first"]
    finally:
        set_language("en")


def test_the_legal_actions_are_exactly_the_actions_without_a_refusal(rules: MilleRules):
    import random

    from gamenight.sdk import CHANCE, TERMINAL

    rng = random.Random(3)
    candidates = ["draw", "extend", "stop"] + [f"{verb}:{slot}" for verb in ("use", "discard") for slot in "P123456"]
    game = rules.new_game(2, {})
    checked = 0
    while rules.to_move(game) != TERMINAL and checked < 3000:
        if rules.to_move(game) == CHANCE:
            game = rules.apply(game, rules.sample_chance(game, rng))
            continue
        legal = rules.legal_actions(game)
        assert sorted(legal) == sorted(a for a in candidates if rules.refusal(game, a) is None)
        game = rules.apply(game, rng.choice(legal))
        checked += 1
    assert checked > 500
