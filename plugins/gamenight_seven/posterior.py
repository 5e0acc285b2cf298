"""The hidden cards of SEVEN as the public log explains them: a sampler for the expert.

The expert looks ahead on deals of the cards it cannot see.  Dealt at random,
most such deals contradict what the table has watched: a seat that drew must
have held nothing playable, a seat that played a plain card held no matching 7,
and so on.  This module draws deals that explain the whole log of the deal,
assuming the other seats play like :func:`~gamenight_seven.policies.greedy_card`
(unless the log already shows a seat does not: ``wild``).

Model.  Every card a seat ever held came into its hand through a *slot*: one of
its five dealt cards, or one card of one of its draws.  A slot belongs to a
*generation*: the first stock (0) or the stock made by the g-th reshuffle, whose
cards are public (they were the discards).  Under a uniform shuffle every
assignment of a generation's cards to its slots (and to what is left of the
stock) is equally likely, so the posterior is uniform over the assignments
under which

* every card a seat played sat in one of its slots received before the play, and
* the greedy policy, given the hand those slots make at each of the seat's
  decisions, makes exactly the logged move (the card, the Queen's call, a draw
  only when nothing matches, a 7 penalty taken only without a 7).

A Metropolis chain over swaps and rotations of a generation's cards samples it:
each breach of the second rule costs energy (graded, so the chain can descend;
the first rule is never broken).  Its deals have energy 0 most of the time;
when the chain has not found one it still hands over its best current guess.
Only the view is read -- the seat's own cards and the public log -- so the
sampler cannot peek.  What it is worth is measured in bench/results/seven.md.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from .cards import QUEEN, RANK_OF, SEVEN, SUIT_OF
from .inference import StockReplay
from .policies import GREEDY_ORDER, matching_cards
from .rules import HAND_SIZE, SevenView

__all__ = ["Posterior"]

HOLD_BREACH = 1000
"""Energy of a played card that was not in the seat's hand: the chain never accepts it."""


