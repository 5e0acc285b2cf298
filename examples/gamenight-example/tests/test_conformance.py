"""The gamenight.testing conformance kit run against everything this plugin adds."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest
from gamenight.sdk import SeatConfig, play_headless
from gamenight.sdk.testing import (
    check_bot_legality,
    check_save_round_trip,
    check_screen_mounts,
    check_view_hiding,
    declared_texts,
    missing_translations,
    random_playouts,
    run_conformance,
)
from textual.widgets import Static

import gamenight_example
from gamenight_example.rules import GoofspielState
from gamenight_example.screen import GoofspielScreen

PACKAGE = Path(gamenight_example.__file__).parent


def reshuffle_hidden_bids(state: GoofspielState, seat: int, rng: random.Random) -> GoofspielState:
    """Swap every *other* seat's face-down bid for another card it holds (what ``seat`` cannot see)."""
    hands, bids = list(state.hands), list(state.bids)
    for other, bid in enumerate(bids):
        if other != seat and bid is not None and hands[other]:
            bids[other] = rng.choice(sorted(hands[other]))
            hands[other] = hands[other] - {bids[other]} | {bid}
    return replace(state, hands=tuple(hands), bids=tuple(bids))


def test_the_plugin_loaded_cleanly_with_its_game_bot_and_theme(registry):
    record = next(r for r in registry.plugins if r.name == "example")
    assert record.error is None
    assert (record.distribution, record.version) == ("gamenight-example", gamenight_example.__version__)
    assert (record.games, record.themes) == (["goofspiel"], ["example-dusk"])
    assert record.bots == ["goofspiel:random", "goofspiel:matcher", "yatzy:cautious"]  # its own, one for yatzy


def test_random_playouts_at_every_seat_count_keep_the_sdk_contract(game):
    for seats in (2, 3, 4):
        for match in random_playouts(game, 15, seed=seats, seats=seats, options={"carry": seats == 3}):
            state = match.state
            assert sum(state.scores) + state.pot <= sum(range(1, 14))
            assert all(not hand for hand in state.hands)


def test_every_bot_only_picks_legal_moves(game):
    check_bot_legality(game, ["matcher", "random", "matcher"], games=4)
    check_bot_legality(game, ["random", "matcher"], games=4, options={"cards": 5, "carry": True})


def test_a_seat_never_sees_the_others_face_down_bids(game):
    check_view_hiding(game, reshuffle_hidden_bids, games=5, seats=3)


def test_the_view_check_catches_a_leak(game):
    """The perturbation is strong enough: a view that showed bids would be caught."""
    state = game.rules.apply(game.rules.apply(game.rules.new_game(2, {}), "prize:7"), "bid:9")
    changed = reshuffle_hidden_bids(state, 1, random.Random(1))
    assert changed.bids != state.bids and game.rules.view(changed, 1) == game.rules.view(state, 1)


def test_a_saved_game_loads_back_to_the_same_state(game, registry, tmp_path):
    check_save_round_trip(game, registry, tmp_path, seed=4)


def test_every_text_has_a_japanese_translation(game):
    assert missing_translations(PACKAGE, game.translations["ja"], also=declared_texts(game)) == []


def test_the_screen_mounts_at_80x24_in_both_languages_and_in_the_plugins_theme(game, registry):
    check_screen_mounts(game, (80, 24), seats=4, theme="example-dusk", registry=registry, perturb=reshuffle_hidden_bids)


class LeakyScreen(GoofspielScreen):
    """A screen that wrongly draws the seats' bids from the state."""

    def refresh_view(self) -> None:
        super().refresh_view()
        self.query_one("#hint", Static).update(repr(self.match.state.bids))


def test_the_screen_check_catches_a_screen_that_draws_hidden_bids(game, registry):
    with pytest.raises(AssertionError, match="only hidden information changed"):
        check_screen_mounts(
            replace(game, screen=LeakyScreen), language="en", registry=registry, perturb=reshuffle_hidden_bids
        )


def test_the_whole_kit_in_one_call(game, registry):
    run_conformance(game, reshuffle_hidden_bids, package_root=PACKAGE, games=5, registry=registry, screen=False)


def test_the_matcher_beats_random_play(game):
    shares = [
        play_headless(game, [SeatConfig("m", "matcher"), SeatConfig("r", "random")], seed=s).outcome().win_share(0)
        for s in range(60)
    ]
    assert sum(shares) / len(shares) > 0.8


def test_the_cautious_yatzy_bot_plays_legal_moves_from_its_view(registry):
    yatzy = registry.game("yatzy")
    assert "cautious" in {spec.id for spec in yatzy.bots}
    check_bot_legality(yatzy, ["cautious", "cautious"], games=2)
    if any(option.key == "joker" for option in yatzy.options):
        check_bot_legality(yatzy, ["cautious"], games=2, options={"joker": True})


def test_the_cautious_yatzy_bot_outscores_random_play(registry):
    yatzy = registry.game("yatzy")
    random_bot = min(yatzy.bots, key=lambda spec: spec.strength).id
    mine = [play_headless(yatzy, [SeatConfig("c", "cautious")], seed=s).outcome().scores[0] for s in range(30)]
    theirs = [play_headless(yatzy, [SeatConfig("r", random_bot)], seed=s).outcome().scores[0] for s in range(30)]
    assert sum(mine) / 30 > sum(theirs) / 30 + 80
