"""The tour (tests/core/tour.py): every installed game's screens at 80×24, in English and in Japanese.

One room per language visits the room's own messages and dialogs, then every
game's setup, table, help, dialogs and end dialog in sequence, so a style leaked
by one game shows on the next (tests/core/walks.py: each walk also measures a
theme's contrast for tests/core/test_contrast.py -- the English one the default
theme's, the Japanese one the high-contrast theme's).  Each
stop is a test of its own, so that a known defect can be marked on exactly
the screens it spoils.
"""

from __future__ import annotations

import asyncio

import pytest
from gamenight.plugins import load_registry

from tests.core.tour import EXTRAS, control_problems, game_order, name_problems, text_problems
from tests.core.walks import tour

REGISTRY = load_registry()
LANGUAGES = ("en", "ja")
ITEM_8 = "Japanese screens whole and translated"
INTERLUDES = {"mille", "mate"}
"""Built-in games with an end-of-hand pause (a seeded random playout reaches it)."""
KNOWN: dict[tuple[str, str], str] = {}
"""Stops expected to fail, as strict xfails: (language, stop) -> why.  Empty: every screen passes."""


def expected_stops() -> list[str]:
    """Every stop the tour must reach, from what the installed games declare."""
    stops = ["room/lobby", "room/notifications", "room/settings-error", "room/setup-error", "room/plugins"]
    stops.append("room/cannot-resume")
    for game in game_order(REGISTRY):
        names = ["setup", "table", "help", "leave", "save"]
        if game.id in EXTRAS:
            names.append({"mille": "really", "seven": "suit"}[game.id])
        if not game.perfect_information:
            names.append("handover")
        if game.id in INTERLUDES:
            names.append("interlude")
        names += ["end", "board"]
        stops += [f"{game.id}/{name}" for name in names]
    stops += ["room/records", "room/records-plot"]
    return stops


def cases():
    for language in LANGUAGES:
        for stop in expected_stops():
            reason = KNOWN.get((language, stop))
            marks = [pytest.mark.xfail(strict=True, reason=f"{ITEM_8}: {reason}")] if reason else []
            # one worker takes every stop of a language, so each language's tour runs once -- and
            # the two languages' tours run side by side in two workers
            marks.append(pytest.mark.xdist_group(f"tour-{language}"))
            yield pytest.param(language, stop, marks=marks, id=f"{language}-{stop}")


@pytest.mark.parametrize(("language", "stop"), list(cases()))
def test_every_screen_shows_its_controls_and_text_whole(language, stop):
    walk = tour(language)
    assert walk.layout, f"the {language} tour checks no layout"
    findings = walk.findings
    assert stop in findings, f"the tour never reached {stop} (reached: {sorted(findings)})"
    assert findings[stop] == [], f"{language} {stop}:\n" + "\n".join(findings[stop])


# -- the checks themselves can fail ---------------------------------------------------------------


def test_a_cut_seat_name_is_found_and_a_whole_one_is_not():
    assert name_problems(["あなた コンピュ"], ["あなた", "コンピュータ"])
    assert name_problems(["Cape…  Sack…"], ["Capellen", "Sackson"])
    assert not name_problems(
        ["あなた コンピュータ", "Capellen · Sackson", "No (n)"], ["あなた", "コンピュータ", "Capellen", "North"]
    )


def test_a_button_below_the_screen_and_text_cut_by_its_box_are_found():
    from textual.app import App
    from textual.containers import Vertical
    from textual.widgets import Button, Static

    class Squeezed(App):
        CSS = "#box { height: 4; overflow: hidden; } #text { height: 1; }"

        def compose(self):
            with Vertical(id="box"):
                yield Static("one\ntwo\nthree\nfour\nfive\nsix", id="lines")
                yield Button("Hidden")
            yield Static("a line that wraps " * 8, id="text")

    async def run():
        app = Squeezed()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            return control_problems(app.screen), text_problems(app.screen)

    controls, texts = asyncio.run(run())
    assert any("Hidden" in problem for problem in controls), controls
    assert any("Static#lines is cut" in problem for problem in texts), texts
    assert any("Static#text needs" in problem for problem in texts), texts
