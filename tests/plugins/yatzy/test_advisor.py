"""Yatzy's coach: every hold and box valued exactly, checked by other roads than its own.

* a box's value is what the rules write on the sheet (docs/rules/yatzy.md 3, 4, 5) plus the
  optimal table's value of the sheet after it;
* a hold's value is the table's expectimax of keeping those faces (strategy.TurnValues, looked
  up by the faces, not by the hold mask);
* the DP identity: a roll's value is the mean, over the dice it can show, of the best advice
  then (the advisor checked against itself one roll later, through the rules);
* its best choice is worth what the ``optimal`` bot's choice is worth.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from math import factorial, prod

import pytest
from gamenight.match import Match
from gamenight.sdk import CHANCE, BotContext
from gamenight.testing import check_advisor, random_playouts
from gamenight_yatzy import strategy
from gamenight_yatzy.advisor import yatzy_advisor
from gamenight_yatzy.bots import OptimalBot, position
from gamenight_yatzy.plugin import GAME
from gamenight_yatzy.rules import FIRST_ROLL, YatzyState, seat_total

from .conftest import RULES, full_sheet, rolled, sheet

ADVISOR = yatzy_advisor(RULES, 0, {})


def advise(state: YatzyState, seat: int = 0):
    legal = RULES.legal_actions(state)
    return ADVISOR.advise(RULES.view(state, seat), legal, BotContext(seat=seat, rng=random.Random(0)))


def values(state: YatzyState, seat: int = 0) -> dict[str, float]:
    return {entry.action: entry.value for entry in advise(state, seat)}


def rest_of_game(state: YatzyState, seat: int) -> float:
    """The table's value of ``seat``'s sheet between turns (0 once it is full)."""
    the_sheet = state.sheets[seat]
    if None not in the_sheet:
        return 0.0
    return float(strategy.load_table(state.joker)[position(the_sheet)])


def decisions(games: int, seed: int, options: dict) -> list[tuple[YatzyState, int]]:
    """Every state where a seat decides, in seeded random games of one or two seats."""
    found = []
    for seats in (1, 2):
        for match in random_playouts(GAME, games, seed=seed, seats=seats, options=options):
            replay = Match(GAME, match.seats, match.options, seed=match.seed)
            for entry in match.log:
                if entry.seat != CHANCE:
                    found.append((replay.state, entry.seat))
                replay.apply(entry.action)
    return found


def outcomes(state: YatzyState, hold: str) -> list[tuple[float, YatzyState]]:
    """Each multiset of faces the rolled dice can show, with its probability, as the state after the roll."""
    rolled_at = [index for index, mark in enumerate(hold) if mark == "0"]
    held = RULES.apply(state, "roll:" + hold)
    found = []
    for faces in itertools.combinations_with_replacement(range(1, 7), len(rolled_at)):
        counts = Counter(faces)
        chance = factorial(len(faces)) / prod(factorial(c) for c in counts.values()) / 6 ** len(faces)
        dice = list(state.dice or (1, 1, 1, 1, 1))
        for index, face in zip(rolled_at, faces, strict=True):
            dice[index] = face
        found.append((chance, RULES.apply(held, "dice:" + "".join(map(str, dice)))))
    return found


@pytest.mark.parametrize("joker", [False, True])
def test_every_action_is_worth_the_points_the_rules_write_plus_the_tables_rest(joker):
    positions = decisions(games=2, seed=7 if joker else 3, options={"joker": joker})[:200]
    assert len(positions) == 200
    bot = OptimalBot(joker)
    for state, seat in positions:
        advice = advise(state, seat)
        legal = RULES.legal_actions(state)
        assert [entry.action for entry in advice] != [] and {entry.action for entry in advice} == set(legal)
        now = float(seat_total(state.sheets[seat], state.bonuses[seat]))
        mask, upper, flag = position(state.sheets[seat])
        turn = strategy.turn_values(joker, mask, upper, flag)
        for entry in advice:
            if entry.action == FIRST_ROLL and state.rolls == 0:
                expected = now + rest_of_game(state, seat)
            elif entry.action.startswith("roll:"):
                kept = [face for face, mark in zip(state.dice, entry.action[5:], strict=True) if mark == "1"]
                after = turn.after_one if state.rolls == 1 else turn.after_two
                expected = now + float(after[strategy.keep_index(kept)])
            else:  # score it through the rules: the sheet, the upper bonus and the Yatzy bonus they write
                scored = RULES.apply(state, entry.action)
                expected = RULES.current_scores(scored)[seat] + rest_of_game(scored, seat)
            assert entry.value == pytest.approx(expected, abs=1e-9), (state, entry.action)
        choice = bot.choose(state, legal, BotContext(seat=seat, rng=random.Random(0)))
        assert values(state, seat)[choice] == pytest.approx(advice[0].value, abs=1e-9)


def test_a_rolls_value_is_the_mean_of_the_best_advice_after_it():
    """The Bellman identity, through the rules' own dice: the advisor agrees with itself a roll later."""
    checked = 0
    for state, seat in decisions(games=1, seed=21, options={"joker": True})[:60:6]:
        advice = values(state, seat)
        holds = [FIRST_ROLL] if state.rolls == 0 else [a for a in advice if a.startswith("roll:")][::7]
        for action in holds:
            mean = sum(chance * advise(after, seat)[0].value for chance, after in outcomes(state, action[5:]))
            assert advice[action] == pytest.approx(mean, abs=1e-9), (state, action)
            checked += 1
    assert checked >= 10


