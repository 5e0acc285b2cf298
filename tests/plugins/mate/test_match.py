"""Mate through the runner and the room: saves, pauses, bad input, playouts, texts."""

from __future__ import annotations

from pathlib import Path

import gamenight_mate
import pytest
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.saves import load_match, save_match
from gamenight.sdk import CHANCE, IllegalAction
from gamenight.testing import declared_texts, missing_translations, random_playouts
from gamenight_mate.plugin import GAME
from gamenight_mate.rules import NONE, SINGLE_DECK, MateState

PLUGIN_DIR = Path(gamenight_mate.__file__).parent


def bots_match(seed: int = 7, options: dict | None = None) -> Match:
    return Match(GAME, [SeatConfig("a", "greedy"), SeatConfig("b", "random")], dict(options or {}), seed=seed)


def advance(match: Match, actions: int) -> None:
    for _ in range(actions):
        if match.over:
            return
        if match.to_move() == CHANCE:
            match.apply_chance()
        else:
            match.apply(match.bot_choice())


def test_the_entry_point_registers_mate_with_its_bots_and_options() -> None:
    game = load_registry().games["mate"]
    assert [bot.id for bot in game.bots] == ["random", "greedy", "perfect"]
    assert game.default_options() == {
        "foreplacing": True,
        "double_deck": False,
        "kings_privilege": False,
        "free_move": False,
    }
    assert game.perfect_information and (game.min_seats, game.max_seats) == (2, 2)


def test_a_save_replays_to_the_same_state_through_match_replay() -> None:
    original = bots_match()
    advance(original, 30)
    resumed = bots_match()
    resumed.replay([(entry.seat, entry.action) for entry in original.log])
    assert resumed.state == original.state
    while not original.over:
        advance(original, 1)
        advance(resumed, 1)
        assert resumed.state == original.state
    assert resumed.outcome() == original.outcome()


def test_a_save_file_round_trip_resumes_exactly(tmp_path: Path) -> None:
    match = bots_match(seed=3, options={"double_deck": True, "free_move": True})
    advance(match, 45)
    loaded = load_match(load_registry(), save_match(match, tmp_path / "mate.toml"))
    assert loaded.state == match.state and loaded.log == match.log
    assert loaded.options == match.options


def test_a_tampered_log_stops_at_the_bad_card_and_says_why() -> None:
    match = bots_match()
    deal = " ".join(SINGLE_DECK)  # A gets the spades and diamonds, B the clubs and hearts
    with pytest.raises(IllegalAction, match=r"move 5 .*no ♠, so you must answer with a card of rank A"):
        match.replay([(CHANCE, deal), (0, NONE), (1, NONE), (0, "AS"), (1, "10C")])
    assert len(match.log) == 4


def test_an_illegal_card_through_the_runner_changes_nothing() -> None:
    match = bots_match()
    match.run_chance()
    match.apply(NONE)
    match.apply(NONE)
    before = (match.state, list(match.log))
    wrong = next(card for card in SINGLE_DECK if card not in match.state.hands[0])
    with pytest.raises(IllegalAction, match="not in your hand"):
        match.apply(wrong)
    assert (match.state, match.log) == before


def test_the_runner_pauses_after_a_play_until_acknowledged() -> None:
    match = bots_match(seed=1, options={"foreplacing": False})
    while match.pending_interlude() is None:
        advance(match, 1)
    pause = match.pending_interlude()
    assert pause.key == "play-1" and pause.title.startswith("Play 1: ")
    assert match.state.phase == "ended" and match.state.play == 0
    match.acknowledge(pause)
    assert match.pending_interlude() is None
    assert match.to_move() == 1  # B leads the swapped hands


def test_random_playouts_conserve_the_cards_in_every_variant() -> None:
    def conserved(state: MateState) -> None:
        if state.phase in ("foreplace", "play"):
            for seat in (0, 1):
                aside = [state.foreplaced[seat]] if state.foreplaced[seat] else []
                table = list(state.played[seat][: 9 if aside and len(state.played[seat]) == 10 else None])
                assert sorted([*state.hands[seat], *table, *aside]) == sorted(state.deal[seat])
            assert abs(len(state.played[0]) - len(state.played[1])) <= 1
            assert 1 <= state.move <= 10

    for options in ({}, {"double_deck": True, "kings_privilege": True}, {"free_move": True, "foreplacing": False}):
        for match in random_playouts(GAME, 8, seed=4, options=options, invariant=conserved):
            assert len(match.state.results) == 4
            assert match.outcome().scores == match.state.totals


def test_every_message_has_a_japanese_translation() -> None:
    assert missing_translations(PLUGIN_DIR, GAME.translations["ja"], also=declared_texts(GAME)) == []
