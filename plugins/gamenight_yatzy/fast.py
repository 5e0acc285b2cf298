"""Yatzy's fast kernel: the engine's hot paths, with the speed tricks kept out of rules.py.

:mod:`gamenight_yatzy.rules` states the rules plainly (docs/rules/yatzy.md); this module gives
the same results faster, for the room, the arena, the bench and the bots' scoring.  Its
tricks: the 7,776 rolls' texts built once (on first use, not at import: a faster lobby) so
that a roll is sampled and parsed by one lookup; memoised box scores and score actions;
hold masks looked up; states built positionally (``tuple.__new__``).
:class:`FastYatzyRules` is a :class:`~gamenight_yatzy.rules.YatzyRules`: what it does not
override (scores, the outcome, texts) is the readable code.

Every override must give exactly the state, actions and reason the readable rules give:
tests/plugins/yatzy/test_fast_paths.py replays seeded random games through both, state by
state.  A field added to :class:`~gamenight_yatzy.rules.YatzyState` must be added to the
positional constructions below too (that test catches a missing one).
"""

from __future__ import annotations

import itertools
import operator
import random
from collections.abc import Sequence
from functools import partial
from itertools import compress

from gamenight.sdk import Action, IllegalAction

from .rules import (
    BOX_INDEX,
    FACES,
    FIRST_ROLL,
    FULL_HOUSE,
    LARGE_STRAIGHT,
    MAX_ROLLS,
    REROLL_ACTIONS,
    SCORE_ACTIONS,
    SMALL_STRAIGHT,
    YATZY,
    YATZY_SCORE,
    Dice,
    Sheet,
    YatzyRules,
    YatzyState,
    base_scores,
    is_yatzy,
    joker_applies,
    scoring_boxes,
)

__all__ = ["FastYatzyRules", "box_score"]

_new_state = tuple.__new__
"""Builds a :class:`YatzyState` from a tuple without the keyword-argument call."""

_ALL_BOXES = tuple(range(13))
_HELD_POSITIONS: dict[str, tuple[int, ...]] = {
    mask: tuple(i for i, hold in enumerate(mask) if hold == "1") for mask in (format(bits, "05b") for bits in range(32))
}
_is_none = partial(operator.is_, None)

_SCORE_CACHE: dict[Dice, tuple[int, ...]] = {}


def _scores(dice: Dice) -> tuple[int, ...]:
    cached = _SCORE_CACHE.get(dice)
    if cached is None:
        cached = _SCORE_CACHE[dice] = base_scores(dice)
    return cached


def box_score(sheet: Sequence[int | None], dice: Dice, box: int, joker: bool) -> int:
    """:func:`gamenight_yatzy.rules.box_score`, memoised (the bots score many boxes a decision)."""
    if joker and box in (FULL_HOUSE, SMALL_STRAIGHT, LARGE_STRAIGHT) and joker_applies(sheet, dice, joker):
        return (25, 30, 40)[box - FULL_HOUSE]
    return _scores(dice)[box]


_DICE_BY_TEXT: dict[str, Dice] = {}
"""``"31462"`` -> ``(3, 1, 4, 6, 2)`` for all 7,776 rolls; filled by the first game (see _fill_dice)."""
_DICE_TEXTS: list[str] = []


def _fill_dice() -> None:
    """Build the roll tables once, when a game first needs them (not at import: a faster lobby)."""
    if not _DICE_TEXTS:
        table = {"".join(map(str, dice)): dice for dice in itertools.product(range(1, 7), repeat=5)}
        _DICE_BY_TEXT.update(table)
        _DICE_TEXTS.extend(table)


_ACTIONS_CACHE: dict[tuple[Sheet, bool], tuple[Action, ...]] = {}


def _open_box_actions(sheet: Sheet, may_roll: bool) -> tuple[Action, ...]:
    """Score actions for every open box (plus the re-rolls), memoised: the arena asks millions of times."""
    key = (sheet, may_roll)
    actions = _ACTIONS_CACHE.get(key)
    if actions is None:
        if len(_ACTIONS_CACHE) > 50_000:
            _ACTIONS_CACHE.clear()
        actions = tuple(compress(SCORE_ACTIONS, map(_is_none, sheet)))
        actions = _ACTIONS_CACHE[key] = actions + REROLL_ACTIONS if may_roll else actions
    return actions


