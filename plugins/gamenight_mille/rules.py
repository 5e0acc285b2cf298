"""Mille Bornes after BSD ``mille``: the pure rules engine, stated plainly.

The rules: ``docs/rules/mille.md`` (cited below by clause, as "mille.md 7.5").
A whole game to 5000 is one SDK game: every hand is dealt by a
chance action (``deal:<101 letters>``, the deck from top to bottom), and the
end of each hand is an :class:`~gamenight.sdk.Interlude` with the score lines.

Player actions (short strings):

* ``draw`` -- pick the top card into the ``P`` slot;
* ``use:S`` / ``discard:S`` -- play or throw the card in slot ``S``
  (``P`` or ``1``...``6``);
* ``extend`` / ``stop`` -- the seat that reached 700 decides on an extension.

This module is the reference: states are named tuples built by name or ``_replace``, each
rule written once, with its clause.  The room, the arena and the bench run
:class:`gamenight_mille.fast.FastMilleRules`, which gives the same states faster and is
checked against this module state by state (tests/plugins/mille/test_fast_paths.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from gamenight.sdk import (
    CHANCE,
    OBSERVER,
    TERMINAL,
    Action,
    IllegalAction,
    Interlude,
    Outcome,
    PublicEvent,
    Rules,
    fill_seat_names,
)

from .texts import CARD_NAMES as CARD_NAMES  # re-exported: the names live with the texts
from .texts import card_name as card_name
from .texts import describe_choice_event, describe_event, end_of_hand
from .texts import say_refusal as say_refusal

# -- cards (mille.md 2.1-2.3: the original's internal order, also the sort order) --
D25, D50, D75, D100, D200 = 0, 1, 2, 3, 4
OUT_OF_GAS, FLAT_TIRE, ACCIDENT, STOP, SPEED_LIMIT = 5, 6, 7, 8, 9
GASOLINE, SPARE_TIRE, REPAIRS, GO, END_OF_LIMIT = 10, 11, 12, 13, 14
EXTRA_TANK, PUNCTURE_PROOF, DRIVING_ACE, RIGHT_OF_WAY = 15, 16, 17, 18
EMPTY = -1
"""An empty hand slot or a blank pile; sorts before every card."""

CARD_COUNT = 19
DECK_COUNTS = (10, 10, 10, 12, 4, 2, 2, 2, 4, 3, 6, 6, 6, 14, 6, 1, 1, 1, 1)
DECK_SIZE = sum(DECK_COUNTS)
CODES = "abcdefghijklmnopqrs"
"""One letter per card, used in the deal action."""
VALUE = (25, 50, 75, 100, 200)
SAFETIES = (EXTRA_TANK, PUNCTURE_PROOF, DRIVING_ACE, RIGHT_OF_WAY)
REMEDY_FOR = {OUT_OF_GAS: GASOLINE, FLAT_TIRE: SPARE_TIRE, ACCIDENT: REPAIRS, STOP: GO, SPEED_LIMIT: END_OF_LIMIT}
HAZARD_FOR_REMEDY = {GASOLINE: OUT_OF_GAS, SPARE_TIRE: FLAT_TIRE, REPAIRS: ACCIDENT}
SAFETY_FOR = {
    OUT_OF_GAS: EXTRA_TANK,
    FLAT_TIRE: PUNCTURE_PROOF,
    ACCIDENT: DRIVING_ACE,
    STOP: RIGHT_OF_WAY,
    SPEED_LIMIT: RIGHT_OF_WAY,
}
HAZARD_FOR_SAFETY = {EXTRA_TANK: OUT_OF_GAS, PUNCTURE_PROOF: FLAT_TIRE, DRIVING_ACE: ACCIDENT}
GO_ALLOWED_ON = frozenset({EMPTY, STOP, GASOLINE, SPARE_TIRE, REPAIRS})  # mille.md 6.2

TRIP = 700
EXTENDED_TRIP = 1000
HAND_SIZE = 6
SLOT_NAMES = ("P", "1", "2", "3", "4", "5", "6")
SLOT_INDEX = {name: index for index, name in enumerate(SLOT_NAMES)} | {"p": 0, "0": 0}

# Scores (mille.md 10.1 and 10.2).
SAFETY_POINTS = 100
ALL_SAFETIES_POINTS = 300
COUP_POINTS = 300
TRIP_POINTS = 400
SAFE_TRIP_POINTS = 300
DELAYED_ACTION_POINTS = 300
EXTENSION_POINTS = 200
SHUT_OUT_POINTS = 500
GAME_TARGET = 5000

SCORE_LINES = (
    "Milestones Played",
    "Each Safety",
    "All 4 Safeties",
    "Each Coup Fourré",
    "Trip Completed",
    "Safe Trip",
    "Delayed Action",
    "Extension",
    "Shut-Out",
)
"""The rows of the original's score window, above Hand Total."""

