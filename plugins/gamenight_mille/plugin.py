"""The Mille Bornes plugin: its :class:`~gamenight.sdk.GameInfo` and the hook that registers it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gamenight.hookspecs import hookimpl
from gamenight.i18n import load_catalogue_file
from gamenight.sdk import GameInfo, Option

from gamenight_mille.bots import BOTS
from gamenight_mille.rules import GAME_TARGET, MilleRules

if TYPE_CHECKING:  # pragma: no cover - typing only
    from gamenight.match import Match
    from textual.screen import Screen

_HERE = Path(__file__).parent


def _screen(match: Match) -> Screen:
    from gamenight_mille.screen import MilleScreen

    return MilleScreen(match)


GAME = GameInfo(
    id="mille",
    title="Mille Bornes",
    description="The race to exactly 700 miles, after BSD mille: hazards, remedies, safeties and coups fourrés.",
    rules=MilleRules(),
    min_seats=2,
    max_seats=2,
    default_seats=2,
    bots=BOTS,
    options=(
        Option(
            "target",
            "Game to",
            GAME_TARGET,
            kind="int",
            description="The overall total that ends the game at the end of a hand.",
            minimum=700,
            maximum=20000,
        ),
    ),
    screen=_screen,
    help={
        "en": (_HERE / "help" / "rules.en.md").read_text(encoding="utf-8"),
        "ja": (_HERE / "help" / "rules.ja.md").read_text(encoding="utf-8"),
    },
    translations={"ja": load_catalogue_file(_HERE / "locale" / "ja.toml")},
    seat_names=("You", "Computer"),
    version="1",
)


@hookimpl
def register_games(register) -> None:
    """Register Mille Bornes."""
    register(GAME)
