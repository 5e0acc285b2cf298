"""The ghost piece has a look of its own in every shipped theme, never a placed piece's colour."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.sdk.testing import make_room
from gamenight.testing import settle
from gamenight_lits.rules import PLACEMENTS
from gamenight_lits.widgets import Board

from .test_screen import keys_to

REGISTRY = load_registry()
GAME = REGISTRY.games["lits"]
SHIPPED = ("gamenight", "gamenight-16", "gamenight-contrast")
SHAPES = ("l", "i", "t", "s")
APART = 100
"""Least distance between two colours told apart at a glance (RGB, 0-441)."""


def rgb(style) -> tuple[int, int, int]:
    return tuple(style.bgcolor.get_truecolor())


@pytest.mark.parametrize("theme", SHIPPED)
async def test_a_legal_ghost_is_coloured_unlike_every_placed_piece(tmp_path: Path, theme: str) -> None:
    match = Match(GAME, [SeatConfig("Ann"), SeatConfig("Ben")], {"layout": "weave"}, seed=3)
    for action in ("S:r0c1:o0", "keep"):  # an S on the board
        match.apply(action)
    app = make_room(REGISTRY, tmp_path, bot_delay=0, theme_name=theme, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        target = next(
            PLACEMENTS[p] for p in match.state.legal if PLACEMENTS[p].shape == "T" and not PLACEMENTS[p].orientation
        )
        await pilot.press("t", *keys_to(target.row, target.col))  # a T ghost, touching the S, legal
        await pilot.pause()
        board = app.screen.query_one(Board)
        assert board.ghost and board.ghost_legal
        ghost = board.get_component_rich_style("board--ghost-ok")
        for shape in SHAPES:
            piece = board.get_component_rich_style(f"board--shape-{shape}")
            assert math.dist(rgb(ghost), rgb(piece)) >= APART, (theme, shape, rgb(ghost), rgb(piece))
        bad = board.get_component_rich_style("board--ghost-bad")
        assert math.dist(rgb(bad), rgb(ghost)) >= APART