# Phases of a game.
DEAL, PLAY, EXTENSION, HAND_OVER, GAME_OVER = 0, 1, 2, 3, 4


class Seat(NamedTuple):
    """One seat's hand and table during a hand.

    ``hand`` has 7 slots: index 0 is ``P``, 1-6 the numbered slots.
    ``table`` lists every card played by or on this seat (battle, speed,
    mileage and safety piles), so all 101 cards can be accounted for.
    ``fresh_battle`` / ``fresh_speed`` mark a hazard played on this seat that
    it has not yet answered by drawing or ending a turn (coup fourré timing).
    """

    hand: tuple[int, ...]
    battle: int = EMPTY
    speed: int = EMPTY
    mileage: int = 0
    two_hundreds: int = 0
    safeties: tuple[bool, bool, bool, bool] = (False, False, False, False)
    coups: tuple[bool, bool, bool, bool] = (False, False, False, False)
    fresh_battle: bool = False
    fresh_speed: bool = False
    table: tuple[int, ...] = ()

    @property
    def has_right_of_way(self) -> bool:
        """True once Right of Way is in this seat's safety area."""
        return self.safeties[3]

    @property
    def can_move(self) -> bool:
        """Go on top, or Right of Way with no hazard on top (mille.md 4.2)."""
        battle = self.battle
        return battle == GO or (self.safeties[3] and not OUT_OF_GAS <= battle <= STOP)

    @property
    def hand_count(self) -> int:
        """How many cards the hand holds."""
        return sum(1 for card in self.hand if card != EMPTY)


def protected(seat: Seat, hazard: int) -> bool:
    """True when ``seat`` has played the safety against ``hazard``."""
    return seat.safeties[SAFETY_FOR[hazard] - EXTRA_TANK]


def cancels(seat: Seat, safety: int) -> bool:
    """True when ``safety`` would remove a hazard now in force on ``seat``.

    Such a safety may be played before drawing (mille.md 3.3).
    """
    if safety == RIGHT_OF_WAY:
        return seat.battle == STOP or seat.speed == SPEED_LIMIT
    return seat.battle == HAZARD_FOR_SAFETY[safety]


def is_coup_fourre(seat: Seat, safety: int) -> bool:
    """True when playing ``safety`` now is a coup fourré: it cancels a *fresh* hazard.

    mille.md 7.5 and 7.7 (*Ours*): the safety must cancel the hazard that hit
    the seat since its last draw (or, once the deck is out, since its last
    turn); the original's flag quirks are not copied.
    """
    if safety == RIGHT_OF_WAY:
        return (seat.battle == STOP and seat.fresh_battle) or (seat.speed == SPEED_LIMIT and seat.fresh_speed)
    return seat.battle == HAZARD_FOR_SAFETY[safety] and seat.fresh_battle


class MilleState(NamedTuple):
    """A whole game to 5000: the hand in progress and the running totals."""

    phase: int
    seats: tuple[Seat, Seat]
    deck: tuple[int, ...] = ()
    """The draw pile, top card first."""
    discards: tuple[int, ...] = ()
    turn: int = 0
    picked: bool = False
    """The seat to move has drawn this turn (reset by a safety's extra turn)."""
    trip: int = TRIP
    extended: bool = False
    hand_number: int = 0
    """Hands dealt so far in this game (1 during the first hand)."""
    totals: tuple[int, int] = (0, 0)
    """Overall totals of the finished hands."""
    target: int = GAME_TARGET
    first: int = 0
    """The seat that draws first in this game's first hand (it alternates game to game)."""


