"""A fast SEVEN deal for the expert's playouts, checked move by move against the rules.

:class:`Simulator` holds one deal with every card known -- a determinization:
the expert's own hand and its sample of the hidden cards -- as mutable lists,
and plays it on far faster than :class:`~gamenight_seven.rules.SevenRules`
builds immutable states.  It keeps no log and checks no move (it is only ever
given legal ones), but it follows docs/rules/seven.md as the engine does:
matching (3.1), drawing (3.3), the Ace skip (3.4), Queens and their calls
(3.6), 7 penalties (4), reshuffles and an exhausted table (5.1, 5.2),
blocking (5.3), the repeated position of a dry table (5.4), the turn limit, the
end of the deal and its scores (6).  tests/plugins/seven/test_simulator.py
plays seeded deals through both and asserts they agree after every move.

Its moves are the rules' action strings (:meth:`legal_actions`,
:meth:`apply`); :meth:`playout` plays every seat by a policy from
:mod:`gamenight_seven.policies`.
"""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Callable, Sequence
from typing import Any

from gamenight.sdk import Action

from .cards import ACE, CARD_CODES, PENALTY_OF, QUEEN, RANK_OF, SEVEN, SEVEN_CARDS, SUIT_OF, SUITS, parse_card
from .policies import best_call, greedy_card, matching_cards
from .rules import DRY_DISCARDS, PENALTY_STEP, TURN_LIMIT, SevenView

__all__ = ["SHEDDING", "Policy", "Simulator", "passes_in_a_row"]

SHEDDING = 2.0
"""How much likelier to go out first a hand is for each card fewer (:meth:`Simulator.estimate`)."""

Policy = Callable[[Sequence[int], int, int, int], int]
"""``policy(hand, top, called, penalty)``: the card to discard, or -1 to draw (see :mod:`~gamenight_seven.policies`)."""


def passes_in_a_row(view: SevenView) -> int:
    """Turns in a row, up to the view, that ended with nothing played or drawn (read from the public log)."""
    passes = 0
    for event in reversed(view.events):
        kind = event.kind
        if kind == "pass" or (kind == "penalty" and not event.count):
            passes += 1
        elif kind == "play" or kind == "draw" or kind == "penalty":
            break
    return passes


