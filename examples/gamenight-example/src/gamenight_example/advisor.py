"""Goofspiel's coach (SDK 1.2): each bid valued from the seat's view only.

The view shows, for every other seat, the cards it has not shown yet (``unplayed``); a bid
made face down this round is among them, unseen.  The coach cannot know more without peeking,
so it assumes each other seat bids any of those cards with the same chance.  A bid's value, in
points, is then

* the points it expects to take this round: the round's worth times the chance that it is the
  single highest bid (the product, over the other seats, of the share of their unshown cards
  below it), exact under that assumption;
* minus what the card costs later: its face value at the average rate prizes still to come pay
  per point of cards in hand.

It is a simple model, not a search -- an honest one: the kit's ``check_advisor`` (run by
``run_conformance`` with this package's ``reshuffle_hidden_bids``) shows it the same view with
the hidden bids changed and gets the same advice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gamenight.sdk import Advice, BotContext, Rules

from .rules import GoofspielView


def N_(message: str) -> str:
    """Mark ``message`` as a message id of this game's catalogue: the room translates it when shown."""
    return message


TAKES = N_("takes the prize against {percent}% of random bids")


class GoofspielAdvisor:
    """Values every legal bid of one seat (see the module)."""

    def advise(self, view: GoofspielView, legal: Sequence[str], ctx: BotContext) -> list[Advice]:
        """One advice per legal bid, best first."""
        later = sum(view.prizes_left) / max(1, sum(view.hand))  # prize points per card point, later
        advice = []
        for action in legal:
            bid = int(action.removeprefix("bid:"))
            chance = 1.0
            for other, cards in enumerate(view.unplayed):
                if other != view.seat and cards:
                    chance *= sum(1 for card in cards if card < bid) / len(cards)
            value = view.worth * chance - bid * later
            advice.append(Advice(action, value, reason=TAKES, params={"percent": round(100 * chance)}))
        return sorted(advice, key=lambda entry: -entry.value)


def make_advisor(rules: Rules, seat: int, options: Mapping[str, Any]) -> GoofspielAdvisor:
    """The advisor factory named by ``GameInfo.advisor``."""
    return GoofspielAdvisor()
