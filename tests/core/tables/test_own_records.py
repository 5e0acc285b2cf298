"""A hosted room's records screen shows its own person -- the name the server gave it -- even
where another player of the same shared games played as often (a tie went to the first name)."""

from __future__ import annotations

import pytest
from gamenight.i18n import set_language
from gamenight.records.store import GameRecord, RecordsStore, SeatRecord
from gamenight.screens.records_screen import RecordsScreen
from textual.widgets import OptionList

from tests.core.tables.test_tables_lobby import room_for, until
from tests.core.tour import screen_text


def shared_game(number: int, ann: float, ben: float) -> GameRecord:
    """A finished two-person Nim game as each room keeps it: Ann in seat 1, Ben in seat 2."""
    return GameRecord(
        "nim",
        "1",
        {},
        number,
        0,
        1000.0 + number,
        1001.0 + number,
        (
            SeatRecord("Ann", None, ann, 1 if ann > ben else 2, 1.0 if ann > ben else 0.0),
            SeatRecord("Ben", None, ben, 1 if ben > ann else 2, 1.0 if ben > ann else 0.0),
        ),
        ((0, "1"),),
    )


@pytest.mark.parametrize("language", ["en", "ja"])
async def test_a_hosted_rooms_records_show_its_own_person_not_the_first_name(nim_service, tmp_path, language):
    set_language(language)
    (tmp_path / "ben").mkdir()
    store = RecordsStore.open(tmp_path / "ben" / "records.sqlite3")
    store.add_many([shared_game(0, 1, 0), shared_game(1, 1, 0)])  # Ann won both; Ben played both too
    store.close()
    ben = await room_for(nim_service, "ben", tmp_path)  # the server names this room's person "Ben"
    async with ben.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: ben.tables is not None and ben.tables.name == "Ben", what="the welcome")
        await until(pilot, lambda: "c" in ben.screen.active_bindings, what="the Records key")
        await pilot.press("c")
        screen = ben.screen
        assert isinstance(screen, RecordsScreen)
        await until(
            pilot,
            lambda: screen.figures is not None and screen.query_one("#past", OptionList).option_count,
            what="the figures",
        )
        assert screen.figures.player == "Ben" and screen.figures.played == 2 and screen.figures.won == 0
        text = "\n".join(screen_text(ben))
        if language == "en":
            assert "Ben: played 2, won 0" in text and "Ann: played" not in text
        else:
            assert "Ben: 2 回対戦、0 勝" in text and "Ann: 2 回対戦" not in text
