"""A seat's name of 14 cells (within the 16 a name may take) is whole in its panel's title at 80x24."""

from __future__ import annotations

import pytest
from gamenight.i18n import set_language
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.sdk.testing import make_room
from gamenight.testing import settle
from gamenight_seven.widgets import SeatPanel

from tests.core.tour import screen_text

REGISTRY = load_registry()


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_a_long_name_is_whole_in_the_panel_title_with_five_seats(tmp_path, language):
    set_language(language)
    name = "ベルダンディー"  # 14 cells
    seats = [SeatConfig("You")] + [SeatConfig(name, "random") for _ in range(4)]
    app = make_room(REGISTRY, tmp_path, start_match=Match(REGISTRY.game("seven"), seats, {}, seed=1))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        panels = [panel for panel in app.screen.query(SeatPanel) if panel.display]
        assert len(panels) == 4 and all(panel.border_title == name for panel in panels)
        assert "\n".join(screen_text(app)).count(f"─ {name} ─") == 4
