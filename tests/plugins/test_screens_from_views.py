"""Every built-in game's screen plays a whole game without the match's full state.

A shared table's match (``RemoteTable``) has no ``state``: a screen must draw from
``match.view(seat)`` and learn what a move did from ``match.last_events()``. Here the
match's ``state`` refuses every reader in a screen module (the game's screen and
widgets, and ``GameScreen``); the rules, the bots and the room may still read it.
"""

from __future__ import annotations

import sys

import pytest
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.sdk import ResultDialog
from gamenight.sdk.testing import make_room, wait_for_bots

REGISTRY = load_registry()

GAMES = {
    # game id: (options, seats, the key that goes on after an end-of-hand pause)
    "yatzy": ({}, 2, "c"),
    "mille": ({"target": 700}, 2, "y"),
    "seven": ({}, 3, "c"),
    "lits": ({}, 2, "c"),
    "mate": ({}, 2, "c"),
}


def _screen_module(name: str) -> bool:
    return name == "gamenight.ui.game_screen" or (name.startswith("gamenight_") and not name.endswith(".rules"))


class StatelessMatch(Match):
    """A local match whose full state no screen may read (as a shared table's)."""

    readers: list[str]

    @property
    def state(self):
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if _screen_module(caller):
            self.__dict__.setdefault("readers", []).append(caller)
            raise AttributeError(f"{caller} read match.state: a shared table has none")
        return self.__dict__["_state"]

    @state.setter
    def state(self, value):
        self.__dict__["_state"] = value


@pytest.mark.parametrize("game_id", sorted(GAMES))
async def test_the_screen_plays_a_whole_game_from_views_and_events(game_id, tmp_path):
    game = REGISTRY.game(game_id)
    options, seats, go_on = GAMES[game_id]
    weakest = min(game.bots, key=lambda spec: spec.strength).id
    match = StatelessMatch(game, [SeatConfig(f"Bot {n + 1}", weakest) for n in range(seats)], options, seed=7)
    app = make_room(REGISTRY, tmp_path, start_match=match)
    lines: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        for _step in range(2000):
            await wait_for_bots(pilot)
            message = screen.query_one("#message")
            assert not message.has_class("error"), f"{game_id}: {message.render()}"
            lines.extend(text for text in screen.recent if text not in lines)
            if match.over and match.recorded:
                break
            if isinstance(app.screen, ResultDialog) or (match.pending_interlude() is not None and app.screen is screen):
                await pilot.press(go_on)
            await pilot.pause()
        else:
            raise AssertionError(f"{game_id}: the game did not end")
        assert isinstance(app.screen, ResultDialog)  # the end dialog, drawn from the outcome
        app.export_screenshot()
    assert match.__dict__.get("readers", []) == []
    assert lines and not any("⟦seat" in line for line in lines), lines[:5]
