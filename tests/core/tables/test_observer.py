"""The SDK's watcher view: ``view(state, OBSERVER)`` shows no hand, or the game refuses watchers."""

from __future__ import annotations

import pytest
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.sdk import OBSERVER, IllegalAction, Rules, observer_view
from gamenight.testing import check_observer_hiding

from tests.core.nim import NimPlugin
from tests.plugins.mille.test_playouts import _reshuffle_hidden
from tests.plugins.seven.test_bots import shuffled_hidden_cards

REGISTRY = load_registry()


def _seven_perturb(state, seat, rng):
    from gamenight_seven.rules import PLAY

    return shuffled_hidden_cards(state, seat, rng) if state.phase == PLAY else state


def test_seven_watchers_see_no_hand_whatever_the_hands_hold():
    check_observer_hiding(REGISTRY.game("seven"), _seven_perturb, games=2, seed=3)


def test_mille_watchers_see_neither_hand_nor_the_deck():
    check_observer_hiding(REGISTRY.game("mille"), _reshuffle_hidden, games=1, seed=2)


def test_a_seven_watchers_view_holds_no_card_of_any_hand():
    game = REGISTRY.game("seven")
    match = Match(game, [SeatConfig(f"p{i}") for i in range(5)], {}, seed=1)
    match.run_chance()
    view = observer_view(game.rules, match.state)
    assert view.hand == () and view.seat == OBSERVER
    assert sum(view.hand_sizes) == sum(len(hand) for hand in match.state.hands) > 0


@pytest.mark.parametrize("game_id", ["yatzy", "lits", "mate"])
def test_perfect_information_games_are_watchable(game_id):
    game = REGISTRY.game(game_id)
    match = Match(game, [SeatConfig(f"p{i}") for i in range(game.min_seats)], {}, seed=1)
    assert observer_view(game.rules, match.state) == game.rules.view(match.state, 0)


def test_a_game_that_knows_nothing_of_watchers_is_refused_not_asked():
    nim = load_registry(extra_plugins={"nim": NimPlugin()}, entry_points=[]).game("nim")
    match = Match(nim, [SeatConfig("a"), SeatConfig("b")], {}, seed=1)
    with pytest.raises(IllegalAction):
        observer_view(nim.rules, match.state)
    check_observer_hiding(nim, lambda state, seat, rng: state)  # passes by refusing


def test_the_default_view_refuses_the_observer_seat():
    with pytest.raises(IllegalAction):
        Rules().view(None, OBSERVER)
