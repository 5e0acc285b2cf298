"""The Mille Bornes plugin: its :class:`~gamenight.sdk.GameInfo` and the hook that registers it."""

from __future__ import annotations

from pathlib import Path

from gamenight.hookspecs import hookimpl
from gamenight.sdk import GameInfo, Option, lazy_screen, read_help, read_translations

from gamenight_mille.bots import BOTS
from gamenight_mille.fast import FastMilleRules
from gamenight_mille.rules import GAME_TARGET

GAMENIGHT_API = "1.0"
"""The gamenight SDK version this plugin is written for (see gamenight.sdk.API_VERSION)."""

_HERE = Path(__file__).parent



GAME = GameInfo(
    id="mille",
    title="Mille Bornes",
    description="The race to exactly 700 miles, after BSD mille: hazards, remedies, safeties and coups fourrés.",
    rules=FastMilleRules(),
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
    screen=lazy_screen("gamenight_mille.screen:MilleScreen"),
    help=read_help(_HERE),
    translations=read_translations(_HERE),
    seat_names=("You", "Computer"),
    version="1",
)


@hookimpl
def register_games(register) -> None:
    """Register Mille Bornes."""
    register(GAME)
