"""The rules of SEVEN (docs/rules/seven.md): a pure, fast engine with no UI import.

Cards are ints ``0..51``: ``suit * 13 + rank`` with suits ♠ ♥ ♣ ♦ (``S H C D``)
and ranks A 2 … 10 J Q K (``0..12``).  Actions are short strings:

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
"""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from gamenight.i18n import translator
from gamenight.sdk import CHANCE, TERMINAL, Action, IllegalAction, Outcome, Rules, seat_token

_ = translator("seven")

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

SUITS = "SHCD"
SUIT_SYMBOLS = "♠♥♣♦"
RANKS = "A23456789TJQK"
RANK_LABELS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
ACE, SEVEN, QUEEN = 0, 6, 11
HAND_SIZE = 5
PENALTY_STEP = 3
TURN_LIMIT = 500
"""Turns after which a deal ends as blocked, whatever happens (see the module doc)."""
DRY_DISCARDS = 4
"""With the stock empty and this many discards or fewer, repeated positions are watched."""

DEAL, PLAY, SHUFFLE, OVER = 0, 1, 2, 3
"""Phases: the deal (chance), play, a reshuffle of the discards (chance), the end."""

CARD_CODES: tuple[str, ...] = tuple(RANKS[c % 13] + SUITS[c // 13] for c in range(52))
_CODE_TO_CARD = {code: card for card, code in enumerate(CARD_CODES)}
_SUIT_OF = tuple(c // 13 for c in range(52))
_RANK_OF = tuple(c % 13 for c in range(52))
_PENALTY = tuple(10 if c % 13 == QUEEN else 5 if c % 13 == SEVEN else 1 for c in range(52))
_SEVENS = frozenset(s * 13 + SEVEN for s in range(4))
_SPECIAL_UP = frozenset(c for c in range(52) if c % 13 in (ACE, SEVEN, QUEEN))
# Every action that names a card, mapped to (card, called suit or -1).
_PLAYS: dict[str, tuple[int, int]] = {code: (card, -1) for card, code in enumerate(CARD_CODES)}
_PLAYS.update(
    {f"{CARD_CODES[s * 13 + QUEEN]}:{SUITS[call]}": (s * 13 + QUEEN, call) for s in range(4) for call in range(4)}
)
_QUEEN_CALLS = tuple(
    tuple(f"{CARD_CODES[c]}:{suit}" for suit in SUITS) if c % 13 == QUEEN else () for c in range(52)
)

# Precomputed tables for the hot paths (legal_actions and apply are called ~100 times a deal).
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
        if _MAY_PLAY[lead][card] else ()
        for card in range(52)
    )
    for lead in range(57)
)
_LAST_ACTIONS = tuple(
    tuple((CARD_CODES[card],) if _MAY_PLAY[lead][card] else () for card in range(52)) for lead in range(57)
)


def suit_of(card: int) -> int:
    """The suit index (0 ♠, 1 ♥, 2 ♣, 3 ♦)."""
    return _SUIT_OF[card]


def rank_of(card: int) -> int:
    """The rank index (0 Ace … 6 Seven … 11 Queen, 12 King)."""
    return _RANK_OF[card]


def penalty_of(card: int) -> int:
    """What the card costs a loser (docs/rules/seven.md 6.2): Queen 10, 7 5, any other 1."""
    return _PENALTY[card]


def hand_penalty(hand: Sequence[int]) -> int:
    """The penalty of a whole hand."""
    return sum(_PENALTY[c] for c in hand)


def card_code(card: int) -> str:
    """The two-character code used in actions: ``"7S"``, ``"TD"``."""
    return CARD_CODES[card]


def card_label(card: int) -> str:
    """The card as players read it: ``"7♠"``, ``"10♦"``."""
    return RANK_LABELS[_RANK_OF[card]] + SUIT_SYMBOLS[_SUIT_OF[card]]


def parse_card(code: str) -> int:
    """The card for a two-character code; ``ValueError`` if there is none."""
    try:
        return _CODE_TO_CARD[code.upper()]
    except KeyError:
        raise ValueError(f"not a card: {code!r}") from None


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
    cards = list(map(_CODE_TO_CARD.get, map(text.__getitem__, pairs)))
    return None if None in cards else cards  # type: ignore[return-value]


class Event(NamedTuple):
    """One public happening, for the log every seat sees (never a drawn card)."""

    kind: str
    """``up`` (first card turned), ``bury`` (a 7/A/Q turned up, put back), ``play``,
    ``draw``, ``penalty`` (a 7 penalty taken), ``pass``, ``skip`` (by an Ace),
    ``shuffle``, ``win`` or ``blocked``."""
    seat: int = -1
    card: int = -1
    count: int = 0
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


_FIELDS = SevenState._fields
_I_PHASE, _I_HANDS, _I_STOCK, _I_DISCARDS, _I_TURN, _I_CALLED, _I_PENALTY = (
    _FIELDS.index(name) for name in ("phase", "hands", "stock", "discards", "turn", "called", "penalty")
)
_I_OWED, _I_OWED_ENDS, _I_OWED_TOTAL, _I_DRAWN, _I_PASSES, _I_TURNS, _I_NOTICE, _I_WINNER, _I_EVENTS = (
    _FIELDS.index(name)
    for name in ("owed", "owed_ends_turn", "owed_total", "drawn", "passes", "turns", "shuffle_notice",
                 "winner", "events")
)


def _event(kind: str, seat: int = -1, card: int = -1, count: int = 0, call: int = -1) -> Event:
    return tuple.__new__(Event, (kind, seat, card, count, call))


def _make(fields: list[Any]) -> SevenState:
    """A state from its fields as a list (faster than ``_replace`` on the hot paths)."""
    return tuple.__new__(SevenState, fields)


_new = tuple.__new__
"""``_new(SevenState, (...))``: a state from its fields in order, the fastest way to build one."""

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
    for action, (card, call) in _PLAYS.items()
}


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


