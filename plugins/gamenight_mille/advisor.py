"""Mille Bornes' coach: every legal action's chance of winning the game, by determinized playouts.

The advisor sees what a bot sees -- the seat's :class:`~gamenight_mille.rules.MilleView` --
and nothing else.  What it cannot see is the deck's order and the opponent's hand; it
deals them at random from the cards it has not seen (:meth:`MilleView.unseen_counts`:
the 101 cards less its own hand, both tables and the discards), so every deal agrees
with everything the seat has watched.  In each deal it plays every legal action, then
plays the hand out to its end with the expert (:class:`~gamenight_mille.bots.ExpertBot`)
on both seats, and scores where the hand left the game (:func:`game_chance`).

The value is the chance of winning the *game*, but the playouts stop at the end of the
hand: a game to 5000 is several hands (4.5 on average between experts), and playing
them all would cost several times more for a figure that one card changes far less.
At the end of the hand the game is either over (won or lost) or its overall totals are
read by a simple model of the hands still to come: each hand moves the difference of
the totals by a spread measured between experts (:data:`HAND_MARGIN_SD`), and about
one hand is needed per :data:`HAND_POINTS` still missing to the target.  Besides being
the figure a player cares about, this scores a hand won by 900 above one won by 25,
which the bare win or loss of the hand does not: the rankings settle in far fewer deals.

Every action is played on the same deals (common random numbers), and actions that
leave the same position (discarding one of two equal cards) are played once and share
their value.  Many choices are near ties (which of three useless cards to throw), far
closer than a second's deals can tell apart; so the expert's own choice is the anchor,
and another action is shown above it only by the part of its lead that is beyond the
noise of the paired differences (:func:`gamenight.sdk.anchored_values`).  The best choice is then the
expert's unless the playouts show better, and asking twice names the same best
action far more often (bench/RESULTS.md: 18 positions of 20).  Once no action can pass
the anchor (:func:`settled`, checked from :data:`SETTLE_AFTER` deals on), the search
stops early: a game's review is some 200 decisions.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from gamenight.sdk import Action, Advice, BotContext, Rules, StopLatch, anchored_values

from .bots import ExpertBot
from .fast import FastMilleRules
from .rules import EMPTY, EXTENSION, GAME_OVER, PLAY, SLOT_INDEX, MilleState, MilleView

__all__ = [
    "DEFAULT_SAMPLES",
    "MilleAdvisor",
    "deal_unseen",
    "game_chance",
    "make_advisor",
    "play_out",
]

DEFAULT_SAMPLES = 40
"""Deals per decision at a budget of 1 s or more (bench/RESULTS.md: stability)."""
DEALS_PER_SECOND = 40
"""The time budget becomes a count of deals (about a second's worth here, unloaded), so that the
advice depends on the view, ``ctx.rng`` and ``ctx.should_stop()`` only, never on the clock."""


HAND_MARGIN_SD = 1330.0
"""Standard deviation of one hand's Hand Total difference between two experts (273 hands, 61 games)."""
HAND_POINTS = 1050.0
"""Mean Hand Total of one seat in a hand between two experts (the same hands)."""

_RULES = FastMilleRules()


def deal_unseen(view: MilleView, rng: random.Random) -> MilleState:
    """A full state that ``view`` could be showing: the unseen cards dealt at random.

    The opponent's hand gets ``opponent_hand_size`` of them (in the slots a hand
    that has finished its turn fills, mille.md 3.5), the deck the rest.
    """
    unseen = [card for card, count in enumerate(view.unseen_counts()) for _copy in range(max(count, 0))]
    rng.shuffle(unseen)
    size = min(view.opponent_hand_size, 7, len(unseen))
    opponent_hand = (EMPTY,) * (7 - size) + tuple(unseen[:size])
    deck = tuple(unseen[size : size + view.deck_count])
    opponent = view.opponent._replace(hand=opponent_hand)
    seats = (view.me, opponent) if view.seat == 0 else (opponent, view.me)
    return MilleState(
        phase=view.phase,
        seats=seats,
        deck=deck,
        discards=view.discards,
        turn=view.turn,
        picked=view.picked,
        trip=view.trip,
        extended=view.extended,
        hand_number=view.hand_number,
        totals=view.totals,
        target=view.target,
    )


def game_chance(state: MilleState, seat: int) -> float:
    """``seat``'s chance to win the game from ``state`` at the end of a hand (or the game).

    A finished game is 1 or 0 (mille.md 11.1).  Otherwise the totals' difference
    is taken to move by a normal step of :data:`HAND_MARGIN_SD` per hand still to
    play, and as many hands to be played as :data:`HAND_POINTS` go into what the
    leader still misses of the target (at least one).
    """
    mine, theirs = state.totals[seat], state.totals[1 - seat]
    if state.phase == GAME_OVER:
        return 1.0 if mine > theirs else 0.0
    hands = max(1.0, (state.target - max(mine, theirs)) / HAND_POINTS)
    return 0.5 * (1.0 + math.erf((mine - theirs) / (HAND_MARGIN_SD * math.sqrt(2.0 * hands))))


LEAD_Z = 2.0
"""Standard errors of the paired difference an action must lead the anchor by (as
:func:`gamenight.sdk.anchored_values` takes it) for the search to go on."""


SETTLE_AFTER = 16
"""Deals after which the search may stop early, once no action can pass the anchor."""


def settled(runs: list[list[float]], anchor: int) -> bool:
    """True when no action's paired lead over ``anchor`` reaches :data:`LEAD_Z` standard errors.

    More deals would then only sharpen the costs of worse actions, not change the best.
    """
    base = runs[anchor]
    for index, results in enumerate(runs):
        if index == anchor:
            continue
        diffs = [results[k] - base[k] for k in range(len(base))]
        if statistics.fmean(diffs) + LEAD_Z * statistics.stdev(diffs) / math.sqrt(len(diffs)) > 0.0:
            return False
    return True


def play_out(state: MilleState, expert: ExpertBot, ctx: BotContext) -> MilleState:
    """The hand played on to its end (or the game's) by ``expert`` on both seats."""
    rules = _RULES
    while state.phase == PLAY or state.phase == EXTENSION:
        legal = rules.legal_actions(state)
        seat = state.turn
        action = legal[0] if len(legal) == 1 else expert.choose(rules.view(state, seat), legal, ctx)
        state = rules.apply(state, action)
    return state


class MilleAdvisor:
    """Ranks a seat's legal actions by their chance of winning the game (see the module doc)."""

    def __init__(self, seat: int | None = None, samples: int = DEFAULT_SAMPLES) -> None:
        self.seat = seat
        self.samples = samples
        self._expert = ExpertBot()

    def advise(self, view: MilleView, legal: Sequence[Action], ctx: BotContext) -> list[Advice]:
        """One :class:`Advice` per legal action, best first, within ``ctx.time_budget``."""
        actions = list(legal)
        if not actions:
            return []
        if self.seat is not None and view.seat != self.seat:
            raise ValueError(f"the advisor of seat {self.seat} was shown seat {view.seat}'s view")
        stop = StopLatch(ctx.should_stop)
        # Actions that leave the same position (one of two equal cards) are played once.
        keys = [_key(view, action) for action in actions]
        first: dict[tuple[str, int], Action] = {}  # key -> the first action with that effect
        for action, key in zip(actions, keys, strict=True):
            first.setdefault(key, action)
        runs: dict[tuple[str, int], list[float]] = {key: [] for key in first}
        distinct = list(first)
        anchor = distinct.index(_key(view, self._expert.choose(view, actions, ctx)))
        lists = [runs[key] for key in distinct]
        me = view.seat
        # A forced action (the pick) costs nothing whatever it is worth: its value needs fewer deals.
        wanted = max(2, min(self.samples, round(DEALS_PER_SECOND * ctx.time_budget)))
        wanted = wanted if len(first) > 1 else max(1, wanted // 4)
        samples = 0
        while samples < wanted and not (samples and stop()):
            deal = deal_unseen(view, ctx.rng)
            for key, action in first.items():
                end = play_out(_RULES.apply(deal, action), self._expert, ctx)
                runs[key].append(game_chance(end, me))
            samples += 1
            if samples >= SETTLE_AFTER and not samples % 4 and settled(lists, anchor):
                break
        value = dict(zip(distinct, anchored_values(lists, anchor), strict=True))
        advice = [Advice(action, value[key], samples=samples) for action, key in zip(actions, keys, strict=True)]
        lead = distinct[anchor]  # the expert's choice first among equals, then the rules' order
        advice.sort(key=lambda item: (-item.value, _key(view, item.action) != lead))
        return advice


def _key(view: MilleView, action: Action) -> tuple[str, int]:
    """``(verb, card)``: what the action does, whichever slot it names."""
    verb, _sep, slot = action.partition(":")
    if slot not in SLOT_INDEX:
        return (action, EMPTY)
    return (verb, view.me.hand[SLOT_INDEX[slot]])


def make_advisor(rules: Rules[Any, Any], seat: int, options: Mapping[str, Any]) -> MilleAdvisor:
    """The room's advisor for ``seat`` (``AdvisorSpec.factory``)."""
    return MilleAdvisor(seat)