class FastYatzyRules(YatzyRules):
    """:class:`~gamenight_yatzy.rules.YatzyRules` with fast hot paths (same results)."""

    def legal_actions(self, state: YatzyState) -> list[Action]:
        if state.held is not None or None not in state.sheets[-1]:
            return []
        if state.rolls == 0:
            return [FIRST_ROLL]
        sheet = state.sheets[state.seat]
        if state.joker and is_yatzy(state.dice):
            actions = [SCORE_ACTIONS[box] for box in scoring_boxes(sheet, state.dice, True)]
            return actions + list(REROLL_ACTIONS) if state.rolls < MAX_ROLLS else actions
        return list(_open_box_actions(sheet, state.rolls < MAX_ROLLS))

    def apply(self, state: YatzyState, action: Action) -> YatzyState:
        # Written flat (no helper calls on the roll and dice paths): the arena applies millions.
        held = state.held
        if held is not None:
            if not _DICE_BY_TEXT:
                _fill_dice()
            dice = _DICE_BY_TEXT.get(action[5:]) if action.startswith("dice:") else None
            if dice is None:
                if not action.startswith("dice:"):
                    raise IllegalAction.because(
                        "dice-rolling", "The dice are rolling: only a dice outcome may come next."
                    )
                raise IllegalAction.because("bad-dice", "Dice read five faces from 1 to 6, such as dice:31462.")
            old = state.dice
            for position in _HELD_POSITIONS[held]:
                if dice[position] != old[position]:
                    raise IllegalAction.because("held-die-cannot-change", "A held die cannot change its face.")
            joker, sheets, bonuses, seat, _old, rolls, _held = state
            return _new_state(YatzyState, (joker, sheets, bonuses, seat, dice, rolls + 1, None))
        if None not in state.sheets[-1]:
            raise IllegalAction.because("game-over", "The game is over.")
        if action.startswith("roll:"):
            mask = action[5:]
            if mask not in _HELD_POSITIONS:
                raise IllegalAction.because("bad-roll", "A roll names five dice to hold or roll, such as roll:10010.")
            if state.rolls == 0 and mask != "00000":
                raise IllegalAction.because("first-roll-all-dice", "The first roll of a turn rolls all five dice.")
            if state.rolls >= MAX_ROLLS:
                raise IllegalAction.because("no-rolls-left", "You have rolled three times: score the dice in a box.")
            if mask == "11111":
                raise IllegalAction.because("nothing-to-roll", "Release at least one die to roll.")
            joker, sheets, bonuses, seat, dice, rolls, _held = state
            return _new_state(YatzyState, (joker, sheets, bonuses, seat, dice, rolls, mask))
        if action.startswith("score:"):
            return self._apply_score(state, action[6:])
        raise IllegalAction.because("unknown-action", "Unknown action {action}.", action=action)

    def _apply_score(self, state: YatzyState, name: str) -> YatzyState:
        box = BOX_INDEX.get(name)
        if box is None:
            raise IllegalAction.because("no-such-box", "There is no box called {name}.", name=name)
        if state.rolls == 0:
            raise IllegalAction.because("roll-first", "Roll the dice before scoring.")
        seat = state.seat
        sheet = state.sheets[seat]
        if sheet[box] is not None:
            raise IllegalAction.because("box-filled", "That box is already filled.")
        if state.joker and box not in scoring_boxes(sheet, state.dice, True):
            raise IllegalAction.because("joker-rule", "The joker rule says where this Yatzy must be scored.")
        new_sheet = (*sheet[:box], box_score(sheet, state.dice, box, state.joker), *sheet[box + 1 :])
        bonuses = state.bonuses
        if sheet[YATZY] == YATZY_SCORE and is_yatzy(state.dice):
            bonuses = (*bonuses[:seat], bonuses[seat] + 1, *bonuses[seat + 1 :])
        sheets = (*state.sheets[:seat], new_sheet, *state.sheets[seat + 1 :])
        return _new_state(YatzyState, (state.joker, sheets, bonuses, (seat + 1) % len(sheets), (), 0, None))

    def sample_chance(self, state: YatzyState, rng: random.Random) -> Action:
        if not _DICE_TEXTS:
            _fill_dice()
        rolled = _DICE_TEXTS[int(rng.random() * 7776)]  # five fair dice in one draw
        held = _HELD_POSITIONS[state.held or "00000"]
        if not held:
            return "dice:" + rolled
        faces = list(rolled)
        for position in held:
            faces[position] = FACES[state.dice[position] - 1]
        return "dice:" + "".join(faces)
