"""Mate's bots: ``random``, ``greedy`` and ``perfect`` (an exact solver).

Every bot sees only its seat's view, which in Mate is the whole state
(perfect information).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gamenight.i18n import translator
from gamenight.sdk import Action, BotContext, Rules

from .rules import NONE, MateRules, MateState, Variant, answers, pretty, score_for, strength, stronger
from .solver import Line, Solver

_ = translator("mate")

__all__ = [
    "GreedyBot",
    "PerfectBot",
    "RandomBot",
    "describe_line",
    "explain_best_play",
    "make_greedy",
    "make_perfect",
    "make_random",
]

_RULES = MateRules()


class RandomBot:
    """Any legal action, uniformly."""

    def choose(self, view: MateState, legal: Sequence[Action], ctx: BotContext) -> Action:
        """A random legal action from the bot's own RNG."""
        return ctx.rng.choice(list(legal))


class GreedyBot:
    """One move deep: mates at once when it can, else keeps or takes the lead cheaply.

    It never foreplaces.  As leader it plays the mate with the highest score
    now, else the card the other seat can answer in the fewest ways; as the
    answering seat it takes the lead with its weakest winning card, else
    throws its weakest card.
    """

    def choose(self, view: MateState, legal: Sequence[Action], ctx: BotContext) -> Action:
        """The greedy choice described above."""
        state = _RULES.current(view)
        if state.phase == "foreplace":
            return NONE
        seat = ctx.seat
        if state.lead is None:
            theirs = state.available(1 - seat)
            mates = [card for card in legal if not answers(card, theirs, state.variant)]
            if mates:
                foreplaced = state.foreplaced[seat] is not None
                return max(mates, key=lambda card: score_for(state.move, card, foreplaced))
            return min(legal, key=lambda card: (len(answers(card, theirs, state.variant)), strength(card)))
        winning = [card for card in legal if not stronger(state.lead, card)]
        return min(winning or legal, key=strength)


class PerfectBot:
    """Plays each play perfectly: exact alpha-beta over the whole game tree.

    It maximises the play's score difference (its score minus the other's),
    and decides foreplacing by solving every choice.  One solver is kept for
    the match, so positions solved for one decision answer later ones.
    """

    def __init__(self) -> None:
        self._solvers: dict[Variant, Solver] = {}

    def solver(self, variant: Variant) -> Solver:
        """The solver (and its table) for ``variant``."""
        if variant not in self._solvers:
            self._solvers[variant] = Solver(variant)
        return self._solvers[variant]

    def choose(self, view: MateState, legal: Sequence[Action], ctx: BotContext) -> Action:
        """A best action; the first legal one if only one is allowed."""
        if len(legal) == 1:
            return legal[0]
        action, _value = self.solver(view.variant).best_action(view, ctx.seat, ctx.should_stop)
        return action if action in legal else legal[0]


def describe_line(line: Line, seat: int) -> str:
    """``"with best play: mate on move 7 with A♣, 77 to you"``, for ``seat``."""
    if line.winner is None:
        return _("with best play: no mate in ten moves, a draw")
    if line.winner == seat:
        return _(
            "with best play: mate on move {move} with {card}, {points} to you",
            move=line.move,
            card=pretty(line.card),
            points=line.value,
        )
    return _(
        "with best play: mate on move {move} with {card}, {points} to your opponent",
        move=line.move,
        card=pretty(line.card),
        points=-line.value,
    )


def describe_move(state: MateState, action: Action) -> str:
    """The move ``action`` in words: "play A♣", "set K♠ aside" or "keep all cards"."""
    if state.phase == "foreplace":
        return _("keep all cards") if action == NONE else _("set {card} aside", card=pretty(action))
    return _("play {card}", card=pretty(action))


def explain_best_play(state: MateState, seat: int, solver: Solver | None = None) -> str:
    """The move to make and how the current play ends under best play, told to ``seat`` (screen and help).

    When ``seat`` is to act, the move comes first ("best move: play A♣; with
    best play: mate on move 7 with A♣, 77 to you"); otherwise only the outcome.
    Empty while a deal is pending or after the play has ended.
    """
    current = _RULES.current(state)
    if current.phase not in ("foreplace", "play"):
        return ""
    solver = solver or Solver(current.variant)
    outcome = describe_line(solver.best_line(current, seat), seat)
    if _RULES.to_move(current) != seat:
        return outcome
    action, _value = solver.best_action(current, seat)
    return _("best move: {move}; {outcome}", move=describe_move(current, action), outcome=outcome)


def make_random(rules: Rules, seat: int, options: Mapping[str, Any]) -> RandomBot:
    """Factory for the random bot."""
    return RandomBot()


def make_greedy(rules: Rules, seat: int, options: Mapping[str, Any]) -> GreedyBot:
    """Factory for the greedy bot."""
    return GreedyBot()


def make_perfect(rules: Rules, seat: int, options: Mapping[str, Any]) -> PerfectBot:
    """Factory for the perfect bot."""
    return PerfectBot()
