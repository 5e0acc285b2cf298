"""Headless bot-vs-bot series: ``gamenight arena GAME --seats BOT,BOT --games N``."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gamenight.match import SeatConfig, play_headless
from gamenight.sdk import GameInfo

__all__ = ["ArenaResult", "SeatResult", "run_arena"]


@dataclass(frozen=True)
class SeatResult:
    """One seat's figures over the series."""

    seat: int
    bot: str
    mean: float
    ci95: float
    wins: float
    win_rate: float


@dataclass(frozen=True)
class ArenaResult:
    """A finished series."""

    game: str
    games: int
    seed: int
    seconds: float
    seats: tuple[SeatResult, ...]
    outcomes: tuple[tuple[tuple[float, ...], tuple[int, ...]], ...] = field(default=(), compare=False, repr=False)
    """Each game's (scores, winners), in order: what ``--rate`` rates the bots from."""

    def rated_games(self, bots: Sequence[str], labels: Mapping[str, str] | None = None) -> list[Any]:
        """Each game's seats as :class:`~gamenight.records.store.SeatRecord` (for ``RecordsStore.rate_games``)."""
        from gamenight.records.store import SeatRecord, placings

        games = []
        for scores, winners in self.outcomes:
            places = placings(scores, winners)
            share = 1 / len(winners) if winners else 0.0
            games.append(
                [
                    SeatRecord(
                        name=(labels or {}).get(bot, bot),
                        bot=bot,
                        score=float(scores[seat]),
                        place=places[seat],
                        win=share if seat in winners else 0.0,
                    )
                    for seat, bot in enumerate(bots)
                ]
            )
        return games

    @property
    def games_per_s(self) -> float:
        """Games played per second of wall time."""
        return self.games / self.seconds if self.seconds > 0 else math.inf

    def as_json(self) -> dict[str, Any]:
        """The object ``--json`` prints (scripts rely on these keys)."""
        return {
            "game": self.game,
            "games": self.games,
            "seed": self.seed,
            "games_per_s": round(self.games_per_s, 3),
            "seats": [
                {
                    "seat": s.seat,
                    "bot": s.bot,
                    "mean": round(s.mean, 4),
                    "ci95": round(s.ci95, 4),
                    "wins": s.wins,
                    "win_rate": round(s.win_rate, 4),
                }
                for s in self.seats
            ],
        }


def ci95(values: Sequence[float]) -> float:
    """Half-width of the normal 95% confidence interval of the mean."""
    if len(values) < 2:
        return 0.0
    return 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a series seeded ``seed``."""
    return seed * 1_000_003 + index


def run_arena(
    game: GameInfo,
    bots: Sequence[str],
    games: int,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    progress: Callable[[int], None] | None = None,
    time_budget: float = 2.0,
) -> ArenaResult:
    """Play ``games`` games with ``bots`` in the seats; ``progress(done)`` after each."""
    parsed = game.parse_options(options or {})
    for bot in dict.fromkeys(bots):
        spec = game.bot(bot)  # unknown bot -> KeyError naming the known ones
        if spec.prepare is not None:
            spec.prepare(parsed, lambda fraction: None)  # one-time work is not part of the games/s
    seats = [SeatConfig(f"{bot} {i + 1}", bot) for i, bot in enumerate(bots)]
    scores: list[list[float]] = [[] for _ in bots]
    wins = [0.0] * len(bots)
    outcomes = []
    started = time.perf_counter()
    for index in range(games):
        match = play_headless(
            game, seats, parsed, seed=game_seed(seed, index), bot_time_budget=time_budget, game_number=index
        )
        outcome = match.outcome()
        outcomes.append((tuple(float(score) for score in outcome.scores), tuple(outcome.winners)))
        for seat in range(len(bots)):
            scores[seat].append(outcome.scores[seat])
            wins[seat] += outcome.win_share(seat)
        if progress is not None:
            progress(index + 1)
    seconds = time.perf_counter() - started
    return ArenaResult(
        game=game.id,
        games=games,
        seed=seed,
        seconds=seconds,
        seats=tuple(
            SeatResult(
                seat,
                bot,
                statistics.fmean(scores[seat]) if games else 0.0,
                ci95(scores[seat]),
                wins[seat],
                wins[seat] / games if games else 0.0,
            )
            for seat, bot in enumerate(bots)
        ),
        outcomes=tuple(outcomes),
    )
