"""The expert's playout simulator plays SEVEN exactly as the rules do, move by move.

Seeded deals are played through :class:`~gamenight_seven.simulator.Simulator`
and :class:`~gamenight_seven.rules.SevenRules` side by side: the same legal
moves (Queens with every call, answers to a pending 7, draws, passes), the same
table after every move (hands, stock, discards, the seat to move, the call, the
penalty, passes in a row, dry positions), the same end and the same scores.
The simulator reshuffles with its own RNG; the rules are handed the very order
it shuffled into, as their chance action.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import pytest
from gamenight.sdk import CHANCE, TERMINAL
from gamenight_seven.cards import CARD_CODES
from gamenight_seven.policies import action_for, greedy_card, keeper_card
from gamenight_seven.rules import OVER, PLAY, SevenRules, SevenState
from gamenight_seven.simulator import Simulator

RULES = SevenRules()


class RecordingRandom(random.Random):
    """An RNG that remembers every order it shuffled a list into (the simulator's reshuffles)."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.shuffles: list[list[int]] = []

    def shuffle(self, x: list[int]) -> None:  # type: ignore[override]
        super().shuffle(x)
        self.shuffles.append(list(x))


def dealt(seed: int, seats: int) -> tuple[SevenState, Simulator, RecordingRandom, random.Random]:
    """A seeded deal in the rules (lead passed on by the seed) and the same deal in a simulator."""
    rng = random.Random(seed)
    state = RULES.new_game_in_match(seats, {}, seed)
    state = RULES.apply(state, RULES.sample_chance(state, rng))
    sim_rng = RecordingRandom(seed)
    sim = Simulator([list(h) for h in state.hands], list(state.stock), list(state.discards), state.turn, sim_rng)
    return state, sim, sim_rng, rng


def reshuffle_as(state: SevenState, sim_rng: RecordingRandom) -> SevenState:
    """Hand the rules each reshuffle the simulator made, as the chance action, in order."""
    while RULES.to_move(state) == CHANCE:
        assert sim_rng.shuffles, "the rules reshuffle where the simulator did not"
        order = sim_rng.shuffles.pop(0)
        state = RULES.apply(state, "shuffle:" + "".join(CARD_CODES[c] for c in order))
    assert not sim_rng.shuffles, "the simulator reshuffled where the rules did not"
    return state


def assert_same_table(state: SevenState, sim: Simulator, where: str) -> None:
    assert [sorted(hand) for hand in sim.hands] == [list(hand) for hand in state.hands], where
    assert tuple(sim.stock) == state.stock, where
    assert tuple(sim.discards) == state.discards, where
    assert sim.turns == state.turns, where
    assert tuple(sim.dry_positions) == state.dry_positions, where
    if state.phase == PLAY:
        assert sim.winner == -1, where
        assert (sim.turn, sim.called, sim.penalty, sim.passes) == (
            state.turn,
            state.called,
            state.penalty,
            state.passes,
        ), where
    else:
        assert state.phase == OVER and sim.winner == state.winner, where


def uniform(legal: list[str], rng: random.Random) -> str:
    """Any legal move, draws at will included (deals run long; stock and discards run out)."""
    return rng.choice(legal)


def card_first(legal: list[str], rng: random.Random) -> str:
    """A random card if there is one; ``draw``/``pass`` only when there is none."""
    cards = [action for action in legal if action not in ("draw", "pass")]
    return rng.choice(cards) if cards else legal[-1]


def play_side_by_side(seed: int, seats: int, choose: Callable[[list[str], random.Random], str], seen: Counter) -> None:
    state, sim, sim_rng, rng = dealt(seed, seats)
    moves = 0
    while RULES.to_move(state) != TERMINAL:
        where = f"seed {seed}, {seats} seats, move {moves}"
        assert_same_table(state, sim, where)
        legal = RULES.legal_actions(state)
        assert sim.legal_actions() == legal, where
        # Built from the seat's view (and the true hidden cards), a simulator stands where this one does.
        from_view = Simulator.from_view(
            RULES.view(state, state.turn), [list(h) for h in state.hands], list(state.stock), random.Random(0)
        )
        assert (from_view.turn, from_view.called, from_view.penalty, from_view.passes, from_view.turns) == (
            sim.turn,
            sim.called,
            sim.penalty,
            sim.passes,
            sim.turns,
        ), where
        assert from_view.discards == sim.discards and from_view.legal_actions() == legal, where
        seen["passes in a row read from the log"] += state.passes > 0
        # What the playout policies pick is a legal card (or -1 exactly when no card is legal).
        hand, top = state.hands[state.turn], state.discards[-1]
        playable = {action[:2] for action in legal if action not in ("draw", "pass")}
        for policy in (greedy_card, keeper_card):
            card = policy(hand, top, state.called, state.penalty)
            assert (CARD_CODES[card] in playable) if card >= 0 else not playable, where
        action = choose(legal, rng)
        seen["queen calls"] += ":" in action
        seen["sevens on a pending 7"] += bool(state.penalty) and action != "draw"
        seen["penalties taken"] += bool(state.penalty) and action == "draw"
        seen["draws"] += action == "draw" and not state.penalty
        seen["passes"] += action == "pass"
        short = state.penalty and action == "draw" and len(state.stock) < state.penalty
        sim.apply(action)
        state = reshuffle_as(RULES.apply(state, action), sim_rng)
        seen["a penalty longer than the stock"] += bool(short)
        seen["reshuffles"] += any(event.kind == "shuffle" for event in state.events[-3:])
        moves += 1
    assert_same_table(state, sim, f"seed {seed}, the end")
    assert sim.legal_actions() == []
    assert tuple(sim.score(seat, sim.winner) for seat in range(seats)) == RULES.scores(state)
    blocked = next((event for event in state.events if event.kind == "blocked"), None)
    if blocked is None:
        seen["won by going out"] += 1
    elif state.passes >= seats:
        seen["blocked by passes"] += 1
    elif state.turns >= 500:
        seen["blocked by the turn limit"] += 1
    else:
        seen["blocked by a position come round a third time"] += 1


def hoarder(legal: list[str], rng: random.Random) -> str:
    """Draws at will whenever it can: the stock and discards run dry and the 7s circle (seven.md 5.4)."""
    return "draw" if "draw" in legal else card_first(legal, rng)


DEALS = (12, 60, 6)
"""Deals played here by the uniform, card-first and hoarding policies: every case below is reached
(the uniform deals reach all but one by their fifth; the hoarders' first deal comes round a third time).
``bench/bench_playouts.py`` plays :data:`FULL_DEALS`."""
FULL_DEALS = (40, 120, 20)


def test_seeded_random_deals_play_the_same_in_the_simulator_and_the_rules(deals=DEALS):
    seen: Counter = Counter()
    uniform_deals, card_first_deals, hoarder_deals = deals
    for seed in range(uniform_deals):
        play_side_by_side(seed, 2 + seed % 4, uniform, seen)
    for seed in range(40, 40 + card_first_deals):
        play_side_by_side(seed, 2 + seed % 4, card_first, seen)
    for seed in range(160, 160 + hoarder_deals):
        play_side_by_side(seed, 2 + seed % 2, hoarder, seen)
    # (Every seat passing in a row, seven.md 5.3, needs no seat to hold a match while all but the top
    # card are in the hands: it cannot happen with a full deck, so no deal covers it.)
    for case in (
        "queen calls",
        "sevens on a pending 7",
        "penalties taken",
        "draws",
        "passes",
        "a penalty longer than the stock",
        "reshuffles",
        "passes in a row read from the log",
        "won by going out",
        "blocked by the turn limit",
        "blocked by a position come round a third time",
    ):
        assert seen[case], f"no deal covered: {case} ({dict(seen)})"


@pytest.mark.parametrize("me", [-1, 0, 3])
def test_a_playout_ends_as_the_rules_end_the_same_deal_played_by_the_same_policies(me):
    """The whole of :meth:`Simulator.playout` against the rules driven by greedy seats (``me``: the keeper)."""
    ends = Counter()
    for seed in range(60):
        seats = 2 + seed % 4 if me < 0 else 5
        state, sim, sim_rng, _rng = dealt(seed, seats)
        winner = sim.playout(me=me, policy=keeper_card)
        while RULES.to_move(state) != TERMINAL:
            seat = state.turn
            legal = RULES.legal_actions(state)
            card = (keeper_card if seat == me else greedy_card)(
                state.hands[seat], state.discards[-1], state.called, state.penalty
            )
            action = legal[-1] if card < 0 else action_for(card, state.hands[seat], legal)
            state = RULES.apply(state, action)
            while RULES.to_move(state) == CHANCE:
                order = sim_rng.shuffles.pop(0)
                state = RULES.apply(state, "shuffle:" + "".join(CARD_CODES[c] for c in order))
        assert not sim_rng.shuffles
        assert winner == state.winner >= 0
        assert_same_table(state, sim, f"seed {seed}")
        assert tuple(sim.score(seat, winner) for seat in range(seats)) == RULES.scores(state)
        ends[any(event.kind == "blocked" for event in state.events)] += 1
    assert ends[False] > 30  # most deals are won by going out


def test_a_playout_stops_after_its_horizon_where_the_rules_stand_after_as_many_turns():
    for seed in range(20):
        state, sim, sim_rng, _rng = dealt(seed, 4)
        assert sim.playout(horizon=6) in (-1, *range(4))
        while RULES.to_move(state) != TERMINAL and state.turns < 6:
            seat = state.turn
            legal = RULES.legal_actions(state)
            card = greedy_card(state.hands[seat], state.discards[-1], state.called, state.penalty)
            state = RULES.apply(state, legal[-1] if card < 0 else action_for(card, state.hands[seat], legal))
            while RULES.to_move(state) == CHANCE:
                order = sim_rng.shuffles.pop(0)
                state = RULES.apply(state, "shuffle:" + "".join(CARD_CODES[c] for c in order))
        assert_same_table(state, sim, f"seed {seed}")
