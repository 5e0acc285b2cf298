"""A game screen's table controls: chosen once by the kind of table, and no branching on it after.

``GameScreen`` hands every step that differs between a game played here and a shared table to
``screen.controls``; these tests pin which controls each kind of table gets, and that the base class
keeps at most a handful of "is this a shared table?" checks (it had 27).
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import msgspec
import pytest
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.replay import Replay
from gamenight.tables import protocol as p
from gamenight.tables.client import RemoteTable
from gamenight.ui import game_screen
from gamenight.ui.game_screen import GameScreen
from gamenight.ui.shared_table import SharedTableControls
from gamenight.ui.table_controls import LocalTableControls, TableControls

REGISTRY = load_registry()

KIND_CHECKS = re.compile(
    r"_shared\s+is\s+(not\s+)?None"  # the attribute the shared-table branches tested
    r"|isinstance\([^)]*(controls|RemoteTable|SharedTableControls)"
    r"|\bif\s+(not\s+)?self\.remote\b"
)
"""A test of which kind of table a screen shows, as game_screen.py could write one."""


def a_match() -> Match:
    match = Match(REGISTRY.game("mille"), [SeatConfig("ann"), SeatConfig("ben", "random")], {}, seed=5)
    match.run_chance()
    return match


def a_remote_table(match: Match, seat: int = 1) -> RemoteTable:
    info = p.TableInfo("t1", "mille", {}, [], "playing", match.to_move(), 0, 0.0, True)
    view = msgspec.to_builtins(match.rules.view(match.state, seat))
    snapshot = p.Snapshot(info, seat, "", view, [], len(match.log), [], 0, None, [], None, None, [], 0.0)
    client = SimpleNamespace(snapshot=snapshot, log=[], public_events={})
    return RemoteTable(client, match.game)  # type: ignore[arg-type]


def test_a_local_match_gets_the_local_controls() -> None:
    screen = GameScreen(a_match())
    assert type(screen.controls) is LocalTableControls
    assert screen.controls.screen is screen
    assert not screen.remote
    assert screen.humans == [0]  # the seats people play here
    assert screen.waiting_text() == "" and not screen.table_waiting and not screen.watching


def test_a_replay_gets_the_local_controls() -> None:
    match = a_match()
    replay = Replay(match.game, list(match.seats), dict(match.options), match.seed, 0, list(match.log))
    screen = GameScreen(replay.step(replay.steps))  # type: ignore[arg-type]
    assert type(screen.controls) is LocalTableControls


def test_a_shared_table_gets_the_shared_controls() -> None:
    match = a_match()
    table = a_remote_table(match, seat=1)
    screen = GameScreen(table)
    assert type(screen.controls) is SharedTableControls
    assert screen.controls.screen is screen
    assert screen.controls.table is table
    assert screen.remote  # the coach reads it
    assert screen.humans == [1]  # this room's own seat only


@pytest.mark.parametrize("controls", [LocalTableControls, SharedTableControls])
def test_both_controls_make_every_step(controls: type[TableControls]) -> None:
    assert issubclass(controls, TableControls)
    assert not controls.__abstractmethods__  # type: ignore[attr-defined]


@pytest.mark.parametrize("action", ["chat", "chat_log", "start_now"])
def test_a_local_game_offers_no_shared_table_key(action: str) -> None:
    screen = GameScreen(a_match())
    assert screen.check_action(action, ()) is False
    assert screen.check_action("help", ()) is True


def test_the_game_screen_hardly_asks_which_kind_of_table_it_shows() -> None:
    source = Path(game_screen.__file__).read_text(encoding="utf-8")
    checks = [line.strip() for line in source.splitlines() if KIND_CHECKS.search(line)]
    assert len(checks) <= 5, "\n".join(checks)


def test_the_count_sees_a_branch_on_the_kind_of_table() -> None:
    """The pattern above finds the checks it counts (it would find none if they were spelled anew)."""
    for line in (
        "if self._shared is not None:",
        "if self._shared is None:",
        "if isinstance(self.controls, SharedTableControls):",
        "if self.remote:",
    ):
        assert KIND_CHECKS.search(line), line
    assert not KIND_CHECKS.search("self.controls.advance()")
