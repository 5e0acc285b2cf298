"""The LITS table in a real app: keys, mouse, the pie prompt, and SVG snapshots."""

from __future__ import annotations

import random
from pathlib import Path

from gamenight.app import GameNightApp
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.sdk import TERMINAL
from gamenight.sdk.testing import make_room
from gamenight.testing import screen_mounts, settle
from gamenight_lits.rules import PLACEMENTS, SWAP, LitsRules, Placement
from gamenight_lits.screen import LitsScreen
from gamenight_lits.widgets import ROW_LABEL, Board

REGISTRY = load_registry()
GAME = REGISTRY.games["lits"]
HOT_SEAT = [SeatConfig("Ann"), SeatConfig("Ben")]


def make_app(tmp_path: Path, seats: list[SeatConfig] = HOT_SEAT, log: list[str] = ()) -> tuple[GameNightApp, Match]:
    match = Match(GAME, list(seats), {"layout": "weave"}, seed=3)
    for action in log:
        match.apply(action)
    app = make_room(REGISTRY, tmp_path, bot_delay=0, start_match=match)
    return app, match


def board_offset(row: int, col: int) -> tuple[int, int]:
    """Where cell (row, col) is inside the Board widget (border 1, padding 1, header line)."""
    return 1 + 1 + ROW_LABEL + 2 * col, 1 + 1 + row


def finished_log(seed: int = 4) -> list[str]:
    rules, rng = LitsRules(), random.Random(seed)
    state, log = rules.new_game(2, {"layout": "weave"}), []
    while state.turn != TERMINAL:
        action = rng.choice(rules.legal_actions(state))
        log.append(action)
        state = rules.apply(state, action)
    return log


async def test_keys_steer_the_ghost_and_return_places_it(tmp_path: Path) -> None:
    app, match = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LitsScreen)
        await pilot.press("i", "right", "right", "down", "r", "f", "enter")
        await settle(pilot)
        assert [e.action for e in match.log] == [Placement("I", 5, 6, 1).action]
        assert match.state.pie_pending
        await pilot.press("o")  # Ben keeps ○ and places next
        await pilot.press("t", "down", "right", "r", "r", "enter")  # a T pointing up under the I
        await settle(pilot)
        assert match.log[-1].action == Placement("T", 6, 7, 0).rotated().rotated().action


async def test_the_mouse_moves_the_ghost_and_a_click_places_it(tmp_path: Path) -> None:
    app, match = make_app(tmp_path, log=["I:r0c0:o1", "keep"])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        target = next(PLACEMENTS[p] for p in match.state.legal if PLACEMENTS[p].shape == "L")
        while screen.orientation != target.orientation:
            await pilot.press("r")
        await pilot.hover(Board, offset=board_offset(target.row, target.col))
        assert screen.cursor == (target.row, target.col)
        await pilot.click(Board, offset=board_offset(target.row, target.col))
        await settle(pilot)
        assert match.log[-1].action == target.action
        assert match.to_move() == 0


async def test_the_ghost_names_the_broken_rule_and_an_illegal_place_changes_nothing(tmp_path: Path) -> None:
    app, match = make_app(tmp_path, log=["I:r0c0:o1", "keep"])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        verdict = app.screen.query_one("#verdict")
        assert "Rule 1" in str(verdict.render())  # the ghost at e5 touches nothing
        assert verdict.has_class("illegal")
        await pilot.press("enter")
        await settle(pilot)
        assert len(match.log) == 2
        message = app.screen.query_one("#message")
        assert message.has_class("error") and "Rule 1" in str(message.render())
        await pilot.press("i", *["up"] * 3, "left", "enter")  # a vertical I under (0,3): rule 3
        assert "Rule 3" in str(message.render())
        assert len(match.log) == 2


async def test_the_pie_prompt_buttons_answer_the_pie_rule(tmp_path: Path) -> None:
    app, match = make_app(tmp_path, log=["I:r0c0:o1"])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert match.state.pie_pending
        assert app.screen.query_one("#pie").display
        await pilot.press("enter")  # placing is refused until the pie question is answered
        assert len(match.log) == 1
        await pilot.click("#swap")
        await settle(pilot)
        assert match.log[1].action == SWAP
        assert match.state.marks(1) == match.state.x_marks
        assert not app.screen.query_one("#pie").display
        await pilot.press(*keys_to(0, 4), "enter")  # Ann, now ○, places next; Return still works after a click
        await settle(pilot)
        assert (match.log[-1].seat, match.log[-1].action) == (0, "L:r0c4:o0")


