"""Goofspiel, the game of pure strategy: pure rules, no Textual.

Every seat holds the cards 1 to N (N = 13 by default: A 2 … 10 J Q K).  The
prize cards 1 to N are shuffled face down.  Each round one prize card is
turned up (a chance action) and every seat bids one card from its hand,
face down; then the bids are shown.  The single highest bid takes the prize
(plus any prizes carried over); a tie for highest means nobody takes it --
the prize is discarded, or with the ``carry`` option it stays in the pot for
the next round.  All bid cards are spent.  After N rounds the most points wins.

Actions (short strings, as the SDK wants):

* ``prize:7`` -- the chance action turning up the next prize card;
* ``bid:9`` -- the seat to move bids its 9.

Seats bid one after another (seat 0 first), but a bid stays hidden from the
other seats until the last bid of the round is in: that is this game's hidden
information, and :meth:`GoofspielRules.view` is where it is kept hidden.

This module translates nothing: it says what happened as data
(:meth:`GoofspielRules.public_events`) and why a move is refused as data
(``IllegalAction.because``); :mod:`.texts` makes the sentences.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from gamenight.sdk import CHANCE, TERMINAL, Action, IllegalAction, Outcome, PublicEvent, Rules

from .texts import card_name as card_name  # re-exported: the names live with the texts
from .texts import describe_event

MIN_SEATS, MAX_SEATS = 2, 4
DEFAULT_CARDS = 13


@dataclass(frozen=True)
class Round:
    """One finished round: the prize card, the pot it was worth, every bid, who took it."""

    prize: int
    worth: int
    bids: tuple[int, ...]
    winner: int | None


@dataclass(frozen=True)
class GoofspielState:
    """The whole game.  ``bids[seat]`` is ``None`` until that seat has bid this round."""

    cards: int
    carry: bool
    hands: tuple[frozenset[int], ...]
    prizes_left: frozenset[int]
    prize: int | None
    pot: int
    bids: tuple[int | None, ...]
    scores: tuple[int, ...]
    history: tuple[Round, ...] = ()


@dataclass(frozen=True)
class GoofspielView:
    """What one seat may see.

    ``unplayed[s]`` is every card seat ``s`` has not *shown* yet -- for the
    others that includes a bid made face down this round, so a pending bid
    cannot be worked out from it.  ``has_bid`` says who has bid, not what.
    """

    seat: int
    cards: int
    carry: bool
    hand: tuple[int, ...]
    my_bid: int | None
    has_bid: tuple[bool, ...]
    unplayed: tuple[tuple[int, ...], ...]
    prizes_left: tuple[int, ...]
    prize: int | None
    pot: int
    scores: tuple[int, ...]
    history: tuple[Round, ...]

    @property
    def worth(self) -> int:
        """What the current round is worth: the prize card plus the carried pot."""
        return (self.prize or 0) + self.pot


class GoofspielRules(Rules[GoofspielState, GoofspielView]):
    """The rules object.  Options: ``cards`` (int, 5-13), ``carry`` (bool)."""

    def new_game(self, seats: int, options: Mapping[str, Any]) -> GoofspielState:
        """Every seat holds 1..N, the N prize cards wait face down."""
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise ValueError(f"Goofspiel takes {MIN_SEATS}-{MAX_SEATS} seats, not {seats}")
        cards = int(options.get("cards", DEFAULT_CARDS))
        deck = frozenset(range(1, cards + 1))
        return GoofspielState(
            cards=cards,
            carry=bool(options.get("carry", False)),
            hands=(deck,) * seats,
            prizes_left=deck,
            prize=None,
            pot=0,
            bids=(None,) * seats,
            scores=(0,) * seats,
        )

    def to_move(self, state: GoofspielState) -> int:
        """CHANCE to turn up a prize, the first seat yet to bid, or TERMINAL."""
        if state.prize is None:
            return CHANCE if state.prizes_left else TERMINAL
        return state.bids.index(None)

    def legal_actions(self, state: GoofspielState) -> list[Action]:
        """``bid:V`` for every card in the hand of the seat to move."""
        seat = self.to_move(state)
        if seat < 0:
            return []
        return [f"bid:{value}" for value in sorted(state.hands[seat])]

    def sample_chance(self, state: GoofspielState, rng: random.Random) -> Action:
        """Turn up one of the prize cards still face down, uniformly."""
        return f"prize:{rng.choice(sorted(state.prizes_left))}"

    def apply(self, state: GoofspielState, action: Action) -> GoofspielState:
        """The state after ``action``; :class:`IllegalAction` (nothing changes) if illegal."""
        kind, _sep, text = action.partition(":")
        value = int(text) if text.isdigit() else None
        seat = self.to_move(state)
        if seat == TERMINAL:
            raise IllegalAction.because("game-over", "The game is over.")
        if seat == CHANCE:
            if kind != "prize" or value not in state.prizes_left:
                raise IllegalAction.because("prize-not-face-down", "The next prize must be a card still face down.")
            return replace(state, prize=value, prizes_left=state.prizes_left - {value})
        if kind != "bid" or value not in state.hands[seat]:
            raise IllegalAction.because("not-in-hand", "Bid one of the cards in your hand.")
        hands = (*state.hands[:seat], state.hands[seat] - {value}, *state.hands[seat + 1 :])
        bids = (*state.bids[:seat], value, *state.bids[seat + 1 :])
        state = replace(state, hands=hands, bids=bids)
        return self._resolve(state) if None not in bids else state

    def _resolve(self, state: GoofspielState) -> GoofspielState:
        """All bids are in: the single highest takes prize and pot; a tie discards or carries."""
        bids: tuple[int, ...] = tuple(bid for bid in state.bids if bid is not None)
        worth = (state.prize or 0) + state.pot
        top = max(bids)
        leaders = [seat for seat, bid in enumerate(bids) if bid == top]
        winner = leaders[0] if len(leaders) == 1 else None
        scores = state.scores
        if winner is not None:
            scores = (*scores[:winner], scores[winner] + worth, *scores[winner + 1 :])
        pot = worth if winner is None and state.carry else 0
        played = Round(prize=state.prize or 0, worth=worth, bids=bids, winner=winner)
        return replace(
            state,
            prize=None,
            pot=pot,
            bids=(None,) * len(bids),
            scores=scores,
            history=(*state.history, played),
        )

    def view(self, state: GoofspielState, seat: int) -> GoofspielView:
        """Everything public plus ``seat``'s own hand and bid; others' pending bids stay hidden."""
        unplayed = tuple(
            tuple(sorted(hand | ({bid} if bid is not None and other != seat else set())))
            for other, (hand, bid) in enumerate(zip(state.hands, state.bids, strict=True))
        )
        return GoofspielView(
            seat=seat,
            cards=state.cards,
            carry=state.carry,
            hand=tuple(sorted(state.hands[seat])),
            my_bid=state.bids[seat],
            has_bid=tuple(bid is not None for bid in state.bids),
            unplayed=unplayed,
            prizes_left=tuple(sorted(state.prizes_left)),
            prize=state.prize,
            pot=state.pot,
            scores=state.scores,
            history=state.history,
        )

    def current_scores(self, state: GoofspielState) -> tuple[float, ...]:
        """Points taken so far."""
        return tuple(float(score) for score in state.scores)

    def outcome(self, state: GoofspielState) -> Outcome:
        """The most points wins; a tie shares the win."""
        won = [0] * len(state.scores)
        for played in state.history:
            if played.winner is not None:
                won[played.winner] += 1
        return Outcome.from_scores(
            self.current_scores(state),
            lines=[("Prizes taken", [float(count) for count in won]), ("Points", list(self.current_scores(state)))],
        )

    def public_events(self, before: GoofspielState, action: Action, seat: int) -> list[PublicEvent]:
        """A prize turned up (``card``); a bid (``seat``, never its card); when the last bid of the
        round is in, the bids shown (``bids``, ``winner`` or None on a tie, ``worth``)."""
        if seat == CHANCE:
            return [PublicEvent("prize", {"card": int(action.partition(":")[2])})]
        events = [PublicEvent("bid", {"seat": seat})]
        after = self.apply(before, action)
        if after.prize is None:  # that bid ended the round: every bid is shown
            played = after.history[-1]
            shown = {"bids": list(played.bids), "winner": played.winner, "worth": played.worth}
            events.append(PublicEvent("show", shown))
        return events

    def describe_action(self, state: GoofspielState, action: Action, seat: int) -> str:
        """Log sentences (:mod:`.texts`); a bid is described face down until the round is shown."""
        return " ".join(describe_event(event) for event in self.public_events(state, action, seat))
