"""The tours the suite takes through the room, each taken once per test process and shared.

Each language's tour is also the contrast walk of one theme: one room checks layout
(tests/core/test_tour.py) and WCAG contrast (tests/core/test_contrast.py) at the same stops, so
the suite walks every game's screens once for both -- the tests that read one walk share an
xdist group, so one worker takes it.  The English tour wears the room's default theme, the
Japanese tour the high-contrast one (a theme sets colours only, and the contrast of a text run
depends on its colours, not on its words); each other theme has an English contrast walk of its own.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from gamenight.i18n import translator
from gamenight.plugins import load_registry
from gamenight.themes import load_themes

from tests.core.contrast import AA, TANGO, XTERM, low_contrast_text
from tests.core.tour import Findings, Tour, walk

REGISTRY = load_registry()
EXAMPLE_THEME = Path(__file__).parents[2] / "examples/gamenight-example/src/gamenight_example/themes/example-dusk.toml"
THEMES = load_themes([EXAMPLE_THEME])
"""Every shipped theme, and the example plugin's."""
DEFAULT_THEME = "gamenight"
LAYOUT_THEMES = {"en": DEFAULT_THEME, "ja": "gamenight-contrast"}
"""Language -> the theme its layout tour wears (that walk measures the theme's contrast too)."""


def contrast_language(theme: str) -> str:
    """The language of the walk that measures ``theme``'s contrast: a layout tour's if one wears it."""
    return next((language for language, worn in LAYOUT_THEMES.items() if worn == theme), "en")


class ContrastTour(Tour):
    """The tour, measuring contrast at each stop too (``layout=False``: contrast only)."""

    def __init__(self, app: Any, pilot: Any, language: str, layout: bool = True) -> None:
        super().__init__(app, pilot, language)
        self.layout = layout
        current = app.current_theme
        self.palettes = {"xterm.js": TANGO, "xterm": XTERM} if current.ansi else {"room": app.ansi_theme}
        self.contrast: Findings = {}
        """``"game/stop [palette]"`` -> text runs below AA there (only stops with some)."""

    def check(self, game_id: str, stop: str, expect: type | None = None) -> None:
        if self.layout:
            super().check(game_id, stop, expect)
        else:
            self.findings.setdefault(f"{game_id}/{stop}", [])  # visited (its layout is checked elsewhere)
        if (game_id, stop) == ("mate", "table"):  # the button the review names is on the screen measured
            assert translator("mate")("Keep all cards (N)") in str(self.app.screen.query_one("#keep-all").render())
        for palette_name, palette in self.palettes.items():
            problems = low_contrast_text(self.app, palette, AA)
            if problems:
                self.contrast.setdefault(f"{game_id}/{stop} [{palette_name}]", []).extend(problems)


_WALKS: dict[tuple[str, str], ContrastTour] = {}


def tour(language: str, theme: str | None = None) -> ContrastTour:
    """The room's tour in ``language`` wearing ``theme`` (default: the language's layout theme), with
    the room's own stops first (taken once per process), measuring the theme's contrast at each stop;
    the layout checks run in the tour that wears the language's :data:`LAYOUT_THEMES` theme."""
    theme = theme or LAYOUT_THEMES[language]
    key = (language, theme)
    if key not in _WALKS:
        layout = LAYOUT_THEMES.get(language) == theme

        def make(app: Any, pilot: Any, language: str) -> Tour:
            return ContrastTour(app, pilot, language, layout=layout)

        _WALKS[key] = asyncio.run(walk(language, REGISTRY, make=make, theme=THEMES.themes[theme], room_stops=True))
    return _WALKS[key]
