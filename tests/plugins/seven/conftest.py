"""Helpers for the SEVEN tests: cards by code, tables set up by hand, seeded deals of bots."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence

import pytest
from gamenight.sdk import CHANCE, TERMINAL, BotContext
from gamenight_seven.bots import GreedyBot, RandomBot
from gamenight_seven.plugin import GAME
from gamenight_seven.rules import PLAY, SevenRules, SevenState, SevenView, parse_card

GREEDY_TABLE = ("greedy",) * 5


def bot_deals(
    rules: SevenRules, seeds: Iterable[int], kinds: Sequence[str] = GREEDY_TABLE
) -> Iterator[tuple[int, SevenState, SevenView]]:
    """Seeded deals of ``greedy``/``random`` bots: ``(seed, state, view of the seat to move)`` before each move."""
    for seed in seeds:
        rng = random.Random(seed)
        bots = [GreedyBot() if kind == "greedy" else RandomBot() for kind in kinds]
        state = rules.new_game(len(kinds), {})
        while (mover := rules.to_move(state)) != TERMINAL:
            if mover == CHANCE:
                action = rules.sample_chance(state, rng)
            else:
                view = rules.view(state, mover)
                yield seed, state, view
                action = bots[mover].choose(view, rules.legal_actions(state), BotContext(mover, rng))
            state = rules.apply(state, action)


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
