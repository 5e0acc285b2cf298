"""An exact solver for Mate: alpha-beta with a transposition table over bitmask hands.

Mate is a finite two-person zero-sum game of perfect information, so every
position has an exact value.  The value of a play is the score difference it
produces: the winner's score, signed (positive for the seat it is computed
for).  A position inside a play is the two remaining hands (20-bit masks over
the deck's card indices) plus the seat to lead; the move number follows from
the number of cards left and who foreplaced.  Each combination of foreplacing
flags gets its own table, so the positions shared by different foreplaced
cards (once both cards are gone) are solved once.

The public entry points work on :class:`~gamenight_mate.rules.MateState`:
:meth:`Solver.action_values` values every legal action, and
:meth:`Solver.best_line` walks the principal variation to explain it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gamenight_mate.rules import (
    MOVES,
    MateRules,
    MateState,
    Variant,
    card_rank,
    card_suit,
    deck_for,
    score_for,
    strength,
)

__all__ = ["Line", "Solver"]

INF = 10_000


@dataclass(frozen=True)
class Line:
    """How a position ends under best play by both seats.

    ``value`` is for the seat the line was asked for (positive: it wins).
    ``winner`` is None when best play is a ten-move draw.
    """

    value: int
    winner: int | None
    move: int = MOVES
    card: str = ""
    foreplaced: bool = False


class _Tables:
    """Per-variant card tables: masks of same suit and rank, Kings, strengths, mate scores."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.deck = deck_for(variant)
        deck = self.deck
        n = len(deck)
        self.suit_mask = [sum(1 << j for j in range(n) if card_suit(deck[j]) == card_suit(deck[i])) for i in range(n)]
        self.rank_mask = [sum(1 << j for j in range(n) if card_rank(deck[j]) == card_rank(deck[i])) for i in range(n)]
        # Free move: the same suit or the same rank may answer.
        self.either_mask = [self.suit_mask[i] | self.rank_mask[i] for i in range(n)]
        self.king_mask = sum(1 << j for j in range(n) if card_rank(deck[j]) == "K")
        self.is_king = [card_rank(card) == "K" for card in deck]
        self.strength = [strength(card) for card in deck]
        # Identical cards (double deck) are interchangeable: only the lowest copy held is tried.
        self.lower_twins = [sum(1 << j for j in range(i) if deck[j] == deck[i]) for i in range(n)]
        self.bit = {card: [1 << i for i in range(n) if deck[i] == card] for card in set(deck)}
        self.answers = self._answers_function()
        # score[foreplaced][move][card index], docs/rules/mate.md 3.1, 5.4 and 5.5.
        self.score = [
            [[score_for(move, card, flag) for card in deck] for move in range(MOVES + 1)] for flag in (False, True)
        ]

    def _answers_function(self) -> Callable[[int, int], int]:
        """``answers(lead, hand)``: the mask of ``hand``'s cards that may answer ``lead`` (mate.md 2.2)."""
        suit, rank, either = self.suit_mask, self.rank_mask, self.either_mask
        kings, is_king = self.king_mask, self.is_king
        privilege, free = self.variant.kings_privilege, self.variant.free_move

        def plain(lead: int, hand: int) -> int:
            return (hand & suit[lead]) or (hand & rank[lead])

        def free_move(lead: int, hand: int) -> int:
            return hand & either[lead]

        base = free_move if free else plain
        if not privilege:
            return base

        def kings_privilege(lead: int, hand: int) -> int:
            if is_king[lead] and hand & kings:
                return hand & kings
            return base(lead, hand)

        return kings_privilege

    def mask_of(self, cards: Sequence[str]) -> int:
        """A bitmask for ``cards`` (identical cards take distinct copies)."""
        mask = 0
        for card in cards:
            mask |= next(b for b in self.bit[card] if not mask & b)
        return mask


_LOW = [tuple(i for i in range(10) if m >> i & 1) for m in range(1024)]
_HIGH = [tuple(i + 10 for i in range(10) if m >> i & 1) for m in range(1024)]


def _bits(mask: int) -> tuple[int, ...]:
    """Card indices in a 20-bit ``mask``, ascending (by suit, strongest rank first)."""
    return _LOW[mask & 1023] + _HIGH[mask >> 10]


