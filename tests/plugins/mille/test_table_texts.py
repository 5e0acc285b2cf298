"""The table's words and settings: grammar, messages, saved settings, result tables."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from gamenight.app import GameNightApp
from gamenight.dialogs import ResultDialog, YesNoDialog
from gamenight.i18n import set_language
from gamenight.match import Match, SeatConfig
from gamenight.saves import load_match, save_match
from gamenight.sdk import TERMINAL, fill_seat_names
from gamenight.sdk.testing import make_room
from gamenight.testing import settle
from gamenight_mille.rules import HAND_OVER, SLOT_NAMES, MilleRules
from gamenight_mille.screen import MilleScreen
from rich.console import Console

from .conftest import hand, seat, state
from .test_screen import GAME, REGISTRY, Bells, human_vs_expert, room, status

RULES = MilleRules()


@pytest.fixture(autouse=True)
def english():
    set_language("en")
    yield
    set_language("en")


def test_log_sentences_are_right_for_you_and_for_a_name():
    crafted = state(seat(hand("25"), mileage=700))
    for names in (["You", "Computer"], ["Ann", "Bob"]):
        stop = fill_seat_names(RULES.describe_action(crafted, "stop", 0), names)
        extend = fill_seat_names(RULES.describe_action(crafted, "extend", 0), names)
        assert stop == f"{names[0]} stopped at 700."
        assert extend == f"{names[0]} went for an extension to 1000!"


async def test_a_card_number_out_of_range_or_a_wrong_key_says_what_is_wanted(tmp_path):
    match = human_vs_expert()
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        bells = Bells(app)
        await pilot.press("p")
        before = match.state
        await pilot.press("u", "9")
        assert status(app) == "Which card to use? Type P or 1-6 (Escape cancels)." and bells.count == 1
        assert app.screen.command == "use" and app.screen.selected is None
        await pilot.press("enter")  # Return before a card: the same help
        assert status(app).startswith("Which card to use?") and bells.count == 2
        await pilot.press("d", "x")
        assert status(app) == "Which card to discard? Type P or 1-6 (Escape cancels)."
        await pilot.press("1", "7")  # a card chosen, then a key that is neither confirm nor erase
        assert status(app) == "Return or Space to confirm, Backspace to choose again, Escape to cancel."
        assert match.state is before and bells.count == 4


async def test_the_next_command_clears_the_previous_error(tmp_path):
    match = human_vs_expert()
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("u", "1", "space")
        assert status(app) == "must pick first"
        await pilot.press("o")
        assert status(app) == ""
        await pilot.press("x")
        assert status(app) == "unknown command: x"
        await pilot.press("u")
        assert status(app) == "" and app.screen.command == "use"


def resume(tmp_path: Path, path: Path, language: str = "en") -> GameNightApp:
    set_language(language)
    return make_room(REGISTRY, tmp_path, bot_delay=0, theme_name="gamenight", start_save=path)


async def test_the_order_setting_is_autosaved_saved_and_restored_on_resume(tmp_path):
    match = human_vs_expert()
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("p")  # the first move: from now on the game is kept
        await settle(pilot)
        await pilot.press("o")
        autosave = app.saves.autosave_path("mille")
        assert load_match(REGISTRY, autosave).display == {"order": True}  # written at once, before the next move
        await pilot.press("p", "s", "ctrl+a", *"ordered", "enter")
        await pilot.pause()
        named = app.screen.save_path
    for path in (autosave, named):
        again = resume(tmp_path, path)
        async with again.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            screen = again.screen
            assert isinstance(screen, MilleScreen) and screen.ordering
            shown = [screen.match.state.seats[0].hand[slot] for slot in screen.display_slots(screen.view)[1:]]
            assert shown == sorted(shown)
            await pilot.press("o")
            assert not screen.ordering and load_match(REGISTRY, autosave).display == {"order": False}


async def test_a_named_save_is_announced_with_a_clean_label(tmp_path):
    match = human_vs_expert()
    match.apply_chance()
    for name, expected in (
        ("mid-hand.toml", r"Resumed “mid-hand”, saved \d{4}-\d\d-\d\d \d\d:\d\d\."),
        ("mille-20261201-071440.toml", r"Resumed the save of 2026-12-01 07:14\."),
    ):
        path = save_match(match, tmp_path / name)
        stamp = time.mktime((2026, 12, 1, 7, 14, 40, 0, 0, -1))
        os.utime(path, (stamp, stamp))
        app = resume(tmp_path, path)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert re.fullmatch(expected, status(app)), status(app)


async def test_default_names_follow_the_language_of_the_resume(tmp_path):
    set_language("ja")
    japanese = Match(GAME, [SeatConfig("あなた"), SeatConfig("コンピュータ", "expert")], {}, seed=1)
    japanese.apply_chance()
    path = save_match(japanese, tmp_path / "started-in-japanese.toml")
    custom = Match(GAME, [SeatConfig("Ann"), SeatConfig("コンピュータ", "expert")], {}, seed=1)
    custom_path = save_match(custom, tmp_path / "custom.toml")
    app = resume(tmp_path, path, "en")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert [seat.name for seat in app.screen.match.seats] == ["You", "Computer"]
        title = str(app.screen.query_one("#title-bar").render())
        assert "You to move" in title and "あなた" not in title
    assert [seat.name for seat in load_match(REGISTRY, custom_path).seats] == ["Ann", "Computer"]
    set_language("ja")
    assert [seat.name for seat in load_match(REGISTRY, path).seats] == ["あなた", "コンピュータ"]


def _at_end_of_hand(totals: tuple[int, int], hand_number: int = 1) -> Match:
    match = human_vs_expert()
    me = seat(hand("25", "Go", "Stop"), p="100", battle="Go", mileage=600)
    crafted = state(me, other=seat(hand("25"), mileage=150), picked=True, hand_number=hand_number, totals=totals)
    match.state = RULES.apply(RULES.apply(crafted, "use:P"), "stop")
    assert match.state.phase == HAND_OVER or RULES.to_move(match.state) == TERMINAL
    return match


def table_rows(dialog: ResultDialog) -> dict[str, list[str]]:
    console = Console(width=78, color_system=None)
    with console.capture() as captured:
        console.print(dialog.table.content)
    rows = {}
    for line in captured.get().splitlines():
        words = line.split()
        if words:
            label = " ".join(w for w in words if not w.isdigit())
            rows[label] = [w for w in words if w.isdigit()]
    return rows


async def test_the_end_of_hand_table_shows_overall_total_once_and_the_games(tmp_path):
    match = _at_end_of_hand((1200, 900))
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ResultDialog)
        rows = table_rows(app.screen)
        assert "Score" not in rows and rows["Games"] == ["0", "0"]
        assert rows["Overall Total"] == [str(total) for total in match.state.totals]


async def test_the_game_over_table_has_a_games_row(tmp_path):
    match = _at_end_of_hand((4500, 3000), hand_number=3)
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ResultDialog) and dialog.title_text == "Game over"
        rows = table_rows(dialog)
        assert rows["Games"] == ["1", "0"] and "Score" not in rows
        assert rows["Overall Total"] == [str(total) for total in match.state.totals]


async def test_q_says_what_becomes_of_the_game_as_escape_does(tmp_path):
    match = human_vs_expert()
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("q")
        assert isinstance(app.screen, YesNoDialog)
        assert app.screen.question == "Really? Nothing has been played yet, so nothing is kept."  # only the deal
        await pilot.press("n", "p")  # the first move
        await settle(pilot)
        await pilot.press("q")
        assert app.screen.question == "Really? It stays in the autosave and can be resumed from the lobby."
        await pilot.press("n", "escape")
        assert app.screen.question.endswith("It stays in the autosave and can be resumed from the lobby.")
        await pilot.press("n", "q", "y")
        await pilot.pause()
        assert not isinstance(app.screen, MilleScreen)
    assert load_match(REGISTRY, app.saves.autosave_path("mille")).log == match.log


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_escape_after_a_refused_card_does_not_ask_to_leave(tmp_path, language):
    """Escape abandons a card; right after a refused one it must not open "Leave this game?",
    whose Yes the next Return (Mille's confirm key) would take."""
    set_language(language)
    match = human_vs_expert()
    app = room(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        screen = app.screen
        slots = screen.display_slots(screen.view)
        legal = set(match.legal_actions())
        row = next(row for row in range(1, 7) if f"use:{SLOT_NAMES[slots[row]]}" not in legal)
        before = list(match.log)
        await pilot.press("u", str(row), "space")  # a card the rules refuse (a person starts stopped)
        assert status(app) and app.screen is screen and match.log == before
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MilleScreen) and status(app) == ""
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, MilleScreen) and match.log == before
        await pilot.press("escape")  # Escape with nothing refused still asks, as before
        await pilot.pause()
        assert isinstance(app.screen, YesNoDialog)
