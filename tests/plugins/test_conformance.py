"""Every installed built-in game passes the plugin conformance kit (gamenight.testing)."""

from __future__ import annotations

import pytest
from gamenight.plugins import load_registry
from gamenight.testing import (
    check_bot_legality,
    check_public_events,
    check_save_round_trip,
    random_playouts,
    screen_mounts,
)

BUILTIN = ("yatzy", "mille", "seven", "lits", "mate")
REGISTRY = load_registry()


def test_every_builtin_plugin_loads_without_error():
    failures = {record.name: record.error for record in REGISTRY.plugins if record.error}
    assert failures == {}
    assert set(BUILTIN) <= set(REGISTRY.games)


@pytest.fixture(params=BUILTIN)
def game(request):
    return REGISTRY.game(request.param)


def test_random_playouts_follow_the_sdk_contract(game):
    for seats in sorted({game.min_seats, game.max_seats}):
        assert len(random_playouts(game, 3, seed=11, seats=seats)) == 3


def test_the_weakest_bots_pick_only_legal_moves(game):
    weakest = min(game.bots, key=lambda bot: bot.strength).id
    check_bot_legality(game, [weakest] * game.default_seats, games=2, seed=5)


def test_a_game_saved_halfway_resumes_exactly(game, tmp_path):
    check_save_round_trip(game, REGISTRY, tmp_path, seed=3)


def test_every_bot_is_listed_with_a_label_and_strength(game):
    assert len(game.bots) >= 3
    assert len({bot.strength for bot in game.bots}) == len(game.bots)
    assert game.help.get("en") and game.help.get("ja")
    assert game.translations.get("ja")


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_the_screen_mounts_at_80x24_and_a_person_can_move(game, language):
    # A person with the weakest bots: the table draws without error, the bots move,
    # and the person's first legal move goes through the screen and is applied.
    await screen_mounts(game, size=(80, 24), language=language, registry=REGISTRY)


def _hidden_cards(game_id):
    """The perturb of check_view_hiding for the games with hidden cards (None: nothing is hidden)."""
    if game_id == "mille":
        from tests.plugins.mille.test_playouts import _reshuffle_hidden

        return _reshuffle_hidden
    if game_id == "seven":
        from gamenight_seven.rules import PLAY

        from tests.plugins.seven.test_bots import shuffled_hidden_cards

        return lambda state, seat, rng: shuffled_hidden_cards(state, seat, rng) if state.phase == PLAY else state
    return None


def test_public_events_are_json_and_reveal_no_hidden_card(game):
    # Events go to every seat and watcher of a shared table: with the hands and the stock
    # dealt again (same views before and after the move), the events must not change.
    check_public_events(game, _hidden_cards(game.id), games=2, seed=4)


def test_every_move_says_what_it_did_in_data_not_only_in_a_sentence(game):
    # Each built-in game implements public_events itself (not the SDK's ACTION default),
    # and its headless sentence is the one its screen says from those events.
    from gamenight.sdk import PublicEvent

    for match in random_playouts(game, 1, seed=2):
        replay = type(match)(game, match.seats, match.options, seed=match.seed)
        for entry in match.log:
            before = replay.state
            replay.apply(entry.action)
            kinds = {event.kind for event in replay.last_events()}
            assert PublicEvent.ACTION not in kinds, (game.id, entry.action)
            assert game.rules.describe_action(before, entry.action, entry.seat)
