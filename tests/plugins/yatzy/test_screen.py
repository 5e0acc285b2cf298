"""The Yatzy table in a real app: whole games by key presses and clicks, and SVG snapshots."""

from __future__ import annotations

from pathlib import Path

from gamenight.app import GameNightApp
from gamenight.dialogs import ResultDialog
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.sdk import CHANCE
from gamenight.sdk.testing import make_room
from gamenight.testing import settle
from gamenight.widgets.score_table import ScoreTable
from gamenight_yatzy.dice import DiceRow
from gamenight_yatzy.rules import BOXES
from gamenight_yatzy.screen import SHEET_ROWS, YatzyScreen, ranking

REGISTRY = load_registry()
GAME = REGISTRY.games["yatzy"]


def make_app(
    tmp_path: Path, seats: list[SeatConfig], log=(), seed: int = 5, bot_delay: float = 0, options=None
) -> tuple[GameNightApp, Match]:
    match = Match(GAME, seats, dict(options or {}), seed=seed)
    match.replay(list(log))
    app = make_room(REGISTRY, tmp_path, bot_delay=bot_delay, start_match=match)
    return app, match


def human_actions(match: Match, seat: int = 0) -> list[str]:
    return [entry.action for entry in match.log if entry.seat == seat]


async def test_a_complete_solo_game_by_key_presses(tmp_path):
    app, match = make_app(tmp_path, [SeatConfig("Ann")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, YatzyScreen)
        # Round 1: roll, hold the first and third dice, roll the others, then score with Enter.
        await pilot.press("space")
        first = match.state.dice
        await pilot.press("1", "3", "space")
        assert match.log[-2].action == "roll:10100"
        assert (match.state.dice[0], match.state.dice[2]) == (first[0], first[2])
        assert screen.query_one("#dice", DiceRow).held == (True, False, True, False, False)
        await pilot.press("space")
        assert match.state.rolls == 3
        await pilot.press("space")  # no fourth roll
        assert match.state.rolls == 3
        await pilot.press("down", "up", "enter")
        assert sum(box is not None for box in match.state.sheets[0]) == 1
        assert screen.held == [False] * 5
        # The other twelve rounds: roll once and take the box under the cursor.
        for _round in range(12):
            await pilot.press("space", "enter")
        await settle(pilot)
        assert match.over
        assert None not in match.state.sheets[0]
        assert isinstance(app.screen, ResultDialog)
        assert str(screen.query_one("#turn-line").render()) == "Final ranking"


async def test_the_cursor_walks_only_over_boxes_the_dice_may_take(tmp_path):
    # Ann has filled Ones and Chance: the cursor skips them.
    log = [
        (0, "roll:00000"),
        (CHANCE, "dice:11111"),
        (0, "score:ones"),
        (0, "roll:00000"),
        (CHANCE, "dice:66543"),
        (0, "score:chance"),
        (0, "roll:00000"),
        (CHANCE, "dice:23456"),
    ]
    app, _match = make_app(tmp_path, [SeatConfig("Ann")], log)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.cursor == BOXES.index("large_straight")  # the best score is offered first
        seen = set()
        for _step in range(11):
            await pilot.press("down")
            seen.add(screen.cursor)
        assert seen == set(range(1, 12))
        table = screen.query_one("#sheet", ScoreTable)
        assert table.cursor_row == SHEET_ROWS.index(screen.cursor)


async def test_mouse_clicks_hold_dice_and_score_a_box(tmp_path):
    app, match = make_app(tmp_path, [SeatConfig("Ann")], [(0, "roll:00000"), (CHANCE, "dice:33456")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        dice = screen.query_one("#dice", DiceRow)
        await pilot.click(dice, offset=(2, 2))  # the first die
        await pilot.click(dice, offset=(14, 2))  # the third die
        await pilot.pause()
        assert screen.held == [True, False, True, False, False]
        for action in GAME.commands:  # the palette's commands are actions of this screen
            assert hasattr(screen, "action_" + action[2])
        await screen.run_action("release_all")
        assert screen.held == [False] * 5
        await pilot.click(dice, offset=(2, 2))
        await pilot.pause()
        assert screen.held == [True, False, False, False, False]
        table = screen.query_one("#sheet", ScoreTable)
        row = SHEET_ROWS.index(BOXES.index("small_straight"))
        line = next(y for y in range(40) if table.row_at(y) == row)
        await pilot.click(table, offset=(3, line))
        await pilot.pause()
        assert match.state.sheets[0][BOXES.index("small_straight")] == 30


async def test_a_two_seat_game_against_a_bot_keys_during_its_turn_are_refused(tmp_path):
    app, match = make_app(tmp_path, [SeatConfig("Ann"), SeatConfig("Bot 1", "greedy")], bot_delay=0.3)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        for round_number in range(13):
            assert match.to_move() == 0
            await pilot.press("space", "enter")
            if round_number == 0:  # the bot takes 0.3 s a move: press keys meanwhile
                assert match.bot_to_move() and screen.bot_thinking
                mine = len(human_actions(match))
                await pilot.press("space", "1", "enter")  # refused, never applied to the bot's turn
                assert len(human_actions(match)) == mine
                app.bot_delay = 0
            await settle(pilot)
        assert match.over
        assert all(None not in sheet for sheet in match.state.sheets)
        assert isinstance(app.screen, ResultDialog)
        totals = list(match.rules.current_scores(match.state))
        text = str(screen.query_one("#events").render())
        first = ranking(totals)[0][1]
        assert text.startswith(f"1. {match.seats[first].name} — {int(totals[first])}")


def test_ranking_shares_places_on_a_tie():
    assert ranking([200, 250, 200, 100]) == [(1, 1), (2, 0), (2, 2), (4, 3)]


# -- snapshots -------------------------------------------------------------------------------------

FOUR_SEATS = [
    SeatConfig("Ann"),
    SeatConfig("Urd", "greedy"),
    SeatConfig("Skuld", "greedy"),
    SeatConfig("Bel", "random"),
]
ROUND_ONE = [
    (0, "roll:00000"),
    (CHANCE, "dice:55555"),
    (0, "score:yatzy"),
    (1, "roll:00000"),
    (CHANCE, "dice:12345"),
    (1, "score:large_straight"),
    (2, "roll:00000"),
    (CHANCE, "dice:22333"),
    (2, "score:full_house"),
    (3, "roll:00000"),
    (CHANCE, "dice:64641"),
    (3, "score:chance"),
    (0, "roll:00000"),
    (CHANCE, "dice:66664"),
    (0, "roll:11110"),
    (CHANCE, "dice:66666"),
]


def test_snapshot_four_seats_with_a_yatzy_bonus_to_take(snap_compare, tmp_path):
    app, _match = make_app(tmp_path, FOUR_SEATS, ROUND_ONE)
    assert snap_compare(app, press=["2", "4"], terminal_size=(80, 24))


def test_snapshot_joker_rule_limits_the_boxes(snap_compare, tmp_path):
    log = [
        (0, "roll:00000"),
        (CHANCE, "dice:44444"),
        (0, "score:yatzy"),
        (0, "roll:00000"),
        (CHANCE, "dice:44441"),
        (0, "score:fours"),
        (0, "roll:00000"),
        (CHANCE, "dice:44444"),
    ]
    app, _match = make_app(tmp_path, [SeatConfig("Ann")], log, options={"joker": True})
    assert snap_compare(app, terminal_size=(80, 24))


def test_snapshot_eight_seats_scroll_sideways(snap_compare, tmp_path):
    seats = [SeatConfig("Ann")] + [SeatConfig(f"Bot {i}", "greedy") for i in range(1, 8)]
    app, _match = make_app(tmp_path, seats, [(0, "roll:00000"), (CHANCE, "dice:13456")])
    assert snap_compare(app, terminal_size=(80, 24))


def test_snapshot_in_japanese(snap_compare, tmp_path):
    from gamenight.i18n import register_catalogue, set_language

    register_catalogue("yatzy", GAME.translations)
    set_language("ja")
    try:
        app, _match = make_app(tmp_path, FOUR_SEATS, ROUND_ONE)
        assert snap_compare(app, press=["2"], terminal_size=(80, 24))
    finally:
        set_language("en")


def shown_text(app, widget) -> str:
    """The characters the screen shows inside ``widget``'s region."""
    region = widget.region
    strips = app.screen._compositor.render_strips()
    return "\n".join(strip.text[region.x : region.right] for strip in strips[region.y : region.bottom])


async def test_the_move_log_shows_its_newest_line_at_80x24(tmp_path):
    seats = [SeatConfig("Ann"), SeatConfig("Bot 1", "greedy"), SeatConfig("Bot 2", "greedy")]
    app, _match = make_app(tmp_path, seats)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        for _round in range(3):
            await pilot.press("space", "enter")
            await settle(pilot)
            await pilot.pause()
            newest = screen.events[-1]
            assert newest.startswith("Bot 2: ")  # long lines before it wrap: the log outgrows its room
            shown = " ".join(shown_text(app, screen.query_one("#events")).split())
            assert shown.endswith(" ".join(newest.split())), shown


async def test_every_box_has_a_letter_key_shown_on_the_sheet_as_the_help_promises(tmp_path):
    """The help says "press its letter (a–m, shown before its name)": it is so."""
    from gamenight_yatzy.screen import BOX_KEYS

    assert "**a**–**m**" in GAME.help["en"] and "**a**〜**m**" in GAME.help["ja"]
    app, match = make_app(tmp_path, [SeatConfig("Ann")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        sheet = app.screen.query_one("#sheet", ScoreTable)
        labels = [row.label for row in sheet.rows]
        assert [label.split()[0] for label in labels if label[1] == " " and label[0] != " "] == list(BOX_KEYS)
        # every letter scores its own box, in an order unlike the sheet's
        for key in "mgaldkcfjbihe":
            await pilot.press("space")
            await pilot.press(key)
            await settle(pilot)
            assert match.log[-1].action == "score:" + BOXES[BOX_KEYS.index(key)], key
        assert match.over
