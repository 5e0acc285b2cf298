"""The plugin module named by the entry point: three hook implementations.

* ``register_games``  -- Goofspiel, a game of this package, with its coach (an advisor);
* ``register_bots``   -- a "cautious" bot for the built-in game ``yatzy``;
* ``register_themes`` -- the ``example-dusk`` theme (a TOML file in this package).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gamenight.sdk import (
    AdvisorSpec,
    BotSpec,
    GameInfo,
    Option,
    hookimpl,
    lazy_advisor,
    lazy_screen,
    read_help,
    read_translations,
)

from . import __version__
from .advisor import UNIT
from .bots import make_matcher, make_random
from .rules import DEFAULT_CARDS, MAX_SEATS, MIN_SEATS, GoofspielRules
from .yatzy_bot import make_cautious

GAMENIGHT_API = "1.4"
"""The gamenight SDK version this plugin is written for (see gamenight.sdk.API_VERSION)."""

HERE = Path(__file__).parent
THEME_FILE = HERE / "themes" / "example-dusk.toml"


GAME = GameInfo(
    id="goofspiel",
    title="Goofspiel",
    description="Bid your cards face down for prize cards; the highest single bid takes the prize.",
    rules=GoofspielRules(),
    min_seats=MIN_SEATS,
    max_seats=MAX_SEATS,
    default_seats=2,
    bots=(
        BotSpec("random", "Random", make_random, 0, "Bids any card."),
        BotSpec("matcher", "Matcher", make_matcher, 1, "Bids high cards on high prizes and low on low."),
    ),
    options=(
        Option(
            "cards",
            "Cards",
            DEFAULT_CARDS,
            kind="int",
            minimum=5,
            maximum=13,
            description="How many cards each hand and the prize pile hold (a shorter game with fewer).",
        ),
        Option(
            "carry",
            "Ties carry over",
            False,
            description="A tied round's prize stays in the pot for the next round instead of being discarded.",
        ),
    ),
    # The coach (SDK 1.2): the room's hint panel, its warning and the game review use it, no screen code.
    advisor=AdvisorSpec(lazy_advisor("gamenight_example.advisor:make_advisor"), UNIT),
    screen=lazy_screen("gamenight_example.screen:GoofspielScreen"),  # Textual only when a table opens
    help=read_help(HERE),
    translations=read_translations(HERE),  # locale/<lang>.toml, each read when its language is first wanted
    seat_names=("North", "East", "South", "West"),
    version=__version__,
    perfect_information=False,
    # The game's own CSS variables, named "<game id>-…", with defaults; game.tcss uses $goofspiel-pot-style
    # and any theme may set it in [variables] (a colour, or a text style for a name ending in "-style").
    theme_variables={"goofspiel-pot-style": "bold"},
)

CAUTIOUS_YATZY = BotSpec(
    "cautious",
    "Cautious (example plugin)",
    make_cautious,
    1,
    "Banks any made hand at once; otherwise keeps its most common face.",
    # Its label is shown in Yatzy's setup screen, so its texts join Yatzy's catalogue
    # (yatzy_texts/locale/<lang>.toml: a folder of their own, or they would count as a language here).
    translations=read_translations(HERE / "yatzy_texts"),
)


@hookimpl
def register_games(register: Callable[[GameInfo], None]) -> None:
    """Add Goofspiel."""
    register(GAME)


@hookimpl
def register_bots(register: Callable[[str, BotSpec], None]) -> None:
    """Add the cautious bot to the built-in Yatzy (with its own translations)."""
    register("yatzy", CAUTIOUS_YATZY)


@hookimpl
def register_themes(register: Callable[[Path], None]) -> None:
    """Add the example-dusk theme."""
    register(THEME_FILE)
