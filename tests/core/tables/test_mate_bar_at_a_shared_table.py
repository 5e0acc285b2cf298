"""Mate's ``e`` (the solver's best play) is the coach: not offered in the bar at a shared table."""

from __future__ import annotations

from gamenight.plugins import load_registry
from gamenight.widgets.key_bar import KeyBar

from tests.core.tables.test_no_hints import at_a_shared_table


async def test_mates_best_play_key_is_not_in_the_bar_at_a_shared_table(tmp_path):
    """Walking a shared Mate table over SSH, the bar offered "e Best play", which only says "No hints
    at a shared table"; the key still says so when pressed (test_no_hints), the bar leaves it out."""
    async with at_a_shared_table(tmp_path, load_registry(), "mate") as (_pilot, screen):
        bar = str(screen.query_one(KeyBar).render())
        assert "Play" in bar and "Best play" not in bar, bar
