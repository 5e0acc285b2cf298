"""Bots for Battle of LITS: random, greedy (one ply) and expert (alpha-beta).

Every bot sees only its view (the whole board: LITS has no hidden
information) and answers with one of the legal action strings.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gamenight.sdk import Action, BotContext, Rules

from .rules import (
    ACTIONS,
    KEEP,
    MASK,
    PIECES_PER_SHAPE,
    PLACEMENT_ID,
    SHAPE_OF,
    SWAP,
    LitsState,
    scan,
)


def _gain(pid: int, mine: int, theirs: int) -> int:
    """Change in (my uncovered − their uncovered) marks if ``pid`` goes down."""
    mask = MASK[pid]
    return (mask & theirs).bit_count() - (mask & mine).bit_count()


class RandomBot:
    """Plays a uniformly random legal action (pie choice included)."""

    def choose(self, view: LitsState, legal: Sequence[Action], ctx: BotContext) -> Action:
        """Any legal action."""
        return ctx.rng.choice(list(legal))


class GreedyBot:
    """One ply: the placement with the best immediate score difference.

    The pie rule: swap when the first piece left × ahead, keep otherwise.
    """

    def choose(self, view: LitsState, legal: Sequence[Action], ctx: BotContext) -> Action:
        """Best immediate gain, ties broken at random."""
        if view.pie_pending:
            x_lead = view.uncovered(1 - ctx.seat) - view.uncovered(ctx.seat)  # seat 0 holds × now
            return SWAP if x_lead > 0 else KEEP
        mine = view.marks(ctx.seat) & ~view.covered
        theirs = view.marks(1 - ctx.seat) & ~view.covered
        scored = [(_gain(PLACEMENT_ID[a], mine, theirs), a) for a in legal]
        best = max(score for score, _a in scored)
        return ctx.rng.choice([a for score, a in scored if score == best])


WIN = 1000.0
"""Value of a won game (plus the margin), from the side to move."""
REACHABLE_WEIGHT = 0.55
"""Uncovered marks that a piece could still reach count this much; safe marks count 1."""
TEMPO_WEIGHT = 0.5
"""Share of the mover's best immediate gain credited to it at a leaf."""


class _OutOfTime(Exception):
    """Raised inside the search when the deadline or the stop signal passes."""


