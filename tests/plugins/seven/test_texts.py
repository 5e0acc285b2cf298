"""Texts in English and Japanese; the SDK conformance kit (save round trip, view hiding)."""

from __future__ import annotations

import random
from pathlib import Path

import gamenight_seven
from gamenight.i18n import register_catalogue, set_language
from gamenight.plugins import load_registry
from gamenight.testing import (
    check_save_round_trip,
    check_view_hiding,
    declared_texts,
    missing_translations,
    run_conformance,
)
from gamenight_seven.plugin import GAME
from gamenight_seven.rules import PLAY, describe

from .conftest import table
from .test_bots import shuffled_hidden_cards

PACKAGE = Path(gamenight_seven.__file__).parent


def test_every_text_has_a_japanese_translation_with_the_same_placeholders():
    problems = missing_translations(PACKAGE, GAME.translations["ja"], also=declared_texts(GAME))
    assert problems == []


def test_the_help_explains_the_rules_in_both_languages():
    for language in ("en", "ja"):
        text = GAME.help[language]
        assert "Table: Shuffling" in text and "12" in text and "Queen" in text


def test_log_lines_are_translated():
    state = table(["7C 2D", "3D"], top="5C", stock="8D")
    register_catalogue(GAME.id, GAME.translations)
    try:
        set_language("ja")
        assert describe(state, "7C", "ウルド") == "ウルド が 7♣ を出しました。"
    finally:
        set_language("en")
    assert describe(state, "QS:H", "Urd") == "Urd played Q♠ and called ♥."
    assert describe(state._replace(penalty=6), "draw", "Urd") == "Urd took the 7 penalty of 6."


def hide_others(state, seat, rng: random.Random):
    return shuffled_hidden_cards(state, seat, rng) if state.phase == PLAY else state


def test_a_seats_view_does_not_change_when_only_hidden_cards_change():
    check_view_hiding(GAME, hide_others, games=2, seed=5)


def test_a_deal_saved_halfway_resumes_exactly(tmp_path):
    check_save_round_trip(GAME, load_registry(), tmp_path, seed=2)


def test_the_sdk_conformance_kit_passes_at_every_seat_count():
    run_conformance(GAME, perturb=hide_others, package_root=PACKAGE, games=4, seed=1, registry=load_registry())


def test_the_rules_log_names_seats_by_token_so_the_table_can_use_its_names():
    import random

    from gamenight.sdk import fill_seat_names

    rules = GAME.rules
    state = rules.new_game(3, {})
    state = rules.apply(state, rules.sample_chance(state, random.Random(4)))
    seat = rules.to_move(state)
    text = rules.describe_action(state, "draw", seat)
    assert fill_seat_names(text, ["You", "Urd", "Skuld"]) == f"{['You', 'Urd', 'Skuld'][seat]} drew a card."
    assert fill_seat_names(text) == f"Seat {seat + 1} drew a card."  # headless logs
