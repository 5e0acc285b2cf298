"""The coach: every legal action ranked by its chance of winning the game, from the seat's view only."""

from __future__ import annotations

import random

from gamenight.sdk import BotContext
from gamenight.testing import check_advisor
from gamenight_mille.advisor import SETTLE_AFTER, MilleAdvisor, deal_unseen, game_chance, settled
from gamenight_mille.bots import ExpertBot
from gamenight_mille.plugin import GAME
from gamenight_mille.rules import EMPTY, GAME_OVER, HAND_OVER, PLAY, MilleState, full_deck, invariant_errors

from .conftest import card, cards, seat
from .test_playouts import _reshuffle_hidden

SAMPLES = 6


def _mid_hand(seed=3, plies=25):
    """A seeded position between experts, the seat to move having picked, with cards to use."""
    rules, bot = GAME.rules, ExpertBot()
    rng = random.Random(seed)
    state = rules.new_game(2, {})
    state = rules.apply(state, rules.sample_chance(state, rng))
    played = 0
    while True:
        legal = rules.legal_actions(state)
        if played >= plies and len(legal) > 3 and legal[0].startswith("use:"):
            return state
        ctx = BotContext(state.turn, rng)
        state = rules.apply(state, bot.choose(rules.view(state, state.turn), legal, ctx))
        played += 1


def _advise(state, seed=0, samples=SAMPLES, **context):
    rules = GAME.rules
    mover = state.turn
    return MilleAdvisor(mover, samples=samples).advise(
        rules.view(state, mover),
        rules.legal_actions(state),
        BotContext(mover, random.Random(seed), time_budget=60.0, **context),
    )


def test_every_legal_action_gets_one_advice_best_first():
    state = _mid_hand()
    legal = GAME.rules.legal_actions(state)
    advice = _advise(state)
    assert sorted(a.action for a in advice) == sorted(legal)
    values = [a.value for a in advice]
    assert values == sorted(values, reverse=True)
    assert all(0.0 <= v <= 1.0 for v in values) and {a.samples for a in advice} == {SAMPLES}
    assert len(set(values)) > 1


def test_the_advice_reads_the_view_only():
    state = _mid_hand()
    first = _advise(state, seed=4)
    rng = random.Random(2)
    for _trial in range(3):
        other = _reshuffle_hidden(state, state.turn, rng)
        assert other.deck != state.deck
        assert GAME.rules.view(other, state.turn) == GAME.rules.view(state, state.turn)
        assert _advise(other, seed=4) == first


def test_a_sampled_deal_agrees_with_everything_the_seat_has_seen():
    state = _mid_hand()
    view = GAME.rules.view(state, state.turn)
    for seed in range(5):
        dealt = deal_unseen(view, random.Random(seed))
        assert invariant_errors(dealt) == []
        assert GAME.rules.view(dealt, state.turn) == view


def _finishing_position():
    """Seat 0 at 675 with the 25 in slot 6, the opponent at 600; 4600 all, game to 5000."""
    mine = seat(
        (card("Speed Limit"), *cards("50", "100", "Gasoline", "75", "Gasoline", "25")),
        battle="Go",
        mileage=675,
        two_hundreds=2,
        table=cards("Go", "200", "200", "100", "100", "75"),
    )
    rest = full_deck()
    for used in (*mine.hand, *mine.table, *cards("Go", "200", "200", "100", "100")):
        rest.remove(used)
    random.Random(1).shuffle(rest)
    theirs = seat(
        (EMPTY, *rest[:6]),
        battle="Go",
        mileage=600,
        two_hundreds=2,
        table=cards("Go", "200", "200", "100", "100"),
    )
    return MilleState(phase=PLAY, seats=(mine, theirs), deck=tuple(rest[6:]), turn=0, picked=True, totals=(4600, 4600))


def test_finishing_the_trip_that_wins_the_game_is_ranked_first():
    # mille.md 8.1: "The trip is 700. It is completed by reaching it exactly"; 11.1: "A game
    # ends only at the end of a hand ... when a seat's overall total has reached 5000 ... The
    # higher total wins the game." The 25 makes 700 (and the expert stops: 4600 + 700 + 400
    # against 4600 + 600); the Speed Limit only slows the opponent, who may still hit back.
    state = _finishing_position()
    assert invariant_errors(state) == []
    legal = GAME.rules.legal_actions(state)
    assert legal.index("use:P") < legal.index("use:6")
    advice = _advise(state, samples=12)
    assert advice[0].action == "use:6"
    assert advice[0].value == 1.0 > advice[1].value
    value = {a.action: a.value for a in advice}
    assert value["discard:3"] == value["discard:5"]  # the two Gasolines: one position, one value


def test_the_chance_of_the_game_reads_the_totals_at_the_end_of_the_hand():
    state = _finishing_position()
    assert game_chance(state._replace(phase=GAME_OVER, totals=(5100, 4000)), 0) == 1.0
    assert game_chance(state._replace(phase=GAME_OVER, totals=(5100, 4000)), 1) == 0.0
    even = game_chance(state._replace(phase=HAND_OVER, totals=(2000, 2000)), 0)
    ahead = game_chance(state._replace(phase=HAND_OVER, totals=(2500, 2000)), 0)
    late = game_chance(state._replace(phase=HAND_OVER, totals=(4500, 4000)), 0)
    assert even == 0.5 < ahead < late < 1.0


def test_a_stop_request_returns_what_it_has_for_every_action():
    state = _mid_hand()
    asked = []

    def stop():
        asked.append(1)
        return len(asked) > 1

    advice = _advise(state, samples=1000, should_stop=stop)
    assert sorted(a.action for a in advice) == sorted(GAME.rules.legal_actions(state))
    assert {a.samples for a in advice} == {2}


def test_the_game_registers_its_advisor_lazily_with_a_translated_unit():
    spec = GAME.advisor
    assert spec is not None and spec.unit.kind == "chance" and not spec.exact
    assert isinstance(spec.factory(GAME.rules, 1, {}), MilleAdvisor)
    assert GAME.translations["ja"][spec.unit.label]


def test_no_legal_action_no_advice():
    assert GAME.advisor.factory(GAME.rules, 0, {}).advise(None, [], BotContext(0, random.Random(0))) == []


def test_the_search_stops_once_no_action_can_pass_the_anchor():
    assert settled([[0.5] * 16, [0.4] * 16, [0.5] * 16], 0)  # worse, or the very same on every deal
    assert not settled([[0.5] * 16, [0.6] * 16], 0)
    assert not settled([[0.5] * 16, [0.45, 0.55] * 8], 0)  # level within the noise: go on
    advice = _advise(_finishing_position(), samples=1000)
    assert advice[0].action == "use:6" and advice[0].samples == SETTLE_AFTER


def test_the_sdk_kit_finds_the_advisor_keeps_its_contract():
    # One advice per legal action, sorted; a stop request kept; the same advice when only
    # the deck and the opponent's hand change (the kit's check, at its 0.2 s budget).
    check_advisor(GAME, _reshuffle_hidden, games=1, positions=4)
