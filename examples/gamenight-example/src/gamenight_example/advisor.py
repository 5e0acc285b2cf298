"""A coach for Goofspiel: what each bid is worth to the seat to move, from its view only.

The room's coach panel, its warning before a costly bid and the game review use
this and nothing else (no screen code).  It is a simple model, not a solver:

* each other seat bids one of the cards it has not shown yet, each as likely
  (a face-down bid of this round is among them: its card is not seen);
* a bid of ``b`` takes the round's worth when it is higher than every other bid,
  which happens with the chance ``p(b)`` that model gives;
* kept for later, ``b`` would take a prize of the average worth still to come with
  the same chance: spending it now gives that up.

A bid's value is ``p(b) × (worth − average prize still to come)``, in points: the
highest card on a rich round, the lowest on a poor one, and a close call near the
average.  Exact play of Goofspiel is a hard game-theory problem; this is a coach's
rule of thumb, and it shows how little an advisor needs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gamenight.sdk import Advice, AdviceUnit, BotContext, Rules

from .rules import GoofspielView

UNIT = AdviceUnit("points", "points won this round, less what the card would win later", digits=2)
"""What the values measure (its label is translated from the game's catalogue)."""


class GoofspielAdvisor:
    """Ranks the bids of one seat (see the module's model)."""

    def advise(self, view: GoofspielView, legal: Sequence[str], ctx: BotContext) -> list[Advice]:
        """One :class:`Advice` per legal bid, best first."""
        others = [cards for seat, cards in enumerate(view.unplayed) if seat != view.seat and cards]
        prizes = (*view.prizes_left, view.worth)
        average = sum(prizes) / len(prizes)
        advice = []
        for action in legal:
            card = int(action.partition(":")[2])
            beats = 1.0
            for cards in others:
                beats *= sum(1 for other in cards if other < card) / len(cards)
            value = beats * (view.worth - average)
            advice.append(
                Advice(
                    action,
                    round(value, 6),
                    reason="wins the round {chance}% of the time",
                    params={"chance": round(100 * beats)},
                )
            )
        advice.sort(key=lambda entry: (-entry.value, entry.action))
        return advice


def make_advisor(rules: Rules, seat: int, options: Mapping[str, Any]) -> GoofspielAdvisor:
    """The :attr:`AdvisorSpec.factory` (one advisor serves every position of the seat)."""
    return GoofspielAdvisor()