@dataclass(frozen=True)
class MilleView:
    """What one seat may see: its own hand, never the opponent's (only its size)."""

    seat: int
    phase: int
    turn: int
    picked: bool
    me: Seat
    opponent: Seat
    """The opponent's table; its ``hand`` is replaced by empty slots."""
    opponent_hand_size: int
    deck_count: int
    discards: tuple[int, ...]
    trip: int
    extended: bool
    hand_number: int
    totals: tuple[int, int]
    target: int

    def unseen_counts(self) -> list[int]:
        """How many of each card are in the deck or the opponent's hand (card counting)."""
        counts = list(DECK_COUNTS)
        for pile in (self.me.hand, self.me.table, self.opponent.table, self.discards):
            for card in pile:
                if card != EMPTY:
                    counts[card] -= 1
        return counts


class _Refusal(NamedTuple):
    message: str
    values: Mapping[str, object]


def _refuse(message: str, **values: object) -> _Refusal:
    return _Refusal(message=message, values=values)


def use_refusal(state: MilleState, seat_index: int, card: int) -> _Refusal | None:
    """Why ``seat_index`` may not use ``card`` now (its pick aside), or ``None``.

    The checks and their order follow mille.md 4.3, 5.2, 5.3, 6.1, 6.2 and 6.3.
    """
    return _seat_refusal(state.seats[seat_index], state.seats[1 - seat_index], state.trip, card)


def _seat_refusal(me: Seat, opponent: Seat, trip: int, card: int) -> _Refusal | None:
    """:func:`use_refusal` for seat ``me`` facing ``opponent`` on a trip of ``trip``."""
    if card <= D200:  # mille.md 4.3 and 4.4
        if card == D200 and me.two_hundreds >= 2:
            return _refuse("only two 200's per hand")
        if card >= D75 and me.speed == SPEED_LIMIT:
            return _refuse("limit of 50")
        if me.mileage + VALUE[card] > trip:
            return _refuse("puts you over {trip}", trip=trip)
        if not me.can_move:
            return _refuse("cannot move now")
        return None
    if card <= STOP:  # mille.md 5.2
        if not opponent.can_move:
            return _refuse("opponent cannot go")
        if protected(opponent, card):
            return _refuse("opponent is protected")
        return None
    if card == SPEED_LIMIT:  # mille.md 5.3
        if opponent.speed == SPEED_LIMIT:
            return _refuse("opponent has limit")
        if opponent.has_right_of_way:
            return _refuse("opponent is protected")
        return None
    if card == GO:  # mille.md 6.2
        if me.battle not in GO_ALLOWED_ON:
            return _refuse('cannot play "Go" on a "{card}"', card=CARD_NAMES[me.battle])
        return None
    if card == END_OF_LIMIT:  # mille.md 6.3
        return None if me.speed == SPEED_LIMIT else _refuse("not limited")
    if card <= REPAIRS:  # mille.md 6.1
        return None if me.battle == HAZARD_FOR_REMEDY[card] else _refuse('can\'t play "{card}"', card=CARD_NAMES[card])
    return None  # a safety may always be played (mille.md 7.1)


SAFETY_INDEX = tuple(SAFETY_FOR[card] - EXTRA_TANK if card in SAFETY_FOR else -1 for card in range(CARD_COUNT))
"""For each hazard, the index of its safety in ``Seat.safeties``."""


def usable(me: Seat, opponent: Seat, trip: int, card: int) -> bool:
    """True when ``me`` may use ``card`` now (its pick aside): :func:`use_refusal` has no reason."""
    return _seat_refusal(me, opponent, trip, card) is None


def can_use_any(state: MilleState, seat_index: int) -> bool:
    """True when ``seat_index`` holds a card it could legally use now.

    Used for the end of a hand once the deck is out (mille.md 9.2,
    *Ours*: our own legality, not the original's stricter hidden test).
    """
    me, opponent = state.seats[seat_index], state.seats[1 - seat_index]
    trip = state.trip
    return any(card != EMPTY and usable(me, opponent, trip, card) for card in me.hand)


def _compact(hand: list[int]) -> None:
    """Refill empty slots 1-6 from the lowest occupied lower slot (mille.md 3.5)."""
    for index in range(1, 7):
        if hand[index] == EMPTY:
            for lower in range(index):
                if hand[lower] != EMPTY:
                    hand[index] = hand[lower]
                    hand[lower] = EMPTY
                    break