class _Search:
    """Negamax alpha-beta over placements with iterative deepening.

    The evaluation uses :func:`scan`'s reach: rules 2 and 3 only tighten, so
    a mark outside every cell a placement could still cover is safe for good
    and counts in full, while reachable marks count at a discount
    (docs/rules/lits.md 6.2: uncoverable cells protect marks).
    """

    def __init__(
        self, deadline: float, should_stop: Callable[[], bool], clock: Callable[[], float] = time.perf_counter
    ) -> None:
        self.deadline = deadline
        self.should_stop = should_stop
        self.clock = clock
        self.nodes = 0
        self.table: dict[tuple[int, ...], tuple[int, float, int]] = {}
        """shapes -> (depth, exact value, best pid), for the side to move."""

    def check_time(self) -> None:
        """Raise _OutOfTime once the deadline passes or the runner says stop."""
        self.nodes += 1
        if self.nodes & 7 == 0 and (self.clock() > self.deadline or self.should_stop()):
            raise _OutOfTime

    @staticmethod
    def evaluate(mine: int, theirs: int, reach: int, legal: list[int]) -> float:
        """Static value for the side to move (``mine``/``theirs`` are uncovered marks)."""
        safe = ~reach
        value: float = (mine & safe).bit_count() - (theirs & safe).bit_count()
        value += REACHABLE_WEIGHT * ((mine & reach).bit_count() - (theirs & reach).bit_count())
        best = max(_gain(pid, mine, theirs) for pid in legal)
        return value + TEMPO_WEIGHT * max(best, 0)

    def node(
        self,
        covered: int,
        shapes: tuple[int, ...],
        remaining: tuple[int, ...],
        mine: int,
        theirs: int,
        depth: int,
        alpha: float,
        beta: float,
    ) -> tuple[float, int]:
        """(value for the side to move, best pid or -1); ``mine``/``theirs`` are its marks."""
        self.check_time()
        legal, reach = scan(covered, shapes, remaining)
        unc_mine, unc_theirs = mine & ~covered, theirs & ~covered
        if not legal:
            # lits.md 5.1, 5.2: the mover cannot place, the game ends; a tie goes
            # to the last placer, who is the opponent.
            diff = unc_mine.bit_count() - unc_theirs.bit_count()
            return (WIN + diff if diff > 0 else -WIN + diff), -1
        if depth == 0:
            return self.evaluate(unc_mine, unc_theirs, reach, legal), -1
        entry = self.table.get(shapes)
        first = -1
        if entry is not None:
            if entry[0] >= depth:
                return entry[1], entry[2]
            first = entry[2]
        legal.sort(key=lambda pid: (pid != first, -_gain(pid, unc_mine, unc_theirs)))
        best_value, best_pid = -2 * WIN, legal[0]
        start_alpha = alpha
        for pid in legal:
            index = SHAPE_OF[pid]
            mask = MASK[pid]
            child_shapes = list(shapes)
            child_shapes[index] |= mask
            child_remaining = list(remaining)
            child_remaining[index] -= 1
            value = -self.node(
                covered | mask,
                tuple(child_shapes),
                tuple(child_remaining),
                theirs,
                mine,
                depth - 1,
                -beta,
                -alpha,
            )[0]
            if value > best_value:
                best_value, best_pid = value, pid
            alpha = max(alpha, value)
            if alpha >= beta:
                break
        if start_alpha < best_value < beta:
            self.table[shapes] = (depth, best_value, best_pid)
        elif entry is None:
            self.table[shapes] = (0, best_value, best_pid)  # a bound: keep the move for ordering only
        return best_value, best_pid

    def best(self, state: LitsState, seat: int, max_depth: int = 30) -> tuple[float, int]:
        """Iterative deepening until time runs out; (value, pid) of the deepest finished depth."""
        mine, theirs = state.marks(seat), state.marks(1 - seat)
        legal, _reach = scan(state.covered, state.shapes, state.remaining)
        if not state.covered:
            return self.first_piece(legal, mine, theirs)
        unc_mine, unc_theirs = mine & ~state.covered, theirs & ~state.covered
        found = (0.0, max(legal, key=lambda pid: _gain(pid, unc_mine, unc_theirs)))  # if time runs out at once
        started = self.clock()
        for depth in range(1, max_depth + 1):
            try:
                found = self.node(state.covered, state.shapes, state.remaining, mine, theirs, depth, -2 * WIN, 2 * WIN)
            except _OutOfTime:
                break
            spent = self.clock() - started
            if abs(found[0]) >= WIN - 200 or spent > (self.deadline - started) * 0.3:
                break  # a proven result, or the next depth would not finish
        return found

    def first_piece(self, legal: list[int], mine: int, theirs: int) -> tuple[float, int]:
        """Any place is legal; under the pie rule the opponent takes the better side, so stay level.

        Each candidate is judged as the position the ○ side (mine is ×) then
        moves in, tempo included; the answer is the one nearest to even.
        """
        legal = sorted(legal, key=lambda pid: (abs(_gain(pid, mine, theirs)), pid))
        best_pid, best_value = legal[0], 2 * WIN
        for pid in legal:
            try:
                self.check_time()
            except _OutOfTime:
                break
            covered = MASK[pid]
            shapes = tuple(covered if i == SHAPE_OF[pid] else 0 for i in range(4))
            remaining = tuple(PIECES_PER_SHAPE - (i == SHAPE_OF[pid]) for i in range(4))
            replies, reach = scan(covered, shapes, remaining)
            value = abs(self.evaluate(theirs & ~covered, mine & ~covered, reach, replies))
            if value < best_value:
                best_pid, best_value = pid, value
        return -best_value, best_pid


class ExpertBot:
    """Alpha-beta search (iterative deepening within the time budget).

    The evaluation counts marks that no piece can ever reach in full, and
    marks still reachable at a discount.  The pie rule: it opens with the
    piece that leaves the most even position (the opponent may take either
    side), and when asked it searches the position for the ○ side to move
    and swaps if ○ is worse off.
    """

    def __init__(self, budget: float | None = None, clock: Callable[[], float] = time.perf_counter) -> None:
        self.budget = budget
        self.clock = clock
        """Seconds, for the time budget (tests pass a fake clock)."""

    def choose(self, view: LitsState, legal: Sequence[Action], ctx: BotContext) -> Action:
        """The searched best action within the time budget."""
        budget = self.budget if self.budget is not None else ctx.time_budget
        deadline = self.clock() + 0.9 * budget
        search = _Search(deadline, ctx.should_stop, self.clock)
        if view.pie_pending:
            # I hold ○ now; "keep" means I (○) place next in this very position.
            value, _pid = search.best(view, ctx.seat)
            return KEEP if value >= 0 else SWAP
        _value, pid = search.best(view, ctx.seat)
        return ACTIONS[pid]


def make_random(rules: Rules, seat: int, options: Mapping[str, Any]) -> RandomBot:
    """Factory for :class:`RandomBot`."""
    return RandomBot()


def make_greedy(rules: Rules, seat: int, options: Mapping[str, Any]) -> GreedyBot:
    """Factory for :class:`GreedyBot`."""
    return GreedyBot()


def make_expert(rules: Rules, seat: int, options: Mapping[str, Any]) -> ExpertBot:
    """Factory for :class:`ExpertBot` (uses the runner's time budget)."""
    return ExpertBot()
