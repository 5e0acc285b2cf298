"""Through the runner: saves replay exactly, bad input changes nothing."""

from __future__ import annotations

import pytest
from gamenight.match import Match, SeatConfig
from gamenight.sdk import IllegalAction
from gamenight_lits.plugin import GAME


def fresh(layout: str = "random", seed: int = 42) -> Match:
    return Match(GAME, [SeatConfig("a", "greedy"), SeatConfig("b", "random")], {"layout": layout}, seed=seed)


def test_a_saved_log_replays_to_the_same_position_and_play_resumes_exactly() -> None:
    original = fresh()
    original.run_chance()
    for _ in range(7):
        original.apply(original.bot_choice())
    saved = [(entry.seat, entry.action) for entry in original.log]
    resumed = fresh()
    resumed.replay(saved)
    assert resumed.state == original.state
    while not original.over:
        original.apply(original.bot_choice())
        resumed.apply(resumed.bot_choice())
        assert resumed.state == original.state
    assert resumed.outcome() == original.outcome()


def test_a_log_with_an_illegal_placement_stops_there_and_names_the_move() -> None:
    match = fresh(layout="weave")
    with pytest.raises(IllegalAction, match=r"move 3 .*Rule 1"):
        match.replay([(0, "I:r0c0:o1"), (1, "keep"), (1, "T:r5c5:o0")])
    assert [entry.action for entry in match.log] == ["I:r0c0:o1", "keep"]


def test_an_illegal_placement_leaves_the_match_unchanged() -> None:
    match = fresh(layout="weave")
    match.apply("I:r0c0:o1")
    match.apply("swap")
    before = (match.state, list(match.log))
    with pytest.raises(IllegalAction, match="Rule 3"):
        match.apply("I:r1c3:o0")
    assert (match.state, match.log) == before