class Simulator:
    """One deal in play with every card placed; the seat to move is :attr:`turn`.

    ``hands``, ``stock`` and ``discards`` (top card last) are lists the
    simulator changes in place; it keeps each hand sorted, as the rules do, so
    that a policy breaking a tie by the order of the hand picks the card it picks
    at the table.  ``rng`` reshuffles the discards when the stock runs out.
    :attr:`winner` is -1 until the deal ends.
    """

    __slots__ = (
        "called",
        "discards",
        "dry_positions",
        "hands",
        "passes",
        "penalty",
        "rng",
        "seats",
        "stock",
        "turn",
        "turns",
        "winner",
    )

    def __init__(
        self,
        hands: list[list[int]],
        stock: list[int],
        discards: list[int],
        turn: int,
        rng: random.Random,
        called: int = -1,
        penalty: int = 0,
        turns: int = 0,
        passes: int = 0,
    ) -> None:
        for hand in hands:
            hand.sort()
        self.hands = hands
        self.stock = stock
        self.discards = discards
        self.seats = len(hands)
        self.turn = turn
        self.called = called
        """The suit the Queen on top called, or -1."""
        self.penalty = penalty
        """The 7 penalty pending on the seat to move."""
        self.turns = turns
        self.passes = passes
        """Turns in a row that ended with nothing played or drawn (all seats: blocked)."""
        self.rng = rng
        self.winner = -1
        self.dry_positions: list[tuple[Any, ...]] = []
        """Positions at turn ends while the table was dry (docs/rules/seven.md 5.4)."""

    @classmethod
    def from_view(
        cls, view: SevenView, hands: list[list[int]], stock: list[int], rng: random.Random, passes: int | None = None
    ) -> Simulator:
        """The deal ``view`` shows, with the hidden cards as dealt in ``hands`` and ``stock``.

        ``passes`` is :func:`passes_in_a_row` of the view (read from the log if not given).
        """
        return cls(
            hands,
            stock,
            list(view.played),
            view.turn,
            rng,
            view.called,
            view.penalty,
            view.turns,
            passes_in_a_row(view) if passes is None else passes,
        )

    # -- the moves, as the rules spell them ------------------------------------------------

    def legal_actions(self) -> list[Action]:
        """The legal moves of the seat to move, in the order and spelling of ``SevenRules.legal_actions``."""
        if self.winner >= 0:
            return []
        hand = self.hands[self.turn]
        if self.penalty:
            return [CARD_CODES[c] for c in hand if c in SEVEN_CARDS] + ["draw"]
        match = self.matching()
        actions: list[Action] = []
        for card in hand:
            if card in match:
                if RANK_OF[card] == QUEEN and len(hand) > 1:
                    actions += [f"{CARD_CODES[card]}:{suit}" for suit in SUITS]
                else:
                    actions.append(CARD_CODES[card])
        if self.stock or len(self.discards) > 1:
            actions.append("draw")
        elif not actions:
            actions.append("pass")
        return actions

    def matching(self) -> frozenset[int]:
        """The cards that may be discarded now (docs/rules/seven.md 3.1, 3.6, 4.3)."""
        if self.called >= 0:
            return matching_cards(self.called, QUEEN, self.penalty)
        top = self.discards[-1]
        return matching_cards(SUIT_OF[top], RANK_OF[top], self.penalty)

    def apply(self, action: Action) -> None:
        """Play ``action`` (one of :meth:`legal_actions`) for the seat to move."""
        if action == "draw":
            if self.penalty:
                self.take_penalty()
            else:
                self.draw()
        elif action == "pass":
            self.pass_turn()
        else:
            self.play(parse_card(action[:2]), SUITS.index(action[3]) if ":" in action else -1)

    def draw(self) -> int:
        """The seat to move draws one card (its turn goes on); how many it got (0: nothing left)."""
        drawn = self._take(self.turn, 1)
        if drawn:
            self.passes = 0
        return drawn

    def take_penalty(self) -> None:
        """The seat to move draws the pending 7 penalty (as far as the cards go); its turn ends."""
        seat = self.turn
        drawn = self._take(seat, self.penalty)
        self.penalty = 0
        self.passes = 0 if drawn else self.passes + 1
        self._end_turn(seat)

    def pass_turn(self) -> None:
        """The seat to move, unable to play or draw, passes."""
        self.passes += 1
        self._end_turn(self.turn)

    def play(self, card: int, call: int = -1) -> int:
        """The seat to move discards ``card`` (a Queen calls ``call``); the winner, or -1 while the deal goes on."""
        seat = self.turn
        hand = self.hands[seat]
        hand.remove(card)
        self.discards.append(card)
        self.turns += 1
        if not hand:  # seven.md 6.1
            self.winner = seat
            return seat
        rank = RANK_OF[card]
        self.called = call if rank == QUEEN else -1
        self.penalty = self.penalty + PENALTY_STEP if rank == SEVEN else 0
        self.turn = (seat + (2 if rank == ACE else 1)) % self.seats
        self.passes = 0
        if self.turns >= TURN_LIMIT or (not self.stock and len(self.discards) <= DRY_DISCARDS):
            self._check_end()
        return self.winner

    def _take(self, seat: int, count: int) -> int:
        """``seat`` draws up to ``count`` cards, reshuffling the discards when the stock runs out."""
        hand = self.hands[seat]
        drawn = 0
        while drawn < count:
            if not self.stock:
                if len(self.discards) < 2:
                    break  # seven.md 5.2: what is not there is not drawn
                self.stock = self.discards[:-1]  # seven.md 5.1
                self.rng.shuffle(self.stock)
                del self.discards[:-1]
            insort(hand, self.stock.pop())
            drawn += 1
        return drawn

    def _end_turn(self, seat: int) -> None:
        """A turn that played nothing is over: the next seat, then the checks that end a deal."""
        self.turn = (seat + 1) % self.seats
        self.turns += 1
        if self.passes >= self.seats:  # seven.md 5.3
            self._block()
        else:
            self._check_end()

    def _check_end(self) -> None:
        """The turn limit, and a position come round a third time on a dry table (seven.md 5.4)."""
        if self.turns >= TURN_LIMIT:
            self._block()
        elif not self.stock and len(self.discards) <= DRY_DISCARDS:
            position = (
                tuple(tuple(sorted(hand)) for hand in self.hands),
                tuple(self.discards),
                self.turn,
                self.called,
                self.penalty,
            )
            if self.dry_positions.count(position) >= 2:
                self._block()
            else:
                self.dry_positions.append(position)

    def _block(self) -> None:
        """A blocked deal: the lowest penalty in hand wins, ties to the first from the seat to move."""
        order = [(self.turn + k) % self.seats for k in range(self.seats)]
        self.winner = min(order, key=lambda s: sum(PENALTY_OF[c] for c in self.hands[s]))

    # -- playouts and their value ------------------------------------------------------------

    def playout(self, horizon: int = TURN_LIMIT, me: int = -1, policy: Policy = greedy_card) -> int:
        """Play on to the end of the deal, or for ``horizon`` more turns; the winner, or -1.

        Every seat discards by :func:`~gamenight_seven.policies.greedy_card`
        (drawing until it can, a Queen calling :func:`~gamenight_seven.policies.best_call`),
        except ``me``, which follows ``policy``.
        """
        hands = self.hands
        stop = min(TURN_LIMIT, self.turns + horizon)
        while self.winner < 0 and self.turns < stop:
            seat = self.turn
            hand = hands[seat]
            choose = policy if seat == me else greedy_card
            card = choose(hand, self.discards[-1], self.called, self.penalty)
            if card < 0:
                if self.penalty:
                    self.take_penalty()
                    continue
                while card < 0 and self._take(seat, 1):
                    self.passes = 0
                    card = choose(hand, self.discards[-1], self.called, self.penalty)
                if card < 0:
                    self.pass_turn()
                    continue
            self.play(card, best_call([c for c in hand if c != card]) if RANK_OF[card] == QUEEN else -1)
        return self.winner

    def score(self, seat: int, winner: int, win_bonus: float = 0.0) -> float:
        """``seat``'s points for the deal (docs/rules/seven.md 6.2) plus ``win_bonus`` if it won.

        With no winner yet (``-1``) it is :meth:`estimate`.
        """
        if winner < 0:
            return self.estimate(seat, win_bonus)
        if seat == winner:
            return win_bonus + sum(sum(PENALTY_OF[c] for c in hand) for s, hand in enumerate(self.hands) if s != winner)
        return -sum(PENALTY_OF[c] for c in self.hands[seat])

    def estimate(self, seat: int, win_bonus: float = 0.0) -> float:
        """Expected :meth:`score` for ``seat`` in an unfinished deal, from hand sizes and penalties.

        Each seat's chance to go out first is taken as proportional to
        ``SHEDDING ** -cards``; the winner collects the others' penalties.
        """
        weights = [SHEDDING ** -len(hand) for hand in self.hands]
        penalties = [sum(PENALTY_OF[c] for c in hand) for hand in self.hands]
        total_weight = sum(weights)
        total_penalty = sum(penalties)
        value = 0.0
        for winner, weight in enumerate(weights):
            if winner == seat:
                value += weight * (win_bonus + total_penalty - penalties[seat])
            else:
                value -= weight * penalties[seat]
        return value / total_weight
