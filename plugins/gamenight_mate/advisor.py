"""Mate's coach: every legal play solved exactly -- win, draw or lose, when, and for how much.

Mate is a game of perfect information (docs/rules/mate.md 1.5: all twenty cards are dealt, and
the cards set aside are shown), so a seat's view is the whole state and the exact solver
(:mod:`gamenight_mate.solver`) can value every action from it.

The value of an action is the **score of the current play for the seat, with best play by both
from there** (positive: the seat mates and scores that much; 0: ten moves without a mate, a draw,
2.6; negative: the other seat mates).  That is what the ``perfect`` bot maximises and what a
match is won by (3.1 and 4.3: the higher total of the plays' scores).  A later mate scores *more*
(move × card value, 3.1), so "win sooner" is not better in Mate: a win of 77 beats a win of 20 on
an earlier move.  Only between actions of the same score does the sooner win (or the later loss)
come first.

Each advice has a label: ``"win in {moves}, +{points}"``, ``"draw"`` or ``"lose in {moves},
-{points}"``, where ``moves`` counts the moves from now to the mate, the current one included,
along the solver's line of best play (its params also give ``move``, the move of the mate).  The
label is short enough for the coach panel's value column at 80 columns, whole, in both languages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gamenight.sdk import Action, Advice, BotContext, Rules

from .rules import MateRules, MateState, Variant
from .solver import Line, Solver

__all__ = ["DRAW", "LOSE", "WIN", "MateAdvisor", "mate_advisor"]


def N_(message: str) -> str:
    """Mark ``message`` as a message id of Mate's catalogue; the room translates it when it shows it."""
    return message


WIN = N_("win in {moves}, +{points}")
DRAW = N_("draw")
LOSE = N_("lose in {moves}, -{points}")

_RULES = MateRules()


def _line(solver: Solver, child: MateState, seat: int) -> Line:
    """How the play goes on after an action, with best play; a play the action ended: its result."""
    if child.phase != "ended":
        return solver.best_line(child, seat)
    result = child.results[-1]
    if result.winner is None:
        return Line(0, None)
    return Line(result.score if result.winner == seat else -result.score, result.winner, result.move, result.card)


class MateAdvisor:
    """The exact coach of one seat.  Keeps one solver per variant, so its table serves later advice."""

    def __init__(self) -> None:
        self._solvers: dict[Variant, Solver] = {}

    def solver(self, variant: Variant) -> Solver:
        """The solver (and its transposition table) for ``variant``."""
        if variant not in self._solvers:
            self._solvers[variant] = Solver(variant)
        return self._solvers[variant]

    def advise(self, view: MateState, legal: Sequence[Action], ctx: BotContext) -> list[Advice]:
        """One :class:`Advice` per action of ``legal``: the play's exact score for ``ctx.seat``, best first."""
        seat = ctx.seat
        state = _RULES.current(view)
        solver = self.solver(state.variant)
        advice = []
        for index, action in enumerate(legal):
            child = _RULES.apply(state, action)
            value = solver.play_value(child, seat)
            line = _line(solver, child, seat)
            if line.value != value:  # the line walks the same table: a mismatch is a solver bug
                raise AssertionError(f"mate advisor: line {line.value} != value {value} after {action!r}")
            moves = line.move - state.move + 1
            if line.winner is None:
                label, params = DRAW, {}
            else:
                label = WIN if line.winner == seat else LOSE
                params = {"moves": moves, "move": line.move, "points": abs(value)}
            # Best first: the higher score; then the sooner win or the later loss; then the legal order.
            tiebreak = 0 if line.winner is None else moves if line.winner == seat else -moves
            advice.append(((-value, tiebreak, index), Advice(action, float(value), label=label, params=params)))
        advice.sort(key=lambda pair: pair[0])
        return [entry for _key, entry in advice]


def mate_advisor(rules: Rules, seat: int, options: Mapping[str, Any]) -> MateAdvisor:
    """Advisor factory (``GameInfo.advisor``)."""
    return MateAdvisor()
