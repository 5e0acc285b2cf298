"""The rules of SEVEN (docs/rules/seven.md), stated plainly: a pure engine with no UI import.

Cards are ints ``0..51``: ``suit * 13 + rank`` with suits ♠ ♥ ♣ ♦ (``S H C D``)
and ranks A 2 … 10 J Q K (``0..12``); their tables are in :mod:`gamenight_seven.cards`.
Actions are short strings:

* ``"7S"``, ``"TD"`` (the ten of diamonds), ``"AH"``: discard that card;
* ``"QS:H"``: discard the Queen of spades and call hearts (a Queen that is the
  seat's last card ends the deal and calls nothing: ``"QS"``);
* ``"draw"``: draw one card (the turn goes on), or -- while a 7 penalty is
  pending -- take the whole penalty (the turn ends);
* ``"pass"``: only when the seat cannot play and nothing is left to draw;
* chance: ``"deal:<52 cards>"`` and ``"shuffle:<cards>"`` (two-character card
  codes run together), validated as permutations of the right cards.

The deal ends when a seat empties its hand, when every seat passes in a row
(*blocked*), when -- with the stock empty and the discards down to a few cards --
the same position comes round a third time (also blocked), or -- a guard so
that no strategy can keep a deal going forever -- after :data:`TURN_LIMIT`
turns, which also counts as blocked.  These are needed: when nearly every card
is in the hands, the 7s can circle for ever (a seat takes a penalty of 3 but
draws only the 7 under the top card, the next seat plays a 7 on it, and so on)
-- the "dance of the sevens" that hung the original.  Random play rarely lasts
past 300 turns.

This module is the reference: states are named tuples built by name or ``_replace``,
each rule written once, with its clause.  The room, the arena and the bench run
:class:`gamenight_seven.fast.FastSevenRules`, which gives the same states faster and is
checked against this module state by state (tests/plugins/seven/test_fast_paths.py).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from gamenight.sdk import CHANCE, TERMINAL, Action, IllegalAction, Outcome, PublicEvent, Rules, seat_token

from .cards import (
    ACE,
    CARD_CODES,
    CARD_OF_CODE,
    QUEEN,
    RANKS,
    SEVEN,
    SPECIAL_CARDS,
    SUIT_SYMBOLS,
    SUITS,
    card_code,
    card_label,
    hand_penalty,
    parse_card,
    penalty_of,
    rank_of,
    suit_of,
)
from .texts import describe_choice_event, describe_event

__all__ = [
    "CARD_CODES",
    "DEAL",
    "DRY_DISCARDS",
    "HAND_SIZE",
    "OVER",
    "PLAY",
    "RANKS",
    "SHUFFLE",
    "SUITS",
    "SUIT_SYMBOLS",
    "TURN_LIMIT",
    "Event",
    "SevenRules",
    "SevenState",
    "SevenView",
    "card_code",
    "card_label",
    "hand_penalty",
    "parse_card",
    "penalty_of",
    "rank_of",
    "suit_of",
]

HAND_SIZE = 5
PENALTY_STEP = 3
TURN_LIMIT = 500
"""Turns after which a deal ends as blocked, whatever happens (see the module doc)."""
DRY_DISCARDS = 4
"""With the stock empty and this many discards or fewer, repeated positions are watched."""

DEAL, PLAY, SHUFFLE, OVER = 0, 1, 2, 3
"""Phases: the deal (chance), play, a reshuffle of the discards (chance), the end."""

PLAYS: dict[str, tuple[int, int]] = {code: (card, -1) for card, code in enumerate(CARD_CODES)}
PLAYS.update(
    {f"{CARD_CODES[s * 13 + QUEEN]}:{SUITS[call]}": (s * 13 + QUEEN, call) for s in range(4) for call in range(4)}
)
"""Every action that names a card, mapped to (card, called suit or -1)."""
_PLAYS = PLAYS  # the name the bots and tests knew


def _encode(cards: Sequence[int]) -> str:
    """Cards as a chance action writes them: their codes run together (``"7STD"``)."""
    return "".join(CARD_CODES[card] for card in cards)


def _decode(text: str) -> list[int] | None:
    """The cards :func:`_encode` wrote, or None if ``text`` is not a run of card codes."""
    codes = [text[i : i + 2] for i in range(0, len(text), 2)]
    if any(code not in CARD_OF_CODE for code in codes):
        return None
    return [CARD_OF_CODE[code] for code in codes]


class Event(NamedTuple):
    """One public happening, for the log every seat sees (never a drawn card)."""

    kind: str
    """``up`` (first card turned), ``bury`` (a 7/A/Q turned up, put back), ``play``,
    ``draw``, ``penalty`` (a 7 penalty taken), ``pass``, ``skip`` (by an Ace),
    ``shuffle``, ``win`` or ``blocked``."""
    seat: int = -1
    card: int = -1
    count: int = 0  # type: ignore[assignment]  # shadows tuple.count, never called here
    """Cards drawn (``draw``/``penalty``), cards reshuffled (``shuffle``)."""
    call: int = -1
    """The suit a Queen called, or the penalty that was due (``penalty``)."""


class SevenState(NamedTuple):
    """One moment of a deal.  Immutable; stock and discards have their top card last."""

    seats: int
    phase: int
    hands: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]
    discards: tuple[int, ...]
    turn: int
    """The seat whose turn it is (also during a reshuffle it is waiting for)."""
    called: int
    """The suit called by the Queen on top, or -1."""
    penalty: int
    """The 7 penalty pending on ``turn`` (0, 3, 6, 9 or 12)."""
    owed: int
    """Cards ``turn`` still has to draw (a draw or a penalty interrupted by a reshuffle)."""
    owed_ends_turn: bool
    owed_total: int
    """How many cards the draw in progress asked for (for the log)."""
    drawn: int
    """How many of them have been drawn so far."""
    passes: int
    """Turns in a row that ended with nothing played and nothing drawn."""
    turns: int
    shuffle_notice: bool
    """A reshuffle happened and no card has been played since ("Table: Shuffling")."""
    winner: int
    blocked_from: int
    """The seat from which the blocked tie-break counts, or -1 if not blocked."""
    events: tuple[Event, ...]
    dry_positions: tuple[tuple[Any, ...], ...] = ()
    """Positions at turn ends while the table was dry (for the repetition rule)."""


class SevenView(NamedTuple):
    """What one seat sees: its own hand and the table, nothing of others' hands."""

    seat: int
    seats: int
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    top: int
    """The top card of the discard pile, or -1 before the deal."""
    called: int
    penalty: int
    stock_count: int
    discard_count: int
    played: tuple[int, ...]
    """The discard pile, oldest first (every card in it was played face up)."""
    to_move: int
    turn: int
    shuffling: bool
    """True while the table reshuffles and until the next card is played."""
    events: tuple[Event, ...]
    winner: int
    blocked: bool
    turns: int
    shown_hands: tuple[tuple[int, ...], ...] = ()
    """Every seat's hand once the deal is over (they are laid open to count); empty until then."""


