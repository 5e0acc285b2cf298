"""The Mate table in a real app: foreplacing and play by keys and mouse, hints, SVG snapshots."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gamenight.app import GameNightApp
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.sdk import CHANCE, fill_seat_names
from gamenight.sdk.testing import make_room
from gamenight.testing import settle
from gamenight.ui.game_screen import StatusLine
from gamenight_mate.bots import explain_best_play
from gamenight_mate.rules import NONE, pretty
from gamenight_mate.screen import MateScreen
from gamenight_mate.solver import Solver
from gamenight_mate.widgets import CardChip
from textual.widgets import Static

from .conftest import deal_action, split_deck

REGISTRY = load_registry()
GAME = REGISTRY.games["mate"]
A_HAND = ["AC", "10C", "KC", "QC", "7C", "KS", "QS", "7S", "KH", "KD"]  # B: no club, no King
DEAL = deal_action(A_HAND, split_deck(A_HAND))


def make_app(tmp_path: Path, seats: list[SeatConfig], log: list[tuple[int, str]] = ()) -> tuple[GameNightApp, Match]:
    match = Match(GAME, seats, {}, seed=3)
    match.replay([(CHANCE, DEAL), *log])
    app = make_room(REGISTRY, tmp_path, bot_delay=0, start_match=match)
    return app, match


def chip(screen: MateScreen, row: str, card: str) -> CardChip:
    return next(c for c in screen.query(f"#{row}-hand CardChip").results(CardChip) if c.action == card)


async def test_a_play_with_foreplacing_by_keys_and_mouse(tmp_path: Path) -> None:
    app, match = make_app(tmp_path, [SeatConfig("Ann"), SeatConfig("Bot", "greedy")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MateScreen)
        assert "set a card aside" in str(screen.query_one("#lead-line", Static).render())
        assert screen.query_one("#keep-all").display
        # Ann, the dealer, moves the cursor to her third card and sets it aside.
        third = screen.bottom_cards()[2]
        await pilot.press("right", "right", "enter")
        await settle(pilot)
        assert match.state.foreplaced[0] == third
        assert match.log[-1].action == NONE  # greedy keeps all
        assert not screen.query_one("#keep-all").display
        # Ann leads by clicking a card.
        lead = screen.bottom_cards()[0]
        await pilot.click(chip(screen, "bottom", lead))
        await settle(pilot)
        assert match.state.played[0][0] == lead
        # Play on with Enter until the play ends: every card keeps the rules.
        while match.state.phase != "ended":
            await pilot.press("enter")
            await settle(pilot)
            if match.state.phase != "ended" and match.human_to_move():
                legal = match.legal_actions()
                screen.cursor = screen.bottom_cards().index(legal[0])
        assert len(match.state.results) == 1
        # The pause shows the mate and its formula on the table; C goes on to play 2.
        assert match.pending_interlude() is not None and screen.pause is not None
        assert str(screen.query_one("#formula", Static).render()) == fill_seat_names(
            match.state.results[0].describe(), [seat.name for seat in match.seats]
        )
        await pilot.press("enter")  # refused as a card while paused: it continues instead
        await settle(pilot)
        assert screen.pause is None and match.pending_interlude() is None
        assert match.rules.current(match.state).play == 1


async def test_an_illegal_card_changes_nothing_and_says_why(tmp_path: Path) -> None:
    # Ann leads A♣; Ben has no club, so he must answer with an Ace.
    app, match = make_app(tmp_path, [SeatConfig("Ann"), SeatConfig("Ben")], [(0, NONE), (1, NONE), (0, "AC")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.view_seat == 1  # hot seat, perfect information: the mover's hand at the bottom
        before = (match.state, len(match.log))
        wrong = next(card for card in screen.bottom_cards() if card[0] != "A")
        await pilot.click(chip(screen, "bottom", wrong))
        await settle(pilot)
        assert (match.state, len(match.log)) == before
        status = screen.query_one(StatusLine).query_one("#message", Static)
        assert "must answer with a card of rank A" in str(status.render())
        chips = screen.query("#bottom-hand CardChip").results(CardChip)
        playable = {c.action for c in chips if c.has_class("playable")}
        assert playable == set(match.legal_actions())
        assert "may answer" in str(screen.query_one("#lead-line", Static).render())


async def test_the_best_play_hint_is_solved_on_request(tmp_path: Path) -> None:
    app, _match = make_app(tmp_path, [SeatConfig("Ann"), SeatConfig("Bot", "greedy")], [(0, NONE), (1, NONE)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await app.workers.wait_for_complete()
        await pilot.pause()
        # The hint names the card to play, and it is the solver's best and a legal card
        action, _value = Solver(_match.state.variant).best_action(_match.rules.current(_match.state), 0)
        assert action in _match.legal_actions()
        assert app.screen.hint.startswith(f"best move: play {pretty(action)}; with best play")
        assert f"play {pretty(action)}" in str(app.screen.query_one("#hint", Static).render())
        # The solver's best play is the coach's advice: the game is marked coached (no rating, no high score).
        assert _match.coached


def test_snapshot_table_mid_play(snap_compare, tmp_path: Path) -> None:
    # Ann set Q♠ aside; B's 10♠ took move 2 and leads 10♥: Ann must answer K♥.
    log = [(0, "QS"), (1, NONE), (0, "AC"), (1, "AH"), (0, "7S"), (1, "10S"), (1, "10H")]
    app, _match = make_app(tmp_path, [SeatConfig("Ann"), SeatConfig("Ben")], log)
    assert snap_compare(app, terminal_size=(80, 24))


def test_snapshot_table_at_a_mate(snap_compare, tmp_path: Path) -> None:
    # B has no club and no King left: Ann's K♣ mates on move 2, (2 + 1) × 4 = 12 to the foreplacer.
    log = [(0, "QS"), (1, NONE), (0, "AC"), (1, "AH"), (0, "KC")]
    app, match = make_app(tmp_path, [SeatConfig("Ann"), SeatConfig("Ben")], log)
    assert match.state.phase == "ended"
    assert snap_compare(app, terminal_size=(80, 24))


async def test_the_help_screen_shows_the_rules_and_how_this_play_ends(tmp_path: Path) -> None:
    from gamenight.screens.help_screen import HelpScreen

    app, match = make_app(tmp_path, [SeatConfig("Ann"), SeatConfig("Bot", "greedy")], [(0, NONE), (1, NONE)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        line = explain_best_play(match.state, 0)
        assert line.startswith("best move: play ")
        this_play, coach = app.screen.extra.split("\n\n## ")
        assert this_play == f"## This play\n\nB{line[1:]}."
        assert coach.startswith("The coach\n\n`?` shows")  # (the room's words on ?, after the position's)


async def test_the_japanese_help_ends_its_sentence_with_a_japanese_full_stop(tmp_path: Path) -> None:
    from gamenight.i18n import set_language
    from gamenight.screens.help_screen import HelpScreen

    set_language("ja")
    try:
        app, _match = make_app(tmp_path, [SeatConfig("Ann"), SeatConfig("Bot", "greedy")], [(0, NONE), (1, NONE)])
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("f1")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            assert app.screen.extra.startswith("## このプレイ\n\n最善の一手：")
            assert app.screen.extra.endswith("。") and not app.screen.extra.endswith(".")
    finally:
        set_language("en")


async def test_the_best_move_hint_shows_whole_in_japanese_at_80x24(tmp_path: Path) -> None:
    """The hint names the move and the outcome: up to three lines in Japanese, none of them cut."""
    from gamenight.i18n import set_language, translator

    from tests.core.tour import text_problems

    set_language("ja")
    try:
        t = translator("mate")
        app, _match = make_app(tmp_path, [SeatConfig("カペレン"), SeatConfig("サクソン", "greedy")])
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("e")
            await app.workers.wait_for_complete()
            await pilot.pause()
            screen = app.screen
            assert screen.hint.startswith("最善の一手：")
            # the longest hint there is: ten moves, a double-digit card on both sides, an overmate's points
            screen.hint = t(
                "best move: {move}; {outcome}",
                move=t("set {card} aside", card="10♣"),
                outcome=t(
                    "with best play: mate on move {move} with {card}, {points} to your opponent",
                    move=10,
                    card="10♦",
                    points=242,
                ),
            )
            screen.refresh_view()
            await pilot.pause()
            assert text_problems(screen) == []
    finally:
        set_language("en")


async def test_the_keep_all_key_is_in_the_bar_only_while_foreplacing(tmp_path: Path) -> None:
    """The key bar kept "n Keep all" through the play, where the key only said it could not."""
    from gamenight.widgets.key_bar import KeyBar

    app, match = make_app(tmp_path, [SeatConfig("Ann"), SeatConfig("Bot", "greedy")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert "n Keep all" in str(screen.query_one(KeyBar).render())
        await pilot.press("n")  # Ann keeps all; the bot decides; the play begins
        await settle(pilot)
        assert match.state.foreplaced[0] is None and match.log[-2].action == NONE
        assert match.state.phase == "play" and match.human_to_move()
        bar = str(screen.query_one(KeyBar).render())
        assert "Keep all" not in bar and "⏎ Play" in bar
        status = screen.query_one(StatusLine).query_one("#message", Static)
        before = str(status.render())
        await pilot.press("n")
        await settle(pilot)
        assert str(status.render()) == before and not status.has_class("error")  # no refusal


async def test_the_end_of_a_play_offers_c_and_e_does_not_advise_on_hidden_cards(tmp_path: Path) -> None:
    from gamenight.widgets.key_bar import KeyBar

    log = [(0, "QS"), (1, NONE), (0, "AC"), (1, "AH"), (0, "KC")]  # K♣ mates on move 2
    app, _match = make_app(tmp_path, [SeatConfig("Ann"), SeatConfig("Ben")], log)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.pause is not None
        bar = screen.query_one(KeyBar)
        assert "c Continue" in str(bar.render())
        await pilot.press("e")  # the next play's cards are not on screen: nothing to advise on
        await settle(pilot)
        status = screen.query_one(StatusLine).query_one("#message", Static)
        assert "Press C" in str(status.render()) and screen.hint == ""
        await pilot.press("c")
        await settle(pilot)
        assert screen.pause is None and "Continue" not in str(bar.render())


@pytest.mark.parametrize(
    ("language", "verdicts"), [("en", ("win", "lose", "draw")), ("ja", ("勝ち", "負け", "引き分け"))]
)
async def test_the_coachs_value_column_is_whole_at_80x24(tmp_path: Path, language, verdicts) -> None:
    """``?`` lists each choice with its value, the play's score with best play: "win in 3 (mate on
    move 3, +28)" was cut to "win in 3 (m…" (「負け・9 ム…」), its points lost.  Every row now shows
    its choice and its value whole, foreplacing and leading, in both languages."""
    from gamenight.i18n import set_language
    from gamenight.ui.coach import CoachPanel

    set_language(language)
    try:
        app, _match = make_app(tmp_path, [SeatConfig("Ann"), SeatConfig("Bot", "greedy")])
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            screen = app.screen
            panel = screen.query_one(CoachPanel)
            await pilot.press("question_mark")
            for phase in ("foreplace", "play"):
                await settle(pilot)
                for _ in range(400):
                    rows = [row for row in str(panel.query_one("#coach-choices").render()).splitlines() if row.strip()]
                    if rows and screen.coach.computing is None:
                        break
                    await pilot.pause(0.025)
                assert screen.shown_state().phase == phase
                assert len(rows) >= 2, rows
                for row in rows:
                    assert "…" not in row, rows
                    assert any(verdict in row for verdict in verdicts), rows
                    assert re.search(r"[+-]\d+ ", row + " ") or verdicts[2] in row, rows  # the points
                await pilot.press("n")  # keep all: the play begins, Ann leads
    finally:
        set_language("en")
