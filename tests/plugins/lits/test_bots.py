"""The bots: legal answers, greedy's one-ply choice, expert's search and pie rule."""

from __future__ import annotations

import random

from gamenight.match import SeatConfig, play_headless
from gamenight.sdk import TERMINAL, BotContext
from gamenight_lits.bots import ExpertBot, GreedyBot, RandomBot
from gamenight_lits.plugin import GAME
from gamenight_lits.rules import KEEP, MASK, PLACEMENT_ID, SWAP, LitsRules, LitsState, Placement

from .conftest import play, random_position


def ctx(seat: int, seed: int = 0, **kwargs: object) -> BotContext:
    return BotContext(seat=seat, rng=random.Random(seed), **kwargs)


def gain(state: LitsState, action: str, seat: int) -> int:
    mask = MASK[PLACEMENT_ID[action]] & ~state.covered
    return (mask & state.marks(1 - seat)).bit_count() - (mask & state.marks(seat)).bit_count()


def test_random_and_greedy_play_whole_games_through_the_runner() -> None:
    for seed in range(3):
        match = play_headless(GAME, [SeatConfig("a", "random"), SeatConfig("b", "greedy")], seed=seed)
        assert match.over
        assert len(match.log) >= 3


def test_greedy_takes_the_best_immediate_score_difference(rules: LitsRules) -> None:
    for seed in range(5):
        state = random_position(rules, seed, 6)
        if state.turn == TERMINAL or state.pie_pending:
            continue
        legal = rules.legal_actions(state)
        choice = GreedyBot().choose(state, legal, ctx(state.turn, seed))
        assert choice in legal
        assert gain(state, choice, state.turn) == max(gain(state, a, state.turn) for a in legal)


def first_piece_covering(rules: LitsRules, symbol_marks: str) -> Placement:
    """A first piece covering four marks of one symbol ("x" or "o")."""
    state = rules.new_game(2, {})
    marks = state.x_marks if symbol_marks == "x" else state.o_marks
    for action in rules.legal_actions(state):
        if (MASK[PLACEMENT_ID[action]] & marks).bit_count() >= 3:
            return Placement.parse(action)
    raise AssertionError("the layout has no such spot")


def test_greedy_and_expert_swap_when_the_first_piece_hurt_o(rules: LitsRules) -> None:
    state = play(rules, first_piece_covering(rules, "o"))
    assert state.pie_pending
    assert GreedyBot().choose(state, [SWAP, KEEP], ctx(1)) == SWAP
    assert ExpertBot(0.3).choose(state, [SWAP, KEEP], ctx(1)) == SWAP


def test_greedy_and_expert_keep_when_the_first_piece_hurt_x(rules: LitsRules) -> None:
    state = play(rules, first_piece_covering(rules, "x"))
    assert GreedyBot().choose(state, [SWAP, KEEP], ctx(1)) == KEEP
    assert ExpertBot(0.3).choose(state, [SWAP, KEEP], ctx(1)) == KEEP


def test_expert_opens_near_even_because_the_opponent_may_swap(rules: LitsRules) -> None:
    state = rules.new_game(2, {})
    action = ExpertBot(0.5).choose(state, rules.legal_actions(state), ctx(0))
    assert abs(gain(state, action, 0)) <= 2  # grabbing marks would only make the opponent swap
    greedy_opening = GreedyBot().choose(state, rules.legal_actions(state), ctx(0))
    assert gain(state, greedy_opening, 0) >= 3  # unlike greedy, which grabs what it can


class FakeClock:
    """Seconds that pass only when read: each reading is one millisecond later."""

    def __init__(self) -> None:
        self.now = 0.0
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        self.now += 0.001
        if self.now > 1.0:  # a search that ignores its deadline would run for minutes: fail at once
            raise AssertionError("the bot read the clock past a second: it does not stop")
        return self.now


