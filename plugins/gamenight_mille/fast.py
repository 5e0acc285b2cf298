"""Mille Bornes' fast kernel: the engine's hot paths, with the speed tricks kept out of rules.py.

:mod:`gamenight_mille.rules` states the rules plainly (docs/rules/mille.md); this module gives
the same results faster, for the room, the arena and the bench.  Its tricks: states and seats
built positionally (``tuple.__new__``, skipping the keyword handling of ``NamedTuple``), the
legality checks of ``legal_actions`` (and of the end of a hand once the deck is out) inlined
and hoisted out of the loop over the hand, a picked card moved straight into the slot just
emptied, and a deal's letters looked up in a table.  :class:`FastMilleRules` is a
:class:`~gamenight_mille.rules.MilleRules`: what it does not override (deals, safeties,
extensions, the end of a hand, scoring, refusals, texts) is the readable code.

Every override must give exactly the state, actions and reason the readable rules give:
tests/plugins/mille/test_fast_paths.py replays seeded random games through both, state by
state.  A field added to :class:`~gamenight_mille.rules.Seat` or
:class:`~gamenight_mille.rules.MilleState` must be added to the positional constructions
below too (that test catches a missing one).
"""

from __future__ import annotations

from gamenight.sdk import Action, IllegalAction

from .rules import (
    CODES,
    D50,
    D75,
    D100,
    D200,
    DEAL,
    DECK_COUNTS,
    DECK_SIZE,
    EMPTY,
    END_OF_LIMIT,
    EXTENSION,
    EXTRA_TANK,
    GO,
    GO_ALLOWED_ON,
    HAND_OVER,
    HAZARD_FOR_REMEDY,
    PLAY,
    REPAIRS,
    SAFETY_INDEX,
    SLOT_INDEX,
    SLOT_NAMES,
    SPEED_LIMIT,
    STOP,
    TRIP,
    VALUE,
    MilleRules,
    MilleState,
    Seat,
    _compact,
    cancels,
)

__all__ = ["FastMilleRules"]

_new_tuple = tuple.__new__
"""Builds a NamedTuple from a full tuple of its fields, skipping the keyword-handling ``__new__``."""

_USE = tuple("use:" + name for name in SLOT_NAMES)
_DISCARD = tuple("discard:" + name for name in SLOT_NAMES)
_PARSED = {f"{verb}:{name}": (verb, index) for verb in ("use", "discard") for name, index in SLOT_INDEX.items()}
"""Every ``use:``/``discard:`` action string -> (verb, slot)."""


def _usable(me: Seat, opponent: Seat, trip: int, card: int) -> bool:
    """:func:`gamenight_mille.rules.usable`, with each check inlined."""
    if card <= D200:
        return (
            me.can_move
            and (card != D200 or me.two_hundreds < 2)
            and (card < D75 or me.speed != SPEED_LIMIT)
            and me.mileage + VALUE[card] <= trip
        )
    if card <= STOP:
        return opponent.can_move and not opponent.safeties[SAFETY_INDEX[card]]
    if card == SPEED_LIMIT:
        return opponent.speed != SPEED_LIMIT and not opponent.safeties[3]
    if card == GO:
        return me.battle in GO_ALLOWED_ON
    if card == END_OF_LIMIT:
        return me.speed == SPEED_LIMIT
    if card <= REPAIRS:
        return me.battle == HAZARD_FOR_REMEDY[card]
    return True


_CODE_SET = frozenset(CODES)
_CODE_INDEX = {code: card for card, code in enumerate(CODES)}


def _parse_deal(action: str) -> tuple[int, ...]:
    """:func:`gamenight_mille.rules.parse_deal` with the letters looked up in a table."""
    letters = action[5:]
    if len(letters) != DECK_SIZE or not set(letters) <= _CODE_SET:
        raise IllegalAction.because("bad-deal", "A deal must list all {count} cards as letters a-s.", count=DECK_SIZE)
    if any(letters.count(code) != count for code, count in zip(CODES, DECK_COUNTS, strict=True)):
        raise IllegalAction.because("bad-deal", "A deal must hold each card exactly as often as the deck does.")
    return tuple(map(_CODE_INDEX.__getitem__, letters))