def parse_deal(action: str) -> tuple[int, ...]:
    """The deck order of a ``deal:`` action; raises :class:`IllegalAction` if it is not a full deck."""
    letters = action.removeprefix("deal:")
    if len(letters) != DECK_SIZE or not set(letters) <= set(CODES):
        raise IllegalAction.because("bad-deal", "A deal must list all {count} cards as letters a-s.", count=DECK_SIZE)
    if any(letters.count(code) != count for code, count in zip(CODES, DECK_COUNTS, strict=True)):
        raise IllegalAction.because("bad-deal", "A deal must hold each card exactly as often as the deck does.")
    return tuple(CODES.index(letter) for letter in letters)


def deal_action(deck: Sequence[int]) -> Action:
    """The chance action that deals ``deck`` (top card first)."""
    return "deal:" + "".join(CODES[card] for card in deck)


def full_deck() -> list[int]:
    """The 101 cards in the original's order."""
    return [card for card, count in enumerate(DECK_COUNTS) for _copy in range(count)]


def hand_lines(state: MilleState) -> list[tuple[str, tuple[int, int]]]:
    """The score window's lines for the hand in ``state`` (bonuses once it is over).

    mille.md 10.1, 10.2 and 10.3.  Each value is a pair (one per seat).
    """
    over = state.phase in (HAND_OVER, GAME_OVER)
    rows: list[list[int]] = [[0, 0] for _row in SCORE_LINES]
    for index, seat in enumerate(state.seats):
        other = state.seats[1 - index]
        safeties = sum(seat.safeties)
        rows[0][index] = seat.mileage
        rows[1][index] = SAFETY_POINTS * safeties
        rows[2][index] = ALL_SAFETIES_POINTS if safeties == 4 else 0
        rows[3][index] = COUP_POINTS * sum(seat.coups)
        if over and seat.mileage == state.trip:
            rows[4][index] = TRIP_POINTS
            rows[5][index] = SAFE_TRIP_POINTS if seat.two_hundreds == 0 else 0
            rows[6][index] = DELAYED_ACTION_POINTS if not state.deck else 0
            rows[7][index] = EXTENSION_POINTS if state.trip == EXTENDED_TRIP else 0
            rows[8][index] = SHUT_OUT_POINTS if other.mileage == 0 else 0
    return [(label, (row[0], row[1])) for label, row in zip(SCORE_LINES, rows, strict=True)]


def hand_totals(state: MilleState) -> tuple[int, int]:
    """Each seat's Hand Total: the sum of its score lines."""
    lines = hand_lines(state)
    return (sum(values[0] for _label, values in lines), sum(values[1] for _label, values in lines))


def score_window(state: MilleState) -> list[tuple[str, tuple[int, int]]]:
    """The original's score window: the hand's lines, Hand Total and Overall Total.

    The Games line counts games across SDK games, so the screen adds it.
    """
    lines = hand_lines(state)
    hand = hand_totals(state)
    overall = (
        state.totals
        if state.phase in (HAND_OVER, GAME_OVER)
        else (
            state.totals[0] + hand[0],
            state.totals[1] + hand[1],
        )
    )
    return [*lines, ("Hand Total", hand), ("Overall Total", overall)]


