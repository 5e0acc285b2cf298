"""Battle of LITS registered with gamenight: the GameInfo and its hook."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from gamenight.hookspecs import hookimpl
from gamenight.i18n import load_catalogue_file
from gamenight.sdk import BotSpec, GameInfo, Option

from .bots import make_expert, make_greedy, make_random
from .rules import DEFAULT_LAYOUT, LAYOUTS, RANDOM_LAYOUT, LitsRules

if TYPE_CHECKING:  # pragma: no cover - typing only
    from gamenight.match import Match
    from textual.screen import Screen

_HERE = Path(__file__).parent
_TRANSLATIONS = {"ja": load_catalogue_file(_HERE / "locale" / "ja.toml")}

_LAYOUT_LABELS = {
    "weave": "Weave",
    "fortress": "Fortress",
    "rivers": "Rivers",
    "scatter": "Scatter",
}


def _screen(match: Match) -> Screen:
    from .screen import LitsScreen  # Textual only when a screen is wanted

    return LitsScreen(match)


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
    screen=_screen,
    help={
        "en": (_HERE / "help" / "rules.en.md").read_text(encoding="utf-8"),
        "ja": (_HERE / "help" / "rules.ja.md").read_text(encoding="utf-8"),
    },
    translations=_TRANSLATIONS,
    seat_names=("Cross", "Ring"),
    version="1",
    perfect_information=True,
)


@hookimpl
def register_games(register: Callable[[GameInfo], None]) -> None:
    """Register Battle of LITS."""
    register(GAME)