def _with_hand(seat: Seat, hand: tuple[int, ...]) -> Seat:
    """``seat`` with a new hand and its coup fourré flags cleared (a draw or the end of its turn)."""
    return _new_tuple(
        Seat,
        (
            hand,
            seat.battle,
            seat.speed,
            seat.mileage,
            seat.two_hundreds,
            seat.safeties,
            seat.coups,
            False,
            False,
            seat.table,
        ),
    )


def _moved(
    state: MilleState,
    seats: tuple[Seat, Seat],
    deck: tuple[int, ...],
    discards: tuple[int, ...],
    turn: int,
    picked: bool,
) -> MilleState:
    """``state`` with new seats, deck, discards and turn (built directly: the hottest path)."""
    return _new_tuple(
        MilleState,
        (
            state.phase,
            seats,
            deck,
            discards,
            turn,
            picked,
            state.trip,
            state.extended,
            state.hand_number,
            state.totals,
            state.target,
            state.first,
        ),
    )


def _put(seats: tuple[Seat, Seat], index: int, seat: Seat) -> tuple[Seat, Seat]:
    return (seat, seats[1]) if index == 0 else (seats[0], seat)


class FastMilleRules(MilleRules):
    """:class:`~gamenight_mille.rules.MilleRules` with fast hot paths (same results)."""

    def apply(self, state: MilleState, action: Action) -> MilleState:
        phase = state.phase
        if phase == PLAY:
            return self._play(state, action)
        if (phase == DEAL or phase == HAND_OVER) and action.startswith("deal:"):
            return self._deal(state, _parse_deal(action))
        return super().apply(state, action)

    def legal_actions(self, state: MilleState) -> list[Action]:
        phase = state.phase
        if phase == EXTENSION:
            return ["extend", "stop"]
        if phase != PLAY:
            return []
        seat_index = state.turn
        me = state.seats[seat_index]
        if not state.picked and state.deck:
            if max(me.hand) < EXTRA_TANK:
                return ["draw"]
            actions = ["draw"]
            for slot in range(1, 7):
                card = me.hand[slot]
                if card >= EXTRA_TANK and cancels(me, card):
                    actions.append(_USE[slot])
            return actions
        # The checks of _usable(), hoisted out of the loop: this is the engine's hottest path.
        opponent = state.seats[1 - seat_index]
        room = state.trip - me.mileage if me.can_move else -1
        top_speed = D50 if me.speed == SPEED_LIMIT else (D200 if me.two_hundreds < 2 else D100)
        attackable = opponent.can_move
        uses: list[Action] = []
        discards: list[Action] = []
        value, use_names, discard_names, safety_index = VALUE, _USE, _DISCARD, SAFETY_INDEX
        for slot, card in enumerate(me.hand):
            if card < 0:
                continue
            if card <= D200:
                if card <= top_speed and value[card] <= room:
                    uses.append(use_names[slot])
            elif card <= STOP:
                if attackable and not opponent.safeties[safety_index[card]]:
                    uses.append(use_names[slot])
            elif _usable(me, opponent, state.trip, card):
                uses.append(use_names[slot])
            if card < EXTRA_TANK:
                discards.append(discard_names[slot])
        return uses + discards

    def _play(self, state: MilleState, action: Action) -> MilleState:
        turn = state.turn
        me = state.seats[turn]
        if action == "draw" and state.deck and not state.picked:
            deck = state.deck
            if me.hand[1] == EMPTY and len(deck) > 1:
                hand, deck = (deck[0], deck[1], *me.hand[2:]), deck[2:]
            else:
                hand, deck = (deck[0], *me.hand[1:]), deck[1:]
            me = _with_hand(me, hand)
            after = _new_tuple(
                MilleState,
                (
                    state.phase,
                    _put(state.seats, turn, me),
                    deck,
                    state.discards,
                    turn,
                    True,
                    state.trip,
                    state.extended,
                    state.hand_number,
                    state.totals,
                    state.target,
                    state.first,
                ),
            )
            return after if deck else self._check_deck_out(after)
        verb, slot = _PARSED.get(action, ("", -1))
        card = me.hand[slot] if slot >= 0 else EMPTY
        use = verb == "use"
        legal = (
            card != EMPTY
            and (state.picked or not state.deck or (use and card >= EXTRA_TANK and cancels(me, card)))
            and (_usable(me, state.seats[1 - turn], state.trip, card) if use else card < EXTRA_TANK)
        )
        if not legal:
            raise self.refusal_error(state, action) or IllegalAction.because(
                "unknown-command", "unknown command: {command}", command=action
            )
        cards = list(me.hand)
        if slot and cards[0] != EMPTY and cards.count(EMPTY) == 0:
            cards[slot] = cards[0]  # the usual case of the close-up (mille.md 3.5): P fills the hole
            cards[0] = EMPTY
        else:
            cards[slot] = EMPTY
            _compact(cards)
        if not use:
            seats = _put(state.seats, turn, _with_hand(me, tuple(cards)))
            return self._pass_turn(state, seats, (*state.discards, card))
        return self._use(state, _new_tuple(Seat, (tuple(cards), *me[1:])), card)

    def _use(self, state: MilleState, me: Seat, card: int) -> MilleState:
        turn = state.turn
        seats = state.seats
        if card >= EXTRA_TANK:
            return self._play_safety(state, me, card)
        if card <= D200:
            me = _new_tuple(
                Seat,
                (
                    me.hand,
                    me.battle,
                    me.speed,
                    me.mileage + VALUE[card],
                    me.two_hundreds + (card == D200),
                    me.safeties,
                    me.coups,
                    False,
                    False,
                    (*me.table, card),
                ),
            )
            seats = _put(seats, turn, me)
            if me.mileage == state.trip:
                after = state._replace(seats=seats)
                if state.trip == TRIP and not state.extended:
                    return after._replace(phase=EXTENSION)
                return self._end_hand(after)
            return self._pass_turn(state, seats, state.discards)
        if card <= SPEED_LIMIT:
            me = _with_hand(me, me.hand)
            opponent = seats[1 - turn]
            if card == SPEED_LIMIT:
                opponent = opponent._replace(speed=card, fresh_speed=True, table=(*opponent.table, card))
            else:
                opponent = opponent._replace(battle=card, fresh_battle=True, table=(*opponent.table, card))
            pair = (me, opponent) if turn == 0 else (opponent, me)
            return self._pass_turn(state, pair, state.discards)
        speed, battle = (card, me.battle) if card == END_OF_LIMIT else (me.speed, card)
        me = _new_tuple(
            Seat,
            (
                me.hand,
                battle,
                speed,
                me.mileage,
                me.two_hundreds,
                me.safeties,
                me.coups,
                False,
                False,
                (*me.table, card),
            ),
        )
        return self._pass_turn(state, _put(seats, turn, me), state.discards)

    def _check_deck_out(self, state: MilleState) -> MilleState:
        if state.deck:
            return state
        trip = state.trip
        first, second = state.seats
        for me, opponent in ((first, second), (second, first)):
            for card in me.hand:
                if card != EMPTY and _usable(me, opponent, trip, card):
                    return state
        return self._end_hand(state)

    def _pass_turn(self, state: MilleState, seats: tuple[Seat, Seat], discards: tuple[int, ...]) -> MilleState:
        turn = state.turn
        other = 1 - turn
        deck = state.deck
        if not deck and seats[other].hand_count == 0 and seats[turn].hand_count > 0:
            other = turn
        after = _moved(state, seats, deck, discards, other, False)
        return after if deck else self._check_deck_out(after)
