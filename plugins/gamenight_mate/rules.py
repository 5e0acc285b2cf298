"""Mate (Sid Sackson, *A Gamut of Games*): the pure rules engine (docs/rules/mate.md).

One SDK game is a whole match of four plays (mate.md 4.1 and 4.2):

====  ======  =====  ==========================================
play  dealer  leads  hands
====  ======  =====  ==========================================
1     A       A      dealt by A (a chance action: the shuffle)
2     A       B      the hands of play 1, swapped, unshuffled
3     B       B      dealt by B (a chance action)
4     B       A      the hands of play 3, swapped
====  ======  =====  ==========================================

Before each play, when the ``foreplacing`` option is on, the dealer of the
round and then the other seat each decide to set a card aside or not (the
actions ``"<card>"`` or ``"none"``).  Then the play: a card is an action such
as ``"KC"`` (King of Clubs) or ``"10H"``.  A mate is not an action: it happens
the moment the leader plays a card the other seat cannot answer.

Seats are 0 (A) and 1 (B).  States are immutable :class:`MateState` values and
the game is perfect information, so :meth:`MateRules.view` shows everything.
The foreplaced cards are public too: the sources set them aside "face down", but
with all twenty cards dealt each seat knows the other's hand anyway, and the
restriction on the second foreplaced card needs the first to be known
(docs/rules/mate.md 1.5).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from gamenight.sdk import (
    CHANCE,
    TERMINAL,
    Action,
    IllegalAction,
    Interlude,
    Outcome,
    PublicEvent,
    Rules,
)

from .texts import SUIT_SYMBOLS as SUIT_SYMBOLS  # re-exported: the names live with the texts
from .texts import describe_choice_event, describe_event, describe_result, play_line, play_title, summarize
from .texts import pretty as pretty

__all__ = [
    "DEALERS",
    "DOUBLE_DECK",
    "HAND_SIZE",
    "LEADERS",
    "MOVES",
    "NONE",
    "PLAYS",
    "RANKS",
    "SINGLE_DECK",
    "SUITS",
    "VALUES",
    "MateRules",
    "MateState",
    "PlayResult",
    "Variant",
    "answers",
    "card_rank",
    "card_suit",
    "card_value",
    "deck_for",
    "is_card",
    "pretty",
    "score_for",
    "sort_hand",
    "strength",
    "stronger",
]

RANKS = ("A", "10", "K", "Q", "7")
"""Ranks, strongest first (mate.md 1.3: A > 10 > K > Q > 7)."""
SUITS = ("C", "S", "H", "D")
"""Suits, strongest first (mate.md 1.3: Clubs > Spades > Hearts > Diamonds)."""
VALUES = {"A": 11, "10": 10, "K": 4, "Q": 3, "7": 7}
"""Card values for scoring (mate.md 1.4)."""

SINGLE_DECK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
"""The 20 cards: A, 10, K, Q, 7 of each suit (mate.md 1.2)."""
DOUBLE_DECK: tuple[str, ...] = (
    "AC", "10C", "KC", "7C", "7C",
    "AS", "10S", "KS", "KS", "7S",
    "AH", "10H", "10H", "KH", "7H",
    "AD", "AD", "10D", "KD", "7D",
)  # fmt: skip
"""The double-deck variant's 20 cards, picked from two packs (mate.md 6.1)."""

DEALERS = (0, 0, 1, 1)
"""The dealer of each play: the first seat deals round 1, the second round 2 (mate.md 4.2)."""
LEADERS = (0, 1, 1, 0)
"""The seat leading each play: the dealer, then the other after the swap."""
PLAYS = 4
MOVES = 10
HAND_SIZE = 10
NONE = "none"
"""The foreplacing action of a seat that keeps all its cards."""
"""How docs/rules/mate.md 1.1 and the texts of the rules name the two seats."""


def card_rank(card: str) -> str:
    """The rank of ``card`` ("10" of "10H")."""
    return card[:-1]


def card_suit(card: str) -> str:
    """The suit letter of ``card`` ("H" of "10H")."""
    return card[-1]


