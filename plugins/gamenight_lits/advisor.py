"""Battle of LITS' coach: every legal action's chance of winning, by playouts from the position.

Nothing is hidden in LITS (docs/rules/lits.md 1.1), so there is nothing to sample: the
view *is* the position, and the advisor plays on from it as it stands.  Each action is
put down and the game played out to its end (lits.md 5.1) by the game's fast policy,
:class:`~gamenight_lits.bots.GreedyBot` (the best immediate swing, ties broken at
random) on both seats; the value is the share of playouts the seat wins (lits.md 5.2).
The expert's own policy is an alpha-beta search whose static evaluation alone costs a
full scan of the board per candidate (about 30 ms a ply here): far too slow to play
out a hundred candidates many times within a second.  So the expert contributes
otherwise: its search, given :data:`EXPERT_SHARE` of the budget (on a clock that counts
its work, :class:`WorkClock`), names the anchor (the choice the playouts must beat), and
its evaluation orders the candidates and breaks ties.

The randomness of a playout is only the policy's tie-breaking; playout ``k`` of every
action uses the same seed (common random numbers).  With a hundred or more placements
to weigh, the budget goes where it matters by sequential halving: every action gets a
playout, then the better half twice as many, and so on, until one is left, the sample
count is reached or the budget's playouts (:data:`PLAYOUTS_PER_SECOND`) are spent.  The
expert's choice is the anchor, played out to the end: another action is shown above it
only by the part of its lead beyond the noise of the paired results
(:func:`gamenight.sdk.anchored_values`) -- an action dropped after a lucky playout or two does not pass
it.  When the playouts run out before every action had one (the opening offers 1,292
placements), or ``ctx.should_stop()`` says stop, the rest are shown at the lowest value
measured, with ``samples`` 0.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gamenight.sdk import Action, Advice, BotContext, Rules, StopLatch, anchored_values

from .bots import ExpertBot, GreedyBot, _Search
from .rules import LitsRules, LitsState, scan

__all__ = ["DEFAULT_SAMPLES", "EXPERT_SHARE", "LitsAdvisor", "make_advisor", "play_out"]

DEFAULT_SAMPLES = 32
"""Playouts for the last actions standing, fewer when the time budget runs out (bench/RESULTS.md)."""
EXPERT_SHARE = 0.7
"""The part of the time budget the expert's own search gets to name the anchor."""
PLAYOUTS_PER_SECOND = 300
"""Playouts in a second (3.2 ms each from the fifth ply, here): the rest of the budget becomes a
count of playouts, so that the advice depends on the view, ``ctx.rng`` and
``ctx.should_stop()`` only, never on the clock."""
SEARCH_READING = 0.0027
"""Seconds of search between two readings of the expert's clock (8 nodes of about 0.34 ms each,
here).  Its clock is a count of those readings: the search is as deep on any machine and
under any load."""


class WorkClock:
    """A clock for the expert's search that moves :data:`SEARCH_READING` each time it is read."""

    def __init__(self, step: float = SEARCH_READING) -> None:
        self.step = step
        self.now = 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


_RULES = LitsRules()


def play_out(state: LitsState, policy: GreedyBot, rng: random.Random) -> LitsState:
    """The game played on to its end by ``policy`` on both seats."""
    rules = _RULES
    while state.turn >= 0:
        legal = rules.legal_actions(state)
        state = rules.apply(state, policy.choose(state, legal, BotContext(state.turn, rng)))
    return state


def _prior(child: LitsState, seat: int) -> float:
    """The expert's static evaluation of ``child`` for ``seat`` (higher is better for it)."""
    if child.turn < 0 or child.pie_pending:
        return 0.0
    legal, reach = scan(child.covered, child.shapes, child.remaining)
    mover = child.turn
    value = _Search.evaluate(child.marks(mover) & ~child.covered, child.marks(1 - mover) & ~child.covered, reach, legal)
    return value if mover == seat else -value


class LitsAdvisor:
    """Ranks a seat's legal actions by their chance of winning (see the module doc)."""

    def __init__(
        self,
        seat: int | None = None,
        samples: int = DEFAULT_SAMPLES,
        expert_budget: float | None = None,
        clock: Callable[[], Callable[[], float]] = WorkClock,
    ) -> None:
        self.seat = seat
        self.samples = samples
        self.expert_budget = expert_budget
        """Seconds for the expert's search (None: :data:`EXPERT_SHARE` of the time budget)."""
        self._policy = GreedyBot()
        self.clock = clock
        """Makes the expert's clock for one decision (a :class:`WorkClock`: the search's work, not time)."""

    def advise(self, view: LitsState, legal: Sequence[Action], ctx: BotContext) -> list[Advice]:
        """One :class:`Advice` per legal action, best first, within ``ctx.time_budget``."""
        me = ctx.seat if self.seat is None else self.seat
        actions = list(legal)
        if not actions:
            return []
        stop = StopLatch(ctx.should_stop)
        if len(actions) > 1:
            share = EXPERT_SHARE * ctx.time_budget if self.expert_budget is None else self.expert_budget
            steady = BotContext(me, ctx.rng, ctx.options, stop, ctx.time_budget)
            choice = ExpertBot(share, clock=self.clock()).choose(view, actions, steady)
        else:
            choice = actions[0]
        playouts = max(1, round(PLAYOUTS_PER_SECOND * (1.0 - EXPERT_SHARE) * ctx.time_budget))
        played = 0

        def out_of_time() -> bool:
            return played >= playouts or stop()

        children = [_RULES.apply(view, action) for action in actions]
        prior = [_prior(child, me) if len(actions) <= 400 else 0.0 for child in children]
        results: list[list[float]] = [[] for _action in actions]
        seeds: list[int] = []
        anchor = actions.index(choice) if choice in actions else 0  # measured first, and kept to the end
        alive = sorted(range(len(actions)), key=lambda index: (index != anchor, -prior[index]))
        target = 1
        stopped = measured = False
        while not stopped:
            while len(seeds) < target:
                seeds.append(ctx.rng.getrandbits(32))
            for index in alive:
                while len(results[index]) < target:
                    if measured and out_of_time():
                        stopped = True
                        break
                    end = play_out(children[index], self._policy, random.Random(seeds[len(results[index])]))
                    results[index].append(1.0 if me in _RULES.outcome(end).winners else 0.0)
                    played += 1
                    measured = True
                if stopped:
                    break
            if stopped or len(alive) == 1 or target >= self.samples:
                break
            alive.sort(key=lambda index: (-statistics.fmean(results[index]), -prior[index]))
            alive = alive[: max(1, (len(alive) + 1) // 2)]
            if anchor not in alive:
                alive.insert(0, anchor)
            target = min(self.samples, target * 2)
        measured_at = [index for index in range(len(actions)) if results[index]]
        shown = anchored_values([results[index] for index in measured_at], measured_at.index(anchor))
        values = dict.fromkeys(range(len(actions)), min(shown))  # unmeasured: the lowest measured
        values.update(zip(measured_at, shown, strict=True))
        order = sorted(
            range(len(actions)),
            key=lambda index: (-values[index], index != anchor, -len(results[index]), -prior[index]),
        )
        return [Advice(actions[index], values[index], samples=len(results[index])) for index in order]


def make_advisor(rules: Rules[Any, Any], seat: int, options: Mapping[str, Any]) -> LitsAdvisor:
    """The room's advisor for ``seat`` (``AdvisorSpec.factory``)."""
    return LitsAdvisor(seat)
