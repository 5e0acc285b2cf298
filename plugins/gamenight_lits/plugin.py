"""Battle of LITS registered with gamenight: the GameInfo and its hook."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gamenight.sdk import (
    AdviceUnit,
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

from .bots import make_expert, make_greedy, make_random
from .rules import DEFAULT_LAYOUT, LAYOUTS, RANDOM_LAYOUT, LitsRules

GAMENIGHT_API = "1.4"
"""The gamenight SDK version this plugin is written for (see gamenight.sdk.API_VERSION)."""

_HERE = Path(__file__).parent

_LAYOUT_LABELS = {
    "weave": "Weave",
    "fortress": "Fortress",
    "rivers": "Rivers",
    "scatter": "Scatter",
}


GAME = GameInfo(
    id="lits",
    title="Battle of LITS",
    description="Place L, I, T and S tetrominoes to cover your opponent's marks and keep your own.",
    rules=LitsRules(),
    min_seats=2,
    max_seats=2,
    default_seats=2,
    bots=(
        BotSpec("random", "Random", make_random, 0, "Places any legal piece."),
        BotSpec("greedy", "Greedy", make_greedy, 1, "Takes the best immediate score difference."),
        BotSpec("expert", "Expert", make_expert, 2, "Searches ahead and guards marks no piece can reach."),
    ),
    options=(
        Option(
            "layout",
            "Layout",
            DEFAULT_LAYOUT,
            kind="choice",
            description="Where the × and ○ marks start (every layout is point-symmetric).",
            choices=(
                *((name, _LAYOUT_LABELS[name]) for name in LAYOUTS),
                (RANDOM_LAYOUT, "Random (from the seed)"),
            ),
        ),
    ),
    screen=lazy_screen("gamenight_lits.screen:LitsScreen"),
    help=read_help(_HERE),
    translations=read_translations(_HERE),
    seat_names=("Cross", "Ring"),
    version="1",
    perfect_information=True,
    advisor=AdvisorSpec(  # playouts from the position, by sequential halving (advisor.py)
        factory=lazy_advisor("gamenight_lits.advisor:make_advisor"),
        unit=AdviceUnit("chance", "chance of winning the game"),
    ),
    theme_variables={  # the board's colours (widgets.py, game.tcss); any theme may set them
        "lits-mark-x": "#ff7a59",
        "lits-mark-o": "#59c3ff",
        "lits-shape-l": "#e8a33d",
        "lits-shape-i": "#4fb3d9",
        "lits-shape-t": "#b57edc",
        "lits-shape-s": "#6cc070",
        "lits-ghost": "#f2f2f2",
        "lits-ghost-bad": "#e5484d",
    },
)


@hookimpl
def register_games(register: Callable[[GameInfo], None]) -> None:
    """Register Battle of LITS."""
    register(GAME)