class Solver:
    """Exact values of Mate positions for one variant, with a reusable transposition table.

    Keep one solver per match: positions recur across moves and across the
    foreplacing options, so later questions are answered from the table.
    """

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.t = _Tables(variant)
        self.rules = MateRules()
        self._tables: dict[tuple[bool, bool], dict[int, tuple[int, int, int]]] = {
            (f0, f1): {} for f0 in (False, True) for f1 in (False, True)
        }
        self._refutations: dict[int, str] = {}
        self.nodes = 0

    # -- the search --------------------------------------------------------

    def _lead(self, mine: int, theirs: int, leader: int, fp: tuple[bool, bool], alpha: int, beta: int) -> int:
        """Value for ``leader`` (holding ``mine``) before its lead: fail-soft alpha-beta.

        The table keeps a lower and an upper bound per position and the lead
        that last proved best, which is tried first next time.
        """
        t = self.t
        table = self._tables[fp]
        key = mine | theirs << 20 | leader << 40
        entry = table.get(key)
        if entry is None:
            lo, hi, first = -INF, INF, -1
        else:
            lo, hi, first = entry
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
        alpha0, beta0 = alpha, beta
        self.nodes += 1
        move = 1 + (MOVES - fp[leader]) - mine.bit_count()
        answers = t.answers
        strengths = t.strength
        twins = t.lower_twins
        scores = t.score[fp[leader]][move]
        # Leads that mate at once give a sure lower bound; the rest are tried
        # last-best first, then those with the fewest answers.
        best, best_lead = -INF, -1
        leads = []
        head = None
        for a in _bits(mine):
            if mine & twins[a]:
                continue
            replies = answers(a, theirs)
            if not replies:
                if scores[a] > best:
                    best, best_lead = scores[a], a
            elif a == first:
                head = (0, a, replies)
            else:
                leads.append((replies.bit_count(), a, replies))
        if best > alpha:
            alpha = best
        if alpha < beta:
            leads.sort()
            if head is not None:
                leads.insert(0, head)
            other = 1 - leader
            last_before_ten = move == MOVES - 1 and (fp[0] or fp[1])
            lead_value = self._lead
            for _count, a, replies in leads:
                after_lead = mine & ~(1 << a)
                strength_a = strengths[a]
                worst = INF
                low = beta
                for b in _bits(replies):
                    if theirs & twins[b]:
                        continue
                    rest = theirs & ~(1 << b)
                    keeps = strength_a >= strengths[b]
                    if last_before_ten:
                        value = self._move_ten(after_lead, rest, leader, a, b, fp, keeps)
                    elif move == MOVES:
                        value = 0  # mate.md 2.6: ten moves and no mate: a draw
                    elif keeps:
                        value = lead_value(after_lead, rest, leader, fp, alpha, low)
                    else:
                        value = -lead_value(rest, after_lead, other, fp, -low, -alpha)
                    if value < worst:
                        worst = value
                        if worst < low:
                            low = worst
                            if low <= alpha:
                                break
                if worst > best:
                    best, best_lead = worst, a
                    if best > alpha:
                        alpha = best
                        if alpha >= beta:
                            break
        if best <= alpha0:
            table[key] = (lo, best if best < hi else hi, best_lead)
        elif best >= beta0:
            table[key] = (best if best > lo else lo, hi, best_lead)
        else:
            table[key] = (best, best, best_lead)
        return best

    def _answer(self, a: int, mine: int, theirs: int, leader: int, fp: tuple[bool, bool], alpha: int, beta: int) -> int:
        """Value for ``leader`` after it led card ``a`` from ``mine``: the other seat picks the least."""
        t = self.t
        move = 1 + (MOVES - fp[leader]) - mine.bit_count()
        after_lead = mine & ~(1 << a)
        worst = INF
        for b in _bits(t.answers(a, theirs)):
            if theirs & t.lower_twins[b]:
                continue
            rest = theirs & ~(1 << b)
            keeps = t.strength[a] >= t.strength[b]
            if move == MOVES - 1 and (fp[0] or fp[1]):
                value = self._move_ten(after_lead, rest, leader, a, b, fp, keeps)
            elif move == MOVES:
                value = 0
            elif keeps:
                value = self._lead(after_lead, rest, leader, fp, alpha, beta)
            else:
                value = -self._lead(rest, after_lead, 1 - leader, fp, -beta, -alpha)
            if value < worst:
                worst = value
                beta = min(beta, worst)
                if beta <= alpha:
                    break
        return worst

    def _move_ten(self, mine: int, theirs: int, leader: int, a: int, b: int, fp: tuple[bool, bool], keeps: bool) -> int:
        """Move 10 when a seat foreplaced: it plays its move-9 card again (mate.md 5.1); value for ``leader``.

        ``mine``/``theirs`` are the cards left after move 9 (led ``a``, answered ``b``).
        """
        t = self.t
        own = a if fp[leader] else mine.bit_length() - 1
        other = b if fp[1 - leader] else theirs.bit_length() - 1
        first, second, sign = (own, other, 1) if keeps else (other, own, -1)
        if t.answers(first, 1 << second):
            return 0
        first_seat = leader if keeps else 1 - leader
        return sign * score_for(MOVES, t.deck[first], fp[first_seat])

    # -- positions from states ---------------------------------------------

    def _position(self, state: MateState) -> tuple[tuple[int, int], tuple[bool, bool]]:
        hands = (self.t.mask_of(state.hands[0]), self.t.mask_of(state.hands[1]))
        fp = (state.foreplaced[0] is not None, state.foreplaced[1] is not None)
        return hands, fp

    def play_value(self, state: MateState, seat: int, alpha: int = -INF, beta: int = INF) -> int:
        """Exact value for ``seat`` of a state of the current play (an ended one: its result)."""
        if state.phase == "ended":
            result = state.results[-1]
            return 0 if result.winner is None else (result.score if result.winner == seat else -result.score)
        if state.phase == "deal":
            raise ValueError("a deal is chance: there is nothing to solve yet")
        if state.phase == "foreplace":
            return self._foreplace_value(state, seat, alpha, beta)
        if state.move == MOVES and any(state.foreplaced):
            return self._value_by_rules(state, seat)
        hands, fp = self._position(state)
        leader = state.leader
        sign = 1 if leader == seat else -1
        low, high = (alpha, beta) if sign == 1 else (-beta, -alpha)
        if state.lead is None:
            return sign * self._lead(hands[leader], hands[1 - leader], leader, fp, low, high)
        a = self._lead_index(state)
        # The led card has left the leader's hand; the search wants it back in.
        mine = hands[leader] | 1 << a
        return sign * self._answer(a, mine, hands[1 - leader], leader, fp, low, high)

    def _lead_index(self, state: MateState) -> int:
        """A deck index for the led card not used by the leader's remaining hand."""
        assert state.lead is not None  # asked only once a card is led
        held = self.t.mask_of(state.hands[state.leader])
        return next(b for b in self.t.bit[state.lead] if not held & b).bit_length() - 1

    def _value_by_rules(self, state: MateState, seat: int) -> int:
        """Move 10 with a foreplacer: every choice is forced, so just play it out."""
        while state.phase != "ended":
            state = self.rules.apply(state, self.rules.legal_actions(state)[0])
        result = state.results[-1]
        return 0 if result.winner is None else (result.score if result.winner == seat else -result.score)

    def _foreplace_value(self, state: MateState, seat: int, alpha: int, beta: int) -> int:
        """Value for ``seat`` of the foreplacing decision due now: max or min over the choices."""
        decider = state.decider()
        best = -INF if decider == seat else INF
        # The second decider's last refutation goes first (it often refutes again),
        # then "none": usually the best choice or a quick refutation.
        choices = self.rules.legal_actions(state)
        refutation = self._refutations.get(state.decided)
        if refutation in choices:
            choices.remove(refutation)
            choices.insert(0, refutation)
        for action in choices:
            child = self.rules.apply(state, action)
            value = self.play_value(child, seat, alpha, beta)
            if decider == seat:
                if value > best:
                    best = value
                    alpha = max(alpha, best)
            elif value < best:
                best = value
                beta = min(beta, best)
            if alpha >= beta:
                self._refutations[state.decided] = action
                break
        return best

    # -- the bot's questions -----------------------------------------------

    def action_values(self, state: MateState, seat: int) -> dict[str, int]:
        """Exact value for ``seat`` (to move) of each legal action."""
        return {
            action: self.play_value(self.rules.apply(state, action), seat) for action in self.rules.legal_actions(state)
        }

    def best_action(
        self, state: MateState, seat: int, should_stop: Callable[[], bool] = lambda: False
    ) -> tuple[str, int]:
        """A best action for ``seat`` (to move) and its value, found with narrowing windows.

        When ``should_stop()`` turns true between two actions, the best so far is returned.
        """
        state = self.rules.current(state)
        if state.phase == "play" and state.lead is None and not (state.move == MOVES and any(state.foreplaced)):
            found = self._best_lead(state, seat)
            if found is not None:
                return found
        best_action, best = "", -INF
        for action in self.rules.legal_actions(state):
            if best_action and should_stop():
                break
            value = self.play_value(self.rules.apply(state, action), seat, best, INF)
            if value > best or not best_action:
                best_action, best = action, value
        return best_action, best

    def _best_lead(self, state: MateState, seat: int) -> tuple[str, int] | None:
        """The leader's best card from one search at the root: the table remembers the best lead.

        The remembered lead is checked with a null window around the value
        (a table entry made exact by two searches may name a stale lead);
        None when the check fails and every lead must be tried.
        """
        hands, fp = self._position(state)
        mine, theirs = hands[seat], hands[1 - seat]
        value = self._lead(mine, theirs, seat, fp, -INF, INF)
        lead = self._tables[fp][mine | theirs << 20 | seat << 40][2]
        if lead < 0:
            return None
        if self.t.answers(lead, theirs):
            proved = self._answer(lead, mine, theirs, seat, fp, value - 1, value) >= value
        else:
            move = 1 + (MOVES - fp[seat]) - mine.bit_count()
            proved = self.t.score[fp[seat]][move][lead] >= value
        return (self.t.deck[lead], value) if proved else None

    def best_line(self, state: MateState, seat: int) -> Line:
        """How the current play ends with best play by both, valued for ``seat``."""
        state = self.rules.current(state)
        while state.phase in ("foreplace", "play"):
            mover = self.rules.to_move(state)
            action, _value = self.best_action(state, mover)
            state = self.rules.apply(state, action)
        if state.phase != "ended":
            raise ValueError("a deal is chance: there is no line to show yet")
        result = state.results[-1]
        if result.winner is None:
            return Line(0, None)
        value = result.score if result.winner == seat else -result.score
        return Line(value, result.winner, result.move, result.card, result.foreplaced)
