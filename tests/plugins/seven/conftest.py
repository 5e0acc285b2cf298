"""Helpers for the SEVEN tests: cards by code and tables set up by hand."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from gamenight_seven.plugin import GAME
from gamenight_seven.rules import PLAY, SevenRules, SevenState, parse_card


def cards(text: str) -> tuple[int, ...]:
    """``"7S QH TD"`` -> the cards, sorted as hands are."""
    return tuple(sorted(parse_card(code) for code in text.split()))


def pile(text: str) -> tuple[int, ...]:
    """``"3C 5C"`` -> a stock or discard pile in the given order (top card last)."""
    return tuple(parse_card(code) for code in text.split())


def table(
    hands: Sequence[str],
    top: str = "5C",
    stock: str = "",
    discards: str = "",
    turn: int = 0,
    **changes: object,
) -> SevenState:
    """A state in play: ``hands`` per seat, ``top`` on the discards (below it ``discards``)."""
    state = SevenRules().new_game(len(hands), {})
    return state._replace(
        phase=PLAY,
        hands=tuple(cards(hand) for hand in hands),
        stock=pile(stock),
        discards=(*pile(discards), parse_card(top)),
        turn=turn,
        **changes,
    )


@pytest.fixture
def rules() -> SevenRules:
    return GAME.rules
