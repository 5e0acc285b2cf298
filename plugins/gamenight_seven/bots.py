"""Bots for SEVEN: ``random``, ``greedy`` and ``expert``.

Every bot decides from its seat's :class:`~gamenight_seven.rules.SevenView`
only -- its own hand, the others' hand sizes and the face-up table -- so no bot
can peek at a hidden card.

``expert`` plays by *determinization* (perfect-information Monte Carlo): it
deals the cards it cannot see into the other hands (by their known sizes) and
the stock, plays each candidate move on for a few turns -- the other seats by
the greedy policy, itself by :func:`~gamenight_seven.policies.keeper_card`, which holds its 7s for
defence -- scores the position, and picks the move with the best mean over the
samples.  Every suit a Queen could call is a candidate of its own.  The samples
are shared by all candidates (common random numbers), so the comparison is
between moves, not between lucky and unlucky deals.  It plays to win first, for
points second.

Its deals explain the public log of the deal: a Markov chain
(:class:`~gamenight_seven.posterior.Posterior`) places every card each seat
has received so that the seat's every move -- what it played, what it called,
that it had to draw -- is the move a greedy player holding those cards makes,
and every card it played sat in its hand (a seat whose plays already show it
plays otherwise, :func:`~gamenight_seven.inference.ungreedy_seats`, is held
to the last rule only).  Should the log not read into that model it falls back
to dealing at random bent by what the log plainly tells: what each seat is
known to lack (:func:`~gamenight_seven.inference.infer_knowledge`) and what is
known of the stock (:func:`~gamenight_seven.inference.track_table`).  The
playouts run in :class:`~gamenight_seven.simulator.Simulator`.

The room builds the expert with its defaults (:class:`ExpertSettings`); the
bench varies them by handing it other settings.

How far this gets, and why not further (the moves that matter turn on all four
hidden hands at once), is measured in bench/results/seven.md.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gamenight.sdk import Action, BotContext, BotSpec, Rules, plain_factory

from .cards import SUITS, parse_card
from .inference import determinize, infer_knowledge, track_table, ungreedy_seats
from .policies import action_for, card_of, greedy_card, keeper_card
from .posterior import Posterior
from .rules import TURN_LIMIT, SevenView
from .simulator import Simulator, passes_in_a_row

__all__ = ["BOTS", "ExpertBot", "ExpertSettings", "GreedyBot", "RandomBot", "make_expert"]

Deal = tuple[list[list[int]], list[int]]
"""The hidden cards placed: every hand (the bot's own as it is) and the stock, top card last."""


class RandomBot:
    """Plays a uniformly random playable card; draws only when it must (or to take a 7)."""

    def choose(self, view: SevenView, legal: Sequence[Action], ctx: BotContext) -> Action:
        """A random card (a Queen calls a random suit), else ``draw`` or ``pass``."""
        cards = [action for action in legal if len(action) == 2]  # a plain card or a Queen's last card
        cards += sorted({action[:2] for action in legal if ":" in action})  # a Queen, whatever it calls
        if not cards:
            return legal[0]
        if view.penalty:
            cards.append("draw")
        code = ctx.rng.choice(cards)
        if code in legal:
            return code
        return ctx.rng.choice([action for action in legal if action.startswith(code + ":")])


class GreedyBot:
    """Plays :func:`greedy_card` at once; never draws while it can play."""

    def choose(self, view: SevenView, legal: Sequence[Action], ctx: BotContext) -> Action:
        """The :func:`greedy_card` move."""
        card = greedy_card(view.hand, view.top, view.called, view.penalty)
        if card < 0:
            return legal[-1]  # "draw" (or "pass"): the rules list it last
        return action_for(card, view.hand, legal)


@dataclass(frozen=True)
class ExpertSettings:
    """How the expert searches.  The defaults are the room's; the bench measures others.

    ``samples`` is how many deals of the unseen cards it tries per decision
    (fewer when the time budget runs out).  Each playout runs ``horizon``
    turns (0: to the end of the deal) and is then scored by
    :meth:`~gamenight_seven.simulator.Simulator.estimate`; a win counts
    ``win_bonus`` on top of its points, so the bot plays to win first and for
    points among equally good moves.  (Playing to the end measured no better, at
    twice the time.)

    The deals come from the posterior chain (``posterior``): ``burn`` moves
    before the first, ``thin`` between two, its energy weight ``beta``.

    The rest exist for the bench's comparisons: ``keeper`` (its own playouts
    hold 7s; else greedy), ``all_calls`` (a Queen with every call; else
    :func:`~gamenight_seven.policies.best_call`), ``adapt`` (stop reading a seat
    by the greedy model once it shows it plays otherwise), and, for the plain
    sampler (``posterior`` off), ``track`` (use
    :func:`~gamenight_seven.inference.track_table`) and ``greedy_model`` (see
    :func:`~gamenight_seven.inference.infer_knowledge`).
    """

    samples: int = 32
    horizon: int = 20
    win_bonus: float = 1000.0
    greedy_model: bool = True
    keeper: bool = True
    all_calls: bool = True
    track: bool = True
    adapt: bool = True
    posterior: bool = True
    burn: int = 2000
    thin: int = 25
    beta: float = 4.0


class ExpertBot:
    """Determinized look-ahead over playouts (see the module docstring).

    Built like any player's bot: for ``seat`` (None: whichever seat it is
    asked for), the game's ``options``, and a ``time_budget`` in seconds (None:
    the runner's ``ctx.time_budget``); it answers within 80% of the budget or as
    soon as ``ctx.should_stop()``.  ``settings`` are the room's unless the bench
    hands it others.
    """

    def __init__(
        self,
        seat: int | None = None,
        options: Mapping[str, Any] | None = None,
        time_budget: float | None = None,
        *,
        settings: ExpertSettings | None = None,
    ) -> None:
        self.seat = seat
        self.options = dict(options or {})
        self.time_budget = time_budget
        self.settings = settings if settings is not None else ExpertSettings()
        self.horizon = self.settings.horizon or TURN_LIMIT
        self.policy = keeper_card if self.settings.keeper else greedy_card
        self.chain_stats = [0, 0, 0, 0]
        """Decisions that ran a posterior chain, of which fell back to the plain sampler; its deals, of
        which it had not yet made explain the whole log."""

    def candidates(self, view: SevenView, legal: Sequence[Action]) -> list[Action]:
        """The moves worth comparing: each playable card once (a Queen with each call, or its best).

        A voluntary draw is left out -- the only draws considered are the
        forced ones and taking a pending 7 penalty instead of passing it on.
        (Weighing draws at will too measured worse: 17.8% against greedy seats.)
        """
        actions: list[Action] = []
        seen: set[str] = set()
        for action in legal:
            if action in ("draw", "pass"):
                continue
            if self.settings.all_calls and ":" in action:
                actions.append(action)
                continue
            code = action[:2]
            if code not in seen:
                seen.add(code)
                actions.append(action_for(parse_card(code), view.hand, legal))
        if not actions or view.penalty:
            actions.append(legal[-1])
        return actions

    def choose(self, view: SevenView, legal: Sequence[Action], ctx: BotContext) -> Action:
        """The candidate with the best mean score over the sampled deals."""
        if self.seat is not None and view.seat != self.seat:
            raise ValueError(f"the expert of seat {self.seat} was shown seat {view.seat}'s view")
        candidates = self.candidates(view, legal)
        if len(candidates) == 1:
            return candidates[0]
        budget = self.time_budget if self.time_budget is not None else ctx.time_budget
        deadline = time.monotonic() + budget * 0.8

        def out_of_time() -> bool:
            return ctx.should_stop() or time.monotonic() > deadline

        moves = [_move(action) for action in candidates]
        passes = passes_in_a_row(view)
        totals = [0.0] * len(candidates)
        deals = self.deals(view, ctx.rng, out_of_time)
        for sample in range(self.settings.samples):
            if sample and out_of_time():
                break
            hands, stock = next(deals)
            seed = ctx.rng.getrandbits(32)
            for index, move in enumerate(moves):
                deal = Simulator.from_view(
                    view, [list(hand) for hand in hands], list(stock), random.Random(seed), passes
                )
                totals[index] += self.evaluate(deal, view.seat, move)
        return candidates[totals.index(max(totals))]

    def deals(self, view: SevenView, rng: random.Random, stop: Callable[[], bool]) -> Iterator[Deal]:
        """Deals of the cards ``view`` does not show, as many as asked for, each explaining the log.

        The posterior chain is run in first (until ``stop``: then its first deal
        is what it has); if the log does not read into its model, the plain
        sampler deals them at random as far as the log allows.
        """
        settings = self.settings
        wild = ungreedy_seats(view) if settings.adapt else frozenset()
        if settings.posterior:
            chain = Posterior(view, random.Random(rng.getrandbits(32)), settings.beta, wild)
            self.chain_stats[0] += 1
            if chain.ok:
                chain.step(settings.burn, beta_from=0.5, stop=stop)
                while True:
                    chain.step(settings.thin)
                    self.chain_stats[2] += 1
                    self.chain_stats[3] += chain.total_energy() > 0
                    yield chain.deal()
            self.chain_stats[1] += 1
        unseen = sorted(set(range(52)) - set(view.hand) - set(view.played))
        knowledge = infer_knowledge(view, settings.greedy_model, wild)
        table = track_table(view) if settings.track else None
        while True:
            rng.shuffle(unseen)
            yield determinize(view, unseen, knowledge, table, rng)

    def evaluate(self, deal: Simulator, me: int, move: tuple[int, int]) -> float:
        """``move`` (see :func:`_move`) played in ``deal``, then the deal played on: ``me``'s expected score."""
        card, call = move
        if card < 0:
            deal.take_penalty()
        else:
            deal.play(card, call)
        if deal.winner < 0:
            deal.playout(self.horizon, me, self.policy)
        return deal.score(me, deal.winner, self.settings.win_bonus)


def _move(action: Action) -> tuple[int, int]:
    """A candidate as (card, called suit or -1), or (-1, -1) to take the pending 7 penalty."""
    if action == "draw":
        return -1, -1
    return card_of(action), SUITS.index(action[3]) if ":" in action else -1


def make_expert(rules: Rules[Any, Any], seat: int, options: Mapping[str, Any]) -> ExpertBot:
    """The room's expert for ``seat`` (``BotSpec.factory``): the default settings, the runner's time budget."""
    return ExpertBot(seat, options)


BOTS = (
    BotSpec("random", "Random", plain_factory(RandomBot), 0, "Plays any card that matches; draws only when it must."),
    BotSpec("greedy", "Greedy", plain_factory(GreedyBot), 1, "Hits the next seat with 7s and Aces, keeps Queens."),
    BotSpec(
        "expert",
        "Expert",
        make_expert,
        2,
        "Works out from every play what each seat may hold, and plays each choice out on such deals.",
    ),
)
