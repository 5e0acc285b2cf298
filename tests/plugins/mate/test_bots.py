"""The bots: legal choices, greedy's one-move sense, perfect play and its explanation."""

from __future__ import annotations

import random

from gamenight.i18n import register_catalogue, set_language
from gamenight.match import Match, SeatConfig
from gamenight.sdk import BotContext
from gamenight.testing import check_bot_legality
from gamenight_mate.bots import GreedyBot, PerfectBot, describe_line, explain_best_play
from gamenight_mate.plugin import GAME
from gamenight_mate.rules import NONE, MateRules, pretty
from gamenight_mate.solver import Line, Solver

from .conftest import position, random_deal


def context(seat: int) -> BotContext:
    return BotContext(seat=seat, rng=random.Random(0))


def test_every_bot_picks_only_legal_actions_in_every_variant() -> None:
    check_bot_legality(GAME, ["random", "greedy"], games=2, seed=1)
    check_bot_legality(
        GAME,
        ["perfect", "random"],
        games=1,
        seed=2,
        options={"double_deck": True, "kings_privilege": True, "free_move": True},
    )


def test_greedy_mates_at_once_with_the_highest_score(rules: MateRules) -> None:
    state = position(rules, ["KC", "AD", "7S"], ["QH", "7H", "10H"], move=8, leader=0)
    legal = rules.legal_actions(state)
    assert GreedyBot().choose(state, legal, context(0)) == "AD"  # 8 × 11 beats 8 × 4 and 8 × 7


def test_greedy_takes_the_lead_with_its_weakest_winning_card(rules: MateRules) -> None:
    state = rules.apply(position(rules, ["KC", "7S", "QH"], ["AC", "QC", "10C"], move=8, leader=0), "KC")
    assert GreedyBot().choose(state, rules.legal_actions(state), context(1)) == "10C"
    state = rules.apply(position(rules, ["AC", "7S", "QH"], ["KC", "QC", "10H"], move=8, leader=0), "AC")
    assert GreedyBot().choose(state, rules.legal_actions(state), context(1)) == "QC"


def test_greedy_never_foreplaces(rules: MateRules) -> None:
    state = random_deal(rules, 1)
    assert GreedyBot().choose(state, rules.legal_actions(state), context(0)) == NONE


def test_perfect_finds_the_late_high_mate_rather_than_the_early_one(rules: MateRules) -> None:
    # A can mate now with K♣ (7 × 4 = 28) or keep the lead with A♦ and mate later with the 10♦.
    state = position(rules, ["KC", "AD", "10D", "7C"], ["QH", "7H", "AH", "QS"], move=7, leader=0)
    solver = Solver(state.variant)
    values = solver.action_values(state, 0)
    assert values["KC"] == 28 and max(values.values()) > 28
    assert PerfectBot().choose(state, rules.legal_actions(state), context(0)) == max(values, key=values.get)


def test_perfect_chooses_a_best_foreplacing_decision(rules: MateRules) -> None:
    state = random_deal(rules, 1)
    values = Solver(state.variant).action_values(state, 0)
    choice = PerfectBot().choose(state, rules.legal_actions(state), context(0))
    assert values[choice] == max(values.values())


def test_perfect_beats_greedy_over_a_pair_of_matches() -> None:
    margin = 0.0
    for seats in (("perfect", "greedy"), ("greedy", "perfect")):
        match = Match(GAME, [SeatConfig(b, b) for b in seats], {}, seed=0)
        while not match.over:
            if match.to_move() < 0:
                match.apply_chance()
            else:
                match.apply(match.bot_choice())
        scores = match.outcome().scores
        perfect = seats.index("perfect")
        margin += scores[perfect] - scores[1 - perfect]
    assert margin > 0


def test_perfect_stops_early_when_asked_and_still_answers_legally(rules: MateRules) -> None:
    state = random_deal(rules, 2)  # choosing a card to set aside: 11 choices, each solved in turn
    legal = rules.legal_actions(state)
    assert len(legal) > 2
    asked: list[int] = []

    def stop() -> bool:
        asked.append(1)
        return True

    stopped = BotContext(seat=0, rng=random.Random(0), should_stop=stop)
    assert PerfectBot().choose(state, legal, stopped) == legal[0]  # the only choice it solved
    assert asked == [1]  # asked once, after the first choice, and stopped there


def test_the_explanation_names_move_card_and_points_for_the_seat() -> None:
    assert describe_line(Line(77, 0, 7, "AS"), 0) == "with best play: mate on move 7 with A♠, 77 to you"
    assert describe_line(Line(-77, 0, 7, "AS"), 1) == ("with best play: mate on move 7 with A♠, 77 to your opponent")
    assert describe_line(Line(0, None), 0) == "with best play: no mate in ten moves, a draw"


def test_explain_best_play_on_a_forced_mate(rules: MateRules) -> None:
    state = position(rules, ["KC"], ["AH"], move=10, leader=0)
    assert explain_best_play(state, 0) == "best move: play K♣; with best play: mate on move 10 with K♣, 40 to you"
    assert explain_best_play(state, 1) == "with best play: mate on move 10 with K♣, 40 to your opponent"  # not B's turn
    assert explain_best_play(rules.new_game(2, {}), 0) == ""


def test_explain_best_play_names_the_card_to_set_aside_when_foreplacing(rules: MateRules) -> None:
    """The "e" key names the move (the card to set aside, or keeping all), not only the outcome."""
    for seed in range(6):
        state = random_deal(rules, seed)
        seat = rules.to_move(state)
        assert state.phase == "foreplace"
        solver = Solver(state.variant)
        action, _value = solver.best_action(state, seat)
        assert action in rules.legal_actions(state)
        move = "keep all cards" if action == NONE else f"set {pretty(action)} aside"
        assert explain_best_play(state, seat, solver).startswith(f"best move: {move}; with best play: ")


def test_the_explanation_is_translated() -> None:
    register_catalogue("mate", GAME.translations)
    set_language("ja")
    try:
        assert describe_line(Line(77, 0, 7, "AS"), 0) == "最善手順なら：7 ムーブ目に A♠ でメイト、あなたに 77 点"
    finally:
        set_language("en")