def card_value(card: str) -> int:
    """The scoring value of ``card`` (A 11, 10 10, K 4, Q 3, 7 7)."""
    return VALUES[card_rank(card)]


def strength(card: str) -> int:
    """A number ordering cards by rank, then suit (mate.md 1.3): higher is stronger."""
    return (4 - RANKS.index(card_rank(card))) * 4 + (3 - SUITS.index(card_suit(card)))


def stronger(lead: str, answer: str) -> bool:
    """True if the leader's card beats the answer; identical cards go to the one played first (mate.md 6.1)."""
    return strength(lead) >= strength(answer)


def _card_order(card: str) -> tuple[int, int]:
    return SUITS.index(card_suit(card)), RANKS.index(card_rank(card))


def sort_hand(cards: Sequence[str]) -> tuple[str, ...]:
    """Cards in display order: by suit (C S H D), strongest rank first."""
    return tuple(sorted(cards, key=_card_order))


def is_card(text: str) -> bool:
    """True if ``text`` names a card of either deck."""
    return len(text) >= 2 and card_suit(text) in SUITS and card_rank(text) in RANKS


@dataclass(frozen=True)
class Variant:
    """The options of one match (docs/rules/mate.md 5.6 and 6)."""

    double_deck: bool = False
    kings_privilege: bool = False
    free_move: bool = False
    foreplacing: bool = True

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Variant:
        """The variant named by a match's options (missing keys take their defaults)."""
        return cls(**{key: bool(options[key]) for key in cls.__dataclass_fields__ if key in options})


def deck_for(variant: Variant) -> tuple[str, ...]:
    """The twenty cards this variant plays with."""
    return DOUBLE_DECK if variant.double_deck else SINGLE_DECK


def answers(lead: str, cards: Sequence[str], variant: Variant) -> tuple[str, ...]:
    """The cards of ``cards`` that may answer ``lead`` (empty: the seat is mated).

    mate.md 2.2: same suit; only without one, same rank (6.2, 6.3 for the variants).  King's privilege: a King
    led must be answered by a King when the seat holds one.  Free move: same
    rank is allowed even when holding the suit.
    """
    rank, suit = card_rank(lead), card_suit(lead)
    if variant.kings_privilege and rank == "K":
        kings = tuple(card for card in cards if card_rank(card) == "K")
        if kings:
            return kings
    same_suit = tuple(card for card in cards if card_suit(card) == suit)
    same_rank = tuple(card for card in cards if card_rank(card) == rank and card_suit(card) != suit)
    if variant.free_move:
        return same_suit + same_rank
    return same_suit or same_rank


def score_for(move: int, card: str, foreplaced: bool) -> int:
    """The score of a mate on ``move`` with ``card`` (mate.md 3.1, 5.4 and 5.5).

    A foreplacer's mate counts one move more; its mate on move 10 (overmate)
    is doubled: (10 + 1) × 11 × 2 = 242 for an Ace.
    """
    moves = move + 1 if foreplaced else move
    multiplier = 2 if foreplaced and move == MOVES else 1
    return moves * card_value(card) * multiplier


@dataclass(frozen=True)
class PlayResult:
    """How one play ended: a mate (``winner`` is a seat) or a draw (``winner`` None)."""

    winner: int | None
    move: int = MOVES
    card: str = ""
    foreplaced: bool = False

    @property
    def score(self) -> int:
        """Points to the winner (0 for a draw)."""
        if self.winner is None:
            return 0
        return score_for(self.move, self.card, self.foreplaced)

    @property
    def overmate(self) -> bool:
        """A foreplacer's mate on move 10 (mate.md 5.5)."""
        return self.winner is not None and self.foreplaced and self.move == MOVES

    def points(self) -> tuple[int, int]:
        """The score of this play for seats A and B."""
        score = self.score
        return (score if self.winner == 0 else 0, score if self.winner == 1 else 0)

    def formula(self) -> str:
        """The score written out: ``"5 × 4 = 20"``, ``"(10 + 1) × 11 × 2 = 242"``."""
        value = card_value(self.card)
        moves = f"({self.move} + 1)" if self.foreplaced else str(self.move)
        double = " × 2" if self.overmate else ""
        return f"{moves} × {value}{double} = {self.score}"

    def describe(self) -> str:
        """One sentence, translated (by :mod:`.texts`): who mated (a seat token), when, with what, the formula."""
        return describe_result(self)

    def summary(self) -> str:
        """The result without the winner's name: "mate on move 5 with K♣: 5 × 4 = 20" (:mod:`.texts`)."""
        return summarize(self)


