"""SEVEN's fast kernel: the engine's hot paths, with the speed tricks kept out of rules.py.

:mod:`gamenight_seven.rules` states the rules plainly (docs/rules/seven.md); this module
gives the same results faster, for the room, the arena and the bench, where
``legal_actions``/``apply``/``view`` run ~100 times a deal.  Its tricks: tables
precomputed for every "lead" and card, events made once and shared, states built
positionally from a list of fields (``tuple.__new__``), a cache of one for the last
chance action sampled, and the common one-card draw and whole-penalty draw done in
place of the general draw.  :class:`FastSevenRules` is a :class:`~gamenight_seven.rules.SevenRules`:
what it does not override (passes, blocked deals, scoring, texts) is the readable code.

Every override must give exactly the state, actions, view and reason the readable rules
give: tests/plugins/seven/test_fast_paths.py replays seeded random deals through both,
state by state.  A field added to :class:`~gamenight_seven.rules.SevenState` must be added
to the positional constructions below too (the test catches a missing one).
"""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Sequence
from typing import Any, Final

from gamenight.sdk import CHANCE, TERMINAL, Action, IllegalAction

from .cards import (
    ACE,
    CARD_CODES,
    CARD_OF_CODE,
    QUEEN,
    SEVEN,
    SEVEN_CARDS,
    SPECIAL_CARDS,
    card_label,
)
from .cards import RANK_OF as _RANK_OF
from .cards import SUIT_OF as _SUIT_OF
from .rules import (
    DEAL,
    DRY_DISCARDS,
    HAND_SIZE,
    OVER,
    PENALTY_STEP,
    PLAY,
    PLAYS,
    SHUFFLE,
    TURN_LIMIT,
    Event,
    SevenRules,
    SevenState,
    SevenView,
)

__all__ = ["FastSevenRules"]

_SEVENS = SEVEN_CARDS
_QUEEN_CALLS = tuple(tuple(f"{CARD_CODES[c]}:{suit}" for suit in "SHCD") if c % 13 == QUEEN else () for c in range(52))

# A "lead" says what a discard must match: the top card (0..51), a called suit (52 + suit), or a
# pending 7 penalty (_PENALTY_LEAD).  _MAY_PLAY[lead][card] says whether the card may go on it;
# _ACTIONS[lead][card] lists its actions in a hand of two or more cards (a Queen: one per call),
# _LAST_ACTIONS[lead][card] as the seat's last card (a Queen calls nothing).
_PENALTY_LEAD = 56


def _may_play(lead: int, card: int) -> bool:
    if lead == _PENALTY_LEAD:
        return card in _SEVENS
    if _RANK_OF[card] == QUEEN:
        return True
    if lead >= 52:
        return _SUIT_OF[card] == lead - 52
    return _SUIT_OF[card] == _SUIT_OF[lead] or _RANK_OF[card] == _RANK_OF[lead]


_MAY_PLAY = tuple(tuple(_may_play(lead, card) for card in range(52)) for lead in range(57))
_ACTIONS = tuple(
    tuple(
        (_QUEEN_CALLS[card] if _RANK_OF[card] == QUEEN and lead != _PENALTY_LEAD else (CARD_CODES[card],))
        if _MAY_PLAY[lead][card]
        else ()
        for card in range(52)
    )
    for lead in range(57)
)
_LAST_ACTIONS = tuple(
    tuple((CARD_CODES[card],) if _MAY_PLAY[lead][card] else () for card in range(52)) for lead in range(57)
)

_last_encoded: tuple[str, tuple[int, ...]] = ("", ())
"""The last text :func:`_encode` made and its cards: applying a chance action just sampled
need not parse it again (a cache of one, replaced whole, so safe to share)."""


def _encode(cards: Sequence[int]) -> str:
    global _last_encoded
    text = "".join(map(CARD_CODES.__getitem__, cards))
    _last_encoded = (text, tuple(cards))
    return text


_PAIRS = tuple(slice(i, i + 2) for i in range(0, 104, 2))


