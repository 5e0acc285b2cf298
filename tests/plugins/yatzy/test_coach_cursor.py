"""Yatzy's highlighted choice for the coach: the box under the cursor, or the re-roll of the dice held.

The coach's panel follows it as the player moves: the cost line names what the player is about to
do.  Yatzy's own advisor lives with its rules; here a plain one stands in (the screen code path is
the same for any advisor).
"""

from __future__ import annotations

import dataclasses

from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.sdk import Advice, AdviceUnit, AdvisorSpec, hookimpl
from gamenight.sdk.testing import make_room, wait_for_bots
from gamenight.ui.coach import CoachPanel
from gamenight_yatzy.rules import preview

YATZY = load_registry().game("yatzy")


class FaceValue:
    """Scores a box by its points now; a re-roll by the pips it keeps."""

    def advise(self, view, legal, ctx):
        boxes = preview(view.sheets[view.seat], view.dice, view.joker)
        advice = []
        for action in legal:
            kind, _, arg = action.partition(":")
            if kind == "score":
                from gamenight_yatzy.rules import BOXES

                advice.append(Advice(action, float(boxes.get(BOXES.index(arg), 0))))
            else:
                advice.append(
                    Advice(action, float(sum(d for d, held in zip(view.dice, arg, strict=True) if held == "1")))
                )
        return sorted(advice, key=lambda entry: -entry.value)


class CoachedYatzy:
    @hookimpl
    def register_games(self, register):
        register(
            dataclasses.replace(
                YATZY, advisor=AdvisorSpec(lambda r, s, o: FaceValue(), AdviceUnit("points", "points now"))
            )
        )


def cost_line(app) -> str:
    return str(app.screen.query_one("#coach-cost").render())


async def until(pilot, condition) -> None:
    for _ in range(1500):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError("never")


async def test_the_cost_line_follows_the_box_cursor_and_the_holds(tmp_path):
    registry = load_registry(extra_plugins={"yatzy": CoachedYatzy()}, entry_points=[])
    match = Match(registry.game("yatzy"), [SeatConfig("Ann")], {}, seed=1)
    app = make_room(registry, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        screen = app.screen
        assert screen.highlighted_action() is None  # not rolled yet: nothing to choose
        await pilot.press("space")
        await wait_for_bots(pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: "Your choice" in cost_line(app))
        panel, dice = screen.query_one(CoachPanel).region, screen.query_one("#dice").region
        assert panel.y >= dice.bottom and panel.bottom <= screen.query_one("#message").region.y  # dice in view
        box = screen.highlighted_action()
        assert box is not None and box.startswith("score:")
        assert "Your choice: Score " in cost_line(app)  # a choice, not the log's "Scores …"
        await pilot.press("down")
        await until(pilot, lambda: screen.highlighted_action() != box)
        moved = screen.highlighted_action()
        assert moved.startswith("score:")
        await until(pilot, lambda: screen.describe_choice(moved).rstrip(".") in cost_line(app))
        await pilot.press("1", "3")  # hold dice 1 and 3: the choice in hand is that re-roll
        assert screen.highlighted_action() == "roll:10100"
        await until(pilot, lambda: "Your choice: Keep " in cost_line(app))
        await pilot.press("up")  # back to the boxes
        assert screen.highlighted_action().startswith("score:")
