"""The coach's figures in words: an advice's value and cost in its unit, and which advice to trust.

No Textual here: the coach panel (:mod:`gamenight.ui.coach`) and the warning before a costly
move print with these, and they are tested on their own.  An advisor is a plugin's code: what
it returns is checked here (:func:`checked_advice`) before anything is shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gamenight.coach import SeatReview, checked_advice
from gamenight.config import CoachSettings
from gamenight.i18n import _
from gamenight.sdk import Advice, AdviceUnit
from gamenight.text import safe_text

__all__ = [
    "MINUS",
    "advice_cost",
    "checked_advice",
    "cost_text",
    "costly",
    "said",
    "total_cost_text",
    "value_text",
    "warning_text",
]

MINUS = "\u2212"
"""The minus sign of a cost ("−4.2"): not a hyphen."""

MAX_TEXT = 80
"""Longest label or reason shown (an advisor's text is a plugin's)."""


def said(text: str, params: Any, t: Callable[..., str]) -> str:
    """An advisor's message id (a label or a reason) in the player's language, made safe.

    A text whose placeholders its ``params`` do not fill is shown as written, never raised.
    """
    if not text:
        return ""
    try:
        shown = t(text, **dict(params)) if params else t(text)
    except (KeyError, IndexError, ValueError, TypeError, AttributeError):
        shown = text
    return safe_text(shown, MAX_TEXT)


def advice_cost(best: Advice, advice: Advice) -> float:
    """How much worse ``advice`` is than ``best`` (0 for the best), in the unit's own figures."""
    return max(0.0, best.value - advice.value)


def value_text(unit: AdviceUnit, advice: Advice, t: Callable[..., str]) -> str:
    """An action's value as the panel prints it: points with the unit's digits, a chance as a
    percentage, an outcome as its label ("win in 3")."""
    if unit.kind == "outcome":
        return said(advice.label, advice.params, t) or f"{advice.value:g}"
    if unit.kind == "chance":
        return f"{100 * advice.value:.{max(0, unit.digits - 2)}f}%"
    shown = f"{advice.value:.{unit.digits}f}"
    return shown.lstrip("-") if float(shown) == 0 else shown.replace("-", MINUS)


def cost_text(unit: AdviceUnit, best: Advice, advice: Advice, t: Callable[..., str]) -> str:
    """How much worse than the best, as the panel prints it: "best", "−4.2", "−12%" or, for an
    outcome, the outcome it leads to."""
    cost = advice_cost(best, advice)
    if unit.kind == "outcome":
        return _("best") if cost == 0 else said(advice.label, advice.params, t) or _("worse")
    if unit.kind == "chance":
        digits = max(0, unit.digits - 2)
        shown = f"{100 * cost:.{digits}f}"
        return _("best") if float(shown) == 0 else f"{MINUS}{shown}%"
    shown = f"{cost:.{unit.digits}f}"
    return _("best") if float(shown) == 0 else f"{MINUS}{shown}"


def costly(unit: AdviceUnit, best: Advice, advice: Advice, settings: CoachSettings) -> bool:
    """True when ``advice`` costs enough to warn before it (see :class:`CoachSettings`)."""
    cost = advice_cost(best, advice)
    if unit.kind == "outcome":
        return cost > 0
    if unit.kind == "chance":  # rounded: 0.60 - 0.55 is 4.999… percentage points in floating point
        return cost > 0 and round(100 * cost, 9) >= settings.warn_chance
    return cost > 0 and round(cost, 9) >= settings.warn_points


def warning_text(unit: AdviceUnit, best: Advice, advice: Advice, best_said: str, t: Callable[..., str]) -> str:
    """The question before a costly move: "Are you sure? Best was … (−4.2 points)."."""
    if unit.kind == "outcome":
        cost = _("{outcome} instead of {best}", outcome=value_text(unit, advice, t), best=value_text(unit, best, t))
    elif unit.kind == "chance":
        cost = _("{cost} chance", cost=cost_text(unit, best, advice, t))
    else:
        cost = _("{cost} points", cost=cost_text(unit, best, advice, t))
    return _("Are you sure? Best was {best} ({cost}).", best=best_said, cost=cost)


def total_cost_text(unit: AdviceUnit, seat: SeatReview) -> str:
    """A seat's total cost in the unit: "−12.3 points", "−35% chance" or "3 decisions not the best"."""
    if unit.kind == "chance":
        return _("{cost} chance", cost=f"{MINUS}{100 * seat.cost:.{max(0, unit.digits - 2)}f}%")
    if unit.kind == "outcome":
        return _("{count} not the best", count=seat.counted - seat.best)
    return _("{cost} points", cost=f"{MINUS}{seat.cost:.{unit.digits}f}")
