"""Reading SEVEN's public log: what each seat cannot hold, the stock, and deals that fit.

All of it works from one seat's :class:`~gamenight_seven.rules.SevenView`:
the public log and the seat's own hand, never a hidden card.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import NamedTuple

from .cards import ACE, QUEEN, RANK_OF, SEVEN, SEVEN_CARDS, SUIT_OF
from .policies import GREEDY_ORDER, matching_cards
from .rules import HAND_SIZE, Event, SevenView

__all__ = ["Knowledge", "StockReplay", "Table", "determinize", "infer_knowledge", "track_table", "ungreedy_seats"]


class Knowledge(NamedTuple):
    """What one seat is known not to hold, read from the public log."""

    forbidden: frozenset[int]
    """Cards its hand held none of (as it was when the evidence was seen)."""
    fresh: int
    """Cards it has received since (those may be anything)."""


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
            suit, rank = SUIT_OF[event.card], RANK_OF[event.card]
        elif kind == "draw":
            if seat in known:
                known[seat] = known[seat]._replace(fresh=known[seat].fresh + event.count)
            drawing = seat
        elif kind == "play":
            card = event.card
            matching = matching_cards(suit, rank, penalty)
            if drawing == seat:
                known[seat] = Knowledge(matching, 0)
            elif greedy_model and not penalty and seat not in wild:
                card_rank = RANK_OF[card]
                if card_rank == QUEEN:
                    learn(seat, frozenset(c for c in matching if RANK_OF[c] != QUEEN))
                elif card_rank != SEVEN:
                    avoided = {c for c in matching if RANK_OF[c] == SEVEN}
                    if card_rank != ACE:
                        avoided |= {c for c in matching if RANK_OF[c] == ACE}
                    learn(seat, frozenset(avoided))
            drawing = -1
            suit = event.call if event.call >= 0 else SUIT_OF[card]
            rank = QUEEN if event.call >= 0 else RANK_OF[card]
            penalty = penalty + 3 if RANK_OF[card] == SEVEN else 0
        elif kind == "penalty":
            drawing = -1
            penalty = 0
            if greedy_model and seat not in wild:
                learn(seat, SEVEN_CARDS)
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
            suit, rank = SUIT_OF[event.card], RANK_OF[event.card]
        elif kind == "draw" or kind == "penalty":
            runs[seat] = []
            if kind == "penalty":
                penalty = 0
        elif kind == "play":
            card = event.card
            run = runs.setdefault(seat, [])
            if seat not in found:
                card_rank = RANK_OF[card]
                for old_suit, old_rank, old_penalty, old_card in run:
                    if old_penalty:
                        matched = card in SEVEN_CARDS
                    else:
                        matched = card_rank == QUEEN or card_rank == old_rank or SUIT_OF[card] == old_suit
                    if matched and GREEDY_ORDER[card_rank] > GREEDY_ORDER[RANK_OF[old_card]]:
                        found.add(seat)
                        break
            run.append((suit, rank, penalty, card))
            suit = event.call if event.call >= 0 else SUIT_OF[card]
            rank = QUEEN if event.call >= 0 else RANK_OF[card]
            penalty = penalty + 3 if RANK_OF[card] == SEVEN else 0
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