async def test_a_bot_answers_the_pie_rule_for_its_seat(tmp_path: Path) -> None:
    app, match = make_app(tmp_path, seats=[SeatConfig("You"), SeatConfig("Bot", "greedy")], log=["I:r0c0:o1"])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert match.log[1].action in (SWAP, "keep")
        assert not app.screen.query_one("#pie").display


async def test_tab_and_palette_clicks_select_only_shapes_still_left(tmp_path: Path) -> None:
    rules, log = LitsRules(), finished_log()
    state = rules.new_game(2, {"layout": "weave"})
    count = 0
    for action in log:
        count += 1
        state = rules.apply(state, action)
        if 0 in state.remaining and state.turn != TERMINAL:
            break
    available = {shape for shape, left in zip("LITS", state.remaining, strict=True) if left}
    assert len(available) < 4
    app, _match = make_app(tmp_path, log=log[:count])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        seen = set()
        for _ in range(4):
            await pilot.press("tab")
            seen.add(app.screen.shape)
        assert seen == available
        for shape in "LITS":
            await pilot.click(f"#chip-{shape.lower()}")
            assert app.screen.shape == shape if shape in available else app.screen.shape in available
        assert f"{app.screen.shape} on e5" in str(app.screen.query_one("#verdict").render())


async def test_scores_show_uncovered_marks_live(tmp_path: Path) -> None:
    app, match = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        scores = app.screen.query_one("#scores")
        assert "30" in str(scores.render())
        await pilot.press("enter")  # L at e5 covers marks
        await settle(pilot)
        text = str(scores.render())
        assert f"× {match.state.uncovered(0):>2}" in text and f"○ {match.state.uncovered(1):>2}" in text


# -- snapshots ------------------------------------------------------------------------


def keys_to(row: int, col: int, start: tuple[int, int] = (4, 4)) -> list[str]:
    """Arrow keys that take the cursor from ``start`` to (row, col)."""
    rows, cols = row - start[0], col - start[1]
    return ["down" if rows > 0 else "up"] * abs(rows) + ["right" if cols > 0 else "left"] * abs(cols)


def test_snapshot_board_with_a_legal_ghost(snap_compare, tmp_path: Path) -> None:
    app, match = make_app(tmp_path, log=["I:r0c0:o1", "keep", "L:r0c4:o0"])
    target = next(
        PLACEMENTS[p] for p in match.state.legal if PLACEMENTS[p].shape == "T" and not PLACEMENTS[p].orientation
    )
    assert snap_compare(app, press=["t", *keys_to(target.row, target.col)], terminal_size=(80, 24))


def test_snapshot_board_with_an_illegal_ghost(snap_compare, tmp_path: Path) -> None:
    app, _match = make_app(tmp_path, log=["I:r0c0:o1", "keep", "L:r0c4:o0"])
    assert snap_compare(app, press=["i", "up", "up", "up", "left"], terminal_size=(80, 24))


def test_snapshot_pie_prompt(snap_compare, tmp_path: Path) -> None:
    app, _match = make_app(tmp_path, log=["S:r2c4:o1"])
    assert snap_compare(app, terminal_size=(80, 24))


def test_snapshot_end_dialog(snap_compare, tmp_path: Path) -> None:
    app, _match = make_app(tmp_path, log=finished_log())
    assert snap_compare(app, terminal_size=(80, 24))


async def test_the_screen_opens_in_japanese_at_80x24() -> None:
    await screen_mounts(GAME, language="ja")


async def test_no_red_verdict_right_after_a_piece_is_placed(tmp_path: Path) -> None:
    """The ghost stays where the last piece went: until it is moved, that is no broken rule."""
    app, match = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("i", "right", "right", "down", "r", "f", "enter")  # placed
        await settle(pilot)
        await pilot.press("o")  # Ben keeps ○; the I's ghost still lies on Ann's I
        await settle(pilot)
        verdict = app.screen.query_one("#verdict")
        assert len(match.log) == 2 and match.to_move() == 1
        assert not verdict.has_class("illegal") and "overlaps" not in str(verdict.render())
        assert "free spot" in str(verdict.render())
        await pilot.press("down")  # moved: the verdict judges it again
        await pilot.press("up")
        assert verdict.has_class("illegal") and "overlaps" in str(verdict.render())
