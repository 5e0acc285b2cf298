"""The Yatzy plugin: its :class:`~gamenight.sdk.GameInfo` and the hook that registers it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from gamenight.sdk import (
    AdviceUnit,
    AdvisorSpec,
    BotSpec,
    GameInfo,
    Option,
    hookimpl,
    lazy_advisor,
    lazy_bot,
    lazy_screen,
    read_help,
    read_translations,
)

from gamenight_yatzy.fast import FastYatzyRules
from gamenight_yatzy.rules import MAX_SEATS, MIN_SEATS

GAMENIGHT_API = "1.4"
"""The gamenight SDK version this plugin is written for (see gamenight.sdk.API_VERSION)."""

_HERE = Path(__file__).parent


def _prepare_optimal(options: Mapping[str, Any], progress: Callable[[float], None]) -> None:
    """Load, or build once with progress, the optimal bot's table for these rules."""
    from gamenight_yatzy import strategy

    strategy.load_table(bool(options.get("joker", False)), progress)


BOTS = (
    BotSpec(
        "random",
        "Random",
        lazy_bot("gamenight_yatzy.bots:random_bot"),
        strength=0,
        description="Rolls and scores at random.",
    ),
    BotSpec(
        "greedy",
        "Greedy",
        lazy_bot("gamenight_yatzy.bots:greedy_bot"),
        strength=1,
        description="Chases the most common face or a straight; scores the best-looking box.",
    ),
    BotSpec(
        "optimal",
        "Optimal",
        lazy_bot("gamenight_yatzy.bots:optimal_bot"),
        strength=2,
        description="Maximises its expected score exactly (solitaire dynamic programming).",
        prepare=_prepare_optimal,
    ),
)

ADVISOR = AdvisorSpec(
    lazy_advisor("gamenight_yatzy.advisor:yatzy_advisor"),
    AdviceUnit("points", "expected final score", digits=1),
    exact=True,
    prepare=_prepare_optimal,
)
"""The coach: every hold and box valued by the optimal table (gamenight_yatzy.advisor)."""

GAME = GameInfo(
    id="yatzy",
    title="Yatzy",
    description="Five dice, three rolls, thirteen boxes: fill the score sheet, 1-8 players.",
    rules=FastYatzyRules(),
    min_seats=MIN_SEATS,
    max_seats=MAX_SEATS,
    default_seats=2,
    bots=BOTS,
    options=(
        Option(
            "joker",
            "Joker rule",
            False,
            description="Official Hasbro joker: a further Yatzy must fill its upper box, else scores "
            "Full House or a straight in full.",
        ),
    ),
    screen=lazy_screen("gamenight_yatzy.screen:YatzyScreen"),
    help=read_help(_HERE),
    translations=read_translations(_HERE),
    seat_names=("You", "Bot 1", "Bot 2", "Bot 3", "Bot 4", "Bot 5", "Bot 6", "Bot 7"),
    perfect_information=True,
    commands=(  # the table's keys (Roll, Hold, Score) are palette commands of their own
        ("Release all dice", "Hold no dice for the next roll", "release_all"),
    ),
    version="1",
    advisor=ADVISOR,
)


@hookimpl
def register_games(register) -> None:
    """Register Yatzy."""
    register(GAME)
