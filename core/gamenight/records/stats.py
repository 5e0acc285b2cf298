"""The figures shown from the records: per game and player (no Textual here).

Played, won, the win rate against each bot with its 95% Wilson interval, the
best, mean and recent scores, the current streak, ratings, and the top ten
scores as BSD's games show them.  ``gamenight records`` and the records
screen both show these; :meth:`GameStats.as_json` is the stable ``--json`` form.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from gamenight.records.store import RecordsStore

__all__ = ["GameStats", "Versus", "game_stats", "wilson"]

RECENT = 5
"""How many recent scores are shown."""
STREAK_PAGE = 64
"""Games read at a time, newest first, while counting a streak."""


def wilson(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default); (0, 1) with no trials.

    ``successes`` may be fractional: a shared win counts its share.
    """
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class Versus:
    """How a player does at tables with one bot."""

    bot: str
    games: int
    won: float
    rating: tuple[float, float] | None

    @property
    def win_rate(self) -> float:
        return self.won / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.won, self.games)


@dataclass(frozen=True)
class HighScore:
    rank: int
    score: float
    name: str
    finished: float


@dataclass
class GameStats:
    """The figures of one game, for one player (``player`` is None when no person has played it)."""

    game: str
    records: int
    player: str | None
    played: int = 0
    won: float = 0.0
    best: float | None = None
    mean: float | None = None
    recent: list[float] = field(default_factory=list)
    """The player's latest scores, newest first."""
    streak: tuple[str, int] = ("", 0)
    """("won" or "lost", how many games in a row up to the latest), or ("", 0)."""
    rating: tuple[float, float] | None = None
    versus: list[Versus] = field(default_factory=list)
    high_scores: list[HighScore] = field(default_factory=list)
    ratings: list[tuple[str, str, float, float, int]] = field(default_factory=list)

    @property
    def win_rate(self) -> float:
        return self.won / self.played if self.played else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.won, self.played)

    def as_json(self) -> dict[str, Any]:
        """The ``--json`` form: these keys are stable."""
        return {
            "game": self.game,
            "records": self.records,
            "player": self.player,
            "played": self.played,
            "won": self.won,
            "win_rate": self.win_rate,
            "win_interval": list(self.interval),
            "best": self.best,
            "mean": self.mean,
            "recent": self.recent,
            "streak": {"result": self.streak[0] or None, "length": self.streak[1]},
            "rating": None if self.rating is None else {"mu": self.rating[0], "sigma": self.rating[1]},
            "versus": [
                {
                    "bot": versus.bot,
                    "games": versus.games,
                    "won": versus.won,
                    "win_rate": versus.win_rate,
                    "win_interval": list(versus.interval),
                    "bot_rating": None
                    if versus.rating is None
                    else {"mu": versus.rating[0], "sigma": versus.rating[1]},
                }
                for versus in self.versus
            ],
            "high_scores": [
                {
                    "rank": high.rank,
                    "score": high.score,
                    "name": high.name,
                    "date": datetime.fromtimestamp(high.finished).strftime("%Y-%m-%d"),
                }
                for high in self.high_scores
            ],
            "ratings": [
                {"kind": kind, "name": name, "mu": mu, "sigma": sigma, "games": games}
                for kind, name, mu, sigma, games in self.ratings
            ],
        }


def game_stats(store: RecordsStore, game: str, player: str | None = None) -> GameStats:
    """The figures of ``game`` for ``player`` (by default the person who played it most)."""
    if player is None:
        people = store.people(game)
        player = people[0][0] if people else None
    ratings = store.ratings(game)
    rated = {(kind, name): (mu, sigma) for kind, name, mu, sigma, _games in ratings}
    stats = GameStats(game=game, records=store.count(game), player=player, ratings=ratings)
    stats.high_scores = [
        HighScore(rank, score, name, finished)
        for rank, (score, name, finished) in enumerate(store.high_scores(game), start=1)
    ]
    if player is None:
        return stats
    totals = store.person_totals(game, player)
    if totals is not None:
        stats.played, stats.won, stats.best, score_sum = totals
        stats.mean = score_sum / stats.played if stats.played else None
    latest = store.person_latest(game, player, STREAK_PAGE)
    stats.recent = [score for _record, score, _win in latest[:RECENT]]
    if latest:
        won_latest = latest[0][2] > 0
        length = 0
        while latest:
            for _record, _score, win in latest:
                if (win > 0) != won_latest:
                    latest = []
                    break
                length += 1
            else:  # the streak goes on past this page: read the next one
                latest = store.person_latest(game, player, STREAK_PAGE, before=latest[-1][0])
        stats.streak = ("won" if won_latest else "lost", length)
    stats.rating = rated.get(("person", player))
    stats.versus = [
        Versus(bot, games, float(won or 0.0), rated.get(("bot", bot)))
        for bot, games, won in store.opponents(game, player)
    ]
    return stats
