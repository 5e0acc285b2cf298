"""``gamenight.sdk.GameTable``: the one declared type of what a game's screen is given.

A local match, a shared table and a replay each satisfy it at run time (``isinstance``; mypy checks
the same statically in tests/test_types.py), and every built-in game's screen is declared to take it.
"""

from __future__ import annotations

import inspect
import typing
from types import SimpleNamespace

import msgspec
from gamenight.match import Match, SeatConfig
from gamenight.plugins import load_registry
from gamenight.replay import Replay
from gamenight.sdk import GameTable
from gamenight.tables import protocol as p
from gamenight.tables.client import RemoteTable

REGISTRY = load_registry()


def a_match() -> Match:
    match = Match(REGISTRY.game("mille"), [SeatConfig("ann"), SeatConfig("ben", "random")], {}, seed=5)
    match.run_chance()
    return match


def test_a_match_a_shared_table_and_a_replay_are_game_tables() -> None:
    match = a_match()
    info = p.TableInfo("t1", "mille", {}, [], "playing", match.to_move(), 0, 0.0, True)
    view = msgspec.to_builtins(match.rules.view(match.state, 0))
    snapshot = p.Snapshot(info, 0, "", view, [], len(match.log), [], 0, None, [], None, None, [], 0.0)
    remote = RemoteTable(SimpleNamespace(snapshot=snapshot, log=[], public_events={}), match.game)  # type: ignore[arg-type]
    replay = Replay(match.game, list(match.seats), dict(match.options), match.seed, 0, list(match.log))
    for table in (match, remote, replay.step(replay.steps)):
        assert isinstance(table, GameTable), type(table).__name__


def test_what_lacks_a_member_is_not_a_game_table() -> None:
    match = a_match()
    assert not isinstance(SimpleNamespace(game=match.game, seats=match.seats), GameTable)


def test_every_built_in_screen_and_the_base_take_a_game_table() -> None:
    from gamenight.sdk import GameScreen

    screens = [GameScreen]
    for game_id in ("lits", "mate", "mille", "seven", "yatzy"):
        module = inspect.getmodule(REGISTRY.game(game_id).rules)
        assert module is not None and module.__package__ is not None
        screen_module = __import__(f"{module.__package__}.screen", fromlist=["*"])
        screens += [
            cls
            for cls in vars(screen_module).values()
            if isinstance(cls, type) and issubclass(cls, GameScreen) and cls is not GameScreen
        ]
    assert len(screens) >= 6
    for cls in screens:
        hints = typing.get_type_hints(cls.__init__)
        assert hints.get("match") is GameTable, f"{cls.__name__}.__init__ takes {hints.get('match')}"
