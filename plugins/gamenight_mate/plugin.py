"""Mate registered with gamenight: the GameInfo and its hook."""

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
    lazy_bot,
    lazy_screen,
    read_help,
    read_translations,
)

from .rules import MateRules

GAMENIGHT_API = "1.4"
"""The gamenight SDK version this plugin is written for (see gamenight.sdk.API_VERSION)."""

_HERE = Path(__file__).parent

ADVISOR = AdvisorSpec(
    lazy_advisor("gamenight_mate.advisor:mate_advisor"),
    AdviceUnit("outcome", "the play's score with best play", digits=0),
    exact=True,
)
"""The coach: every play solved exactly (gamenight_mate.advisor)."""

GAME = GameInfo(
    id="mate",
    title="Mate",
    description="Sackson's two-player card problem: all cards dealt, mate your opponent late and with a high card.",
    rules=MateRules(),
    min_seats=2,
    max_seats=2,
    default_seats=2,
    bots=(
        BotSpec("random", "Random", lazy_bot("gamenight_mate.bots:make_random"), 0, "Plays any legal card."),
        BotSpec(
            "greedy",
            "Greedy",
            lazy_bot("gamenight_mate.bots:make_greedy"),
            1,
            "Mates at once when it can, else keeps the lead cheaply.",
        ),
        BotSpec(
            "perfect",
            "Perfect",
            lazy_bot("gamenight_mate.bots:make_perfect"),
            2,
            "Solves the whole play exactly and never misses a mate.",
        ),
    ),
    options=(
        Option(
            "foreplacing",
            "Foreplacing",
            True,
            description="Before each play a seat may set one card aside and replay its move-9 card on move 10.",
        ),
        Option(
            "double_deck",
            "Double deck",
            False,
            description="Play with twenty cards picked from two packs; of two identical cards the first played wins.",
        ),
        Option(
            "kings_privilege",
            "King's privilege",
            False,
            description="When a King is led, a seat holding a King must play a King.",
        ),
        Option(
            "free_move",
            "Free move",
            False,
            description="A seat may answer with the same rank even when it holds the suit.",
        ),
    ),
    screen=lazy_screen("gamenight_mate.screen:MateScreen"),
    help=read_help(_HERE),
    translations=read_translations(_HERE),
    seat_names=("Capellen", "Sackson"),
    version="1",
    perfect_information=True,
    advisor=ADVISOR,
)


@hookimpl
def register_games(register: Callable[[GameInfo], None]) -> None:
    """Register Mate."""
    register(GAME)
