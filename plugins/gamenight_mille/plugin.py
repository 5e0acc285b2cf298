"""The Mille Bornes plugin: its :class:`~gamenight.sdk.GameInfo` and the hook that registers it."""

from __future__ import annotations

from pathlib import Path

from gamenight.sdk import (
    AdviceUnit,
    AdvisorSpec,
    GameInfo,
    Option,
    hookimpl,
    lazy_advisor,
    lazy_screen,
    read_help,
    read_translations,
)

from gamenight_mille.bots import BOTS
from gamenight_mille.fast import FastMilleRules
from gamenight_mille.rules import GAME_TARGET

GAMENIGHT_API = "1.4"
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
    commands=(  # Mille reads its keys itself (as BSD mille): the palette gets them from here
        ("Pick a card (P)", "Draw the top card of the deck", "pick"),
        ("Use a card (U)", "Choose a card to play: its key (P, 1-6), then Return", "use"),
        ("Discard a card (D)", "Choose a card to throw away: its key (P, 1-6), then Return", "discard"),
        ("Order the hand (O)", "Show the hand sorted by card, or as dealt", "order"),
        ("Toggle the score window (W)", "The full score window with the bonus rows, or the small one", "window"),
        ("Redraw (R)", "Draw the whole screen again", "redraw"),
        ("Quit (Q)", 'Leave the table after "Really?"', "quit"),
    ),
    version="1",
    advisor=AdvisorSpec(  # determinized playouts of the expert to the end of the hand (advisor.py)
        factory=lazy_advisor("gamenight_mille.advisor:make_advisor"),
        unit=AdviceUnit("chance", "chance of winning the game"),
    ),
)


@hookimpl
def register_games(register) -> None:
    """Register Mille Bornes."""
    register(GAME)
