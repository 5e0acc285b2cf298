"""Yatzy rules engine (docs/rules/yatzy.md): pure, deterministic, no UI, stated plainly.

A turn is spelt out as actions, with chance explicit:

* ``roll:HHHHH`` -- the seat rolls; ``H`` is ``1`` for a die it holds and ``0``
  for a die it rolls (the first roll of a turn is ``roll:00000``);
* ``dice:31462`` -- the chance outcome: the five dice after that roll
  (held dice must keep their faces);
* ``score:<box>`` -- the seat scores the dice in one open box (``score:full_house``).

This module is the reference: the state is a named tuple built by name or ``_replace``,
each rule written once, with its clause.  The room, the arena, the bench and the bots'
scoring run :mod:`gamenight_yatzy.fast` (roll tables, memoised scores and actions), which
gives the same results faster and is checked against this module state by state
(tests/plugins/yatzy/test_fast_paths.py).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from gamenight.sdk import CHANCE, TERMINAL, Action, IllegalAction, Outcome, PublicEvent, Rules

from .texts import BOX_LABELS as BOX_LABELS  # re-exported: the labels live with the texts
from .texts import describe_choice_event, describe_event

BOXES: tuple[str, ...] = (
    "ones",
    "twos",
    "threes",
    "fours",
    "fives",
    "sixes",
    "three_kind",
    "four_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "yatzy",
    "chance",
)
"""Box ids in score-sheet order; an action names a box by its id."""


UPPER = range(6)
LOWER = range(6, 13)
THREE_KIND, FOUR_KIND, FULL_HOUSE, SMALL_STRAIGHT, LARGE_STRAIGHT, YATZY, CHANCE_BOX = range(6, 13)
BOX_INDEX = {name: index for index, name in enumerate(BOXES)}

UPPER_BONUS = 35
UPPER_BONUS_THRESHOLD = 63
YATZY_SCORE = 50
YATZY_BONUS = 100
ROUNDS = 13
MAX_ROLLS = 3
MIN_SEATS, MAX_SEATS = 1, 8

FIRST_ROLL = "roll:00000"
REROLL_ACTIONS: tuple[str, ...] = tuple(
    "roll:" + format(mask, "05b")
    for mask in range(31)  # 11111 (hold everything) is no roll at all
)
SCORE_ACTIONS: tuple[str, ...] = tuple("score:" + name for name in BOXES)

FACES = "123456"
Dice = tuple[int, ...]
Sheet = tuple[int | None, ...]


class YatzyState(NamedTuple):
    """The whole game (a tuple, so immutable and cheap to copy).

    ``sheets[seat][box]`` is the score written in a box, ``None`` while open;
    ``bonuses[seat]`` counts Yatzy bonuses earned.  ``dice`` is empty before a
    turn's first roll; ``rolls`` counts the rolls of this turn; ``held`` is the
    hold mask of a roll waiting for its chance outcome (else ``None``).
    """

    joker: bool
    sheets: tuple[Sheet, ...]
    bonuses: tuple[int, ...]
    seat: int
    dice: Dice
    rolls: int
    held: str | None


# -- scoring (docs/rules/yatzy.md 3) ----------------------------------------


def base_scores(dice: Sequence[int]) -> tuple[int, ...]:
    """What each box would score for ``dice`` without the joker rule (13 numbers)."""
    counts = [0] * 7
    for face in dice:
        counts[face] += 1
    total = sum(dice)
    most = max(counts)
    faces = {face for face in range(1, 7) if counts[face]}
    small = any(run <= faces for run in ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}))
    large = faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6})
    # yatzy.md 3.4: five of a kind is not a Full House (only the joker option makes it one).
    full_house = sorted(counts)[-2:] == [2, 3]
    return (
        *(face * counts[face] for face in range(1, 7)),
        total if most >= 3 else 0,
        total if most >= 4 else 0,
        25 if full_house else 0,
        30 if small else 0,
        40 if large else 0,
        YATZY_SCORE if most == 5 else 0,
        total,
    )


def is_yatzy(dice: Sequence[int]) -> bool:
    """True for five dice showing one face."""
    return len(dice) == 5 and dice.count(dice[0]) == 5


def joker_applies(sheet: Sequence[int | None], dice: Sequence[int], joker: bool) -> bool:
    """True when the joker option makes this Yatzy a joker: the Yatzy box is already filled.

    Hasbro's official rule (the "forced joker"): it applies whether the Yatzy
    box holds 50 or 0.
    """
    return joker and sheet[YATZY] is not None and is_yatzy(dice)


def scoring_boxes(sheet: Sheet, dice: Sequence[int], joker: bool) -> tuple[int, ...]:
    """The boxes these dice may be scored in now (indices into :data:`BOXES`).

    Any open box (yatzy.md 2.3), except under the joker option's forced rule (5.1): a joker
    Yatzy must go in its matching upper box if open; else in an open lower box;
    else (zero) in an open upper box.
    """
    open_boxes = tuple(box for box in range(13) if sheet[box] is None)
    if not joker_applies(sheet, dice, joker):
        return open_boxes
    matching = dice[0] - 1
    if sheet[matching] is None:
        return (matching,)
    lower = tuple(box for box in open_boxes if box >= 6)
    return lower or open_boxes


def box_score(sheet: Sequence[int | None], dice: Dice, box: int, joker: bool) -> int:
    """What ``dice`` score in ``box`` (joker values included; not the Yatzy bonus)."""
    if joker_applies(sheet, dice, joker) and box in (FULL_HOUSE, SMALL_STRAIGHT, LARGE_STRAIGHT):
        return (25, 30, 40)[box - FULL_HOUSE]  # yatzy.md 5.1
    return base_scores(dice)[box]


def preview(sheet: Sheet, dice: Dice, joker: bool = False) -> dict[int, int]:
    """For the dice on the table: ``{box: score}`` for every box they may go in now."""
    if len(dice) != 5:
        return {}
    return {box: box_score(sheet, dice, box, joker) for box in scoring_boxes(sheet, dice, joker)}


def earns_yatzy_bonus(sheet: Sheet, dice: Sequence[int]) -> bool:
    """yatzy.md 4.1: a further Yatzy while the Yatzy box holds 50 earns +100."""
    return sheet[YATZY] == YATZY_SCORE and is_yatzy(dice)


def upper_total(sheet: Sequence[int | None]) -> int:
    """Sum of the filled upper boxes."""
    return sum(sheet[box] or 0 for box in UPPER)


def upper_bonus(sheet: Sheet) -> int:
    """yatzy.md 3.2: 35 when the six upper boxes total at least 63."""
    return UPPER_BONUS if upper_total(sheet) >= UPPER_BONUS_THRESHOLD else 0


def lower_total(sheet: Sheet) -> int:
    """Sum of the filled lower boxes."""
    return sum(sheet[box] or 0 for box in LOWER)


def seat_total(sheet: Sheet, bonuses: int) -> int:
    """A seat's score: boxes, upper bonus and Yatzy bonuses."""
    return upper_total(sheet) + upper_bonus(sheet) + lower_total(sheet) + YATZY_BONUS * bonuses


