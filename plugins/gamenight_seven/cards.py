"""SEVEN's cards: the one definition of the deck's tables, shared by the rules and the bots.

Cards are ints ``0..51``: ``suit * 13 + rank`` with suits ♠ ♥ ♣ ♦ (``S H C D``)
and ranks A 2 … 10 J Q K (``0..12``).  Every table here is indexed by card and
built once; :mod:`gamenight_seven.rules` and the AI modules (policies,
inference, posterior, simulator) all read these same objects.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "ACE",
    "CARD_CODES",
    "CARD_OF_CODE",
    "PENALTY_OF",
    "QUEEN",
    "RANKS",
    "RANK_LABELS",
    "RANK_OF",
    "SEVEN",
    "SEVEN_CARDS",
    "SPECIAL_CARDS",
    "SUITS",
    "SUIT_OF",
    "SUIT_SYMBOLS",
    "card_code",
    "card_label",
    "hand_penalty",
    "parse_card",
    "penalty_of",
    "rank_of",
    "suit_of",
]

SUITS = "SHCD"
SUIT_SYMBOLS = "♠♥♣♦"
RANKS = "A23456789TJQK"
RANK_LABELS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
ACE, SEVEN, QUEEN = 0, 6, 11
"""The ranks with a rule of their own: an Ace skips, a 7 makes the next seat draw, a Queen calls."""

CARD_CODES: tuple[str, ...] = tuple(RANKS[c % 13] + SUITS[c // 13] for c in range(52))
"""Each card's two-character code, as actions name it: ``"7S"``, ``"TD"``."""
CARD_OF_CODE: dict[str, int] = {code: card for card, code in enumerate(CARD_CODES)}
SUIT_OF: tuple[int, ...] = tuple(c // 13 for c in range(52))
RANK_OF: tuple[int, ...] = tuple(c % 13 for c in range(52))
PENALTY_OF: tuple[int, ...] = tuple(10 if c % 13 == QUEEN else 5 if c % 13 == SEVEN else 1 for c in range(52))
"""What each card costs a loser (docs/rules/seven.md 6.2): Queen 10, 7 5, any other 1."""
SEVEN_CARDS: frozenset[int] = frozenset(s * 13 + SEVEN for s in range(4))
SPECIAL_CARDS: frozenset[int] = frozenset(c for c in range(52) if c % 13 in (ACE, SEVEN, QUEEN))
"""The 7s, Aces and Queens (turned up at the deal, they go back into the stock)."""


def suit_of(card: int) -> int:
    """The suit index (0 ♠, 1 ♥, 2 ♣, 3 ♦)."""
    return SUIT_OF[card]


def rank_of(card: int) -> int:
    """The rank index (0 Ace … 6 Seven … 11 Queen, 12 King)."""
    return RANK_OF[card]


def penalty_of(card: int) -> int:
    """What the card costs a loser (docs/rules/seven.md 6.2): Queen 10, 7 5, any other 1."""
    return PENALTY_OF[card]


def hand_penalty(hand: Sequence[int]) -> int:
    """The penalty of a whole hand."""
    return sum(PENALTY_OF[c] for c in hand)


def card_code(card: int) -> str:
    """The two-character code used in actions: ``"7S"``, ``"TD"``."""
    return CARD_CODES[card]


def card_label(card: int) -> str:
    """The card as players read it: ``"7♠"``, ``"10♦"``."""
    return RANK_LABELS[RANK_OF[card]] + SUIT_SYMBOLS[SUIT_OF[card]]


def parse_card(code: str) -> int:
    """The card for a two-character code; ``ValueError`` if there is none."""
    try:
        return CARD_OF_CODE[code.upper()]
    except KeyError:
        raise ValueError(f"not a card: {code!r}") from None
