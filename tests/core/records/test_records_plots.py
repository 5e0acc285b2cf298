"""The records screen's pictures: nothing to plot says so; the rating over time (o) beside the scores (g)."""

from __future__ import annotations

from gamenight.match import Match, SeatConfig
from gamenight.records.store import RecordsStore

from tests.core.records.test_records_screen import make_app, open_and_load, play_a_game_then_open_the_records
from tests.core.tour import screen_text


async def test_the_plot_with_no_games_says_so_instead_of_an_empty_chart(nim_registry, config, tmp_path):
    app = make_app(nim_registry, config, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = await open_and_load(pilot, app)
        await pilot.press("g")
        await pilot.pause()
        assert screen.has_class("plotting")
        assert "No games yet." in str(screen.query_one("#plot-legend").render())
        assert not screen.query_one("#plot").display  # no axes without data
        text = "\n".join(screen_text(app))
        assert "No games yet." in text and "┌" not in text.split("Games")[-1].split("Past games")[0][40:]


async def test_o_plots_the_rating_over_time_with_its_spread(nim_registry, config, tmp_path):
    match = Match(nim_registry.game("nim"), [SeatConfig("Ann"), SeatConfig("Bob", "perfect")], {"sticks": 5})
    app = make_app(nim_registry, config, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await play_a_game_then_open_the_records(pilot, app)
        store = RecordsStore.open(tmp_path / "records.sqlite3")
        mu, sigma = store.person_ratings("nim", "Ann", 10)[-1]
        assert screen.rating_history == [(mu, sigma)]
        await pilot.press("o")
        await pilot.pause()
        text = "\n".join(screen_text(app))
        assert f"Ann: rating after the latest game; now {mu:.1f} ± {sigma:.1f}" in text and "1 games" not in text
        assert screen.query_one("#plot").display and not screen.query_one("#figures").display
        await pilot.press("g")  # from the rating to the scores
        await pilot.pause()
        assert "Ann: the latest score" in "\n".join(screen_text(app))
        await pilot.press("g")  # and back to the figures
        await pilot.pause()
        assert "Ann: played 1" in "\n".join(screen_text(app))
