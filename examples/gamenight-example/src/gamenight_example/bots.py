"""Bots for Goofspiel.  They see only their seat's :class:`GoofspielView`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gamenight.sdk import BotContext, Rules

from .rules import GoofspielView


class RandomBot:
    """Bids any card."""

    def choose(self, view: GoofspielView, legal: Sequence[str], ctx: BotContext) -> str:
        """A uniformly random legal bid."""
        return ctx.rng.choice(list(legal))


class MatcherBot:
    """Bids in proportion to what the round is worth.

    The round's worth (prize plus pot) is ranked among the prizes still to
    come; the bot bids the card of the same rank in its own hand, so it
    spends high cards on high prizes and throws its lowest card at the lowest.
    One time in three it bids one card higher, so that two matchers at one
    table do not tie round after round; it also moves up rather than only
    tie an opponent's highest unplayed card.
    """

    def choose(self, view: GoofspielView, legal: Sequence[str], ctx: BotContext) -> str:
        """The bid whose rank in the hand matches the worth's rank among the prizes."""
        hand = list(view.hand)
        prizes = sorted((*view.prizes_left, view.prize or 0))
        rank = sum(1 for prize in prizes if prize < view.worth)
        index = min(len(hand) - 1, rank * len(hand) // max(1, len(prizes)))
        if index + 1 < len(hand) and ctx.rng.random() < 1 / 3:
            index += 1
        choice = hand[index]
        others_top = max(
            (max(cards) for seat, cards in enumerate(view.unplayed) if seat != view.seat and cards), default=0
        )
        if choice == others_top and index + 1 < len(hand):
            choice = hand[index + 1]
        action = f"bid:{choice}"
        return action if action in legal else legal[0]


def make_random(rules: Rules, seat: int, options: Mapping[str, Any]) -> RandomBot:
    """Factory for the setup screen and the arena."""
    return RandomBot()


def make_matcher(rules: Rules, seat: int, options: Mapping[str, Any]) -> MatcherBot:
    """Factory for the setup screen and the arena."""
    return MatcherBot()
