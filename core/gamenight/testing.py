"""Helpers for testing a gamenight game -- built-in or third-party -- with pytest.

* :func:`settle` waits in a Pilot test until bots and chance have moved.
* :func:`random_playouts` plays seeded games with random legal moves and
  checks the SDK contract on every step.
* :func:`check_bot_legality` plays games with a bot and checks every move.
* :func:`check_view_hiding` checks that a seat's view does not depend on the
  other seats' hidden information.
* :func:`check_save_round_trip` saves a game in progress and replays it.
* :func:`message_ids` / :func:`missing_translations` find ``_("...")`` texts
  in your package that your Japanese catalogue does not translate.
"""

from __future__ import annotations

import ast
import random
import string
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from gamenight.match import Match, SeatConfig
from gamenight.sdk import CHANCE, TERMINAL, GameInfo, IllegalAction

__all__ = [
    "check_bot_legality",
    "check_save_round_trip",
    "check_view_hiding",
    "message_ids",
    "missing_translations",
    "random_playouts",
    "settle",
]

_TRANSLATORS = {"_", "t", "gettext"}


async def settle(pilot: Any, rounds: int = 400) -> None:
    """Wait until no bot is thinking on the current screen (workers finished)."""
    from gamenight.ui.game_screen import GameScreen

    for _ in range(rounds):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        screen = pilot.app.screen
        if not (isinstance(screen, GameScreen) and screen.bot_thinking):
            return
    raise AssertionError("the bots never settled")


class _RandomBot:
    def choose(self, view: Any, legal: Any, ctx: Any) -> str:
        return ctx.rng.choice(list(legal))


def random_playouts(
    game: GameInfo,
    games: int,
    seed: int = 0,
    seats: int | None = None,
    options: Mapping[str, Any] | None = None,
    invariant: Callable[[Any], None] | None = None,
    max_actions: int = 100_000,
) -> list[Match]:
    """Play ``games`` games with uniformly random legal moves; return the matches.

    Checks on every step: the seat to move is valid, legal actions are
    non-empty strings, ``apply`` accepts each chosen one, an action outside
    the legal list is refused without changing the state, every game ends
    within ``max_actions``, and ``outcome`` has one score per seat.
    ``invariant(state)`` is called after every action.
    """
    count = seats or game.default_seats
    rules = game.rules
    finished = []
    for index in range(games):
        rng = random.Random(f"{seed}:{index}")
        match = Match(game, [SeatConfig(f"p{i}") for i in range(count)], dict(options or {}), seed=seed + index)
        for _step in range(max_actions):
            seat = match.to_move()
            if seat == TERMINAL:
                break
            assert seat == CHANCE or 0 <= seat < count, f"to_move returned {seat}"
            if seat == CHANCE:
                match.apply_chance()
            else:
                legal = match.legal_actions()
                assert legal, f"{game.id}: seat {seat} has no legal action in a live state"
                assert all(isinstance(a, str) and a for a in legal), "actions must be non-empty strings"
                bogus = "\x00not-an-action"
                before = match.state
                try:
                    rules.apply(match.state, bogus)
                except IllegalAction:
                    pass
                else:
                    raise AssertionError(f"{game.id}: apply accepted {bogus!r}")
                assert match.state is before
                match.apply(rng.choice(legal))
            if invariant is not None:
                invariant(match.state)
        else:
            raise AssertionError(f"{game.id}: game {index} did not end within {max_actions} actions")
        outcome = match.outcome()
        assert len(outcome.scores) == count and all(0 <= w < count for w in outcome.winners)
        finished.append(match)
    return finished


def check_bot_legality(game: GameInfo, bot_ids: Iterable[str], games: int = 3, seed: int = 0,
                       options: Mapping[str, Any] | None = None) -> None:
    """Play ``games`` games with the given bots; every move they pick must be legal."""
    bots = list(bot_ids)
    for index in range(games):
        match = Match(game, [SeatConfig(b, b) for b in bots], dict(options or {}), seed=seed + index)
        while not match.over:
            if match.to_move() == CHANCE:
                match.apply_chance()
                continue
            legal = match.legal_actions()
            choice = match.bot_choice()
            assert choice in legal, f"{game.id}: bot chose {choice!r}, not among {legal[:10]}..."
            match.apply(choice)


def check_view_hiding(game: GameInfo, perturb: Callable[[Any, int, random.Random], Any], games: int = 5,
                      seed: int = 0, seats: int | None = None) -> None:
    """A seat's view must not change when only others' hidden information changes.

    ``perturb(state, seat, rng)`` returns a state that differs from ``state``
    only in what ``seat`` may not see (e.g. the opponents' hands reshuffled).
    """
    for match in random_playouts(game, games, seed=seed, seats=seats):
        replay = Match(game, match.seats, match.options, seed=match.seed)
        rng = random.Random(seed)
        for entry in match.log:
            for seat in range(len(match.seats)):
                state = replay.state
                assert game.rules.view(state, seat) == game.rules.view(perturb(state, seat, rng), seat), (
                    f"{game.id}: seat {seat}'s view changed when only hidden information changed"
                )
            replay.apply(entry.action)


def check_save_round_trip(game: GameInfo, registry: Any, folder: Path, seed: int = 0) -> None:
    """Save a random game halfway and load it: the same state and log must come back."""
    from gamenight.saves import load_match, save_match

    played = random_playouts(game, 1, seed=seed)[0]
    half = Match(game, played.seats, played.options, seed=played.seed)
    half.replay(played.log[: len(played.log) // 2])
    path = save_match(half, folder / f"{game.id}-round-trip.toml")
    loaded = load_match(registry, path)
    assert loaded.log == half.log and loaded.state == half.state


def message_ids(root: Path) -> dict[str, str]:
    """Every literal ``_("...")`` / ``t("...")`` / ``self.t("...")`` text under ``root``.

    Returns message id -> "file:line" of its first use.
    """
    found: dict[str, str] = {}
    for path in sorted(Path(root).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in _TRANSLATORS and isinstance(node.args[0].value, str):
                found.setdefault(node.args[0].value, f"{path}:{node.lineno}")
    return found


def _fields(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field}


def missing_translations(root: Path, catalogue: Mapping[str, str], also: Iterable[str] = ()) -> list[str]:
    """Problems with ``catalogue`` for the texts under ``root`` (and ``also``).

    Each problem is a line: an untranslated text, or a translation whose
    ``{placeholders}`` differ from the English.
    """
    problems = []
    wanted = dict(message_ids(root))
    for text in also:
        wanted.setdefault(text, "(declared)")
    for text, where in sorted(wanted.items()):
        if text not in catalogue:
            problems.append(f"untranslated at {where}: {text!r}")
        elif _fields(text) != _fields(catalogue[text]):
            problems.append(f"placeholders differ at {where}: {text!r}")
    return problems


