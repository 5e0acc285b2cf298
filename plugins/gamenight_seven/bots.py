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
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

from gamenight.sdk import Action, BotContext, BotSpec, plain_factory

from .rules import CARD_CODES, HAND_SIZE, QUEEN, SEVEN, SUITS, TURN_LIMIT, Event, SevenView, parse_card

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

ACE = 0
_SUIT = tuple(c // 13 for c in range(52))
_RANK = tuple(c % 13 for c in range(52))
_PENALTY = tuple(10 if c % 13 == QUEEN else 5 if c % 13 == SEVEN else 1 for c in range(52))
_SEVENS = frozenset(s * 13 + SEVEN for s in range(4))
SHEDDING = 2.0
"""How much likelier to go out first a hand is for each card fewer (the expert's estimate)."""
_GREEDY_ORDER = tuple(3 if r == SEVEN else 2 if r == ACE else 0 if r == QUEEN else 1 for r in range(13))
_KEEPER_ORDER = tuple(1 if r == SEVEN else 3 if r == ACE else 0 if r == QUEEN else 2 for r in range(13))


def _card_of(action: Action) -> int:
    return parse_card(action[:2])


def best_call(hand: Sequence[int]) -> int:
    """The suit to call after a Queen: the one held most (then the lowest index)."""
    counts = [0, 0, 0, 0]
    for card in hand:
        if _RANK[card] != QUEEN:
            counts[_SUIT[card]] += 1
    return counts.index(max(counts))


def _ranked_card(hand: Sequence[int], top: int, called: int, penalty: int, order: tuple[int, ...]) -> int:
    """The matching card ranked highest by ``order[rank]`` then by how many of its suit the hand holds.

    Under a pending 7 only a 7 answers (the first one held); -1 means draw.
    """
    if penalty:
        for card in hand:
            if card in _SEVENS:
                return card
        return -1
    if called >= 0:
        suit, rank = called, QUEEN
    else:
        suit, rank = _SUIT[top], _RANK[top]
    best, best_key = -1, (-1, -1)
    counts = [0, 0, 0, 0]
    for card in hand:
        counts[_SUIT[card]] += 1
    for card in hand:
        card_rank = _RANK[card]
        if card_rank == QUEEN or card_rank == rank or _SUIT[card] == suit:
            key = (order[card_rank], counts[_SUIT[card]])
            if key > best_key:
                best, best_key = card, key
    return best


def greedy_card(hand: Sequence[int], top: int, called: int, penalty: int) -> int:
    """The card the greedy policy discards, or -1 to draw.

    It takes what hurts the next seat now: a 7 (answering a pending 7 with one
    if it can), then an Ace, then a plain card of the suit it holds most, and a
    Queen only when nothing else matches (it is the one card that always can).
    """
    return _ranked_card(hand, top, called, penalty, _GREEDY_ORDER)


def keeper_card(hand: Sequence[int], top: int, called: int, penalty: int) -> int:
    """The card the expert's own playouts discard, or -1 to draw.

    Like :func:`greedy_card`, but it keeps its 7s to answer a 7 aimed at it
    (it plays one only when nothing but a Queen would match): an Ace, then a
    plain card of the suit it holds most, then a 7, then a Queen.
    """
    return _ranked_card(hand, top, called, penalty, _KEEPER_ORDER)


def _action_for(card: int, hand: Sequence[int], legal: Sequence[Action]) -> Action:
    """The legal action that discards ``card`` (a Queen calls :func:`best_call`)."""
    code = CARD_CODES[card]
    if code in legal:
        return code
    rest = [c for c in hand if c != card]
    return f"{code}:{SUITS[best_call(rest)]}"


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
        return _action_for(card, view.hand, legal)


class _Deal:
    """A determinized deal as mutable lists, played out fast (greedy seats, the expert's own policy).

    It follows RULES.md §2 like the engine (matching, Queens, 7 penalties, the
    Ace skip, reshuffles, the exhausted case, blocking, the turn limit) but
    keeps no log and checks nothing: it only ever plays the moves it picks.
    """

    __slots__ = ("called", "discards", "hands", "penalty", "rng", "seats", "stock", "turn", "turns")

    def __init__(
        self, hands: list[list[int]], stock: list[int], discards: list[int], view: SevenView, rng: random.Random
    ) -> None:
        self.hands = hands
        self.stock = stock
        self.discards = discards
        self.seats = view.seats
        self.turn = view.turn
        self.called = view.called
        self.penalty = view.penalty
        self.turns = view.turns
        self.rng = rng

    def _draw(self, seat: int, count: int) -> int:
        hand = self.hands[seat]
        drawn = 0
        while drawn < count:
            if not self.stock:
                if len(self.discards) < 2:
                    break
                self.stock = self.discards[:-1]
                self.rng.shuffle(self.stock)
                del self.discards[:-1]
            hand.append(self.stock.pop())
            drawn += 1
        return drawn

    def play(self, seat: int, card: int, call: int) -> int:
        """Discard ``card``; return the winner if the hand is now empty, else -1."""
        hand = self.hands[seat]
        hand.remove(card)
        self.discards.append(card)
        self.turns += 1
        if not hand:
            return seat
        rank = _RANK[card]
        self.called = call if rank == QUEEN else -1
        self.penalty = self.penalty + 3 if rank == SEVEN else 0
        self.turn = (seat + (2 if rank == ACE else 1)) % self.seats
        return -1

    def playout(
        self, horizon: int = TURN_LIMIT, me: int = -1,
        policy: Callable[[Sequence[int], int, int, int], int] = greedy_card,
    ) -> int:
        """Play to the end of the deal (or ``horizon`` more turns); return the winner or -1.

        Every seat follows :func:`greedy_card`, except ``me``, which follows ``policy``.
        """
        passes = 0
        seats = self.seats
        stop = min(TURN_LIMIT, self.turns + horizon)
        while self.turns < stop:
            seat = self.turn
            hand = self.hands[seat]
            choose = policy if seat == me else greedy_card
            card = choose(hand, self.discards[-1], self.called, self.penalty)
            if card < 0 and self.penalty:
                drawn = self._draw(seat, self.penalty)
                self.penalty = 0
                self.turn = (seat + 1) % seats
                self.turns += 1
                passes = 0 if drawn else passes + 1
                if passes >= seats:
                    break
                continue
            drew = False
            while card < 0:
                if not self._draw(seat, 1):
                    break
                drew = True
                card = choose(hand, self.discards[-1], self.called, self.penalty)
            if card < 0:  # nothing to play, nothing to draw: pass
                self.turn = (seat + 1) % seats
                self.turns += 1
                passes = 1 if drew else passes + 1
                if passes >= seats:
                    break
                continue
            passes = 0
            winner = self.play(seat, card, best_call([c for c in hand if c != card]))
            if winner >= 0:
                return winner
        if self.turns < TURN_LIMIT and passes < seats:
            return -1
        # Blocked (or the turn limit): the lowest penalty wins, ties from the seat to move.
        order = [(self.turn + k) % seats for k in range(seats)]
        return min(order, key=lambda s: sum(_PENALTY[c] for c in self.hands[s]))

    def score(self, seat: int, winner: int, win_bonus: float = 0.0) -> float:
        """``seat``'s points for the deal (RULES §2 Scoring) plus ``win_bonus`` if it won.

        With no winner yet (``-1``) it is :meth:`estimate`.
        """
        if winner < 0:
            return self.estimate(seat, win_bonus)
        if seat == winner:
            return win_bonus + sum(sum(_PENALTY[c] for c in hand) for s, hand in enumerate(self.hands) if s != winner)
        return -sum(_PENALTY[c] for c in self.hands[seat])

    def estimate(self, seat: int, win_bonus: float = 0.0) -> float:
        """Expected :meth:`score` for ``seat`` in an unfinished deal, from hand sizes and penalties.

        Each seat's chance to go out first is taken as proportional to
        ``SHEDDING ** -cards``; the winner collects the others' penalties.
        """
        weights = [SHEDDING ** -len(hand) for hand in self.hands]
        penalties = [sum(_PENALTY[c] for c in hand) for hand in self.hands]
        total_weight = sum(weights)
        total_penalty = sum(penalties)
        value = 0.0
        for winner, weight in enumerate(weights):
            if winner == seat:
                value += weight * (win_bonus + total_penalty - penalties[seat])
            else:
                value -= weight * penalties[seat]
        return value / total_weight


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
                actions.append(_action_for(parse_card(code), view.hand, legal))
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
            for index, action in enumerate(candidates):
                deal = _Deal([list(hand) for hand in hands], list(stock), list(view.played), view, random.Random(seed))
                totals[index] += self._evaluate(deal, view, action)
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

    def _evaluate(self, deal: _Deal, view: SevenView, action: Action) -> float:
        me = view.seat
        if action == "draw" and view.penalty:  # take the pending 7 penalty
            deal._draw(me, view.penalty)
            deal.penalty = 0
            deal.turn = (me + 1) % view.seats
            deal.turns += 1
        else:
            winner = deal.play(me, _card_of(action), SUITS.index(action[3]) if ":" in action else -1)
            if winner >= 0:
                return deal.score(me, winner, self.win_bonus)
        return deal.score(me, deal.playout(self.horizon, me, self.policy), self.win_bonus)


class Knowledge(NamedTuple):
    """What one seat is known not to hold, read from the public log."""

    forbidden: frozenset[int]
    """Cards its hand held none of (as it was when the evidence was seen)."""
    fresh: int
    """Cards it has received since (those may be anything)."""


@cache
def _matching(suit: int, rank: int, penalty: int) -> frozenset[int]:
    """The cards that may be played on a target (all Queens included unless a 7 is pending)."""
    if penalty:
        return _SEVENS
    return frozenset(c for c in range(52) if _SUIT[c] == suit or _RANK[c] == rank or _RANK[c] == QUEEN)


def infer_knowledge(
    view: SevenView, greedy_model: bool = True, wild: frozenset[int] = frozenset()
) -> dict[int, Knowledge]:
    """Read the public log for what each seat cannot hold.

    A seat that had to draw and then played held nothing that matched, and no
    Queen -- nor did the cards it drew on the way -- so its whole remaining hand
    lacks them.  With ``greedy_model`` the seats are also assumed to play like
    people who use their 7s and Aces at once and keep Queens for emergencies:
    a seat that plays anything else had no matching 7 (or Ace), one that takes a
    7 penalty had no 7, one that plays a Queen had nothing else that matched.
    Evidence holds until the seat receives new cards (``fresh``).  A player who
    draws at will, or plays otherwise, fools this; the expert only uses it to
    weight its samples, never to rule out a legal move.  The seats in ``wild``
    are known to play otherwise (:func:`ungreedy_seats`): only their forced
    draws count.
    """
    known: dict[int, Knowledge] = {}
    suit, rank, penalty = -1, -1, 0
    drawing = -1

    def learn(seat: int, cards: frozenset[int]) -> None:
        old = known.get(seat)
        if old is None or old.fresh:
            known[seat] = Knowledge(cards, 0)
        else:
            known[seat] = Knowledge(old.forbidden | cards, 0)

    for event in view.events:
        kind = event.kind
        seat = event.seat
        if kind == "up":
            suit, rank = _SUIT[event.card], _RANK[event.card]
        elif kind == "draw":
            if seat in known:
                known[seat] = known[seat]._replace(fresh=known[seat].fresh + event.count)
            drawing = seat
        elif kind == "play":
            card = event.card
            matching = _matching(suit, rank, penalty)
            if drawing == seat:
                known[seat] = Knowledge(matching, 0)
            elif greedy_model and not penalty and seat not in wild:
                card_rank = _RANK[card]
                if card_rank == QUEEN:
                    learn(seat, frozenset(c for c in matching if _RANK[c] != QUEEN))
                elif card_rank != SEVEN:
                    avoided = {c for c in matching if _RANK[c] == SEVEN}
                    if card_rank != ACE:
                        avoided |= {c for c in matching if _RANK[c] == ACE}
                    learn(seat, frozenset(avoided))
            drawing = -1
            suit = event.call if event.call >= 0 else _SUIT[card]
            rank = QUEEN if event.call >= 0 else _RANK[card]
            penalty = penalty + 3 if _RANK[card] == SEVEN else 0
        elif kind == "penalty":
            drawing = -1
            penalty = 0
            if greedy_model and seat not in wild:
                learn(seat, _SEVENS)
            if seat in known:
                known[seat] = known[seat]._replace(fresh=known[seat].fresh + event.count)
    return known


def ungreedy_seats(view: SevenView) -> frozenset[int]:
    """The seats whose plays this deal show they do not follow :func:`greedy_card`.

    Between two draws a seat's hand only shrinks, so every card it plays was
    already in its hand at each of its earlier plays since it last drew.  Had
    such a card matched then and outranked the card played then in the greedy
    order (a 7, then an Ace, then a plain card, a Queen last), a greedy seat
    would have played it then.  This needs no hidden card: it reads the log only.
    """
    runs: dict[int, list[tuple[int, int, int, int]]] = {}  # seat -> (suit, rank, penalty, card) since its last draw
    found: set[int] = set()
    suit, rank, penalty = -1, -1, 0
    for event in view.events:
        kind = event.kind
        seat = event.seat
        if kind == "up":
            suit, rank = _SUIT[event.card], _RANK[event.card]
        elif kind == "draw" or kind == "penalty":
            runs[seat] = []
            if kind == "penalty":
                penalty = 0
        elif kind == "play":
            card = event.card
            run = runs.setdefault(seat, [])
            if seat not in found:
                card_rank = _RANK[card]
                for old_suit, old_rank, old_penalty, old_card in run:
                    if old_penalty:
                        matched = card in _SEVENS
                    else:
                        matched = card_rank == QUEEN or card_rank == old_rank or _SUIT[card] == old_suit
                    if matched and _GREEDY_ORDER[card_rank] > _GREEDY_ORDER[_RANK[old_card]]:
                        found.add(seat)
                        break
            run.append((suit, rank, penalty, card))
            suit = event.call if event.call >= 0 else _SUIT[card]
            rank = QUEEN if event.call >= 0 else _RANK[card]
            penalty = penalty + 3 if _RANK[card] == SEVEN else 0
    return frozenset(found)


class Table(NamedTuple):
    """What the public log tells about the stock (see :func:`track_table`)."""

    stock_pool: frozenset[int] | None
    """The cards the stock was made of at the last reshuffle (None before any: it may hold anything)."""
    stock_slots: tuple[int, ...]
    """The stock as far as it is known, top last: a card, or -1 where it is unknown."""
    held: Mapping[int, int]
    """Cards known to have been drawn by a seat (a buried card whose place came up), by card."""


class StockReplay:
    """The stock as the public log tells it, replayed event by event.

    A reshuffle turns the discards -- all seen face up -- into the new stock (a
    new *generation*: 0 is the stock of the deal).  A 7, Ace or Queen turned up
    at the deal goes back into the middle of the stock, at a place everyone saw.
    ``slots`` is the stock, top last: a known card, or -1.
    """

    def __init__(self, seats: int) -> None:
        self.slots: list[int] = [-1] * (52 - HAND_SIZE * seats)
        self.leftover: list[int] = []
        """The old stock's last cards, drawn by the draw a reshuffle interrupted."""
        self.pile: list[int] = []
        """The discards, oldest first."""
        self.pools: list[list[int]] = []
        """The cards each reshuffle made into a stock (generation ``g`` is ``pools[g - 1]``)."""
        self.gen = 0

    def feed(self, event: Event) -> list[tuple[int, int]] | None:
        """Replay one event: the cards a draw or penalty took in order, as ``(card or -1, generation)``.

        Other events take nothing (``[]``); None means the log does not add up.
        """
        kind = event.kind
        if kind == "play":
            self.pile.append(event.card)
        elif kind == "draw" or kind == "penalty":
            count = event.count
            taken = [(card, self.gen - 1) for card in self.leftover[:count]]
            del self.leftover[:count]
            rest = count - len(taken)
            slots = self.slots
            if rest > len(slots):
                return None
            if rest:
                taken += [(card, self.gen) for card in reversed(slots[len(slots) - rest :])]
                del slots[len(slots) - rest :]
            return taken
        elif kind == "shuffle":
            pool = self.pile[:-1]
            if len(pool) != event.count:
                return None
            self.leftover = self.slots[::-1]
            self.pools.append(pool)
            self.gen += 1
            self.pile = self.pile[-1:]
            self.slots = [-1] * event.count
        elif kind == "bury" or kind == "up":
            if not self.slots:
                return None
            self.slots.pop()
            if kind == "bury":
                self.slots.insert(len(self.slots) // 2, event.card)
            else:
                self.pile = [event.card]
        return []

    def complete(self, view: SevenView) -> bool:
        """Whether the replay ends with the stock the view shows."""
        return not self.leftover and len(self.slots) == view.stock_count


def track_table(view: SevenView) -> Table | None:
    """What the public log tells about the stock (None if the log does not add up; see :class:`StockReplay`).

    After a reshuffle the stock holds only the cards it was made of (less what
    was drawn since), and every other unseen card is in a hand; whoever draws
    the place of a card buried at the deal gets that card.
    """
    replay = StockReplay(view.seats)
    held: dict[int, int] = {}
    for event in view.events:
        taken = replay.feed(event)
        if taken is None:
            return None
        if event.kind == "play":
            held.pop(event.card, None)
        for card, _gen in taken:
            if card >= 0:
                held[card] = event.seat
    if not replay.complete(view):
        return None
    hand = set(view.hand)
    played = set(view.played)
    return Table(
        frozenset(replay.pools[-1]) if replay.pools else None,
        tuple(replay.slots),
        {card: seat for card, seat in held.items() if seat != view.seat and card not in hand and card not in played},
    )


def determinize(
    view: SevenView,
    unseen: list[int],
    knowledge: Mapping[int, Knowledge],
    table: Table | None = None,
    rng: random.Random | None = None,
) -> tuple[list[list[int]], list[int]]:
    """Deal the shuffled ``unseen`` cards into the other hands and the stock, as the log allows.

    Respects ``knowledge`` (what seats lack) where it can, and ``table`` (which
    cards may be in the stock, known places in it, known holders) always.
    """
    hands: list[list[int]] = [[] for _ in range(view.seats)]
    hands[view.seat] = list(view.hand)
    room = [0 if seat == view.seat else size for seat, size in enumerate(view.hand_sizes)]
    stock: list[int] = []
    placed: set[int] = set()
    must_hold: list[int] = []
    if table is not None:
        for card, seat in table.held.items():
            if room[seat] > 0:
                hands[seat].append(card)
                room[seat] -= 1
                placed.add(card)
        placed.update(card for card in table.stock_slots if card >= 0)
        if table.stock_pool is not None:
            must_hold = [c for c in unseen if c not in table.stock_pool and c not in placed]
    pool = [c for c in unseen if c not in placed]
    others = [seat for seat in range(view.seats) if seat != view.seat]
    # Exceptions each seat may still take: cards received since the evidence.
    spare = {seat: known.fresh for seat, known in knowledge.items()}
    if must_hold:
        # These cannot be in the stock: spread them over the hands, each to a seat that may hold it.
        held_set = set(must_hold)
        pool = [c for c in pool if c not in held_set]
        for card in must_hold:
            fits = [seat for seat in others if room[seat] > 0 and card not in _forbidden(knowledge, seat)]
            if not fits:
                fits = [seat for seat in others if room[seat] > 0 and spare.get(seat, 0) > 0]
                for seat in fits[:1]:
                    spare[seat] -= 1
            if not fits:
                fits = [seat for seat in others if room[seat] > 0]
            if not fits:
                break
            if rng is None:
                rng = random.Random(len(unseen))
            seat = fits[0] if len(fits) == 1 else _pick(fits, room, rng)
            hands[seat].append(card)
            room[seat] -= 1
    # Seats with knowledge pick next, from the cards they may hold; the rest take any card.
    for seat, known in knowledge.items():
        need = room[seat] - spare.get(seat, 0) if seat != view.seat else 0
        if need <= 0:
            continue
        chosen = [c for c in pool if c not in known.forbidden][:need]
        taken = set(chosen)
        pool = [c for c in pool if c not in taken]
        hands[seat].extend(chosen)
        room[seat] -= len(chosen)
    for seat in others:
        need = room[seat]
        hands[seat].extend(pool[:need])
        pool = pool[need:]
    stock = pool
    if table is not None and any(card >= 0 for card in table.stock_slots):
        rest = iter(stock)
        stock = [card if card >= 0 else next(rest, -1) for card in table.stock_slots]
        stock = [card for card in stock if card >= 0] + list(rest)
    return hands, stock


def _forbidden(knowledge: Mapping[int, Knowledge], seat: int) -> frozenset[int]:
    known = knowledge.get(seat)
    return known.forbidden if known is not None else frozenset()


def _pick(fits: list[int], room: list[int], rng: random.Random) -> int:
    """A seat among ``fits``, likelier the more room it has."""
    total = sum(room[seat] for seat in fits)
    mark = rng.randrange(total)
    for seat in fits:
        mark -= room[seat]
        if mark < 0:
            return seat
    return fits[-1]


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