def _decode(text: str) -> list[int] | None:
    last_text, last_cards = _last_encoded
    if text == last_text:
        return list(last_cards)
    if len(text) % 2:
        return None
    pairs = _PAIRS[: len(text) // 2] if len(text) <= 104 else [slice(i, i + 2) for i in range(0, len(text), 2)]
    cards = list(map(CARD_OF_CODE.get, map(text.__getitem__, pairs)))
    return None if None in cards else cards  # type: ignore[return-value]


_new = tuple.__new__
"""``_new(SevenState, (...))``: a state from its fields in order, the fastest way to build one."""

# The fields' places in a SevenState, as literals so that a type checker knows each field's type
# (``state[_I_TURN]`` is an int); checked against the NamedTuple's own order when this module loads.
_I_PHASE: Final = 1
_I_HANDS: Final = 2
_I_STOCK: Final = 3
_I_DISCARDS: Final = 4
_I_TURN: Final = 5
_I_CALLED: Final = 6
_I_PENALTY: Final = 7
_I_OWED: Final = 8
_I_OWED_ENDS: Final = 9
_I_OWED_TOTAL: Final = 10
_I_DRAWN: Final = 11
_I_PASSES: Final = 12
_I_TURNS: Final = 13
_I_NOTICE: Final = 14
_I_EVENTS: Final = 17
_I_DRY: Final = 18
_FIELD_PLACES = {
    "phase": _I_PHASE,
    "hands": _I_HANDS,
    "stock": _I_STOCK,
    "discards": _I_DISCARDS,
    "turn": _I_TURN,
    "called": _I_CALLED,
    "penalty": _I_PENALTY,
    "owed": _I_OWED,
    "owed_ends_turn": _I_OWED_ENDS,
    "owed_total": _I_OWED_TOTAL,
    "drawn": _I_DRAWN,
    "passes": _I_PASSES,
    "turns": _I_TURNS,
    "shuffle_notice": _I_NOTICE,
    "events": _I_EVENTS,
    "dry_positions": _I_DRY,
}
if any(SevenState._fields[place] != name for name, place in _FIELD_PLACES.items()):
    raise ImportError("gamenight_seven.fast: SevenState's fields moved; update the _I_ places")


def _event(kind: str, seat: int = -1, card: int = -1, count: int = 0, call: int = -1) -> Event:
    return _new(Event, (kind, seat, card, count, call))


def _make(fields: list[Any]) -> SevenState:
    """A state from its fields as a list (faster than ``_replace`` on the hot paths)."""
    return _new(SevenState, fields)


# The events of the hot paths, made once (events are immutable, so they can be shared):
# _PLAY_EVENTS[seat][card][call + 1], and per seat a win, a skip and a one-card draw.
_PLAY_EVENTS = tuple(
    tuple(tuple(_event("play", seat, card, 0, call) for call in range(-1, 4)) for card in range(52))
    for seat in range(5)
)
_WIN_EVENTS = tuple(_event("win", seat) for seat in range(5))
_SKIP_EVENTS = tuple(_event("skip", seat) for seat in range(5))
_DRAW_EVENTS = tuple(_event("draw", seat, -1, 1) for seat in range(5))
# Every discard action, mapped to (card, called suit or -1, rank, its "play" event by seat).
_PLAY_INFO = {
    action: (card, call, _RANK_OF[card], tuple(_PLAY_EVENTS[seat][card][call + 1] for seat in range(5)))
    for action, (card, call) in PLAYS.items()
}


class FastSevenRules(SevenRules):
    """:class:`~gamenight_seven.rules.SevenRules` with fast hot paths (same results)."""

    def to_move(self, state: SevenState) -> int:
        phase = state[_I_PHASE]
        if phase == PLAY:
            return state[_I_TURN]
        if phase == OVER:
            return TERMINAL
        return CHANCE

    def sample_chance(self, state: SevenState, rng: random.Random) -> Action:
        if state.phase == DEAL:
            deck = list(range(52))
            rng.shuffle(deck)
            return "deal:" + _encode(deck)
        if state.phase == SHUFFLE:
            cards = list(state.discards[:-1])
            rng.shuffle(cards)
            return "shuffle:" + _encode(cards)
        raise IllegalAction.because("no-chance-pending", "No chance outcome is pending.")

    def _apply_deal(self, state: SevenState, action: Action) -> SevenState:
        deck = _decode(action[5:]) if action.startswith("deal:") else None
        if deck is None or len(deck) != 52 or len(set(deck)) != 52:
            raise IllegalAction.because("bad-deal", "A deal must be all 52 cards, each once.")
        n = state.seats
        hands = tuple([tuple(sorted(deck[start : start + HAND_SIZE])) for start in range(0, n * HAND_SIZE, HAND_SIZE)])
        stock = deck[n * HAND_SIZE :]
        events = []
        up = stock.pop()
        while up in SPECIAL_CARDS:
            events.append(_event("bury", -1, up))
            stock.insert(len(stock) // 2, up)
            up = stock.pop()
        events.append(_event("up", -1, up))
        s = list(state)
        s[_I_PHASE] = PLAY
        s[_I_HANDS] = hands
        s[_I_STOCK] = tuple(stock)
        s[_I_DISCARDS] = (up,)
        s[_I_EVENTS] = tuple(events)
        return _make(s)

    def _apply_shuffle(self, state: SevenState, action: Action) -> SevenState:
        cards = _decode(action[8:]) if action.startswith("shuffle:") else None
        if cards is None or sorted(cards) != sorted(state.discards[:-1]):
            raise IllegalAction.because(
                "bad-reshuffle", "A reshuffle must hold exactly the discards below the top card."
            )
        s = list(state)
        s[_I_PHASE] = PLAY
        s[_I_STOCK] = tuple(cards)
        s[_I_DISCARDS] = state.discards[-1:]
        s[_I_NOTICE] = True
        s[_I_EVENTS] = (*state.events, _event("shuffle", count=len(cards)))
        return self._settle_fields(s)

    def legal_actions(self, state: SevenState) -> list[Action]:
        # Fields by index: a few lookups are cheaper than unpacking the whole state.
        if state[_I_PHASE] != PLAY:
            return []
        hand = state[_I_HANDS][state[_I_TURN]]
        if state[_I_PENALTY]:
            sevens = [CARD_CODES[c] for c in hand if c in _SEVENS]
            sevens.append("draw")
            return sevens
        called = state[_I_CALLED]
        discards = state[_I_DISCARDS]
        row = (_ACTIONS if len(hand) > 1 else _LAST_ACTIONS)[discards[-1] if called < 0 else 52 + called]
        actions: list[Action] = []
        for card in hand:
            actions += row[card]
        if state[_I_STOCK] or len(discards) > 1:
            actions.append("draw")
        elif not actions:
            actions.append("pass")
        return actions

    def apply(self, state: SevenState, action: Action) -> SevenState:
        # The hot path: a discard or a one-card draw, building the new state positionally.
        (
            seats,
            phase,
            hands,
            stock,
            discards,
            seat,
            called,
            penalty,
            owed,
            owed_ends,
            owed_total,
            drawn,
            _passes,
            turns,
            notice,
            winner,
            blocked_from,
            events,
            dry,
        ) = state
        if phase != PLAY:
            if phase == DEAL:
                return self._apply_deal(state, action)
            if phase == SHUFFLE:
                return self._apply_shuffle(state, action)
            raise IllegalAction.because("deal-over", "The deal is over.")
        if action == "draw":
            if stock and not penalty and not owed_ends:
                # One card, and the turn goes on: the common case of the general draw.
                hand = list(hands[seat])
                insort(hand, stock[-1])
                new_hands = list(hands)
                new_hands[seat] = tuple(hand)
                events += (_DRAW_EVENTS[seat],)
                return _new(
                    SevenState,
                    (
                        seats,
                        phase,
                        tuple(new_hands),
                        stock[:-1],
                        discards,
                        seat,
                        called,
                        penalty,
                        0,
                        owed_ends,
                        0,
                        0,
                        0,
                        turns,
                        notice,
                        winner,
                        blocked_from,
                        events,
                        dry,
                    ),
                )
            if penalty and len(stock) >= penalty:
                # The whole penalty from the stock, and the turn ends.
                new_hands = list(hands)
                new_hands[seat] = tuple(sorted(hands[seat] + stock[-penalty:]))
                turns += 1
                new = _new(
                    SevenState,
                    (
                        seats,
                        phase,
                        tuple(new_hands),
                        stock[:-penalty],
                        discards,
                        (seat + 1) % seats,
                        called,
                        0,
                        0,
                        False,
                        0,
                        0,
                        0,
                        turns,
                        notice,
                        winner,
                        blocked_from,
                        (*events, _event("penalty", seat, -1, penalty, penalty)),
                        dry,
                    ),
                )
                if turns >= TURN_LIMIT or (len(stock) == penalty and len(discards) <= DRY_DISCARDS):
                    return self._check_turn_limit(new)
                return new
            return self._apply_draw(state)
        if action == "pass":
            return self._apply_pass(state)
        parsed = _PLAY_INFO.get(action)
        if parsed is None:
            raise IllegalAction.because("not-a-card-or-move", "{action} is not a card or a move.", action=action)
        card, call, rank, played_by = parsed
        rest = list(hands[seat])
        try:
            rest.remove(card)
        except ValueError:
            raise IllegalAction.because("card-not-held", "You do not hold {card}.", card=card_label(card)) from None
        if not _MAY_PLAY[_PENALTY_LEAD if penalty else discards[-1] if called < 0 else 52 + called][card]:
            self._check_matches(state, card)  # raises the reason
        remaining = tuple(rest)
        if rank == QUEEN:
            if remaining and call < 0:
                raise IllegalAction.because("queen-needs-call", "Call a suit with the Queen: ♠ ♥ ♣ or ♦.")
            if not remaining and call >= 0:
                raise IllegalAction.because(
                    "last-queen-calls-nothing", "The Queen is your last card: it ends the deal and calls nothing."
                )
        new_hands = list(hands)
        new_hands[seat] = remaining
        hands = tuple(new_hands)
        discards += (card,)
        played = played_by[seat]
        turns += 1
        if not remaining:
            events += (played, _WIN_EVENTS[seat])
            return _new(
                SevenState,
                (
                    seats,
                    OVER,
                    hands,
                    stock,
                    discards,
                    seat,
                    call,
                    0,
                    owed,
                    owed_ends,
                    owed_total,
                    drawn,
                    0,
                    turns,
                    False,
                    seat,
                    blocked_from,
                    events,
                    dry,
                ),
            )
        following = (seat + 1) % seats
        if rank == ACE:
            events += (played, _SKIP_EVENTS[following])
            following = (following + 1) % seats
        else:
            events += (played,)
        new = _new(
            SevenState,
            (
                seats,
                phase,
                hands,
                stock,
                discards,
                following,
                call,
                penalty + PENALTY_STEP if rank == SEVEN else 0,
                owed,
                owed_ends,
                owed_total,
                drawn,
                0,
                turns,
                False,
                winner,
                blocked_from,
                events,
                dry,
            ),
        )
        if turns >= TURN_LIMIT or (not stock and len(discards) <= DRY_DISCARDS):
            return self._check_turn_limit(new)
        return new

    def _apply_draw(self, state: SevenState) -> SevenState:
        s = list(state)
        if state.penalty:
            s[_I_OWED] = s[_I_OWED_TOTAL] = state.penalty
            s[_I_OWED_ENDS] = True
        elif state.stock or len(state.discards) > 1:
            s[_I_OWED] = s[_I_OWED_TOTAL] = 1
        else:
            raise IllegalAction.because("stock-empty", "Nothing is left to draw.")
        s[_I_DRAWN] = 0
        return self._settle_fields(s)

    def _settle(self, state: SevenState) -> SevenState:
        return self._settle_fields(list(state))

    def _settle_fields(self, s: list[Any]) -> SevenState:
        """The readable ``_settle`` on a state as a list, changed in place and returned as a state."""
        owed = s[_I_OWED]
        stock = s[_I_STOCK]
        seat = s[_I_TURN]
        take = min(owed, len(stock))
        s[_I_DRAWN] += take
        if take:
            hands = list(s[_I_HANDS])
            hands[seat] = tuple(sorted(hands[seat] + stock[len(stock) - take :]))
            s[_I_STOCK] = stock[: len(stock) - take]
            s[_I_HANDS] = tuple(hands)
            owed -= take
        if owed and len(s[_I_DISCARDS]) > 1:
            s[_I_PHASE] = SHUFFLE
            s[_I_OWED] = owed
            return _make(s)
        drawn = s[_I_DRAWN]
        total = s[_I_OWED_TOTAL]
        s[_I_OWED] = s[_I_OWED_TOTAL] = s[_I_DRAWN] = 0
        if not s[_I_OWED_ENDS]:
            s[_I_EVENTS] = (*s[_I_EVENTS], _event("draw", seat, -1, drawn))
            s[_I_PASSES] = 0
            return _make(s)
        s[_I_EVENTS] = (*s[_I_EVENTS], _event("penalty", seat, -1, drawn, total))
        s[_I_OWED_ENDS] = False
        s[_I_PENALTY] = 0
        s[_I_TURN] = (seat + 1) % s[0]
        s[_I_TURNS] += 1
        s[_I_PASSES] = 0 if drawn else s[_I_PASSES] + 1
        return self._check_blocked(_make(s))

    def _check_turn_limit(self, state: SevenState) -> SevenState:
        if state.turns >= TURN_LIMIT:
            return self._block(state)
        if not state.stock and len(state.discards) <= DRY_DISCARDS:
            position = (state.hands, state.discards, state.turn, state.called, state.penalty)
            seen = state.dry_positions
            if seen.count(position) >= 2:
                return self._block(state)
            s = list(state)
            s[_I_DRY] = (*seen, position)
            return _make(s)
        return state

    def view(self, state: SevenState, seat: int) -> SevenView:
        (
            seats,
            phase,
            hands,
            stock,
            discards,
            turn,
            called,
            penalty,
            _owed,
            _owed_ends,
            _owed_total,
            _drawn,
            _passes,
            turns,
            notice,
            winner,
            blocked_from,
            events,
            _dry,
        ) = state
        # Positional, in SevenView's field order (much faster than keywords; bots call this a lot).
        return _new(
            SevenView,
            (
                seat,
                seats,
                hands[seat] if seat >= 0 else (),  # OBSERVER (a watcher) holds no hand
                tuple(map(len, hands)),
                discards[-1] if discards else -1,
                called,
                penalty,
                len(stock),
                len(discards),
                discards,
                turn if phase == PLAY else TERMINAL if phase == OVER else CHANCE,
                turn,
                notice or phase == SHUFFLE,
                events,
                winner,
                blocked_from >= 0,
                turns,
                hands if phase == OVER else (),
            ),
        )
