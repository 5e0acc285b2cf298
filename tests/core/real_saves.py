"""Real saves of every game: a session with one finished game and the next under way.

Used by the save-tampering tests.  The example plugin's Goofspiel is loaded
from ``examples/gamenight-example/src`` (it is not installed in the test venv).
"""

from __future__ import annotations

import random
import sys
from functools import cache
from pathlib import Path

from gamenight.match import Match, SeatConfig
from gamenight.plugins import Registry, load_registry
from gamenight.saves import save_match
from gamenight.sdk import CHANCE, TERMINAL, GameInfo

EXAMPLE_SRC = Path(__file__).resolve().parents[2] / "examples" / "gamenight-example" / "src"


@cache
def registry() -> Registry:
    """The five games, plus the example's Goofspiel."""
    if str(EXAMPLE_SRC) not in sys.path:
        sys.path.append(str(EXAMPLE_SRC))
    import gamenight_example.plugin as example

    return load_registry(extra_plugins={"gamenight-example": example})


GAME_IDS = ("mille", "seven", "yatzy", "lits", "mate", "goofspiel")
CURRENT_MOVES = 24
"""Moves of the game in progress (at most half the first game): enough for a deal and some play."""


def play(match: Match, rng: random.Random, moves: int | None = None) -> None:
    """Random legal moves (chance from the seed) until the end or ``moves`` actions."""
    done = 0
    while match.to_move() != TERMINAL and (moves is None or done < moves):
        if match.to_move() == CHANCE:
            match.apply_chance()
        else:
            match.apply(rng.choice(match.legal_actions()))
        done += 1


def session(game: GameInfo, seed: int = 11, options: dict | None = None) -> Match:
    """A table after one finished (and counted) game and a few moves of the next."""
    rng = random.Random(seed)
    seats = [SeatConfig(f"Player {n}") for n in range(1, game.default_seats)]
    if game.seat_names:  # a seat under the game's default name: saved with its "default_name"
        seats[0] = SeatConfig(game.seat_names[0])
    seats.append(SeatConfig("Bot", game.bots[0].id) if game.bots else SeatConfig("Last"))
    match = Match(game, seats, dict(options or {}), seed=seed)
    match.display = {"order": True, "mode": "compact"}  # how the table was shown: saved, not part of the game
    play(match, rng)
    match.record_result()
    match.start_game()
    play(match, rng, min(len(match.history[0]) // 2, CURRENT_MOVES))
    return match


def save_of(game_id: str, folder: Path, seed: int = 11, options: dict | None = None) -> tuple[Match, Path]:
    """A real session of ``game_id`` and the file it was saved to."""
    match = session(registry().game(game_id), seed, options)
    return match, save_match(match, Path(folder) / f"{game_id}.toml")


def same_session(a: Match, b: Match) -> bool:
    """Two matches at the same point of the same session (seat names and who plays them aside)."""
    return (
        a.game.id == b.game.id
        and a.seed == b.seed
        and a.options == b.options
        and a.state == b.state
        and a.log == b.log
        and a.history == b.history
        and a.totals == b.totals
        and a.wins == b.wins
        and a.games_played == b.games_played
        and len(a.seats) == len(b.seats)
    )