def test_the_last_box_is_worth_the_final_score_exactly():
    # docs/rules/yatzy.md 3: the last box filled ends the sheet; nothing is left to expect.
    state = rolled("66655", full_sheet(chance=None, sixes=18, fives=15), rolls=3)
    assert values(state) == {"score:chance": 33 + 28}


def test_the_box_that_completes_the_upper_section_counts_its_bonus():
    # 3.2: 35 more when the six upper boxes reach 63: 45 + 18 makes 63.
    upper = full_sheet(ones=3, twos=6, threes=9, fours=12, fives=15, sixes=None, chance=None)
    assert values(rolled("66612", upper, rolls=3)) == {
        "score:sixes": pytest.approx(45 + 18 + 35 + rest_of_game(rolled("", (*upper[:5], 18, *upper[6:])), 0)),
        "score:chance": pytest.approx(45 + 21 + rest_of_game(rolled("", (*upper[:12], 21)), 0)),
    }


def test_a_further_yatzy_earns_its_bonus_in_the_value():
    # 4.1: a Yatzy while the Yatzy box holds 50 earns 100 more, whatever box it is scored in.
    state = rolled("66666", full_sheet(sixes=None, yatzy=50), rolls=3)
    assert values(state) == {"score:sixes": 50 + 30 + 100}


def test_the_forced_joker_leaves_one_box_and_its_value_counts_the_bonus():
    # 5.1: with the joker rule a further Yatzy must go in its upper box while that box is open.
    state = rolled("44444", sheet(yatzy=50), rolls=3, joker=True)
    advice = advise(state)
    assert [entry.action for entry in advice] == ["score:fours"]
    after = RULES.apply(state, "score:fours")
    assert advice[0].value == pytest.approx(50 + 20 + 100 + rest_of_game(after, 0), abs=1e-9)


def test_holds_of_the_same_faces_are_worth_the_same_and_the_best_comes_first():
    state = rolled("33512")
    advice = advise(state)
    assert [entry.value for entry in advice] == sorted((entry.value for entry in advice), reverse=True)
    table = values(state)
    assert table["roll:10000"] == table["roll:01000"]  # the first three or the second: the same keep


def test_the_advice_is_the_seats_own_in_a_game_of_two():
    state = RULES.new_game(2, {})
    state = state._replace(sheets=(sheet(yatzy=50, chance=30), sheet()), bonuses=(1, 0), seat=1)
    state = RULES.apply(RULES.apply(state, FIRST_ROLL), "dice:12345")
    assert values(state, 1)["score:large_straight"] == pytest.approx(
        40 + float(strategy.load_table(False)[position(sheet(large_straight=40))]), abs=1e-9
    )


def test_yatzy_registers_an_exact_coach_in_points_and_the_kit_passes_it():
    spec = GAME.advisor
    assert spec is not None and spec.exact and spec.prepare is not None
    assert (spec.unit.kind, spec.unit.label, spec.unit.digits) == ("points", "expected final score", 1)
    assert "expected final score" in GAME.translations["ja"]
    for joker in (False, True):
        check_advisor(GAME, games=1, seed=2, options={"joker": joker}, positions=20)
