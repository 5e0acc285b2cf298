"""Prove a room's finished game by replaying its log with the game's rules (no Textual here).

A hosted room is sandboxed: it cannot write the server-wide records.  It sends
its finished solo game to the table service instead (the game, plugin version,
options, seed, game number, which bot sat where, and the action log), never its
scores.  :func:`verify_game` rebuilds that game from the seed with the server's
installed rules -- every action legal when it was taken, every chance outcome
the one the seed draws, the game over at the end -- and returns the record of
what the replay proves, the person's seat named as the server knows them.

What the replay cannot prove: that the seed was drawn at random rather than
chosen, or that the bots' moves are the ones those bots would have made.  A
room is the server's own code and draws its seeds at random, so this guards
against a subverted room; the hall of fame shows what was *legally played*
(docs/hosting.md says so).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from gamenight.match import Match, SeatConfig
from gamenight.records.store import GameRecord, SeatRecord, record_from_match
from gamenight.sdk import IllegalAction

__all__ = ["NotProven", "verify_game", "with_identities"]


class NotProven(Exception):
    """The game cannot be recorded; the text says why (short, for the log and the room)."""


def verify_game(
    registry: Any,
    game_id: str,
    plugin_version: str,
    options: dict[str, Any],
    seed: int,
    game_number: int,
    bots: Sequence[str],
    log: Sequence[tuple[int, str]],
    person: str,
    identity: str,
    budget: float = 5.0,
    clock=time.monotonic,
) -> GameRecord:
    """The record of the game the log proves; :class:`NotProven` when it proves none.

    ``bots[i]`` is seat i's bot id, or ``""`` for the person (exactly one seat):
    that seat is recorded as ``person`` with ``identity``.  The replay stops with
    :class:`NotProven` once it has taken ``budget`` seconds.
    """
    from gamenight.replay import version_problem

    deadline = clock() + budget
    game = registry.games.get(game_id)
    if game is None:
        raise NotProven(f"{game_id} is not installed on this server")
    problem = version_problem(game, plugin_version)
    if problem is not None:
        raise NotProven(f"plugin version {plugin_version!r} cannot be replayed here")
    if not game.min_seats <= len(bots) <= game.max_seats:
        raise NotProven(f"{game.id} takes {game.min_seats}-{game.max_seats} seats, not {len(bots)}")
    if sum(1 for bot in bots if not bot) != 1:
        raise NotProven("exactly one seat must be the person's")
    seats = []
    for number, bot in enumerate(bots):
        if not bot:
            seats.append(SeatConfig(person))
            continue
        try:
            spec = game.bot(bot)
        except KeyError:
            raise NotProven(f"{game.id} has no bot {bot!r}") from None
        seats.append(SeatConfig(f"{spec.label} {number + 1}", spec.id))
    try:
        match = Match(game, seats, dict(options), seed=seed, games_played=game_number)

        def in_time(number: int) -> None:
            if clock() > deadline:
                raise NotProven(f"the replay took over {budget:g} s (at move {number})")

        match.replay(log, check_chance=True, after_each=in_time)
    except NotProven:
        raise
    except IllegalAction as error:  # out of turn, a chance outcome the seed does not draw, an illegal move
        raise NotProven(f"not proven: {str(error)[:160]}") from None
    except (ValueError, KeyError, TypeError) as error:
        raise NotProven(f"not a game: {str(error)[:120]}") from None
    except Exception as error:  # a plugin's rules failing on a strange log: refused, the service goes on
        raise NotProven(f"the rules failed: {type(error).__name__}") from None
    if not match.over:
        raise NotProven("the log does not finish the game")
    match.record_result()
    now = time.time()
    record = record_from_match(match, started=now, finished=now)
    return with_identities(record, [identity if not bot else None for bot in bots])


def with_identities(record: GameRecord, identities: Sequence[str | None]) -> GameRecord:
    """``record`` with each seat's identity (``None``: a bot, or nobody the server knows)."""
    from dataclasses import replace

    seats: tuple[SeatRecord, ...] = tuple(
        replace(seat, identity=identity) for seat, identity in zip(record.seats, identities, strict=True)
    )
    return replace(record, seats=seats)
