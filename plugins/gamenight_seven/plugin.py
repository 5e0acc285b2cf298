"""The SEVEN plugin: its :class:`~gamenight.sdk.GameInfo` and the hook that registers it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gamenight.hookspecs import hookimpl
from gamenight.i18n import load_catalogue_file
from gamenight.sdk import GameInfo

from gamenight_seven.bots import BOTS
from gamenight_seven.rules import SevenRules

if TYPE_CHECKING:  # pragma: no cover - typing only
    from gamenight.match import Match
    from textual.screen import Screen

_HERE = Path(__file__).parent

SEAT_NAMES = ("You", "Urd", "Belldandy", "Skuld", "Marller")
"""The original's five seats (RULES §2 Seats); the shell renames them from ``[seven] player.N``."""


def _screen(match: Match) -> Screen:
    from gamenight_seven.screen import SevenScreen

    return SevenScreen(match)


GAME = GameInfo(
    id="seven",
    title="SEVEN",
    description="Shed your hand first: match suit or rank; 7s make the next seat draw, Aces skip, Queens call.",
    rules=SevenRules(),
    min_seats=2,
    max_seats=5,
    default_seats=5,
    bots=BOTS,
    screen=_screen,
    help={
        "en": (_HERE / "help" / "rules.en.md").read_text(encoding="utf-8"),
        "ja": (_HERE / "help" / "rules.ja.md").read_text(encoding="utf-8"),
    },
    translations={"ja": load_catalogue_file(_HERE / "locale" / "ja.toml")},
    seat_names=SEAT_NAMES,
    version="1",
)


@hookimpl
def register_games(register) -> None:
    """Register SEVEN."""
    register(GAME)
