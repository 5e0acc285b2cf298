"""``gamenight records``: the figures, their 95% intervals, and stable --json keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gamenight.cli import main
from gamenight.match import SeatConfig, play_headless
from gamenight.records.stats import game_stats, wilson
from gamenight.records.store import RecordsStore, record_from_match


def test_wilson_interval_matches_the_textbook() -> None:
    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def recorded_games(nim_registry, path: Path) -> RecordsStore:
    """Nim games played out headless and recorded: Ann (a person's seat played by a script) against two bots."""
    game = nim_registry.game("nim")
    store = RecordsStore.open(path)
    finished = 1_000_000.0
    for number in range(12):
        bot = "perfect" if number % 3 else "first"
        match = play_headless(
            game, [SeatConfig("Ann", "first"), SeatConfig("Bob", bot)], {"sticks": 5 + number}, seed=number
        )
        match.seats[0] = SeatConfig("Ann")  # Ann's moves were a script's; her seat is a person's
        match.record_result()
        finished += 60
        store.add(record_from_match(match, started=finished - 30, finished=finished))
    return store


def test_the_figures_come_from_the_recorded_games(nim_registry, tmp_path: Path) -> None:
    store = recorded_games(nim_registry, tmp_path / "r.sqlite3")
    rows = store.connection.execute(
        "SELECT g.finished, s.win, s.score FROM seats AS s JOIN games AS g ON g.id = s.record"
        " WHERE s.bot IS NULL ORDER BY g.finished"
    ).fetchall()
    stats = game_stats(store, "nim")
    assert stats.player == "Ann" and stats.played == 12 and stats.records == 12
    assert stats.won == sum(win for _f, win, _s in rows)
    assert stats.recent == [score for _f, _w, score in rows][::-1][:5]
    streak = 0
    for _f, win, _s in reversed(rows):
        if (win > 0) != (rows[-1][1] > 0):
            break
        streak += 1
    assert stats.streak == ("won" if rows[-1][1] > 0 else "lost", streak)
    versus = {entry.bot: entry for entry in stats.versus}
    assert versus["first"].games == 4 and versus["perfect"].games == 8
    assert versus["perfect"].interval == wilson(versus["perfect"].won, 8)
    assert stats.rating is not None and versus["perfect"].rating is not None


def test_records_json_has_stable_keys(nim_registry, tmp_path: Path, capsys) -> None:
    recorded_games(nim_registry, tmp_path / "r.sqlite3").close()
    assert main(["records", "--file", str(tmp_path / "r.sqlite3"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    [nim] = data["games"]
    assert set(nim) == {
        "game", "records", "player", "played", "won", "win_rate", "win_interval", "best", "mean", "recent",
        "streak", "rating", "versus", "high_scores", "ratings",
    }  # fmt: skip
    assert nim["game"] == "nim" and nim["played"] == 12 and nim["player"] == "Ann"
    assert set(nim["rating"]) == {"mu", "sigma"} and set(nim["streak"]) == {"result", "length"}
    assert [entry["bot"] for entry in nim["versus"]] == ["first", "perfect"]
    assert set(nim["versus"][0]) == {"bot", "games", "won", "win_rate", "win_interval", "bot_rating"}
    low, high = nim["win_interval"]
    assert low <= nim["win_rate"] <= high
    assert [entry["rank"] for entry in nim["high_scores"]] == list(range(1, len(nim["high_scores"]) + 1))


def test_records_table_shows_the_top_ten_bsd_style(nim_registry, tmp_path: Path, capsys) -> None:
    recorded_games(nim_registry, tmp_path / "r.sqlite3").close()
    assert main(["records", "--file", str(tmp_path / "r.sqlite3"), "--game", "nim"]) == 0
    out = capsys.readouterr().out
    assert "Ann: played 12" in out and "95%" in out and "Top Ten" in out
    assert "Rank  Score  Name" in out


def test_records_of_nothing_and_of_a_damaged_file(tmp_path: Path, capsys) -> None:
    assert main(["records", "--file", str(tmp_path / "none.sqlite3")]) == 0
    assert "No games recorded yet." in capsys.readouterr().out
    assert not (tmp_path / "none.sqlite3").exists()  # looking does not create a database
    (tmp_path / "bad.sqlite3").write_bytes(b"junk" * 1000)
    assert main(["records", "--file", str(tmp_path / "bad.sqlite3"), "--json"]) == 1
    assert "damaged" in capsys.readouterr().err


HOSTILE = "Ann\x9b31m\u202eevil\x7f\u2066x\U000e0041"
"""A name a hostile records file holds: CSI as one C1 byte, a right-to-left override, DEL, an isolate, a tag."""


def files_in(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {path.name: (path.read_bytes(), path.stat().st_mtime_ns) for path in sorted(folder.iterdir())}


def test_records_json_escapes_what_a_terminal_would_act_on_and_keeps_the_name(nim_registry, tmp_path, capsys):
    store = recorded_games(nim_registry, tmp_path / "r.sqlite3")
    store.connection.execute("UPDATE seats SET name = ? WHERE name = 'Ann'", (HOSTILE,))
    store.connection.execute("UPDATE person_totals SET name = ? WHERE name = 'Ann'", (HOSTILE,))
    store.close()
    assert main(["records", "--file", str(tmp_path / "r.sqlite3"), "--json"]) == 0
    out = capsys.readouterr().out
    assert all(ch.isprintable() for ch in out.rstrip("\n"))
    for raw in ("\x9b", "\u202e", "\x7f", "\u2066", "\U000e0041"):
        assert raw not in out
    assert "\\u009b" in out and "\\u202e" in out and "\\udb40\\udc41" in out
    [nim] = json.loads(out)["games"]
    assert nim["player"] == HOSTILE  # a program reading the JSON gets the name exactly
    assert main(["records", "--file", str(tmp_path / "r.sqlite3"), "--game", "nim"]) == 0
    text = capsys.readouterr().out
    assert "\x9b" not in text and "\u202e" not in text  # the text output drops them, as before


def test_records_file_is_only_read_never_moved_or_changed(nim_registry, tmp_path, capsys):
    (tmp_path / "bad.sqlite3").write_bytes(b"SQLite format 3\x00" + b"junk" * 1000)
    recorded_games(nim_registry, tmp_path / "good.sqlite3").close()
    before = files_in(tmp_path)
    assert main(["records", "--file", str(tmp_path / "bad.sqlite3")]) == 1
    assert "damaged" in capsys.readouterr().err
    assert main(["records", "--file", str(tmp_path / "good.sqlite3"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"][0]["played"] == 12
    after = files_in(tmp_path)
    assert {name: after[name] for name in before} == before  # nothing renamed, nothing written
    assert not [name for name in after if "broken" in name]
