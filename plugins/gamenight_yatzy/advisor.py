"""Yatzy's coach: every hold and every box valued exactly from the optimal table.

The value of an action is the seat's **expected final score** if it takes that action and then
plays on perfectly (docs/rules/yatzy.md 3 and 4: boxes, the upper bonus, Yatzy bonuses), read
from the same dynamic-programming table the ``optimal`` bot plays by
(:mod:`gamenight_yatzy.strategy`):

* before a turn's first roll (``roll:00000``): the points already on the sheet plus the table's
  value of the position;
* a re-roll ``roll:HHHHH``: the points on the sheet plus the expectimax value of keeping the
  held dice with one or two rolls to come (:class:`strategy.TurnValues`), so two holds that
  keep the same faces are worth the same;
* ``score:<box>``: the points on the sheet, the box's points now (joker values included, 5.1),
  the upper bonus if this box completes it (3.2), a Yatzy bonus if it earns one (4.1), plus the
  table's value of the position after it.

Yatzy hides nothing, so the view is the whole game; the advisor reads only it (the ruleset from
``view.joker``, the sheet of ``ctx.seat``).  Opponents do not enter the value: it is the
solitaire optimum, as for the ``optimal`` bot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gamenight.sdk import Action, Advice, BotContext, Rules

from gamenight_yatzy import strategy
from gamenight_yatzy.bots import _kept_multisets, position
from gamenight_yatzy.fast import box_score
from gamenight_yatzy.rules import (
    BOX_INDEX,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    YATZY,
    YATZY_BONUS,
    YATZY_SCORE,
    YatzyState,
    earns_yatzy_bonus,
    seat_total,
)

__all__ = ["YatzyAdvisor", "action_values", "yatzy_advisor"]


def action_values(view: YatzyState, seat: int, legal: Sequence[Action]) -> dict[Action, float]:
    """The expected final score of ``seat`` after each action of ``legal`` (see the module)."""
    joker = view.joker
    table = strategy.load_table(joker)
    sheet = view.sheets[seat]
    now = float(seat_total(sheet, view.bonuses[seat]))
    mask, upper, flag = position(sheet)
    values: dict[Action, float] = {}
    kept = None
    for action in legal:
        kind, _sep, arg = action.partition(":")
        if kind == "roll" and view.rolls == 0:
            values[action] = now + float(table[mask, upper, flag])
        elif kind == "roll":
            if kept is None:
                turn = strategy.turn_values(joker, mask, upper, flag)
                after = turn.after_one if view.rolls == 1 else turn.after_two
                kept = after[_kept_multisets(view.dice)]
            values[action] = now + float(kept[int(arg, 2)])
        else:
            box = BOX_INDEX[arg]
            points = box_score(sheet, view.dice, box, joker)
            new_upper = min(upper + points, UPPER_BONUS_THRESHOLD) if box < 6 else upper
            bonus = UPPER_BONUS if upper < UPPER_BONUS_THRESHOLD <= new_upper else 0
            yatzy_bonus = YATZY_BONUS if earns_yatzy_bonus(sheet, view.dice) else 0
            new_flag = 1 if box == YATZY and points == YATZY_SCORE else flag
            values[action] = now + points + bonus + yatzy_bonus + float(table[mask | 1 << box, new_upper, new_flag])
    return values


class YatzyAdvisor:
    """The exact coach of one seat: every legal action's expected final score, best first."""

    def advise(self, view: YatzyState, legal: Sequence[Action], ctx: BotContext) -> list[Advice]:
        """One :class:`Advice` per action of ``legal``, highest expected final score first."""
        values = action_values(view, ctx.seat, legal)
        order = sorted(range(len(legal)), key=lambda index: (-values[legal[index]], index))
        return [Advice(legal[index], values[legal[index]]) for index in order]


def yatzy_advisor(rules: Rules, seat: int, options: Mapping[str, Any]) -> YatzyAdvisor:
    """Advisor factory (``GameInfo.advisor``): the table is loaded on the first advice."""
    return YatzyAdvisor()