class SevenRules(Rules):
    """The SEVEN engine (docs/rules/seven.md)."""

    watchable = True
    """A watcher (``seat`` :data:`~gamenight.sdk.OBSERVER`) sees the table with no hand: ``hand`` is empty."""

    # -- setup ----------------------------------------------------------------

    def new_game(self, seats: int, options: Mapping[str, Any]) -> SevenState:
        """An undealt table; the deal itself is the first (chance) action."""
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
        """Deal ``game_number`` of a session: the lead passes one seat on with every deal."""
        return self.new_game(seats, options)._replace(turn=game_number % seats)

    def to_move(self, state: SevenState) -> int:
        """The seat to move, CHANCE for the deal and reshuffles, TERMINAL at the end."""
        phase = state[_I_PHASE]
        if phase == PLAY:
            return state[_I_TURN]
        if phase == OVER:
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
            cards = list(state.discards[:-1])
            rng.shuffle(cards)
            return "shuffle:" + _encode(cards)
        raise IllegalAction(_("No chance outcome is pending."))

    def _apply_deal(self, state: SevenState, action: Action) -> SevenState:
        deck = _decode(action[5:]) if action.startswith("deal:") else None
        if deck is None or len(deck) != 52 or len(set(deck)) != 52:
            raise IllegalAction(_("A deal must be all 52 cards, each once."))
        n = state.seats
        # Deal 5 each (seven.md 2.2); the deck's end is the top of the stock.
        hands = tuple([tuple(sorted(deck[start : start + HAND_SIZE])) for start in range(0, n * HAND_SIZE, HAND_SIZE)])
        stock = deck[n * HAND_SIZE :]
        events = []
        up = stock.pop()
        # seven.md 2.3: a 7, Ace or Queen turned up goes back into the middle of the
        # stock.  It terminates: the cards above the middle turn over in a cycle of
        # at least 14 (the stock holds 27 or more), and only 12 cards are special.
        while up in _SPECIAL_UP:
            events.append(_event("bury", -1, up))
            stock.insert(len(stock) // 2, up)
            up = stock.pop()
        events.append(_event("up", -1, up))
        # state._replace(phase=PLAY, hands=hands, stock=tuple(stock), discards=(up,), events=tuple(events))
        return _new(SevenState, (state[0], PLAY, hands, tuple(stock), (up,), *state[5:17], tuple(events), state[18]))

    def _apply_shuffle(self, state: SevenState, action: Action) -> SevenState:
        cards = _decode(action[8:]) if action.startswith("shuffle:") else None
        if cards is None or sorted(cards) != sorted(state.discards[:-1]):
            raise IllegalAction(_("A reshuffle must hold exactly the discards below the top card."))
        # seven.md 5.1: the discards except the top card become the new stock.
        s = list(state)
        s[_I_PHASE] = PLAY
        s[_I_STOCK] = tuple(cards)
        s[_I_DISCARDS] = state.discards[-1:]
        s[_I_NOTICE] = True
        s[_I_EVENTS] = (*state.events, _event("shuffle", count=len(cards)))
        return self._settle(s)

    # -- play -----------------------------------------------------------------

    def legal_actions(self, state: SevenState) -> list[Action]:
        """Discards that match, Queens with each call, ``draw`` and (only if stuck) ``pass``."""
        # Fields by index: a few lookups are cheaper than unpacking the whole state.
        if state[_I_PHASE] != PLAY:
            return []
        hand = state[_I_HANDS][state[_I_TURN]]
        if state[_I_PENALTY]:
            # seven.md 4.3: only a 7 answers a pending penalty; "draw" takes it.
            actions = [CARD_CODES[c] for c in hand if c in _SEVENS]
            actions.append("draw")
            return actions
        # A card matches the top card's suit or rank, or the called suit; a Queen goes on
        # anything and calls a suit, unless it is the seat's last card (see the tables above).
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
        """The state after ``action``; :class:`IllegalAction` (with the reason) if it is not legal."""
        # The hot path: a discard or a one-card draw, building the new state positionally.
        (seats, phase, hands, stock, discards, seat, called, penalty, owed, owed_ends, owed_total, drawn,
         _passes, turns, notice, winner, blocked_from, events, dry) = state
        if phase != PLAY:
            if phase == DEAL:
                return self._apply_deal(state, action)
            if phase == SHUFFLE:
                return self._apply_shuffle(state, action)
            raise IllegalAction(_("The deal is over."))
        if action == "draw":
            if stock and not penalty and not owed_ends:
                # seven.md 3.3: one card, and the turn goes on.  (_apply_draw
                # gives the same state; this is its common case, made fast.)
                hand = list(hands[seat])
                insort(hand, stock[-1])
                new_hands = list(hands)
                new_hands[seat] = tuple(hand)
                events += (_DRAW_EVENTS[seat],)
                return _new(SevenState, (
                    seats, phase, tuple(new_hands), stock[:-1], discards, seat, called, penalty, 0, owed_ends, 0, 0,
                    0, turns, notice, winner, blocked_from, events, dry,
                ))
            if penalty and len(stock) >= penalty:
                # seven.md 4.2: the seat that takes the penalty draws it and its turn ends (the
                # common case of _apply_draw, when the stock holds the whole penalty).
                new_hands = list(hands)
                new_hands[seat] = tuple(sorted(hands[seat] + stock[-penalty:]))
                turns += 1
                new = _new(SevenState, (
                    seats, phase, tuple(new_hands), stock[:-penalty], discards, (seat + 1) % seats, called, 0,
                    0, False, 0, 0, 0, turns, notice, winner, blocked_from,
                    (*events, _event("penalty", seat, -1, penalty, penalty)), dry,
                ))
                if turns >= TURN_LIMIT or (len(stock) == penalty and len(discards) <= DRY_DISCARDS):
                    return self._check_turn_limit(new)
                return new
            return self._apply_draw(state)
        if action == "pass":
            return self._apply_pass(state)
        parsed = _PLAY_INFO.get(action)
        if parsed is None:
            raise IllegalAction(_("{action} is not a card or a move.", action=action))
        card, call, rank, played_by = parsed
        rest = list(hands[seat])
        try:
            rest.remove(card)
        except ValueError:
            raise IllegalAction(_("You do not hold {card}.", card=card_label(card))) from None
        if not _MAY_PLAY[_PENALTY_LEAD if penalty else discards[-1] if called < 0 else 52 + called][card]:
            self._check_matches(state, card)  # raises the reason
        remaining = tuple(rest)
        if rank == QUEEN:
            if remaining and call < 0:
                raise IllegalAction(_("Call a suit with the Queen: ♠ ♥ ♣ or ♦."))
            if not remaining and call >= 0:
                raise IllegalAction(_("The Queen is your last card: it ends the deal and calls nothing."))
        new_hands = list(hands)
        new_hands[seat] = remaining
        hands = tuple(new_hands)
        discards += (card,)
        played = played_by[seat]
        turns += 1
        if not remaining:  # seven.md 6.1: the first seat to empty its hand wins
            events += (played, _WIN_EVENTS[seat])
            return _new(SevenState, (
                seats, OVER, hands, stock, discards, seat, call, 0, owed, owed_ends, owed_total, drawn,
                0, turns, False, seat, blocked_from, events, dry,
            ))
        following = (seat + 1) % seats
        if rank == ACE:  # seven.md 3.4: the next seat is skipped
            events += (played, _SKIP_EVENTS[following])
            following = (following + 1) % seats
        else:
            events += (played,)
        new = _new(SevenState, (
            seats, phase, hands, stock, discards, following, call,
            penalty + PENALTY_STEP if rank == SEVEN else 0,  # seven.md 4.1: 3, 6, 9, 12
            owed, owed_ends, owed_total, drawn, 0, turns, False, winner, blocked_from, events, dry,
        ))
        if turns >= TURN_LIMIT or (not stock and len(discards) <= DRY_DISCARDS):
            return self._check_turn_limit(new)
        return new

    def _check_matches(self, state: SevenState, card: int) -> None:
        """Raise the reason why ``card`` may not be discarded now, if it may not."""
        if state.penalty:
            if card not in _SEVENS:  # seven.md 4.3: while a penalty is pending only a 7 may be played
                raise IllegalAction(
                    _("Only a 7 may answer the pending 7: play one or draw {count}.", count=state.penalty)
                )
            return
        rank = _RANK_OF[card]
        if rank == QUEEN:  # seven.md 3.6: on anything but a pending 7
            return
        if state.called >= 0:
            if _SUIT_OF[card] != state.called:
                raise IllegalAction(
                    _("{card} does not follow the called suit {suit}.", card=card_label(card),
                      suit=SUIT_SYMBOLS[state.called])
                )
            return
        top = state.discards[-1]
        if _SUIT_OF[card] != _SUIT_OF[top] and rank != _RANK_OF[top]:
            raise IllegalAction(
                _("{card} matches neither the suit nor the rank of {top}.", card=card_label(card),
                  top=card_label(top))
            )

    def _apply_draw(self, state: SevenState) -> SevenState:
        """A draw in general; ``apply`` does the common cases itself, with the same result."""
        s = list(state)
        if state.penalty:
            # seven.md 4.2: the seat that takes the penalty draws it and its turn ends.
            s[_I_OWED] = s[_I_OWED_TOTAL] = state.penalty
            s[_I_OWED_ENDS] = True
        elif state.stock or len(state.discards) > 1:
            # seven.md 3.3: one card, and the turn goes on.
            s[_I_OWED] = s[_I_OWED_TOTAL] = 1
        else:
            raise IllegalAction(_("Nothing is left to draw."))
        s[_I_DRAWN] = 0
        return self._settle(s)

    def _settle(self, s: list[Any]) -> SevenState:
        """Draw what the mover owes; stop for a reshuffle; end the turn after a penalty.

        ``s`` is a state as a list, changed in place and returned as a state.
        """
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
            # seven.md 5.1: a reshuffle (a chance action) before drawing on.
            s[_I_PHASE] = SHUFFLE
            s[_I_OWED] = owed
            return _make(s)
        # Otherwise stock and discards are exhausted: seven.md 5.2 -- draw what exists, the rest is void.
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

    def _apply_pass(self, state: SevenState) -> SevenState:
        if self.legal_actions(state) != ["pass"]:
            raise IllegalAction(_("You may pass only when you cannot play and nothing is left to draw."))
        new = state._replace(
            turn=(state.turn + 1) % state.seats, passes=state.passes + 1, turns=state.turns + 1,
            events=(*state.events, Event("pass", state.turn)),
        )
        return self._check_blocked(new)

    def _check_blocked(self, state: SevenState) -> SevenState:
        # seven.md 5.3: every seat passing in a row blocks the deal.
        if state.passes >= state.seats:
            return self._block(state)
        return self._check_turn_limit(state)

    def _check_turn_limit(self, state: SevenState) -> SevenState:
        if state.turns >= TURN_LIMIT:
            return self._block(state)
        if not state.stock and len(state.discards) <= DRY_DISCARDS:
            # The table has run dry: a position seen twice before is a loop (the dance of
            # the sevens), so the deal is blocked at its third occurrence (seven.md 5.4).
            position = (state.hands, state.discards, state.turn, state.called, state.penalty)
            seen = state.dry_positions
            if seen.count(position) >= 2:
                return self._block(state)
            return _new(SevenState, (*state[:18], (*seen, position)))  # _replace(dry_positions=...)
        return state

    def _block(self, state: SevenState) -> SevenState:
        """End a blocked deal: the lowest penalty in hand wins, ties from the next seat on."""
        start = state.turn
        order = [(start + k) % state.seats for k in range(state.seats)]
        winner = min(order, key=lambda seat: hand_penalty(state.hands[seat]))  # min keeps the first tie
        return state._replace(
            phase=OVER, penalty=0, winner=winner, blocked_from=start,
            events=(*state.events, Event("blocked", start), _event("win", winner)),
        )

    # -- views and results -------------------------------------------------------

    def view(self, state: SevenState, seat: int) -> SevenView:
        """Own hand, others' hand sizes, the table and the public log (docs/rules/seven.md 1.2)."""
        (seats, phase, hands, stock, discards, turn, called, penalty, _owed, _owed_ends, _owed_total, _drawn,
         _passes, turns, notice, winner, blocked_from, events, _dry) = state
        # Positional, in SevenView's field order (much faster than keywords; bots call this a lot).
        return _new(SevenView, (
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
        ))

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

    def describe_action(self, state: SevenState, action: Action, seat: int) -> str:
        """A log line naming the seat by :func:`~gamenight.sdk.seat_token` (the room fills in its name)."""
        return describe(state, action, seat_token(seat))


def describe(state: SevenState, action: Action, who: str) -> str:
    """What ``who`` did with ``action`` in ``state`` (the state before it), translated."""
    if action.startswith("deal:"):
        return _("The cards are dealt.")
    if action.startswith("shuffle:"):
        return _("Table: Shuffling")
    if action == "pass":
        return _("{who} passed.", who=who)
    if action == "draw":
        if state.penalty:
            return _("{who} took the 7 penalty of {count}.", who=who, count=state.penalty)
        return _("{who} drew a card.", who=who)
    parsed = _PLAYS.get(action)
    if parsed is None:
        return action
    card, call = parsed
    if call >= 0:
        return _("{who} played {card} and called {suit}.", who=who, card=card_label(card), suit=SUIT_SYMBOLS[call])
    return _("{who} played {card}.", who=who, card=card_label(card))