class Posterior:
    """The slot model of one view, and a chain over it (see the module doc).

    ``ok`` is False when the log cannot be read into the model (then use another
    sampler).  :meth:`step` runs the chain; :meth:`deal` gives the hands and the
    stock as it has them.  Seats in ``wild`` are only held to the first rule.
    """

    def __init__(
        self, view: SevenView, rng: random.Random, beta: float = 4.0, wild: frozenset[int] = frozenset()
    ) -> None:
        self.view = view
        self.wild = wild
        self.rng = rng
        self.beta = beta
        self.ok = self._read_log() and self._place() and self._compile()

    # -- the model, read from the log --------------------------------------------------

    def _read_log(self) -> bool:
        """Each other seat's slots and moves in order, by replaying the public log (False: it does not add up)."""
        view = self.view
        me, seats = view.seat, view.seats
        slot_seat: list[int] = []  # per slot: its seat
        slot_gen: list[int] = []
        slot_card: list[int] = []  # -1 unknown, else the card (pinned, or assigned by the chain)
        pinned: list[bool] = []
        timeline: dict[int, list[tuple]] = {s: [] for s in range(seats) if s != me}
        gen_of = [0] * 52  # the generation each card belongs to now
        pools: list[set[int]] = [set()]
        mine_by_gen: list[set[int]] = [set()]
        replay = StockReplay(seats)
        up = -1
        suit, rank, called, penalty = -1, -1, -1, 0

        def new_slot(seat: int, g: int, card: int) -> None:
            index = len(slot_seat)
            slot_seat.append(seat)
            slot_gen.append(g)
            slot_card.append(card)
            pinned.append(card >= 0)
            timeline[seat].append(("recv", index))

        for seat in timeline:
            for _ in range(HAND_SIZE):
                new_slot(seat, 0, -1)
        for event in view.events:
            taken = replay.feed(event)
            if taken is None:
                return False
            kind, seat = event.kind, event.seat
            if kind == "up":
                up = event.card
                suit, rank = SUIT_OF[up], RANK_OF[up]
            elif kind == "play":
                card = event.card
                if seat == me:
                    mine_by_gen[gen_of[card]].add(card)
                else:
                    timeline[seat].append(("play", card, gen_of[card], suit, rank, called, penalty, event.call))
                called = event.call
                suit = called if called >= 0 else SUIT_OF[card]
                rank = QUEEN if called >= 0 else RANK_OF[card]
                penalty = penalty + 3 if RANK_OF[card] == SEVEN else 0
            elif kind == "draw" or kind == "penalty" or kind == "pass":
                if seat != me:
                    timeline[seat].append(("none", suit, rank, called, penalty))
                    for card, g in taken:
                        new_slot(seat, g, card)
                if kind == "penalty":
                    penalty = 0
            elif kind == "shuffle":
                for card in replay.pools[-1]:
                    gen_of[card] = replay.gen
                pools.append(set(replay.pools[-1]))
                mine_by_gen.append(set())
        if not replay.complete(view):
            return False
        for card in view.hand:
            mine_by_gen[gen_of[card]].add(card)
        pools[0] = set(range(52)) - {up}
        gen, stock = replay.gen, replay.slots
        self.gen, self.stock_places, self.pools, self.mine_by_gen = gen, stock, pools, mine_by_gen
        self.slot_seat, self.slot_gen, self.slot_card, self.pinned = slot_seat, slot_gen, slot_card, pinned
        self.timeline = timeline
        return True

    def _place(self) -> bool:
        """A first placement: every played card in a slot of its seat, the other cards at random."""
        gen, stock, pools, mine_by_gen = self.gen, self.stock_places, self.pools, self.mine_by_gen
        slot_gen, slot_card, pinned = self.slot_gen, self.slot_card, self.pinned
        # Which cards each generation still has to place: its cards less mine, less pinned ones.
        free: list[list[int]] = []
        for g, pool in enumerate(pools):
            known = {slot_card[i] for i in range(len(slot_card)) if slot_gen[i] == g and pinned[i]}
            if g == gen:
                known |= {card for card in stock if card >= 0}
            free.append(sorted(pool - mine_by_gen[g] - known))
        # Place each played card in the latest free slot of its seat received before the play
        # (a card played just after a draw was most often the card drawn).
        for entries in self.timeline.values():
            open_slots: list[int] = []
            for entry in entries:
                if entry[0] == "recv":
                    if not pinned[entry[1]]:
                        open_slots.append(entry[1])
                elif entry[0] == "play":
                    card, g = entry[1], entry[2]
                    if any(slot_card[i] == card and slot_gen[i] == g for i in range(len(slot_card))):
                        continue  # pinned already (a buried card drawn at a known place)
                    home = next((i for i in reversed(open_slots) if slot_gen[i] == g and slot_card[i] < 0), -1)
                    if home < 0 or card not in free[g]:
                        return False
                    slot_card[home] = card
                    free[g].remove(card)
        # The rest at random into the empty slots and (for the current generation) the stock.
        self.positions: list[list[int]] = []  # per generation: slot indices, then -1 - k for stock place k
        self.stock_cards: list[int] = []
        for g in range(len(pools)):
            cards = list(free[g])
            self.rng.shuffle(cards)
            places = [i for i in range(len(slot_card)) if slot_gen[i] == g and not pinned[i]]
            empty = [i for i in places if slot_card[i] < 0]
            stock_room = sum(1 for card in stock if card < 0) if g == gen else 0
            if len(cards) != len(empty) + stock_room:
                return False
            for i in empty:
                slot_card[i] = cards.pop()
            if g == gen:
                self.stock_cards = cards
                places += [-1 - k for k in range(stock_room)]
            self.positions.append(places)
        return True

    def _compile(self) -> bool:
        """The checks :meth:`_energy` runs, the tables :meth:`step` draws its moves from, the energies."""
        timeline, slot_seat, slot_gen, pinned = self.timeline, self.slot_seat, self.slot_gen, self.pinned
        # The timeline compiled for _energy: (0, slot) a card received, (1, card, cards that may go on the
        # lead, penalty, call) a play, (2, cards that may go on the lead) a draw, penalty or pass.
        # A wild seat's plays only need the card in hand, and its draws tell nothing.
        self.checks = {}
        for seat, entries in timeline.items():
            wild = seat in self.wild
            checks: list[tuple] = []
            for entry in entries:
                if entry[0] == "recv":
                    checks.append((0, entry[1]))
                elif entry[0] == "play":
                    if wild:
                        checks.append((1, entry[1], frozenset(), 0, -1))
                    else:
                        checks.append((1, entry[1], matching_cards(entry[3], entry[4], entry[6]), entry[6], entry[7]))
                elif not wild:
                    checks.append((2, matching_cards(entry[1], entry[2], entry[4])))
            self.checks[seat] = checks
        # Proposal tables.  A card some seat played in a generation stays in that seat's slots.
        played = {(entry[1], entry[2]) for entries in timeline.values() for entry in entries if entry[0] == "play"}
        self.hidden_places = [
            [p for p in places if (self._card_at(p), g) not in played] for g, places in enumerate(self.positions)
        ]
        self.hidden_index = [{place: i for i, place in enumerate(places)} for places in self.hidden_places]
        self.hidden_gens = [g for g, places in enumerate(self.hidden_places) if len(places) > 1]
        self.slots_by_gen: dict[tuple[int, int], list[int]] = {}
        for index in range(len(slot_seat)):
            if not pinned[index]:
                self.slots_by_gen.setdefault((slot_seat[index], slot_gen[index]), []).append(index)
        self.seat_slots = [
            [i for i in range(len(slot_seat)) if slot_seat[i] == seat and not pinned[i]] for seat in timeline
        ]
        self.seat_slots = [slots for slots in self.seat_slots if slots]
        self.slots_of = {self.slot_seat[slots[0]]: slots for slots in self.seat_slots}
        self.played = played
        self.energy = {seat: self._energy(seat) for seat in timeline}
        return True

    # -- energy: how far a seat's slots are from explaining its moves -------------------

    def _energy(self, seat: int) -> int:
        """How far the seat's slots are from explaining its moves: 0 exactly when they do.

        Graded, so that a chain can descend: a wrong play counts the cards greedy
        would have played first, a wrong call how many cards short the called
        suit is, a draw the cards that could have been played instead.
        """
        slot_card = self.slot_card
        hand: set[int] = set()
        counts = [0, 0, 0, 0]  # the hand's cards by suit
        plain = [0, 0, 0, 0]  # the same without Queens (what a call counts)
        energy = 0
        for check in self.checks[seat]:
            kind = check[0]
            if kind == 0:
                card = slot_card[check[1]]
                hand.add(card)
                counts[SUIT_OF[card]] += 1
                if RANK_OF[card] != QUEEN:
                    plain[SUIT_OF[card]] += 1
            elif kind == 1:
                _kind, card, match, penalty, call = check
                if card not in hand:
                    return HOLD_BREACH
                rivals = hand & match
                if len(rivals) > 1:
                    if penalty:
                        energy += sum(1 for c in rivals if c < card)
                    else:
                        key = (GREEDY_ORDER[RANK_OF[card]], counts[SUIT_OF[card]])
                        for c in rivals:
                            other = (GREEDY_ORDER[RANK_OF[c]], counts[SUIT_OF[c]])
                            if other > key or (other == key and c < card):
                                energy += 1
                hand.discard(card)
                counts[SUIT_OF[card]] -= 1
                if RANK_OF[card] != QUEEN:
                    plain[SUIT_OF[card]] -= 1
                if call >= 0:
                    best = max(plain)
                    energy += best - plain[call]
                    if plain[call] == best and plain.index(best) < call:
                        energy += 1
            else:
                energy += len(hand & check[1])
        return energy

    def _card_at(self, place: int) -> int:
        return self.slot_card[place] if place >= 0 else self.stock_cards[-1 - place]

    def _put(self, place: int, card: int) -> None:
        if place >= 0:
            self.slot_card[place] = card
        else:
            self.stock_cards[-1 - place] = card

    def step(self, moves: int, beta_from: float | None = None, stop: Callable[[], bool] | None = None) -> None:
        """``moves`` Metropolis proposals, ``beta`` rising from ``beta_from`` if given.

        A third of the proposals swap two cards nobody is known to have played
        between two places of one generation (hands or stock); a third swap two
        slots of one seat (the same cards, received at other times); a third
        rotate three cards: one seat's two slots and a third place of that seat
        or anywhere in that generation (a played card moves to a later slot, the
        card there leaves).  While a seat's moves are unexplained, half the
        seat-wise proposals go to such a seat: this breaks the symmetry of the
        proposals only on the way to the states that explain the log.
        ``stop`` is asked every 128 moves whether to stop early.
        """
        rng = self.rng
        gens = self.hidden_gens
        for move in range(moves):
            if stop is not None and not move % 128 and move and stop():
                return
            beta = self.beta if beta_from is None else beta_from + (self.beta - beta_from) * move / moves
            kind = rng.randrange(3)
            if kind == 0:
                if not gens:
                    continue
                places = self.hidden_places[gens[rng.randrange(len(gens))]]
                cycle = rng.sample(places, 2)
            else:
                if not self.seat_slots:
                    continue
                troubled = [seat for seat, energy in self.energy.items() if energy and seat in self.slots_of]
                if troubled and rng.random() < 0.5:  # look where the log is not yet explained
                    slots = self.slots_of[troubled[rng.randrange(len(troubled))]]
                else:
                    slots = self.seat_slots[rng.randrange(len(self.seat_slots))]
                a = slots[rng.randrange(len(slots))]
                gen = self.slot_gen[a]
                same = self.slots_by_gen[(self.slot_seat[a], gen)]
                b = same[rng.randrange(len(same))]
                if a == b:
                    continue
                cycle = [a, b]
                if kind == 2:
                    around = self.positions[gen] if rng.random() < 0.5 else same
                    c = around[rng.randrange(len(around))]
                    if c == a or c == b:
                        continue
                    cycle.append(c)
            self._rotate(cycle, beta)

    def _rotate(self, cycle: list[int], beta: float) -> None:
        """Move the card at each place of ``cycle`` to the next (the last to the first), if Metropolis accepts."""
        old = [self._card_at(place) for place in cycle]
        for index, place in enumerate(cycle):
            self._put(place, old[index - 1])
        touched = {self.slot_seat[place] for place in cycle if place >= 0}
        before = sum(self.energy[seat] for seat in touched)
        after = {seat: self._energy(seat) for seat in touched}
        delta = sum(after.values()) - before
        if delta <= 0 or self.rng.random() < math.exp(-beta * delta):
            self.energy.update(after)
            for place in cycle:
                self._mark(place)
        else:
            for place, card in zip(cycle, old, strict=True):
                self._put(place, card)

    def _mark(self, place: int) -> None:
        """Keep ``hidden_places`` right: the places holding a card no seat is known to have played."""
        gen = self.slot_gen[place] if place >= 0 else self.gen
        hidden = (self._card_at(place), gen) not in self.played
        where = self.hidden_index[gen]
        if hidden and place not in where:
            where[place] = len(self.hidden_places[gen])
            self.hidden_places[gen].append(place)
        elif not hidden and place in where:
            places = self.hidden_places[gen]
            index = where.pop(place)
            last = places.pop()
            if last != place:
                places[index] = last
                where[last] = index

    def total_energy(self) -> int:
        return sum(self.energy.values())

    def deal(self) -> tuple[list[list[int]], list[int]]:
        """The hands now and the stock (top last), as the chain has them."""
        view = self.view
        hands = [list(view.hand) if seat == view.seat else [] for seat in range(view.seats)]
        for seat, entries in self.timeline.items():
            hand: list[int] = []
            for entry in entries:
                if entry[0] == "recv":
                    hand.append(self.slot_card[entry[1]])
                elif entry[0] == "play" and entry[1] in hand:
                    hand.remove(entry[1])
            hands[seat] = hand
        rest = list(self.stock_cards)
        self.rng.shuffle(rest)
        stock = [card if card >= 0 else rest.pop() for card in self.stock_places]
        return hands, stock
