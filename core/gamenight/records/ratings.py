"""Ratings: openskill's Plackett–Luce model over each game's placings (no Textual here).

Every seat is its own team of one, ranked by its place (ties share a rank),
so five-seat games and ties are rated as they ended.  A person is rated by
name and a bot by its id, per game.  When one rater holds several seats (four
Expert bots at a SEVEN table, or one person in two hot seats) each seat is
rated from the same prior, and the rater's new rating is the mean of those
seats' results: it moves as far as one seat would on average, not four times.

Ties are not passed to openskill as equal ranks: its Plackett–Luce update
mishandles them (openskill.py 6.x, issue #155 / PR #176 upstream: with ranks
1, 1, 3, 4, 5 the third seat gains more than the two tied winners).  A tie
is rated instead as the mean of the untied orders of the tied seats (each
seat takes each position of its tied group once), which is symmetric and
keeps every seat's rating in the order of its place.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from functools import cache
from math import lcm

__all__ = ["conservative", "initial", "rate"]


@cache
def _model():
    from openskill.models import PlackettLuce

    return PlackettLuce()


def initial() -> tuple[float, float]:
    """A newcomer's rating: (mu, sigma)."""
    model = _model()
    return (model.mu, model.sigma)


def conservative(mu: float, sigma: float) -> float:
    """The rating a rater is very likely above (mu - 3 sigma), used to order a table."""
    return mu - 3 * sigma


def rate(
    priors: Sequence[tuple[float, float]], raters: Sequence[Hashable], places: Sequence[int]
) -> dict[Hashable, tuple[float, float]]:
    """The ratings after one game: ``priors[i]`` is seat i's (mu, sigma), ``places[i]`` its place (1 = won).

    Returns each rater's new (mu, sigma); a rater in several seats gets the mean of their results.
    """
    if len(priors) != len(raters) or len(priors) != len(places):
        raise ValueError("one prior, rater and place per seat")
    model = _model()
    if len(priors) < 2:  # a solitaire game: nobody to be compared with
        return {rater: (mu, sigma) for rater, (mu, sigma) in zip(raters, priors, strict=True)}
    seats = range(len(priors))
    groups = [[seat for seat in seats if places[seat] == place] for place in sorted(set(places))]
    sums = [[0.0, 0.0] for _seat in seats]
    orders = lcm(*(len(group) for group in groups))
    for order in range(orders):
        ranks = [0] * len(priors)
        position = 1
        for group in groups:  # the tied seats in turn, rotated by ``order``
            shift = order % len(group)
            for seat in group[shift:] + group[:shift]:
                ranks[seat] = position
                position += 1
        teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma in priors]
        for seat, team in zip(seats, model.rate(teams, ranks=ranks), strict=True):
            sums[seat][0] += team[0].mu
            sums[seat][1] += team[0].sigma
    results: dict[Hashable, list[tuple[float, float]]] = {}
    for rater, (mu, sigma) in zip(raters, sums, strict=True):
        results.setdefault(rater, []).append((mu / orders, sigma / orders))
    return {
        rater: (sum(mu for mu, _s in values) / len(values), sum(s for _m, s in values) / len(values))
        for rater, values in results.items()
    }
