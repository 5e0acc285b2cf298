"""Yatzy bots: ``random``, ``greedy`` (a plain heuristic) and ``optimal`` (the exact solitaire DP)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gamenight.sdk import Action, BotContext, Rules

from gamenight_yatzy import strategy
from gamenight_yatzy.fast import box_score
from gamenight_yatzy.rules import (
    BOX_INDEX,
    BOXES,
    FIRST_ROLL,
    FULL_HOUSE,
    LARGE_STRAIGHT,
    MAX_ROLLS,
    SMALL_STRAIGHT,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    YATZY,
    YATZY_SCORE,
    YatzyState,
    upper_total,
)

__all__ = ["GreedyBot", "OptimalBot", "RandomBot", "greedy_bot", "optimal_bot", "position", "random_bot"]


class RandomBot:
    """Any legal action, uniformly."""

    def choose(self, view: YatzyState, legal: Sequence[Action], ctx: BotContext) -> Action:
        """A uniformly random legal action."""
        return ctx.rng.choice(list(legal))


def _score_choices(legal: Sequence[Action]) -> list[int]:
    return [BOX_INDEX[action[6:]] for action in legal if action.startswith("score:")]


class GreedyBot:
    """A plain heuristic: chase the most common face or a straight, score the best-looking box."""

    # What a box is "worth on average" to a casual player: scoring well above it is good.
    _PAR = (2, 5, 8, 11, 14, 17, 18, 10, 15, 22, 20, 10, 21)

    def choose(self, view: YatzyState, legal: Sequence[Action], ctx: BotContext) -> Action:
        """Roll or score by simple rules of thumb."""
        if view.rolls == 0:
            return FIRST_ROLL
        sheet = view.sheets[ctx.seat]
        dice = view.dice
        boxes = _score_choices(legal)
        scores = {box: box_score(sheet, dice, box, view.joker) for box in boxes}
        best = max(boxes, key=lambda box: (scores[box] - self._PAR[box], -box))
        may_roll = any(action.startswith("roll:") for action in legal)
        made = scores[best] >= 25 and best in (FULL_HOUSE, SMALL_STRAIGHT, LARGE_STRAIGHT, YATZY)
        hold = self._hold(sheet, dice)
        if not may_roll or made or hold == "11111":
            return "score:" + BOXES[best]
        return "roll:" + hold

    @staticmethod
    def _hold(sheet: Sequence[int | None], dice: Sequence[int]) -> str:
        faces = set(dice)
        straights_open = sheet[SMALL_STRAIGHT] is None or sheet[LARGE_STRAIGHT] is None
        for run in ((2, 3, 4, 5), (3, 4, 5, 6), (1, 2, 3, 4), (2, 3, 4), (3, 4, 5)):
            if straights_open and faces.issuperset(run):
                keep = set(run)
                mask = []
                for face in dice:
                    mask.append("1" if face in keep else "0")
                    keep.discard(face)
                return "".join(mask)
        counts = Counter(dice)
        face = max(counts, key=lambda f: (counts[f], f))
        return "".join("1" if die == face else "0" for die in dice)


def position(sheet: Sequence[int | None]) -> tuple[int, int, int]:
    """The DP position of a sheet: (used-box mask, capped upper total, Yatzy-box-holds-50 flag)."""
    mask = 0
    for box, score in enumerate(sheet):
        if score is not None:
            mask |= 1 << box
    return mask, min(upper_total(sheet), UPPER_BONUS_THRESHOLD), int(sheet[YATZY] == YATZY_SCORE)


_HOLD_MASKS = [format(bits, "05b") for bits in range(31)]
_HOLD_MATRIX = np.array([[int(hold) for hold in mask] for mask in _HOLD_MASKS])
"""Row m: which of the five dice re-roll action m holds."""
_KEEP_BY_CODE = np.zeros(6**6, dtype=np.intp)
for _index, _counts in enumerate(strategy.KEEPS):
    _KEEP_BY_CODE[sum(c * 6**f for f, c in enumerate(_counts))] = _index


def _kept_multisets(dice: tuple[int, ...]) -> np.ndarray:
    """For each re-roll action (by hold mask), the index in KEEPS of the dice it keeps."""
    codes = _HOLD_MATRIX @ np.array([6 ** (face - 1) for face in dice])
    return _KEEP_BY_CODE[codes]


class OptimalBot:
    """Maximises its own expected final score exactly (solitaire-optimal; ignores opponents)."""

    def __init__(self, joker: bool) -> None:
        self.joker = joker
        self.table = strategy.load_table(joker)

    def box_value(self, sheet: Sequence[int | None], dice: tuple[int, ...], box: int) -> float:
        """Points now plus any upper bonus completed plus the table's value afterwards."""
        mask, upper, flag = position(sheet)
        return self._box_value(mask, upper, flag, sheet, dice, box)

    def _box_value(
        self, mask: int, upper: int, flag: int, sheet: Sequence[int | None], dice: tuple[int, ...], box: int
    ) -> float:
        points = box_score(sheet, dice, box, self.joker)
        new_upper = min(upper + points, UPPER_BONUS_THRESHOLD) if box < 6 else upper
        bonus = UPPER_BONUS if upper < UPPER_BONUS_THRESHOLD <= new_upper else 0
        new_flag = 1 if box == YATZY and points == YATZY_SCORE else flag
        return points + bonus + float(self.table[mask | (1 << box), new_upper, new_flag])

    def choose(self, view: YatzyState, legal: Sequence[Action], ctx: BotContext) -> Action:
        """The action of highest expected final score."""
        if view.rolls == 0:
            return FIRST_ROLL
        sheet = view.sheets[ctx.seat]
        dice = view.dice
        at = position(sheet)
        boxes = _score_choices(legal)
        best_box = max(boxes, key=lambda box: (self._box_value(*at, sheet, dice, box), -box))
        if view.rolls >= MAX_ROLLS:
            return "score:" + BOXES[best_box]
        turn = strategy.turn_values(self.joker, *at)
        after = turn.after_one if view.rolls == 1 else turn.after_two
        reroll_values = after[_kept_multisets(dice)]
        best_reroll = int(np.argmax(reroll_values))
        if reroll_values[best_reroll] > turn.scored[strategy.keep_index(dice) - strategy.ROLLS.start] + 1e-9:
            return "roll:" + _HOLD_MASKS[best_reroll]
        return "score:" + BOXES[best_box]


def random_bot(rules: Rules, seat: int, options: Mapping[str, Any]) -> RandomBot:
    """Bot factory for ``random``."""
    return RandomBot()


def greedy_bot(rules: Rules, seat: int, options: Mapping[str, Any]) -> GreedyBot:
    """Bot factory for ``greedy``."""
    return GreedyBot()


def optimal_bot(rules: Rules, seat: int, options: Mapping[str, Any]) -> OptimalBot:
    """Bot factory for ``optimal`` (loads, or first builds, the table of the game's ruleset)."""
    return OptimalBot(bool(options.get("joker", False)))
