"""The SEVEN plugin: its :class:`~gamenight.sdk.GameInfo` and the hook that registers it."""

from __future__ import annotations

from pathlib import Path

from gamenight.sdk import (
    AdviceUnit,
    AdvisorSpec,
    GameInfo,
    hookimpl,
    lazy_advisor,
    lazy_screen,
    read_help,
    read_translations,
)

from gamenight_seven.bots import BOTS
from gamenight_seven.fast import FastSevenRules

GAMENIGHT_API = "1.4"
"""The gamenight SDK version this plugin is written for (see gamenight.sdk.API_VERSION)."""

_HERE = Path(__file__).parent

SEAT_NAMES = ("You", "Urd", "Belldandy", "Skuld", "Marller")
"""The original's five seats (docs/rules/seven.md 1.1); the shell renames them from ``[seven] player.N``."""


GAME = GameInfo(
    id="seven",
    title="SEVEN",
    description="Shed your hand first: match suit or rank; 7s make the next seat draw, Aces skip, Queens call.",
    rules=FastSevenRules(),
    min_seats=2,
    max_seats=5,
    default_seats=5,
    bots=BOTS,
    screen=lazy_screen("gamenight_seven.screen:SevenScreen"),
    help=read_help(_HERE),
    translations=read_translations(_HERE),
    seat_names=SEAT_NAMES,
    version="1",
    advisor=AdvisorSpec(  # determinized playouts from the posterior's deals (advisor.py)
        factory=lazy_advisor("gamenight_seven.advisor:make_advisor"),
        unit=AdviceUnit("chance", "chance of winning the game"),
    ),
)


@hookimpl
def register_games(register) -> None:
    """Register SEVEN."""
    register(GAME)
