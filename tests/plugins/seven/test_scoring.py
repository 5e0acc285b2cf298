"""docs/rules/seven.md 6: Queen 10, 7 5, others 1 against each loser; the sum to the winner."""

from __future__ import annotations

from gamenight_seven.rules import hand_penalty

from .conftest import cards, table


def test_card_penalties_are_queen_ten_seven_five_and_one_for_the_rest():
    assert hand_penalty(cards("QS")) == 10
    assert hand_penalty(cards("7H")) == 5
    assert hand_penalty(cards("AS 2H KD JC TD")) == 5


def test_each_loser_loses_its_hand_and_the_winner_gains_the_sum(rules):
    state = rules.apply(table(["5H", "QS 7D 2C", "KH", "7S 7C", "3D"], top="5C", stock="8D"), "5H")
    assert rules.scores(state) == (16 + 1 + 10 + 1, -16, -1, -10, -1)
    outcome = rules.outcome(state)
    assert outcome.winners == (0,) and sum(outcome.scores) == 0
    labels = [label for label, _values in outcome.lines]
    assert labels == ["Cards left", "Penalty in hand"]


def test_running_totals_add_up_over_deals_in_a_match():
    from gamenight.match import Match, SeatConfig
    from gamenight_seven.plugin import GAME

    match = Match(GAME, [SeatConfig(name, "greedy") for name in GAME.seat_names], {}, seed=4)
    scores = []
    for _ in range(3):
        while not match.over:
            if match.to_move() < 0:
                match.apply_chance()
            else:
                match.apply(match.bot_choice())
        scores.append(match.record_result().scores)
        match.start_game()
    assert match.totals == [sum(deal[seat] for deal in scores) for seat in range(5)]
    assert sum(match.totals) == 0
