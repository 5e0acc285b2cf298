import json

from gamenight.arena import run_arena
from gamenight.cli import main


def test_arena_result_counts_ties_as_half_and_reports_ci(nim_registry):
    game = nim_registry.game("nim")
    result = run_arena(game, ["perfect", "first"], games=20, seed=3)
    assert result.games == 20
    first_mover = result.seats[0]
    assert first_mover.wins == 20 and first_mover.win_rate == 1.0  # 10 sticks: the first mover wins
    assert result.seats[1].mean == 0 and result.seats[1].ci95 == 0


def test_arena_json_has_the_documented_keys(capsys, monkeypatch, nim_registry):
    monkeypatch.setattr("gamenight.plugins.load_registry", lambda: nim_registry)
    assert (
        main(
            [
                "arena",
                "nim",
                "--seats",
                "first,perfect",
                "--games",
                "5",
                "--seed",
                "1",
                "--json",
                "--option",
                "sticks=7",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"game", "games", "seed", "games_per_s", "seats"}
    assert data["game"] == "nim" and data["games"] == 5 and data["seed"] == 1
    assert [set(seat) for seat in data["seats"]] == [{"seat", "bot", "mean", "ci95", "wins", "win_rate"}] * 2


def test_arena_refuses_bad_input_with_a_message(capsys, monkeypatch, nim_registry):
    monkeypatch.setattr("gamenight.plugins.load_registry", lambda: nim_registry)
    assert main(["arena", "nim", "--seats", "first,genius", "--games", "5"]) == 2
    assert "genius" in capsys.readouterr().err
    assert main(["arena", "nim", "--seats", "first", "--games", "5"]) == 2
    assert main(["arena", "nim", "--seats", "first,first", "--option", "sticks=99"]) == 2
