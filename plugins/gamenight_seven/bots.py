"""Bots for SEVEN: ``random``, ``greedy`` and ``expert``.

Every bot decides from its seat's :class:`~gamenight_seven.rules.SevenView`
only -- its own hand, the others' hand sizes and the face-up table -- so no bot
can peek at a hidden card.

``expert`` plays by *determinization* (perfect-information Monte Carlo): it
deals the cards it cannot see into the other hands (by their known sizes) and
the stock, plays each candidate move on for a few turns -- the other seats by
the greedy policy, itself by :func:`keeper_card`, which holds its 7s for
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
plays otherwise, :func:`ungreedy_seats`, is held to the last rule only).
Should the log not read into that model it falls back to dealing at random
bent by what the log plainly tells: what each seat is known to lack
(:func:`infer_knowledge`) and what is known of the stock (:func:`track_table`).

How far this gets, and why not further (the moves that matter turn on all four
hidden hands at once), is measured in bench/results/seven.md.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from gamenight.sdk import Action, BotContext, BotSpec, plain_factory

from .cards import SUITS, parse_card
from .inference import Knowledge, StockReplay, Table, determinize, infer_knowledge, track_table, ungreedy_seats
from .policies import action_for, best_call, card_of, greedy_card, keeper_card
from .rules import TURN_LIMIT, SevenView
from .simulator import Simulator, passes_in_a_row

if TYPE_CHECKING:
    from .posterior import Posterior

__all__ = [
    "BOTS",
    "ExpertBot",
    "GreedyBot",
    "Knowledge",
    "RandomBot",
    "StockReplay",
    "Table",
    "best_call",
    "determinize",
    "greedy_card",
    "infer_knowledge",
    "keeper_card",
    "track_table",
    "ungreedy_seats",
]


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


class ExpertBot:
    """Determinized look-ahead over playouts (see the module docstring).

    ``samples`` is how many deals of the unseen cards it tries per decision;
    it also stops early when ``ctx.should_stop()`` or the time budget says so.
    Each playout runs ``horizon`` turns (0: to the end of the deal) and is then
    scored by :meth:`_Deal.estimate`; a win counts ``win_bonus`` on top of its
    points, so the bot plays to win first and for points among equally good
    moves.  (Playing to the end measured no better, at twice the time.)

    The deals come from the posterior chain (``posterior``): ``burn`` moves
    before the first, ``thin`` between two, its energy weight ``beta``.

    The other settings exist for the bench's comparisons: ``keeper`` (its own
    playouts hold 7s; else greedy), ``all_calls`` (a Queen with every call; else
    :func:`best_call`), ``adapt`` (stop reading a seat by the greedy model once
    it shows it plays otherwise), and, for the plain sampler (``posterior``
    off), ``track`` (use :func:`track_table`) and ``greedy_model`` (see
    :func:`infer_knowledge`).
    """

    def __init__(
        self, samples: int = 32, horizon: int = 20, win_bonus: float = 1000.0, greedy_model: bool = True,
        keeper: bool = True, all_calls: bool = True, track: bool = True,
        adapt: bool = True, posterior: bool = True, burn: int = 2000, thin: int = 25, beta: float = 4.0,
    ) -> None:
        self.adapt = adapt
        self.posterior = posterior
        self.burn, self.thin, self.beta = burn, thin, beta
        self.track = track
        self.chain_stats = [0, 0, 0, 0]
        """Decisions that ran a posterior chain, of which fell back to :meth:`_sample`; its deals, of
        which it had not yet made explain the whole log."""
        self.samples = samples
        self.greedy_model = greedy_model
        self.horizon = horizon or TURN_LIMIT
        self.win_bonus = win_bonus
        self.policy = keeper_card if keeper else greedy_card
        self.all_calls = all_calls

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
            if self.all_calls and ":" in action:
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
        candidates = self.candidates(view, legal)
        if len(candidates) == 1:
            return candidates[0]
        deadline = time.monotonic() + ctx.time_budget * 0.8

        def out_of_time() -> bool:
            return ctx.should_stop() or time.monotonic() > deadline

        wild = ungreedy_seats(view) if self.adapt else frozenset()
        chain = self._chain(view, wild, ctx.rng, out_of_time)
        if chain is None:  # what the plain sampler needs
            unseen = sorted(set(range(52)) - set(view.hand) - set(view.played))
            knowledge = infer_knowledge(view, self.greedy_model, wild)
            table = track_table(view) if self.track else None
        moves = [self._move(action) for action in candidates]
        passes = passes_in_a_row(view)
        totals = [0.0] * len(candidates)
        for sample in range(self.samples):
            if sample and out_of_time():
                break
            if chain is not None:
                chain.step(self.thin)
                hands, stock = chain.deal()
                self.chain_stats[2] += 1
                self.chain_stats[3] += chain.total_energy() > 0
            else:
                hands, stock = self._sample(view, unseen, knowledge, table, ctx.rng)
            seed = ctx.rng.getrandbits(32)
            for index, move in enumerate(moves):
                deal = Simulator.from_view(
                    view, [list(hand) for hand in hands], list(stock), random.Random(seed), passes
                )
                totals[index] += self._evaluate(deal, view.seat, move)
        return candidates[totals.index(max(totals))]

    def _chain(
        self, view: SevenView, wild: frozenset[int], rng: random.Random, stop: Callable[[], bool]
    ) -> Posterior | None:
        """A :class:`~gamenight_seven.posterior.Posterior` chain run in, or None to deal as :meth:`_sample` does."""
        if not self.posterior:
            return None
        from .posterior import Posterior

        chain = Posterior(view, random.Random(rng.getrandbits(32)), self.beta, wild)
        self.chain_stats[0] += 1
        if not chain.ok:
            self.chain_stats[1] += 1
            return None
        chain.step(self.burn, beta_from=0.5, stop=stop)  # out of time: the first deal is what it has
        return chain

    def _sample(
        self,
        view: SevenView,
        unseen: list[int],
        knowledge: Mapping[int, Knowledge],
        table: Table | None,
        rng: random.Random,
    ) -> tuple[list[list[int]], list[int]]:
        """The plain sampler: the unseen cards dealt at random, as far as ``knowledge`` and ``table`` allow."""
        rng.shuffle(unseen)
        return determinize(view, unseen, knowledge, table, rng)

    @staticmethod
    def _move(action: Action) -> tuple[int, int]:
        """A candidate as (card, called suit or -1), or (-1, -1) to take the pending 7 penalty."""
        if action == "draw":
            return -1, -1
        return card_of(action), SUITS.index(action[3]) if ":" in action else -1

    def _evaluate(self, deal: Simulator, me: int, move: tuple[int, int]) -> float:
        """``move`` played in ``deal``, then the deal played on: ``me``'s expected score."""
        card, call = move
        if card < 0:
            deal.take_penalty()
        else:
            deal.play(card, call)
        if deal.winner < 0:
            deal.playout(self.horizon, me, self.policy)
        return deal.score(me, deal.winner, self.win_bonus)


BOTS = (
    BotSpec("random", "Random", plain_factory(RandomBot), 0, "Plays any card that matches; draws only when it must."),
    BotSpec("greedy", "Greedy", plain_factory(GreedyBot), 1, "Hits the next seat with 7s and Aces, keeps Queens."),
    BotSpec(
        "expert",
        "Expert",
        plain_factory(ExpertBot),
        2,
        "Works out from every play what each seat may hold, and plays each choice out on such deals.",
    ),
)