class MilleRules(Rules):
    """Mille Bornes for two seats, as BSD ``mille`` plays it."""

    watchable = True
    """A watcher (``OBSERVER``) sees both tables and no hand."""

    def new_game(self, seats: int, options: Mapping[str, Any]) -> MilleState:
        """A game waiting for its first deal."""
        if seats != 2:
            raise ValueError("Mille Bornes takes exactly two seats")
        empty = Seat(hand=(EMPTY,) * 7)
        return MilleState(phase=DEAL, seats=(empty, empty), target=int(options.get("target", GAME_TARGET)))

    def new_game_in_match(self, seats: int, options: Mapping[str, Any], game_number: int) -> MilleState:
        """Game ``game_number`` of a session: the first drawer goes on alternating across games."""
        return self.new_game(seats, options)._replace(first=game_number % 2)

    def to_move(self, state: MilleState) -> int:
        """The seat to act, ``CHANCE`` for a deal, ``TERMINAL`` after the game."""
        phase = state.phase
        if phase == PLAY or phase == EXTENSION:
            return state.turn
        if phase == GAME_OVER:
            return TERMINAL
        return CHANCE

    def legal_actions(self, state: MilleState) -> list[Action]:
        """Every legal action of the seat to move (none at a deal or after the game)."""
        phase = state.phase
        if phase == EXTENSION:
            return ["extend", "stop"]
        if phase != PLAY:
            return []
        me, opponent = state.seats[state.turn], state.seats[1 - state.turn]
        if not state.picked and state.deck:
            # mille.md 3.3: pick first, except a safety that cancels a hazard in force.
            safeties = [
                f"use:{SLOT_NAMES[slot]}"
                for slot, card in enumerate(me.hand)
                if card >= EXTRA_TANK and cancels(me, card)
            ]
            return ["draw", *safeties]
        # mille.md 3.2: use a card (4-7), or discard one that is not a safety (7.1).
        uses = [
            f"use:{SLOT_NAMES[slot]}"
            for slot, card in enumerate(me.hand)
            if card != EMPTY and usable(me, opponent, state.trip, card)
        ]
        discards = [
            f"discard:{SLOT_NAMES[slot]}" for slot, card in enumerate(me.hand) if card != EMPTY and card < EXTRA_TANK
        ]
        return uses + discards

    def refusal(self, state: MilleState, action: Action) -> str | None:
        """Why ``action`` is illegal now, in the original's words (translated), or ``None``."""
        error = self.refusal_error(state, action)
        return None if error is None else say_refusal(error)

    def refusal_error(self, state: MilleState, action: Action) -> IllegalAction | None:
        """Why ``action`` is illegal now, as data (a code, the original's words, values), or ``None``."""
        phase = state.phase
        if phase == GAME_OVER:
            return IllegalAction.because("game-over", "The game is over.")
        if phase in (DEAL, HAND_OVER):
            if not action.startswith("deal:"):
                return IllegalAction.because("deal-first", "The cards must be dealt first.")
            try:
                parse_deal(action)
            except IllegalAction as error:
                return error
            return None
        if phase == EXTENSION:
            if action in ("extend", "stop"):
                return None
            return IllegalAction.because("answer-extension", "Answer the extension first: extend or stop.")
        me = state.seats[state.turn]
        if action == "draw":
            if not state.deck:
                return IllegalAction.because("deck-empty", "no more cards")
            if state.picked:
                return IllegalAction.because("already-picked", "already picked")
            return None
        verb, _sep, slot_name = action.partition(":")
        if verb not in ("use", "discard") or slot_name not in SLOT_INDEX:
            return IllegalAction.because("unknown-command", "unknown command: {command}", command=action)
        card = me.hand[SLOT_INDEX[slot_name]]
        if card == EMPTY:
            return IllegalAction.because("no-card-there", "no card there")
        must_pick = state.deck and not state.picked
        if verb == "discard":
            if must_pick:
                return IllegalAction.because("must-pick-first", "must pick first")
            if card >= EXTRA_TANK:
                return IllegalAction.because("discard-safety", "discard a safety?")
            return None
        if must_pick and not (card >= EXTRA_TANK and cancels(me, card)):
            return IllegalAction.because("must-pick-first", "must pick first")
        refusal = use_refusal(state, state.turn, card)
        if refusal is None:
            return None
        code = "-".join(re.findall(r"[a-z0-9]+", refusal.message.lower().replace("{", " ").replace("}", " ")))
        return IllegalAction(code=code, params=dict(refusal.values), template=refusal.message)

    def apply(self, state: MilleState, action: Action) -> MilleState:
        """The state after ``action``; :class:`IllegalAction` (with the reason) if it is illegal."""
        phase = state.phase
        if phase == PLAY:
            return self._play(state, action)
        if (phase == DEAL or phase == HAND_OVER) and action.startswith("deal:"):
            return self._deal(state, parse_deal(action))  # parse_deal refuses a bad deck
        error = self.refusal_error(state, action)
        if error is not None:
            raise error
        return self._decide_extension(state, action == "extend")

    # -- the moves -------------------------------------------------------------

    def _deal(self, state: MilleState, deck: tuple[int, ...]) -> MilleState:
        """Six cards each into slots 1-6, first seat 0 then seat 1 (mille.md 3.1)."""
        seats = (
            Seat(hand=(EMPTY, *deck[0:HAND_SIZE])),
            Seat(hand=(EMPTY, *deck[HAND_SIZE : 2 * HAND_SIZE])),
        )
        number = state.hand_number + 1
        return state._replace(
            phase=PLAY,
            seats=seats,
            deck=deck[2 * HAND_SIZE :],
            discards=(),
            turn=(number - 1 + state.first) % 2,  # the first drawer alternates (mille.md 3.8)
            picked=False,
            trip=TRIP,
            extended=False,
            hand_number=number,
        )

    def _play(self, state: MilleState, action: Action) -> MilleState:
        """A pick, a use or a discard by the seat to move (mille.md 3.2-3.6)."""
        error = self.refusal_error(state, action)
        if error is not None:
            raise error  # mille.md 3.6: nothing changes
        if action == "draw":
            return self._pick(state)
        verb, _sep, slot_name = action.partition(":")
        me = state.seats[state.turn]
        card = me.hand[SLOT_INDEX[slot_name]]
        hand = list(me.hand)
        hand[SLOT_INDEX[slot_name]] = EMPTY
        _compact(hand)
        if verb == "discard":
            # mille.md 7.5: the end of the turn ends the chance of a coup fourré.
            me = me._replace(hand=tuple(hand), fresh_battle=False, fresh_speed=False)
            return self._pass_turn(state, _put(state.seats, state.turn, me), (*state.discards, card))
        return self._use(state, me._replace(hand=tuple(hand)), card)

    def _pick(self, state: MilleState) -> MilleState:
        """mille.md 3.4: the top card into ``P``, and a second into slot 1 if a safety left it empty."""
        me = state.seats[state.turn]
        hand, deck = list(me.hand), list(state.deck)
        hand[0] = deck.pop(0)
        if hand[1] == EMPTY and deck:
            hand[1] = deck.pop(0)
        # mille.md 7.5: a draw ends the chance of a coup fourré against the hazards so far.
        me = me._replace(hand=tuple(hand), fresh_battle=False, fresh_speed=False)
        after = state._replace(seats=_put(state.seats, state.turn, me), deck=tuple(deck), picked=True)
        return after if after.deck else self._check_deck_out(after)

    def _use(self, state: MilleState, me: Seat, card: int) -> MilleState:
        """``me`` (its hand without ``card`` already) uses ``card``."""
        if card >= EXTRA_TANK:
            return self._play_safety(state, me, card)
        if card <= D200:
            # mille.md 4.3 and 4.4: the mileage grows; the trip completed exactly ends the hand or asks
            # for an extension (8.1).
            me = me._replace(
                mileage=me.mileage + VALUE[card],
                two_hundreds=me.two_hundreds + (card == D200),
                fresh_battle=False,
                fresh_speed=False,
                table=(*me.table, card),
            )
            seats = _put(state.seats, state.turn, me)
            if me.mileage == state.trip:
                after = state._replace(seats=seats)
                if state.trip == TRIP and not state.extended:
                    return after._replace(phase=EXTENSION)
                return self._end_hand(after)
            return self._pass_turn(state, seats, state.discards)
        if card <= SPEED_LIMIT:
            # mille.md 5.1-5.3: a hazard goes on the opponent's pile, fresh (open to a coup fourré, 7.5).
            me = me._replace(fresh_battle=False, fresh_speed=False)
            opponent = state.seats[1 - state.turn]
            if card == SPEED_LIMIT:
                opponent = opponent._replace(speed=card, fresh_speed=True, table=(*opponent.table, card))
            else:
                opponent = opponent._replace(battle=card, fresh_battle=True, table=(*opponent.table, card))
            seats = _put(_put(state.seats, state.turn, me), 1 - state.turn, opponent)
            return self._pass_turn(state, seats, state.discards)
        # mille.md 6.1-6.3: a remedy on one's own battle or speed pile.
        if card == END_OF_LIMIT:
            me = me._replace(speed=card)
        else:
            me = me._replace(battle=card)
        me = me._replace(fresh_battle=False, fresh_speed=False, table=(*me.table, card))
        return self._pass_turn(state, _put(state.seats, state.turn, me), state.discards)

    def _play_safety(self, state: MilleState, me: Seat, card: int) -> MilleState:
        """100 points, protection, the hazard removed, a coup fourré, another turn (mille.md 7.1-7.6)."""
        index = card - EXTRA_TANK
        coup = is_coup_fourre(me, card)
        battle, speed = me.battle, me.speed
        fresh_battle, fresh_speed = me.fresh_battle, me.fresh_speed
        if card == RIGHT_OF_WAY:
            if speed == SPEED_LIMIT:
                speed, fresh_speed = EMPTY, False
            if battle == STOP:
                battle, fresh_battle = EMPTY, False
            elif battle == EMPTY or GASOLINE <= battle <= REPAIRS:
                battle = GO
        elif battle == HAZARD_FOR_SAFETY[card]:
            battle, fresh_battle = GO, False
        safeties = list(me.safeties)
        safeties[index] = True
        coups = list(me.coups)
        coups[index] = coup
        me = me._replace(
            battle=battle,
            speed=speed,
            safeties=(safeties[0], safeties[1], safeties[2], safeties[3]),
            coups=(coups[0], coups[1], coups[2], coups[3]),
            fresh_battle=fresh_battle,
            fresh_speed=fresh_speed,
            table=(*me.table, card),
        )
        after = state._replace(seats=_put(state.seats, state.turn, me), picked=False)
        if me.hand_count == 0:  # nothing left to play the extra turn with
            return self._end_turn(after)
        return self._check_deck_out(after)

    def _decide_extension(self, state: MilleState, extend: bool) -> MilleState:
        """mille.md 8.2: yes makes the trip 1000 for both; no ends the hand."""
        if not extend:
            return self._end_hand(state._replace(phase=PLAY))
        return self._end_turn(state._replace(phase=PLAY, trip=EXTENDED_TRIP, extended=True))

    def _end_turn(self, state: MilleState) -> MilleState:
        """Pass the turn; a seat with an empty hand is skipped (mille.md 3.7)."""
        return self._pass_turn(state, state.seats, state.discards)

    def _pass_turn(self, state: MilleState, seats: tuple[Seat, Seat], discards: tuple[int, ...]) -> MilleState:
        """:meth:`_end_turn` with new seats and discards, building one state instead of two."""
        turn = state.turn
        following = 1 - turn
        # Hands only run empty once the deck is out.
        if not state.deck and seats[following].hand_count == 0 and seats[turn].hand_count > 0:
            following = turn
        after = state._replace(seats=seats, discards=discards, turn=following, picked=False)
        return after if state.deck else self._check_deck_out(after)

    def _check_deck_out(self, state: MilleState) -> MilleState:
        """Once the deck is out, the hand ends when neither seat can use a card (mille.md 9.1)."""
        if state.deck or can_use_any(state, 0) or can_use_any(state, 1):
            return state
        return self._end_hand(state)

    def _end_hand(self, state: MilleState) -> MilleState:
        """Score the hand; the game ends at the target unless the totals tie (mille.md 11.1, 11.2)."""
        over = state._replace(phase=HAND_OVER, picked=False)
        hand = hand_totals(over)
        totals = (state.totals[0] + hand[0], state.totals[1] + hand[1])
        over = over._replace(totals=totals)
        if max(totals) >= state.target and totals[0] != totals[1]:
            return over._replace(phase=GAME_OVER)
        return over

    # -- what the seats see ----------------------------------------------------

    def view(self, state: MilleState, seat: int) -> MilleView:
        """``seat``'s own hand and both tables; of the opponent's hand only its size."""
        if seat == OBSERVER:  # a watcher: seat 0 as "me", both hands hidden
            me, opponent = state.seats[0]._replace(hand=(EMPTY,) * 7), state.seats[1]
        else:
            me, opponent = state.seats[seat], state.seats[1 - seat]
        return MilleView(
            seat=seat,
            phase=state.phase,
            turn=state.turn,
            picked=state.picked,
            me=me,
            opponent=opponent._replace(hand=(EMPTY,) * 7),
            opponent_hand_size=opponent.hand_count,
            deck_count=len(state.deck),
            discards=state.discards,
            trip=state.trip,
            extended=state.extended,
            hand_number=state.hand_number,
            totals=state.totals,
            target=state.target,
        )

    def outcome(self, state: MilleState) -> Outcome:
        """The higher overall total wins; the lines are the last hand's score window."""
        winner = 0 if state.totals[0] > state.totals[1] else 1
        lines = score_window(state)
        return Outcome(
            scores=(float(state.totals[0]), float(state.totals[1])),
            winners=(winner,),
            lines=tuple((label, (float(values[0]), float(values[1]))) for label, values in lines),
        )

    def sample_chance(self, state: MilleState, rng: Any) -> Action:
        """An unbiased shuffle from the game's seeded RNG (mille.md 2.4)."""
        deck = full_deck()
        rng.shuffle(deck)
        return deal_action(deck)

    def interlude(self, state: MilleState) -> Interlude | None:
        """The score window at the end of every hand but the last (the end dialog shows that one)."""
        if state.phase != HAND_OVER:
            return None
        lines = score_window(state)
        return Interlude(
            title=end_of_hand(state.hand_number),
            scores=(float(state.totals[0]), float(state.totals[1])),
            lines=tuple((label, (float(values[0]), float(values[1]))) for label, values in lines),
            key=f"hand-{state.hand_number}",
        )

    def current_scores(self, state: MilleState) -> tuple[float, ...] | None:
        """Overall totals with the hand in progress counted in."""
        overall = score_window(state)[-1][1]
        return (float(overall[0]), float(overall[1]))

    def public_events(self, before: MilleState, action: Action, seat: int) -> list[PublicEvent]:
        """What a move showed: the deal, a draw (not the card), a card played or discarded face up."""
        if action.startswith("deal:"):
            return [PublicEvent("deal", {"hand": before.hand_number + 1})]
        if action in ("draw", "extend", "stop"):
            return [PublicEvent(action, {"seat": seat})]
        verb, _sep, slot_name = action.partition(":")
        me = before.seats[seat]
        card = me.hand[SLOT_INDEX[slot_name]]
        if verb == "discard":
            return [PublicEvent("discard", {"seat": seat, "card": card})]
        params: dict[str, Any] = {"seat": seat, "card": card}
        if OUT_OF_GAS <= card <= SPEED_LIMIT:
            params["on"] = 1 - seat
        elif card >= EXTRA_TANK and is_coup_fourre(me, card):
            params["coup_fourre"] = True
        return [PublicEvent("play", params)]

    def describe_action(self, state: MilleState, action: Action, seat: int) -> str:
        """A log sentence naming the seats by :func:`~gamenight.sdk.seat_token` (the room fills in names)."""
        return " ".join(describe_event(event) for event in self.public_events(state, action, seat))

    def describe_choice(self, state: MilleState, action: Action, seat: int) -> str:
        """The coach's words for a choice of the seat to move ("Play Stop on {seat token}"), translated."""
        return " ".join(describe_choice_event(event) for event in self.public_events(state, action, seat))

    def describe(self, state: MilleState, action: Action, seat: int, names: Sequence[str]) -> str:
        """A log sentence ("Computer played Stop on You"); ``state`` is before ``action``."""
        return fill_seat_names(self.describe_action(state, action, seat), names)


