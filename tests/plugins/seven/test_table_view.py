"""What the SEVEN table shows: running totals, whole revealed hands, a long hand
whole, the end-of-deal title, seat titles re-fitted on resize -- at 80×24, as a player sees it."""

from __future__ import annotations

import random
from pathlib import Path

from gamenight.app import GameNightApp
from gamenight.dialogs import ResultDialog
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.sdk import CHANCE, BotContext
from gamenight.sdk.testing import make_room
from gamenight.testing import settle
from gamenight_seven.bots import GreedyBot
from gamenight_seven.rules import card_label
from gamenight_seven.widgets import SeatPanel
from textual.worker import WorkerCancelled

from tests.core.tour import screen_text

REGISTRY = load_registry()
GAME = REGISTRY.game("seven")
NAMES = ["You", "Urd", "Belldandy-sama!!", "Skuld", "Marller"]


def make_app(tmp_path: Path, log: tuple[str, ...] = (), seed: int = 1) -> tuple[GameNightApp, Match]:
    match = Match(GAME, [SeatConfig(NAMES[0])] + [SeatConfig(name, "greedy") for name in NAMES[1:]], {}, seed=seed)
    for action in log:
        match.apply(action)
    app = make_room(REGISTRY, tmp_path, bot_delay=0, theme_name="gamenight", start_match=match)
    return app, match


async def calm(pilot) -> None:
    for _ in range(100):
        try:
            await settle(pilot)
            return
        except WorkerCancelled:
            await pilot.pause()
    raise AssertionError("the bots never settled")


def played_log(seed: int = 1, stop=lambda match: match.over, seat_zero=None) -> tuple[str, ...]:
    """Greedy bots in every seat (seat 0 plays ``seat_zero(match)`` if given) until ``stop(match)``."""
    match = Match(GAME, [SeatConfig(name, "greedy") for name in NAMES], {}, seed=seed)
    bot, rng = GreedyBot(), random.Random(seed)
    while not stop(match) and not match.over:
        if match.to_move() == CHANCE:
            match.apply_chance()
        elif match.to_move() == 0 and seat_zero is not None:
            match.apply(seat_zero(match))
        else:
            seat = match.to_move()
            match.apply(bot.choose(match.view(seat), match.legal_actions(), BotContext(seat, rng)))
    return tuple(entry.action for entry in match.log)


def region_text(app, widget) -> str:
    """The characters on screen inside ``widget``'s region (its border included)."""
    lines = screen_text(app)
    region = widget.region
    return "\n".join(line[region.x : region.right] for line in lines[region.y : region.bottom])


async def test_running_totals_show_on_the_table_during_a_deal(tmp_path):
    app, match = make_app(tmp_path, played_log())
    async with app.run_test(size=(80, 24)) as pilot:
        await calm(pilot)
        assert isinstance(app.screen, ResultDialog)
        await pilot.press("a")  # the next deal
        await calm(pilot)
        screen = app.screen
        assert not match.over and match.games_played == 1 and any(match.totals)
        for panel in screen.query(SeatPanel):
            if panel.display:
                total = f"Total {int(match.totals[panel.seat])}"
                assert total in region_text(app, panel).splitlines()[-1], panel.seat
        hand = screen.query_one("#hand")
        assert f"Total {int(match.totals[0])}" in region_text(app, hand).splitlines()[-1]


async def test_the_revealed_hands_at_the_end_show_every_card(tmp_path):
    app, match = make_app(tmp_path, played_log())
    async with app.run_test(size=(80, 24)) as pilot:
        await calm(pilot)
        assert isinstance(app.screen, ResultDialog)
        await pilot.press(ResultDialog.BOARD_KEY)  # look at the board
        await pilot.pause()
        table = app.screen_stack[-2]
        hands = match.state.hands
        assert max(len(hand) for hand in hands[1:]) >= 7  # long enough to have been cut before
        for panel in table.query(SeatPanel):
            if panel.seat != 0:
                shown = region_text(app, panel).split()
                assert all(card_label(card) in shown for card in hands[panel.seat]), panel.seat


async def test_a_hand_of_17_cards_shows_every_card(tmp_path):
    log = played_log(
        stop=lambda m: m.to_move() == 0 and len(m.state.hands[0]) >= 17,
        seat_zero=lambda m: "draw" if "draw" in m.legal_actions() else m.legal_actions()[0],
    )
    app, match = make_app(tmp_path, log)
    async with app.run_test(size=(80, 24)) as pilot:
        await calm(pilot)
        hand = match.view(0).hand
        assert len(hand) >= 17 and match.to_move() == 0
        shown = region_text(app, app.screen.query_one("#hand")).split()
        assert all(card_label(card) in shown for card in hand)


async def test_the_end_of_a_deal_is_titled_for_a_deal(tmp_path):
    app, _match = make_app(tmp_path, played_log())
    async with app.run_test(size=(80, 24)) as pilot:
        await calm(pilot)
        assert isinstance(app.screen, ResultDialog)
        assert app.screen.title_text == "End of the deal"


async def test_seat_titles_fit_again_at_once_after_a_resize(tmp_path):
    app, match = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await calm(pilot)
        panel = next(panel for panel in app.screen.query(SeatPanel) if panel.seat == 2)
        assert panel.border_title.endswith("…")  # 16 cells do not fit a quarter of 80 columns
        moves = len(match.log)
        await pilot.resize_terminal(120, 24)
        await pilot.pause()
        await pilot.pause()
        assert len(match.log) == moves and panel.border_title == NAMES[2]
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.pause()
        assert panel.border_title.endswith("…")


async def test_a_click_on_a_card_of_the_hand_plays_it(tmp_path):
    app, match = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await calm(pilot)
        hand = app.screen.query_one("#hand")
        row = region_text(app, hand).splitlines()[2]  # border, Draw, then the cards
        column = row.index(card_label(match.view(0).hand[0]))  # 5♠ matches the 5♣ on the table
        await pilot.click("#hand", offset=(column, 2))
        await calm(pilot)
        assert match.log[1].seat == 0 and match.log[1].action == "5S"
