"""What a room redraws at a shared table: every frame goes over SSH to a person, so none is wasted.

Counted, not timed: the waiting indicator's updates and the screen's layouts, under a
clock the test moves itself.
"""

from __future__ import annotations

import gamenight.ui.game_screen as game_screen
from textual.screen import Screen
from textual.widgets import Static

from tests.core.tables.test_remote_screen import join_bens_table, status
from tests.core.tables.test_tables_lobby import listed, open_tables, table_screen, until


class Clock:
    """``time`` for the game screen's module only: ``monotonic()`` is what the test says."""

    def __init__(self, start: float) -> None:
        self.now = start

    def monotonic(self) -> float:
        return self.now


async def test_waiting_for_a_person_turns_the_spinner_once_a_second_without_a_layout(
    nim_service, tmp_path, monkeypatch
):
    ann, ben = await join_bens_table(nim_service, tmp_path)
    async with ann.run_test(size=(80, 24)) as a:
        await open_tables(a, ann)
        await until(a, lambda: listed(ann)[0] != "", what="Ben's table listed")
        await a.press("enter")
        await until(a, lambda: table_screen(ann) is not None, what="Ann seated")
        await until(a, lambda: "Waiting for Ben" in status(ann), what="the waiting indicator")
        screen = table_screen(ann)
        indicator = screen.query_one("#thinking", Static)
        clock = Clock(1000.0)
        monkeypatch.setattr(game_screen, "time", clock)
        updates: list[str] = []
        layouts: list[Screen] = []
        update = indicator.update

        def counted_update(content="", *, layout=True):
            updates.append(str(content))
            return update(content, layout=layout)

        refresh_layout = Screen._refresh_layout

        def counted_layout(self, *args, **kwargs):
            layouts.append(self)
            return refresh_layout(self, *args, **kwargs)

        monkeypatch.setattr(indicator, "update", counted_update)
        monkeypatch.setattr(Screen, "_refresh_layout", counted_layout)
        seen = set()
        for _ in range(25):  # three seconds of the screen's 0.12 s ticks
            clock.now += 0.12
            screen._tick()
            await a.pause()
            seen.add(str(indicator.render()))
        assert all("Waiting for Ben" in text for text in seen)
        assert 2 <= len(seen) <= 4, seen  # it still turns (the room is alive), once a second
        assert len(updates) <= 4, updates  # not once per tick: each would be a frame over SSH
        assert layouts == []  # and a turn repaints the indicator only, never lays out the screen
    await ben.close()