def _put(seats: tuple[Seat, Seat], index: int, seat: Seat) -> tuple[Seat, Seat]:
    """``seats`` with seat ``index`` replaced."""
    return (seat, seats[1]) if index == 0 else (seats[0], seat)


def accounted_cards(state: MilleState) -> list[int]:
    """How many of each card are in the deck, hands, tables and discards (101 in all)."""
    counts = [0] * CARD_COUNT
    for pile in (state.deck, state.discards, *(seat.hand for seat in state.seats), *(s.table for s in state.seats)):
        for card in pile:
            if card != EMPTY:
                counts[card] += 1
    return counts


_SORTED_DECK = full_deck()


def invariant_errors(state: MilleState) -> list[str]:
    """What is wrong with ``state`` (empty when sound); used by the tests and the bench.

    All 101 cards are somewhere; each seat's mileage is the sum of its distance
    cards, never past the trip, with at most two 200s; a hand holds at most 7.
    """
    errors = []
    everything = [*state.deck, *state.discards]
    for seat in state.seats:
        everything += seat.hand
        everything += seat.table
    everything.sort()
    if state.phase != DEAL and everything[everything.count(EMPTY) :] != _SORTED_DECK:
        errors.append(f"cards not accounted for: {accounted_cards(state)}")
    for index, seat in enumerate(state.seats):
        miles = sum(VALUE[card] for card in seat.table if card <= D200)
        if miles != seat.mileage:
            errors.append(f"seat {index}: mileage {seat.mileage} but its distance cards make {miles}")
        if seat.mileage > state.trip:
            errors.append(f"seat {index}: mileage {seat.mileage} past the trip {state.trip}")
        if seat.two_hundreds != seat.table.count(D200) or seat.two_hundreds > 2:
            errors.append(f"seat {index}: {seat.two_hundreds} 200s")
        if len(seat.hand) != 7:
            errors.append(f"seat {index}: a hand of {len(seat.hand)} slots")
    return errors
