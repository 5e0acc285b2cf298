"""Bots for Battle of LITS: random, greedy (one ply) and expert (alpha-beta).

Every bot sees only its view (the whole board: LITS has no hidden
information) and answers with one of the legal action strings.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from gamenight.sdk import Action, BotContext, Rules

from .rules import (
    ACTIONS,
    BY_SHAPE,
    FULL,
    KEEP,
    MASK,
    NEIGHBOURS,
    PLACEMENT_ID,
    SHAPE_OF,
    SWAP,
    LitsState,
    grow,
    scan,
)

ALL_PIDS = [pid for shape in BY_SHAPE for _m, _n, pid in shape]
_CORNERS = sum(1 << (10 * r + c) for r in range(9) for c in range(9))


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

    A node carries its *potential* placements: those legal apart from the
    contact rule.  Rules 2 and 3 only tighten, so a child's potential is a
    filter of its parent's, and their union is every cell that may still be
    covered -- marks outside it are safe for good, which the evaluation
    counts in full (LITS-NOTES: uncoverable cells protect marks).
    """

    def __init__(self, deadline: float, should_stop: Any) -> None:
        self.deadline = deadline
        self.should_stop = should_stop
        self.nodes = 0
        self.table: dict[tuple[int, ...], tuple[int, float, int]] = {}
        """shapes -> (depth, exact value, best pid), for the side to move."""

    def check_time(self) -> None:
        self.nodes += 1
        if self.nodes & 7 == 0 and (time.perf_counter() > self.deadline or self.should_stop()):
            raise _OutOfTime

    @staticmethod
    def potential(parent: list[int], covered: int, shapes: tuple[int, ...], remaining: tuple[int, ...]) -> list[int]:
        """The placements of ``parent`` still allowed (ignoring contact) on this board."""
        blocked = [covered | grow(shapes[i]) if remaining[i] else FULL for i in range(4)]
        out = []
        append = out.append
        for pid in parent:
            mask = MASK[pid]
            if mask & blocked[SHAPE_OF[pid]]:
                continue
            nc = covered | mask
            if nc & (nc >> 1) & (nc >> 10) & (nc >> 11) & _CORNERS:
                continue
            append(pid)
        return out

    @staticmethod
    def evaluate(mine: int, theirs: int, reach: int, legal: list[int]) -> float:
        """Static value for the side to move (``mine``/``theirs`` are uncovered marks)."""
        safe = ~reach
        value = (mine & safe).bit_count() - (theirs & safe).bit_count()
        value += REACHABLE_WEIGHT * ((mine & reach).bit_count() - (theirs & reach).bit_count())
        best = max(_gain(pid, mine, theirs) for pid in legal)
        return value + TEMPO_WEIGHT * max(best, 0)

    def node(
        self,
        covered: int,
        shapes: tuple[int, ...],
        remaining: tuple[int, ...],
        potential: list[int],
        mine: int,
        theirs: int,
        depth: int,
        alpha: float,
        beta: float,
    ) -> tuple[float, int]:
        """(value for the side to move, best pid or -1)."""
        self.check_time()
        legal = [pid for pid in potential if NEIGHBOURS[pid] & covered]
        if not legal:
            # RULES.md §4: the mover cannot place, the game ends; a tie goes
            # to the last placer, who is the opponent.
            diff = (mine & ~covered).bit_count() - (theirs & ~covered).bit_count()
            return (WIN + diff if diff > 0 else -WIN + diff), -1
        if depth == 0:
            reach = 0
            for pid in potential:
                reach |= MASK[pid]
            return self.evaluate(mine & ~covered, theirs & ~covered, reach, legal), -1
        entry = self.table.get(shapes)
        first = -1
        if entry is not None:
            if entry[0] >= depth:
                return entry[1], entry[2]
            first = entry[2]
        unc_mine, unc_theirs = mine & ~covered, theirs & ~covered
        legal.sort(key=lambda pid: (pid != first, -_gain(pid, unc_mine, unc_theirs)))
        best_value, best_pid = -2 * WIN, legal[0]
        start_alpha = alpha
        for pid in legal:
            index = SHAPE_OF[pid]
            child_shapes = list(shapes)
            child_shapes[index] |= MASK[pid]
            child_remaining = list(remaining)
            child_remaining[index] -= 1
            child_covered = covered | MASK[pid]
            child_shapes_t = tuple(child_shapes)
            child_remaining_t = tuple(child_remaining)
            child_potential = self.potential(potential, child_covered, child_shapes_t, child_remaining_t)
            value, _pid = self.node(
                child_covered,
                child_shapes_t,
                child_remaining_t,
                child_potential,
                theirs,
                mine,
                depth - 1,
                -beta,
                -alpha,
            )
            value = -value
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
        legal, _reach = scan(state.covered, state.shapes, state.remaining)
        potential = self.potential(ALL_PIDS, state.covered, state.shapes, state.remaining)
        mine, theirs = state.marks(seat), state.marks(1 - seat)
        found = (0.0, legal[0])
        started = time.perf_counter()
        for depth in range(1, max_depth + 1):
            try:
                found = self.root(state, potential, mine, theirs, depth)
            except _OutOfTime:
                break
            spent = time.perf_counter() - started
            if abs(found[0]) >= WIN - 200 or spent > (self.deadline - started) * 0.3:
                break  # a proven result, or the next depth would not finish
        return found

    def root(self, state: LitsState, potential: list[int], mine: int, theirs: int, depth: int) -> tuple[float, int]:
        """One full-width search of the root at ``depth``."""
        if not state.covered:
            # The first piece: any place is legal; the node code needs contact.
            return self.first_piece(potential, mine, theirs)
        return self.node(
            state.covered, state.shapes, state.remaining, potential, mine, theirs, depth, -2 * WIN, 2 * WIN
        )

    def first_piece(self, potential: list[int], mine: int, theirs: int) -> tuple[float, int]:
        """Under the pie rule the opponent takes the better side, so aim for a level board."""
        best = min(potential, key=lambda pid: (abs(_gain(pid, mine, theirs)), -_gain(pid, mine, theirs), pid))
        return 0.0, best


class ExpertBot:
    """Alpha-beta search (iterative deepening within the time budget).

    The evaluation counts marks that no piece can ever reach in full, and
    marks still reachable at a discount.  The pie rule: searches the
    position for the ○ side to move and swaps if ○ is worse off.
    """

    def __init__(self, budget: float | None = None) -> None:
        self.budget = budget

    def choose(self, view: LitsState, legal: Sequence[Action], ctx: BotContext) -> Action:
        """The searched best action within the time budget."""
        budget = self.budget if self.budget is not None else ctx.time_budget
        deadline = time.perf_counter() + 0.9 * budget
        search = _Search(deadline, ctx.should_stop)
        if view.pie_pending:
            # I hold ○ now; "keep" means I (○) place next in this very position.
            value, _pid = search.best(view, ctx.seat)
            return KEEP if value >= 0 else SWAP
        _value, pid = search.best(view, ctx.seat)
        action = ACTIONS[pid]
        return action if action in legal else ctx.rng.choice(list(legal))


def make_random(rules: Rules, seat: int, options: Mapping[str, Any]) -> RandomBot:
    """Factory for :class:`RandomBot`."""
    return RandomBot()


def make_greedy(rules: Rules, seat: int, options: Mapping[str, Any]) -> GreedyBot:
    """Factory for :class:`GreedyBot`."""
    return GreedyBot()


def make_expert(rules: Rules, seat: int, options: Mapping[str, Any]) -> ExpertBot:
    """Factory for :class:`ExpertBot` (uses the runner's time budget)."""
    return ExpertBot()
