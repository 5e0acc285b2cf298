"""Bot ratings seeded from arena runs: ``gamenight arena … --rate [--records DB]``, then a person's game
against that bot starts from its measured strength, and the records show the bot's rating with its uncertainty."""

from __future__ import annotations

import json
from pathlib import Path

from gamenight.cli import main
from gamenight.records import ratings as rating_math
from gamenight.records.store import GameRecord, RecordsStore, SeatRecord
from gamenight.screens.records_screen import RecordsScreen

from tests.core.records.test_records_screen import make_app, open_and_load
from tests.core.tour import screen_text


def arena(capsys, monkeypatch, registry, *extra: str) -> dict:
    monkeypatch.setattr("gamenight.plugins.load_registry", lambda: registry)
    arguments = ["arena", "nim", "--seats", "first,perfect", "--games", "12", "--seed", "1", "--json", *extra]
    assert main(arguments) == 0
    return json.loads(capsys.readouterr().out)


def a_win_over(bot: str, number: int = 0) -> GameRecord:
    """Ann beats ``bot`` at Nim."""
    return GameRecord(
        game="nim",
        plugin_version="1.0",
        options={"sticks": 5},
        seed=number,
        game_number=0,
        started=1.0,
        finished=2.0,
        seats=(SeatRecord("Ann", None, 1.0, 1, 1.0), SeatRecord("Bot", bot, 0.0, 2, 0.0)),
        log=((0, "1"),),
    )


def test_arena_rate_writes_each_bots_rating_to_the_records(capsys, monkeypatch, nim_registry, tmp_path):
    path = tmp_path / "records.sqlite3"
    data = arena(capsys, monkeypatch, nim_registry, "--rate", "--records", str(path))
    store = RecordsStore.open(path)
    rated = {name: (mu, sigma, games) for kind, name, mu, sigma, games in store.ratings("nim") if kind == "bot"}
    assert set(rated) == {"first", "perfect"} and rated["first"][2] == rated["perfect"][2] == 12
    mu0, sigma0 = rating_math.initial()
    winner = max(data["seats"], key=lambda seat: seat["wins"])["bot"]
    loser = "first" if winner == "perfect" else "perfect"
    assert rated[winner][0] > mu0 > rated[loser][0]
    assert rated[winner][1] < sigma0 and rated[loser][1] < sigma0  # measured: less uncertain than a newcomer
    assert store.count() == 0  # rated, not listed as games
    assert data["ratings"] == [
        {"bot": bot, "mu": rated[bot][0], "sigma": rated[bot][1], "games": 12} for bot in ("first", "perfect")
    ]
    # without --rate nothing is written and the JSON keeps its keys
    again = arena(capsys, monkeypatch, nim_registry, "--records", str(tmp_path / "other.sqlite3"))
    assert "ratings" not in again and not (tmp_path / "other.sqlite3").exists()


def test_a_persons_game_against_a_rated_bot_starts_from_its_measured_strength(
    capsys, monkeypatch, nim_registry, tmp_path
):
    path = tmp_path / "records.sqlite3"
    data = arena(capsys, monkeypatch, nim_registry, "--rate", "--records", str(path))
    strong = max(data["seats"], key=lambda seat: seat["wins"])["bot"]
    rated = RecordsStore.open(path)
    rated.add(a_win_over(strong))
    fresh = RecordsStore.open(tmp_path / "fresh.sqlite3")
    fresh.add(a_win_over(strong))

    def ann(store):
        return next((mu, sigma) for kind, name, mu, sigma, _games in store.ratings("nim") if kind == "person")

    # beating a bot measured strong is worth more than beating one nobody has measured
    assert ann(rated)[0] > ann(fresh)[0]
    bot = next(games for kind, name, _mu, _sigma, games in rated.ratings("nim") if name == strong)
    assert bot == 13  # its twelve arena games and Ann's


def test_records_show_an_arena_rated_bots_rating_with_its_uncertainty(
    capsys, monkeypatch, nim_registry, config, tmp_path
):
    arena(capsys, monkeypatch, nim_registry, "--rate", "--records", str(tmp_path / "records.sqlite3"))
    assert main(["records", "--file", str(tmp_path / "records.sqlite3")]) == 0
    out = capsys.readouterr().out
    assert "Bots' ratings" in out and "±" in out and "Perfect" in out


async def test_the_records_screen_shows_a_bots_rating_with_its_uncertainty(
    capsys, monkeypatch, nim_registry, config, tmp_path
):
    arena(capsys, monkeypatch, nim_registry, "--rate", "--records", str(tmp_path / "records.sqlite3"))
    store = RecordsStore.open(Path(tmp_path / "records.sqlite3"))
    mu, sigma = next((mu, sigma) for kind, name, mu, sigma, _g in store.ratings("nim") if name == "perfect")
    app = make_app(nim_registry, config, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = await open_and_load(pilot, app)
        assert isinstance(screen, RecordsScreen)
        for _ in range(100):
            if screen.figures is not None:
                break
            await pilot.pause(0.02)
        text = "\n".join(screen_text(app))
        assert "Bots' ratings" in text
        assert any("Perfect" in line and f"{mu:.1f} ± {sigma:.1f}" in line for line in text.splitlines())
