"""SEVEN's coach: every legal move's chance of winning the deal, by determinized playouts.

The advisor sees what a bot sees -- the seat's :class:`~gamenight_seven.rules.SevenView` --
and nothing else.  It deals the cards it cannot see as the expert does
(:meth:`~gamenight_seven.bots.ExpertBot.deals`: the posterior chain, so every deal
explains the public log), plays each legal move in each deal and then plays the deal
out to its end in :class:`~gamenight_seven.simulator.Simulator`: the seat by the
expert's own playout policy (:func:`~gamenight_seven.policies.keeper_card`), the
others by the greedy policy the expert (and its posterior) assumes of them.  A move's
value is the share of those deals the seat went on to win (a game of SEVEN is one
deal, docs/rules/seven.md 6.1).

Every move is played on the same deals with the same reshuffle seeds (common random
numbers), so two moves differ only by what they change, not by luck; unlike the
expert, the voluntary draw and every Queen's call are ranked too.  The expert's own
choice (its search: 32 deals of its own, seeded by the view) is the anchor: another
move is shown above it only by the part of its lead beyond the noise of the paired
results (:func:`gamenight.sdk.anchored_values`), so near ties do not flip from one asking to the next
and the best choice is the expert's unless the playouts show better.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from gamenight.sdk import Action, Advice, BotContext, Rules, StopLatch, anchored_values

from .bots import ExpertBot
from .policies import keeper_card
from .rules import TURN_LIMIT, SevenView
from .simulator import Simulator, passes_in_a_row

__all__ = ["DEALS_PER_SECOND", "DEFAULT_SAMPLES", "SevenAdvisor", "make_advisor"]

DEALS_PER_SECOND = 200
"""The time budget becomes a count of deals (about a second's worth here, unloaded), so that the
advice depends on the view, ``ctx.rng`` and ``ctx.should_stop()`` only, never on the clock."""

DEFAULT_SAMPLES = 200
"""Deals per decision, fewer when the time budget runs out (bench/RESULTS.md: stability)."""


class SevenAdvisor:
    """Ranks a seat's legal moves by their chance of winning the deal (see the module doc)."""

    def __init__(self, seat: int | None = None, samples: int = DEFAULT_SAMPLES) -> None:
        self.seat = seat
        self.samples = samples
        self._expert = ExpertBot(seat)

    def advise(self, view: SevenView, legal: Sequence[Action], ctx: BotContext) -> list[Advice]:
        """One :class:`Advice` per legal move, best first, within ``ctx.time_budget``."""
        actions = list(legal)
        if not actions:
            return []
        if self.seat is not None and view.seat != self.seat:
            raise ValueError(f"the advisor of seat {self.seat} was shown seat {view.seat}'s view")
        stop = StopLatch(ctx.should_stop)
        self._expert.time_budget = 3600.0  # its 32 deals and the stop signal bound it, not the clock
        # The expert's deals are seeded by the view, so asking twice names the same anchor.
        seed = zlib.crc32(repr(view).encode())
        steady = BotContext(view.seat, random.Random(seed), ctx.options, stop, ctx.time_budget)
        lead = self._expert.choose(view, actions, steady) if len(actions) > 1 else actions[0]

        me = view.seat
        passes = passes_in_a_row(view)
        runs: list[list[float]] = [[] for _action in actions]
        samples = 0
        wanted = max(2, min(self.samples, round(DEALS_PER_SECOND * ctx.time_budget)))
        deals = self._expert.deals(view, ctx.rng, stop)
        while samples < wanted and not (samples and stop()):
            hands, stock = next(deals)
            seed = ctx.rng.getrandbits(32)
            for index, action in enumerate(actions):
                deal = Simulator.from_view(
                    view, [list(hand) for hand in hands], list(stock), random.Random(seed), passes
                )
                deal.apply(action)
                if deal.winner < 0:
                    deal.playout(TURN_LIMIT, me, keeper_card)
                runs[index].append(1.0 if deal.winner == me else 0.0)
            samples += 1
        anchor = actions.index(lead) if lead in actions else 0
        values = anchored_values(runs, anchor)
        advice = [Advice(action, values[index], samples=samples) for index, action in enumerate(actions)]
        advice.sort(key=lambda item: (-item.value, item.action != lead))  # then the rules' order
        return advice


def make_advisor(rules: Rules[Any, Any], seat: int, options: Mapping[str, Any]) -> SevenAdvisor:
    """The room's advisor for ``seat`` (``AdvisorSpec.factory``)."""
    return SevenAdvisor(seat)