def parse_dice(text: str) -> Dice:
    """``"31462"`` -> ``(3, 1, 4, 6, 2)``; ``ValueError`` unless five faces 1-6."""
    if len(text) != 5 or any(face not in FACES for face in text):
        raise ValueError(text)
    return tuple(int(face) for face in text)


def held_positions(mask: str) -> tuple[int, ...]:
    """The dice a hold mask keeps: ``"10010"`` -> ``(0, 3)``."""
    return tuple(position for position, hold in enumerate(mask) if hold == "1")


def is_hold_mask(mask: str) -> bool:
    """True for five characters, each ``1`` (hold) or ``0`` (roll)."""
    return len(mask) == 5 and all(hold in "01" for hold in mask)


class YatzyRules(Rules):
    """The rules object of Yatzy (docs/rules/yatzy.md); option ``joker`` (bool, 5.1)."""

    watchable = True
    """Nothing is hidden: a watcher sees what the seats see."""

    def new_game(self, seats: int, options: Mapping[str, Any]) -> YatzyState:
        """A fresh game: every box of every seat open, seat 0 to roll."""
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise ValueError(f"Yatzy takes {MIN_SEATS}-{MAX_SEATS} seats, not {seats}")
        empty: Sheet = (None,) * 13
        return YatzyState(
            joker=bool(options.get("joker", False)),
            sheets=(empty,) * seats,
            bonuses=(0,) * seats,
            seat=0,
            dice=(),
            rolls=0,
            held=None,
        )

    def to_move(self, state: YatzyState) -> int:
        """The seat to act, CHANCE while a roll waits for its dice, TERMINAL at the end."""
        if state.held is not None:
            return CHANCE
        # Seats play in order, so the game ends when the last seat's sheet is full (13 rounds).
        if None not in state.sheets[-1]:
            return TERMINAL
        return state.seat

    def legal_actions(self, state: YatzyState) -> list[Action]:
        """Roll (first roll, or a re-roll of any subset) and/or score in an allowed box."""
        if state.held is not None or None not in state.sheets[-1]:
            return []
        if state.rolls == 0:
            return [FIRST_ROLL]  # yatzy.md 2.1: each round starts by rolling all five dice
        sheet = state.sheets[state.seat]
        # yatzy.md 2.3 and 5.1: any open box, or where the joker rule sends a Yatzy.
        actions = [SCORE_ACTIONS[box] for box in scoring_boxes(sheet, state.dice, state.joker)]
        if state.rolls < MAX_ROLLS:
            actions += REROLL_ACTIONS  # yatzy.md 2.2: up to two re-rolls of any subset
        return actions

    def apply(self, state: YatzyState, action: Action) -> YatzyState:
        """The state after ``action``; raises IllegalAction (with the reason) if illegal."""
        if state.held is not None:
            return self._apply_dice(state, action)
        if None not in state.sheets[-1]:
            raise IllegalAction.because("game-over", "The game is over.")
        if action.startswith("roll:"):
            return self._apply_roll(state, action.removeprefix("roll:"))
        if action.startswith("score:"):
            return self._apply_score(state, action.removeprefix("score:"))
        raise IllegalAction.because("unknown-action", "Unknown action {action}.", action=action)

    def _apply_roll(self, state: YatzyState, mask: str) -> YatzyState:
        """yatzy.md 2.1 and 2.2: roll all five dice, then up to twice the dice not held."""
        if not is_hold_mask(mask):
            raise IllegalAction.because("bad-roll", "A roll names five dice to hold or roll, such as roll:10010.")
        if state.rolls == 0 and mask != "00000":
            raise IllegalAction.because("first-roll-all-dice", "The first roll of a turn rolls all five dice.")
        if state.rolls >= MAX_ROLLS:
            raise IllegalAction.because("no-rolls-left", "You have rolled three times: score the dice in a box.")
        if mask == "11111":
            raise IllegalAction.because("nothing-to-roll", "Release at least one die to roll.")
        return state._replace(held=mask)

    def _apply_dice(self, state: YatzyState, action: Action) -> YatzyState:
        """The chance outcome of the roll waiting for it: the five dice, held ones unchanged."""
        if not action.startswith("dice:"):
            raise IllegalAction.because("dice-rolling", "The dice are rolling: only a dice outcome may come next.")
        try:
            dice = parse_dice(action.removeprefix("dice:"))
        except ValueError:
            raise IllegalAction.because("bad-dice", "Dice read five faces from 1 to 6, such as dice:31462.") from None
        assert state.held is not None
        if any(dice[position] != state.dice[position] for position in held_positions(state.held)):
            raise IllegalAction.because("held-die-cannot-change", "A held die cannot change its face.")
        return state._replace(dice=dice, rolls=state.rolls + 1, held=None)

    def _apply_score(self, state: YatzyState, name: str) -> YatzyState:
        """yatzy.md 2.3: score the dice in one open box; the turn passes to the next seat."""
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
        new_sheet = tuple(
            box_score(sheet, state.dice, box, state.joker) if index == box else score
            for index, score in enumerate(sheet)
        )
        bonuses = state.bonuses
        if earns_yatzy_bonus(sheet, state.dice):  # yatzy.md 4.1
            bonuses = tuple(count + 1 if index == seat else count for index, count in enumerate(bonuses))
        sheets = tuple(new_sheet if index == seat else other for index, other in enumerate(state.sheets))
        return state._replace(sheets=sheets, bonuses=bonuses, seat=(seat + 1) % len(sheets), dice=(), rolls=0)

    def sample_chance(self, state: YatzyState, rng: random.Random) -> Action:
        """Roll the dice that are not held."""
        # Five fair dice in one draw: a number below 6**5 = 7776, read as five base-6 digits
        # (the first die the most significant).
        number = int(rng.random() * 7776)
        rolled = [number // 6 ** (4 - position) % 6 + 1 for position in range(5)]
        held = held_positions(state.held or "00000")
        faces = [state.dice[position] if position in held else rolled[position] for position in range(5)]
        return "dice:" + "".join(str(face) for face in faces)

    def view(self, state: YatzyState, seat: int) -> YatzyState:
        """Yatzy hides nothing: every seat sees the whole (immutable) state."""
        return state

    def current_scores(self, state: YatzyState) -> tuple[float, ...]:
        """Each seat's total so far."""
        return tuple(float(seat_total(sheet, bonus)) for sheet, bonus in zip(state.sheets, state.bonuses, strict=True))

    def outcome(self, state: YatzyState) -> Outcome:
        """Totals (the top total wins, ties share), itemised by section, with each seat's place."""
        sheets, bonuses = state.sheets, state.bonuses
        totals = self.current_scores(state)
        lines = [
            ("Upper section", [float(upper_total(s)) for s in sheets]),
            ("Upper bonus", [float(upper_bonus(s)) for s in sheets]),
            ("Lower section", [float(lower_total(s)) for s in sheets]),
            ("Yatzy bonus", [float(YATZY_BONUS * b) for b in bonuses]),
        ]
        if len(sheets) > 1:  # the final ranking; tied seats share a place
            lines.append(("Place", [float(1 + sum(other > total for other in totals)) for total in totals]))
        return Outcome.from_scores(totals, lines=lines)

    def public_events(self, before: YatzyState, action: Action, seat: int) -> list[PublicEvent]:
        """The dice shown, which dice were kept for a roll, a box scored (Yatzy hides nothing)."""
        kind, _sep, arg = action.partition(":")
        if kind == "dice":
            return [PublicEvent("dice", {"dice": [int(face) for face in arg]})]
        if kind == "roll":
            kept = [before.dice[i] for i, hold in enumerate(arg) if hold == "1"] if before.dice else []
            return [PublicEvent("roll", {"seat": seat, "kept": kept, "count": arg.count("0")})]
        box = BOX_INDEX[arg]
        sheet = before.sheets[seat]
        points = box_score(sheet, before.dice, box, before.joker)
        bonus = YATZY_BONUS if earns_yatzy_bonus(sheet, before.dice) else 0
        return [PublicEvent("score", {"seat": seat, "box": arg, "index": box, "points": points, "bonus": bonus})]

    def describe_action(self, state: YatzyState, action: Action, seat: int) -> str:
        """A short sentence for the game log."""
        kind, _sep, arg = action.partition(":")
        if kind not in ("dice", "roll") and not (kind == "score" and arg in BOX_INDEX and state.dice):
            return action
        return " ".join(describe_event(event) for event in self.public_events(state, action, seat))

    def describe_choice(self, state: YatzyState, action: Action, seat: int) -> str:
        """The coach's words for a choice of the seat to move ("Score 12 in Chance"), translated."""
        kind, _sep, arg = action.partition(":")
        if kind != "roll" and not (kind == "score" and arg in BOX_INDEX and state.dice):
            return action
        events = self.public_events(state, action, seat)
        if kind == "roll" and state.rolls == 0:  # the turn's first roll: nothing to reroll yet
            events = [PublicEvent("roll", {**event.params, "first": True}) for event in events]
        return " ".join(describe_choice_event(event) for event in events)