@dataclass(frozen=True)
class MateState:
    """A match in progress.  Phases: ``deal`` (chance), ``foreplace``, ``play``, ``ended``.

    ``deal`` holds each seat's ten cards at the start of the current play,
    ``hands`` what is still in hand, ``played`` each seat's cards on the table
    in order (a foreplacer's move-10 card repeats its move-9 card).
    ``decided`` counts the foreplacing decisions taken so far in this play.
    ``lead`` is the card led in the current move, waiting for its answer.
    ``results`` holds one :class:`PlayResult` per finished play.
    """

    variant: Variant
    play: int = 0
    phase: str = "deal"
    deal: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    hands: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    foreplaced: tuple[str | None, str | None] = (None, None)
    decided: int = 0
    played: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    move: int = 1
    leader: int = 0
    lead: str | None = None
    results: tuple[PlayResult, ...] = ()

    @property
    def dealer(self) -> int:
        """The seat that dealt this round."""
        return DEALERS[self.play]

    @property
    def totals(self) -> tuple[int, int]:
        """Match scores so far for A and B."""
        return (
            sum(result.points()[0] for result in self.results),
            sum(result.points()[1] for result in self.results),
        )

    def decider(self) -> int:
        """The seat whose foreplacing decision is due (dealer first, mate.md 5.2)."""
        return self.dealer if self.decided == 0 else 1 - self.dealer

    def to_act(self) -> int:
        """In the play phase: the leader, or the other seat once a card is led."""
        return self.leader if self.lead is None else 1 - self.leader

    def available(self, seat: int) -> tuple[str, ...]:
        """The cards ``seat`` may play from now.

        A foreplacer's hand is empty on move 10: it plays its move-9 card
        again (mate.md 5.1).
        """
        if not self.hands[seat] and self.foreplaced[seat] is not None and self.move == MOVES:
            return (self.played[seat][MOVES - 2],)
        return self.hands[seat]


def _remove(cards: tuple[str, ...], card: str) -> tuple[str, ...]:
    index = cards.index(card)
    return cards[:index] + cards[index + 1 :]


def _distinct(cards: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(cards))


