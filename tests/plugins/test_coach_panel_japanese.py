"""Every built-in game's coach panel in Japanese at 80×24: every line of it on the screen, whole.

The panel lies on a layer over the table.  Textual's compositor cuts each line of the screen at
the edges of every widget, those beneath the panel included, and a wide (2-cell) character that
straddled such a cut came out as two spaces: the panel's Japanese lost characters where a
table's widget began or ended beneath it (``gamenight.compat.textual_internals.
keep_wide_characters_whole``).  Here the real ``?`` key opens each game's panel with its real
coach, and the screen as composited must show each line the panel's widgets draw, character for
character.
"""

from __future__ import annotations

import pytest
from gamenight.i18n import set_language
from gamenight.plugins import load_registry
from gamenight.sdk.testing import make_room, wait_for_bots
from gamenight.ui.coach import CoachPanel
from rich.cells import cell_len
from textual.geometry import Region

from tests.core.tour import new_match, screen_text

REGISTRY = load_registry()
BUILT_IN = ("lits", "mate", "mille", "seven", "yatzy")


@pytest.fixture
def japanese():
    set_language("ja")
    yield
    set_language("en")


async def until(pilot, condition, rounds: int = 1200) -> None:
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause(0.025)
    raise AssertionError("the condition never held")


def drawn_lines(widget) -> list[str]:
    """The lines ``widget`` draws itself (before the compositor), wide characters whole."""
    region = widget.region
    return [strip.text.rstrip() for strip in widget.render_lines(Region(0, 0, region.width, region.height))]


def missing_from_screen(app) -> list[str]:
    """The panel's drawn lines (each with a wide character) that the screen does not show whole."""
    shown = screen_text(app)
    panel = app.screen.query_one(CoachPanel)
    missing = []
    for widget in [panel, *panel.query("Static")]:
        if not widget.display:
            continue
        top = widget.region.y
        for row, line in enumerate(drawn_lines(widget)):
            text = line.strip("│╭╮╰╯─ ")  # the panel's own border around its title
            if cell_len(text) == len(text):  # no wide character: nothing to lose
                continue
            if text not in shown[top + row]:
                missing.append(f"row {top + row}: {text!r} not in {shown[top + row]!r}")
    return missing


@pytest.mark.parametrize("game_id", BUILT_IN)
async def test_the_panels_japanese_is_whole_on_the_screen_at_80x24(japanese, tmp_path, game_id):
    game = REGISTRY.game(game_id)
    match = new_match(game)
    app = make_room(REGISTRY, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        first_move = {"yatzy": "space", "mille": "p"}.get(game_id)
        if first_move:  # a first roll, a first draw: then there are choices (and more rows to the panel)
            await pilot.press(first_move)
            await wait_for_bots(pilot)
        screen = app.screen
        panel = screen.query_one(CoachPanel)
        await pilot.press("question_mark")
        await until(pilot, lambda: bool(str(panel.query_one("#coach-choices").render()).strip()))
        await pilot.pause()
        assert panel.shown and panel.region.x > 0  # over the table's right side
        choices = str(panel.query_one("#coach-choices").render())
        assert any(cell_len(line) != len(line) for line in choices.splitlines()), choices  # Japanese words
        assert missing_from_screen(app) == []


async def test_mates_choices_say_win_lose_or_draw_within_the_panels_width(japanese, tmp_path):
    """Mate's value is an outcome ("win in 9, +63"), the verdict first: in Japanese it came last, and
    when the value column was cut to its first cells ("9 ムーブで…") a winning and a losing choice read
    the same.  (The column now shows the value whole: tests/plugins/mate/test_screen.py.)"""
    app = make_room(REGISTRY, tmp_path, start_match=new_match(REGISTRY.game("mate")))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_bots(pilot)
        panel = app.screen.query_one(CoachPanel)
        await pilot.press("question_mark")
        await until(pilot, lambda: bool(str(panel.query_one("#coach-choices").render()).strip()))
        await pilot.pause()
        rows = [line for line in str(panel.query_one("#coach-choices").render()).splitlines() if line.strip()]
        assert len(rows) >= 2, rows
        for row in rows:
            assert any(verdict in row for verdict in ("勝ち", "負け", "引き分け")), rows
