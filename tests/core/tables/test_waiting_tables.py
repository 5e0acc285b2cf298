"""A shared table waiting for people, at 80x24 in both languages: what its host sees."""

from __future__ import annotations

import pytest
from gamenight.i18n import set_language

from tests.core.tables.conftest import REGISTRY
from tests.core.tables.test_shared_end import join_first_table, open_shared_table
from tests.core.tables.test_tables_lobby import room_for, table_screen, until
from tests.core.tour import screen_text

WAITING = {
    "en": [
        "This table starts when one more person sits down.",  # (not "1 more person(s)")
        "1. Ann — you",
        "— free, for a person",
        "The others join from the lobby: t (Tables)",
        "Ctrl+B starts now, with bots in the free seats.",
        "Esc leaves the table.",
    ],
    "ja": [
        "あと 1 人が席に着くと、このテーブルが始まります。",
        "1. Ann — あなた",
        "— 空席（人用）",
        "ほかの人はロビーから参加します",
        "Ctrl+B で、空席をボットにして今すぐ始めます。",
        "Esc でテーブルを離れます。",
    ],
}


@pytest.mark.parametrize(
    ("game", "language"),
    [(game, language) for game in ("mille", "lits", "mate", "yatzy", "seven") for language in ("en", "ja")],
)
async def test_a_waiting_table_tells_its_host_what_it_waits_for_in_place_of_its_board(
    service, tmp_path, game, language
):
    """Every game's waiting table shows, in place of its (empty) board, who sits, the free seats, that
    it starts when they are taken, and the keys: LITS's, Mate's and Yatzy's were a blank board."""
    set_language(language)
    ann = await room_for(service, "ann", tmp_path, REGISTRY)
    ben = await room_for(service, "ben", tmp_path, REGISTRY)
    async with ann.run_test(size=(80, 24)) as a, ben.run_test(size=(80, 24)) as b:
        await open_shared_table(a, ann, game)
        await until(a, lambda: ann.screen is table_screen(ann), what="Ann at her table")
        await a.pause(0.1)
        text = "\n".join(screen_text(ann))
        for line in WAITING[language]:
            assert line in text, text
        await join_first_table(b, ben)
        await until(a, lambda: not table_screen(ann).table_waiting, what="the game started")
        await a.pause(0.1)
        text = "\n".join(screen_text(ann))
        assert WAITING[language][0] not in text
        assert "Ben" in text  # the board and its names are drawn
    set_language("en")


def move_keys(screen) -> list[tuple[str, bool]]:
    """(key, enabled) of the game's own keys in the table's key bar (not Help, Leave, Chat…)."""
    from gamenight.ui.game_screen import _ROOM_ACTIONS
    from gamenight.widgets.key_bar import KeyBar

    items, _palette = screen.query_one(KeyBar)._items()
    return [
        (key, enabled)
        for key, _shown, _label, enabled in items
        if screen.active_bindings[key].binding.action.split("(")[0] not in _ROOM_ACTIONS
    ]


@pytest.mark.parametrize(
    ("game", "language"), [("yatzy", "en"), ("yatzy", "ja"), ("seven", "en"), ("lits", "ja"), ("mate", "en")]
)
async def test_a_seated_players_move_keys_are_dimmed_off_turn(service, tmp_path, game, language):
    """Two people at a shared table: the one not to move sees the game's keys dimmed (and they do
    nothing); the one to move sees them lit."""
    set_language(language)
    ann = await room_for(service, "ann", tmp_path, REGISTRY)
    ben = await room_for(service, "ben", tmp_path, REGISTRY)
    async with ann.run_test(size=(80, 24)) as a, ben.run_test(size=(80, 24)) as b:
        await open_shared_table(a, ann, game)
        await join_first_table(b, ben)
        await until(a, lambda: not table_screen(ann).table_waiting and not table_screen(ben).table_waiting)
        rooms = {ann: a, ben: b}

        def mover():
            return next((room for room in rooms if table_screen(room).match.human_to_move()), None)

        await until(a, lambda: mover() is not None, what="someone to move")
        on, off = mover(), next(room for room in rooms if room is not mover())
        await rooms[on].pause(0.1)
        await rooms[off].pause(0.1)
        lit, dimmed = move_keys(table_screen(on)), move_keys(table_screen(off))
        assert lit and any(enabled for _key, enabled in lit), lit
        assert dimmed and not any(enabled for _key, enabled in dimmed), dimmed
        assert {key for key, _enabled in dimmed} <= {key for key, _enabled in lit}  # the same keys, dimmed
        log = len(table_screen(off).match.client.log)
        await rooms[off].press(dimmed[0][0])  # does nothing
        await rooms[off].pause(0.1)
        assert len(table_screen(off).match.client.log) == log
