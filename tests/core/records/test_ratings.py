"""Ratings: openskill's Plackett–Luce over placings, five seats and ties."""

from __future__ import annotations

import pytest
from gamenight.records import ratings
from gamenight.records.backends import open_records
from gamenight.records.store import GameRecord, SeatRecord, placings


def test_a_five_seat_result_orders_the_ratings_by_place() -> None:
    mu, sigma = ratings.initial()
    raters = ["a", "b", "c", "d", "e"]
    places = [3, 1, 5, 2, 4]
    after = ratings.rate([(mu, sigma)] * 5, raters, places)
    by_place = sorted(raters, key=lambda rater: places[raters.index(rater)])
    mus = [after[rater][0] for rater in by_place]
    assert mus == sorted(mus, reverse=True) and len(set(mus)) == 5
    assert all(after[rater][1] < sigma for rater in raters)  # everyone is better known after a game


def test_a_tie_moves_the_tied_seats_alike() -> None:
    start = ratings.initial()
    after = ratings.rate([start] * 4, ["a", "b", "c", "d"], [1, 1, 3, 4])
    assert after["a"] == pytest.approx(after["b"])
    assert after["a"][0] > after["c"][0] > after["d"][0]
    assert after["a"][0] > start[0] > after["d"][0]


def test_one_rater_in_several_seats_moves_once_on_average() -> None:
    start = ratings.initial()
    after = ratings.rate([start] * 5, ["you", "expert", "expert", "expert", "expert"], [1, 2, 3, 4, 5])
    alone = ratings.rate([start] * 5, ["you", "b", "c", "d", "e"], [1, 2, 3, 4, 5])
    expected = sum(alone[name][0] for name in "bcde") / 4
    assert after["expert"][0] == pytest.approx(expected)
    assert set(after) == {"you", "expert"}


def test_recording_a_seven_like_game_rates_people_and_bots(records_target) -> None:
    store = open_records(records_target)
    names = [("You", None), ("Urd", "expert"), ("Skuld", "expert"), ("Verdandi", "basic"), ("Mimir", "random")]
    for number in range(6):
        scores = [12.0, 5.0, 5.0, 3.0, 0.0] if number % 2 else [4.0, 9.0, 9.0, 1.0, 0.0]
        winners = [0] if number % 2 else [1, 2]  # a shared win
        places = placings(scores, winners)
        seats = tuple(
            SeatRecord(name, bot, scores[i], places[i], (1 / len(winners)) if i in winners else 0.0)
            for i, (name, bot) in enumerate(names)
        )
        store.add(GameRecord("seven", "1", {}, number, number, 1.0, 2.0 + number, seats, ((0, "x"),)))
    table = {(kind, name): (mu, sigma, games) for kind, name, mu, sigma, games in store.ratings("seven")}
    assert set(table) == {("person", "You"), ("bot", "expert"), ("bot", "basic"), ("bot", "random")}
    assert table[("bot", "expert")][2] == 6 and table[("person", "You")][2] == 6
    assert table[("bot", "random")][0] < table[("bot", "basic")][0] < table[("person", "You")][0]
    newest = store.recent(limit=1)[0]
    assert (newest.seats[0].mu, newest.seats[0].sigma) == pytest.approx(table[("person", "You")][:2])


def test_a_solitaire_game_is_not_rated_against_nobody() -> None:
    start = ratings.initial()
    assert ratings.rate([start], ["you"], [1]) == {"you": start}


@pytest.mark.parametrize("places", [[1, 1, 3, 4, 5], [1, 2, 2, 4, 5], [1, 1, 3, 3, 5], [1, 1, 1, 4, 5]])
def test_a_tie_never_rates_a_seat_above_one_that_beat_it(places) -> None:
    """openskill's own tie update gives 3rd place more than the tied winners (upstream issue #155)."""
    start = ratings.initial()
    raters = ["a", "b", "c", "d", "e"]
    after = ratings.rate([start] * 5, raters, places)
    for i, first in enumerate(raters):
        for j, second in enumerate(raters):
            if places[i] < places[j]:
                assert after[first][0] > after[second][0], (places, after)
            elif places[i] == places[j]:
                assert after[first] == pytest.approx(after[second])
