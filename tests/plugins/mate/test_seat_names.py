"""Mate names its seats as every game does (seat tokens filled with the players' names), not A/B."""

from __future__ import annotations

from pathlib import Path

from gamenight.plugins import load_registry
from gamenight.saves import load_match
from gamenight.sdk import fill_seat_names, seat_token
from gamenight.sdk.testing import make_room, wait_for_bots
from gamenight_mate.rules import PlayResult

REGISTRY = load_registry()
OLD_SAVE = Path(__file__).with_name("saved_before_seat_tokens.toml")
"""Written by main before this change (its log said "A leads 10♥ (move 7).")."""


def test_a_save_from_before_seat_tokens_loads_and_reads_with_names():
    match = load_match(REGISTRY, OLD_SAVE)
    assert len(match.log) == 30 and match.state.play == 1
    assert match.state.results[0].winner == 1
    action = match.legal_actions()[0]
    text = match.rules.describe_action(match.state, action, match.to_move())
    assert text == f"{seat_token(0)} leads 10♥ (move 7)."
    assert fill_seat_names(text, ["Ann", "Sackson"]) == "Ann leads 10♥ (move 7)."
    assert fill_seat_names(text) == "Seat 1 leads 10♥ (move 7)."  # headless logs


def test_a_results_sentence_names_the_winner_by_token():
    result = PlayResult(1, 5, "KC", False)
    assert result.describe().startswith(f"{seat_token(1)}: mate on move 5 with K♣")


async def test_the_table_shows_names_not_letters(tmp_path):
    match = load_match(REGISTRY, OLD_SAVE)
    app = make_room(REGISTRY, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        screen = app.screen
        await pilot.press("enter")  # Ann leads her highlighted card
        await wait_for_bots(pilot)
        shown = app.export_screenshot()
        names = str(screen.query_one("#bottom-name").render()), str(screen.query_one("#top-name").render())
    assert names[0].startswith("Ann · dealer") and "(A)" not in names[0] and "(B)" not in names[1], names
    assert "⟦seat" not in shown and "(A)" not in shown
    assert any(line.startswith("Ann ") for line in screen.recent), list(screen.recent)
