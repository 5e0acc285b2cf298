"""The SDK's public events: ``Rules.public_events``, ``Match.last_events``, ``GameScreen.describe_event``."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest
from gamenight.match import Match, SeatConfig
from gamenight.sdk import CHANCE, PublicEvent, event_problem
from gamenight.sdk.testing import check_public_events, make_room, wait_for_bots

from tests.core.nim import NIM, NimRules, NimScreen


def _nim_perturb(state, seat, rng: random.Random):
    return state if seat == 0 else replace(state, secret=rng.randint(0, 99))


def test_a_game_written_before_events_gets_one_event_with_its_sentence():
    match = Match(NIM, [SeatConfig("Ann"), SeatConfig("Bob")], {"dice": True}, seed=3)
    assert match.last_events() == []
    roll = match.apply_chance()
    assert match.last_events() == [PublicEvent(PublicEvent.ACTION, {"seat": CHANCE, "text": f"die shows {roll[4:]}"})]
    match.apply("2")
    assert match.last_events() == [PublicEvent("action", {"seat": 0, "text": "seat 1 takes 2"})]
    match.start_game()
    assert match.last_events() == []


def test_an_event_is_json_and_nothing_else():
    event = PublicEvent("play", {"seat": 1, "cards": [3, 4], "called": None, "where": {"row": 2}})
    assert event_problem(event) is None
    assert PublicEvent.from_json(json.loads(json.dumps(event.to_json()))) == event
    assert hash(event) == hash(PublicEvent("play", {"where": {"row": 2}, "called": None, "cards": [3, 4], "seat": 1}))
    assert "not JSON" in event_problem(PublicEvent("play", {"cards": {3, 4}}))
    assert "not a string" in event_problem(PublicEvent("play", {"where": {1: 2}}))
    assert event_problem(PublicEvent("", {})) is not None
    assert event_problem(("play", {})) is not None
    for garbage in ({"kind": 3}, {"kind": "x", "params": [1]}, {"kind": "x", "params": {"y": object()}}):
        with pytest.raises(ValueError):
            PublicEvent.from_json(garbage)


def test_the_kit_passes_a_game_whose_events_say_only_what_is_public():
    check_public_events(NIM, _nim_perturb, games=3, seed=1)


class _LeakyRules(NimRules):
    """Tells everyone seat 0's secret number with every move."""

    def public_events(self, before, action, seat):
        return [PublicEvent("take", {"seat": seat, "count": action, "secret": before.secret})]


class _TupleRules(NimRules):
    def public_events(self, before, action, seat):
        return [PublicEvent("take", {"seat": seat, "sticks": {int(action[-1])}})]


def test_the_kit_catches_an_event_that_reveals_a_hidden_number():
    leaky = replace(NIM, rules=_LeakyRules())
    with pytest.raises(AssertionError, match="reveal hidden information"):
        check_public_events(leaky, _nim_perturb, games=2, seed=1)


def test_the_kit_catches_an_event_that_is_not_json():
    with pytest.raises(AssertionError, match="not JSON"):
        check_public_events(replace(NIM, rules=_TupleRules()), games=1, seed=1)


class _TakeRules(NimRules):
    def public_events(self, before, action, seat):
        return [PublicEvent("take", {"seat": seat, "count": int(action)})]


class _TakeScreen(NimScreen):
    def describe_event(self, event):
        if event.kind == "take":
            return self.fill_names(f"⟦seat{event.params['seat']}⟧ takes {event.params['count']} sticks")
        return super().describe_event(event)


class _OldScreen(NimScreen):
    """A screen written before events, that built its sentence from the state."""

    def describe(self, state, action, seat):
        return f"{state.sticks} - {action}"


async def _first_line(tmp_path, game, registry_game=None):
    from gamenight.plugins import Registry

    match = Match(game, [SeatConfig("Ann"), SeatConfig("Bob", "first")], {}, seed=1)
    app = make_room(Registry(games={game.id: game}), tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        await pilot.press("2")
        await wait_for_bots(pilot)
        return list(app.screen.recent)


async def test_a_screen_says_its_games_events_in_its_own_words(tmp_path):
    game = replace(NIM, rules=_TakeRules(), screen=_TakeScreen)
    assert (await _first_line(tmp_path, game))[:2] == ["Ann takes 2 sticks", "Bob takes 1 sticks"]


async def test_the_default_screen_says_an_old_games_sentence_and_an_unknown_kind_by_name(tmp_path):
    assert (await _first_line(tmp_path, NIM))[:2] == ["seat 1 takes 2", "seat 2 takes 1"]
    game = replace(NIM, rules=_TakeRules())
    assert (await _first_line(tmp_path, game))[:1] == ["take (seat=0, count=2)"]


async def test_a_screen_that_overrides_describe_keeps_its_sentences(tmp_path):
    game = replace(NIM, screen=_OldScreen)
    assert (await _first_line(tmp_path, game))[:2] == ["10 - 2", "8 - 1"]
