"""The SEVEN table in a real app at 80×24: keys, the Queen's suit dialog, the end dialog, snapshots."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from gamenight.app import GameNightApp
from gamenight.dialogs import ResultDialog
from gamenight.i18n import set_language
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.sdk import CHANCE, BotContext
from gamenight.sdk.testing import make_room
from gamenight.testing import settle
from gamenight.widgets.key_bar import KeyBar
from gamenight_seven.bots import GreedyBot
from gamenight_seven.screen import SevenScreen
from gamenight_seven.suit_dialog import SuitDialog
from gamenight_seven.widgets import HandView, SeatPanel, fit_cells
from rich.cells import cell_len
from textual.worker import WorkerCancelled

REGISTRY = load_registry()
GAME = REGISTRY.game("seven")
NAMES = ["You", "ウルド", "Belldandy", "スクルド", "Marller"]


def make_app(tmp_path: Path, seed: int = 1, log: tuple[str, ...] = ()) -> tuple[GameNightApp, Match]:
    seats = [SeatConfig(NAMES[0])] + [SeatConfig(name, "greedy") for name in NAMES[1:]]
    match = Match(GAME, seats, {}, seed=seed)
    for action in log:
        match.apply(action)
    app = make_room(REGISTRY, tmp_path, bot_delay=0, theme_name="gamenight", start_match=match)
    return app, match


async def calm(pilot) -> None:
    """Wait for the bots.  Several bots move in a row here, and each new bot worker cancels
    the finished one before it completes, which ``settle`` reports as WorkerCancelled."""
    for _ in range(100):
        try:
            await settle(pilot)
            return
        except WorkerCancelled:
            await pilot.pause()
    raise AssertionError("the bots never settled")


def finished_log(seed: int = 1) -> tuple[str, ...]:
    """A whole deal played by greedy bots in every seat (chance from the match's own RNG)."""
    match = Match(GAME, [SeatConfig(name, "greedy") for name in NAMES], {}, seed=seed)
    bot, rng = GreedyBot(), random.Random(seed)
    while not match.over:
        if match.to_move() == CHANCE:
            match.apply_chance()
        else:
            seat = match.to_move()
            match.apply(bot.choose(match.view(seat), match.legal_actions(), BotContext(seat, rng)))
    return tuple(entry.action for entry in match.log)


async def test_a_whole_deal_can_be_played_by_keys_with_a_queen_and_its_suit_choice(tmp_path):
    app, match = make_app(tmp_path, seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await calm(pilot)
        screen = app.screen
        assert isinstance(screen, SevenScreen)
        assert screen.query_one("#hand", HandView).ids == [
            "draw",
            "5S",
            "JS",
            "TH",
            "6C",
            "QD",
        ]
        await pilot.press("end", "enter")  # the Queen of diamonds: the suit dialog opens
        assert isinstance(app.screen, SuitDialog)
        await pilot.press("h")
        await calm(pilot)
        assert match.log[1].action == "QD:H"
        for _ in range(400):  # Return plays the highlighted card (a playable one), else draws
            if isinstance(app.screen, ResultDialog):
                break
            if isinstance(app.screen, SuitDialog):
                await pilot.press("s")
            else:
                await pilot.press("enter")
            await calm(pilot)
        assert isinstance(app.screen, ResultDialog) and match.games_played == 1
        assert sum(match.totals) == 0
        await pilot.press("a")  # play again: a new deal, the totals stay
        await calm(pilot)
        assert isinstance(app.screen, SevenScreen) and not match.over and match.games_played == 1


async def test_the_suit_dialog_leaves_the_hand_and_the_top_card_in_view(tmp_path):
    app, _match = make_app(tmp_path, seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await calm(pilot)
        table = app.screen
        await pilot.press("end", "enter")
        dialog = app.screen
        assert isinstance(dialog, SuitDialog)
        box = dialog.query_one("Vertical").region
        for name in ("#hand", "#table"):
            assert not box.overlaps(table.query_one(name).region), name
        assert dialog.styles.background.a < 1  # dimmed, not hidden


async def test_an_unplayable_card_is_refused_with_the_reason_and_nothing_changes(tmp_path):
    app, match = make_app(tmp_path, seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await calm(pilot)
        before = list(match.log)
        await pilot.press("down", "down", "enter")  # 10♥ on 5♣
        assert match.log == before
        assert "matches neither" in str(app.screen.query_one("#message").render())


async def test_the_suit_dialog_can_be_left_with_escape_and_answered_by_mouse(tmp_path):
    app, match = make_app(tmp_path, seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await calm(pilot)
        await pilot.press("end", "enter", "escape")
        assert isinstance(app.screen, SevenScreen) and len(match.log) == 1
        await pilot.press("enter")
        await pilot.click("#suit-C")
        await calm(pilot)
        assert match.log[1].action == "QD:C"


async def test_d_draws_and_the_turn_goes_on(tmp_path):
    app, match = make_app(tmp_path, seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await calm(pilot)
        await pilot.press("d")
        assert match.log[-1].action == "draw" and match.to_move() == 0
        assert len(match.view(0).hand) == 6


async def test_wide_names_fit_their_panels(tmp_path):
    app, _match = make_app(tmp_path, seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await calm(pilot)
        panels = list(app.screen.query(SeatPanel))
        assert [panel.border_title for panel in panels[1:]] == NAMES[1:]
        assert all(panel.size.width == panels[1].size.width for panel in panels[1:])


def test_snapshot_the_table(snap_compare, tmp_path):
    app, _match = make_app(tmp_path, seed=1)
    assert snap_compare(app, run_before=calm, terminal_size=(80, 24))


def test_snapshot_the_suit_dialog(snap_compare, tmp_path):
    app, _match = make_app(tmp_path, seed=1)
    assert snap_compare(app, run_before=calm, press=["end", "enter"], terminal_size=(80, 24))


def test_snapshot_the_end_of_deal_dialog(snap_compare, tmp_path):
    app, match = make_app(tmp_path, seed=1, log=finished_log())
    assert match.over
    assert snap_compare(app, run_before=calm, terminal_size=(80, 24))


def test_long_wide_names_are_cut_by_terminal_cells_not_characters():
    assert fit_cells("ベルダンディ", 8) == "ベルダ…" and cell_len(fit_cells("ベルダンディ", 8)) == 7
    assert fit_cells("Urd", 8) == "Urd"
    assert cell_len(fit_cells("Belldandy-sama", 8)) == 8


async def test_the_coachs_last_line_follows_the_hands_cursor(tmp_path):
    """``?`` then the arrows: the coach says what the card under the cursor is worth ("Your choice:
    Play 8♥ · 23% …"), as it does for Yatzy's boxes; it said only the best whatever the cursor."""
    app, match = make_app(tmp_path, seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await calm(pilot)
        screen = app.screen
        hand = screen.query_one(HandView)
        await pilot.press("question_mark")
        cost = screen.query_one("#coach-cost")
        for _ in range(400):
            if screen.coach.computing is None and str(cost.render()).strip():
                break
            await pilot.pause(0.025)
        legal = match.legal_actions()
        seen = set()
        for _ in range(len(hand.ids)):
            await pilot.press("right")
            await pilot.pause(0.3)  # the screen's timer reads the cursor
            code = hand.highlighted_id
            line = " ".join(str(cost.render()).split())
            if code in legal:
                assert screen.highlighted_action() == code
                assert line.startswith(f"Your choice: {screen.describe_choice(code)} ·"), line
                seen.add(code)
            else:  # a card that cannot be played (or a Queen still to call): the best is shown
                assert screen.highlighted_action() is None and line.startswith("Best: "), line
        assert len(seen) >= 2, seen


@pytest.mark.parametrize(("language", "label"), [("en", "Play"), ("ja", "出す")])
async def test_the_key_bar_names_return_which_plays_the_card_under_the_cursor(tmp_path, language, label):
    """Return plays the highlighted card (or draws, on the hand's first line), yet the key bar named
    only ``d``: it now shows Return too, whole at 80 columns in both languages, and its entry plays."""
    set_language(language)
    try:
        app, _match = make_app(tmp_path, seed=1)
        async with app.run_test(size=(80, 24)) as pilot:
            await calm(pilot)
            bar = app.screen.query_one(KeyBar)
            line = str(bar.render())
            assert f"⏎ {label} " in line, line
            assert line.rstrip().endswith(("palette", "コマンド")), line  # nothing pushed off the bar
            items, _palette = bar._items()
            keys = [(key, description, enabled) for key, _shown, description, enabled in items]
            assert ("enter", label, True) in keys  # lit: it is this person's turn
            await pilot.press("end")
            card = app.screen.query_one("#hand", HandView).highlighted_id
            assert card == "QD"
            entry = next(entry for entry in bar._entries if entry.key == "enter")
            await pilot.click(KeyBar, offset=(entry.start + 1, 0))  # the bar's entry presses Return
            assert isinstance(app.screen, SuitDialog)
    finally:
        set_language("en")
