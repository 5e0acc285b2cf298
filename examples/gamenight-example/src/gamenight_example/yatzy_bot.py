"""A "cautious" bot for the built-in Yatzy, shipped by a third party.

It relies only on what the SDK promises a bot: the view of its own seat and
the public action strings of Yatzy (``roll:HHHHH`` with ``1`` = hold,
``score:<box>``).  Yatzy hides nothing, so its view is the whole game; this
bot reads three public fields of it -- ``dice``, ``rolls`` and ``sheets`` --
and does its own scoring, without importing the Yatzy plugin's modules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from gamenight.sdk import BotContext, Rules

UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")
BOXES = (*UPPER, "three_kind", "four_kind", "full_house", "small_straight", "large_straight", "yatzy", "chance")
"""Yatzy's boxes in score-sheet order (the order of ``view.sheets[seat]``)."""
PAR = {
    **{box: 3 * face for face, box in enumerate(UPPER, start=1)},  # three of each reaches the upper bonus
    "three_kind": 17,
    "four_kind": 10,
    "full_house": 18,
    "small_straight": 22,
    "large_straight": 16,
    "yatzy": 12,
    "chance": 22,
}
"""A box's usual worth: the bot scores where the dice beat it by the most."""
SURE_THINGS = ("yatzy", "large_straight", "full_house", "small_straight")
"""Boxes the cautious bot fills as soon as the dice make them, without re-rolling."""
_RUNS = ((1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6))


def score(box: str, dice: Sequence[int]) -> int:
    """What ``dice`` score in ``box`` under the plain rules."""
    counts = Counter(dice)
    most = max(counts.values())
    faces = set(dice)
    if box in UPPER:
        face = UPPER.index(box) + 1
        return face * counts[face]
    table = {
        "three_kind": sum(dice) if most >= 3 else 0,
        "four_kind": sum(dice) if most >= 4 else 0,
        "full_house": 25 if sorted(counts.values()) == [2, 3] else 0,
        "small_straight": 30 if any(set(run) <= faces for run in _RUNS) else 0,
        "large_straight": 40 if faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}) else 0,
        "yatzy": 50 if most == 5 else 0,
        "chance": sum(dice),
    }
    return table[box]


class CautiousYatzyBot:
    """Banks any made hand at once, otherwise chases its most common face."""

    def choose(self, view: Any, legal: Sequence[str], ctx: BotContext) -> str:
        """A legal ``roll:`` or ``score:`` action for the dice in ``view``."""
        dice = tuple(view.dice)
        scoring = [action for action in legal if action.startswith("score:")]
        rolls = [action for action in legal if action.startswith("roll:")]
        if not scoring:
            return rolls[0]  # the first roll of a turn rolls everything
        for box in SURE_THINGS:
            action = f"score:{box}"
            if action in scoring and score(box, dice) > 0:
                return action
        mask = self._hold_mask(dice, view.sheets[ctx.seat])
        if f"roll:{mask}" in rolls:
            return f"roll:{mask}"
        return max(scoring, key=lambda action: (score(action[6:], dice) - PAR[action[6:]], action))

    @staticmethod
    def _hold_mask(dice: tuple[int, ...], sheet: Sequence[int | None]) -> str:
        """Hold a four-card straight draw if a straight box is open, else its most common face."""
        open_boxes = {box for box, value in zip(BOXES, sheet, strict=True) if value is None}
        if open_boxes & {"small_straight", "large_straight"}:
            for run in _RUNS:
                if len(set(run) & set(dice)) == 4:
                    keep, mask = set(run), []
                    for face in dice:
                        mask.append("1" if face in keep else "0")
                        keep.discard(face)
                    return "".join(mask)
        counts = Counter(dice)
        target = max(counts, key=lambda face: (counts[face], face))
        return "".join("1" if face == target else "0" for face in dice)  # all five held: no roll, score


def make_cautious(rules: Rules, seat: int, options: Mapping[str, Any]) -> CautiousYatzyBot:
    """Factory registered for the game ``yatzy``."""
    return CautiousYatzyBot()
