"""The tours the suite takes through the room, each taken once per test process and shared.

The English tour is also the contrast walk of the room's default theme: one room checks layout
(tests/core/test_tour.py) and WCAG contrast (tests/core/test_contrast.py) at the same stops, so
the suite walks every game's screens once for both -- the tests that read one walk share an
xdist group, so one worker takes it.  The Japanese tour checks layout only; each other theme has
a contrast walk of its own.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from gamenight.plugins import load_registry
from gamenight.themes import load_themes

from tests.core.contrast import AA, TANGO, XTERM, low_contrast_text
from tests.core.tour import Findings, Tour, walk

REGISTRY = load_registry()
EXAMPLE_THEME = Path(__file__).parents[2] / "examples/gamenight-example/src/gamenight_example/themes/example-dusk.toml"
THEMES = load_themes([EXAMPLE_THEME])
"""Every shipped theme, and the example plugin's."""
DEFAULT_THEME = "gamenight"


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
            assert "Keep all cards" in str(self.app.screen.query_one("#keep-all").render())
        for palette_name, palette in self.palettes.items():
            problems = low_contrast_text(self.app, palette, AA)
            if problems:
                self.contrast.setdefault(f"{game_id}/{stop} [{palette_name}]", []).extend(problems)


_WALKS: dict[tuple[str, str], Tour] = {}


def tour(language: str, theme: str = DEFAULT_THEME) -> Tour:
    """The room's tour in ``language`` wearing ``theme``, with the room's own stops first (taken once
    per process): English tours measure contrast too (a :class:`ContrastTour`); the layout checks
    run in the default theme's tours."""
    key = (language, theme)
    if key not in _WALKS:
        layout = theme == DEFAULT_THEME

        def make(app: Any, pilot: Any, language: str) -> Tour:
            if language == "en":
                return ContrastTour(app, pilot, language, layout=layout)
            return Tour(app, pilot, language)

        _WALKS[key] = asyncio.run(walk(language, REGISTRY, make=make, theme=THEMES.themes[theme], room_stops=True))
    return _WALKS[key]