class MateRules(Rules):
    """The rules of Mate as one four-play match (docs/rules/mate.md)."""

    watchable = True
    """Perfect information: a watcher sees what the seats see."""

    def new_game(self, seats: int, options: Mapping[str, Any]) -> MateState:
        """A match about to be dealt by A."""
        if seats != 2:
            raise ValueError("Mate is a game for two")
        return MateState(variant=Variant.from_options(options))

    # -- phases ------------------------------------------------------------

    def current(self, state: MateState) -> MateState:
        """The state the next action applies to.

        A finished play keeps its table on show (for the interlude and the
        screen) until the next action, which starts the next play: a new
        deal for play 3, the swapped hands for plays 2 and 4.
        """
        if state.phase != "ended" or state.play == PLAYS - 1:
            return state
        play = state.play + 1
        if play == 2:
            return MateState(variant=state.variant, play=play, results=state.results)
        return self._start_play(state, play, (state.deal[1], state.deal[0]))

    def _start_play(self, state: MateState, play: int, deal: tuple[tuple[str, ...], tuple[str, ...]]) -> MateState:
        return MateState(
            variant=state.variant,
            play=play,
            phase="foreplace" if state.variant.foreplacing else "play",
            deal=deal,
            hands=deal,
            leader=LEADERS[play],
            results=state.results,
        )

    def to_move(self, state: MateState) -> int:
        """CHANCE for a deal, the deciding or playing seat, or TERMINAL after play 4."""
        state = self.current(state)
        if state.phase == "ended":
            return TERMINAL
        if state.phase == "deal":
            return CHANCE
        if state.phase == "foreplace":
            return state.decider()
        return state.to_act()

    def legal_actions(self, state: MateState) -> list[Action]:
        """Cards (or "none" when foreplacing) the seat to move may choose."""
        state = self.current(state)
        if state.phase == "foreplace":
            return [NONE, *self._foreplace_choices(state)]
        if state.phase != "play":
            return []
        seat = state.to_act()
        cards = state.available(seat)
        if state.lead is None:
            return _distinct(cards)
        return _distinct(answers(state.lead, cards, state.variant))

    def _foreplace_choices(self, state: MateState) -> list[str]:
        """mate.md 5.3: the second card aside shares neither suit nor rank with the first."""
        seat = state.decider()
        first = state.foreplaced[1 - seat]
        cards = state.hands[seat]
        if first is not None:
            cards = tuple(
                card for card in cards if card_suit(card) != card_suit(first) and card_rank(card) != card_rank(first)
            )
        return _distinct(cards)

    # -- applying ----------------------------------------------------------

    def apply(self, state: MateState, action: Action) -> MateState:
        """The state after ``action``; :class:`IllegalAction` says why it is not allowed."""
        state = self.current(state)
        if state.phase == "ended":
            raise IllegalAction.because("match-over", "The match is over.")
        if state.phase == "deal":
            return self._apply_deal(state, action)
        if state.phase == "foreplace":
            return self._apply_foreplace(state, action)
        return self._apply_card(state, action)

    def _apply_deal(self, state: MateState, action: Action) -> MateState:
        """A shuffle: the twenty cards in order; 1-5 and 11-15 go to the non-dealer."""
        cards = action.split()
        deck = deck_for(state.variant)
        if sorted(cards) != sorted(deck):
            raise IllegalAction.because("bad-deal", "A deal must list each of the twenty cards of the deck once.")
        dealer = state.dealer
        to_other = sort_hand(cards[0:5] + cards[10:15])
        to_dealer = sort_hand(cards[5:10] + cards[15:20])
        deal = (to_dealer, to_other) if dealer == 0 else (to_other, to_dealer)
        return self._start_play(state, state.play, deal)

    def _apply_foreplace(self, state: MateState, action: Action) -> MateState:
        seat = state.decider()
        foreplaced = list(state.foreplaced)
        hands = list(state.hands)
        if action != NONE:
            if action not in state.hands[seat]:
                raise IllegalAction.because("not-own-card", "You can only set aside a card from your own hand.")
            if action not in self._foreplace_choices(state):
                raise IllegalAction.because(
                    "foreplace-clash",
                    "{card} shares a suit or rank with {first}, already set aside.",
                    card=pretty(action),
                    first=pretty(state.foreplaced[1 - seat] or ""),
                )
            foreplaced[seat] = action
            hands[seat] = _remove(state.hands[seat], action)
        decided = state.decided + 1
        return replace(
            state,
            foreplaced=(foreplaced[0], foreplaced[1]),
            hands=(hands[0], hands[1]),
            decided=decided,
            phase="play" if decided == 2 else "foreplace",
        )

    def _apply_card(self, state: MateState, action: Action) -> MateState:
        seat = state.to_act()
        cards = state.available(seat)
        if action not in cards:
            raise IllegalAction.because("not-in-hand", "{card} is not in your hand.", card=self._card_name(action))
        variant = state.variant
        if state.lead is not None:
            allowed = answers(state.lead, cards, variant)
            if action not in allowed:
                raise self._why_not(state.lead, action, cards, variant)
        hands = list(state.hands)
        if state.hands[seat]:
            hands[seat] = _remove(state.hands[seat], action)
        played = list(state.played)
        played[seat] = (*played[seat], action)
        after = replace(state, hands=(hands[0], hands[1]), played=(played[0], played[1]))
        if state.lead is None:
            other = 1 - seat
            if not answers(action, after.available(other), variant):
                # mate.md 2.2: the other seat can answer neither suit nor rank: mated.
                result = PlayResult(seat, state.move, action, state.foreplaced[seat] is not None)
                return replace(after, phase="ended", results=(*state.results, result))
            return replace(after, lead=action)
        # mate.md 2.4: the stronger card leads the next move.
        leader = state.leader if stronger(state.lead, action) else seat
        if state.move == MOVES:
            return replace(after, phase="ended", lead=None, results=(*state.results, PlayResult(None)))
        return replace(after, lead=None, leader=leader, move=state.move + 1)

    def _card_name(self, action: str) -> str:
        return pretty(action) if is_card(action) else repr(action)

    def _why_not(self, lead: str, card: str, cards: Sequence[str], variant: Variant) -> IllegalAction:
        """The reason an answer is refused, as data (the screen says it)."""
        if variant.kings_privilege and card_rank(lead) == "K" and any(card_rank(c) == "K" for c in cards):
            return IllegalAction.because(
                "kings-privilege", "King's privilege: a King was led and you hold a King, so you must play a King."
            )
        if any(card_suit(c) == card_suit(lead) for c in cards):
            return IllegalAction.because("follow-suit", "You must follow suit: {lead} was led.", lead=pretty(lead))
        return IllegalAction.because(
            "answer-rank",
            "You have no {suit}, so you must answer with a card of rank {rank}.",
            suit=SUIT_SYMBOLS[card_suit(lead)],
            rank=card_rank(lead),
        )

    # -- chance ------------------------------------------------------------

    def sample_chance(self, state: MateState, rng: random.Random) -> Action:
        """A shuffle of the deck, as the twenty cards in dealing order."""
        cards = list(deck_for(state.variant))
        rng.shuffle(cards)
        return " ".join(cards)

    # -- what players see --------------------------------------------------

    def view(self, state: MateState, seat: int) -> MateState:
        """Everything: Mate is a game of perfect information."""
        return state

    def outcome(self, state: MateState) -> Outcome:
        """Match totals; the lines itemise the four plays."""
        return Outcome.from_scores(state.totals, self.result_lines(state))

    def result_lines(self, state: MateState) -> list[tuple[str, tuple[int, int]]]:
        """One line per finished play: "Play 2: mate on move 7 with K♥: 7 × 4 = 28", with its points."""
        return [(play_line(number, result), result.points()) for number, result in enumerate(state.results, start=1)]

    def interlude(self, state: MateState) -> Interlude | None:
        """The pause after plays 1-3, showing how the play ended."""
        if state.phase != "ended" or state.play == PLAYS - 1:
            return None
        result = state.results[-1]
        return Interlude(
            title=play_title(state.play + 1, result),
            scores=state.totals,
            lines=tuple(self.result_lines(state)),
            key=f"play-{state.play + 1}",
        )

    def current_scores(self, state: MateState) -> tuple[float, ...]:
        """Match totals so far."""
        return state.totals

    def public_events(self, before: MateState, action: Action, seat: int) -> list[PublicEvent]:
        """The deal (who deals), a foreplacing decision, a card led or answered (Mate hides nothing)."""
        state = self.current(before)
        if seat == CHANCE:
            return [PublicEvent("deal", {"dealer": state.dealer})]
        if state.phase == "foreplace":
            return [PublicEvent("foreplace", {"seat": seat, "card": None if action == NONE else action})]
        if state.lead is None:
            return [PublicEvent("lead", {"seat": seat, "card": action, "move": state.move})]
        return [PublicEvent("answer", {"seat": seat, "card": action})]

    def describe_action(self, state: MateState, action: Action, seat: int) -> str:
        """A log line: the deal, a foreplacing decision or a card played."""
        return " ".join(describe_event(event) for event in self.public_events(state, action, seat))

    def describe_choice(self, state: MateState, action: Action, seat: int) -> str:
        """The coach's words for a choice of the seat to move ("Lead 10♥"), translated."""
        return " ".join(describe_choice_event(event) for event in self.public_events(state, action, seat))