class SevenRules(Rules):
    """The SEVEN engine (docs/rules/seven.md)."""

    watchable = True
    """A watcher (``seat`` :data:`~gamenight.sdk.OBSERVER`) sees the table with no hand: ``hand`` is empty."""

    # -- setup ----------------------------------------------------------------

    def new_game(self, seats: int, options: Mapping[str, Any]) -> SevenState:
        """An undealt table; the deal itself is the first (chance) action (seven.md 1.1: 2-5 seats)."""
        if not 2 <= seats <= 5:
            raise ValueError(f"SEVEN takes 2-5 seats, not {seats}")
        return SevenState(
            seats=seats,
            phase=DEAL,
            hands=((),) * seats,
            stock=(),
            discards=(),
            turn=0,
            called=-1,
            penalty=0,
            owed=0,
            owed_ends_turn=False,
            owed_total=0,
            drawn=0,
            passes=0,
            turns=0,
            shuffle_notice=False,
            winner=-1,
            blocked_from=-1,
            events=(),
        )

    def new_game_in_match(self, seats: int, options: Mapping[str, Any], game_number: int) -> SevenState:
        """Deal ``game_number`` of a session: the lead passes one seat on with every deal (seven.md 1.3)."""
        return self.new_game(seats, options)._replace(turn=game_number % seats)

    def to_move(self, state: SevenState) -> int:
        """The seat to move, CHANCE for the deal and reshuffles, TERMINAL at the end."""
        if state.phase == PLAY:
            return state.turn
        if state.phase == OVER:
            return TERMINAL
        return CHANCE

    # -- chance ---------------------------------------------------------------

    def sample_chance(self, state: SevenState, rng: random.Random) -> Action:
        """A shuffled deck for the deal, or a shuffled discard pile for the new stock."""
        if state.phase == DEAL:
            deck = list(range(52))
            rng.shuffle(deck)
            return "deal:" + _encode(deck)
        if state.phase == SHUFFLE:
            below_top = list(state.discards[:-1])
            rng.shuffle(below_top)
            return "shuffle:" + _encode(below_top)
        raise IllegalAction.because("no-chance-pending", "No chance outcome is pending.")

    def _apply_deal(self, state: SevenState, action: Action) -> SevenState:
        deck = _decode(action.removeprefix("deal:")) if action.startswith("deal:") else None
        if deck is None or sorted(deck) != list(range(52)):  # seven.md 2.1: one pack of 52
            raise IllegalAction.because("bad-deal", "A deal must be all 52 cards, each once.")
        # seven.md 2.2: 5 cards each, dealt in turn from the deck's start; the rest is the
        # stock, the deck's end its top.
        hands = tuple(tuple(sorted(deck[seat * HAND_SIZE : (seat + 1) * HAND_SIZE])) for seat in range(state.seats))
        stock = deck[state.seats * HAND_SIZE :]
        events = []
        up = stock.pop()
        # seven.md 2.3: a 7, Ace or Queen turned up goes back into the middle of the
        # stock.  It terminates: the cards above the middle turn over in a cycle of
        # at least 14 (the stock holds 27 or more), and only 12 cards are special.
        while up in SPECIAL_CARDS:  # the 7s, Aces and Queens
            events.append(Event(kind="bury", card=up))
            stock.insert(len(stock) // 2, up)
            up = stock.pop()
        events.append(Event(kind="up", card=up))
        return state._replace(phase=PLAY, hands=hands, stock=tuple(stock), discards=(up,), events=tuple(events))

    def _apply_shuffle(self, state: SevenState, action: Action) -> SevenState:
        cards = _decode(action.removeprefix("shuffle:")) if action.startswith("shuffle:") else None
        if cards is None or sorted(cards) != sorted(state.discards[:-1]):
            raise IllegalAction.because(
                "bad-reshuffle", "A reshuffle must hold exactly the discards below the top card."
            )
        # seven.md 5.1: the discards except the top card become the new stock; the draw goes on.
        shuffled = state._replace(
            phase=PLAY,
            stock=tuple(cards),
            discards=(state.discards[-1],),
            shuffle_notice=True,
            events=(*state.events, Event(kind="shuffle", count=len(cards))),
        )
        return self._settle(shuffled)

    # -- play -----------------------------------------------------------------

    def may_play(self, state: SevenState, card: int) -> bool:
        """Whether ``card`` may be discarded now (seven.md 3.1, 3.6, 3.7 and 4.3)."""
        if state.penalty:
            return rank_of(card) == SEVEN  # 4.3: only a 7 answers a pending penalty
        if rank_of(card) == QUEEN:
            return True  # 3.6: a Queen goes on any card
        if state.called >= 0:
            return suit_of(card) == state.called  # 3.7: the called suit
        top = state.discards[-1]
        return suit_of(card) == suit_of(top) or rank_of(card) == rank_of(top)  # 3.1

    def can_draw(self, state: SevenState) -> bool:
        """Whether anything is left to draw: the stock, or discards below the top to reshuffle (5.1)."""
        return bool(state.stock) or len(state.discards) > 1

    def legal_actions(self, state: SevenState) -> list[Action]:
        """Discards that match, Queens with each call, ``draw`` and (only if stuck) ``pass``."""
        if state.phase != PLAY:
            return []
        hand = state.hands[state.turn]
        actions: list[Action] = []
        for card in hand:
            if not self.may_play(state, card):
                continue
            if rank_of(card) == QUEEN and not state.penalty and len(hand) > 1:
                actions += [f"{CARD_CODES[card]}:{suit}" for suit in SUITS]  # 3.7: a Queen calls a suit
            else:
                actions.append(CARD_CODES[card])  # 3.7: a Queen that is the last card calls nothing
        if state.penalty:
            actions.append("draw")  # 4.2: take the penalty (5.2: as far as cards exist)
        elif self.can_draw(state):
            actions.append("draw")  # 3.3: a seat may always draw
        elif not actions:
            actions.append("pass")  # 5.2: nothing to play, nothing to draw
        return actions

    def apply(self, state: SevenState, action: Action) -> SevenState:
        """The state after ``action``; :class:`IllegalAction` (with the reason) if it is not legal."""
        if state.phase == DEAL:
            return self._apply_deal(state, action)
        if state.phase == SHUFFLE:
            return self._apply_shuffle(state, action)
        if state.phase == OVER:
            raise IllegalAction.because("deal-over", "The deal is over.")
        if action == "draw":
            return self._apply_draw(state)
        if action == "pass":
            return self._apply_pass(state)
        if action not in PLAYS:
            raise IllegalAction.because("not-a-card-or-move", "{action} is not a card or a move.", action=action)
        card, call = PLAYS[action]
        return self._apply_play(state, card, call)

    def _apply_play(self, state: SevenState, card: int, call: int) -> SevenState:
        """Discard ``card`` (a Queen calling ``call``, or -1)."""
        seat = state.turn
        hand = state.hands[seat]
        if card not in hand:
            raise IllegalAction.because("card-not-held", "You do not hold {card}.", card=card_label(card))
        self._check_matches(state, card)
        rest = tuple(c for c in hand if c != card)
        if rank_of(card) == QUEEN:
            if rest and call < 0:  # seven.md 3.7
                raise IllegalAction.because("queen-needs-call", "Call a suit with the Queen: ♠ ♥ ♣ or ♦.")
            if not rest and call >= 0:
                raise IllegalAction.because(
                    "last-queen-calls-nothing", "The Queen is your last card: it ends the deal and calls nothing."
                )
        played = state._replace(
            hands=_with_hand(state.hands, seat, rest),
            discards=(*state.discards, card),
            called=call,
            passes=0,
            turns=state.turns + 1,
            shuffle_notice=False,
            events=(*state.events, Event(kind="play", seat=seat, card=card, call=call)),
        )
        if not rest:  # seven.md 6.1: the first seat to empty its hand wins
            return played._replace(
                phase=OVER, penalty=0, winner=seat, events=(*played.events, Event(kind="win", seat=seat))
            )
        following = (seat + 1) % state.seats
        if rank_of(card) == ACE:  # seven.md 3.4: the next seat is skipped
            played = played._replace(events=(*played.events, Event(kind="skip", seat=following)))
            following = (following + 1) % state.seats
        # seven.md 4.1: a 7 sets a penalty of 3 on the next seat, or raises it by 3 (6, 9, 12).
        penalty = state.penalty + PENALTY_STEP if rank_of(card) == SEVEN else 0
        return self._check_turn_limit(played._replace(turn=following, penalty=penalty))

    def _check_matches(self, state: SevenState, card: int) -> None:
        """Raise the reason why ``card`` may not be discarded now, if it may not."""
        if self.may_play(state, card):
            return
        if state.penalty:  # seven.md 4.3
            raise IllegalAction.because(
                "answer-the-pending-7",
                "Only a 7 may answer the pending 7: play one or draw {count}.",
                count=state.penalty,
            )
        if state.called >= 0:  # seven.md 3.7
            raise IllegalAction.because(
                "off-called-suit",
                "{card} does not follow the called suit {suit}.",
                card=card_label(card),
                suit=SUIT_SYMBOLS[state.called],
            )
        raise IllegalAction.because(  # seven.md 3.1
            "no-match",
            "{card} matches neither the suit nor the rank of {top}.",
            card=card_label(card),
            top=card_label(state.discards[-1]),
        )

    def _apply_draw(self, state: SevenState) -> SevenState:
        """Start a draw: the whole 7 penalty (which ends the turn) or one card (which does not)."""
        if state.penalty:
            # seven.md 4.2: the seat that takes the penalty draws it and its turn ends.
            owing = state._replace(owed=state.penalty, owed_total=state.penalty, owed_ends_turn=True)
        elif self.can_draw(state):
            # seven.md 3.3: one card, and the turn goes on.
            owing = state._replace(owed=1, owed_total=1)
        else:
            raise IllegalAction.because("stock-empty", "Nothing is left to draw.")
        return self._settle(owing._replace(drawn=0))

    def _settle(self, state: SevenState) -> SevenState:
        """Draw what the mover owes; stop for a reshuffle; end the turn after a penalty."""
        seat = state.turn
        take = min(state.owed, len(state.stock))
        if take:
            kept, drawn = state.stock[: len(state.stock) - take], state.stock[len(state.stock) - take :]
            state = state._replace(
                hands=_with_hand(state.hands, seat, tuple(sorted(state.hands[seat] + drawn))),
                stock=kept,
                owed=state.owed - take,
                drawn=state.drawn + take,
            )
        if state.owed and len(state.discards) > 1:
            # seven.md 5.1: a reshuffle (a chance action) before drawing on.
            return state._replace(phase=SHUFFLE)
        # Done, or stock and discards are exhausted: seven.md 5.2 -- draw what exists, the rest is void.
        done = state._replace(owed=0, owed_total=0, drawn=0)
        if not state.owed_ends_turn:
            return done._replace(passes=0, events=(*state.events, Event(kind="draw", seat=seat, count=state.drawn)))
        done = done._replace(
            owed_ends_turn=False,
            penalty=0,
            turn=(seat + 1) % state.seats,
            turns=state.turns + 1,
            passes=0 if state.drawn else state.passes + 1,  # 5.2: a penalty of no card is a pass
            events=(*state.events, Event(kind="penalty", seat=seat, count=state.drawn, call=state.owed_total)),
        )
        return self._check_blocked(done)

    def _apply_pass(self, state: SevenState) -> SevenState:
        """seven.md 5.2: pass, only with nothing to play and nothing to draw."""
        if self.legal_actions(state) != ["pass"]:
            raise IllegalAction.because(
                "pass-not-allowed", "You may pass only when you cannot play and nothing is left to draw."
            )
        new = state._replace(
            turn=(state.turn + 1) % state.seats,
            passes=state.passes + 1,
            turns=state.turns + 1,
            events=(*state.events, Event(kind="pass", seat=state.turn)),
        )
        return self._check_blocked(new)

    def _check_blocked(self, state: SevenState) -> SevenState:
        # seven.md 5.3: every seat passing in a row blocks the deal.
        if state.passes >= state.seats:
            return self._block(state)
        return self._check_turn_limit(state)

    def _check_turn_limit(self, state: SevenState) -> SevenState:
        """seven.md 5.4: the 500th turn, or a dry table's position seen a third time, blocks the deal."""
        if state.turns >= TURN_LIMIT:
            return self._block(state)
        if not state.stock and len(state.discards) <= DRY_DISCARDS:
            # The table has run dry: a position seen twice before is a loop (the dance of
            # the sevens), so the deal is blocked at its third occurrence.
            position = (state.hands, state.discards, state.turn, state.called, state.penalty)
            if state.dry_positions.count(position) >= 2:
                return self._block(state)
            return state._replace(dry_positions=(*state.dry_positions, position))
        return state

    def _block(self, state: SevenState) -> SevenState:
        """End a blocked deal (seven.md 5.3): the lowest penalty in hand wins, ties from the next seat on."""
        start = state.turn
        order = [(start + k) % state.seats for k in range(state.seats)]
        winner = min(order, key=lambda seat: hand_penalty(state.hands[seat]))  # min keeps the first tie
        return state._replace(
            phase=OVER,
            penalty=0,
            winner=winner,
            blocked_from=start,
            events=(*state.events, Event(kind="blocked", seat=start), Event(kind="win", seat=winner)),
        )

    # -- views and results -------------------------------------------------------

    def view(self, state: SevenState, seat: int) -> SevenView:
        """Own hand, others' hand sizes, the table and the public log (docs/rules/seven.md 1.2)."""
        return SevenView(
            seat=seat,
            seats=state.seats,
            hand=state.hands[seat] if seat >= 0 else (),  # OBSERVER (a watcher) holds no hand
            hand_sizes=tuple(len(hand) for hand in state.hands),
            top=state.discards[-1] if state.discards else -1,
            called=state.called,
            penalty=state.penalty,
            stock_count=len(state.stock),
            discard_count=len(state.discards),
            played=state.discards,
            to_move=self.to_move(state),
            turn=state.turn,
            shuffling=state.shuffle_notice or state.phase == SHUFFLE,
            events=state.events,
            winner=state.winner,
            blocked=state.blocked_from >= 0,
            turns=state.turns,
            shown_hands=state.hands if state.phase == OVER else (),
        )

    def scores(self, state: SevenState) -> tuple[int, ...]:
        """seven.md 6.2: each loser loses its hand's penalty, the winner gains their sum."""
        losses = [0 if seat == state.winner else hand_penalty(hand) for seat, hand in enumerate(state.hands)]
        total = sum(losses)
        return tuple(total if seat == state.winner else -loss for seat, loss in enumerate(losses))

    def outcome(self, state: SevenState) -> Outcome:
        """The deal's scores; the winner is the seat that went out (or won the blocked deal)."""
        scores = self.scores(state)
        return Outcome(
            scores=tuple(float(s) for s in scores),
            winners=(state.winner,),
            lines=(
                ("Cards left", tuple(float(len(hand)) for hand in state.hands)),
                ("Penalty in hand", tuple(float(hand_penalty(hand)) for hand in state.hands)),
            ),
        )

    def public_events(self, before: SevenState, action: Action, seat: int) -> list[PublicEvent]:
        """The deal, a reshuffle, a pass, a draw (how many, never which) or a card played."""
        if action.startswith("deal:"):
            return [PublicEvent("deal")]
        if action.startswith("shuffle:"):
            return [PublicEvent("shuffle")]
        if action == "pass":
            return [PublicEvent("pass", {"seat": seat})]
        if action == "draw":
            return [PublicEvent("draw", {"seat": seat, "penalty": before.penalty})]
        card, call = PLAYS[action]
        return [PublicEvent("play", {"seat": seat, "card": card, "call": call})]

    def describe_action(self, state: SevenState, action: Action, seat: int) -> str:
        """A log line naming the seat by :func:`~gamenight.sdk.seat_token` (the room fills in its name)."""
        return describe(state, action, seat_token(seat))

    def describe_choice(self, state: SevenState, action: Action, seat: int) -> str:
        """The coach's words for a choice of the seat to move ("Play 7♠", "Draw a card"), translated."""
        if action not in ("pass", "draw") and action not in PLAYS:
            return action
        return " ".join(describe_choice_event(event) for event in self.public_events(state, action, seat))


def _with_hand(hands: tuple[tuple[int, ...], ...], seat: int, hand: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """``hands`` with ``seat``'s hand replaced."""
    return tuple(hand if other == seat else old for other, old in enumerate(hands))


def describe(state: SevenState, action: Action, who: str) -> str:
    """What ``who`` did with ``action`` in ``state`` (the state before it), translated."""
    if not action.startswith(("deal:", "shuffle:")) and action not in ("pass", "draw") and action not in PLAYS:
        return action
    events = SevenRules.public_events(_RULES, state, action, 0)
    return " ".join(describe_event(event, who) for event in events)


_RULES = SevenRules()