def test_expert_answers_when_its_budget_runs_out(rules: LitsRules) -> None:
    state = random_position(rules, 11, 5)
    legal = rules.legal_actions(state)
    clock, asked = FakeClock(), []

    def watchdog() -> bool:  # asked every 8 nodes, as the clock is read: a search past its deadline fails here
        asked.append(clock.now)
        if len(asked) > 5000:
            raise AssertionError("searched 40,000 nodes without reading the clock: it does not stop")
        return False

    assert ExpertBot(0.4, clock=clock).choose(state, legal, ctx(state.turn, should_stop=watchdog)) in legal
    # It aims at 90% of the budget: 0.36 s, i.e. 360 readings of this clock; it reads the clock
    # every 8 nodes, so it stopped within a reading of the deadline (or sooner, at a finished depth).
    assert clock.now <= 0.36 + 0.002, clock.now


def test_expert_stops_when_asked_and_still_answers(rules: LitsRules) -> None:
    state = random_position(rules, 11, 5)
    legal = rules.legal_actions(state)
    clock, asked = FakeClock(), []

    def stop() -> bool:
        asked.append(clock.now)
        return True

    assert ExpertBot(30, clock=clock).choose(state, legal, ctx(state.turn, should_stop=stop)) in legal
    assert len(asked) == 1  # asked at its first check, and stopped there
    assert clock.now < 0.01  # ten readings at most of a 27-second deadline


def solve(rules: LitsRules, state: LitsState, seat: int) -> int:
    """+1 if ``seat`` wins with best play from here, else -1 (plain minimax)."""
    if state.turn == TERMINAL:
        return 1 if seat in rules.outcome(state).winners else -1
    results = [solve(rules, rules.apply(state, a), seat) for a in rules.legal_actions(state)]
    return max(results) if state.turn == seat else min(results)


def test_expert_wins_won_endgames_found_by_plain_minimax(rules: LitsRules) -> None:
    checked = 0
    for seed in range(400):
        state = random_position(rules, seed, 9)
        if state.turn == TERMINAL or state.pie_pending:
            continue
        while state.turn != TERMINAL and len(state.legal) > 6:
            state = rules.apply(state, random.Random(seed).choice(rules.legal_actions(state)))
        if state.turn == TERMINAL or len(state.legal) < 2:
            continue
        seat = state.turn
        outcomes = {a: solve(rules, rules.apply(state, a), seat) for a in rules.legal_actions(state)}
        if set(outcomes.values()) != {1, -1}:
            continue  # only positions where the choice matters
        choice = ExpertBot(0.5).choose(state, rules.legal_actions(state), ctx(seat))
        assert outcomes[choice] == 1
        checked += 1
        if checked == 5:
            break
    assert checked == 5


def test_expert_beats_random_with_a_tiny_budget(rules: LitsRules) -> None:
    wins = 0
    for game in range(4):
        bots = [ExpertBot(0.02), RandomBot()] if game % 2 == 0 else [RandomBot(), ExpertBot(0.02)]
        expert_seat = game % 2
        state = rules.new_game(2, {"layout": "fortress"})
        step = 0
        while state.turn != TERMINAL:
            seat = state.turn
            state = rules.apply(state, bots[seat].choose(state, rules.legal_actions(state), ctx(seat, step)))
            step += 1
        wins += expert_seat in rules.outcome(state).winners
    assert wins >= 3


def test_after_a_swap_greedy_guards_the_o_marks_it_now_owns(rules: LitsRules) -> None:
    state = play(rules, first_piece_covering(rules, "o"), SWAP)
    assert state.turn == 0
    legal = rules.legal_actions(state)
    choice = GreedyBot().choose(state, legal, ctx(0))

    def o_gain(action: str) -> int:
        mask = MASK[PLACEMENT_ID[action]]
        return (mask & state.x_marks).bit_count() - (mask & state.o_marks).bit_count()

    assert o_gain(choice) == max(o_gain(a) for a in legal)
