"""The end dialog's rows, at 80x24 in both languages: the game's own, its "Score" row only when no row
of the game's holds the scores already, and the same rows at a shared table as in a local game."""

from __future__ import annotations

import io

import pytest
from gamenight.dialogs import ResultDialog, ResultTable
from gamenight.i18n import set_language
from gamenight.match import Match, SeatConfig
from gamenight.sdk.testing import make_room
from gamenight.testing import settle
from rich.console import Console

from tests.core.nim import NIM
from tests.core.tables.conftest import NIM_REGISTRY
from tests.core.tables.test_shared_end import open_shared_table, play_nim_against_its_bot
from tests.core.tables.test_tables_lobby import room_for
from tests.core.tour import screen_text

SCORE = {"en": "Score", "ja": "得点"}


def dialog_rows(app) -> list[str]:
    """The first word of each row of the end dialog's score table (its labels)."""
    table = app.screen.query_one(ResultTable)
    lines = [line for line in screen_text(app)[table.region.y : table.region.bottom] if line.strip()]
    return [line[table.region.x : table.region.right].strip() for line in lines]


def labels(rows: list[str]) -> list[str]:
    return [row.split("  ")[0].strip() for row in rows[1:]]  # after the names' header


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_a_games_row_of_the_scores_is_not_repeated_as_score(nim_registry, tmp_path, language):
    """Nim's one row, "Last stick", holds the scores (1 for the winner): no "Score" row under it."""
    set_language(language)
    match = Match(NIM, [SeatConfig("Ann"), SeatConfig("Bot", "first")], {}, seed=1)
    app = make_room(nim_registry, tmp_path, start_match=match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _ in range(10):
            if isinstance(app.screen, ResultDialog):
                break
            await pilot.press("1")
            await settle(pilot)
        assert isinstance(app.screen, ResultDialog)
        rows = labels(dialog_rows(app))
        assert any(row.startswith("Last stick") for row in rows), rows
        assert not any(row.startswith(SCORE[language]) for row in rows), rows


def text_of(table: ResultTable) -> str:
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(table.content)
    return console.export_text()


def test_a_row_that_is_not_the_scores_keeps_the_score_row():
    table = ResultTable(["A", "B"], [("Cards left", [3, 0]), ("Penalty in hand", [12, 0])], [-12, 12])
    assert "Score" in text_of(table)
    table = ResultTable(["A", "B"], [("Covered", [1, 2]), ("Points", [5, 7])], [5, 7])  # the last row is the scores
    assert "Score" not in text_of(table) and "Points" in text_of(table)


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_the_shared_tables_end_dialog_keeps_the_games_own_rows(nim_service, tmp_path, language):
    set_language(language)
    ann = await room_for(nim_service, "ann", tmp_path, NIM_REGISTRY)
    async with ann.run_test(size=(80, 24)) as pilot:
        await open_shared_table(pilot, ann, "nim", person=False)
        await play_nim_against_its_bot(pilot, ann, nim_service)
        await pilot.pause(0.05)
        rows = labels(dialog_rows(ann))
        assert any(row.startswith("Last stick") for row in rows), rows  # as in a local game
        assert not any(row.startswith(SCORE[language]) for row in rows), rows
