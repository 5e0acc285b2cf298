"""Every shipped theme meets WCAG AA (4.5:1) for text on its background, on every kind of screen.

One room per theme (tests/core/walks.py; the default theme's is the English
tour of tests/core/test_tour.py and the high-contrast theme's the Japanese tour,
so one walk serves both) visits the lobby,
notifications of each severity, the settings and setup with their error
messages, the plugins list and a "cannot resume" message -- then takes the
tour of tests/core/tour.py through every built-in game (setup, table with Mate's "Keep all cards", help, leave and save
dialogs, Mille's "Really?", SEVEN's suit dialog, hand-over, end-of-hand, end
dialog, the board behind it).  ``tests/core/contrast.py`` reads the colours of
every text run from the composited screen.  Truecolour themes are measured as
drawn (their ANSI colours, e.g. a Rich ``red``, through the room's ANSI palette);
ANSI themes in the palettes of xterm.js (the browser) and xterm.  Inactive
controls (disabled, a used-up LITS piece) are exempt, as in WCAG 1.4.3.
"""

from __future__ import annotations

import pytest

from tests.core.walks import LAYOUT_THEMES, THEMES, ContrastTour, contrast_language, tour

LITS_ANSI = (
    "LITS's board draws its marks and ghost in the terminal's default colour (white as text) on "
    "ANSI-coloured pieces; the board's look belongs to LITS"
)
SEVEN_DIM = (
    "SEVEN dims the cards you cannot play now -- inactive choices, which WCAG 1.4.3 exempts -- and dim "
    "red falls to 1.9-3.5:1 on its hand; nothing else on the table is below 4.5:1"
)
KNOWN = {
    ("gamenight-16", "lits/table"): LITS_ANSI,
    ("gamenight-16", "lits/board"): LITS_ANSI,
    **{
        (theme, "seven/table"): SEVEN_DIM
        for theme in ("gamenight", "gamenight-16", "gamenight-contrast", "example-dusk")
    },
}
"""Stops known to fail, with the reason: they must still fail (so the entry is removed when fixed)."""


def test_every_shipped_theme_is_measured():
    assert THEMES.errors == []
    assert set(THEMES.themes) == {"gamenight", "gamenight-16", "gamenight-contrast", "example-dusk"}


def themes():
    for theme in sorted(THEMES.themes):
        # a language tour's walk (tests/core/test_tour.py) measures this theme: the same worker
        language = contrast_language(theme)
        marks = [pytest.mark.xdist_group(f"tour-{language}")] if LAYOUT_THEMES[language] == theme else []
        yield pytest.param(theme, marks=marks, id=theme)


@pytest.mark.parametrize("theme", list(themes()))
def test_text_meets_wcag_aa_on_every_screen(theme):
    walk = tour(contrast_language(theme), theme)
    assert isinstance(walk, ContrastTour)
    assert "mate/table" in walk.findings and "room/cannot-resume" in walk.findings, "the walk stopped short"
    found = walk.contrast
    known = {stop for stop in found if (theme, stop.split(" [")[0]) in KNOWN}
    assert {stop: problems for stop, problems in found.items() if stop not in known} == {}
    for (known_theme, stop), reason in KNOWN.items():
        if known_theme == theme:
            assert any(found_stop.startswith(f"{stop} [") for found_stop in found), f"fixed? {stop}: {reason}"
