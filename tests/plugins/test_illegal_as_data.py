"""Illegal actions as data: the rules raise a code, an English sentence and its values; screens translate."""

from __future__ import annotations

import json
import random
import re

import pytest
from gamenight.i18n import set_language, translator
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.sdk import IllegalAction
from gamenight.sdk.testing import make_room, wait_for_bots

REGISTRY = load_registry()
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def _refusals(game_id: str, seed: int = 3) -> list[IllegalAction]:
    """The errors the rules raise for near-miss actions along a seeded random game."""
    game = REGISTRY.game(game_id)
    rules = game.rules
    rng = random.Random(seed)
    match = Match(game, [SeatConfig(f"p{n}") for n in range(game.default_seats)], {}, seed=seed)
    errors = []
    while not match.over:
        legal = match.legal_actions() if match.to_move() >= 0 else [rules.sample_chance(match.state, rng)]
        actions = set(legal)
        candidates = {a[:-1] + c for a in legal[:8] for c in "0179HSx"} | {"score:chance", "pass", "draw", "keep"}
        for bad in sorted(candidates - actions)[:12]:
            try:
                rules.apply(match.state, bad)
            except IllegalAction as error:
                errors.append(error)
        if match.to_move() >= 0:
            match.apply(rng.choice(legal))
        else:
            match.apply_chance()
    return errors


@pytest.mark.parametrize("game_id", ["yatzy", "seven", "lits", "mate", "mille"])
def test_a_refusal_is_a_code_with_json_values_and_english_in_any_room(game_id):
    set_language("ja")
    try:
        errors = _refusals(game_id)
        catalogue = REGISTRY.game(game_id).translations["ja"]
        assert errors, "no near-miss action was refused"
        for error in errors:
            assert error.code != "illegal" and error.template, f"{game_id}: a refusal without a code: {error}"
            assert json.loads(json.dumps(error.to_json()))["code"] == error.code
            assert not JAPANESE.search(str(error)), f"the headless text is not English: {error}"
            if error.template in catalogue:  # the screen says it in the room's language
                assert JAPANESE.search(error.say(translator(game_id))), error.template
        assert {error.code for error in errors} - {"unknown-action", "not-a-card-or-move", "not-a-placement"}
    finally:
        set_language("en")


def test_an_old_style_refusal_still_reads_as_raised():
    error = IllegalAction("You may take 1 to 3 sticks.")
    assert (str(error), error.code, error.params, error.say(translator("nim"))) == (
        "You may take 1 to 3 sticks.",
        "illegal",
        {},
        "You may take 1 to 3 sticks.",
    )
    made = IllegalAction.because("box-filled", "That box is already filled.")
    assert (str(made), made.to_json()) == (
        "That box is already filled.",
        {"code": "box-filled", "params": {}, "text": "That box is already filled."},
    )


async def test_a_japanese_room_says_why_a_lits_placement_is_refused_in_japanese(tmp_path):
    game = REGISTRY.game("lits")
    match = Match(game, [SeatConfig("Kei"), SeatConfig("Bot", "random")], {}, seed=5)
    set_language("ja")
    try:
        app = make_room(REGISTRY, tmp_path, start_match=match)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for_bots(pilot)
            screen = app.screen
            await pilot.press("enter")  # the first piece, where the cursor is
            await wait_for_bots(pilot)
            if match.to_move() == 1 or match.state.pie_pending:  # the pie rule: keep ○
                await pilot.press("o")
                await wait_for_bots(pilot)
            action = screen.placement.action
            with pytest.raises(IllegalAction) as refused:
                game.rules.apply(match.state, action)
            await pilot.press("enter")  # the same place again: refused
            await pilot.pause()
            shown = str(screen.query_one("#message").render())
        error = refused.value
        assert error.code in {"overlap", "contact", "square", "same-shape", "none-left", "off-board"}
        assert shown == error.say(translator("lits")) and JAPANESE.search(shown), shown
        assert not JAPANESE.search(str(error))
    finally:
        set_language("en")
