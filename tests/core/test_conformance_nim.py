"""The conformance kit on the shell's own test game."""

import random
from dataclasses import replace

from gamenight.testing import check_bot_legality, check_save_round_trip, check_view_hiding, random_playouts


def test_random_playouts_finish(nim_registry):
    matches = random_playouts(nim_registry.game("nim"), 50, seed=1, options={"dice": True})
    assert len(matches) == 50


def test_bots_only_pick_legal_moves(nim_registry):
    check_bot_legality(nim_registry.game("nim"), ["first", "perfect"], games=5)


def test_view_hiding(nim_registry):
    def perturb(state, seat, rng: random.Random):
        return state if seat == 0 else replace(state, secret=rng.randint(0, 99))

    check_view_hiding(nim_registry.game("nim"), perturb, games=3)


def test_save_round_trip(nim_registry, tmp_path):
    check_save_round_trip(nim_registry.game("nim"), nim_registry, tmp_path)
