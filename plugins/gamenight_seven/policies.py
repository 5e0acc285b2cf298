"""The simple policies every SEVEN bot builds on.

Cards are the integers 0-51 of :mod:`gamenight_seven.cards` (suit * 13 + rank),
whose tables the rules use too.
The greedy policy is what ``greedy`` plays and what the expert assumes of the
other seats; the keeper policy is the expert's own in its playouts.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from gamenight.sdk import Action

from .cards import ACE, CARD_CODES, QUEEN, RANK_OF, SEVEN, SEVEN_CARDS, SUIT_OF, SUITS, parse_card

__all__ = [
    "GREEDY_ORDER",
    "KEEPER_ORDER",
    "SHEDDING",
    "action_for",
    "best_call",
    "card_of",
    "greedy_card",
    "keeper_card",
    "matching_cards",
    "ranked_card",
]

SHEDDING = 2.0
"""How much likelier to go out first a hand is for each card fewer (the expert's estimate)."""
GREEDY_ORDER = tuple(3 if r == SEVEN else 2 if r == ACE else 0 if r == QUEEN else 1 for r in range(13))
KEEPER_ORDER = tuple(1 if r == SEVEN else 3 if r == ACE else 0 if r == QUEEN else 2 for r in range(13))


def card_of(action: Action) -> int:
    return parse_card(action[:2])


def best_call(hand: Sequence[int]) -> int:
    """The suit to call after a Queen: the one held most (then the lowest index)."""
    counts = [0, 0, 0, 0]
    for card in hand:
        if RANK_OF[card] != QUEEN:
            counts[SUIT_OF[card]] += 1
    return counts.index(max(counts))


def ranked_card(hand: Sequence[int], top: int, called: int, penalty: int, order: tuple[int, ...]) -> int:
    """The matching card ranked highest by ``order[rank]`` then by how many of its suit the hand holds.

    Under a pending 7 only a 7 answers (the first one held); -1 means draw.
    """
    if penalty:
        for card in hand:
            if card in SEVEN_CARDS:
                return card
        return -1
    if called >= 0:
        suit, rank = called, QUEEN
    else:
        suit, rank = SUIT_OF[top], RANK_OF[top]
    best, best_key = -1, (-1, -1)
    counts = [0, 0, 0, 0]
    for card in hand:
        counts[SUIT_OF[card]] += 1
    for card in hand:
        card_rank = RANK_OF[card]
        if card_rank == QUEEN or card_rank == rank or SUIT_OF[card] == suit:
            key = (order[card_rank], counts[SUIT_OF[card]])
            if key > best_key:
                best, best_key = card, key
    return best


def greedy_card(hand: Sequence[int], top: int, called: int, penalty: int) -> int:
    """The card the greedy policy discards, or -1 to draw.

    It takes what hurts the next seat now: a 7 (answering a pending 7 with one
    if it can), then an Ace, then a plain card of the suit it holds most, and a
    Queen only when nothing else matches (it is the one card that always can).
    """
    return ranked_card(hand, top, called, penalty, GREEDY_ORDER)


def keeper_card(hand: Sequence[int], top: int, called: int, penalty: int) -> int:
    """The card the expert's own playouts discard, or -1 to draw.

    Like :func:`greedy_card`, but it keeps its 7s to answer a 7 aimed at it
    (it plays one only when nothing but a Queen would match): an Ace, then a
    plain card of the suit it holds most, then a 7, then a Queen.
    """
    return ranked_card(hand, top, called, penalty, KEEPER_ORDER)


def action_for(card: int, hand: Sequence[int], legal: Sequence[Action]) -> Action:
    """The legal action that discards ``card`` (a Queen calls :func:`best_call`)."""
    code = CARD_CODES[card]
    if code in legal:
        return code
    rest = [c for c in hand if c != card]
    return f"{code}:{SUITS[best_call(rest)]}"


@cache
def matching_cards(suit: int, rank: int, penalty: int) -> frozenset[int]:
    """The cards that may be played on a target (all Queens included unless a 7 is pending)."""
    if penalty:
        return SEVEN_CARDS
    return frozenset(c for c in range(52) if SUIT_OF[c] == suit or RANK_OF[c] == rank or RANK_OF[c] == QUEEN)
