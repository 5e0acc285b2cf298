"""What a room redraws at a shared table: every frame goes over SSH to a person, so none is wasted.

Counted, not timed: the waiting indicator's updates (under a clock the test moves itself),
the key bar's renders and the screen's layouts.
"""

from __future__ import annotations

import gamenight.ui.shared_table as shared_table
from gamenight.tables import protocol as p
from gamenight.ui.game_screen import StatusLine
from gamenight.widgets.key_bar import KeyBar
from textual.screen import Screen
from textual.widgets import Static

from tests.core.tables.conftest import REGISTRY, connect
from tests.core.tables.test_remote_screen import join_bens_table, status
from tests.core.tables.test_tables_lobby import listed, open_tables, room_for, table_screen, until
from tests.core.tour import screen_text


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
        monkeypatch.setattr(shared_table, "time", clock)  # the waiting indicator's clock
        updates: list[tuple[str, bool]] = []
        update = indicator.update

        def counted_update(content="", *, layout=True):
            updates.append((str(content), layout))
            return update(content, layout=layout)

        monkeypatch.setattr(indicator, "update", counted_update)
        seen = set()
        for _ in range(25):  # three seconds of the screen's 0.12 s ticks
            clock.now += 0.12
            screen._tick()
            await a.pause()
            seen.add(str(indicator.render()))
        assert all("Waiting for Ben" in text for text in seen)
        assert 2 <= len(seen) <= 4, seen  # it still turns (the room is alive), once a second
        assert len(updates) <= 4, updates  # not once per tick: each would be a frame over SSH
        assert not any(layout for _text, layout in updates), updates  # a turn repaints the indicator only
    await ben.close()


def drawn(widget) -> str:
    """The line ``widget`` paints next (its cached render, redone only if it was asked to redraw)."""
    return "".join(segment.text for segment in widget.render_line(0))


async def test_the_other_players_move_repaints_the_table_without_a_layout_or_the_key_bar(
    service, tmp_path, monkeypatch
):
    ann = await room_for(service, "ann", tmp_path, REGISTRY)
    async with ann.run_test(size=(80, 24)) as a:
        await until(a, lambda: ann.tables is not None and ann.tables.name, what="the table service")
        await ann.tables.send(p.OpenTable("mille", [p.SeatSpec("person"), p.SeatSpec("person")]))
        await until(a, lambda: table_screen(ann) is not None and ann.screen is table_screen(ann), what="the table")
        screen = table_screen(ann)
        await until(a, lambda: bool(screen.query(KeyBar)), what="the table composed")  # pushed is not drawn yet
        bar = screen.query_one(KeyBar)
        await until(a, lambda: "Start with bots" in drawn(bar), what="the host's start key")
        ben = await connect(service, "ben", "Ben")
        await ben.send(p.Join(ann.tables.snapshot.table.table))
        # The keys changed: the bar is drawn again, without the start key.
        await until(a, lambda: "Start with bots" not in drawn(bar), what="the start key gone from the bar")

        renders: list[KeyBar] = []
        layouts: list[Screen] = []
        render, refresh_layout = KeyBar.render, Screen._refresh_layout

        def counted_render(self):
            renders.append(self)
            return render(self)

        def counted_layout(self, *args, **kwargs):
            layouts.append(self)
            return refresh_layout(self, *args, **kwargs)

        monkeypatch.setattr(KeyBar, "render", counted_render)
        monkeypatch.setattr(Screen, "_refresh_layout", counted_layout)
        # The waiting indicator appears and goes with the turn, which changes its width and lays out
        # the status line (the test above covers it): held still here, so only the move's redraw counts.
        monkeypatch.setattr(StatusLine, "thinking", lambda self, text: None)
        board = screen.query_one("#board")
        bens_moves = 0
        for _ in range(40):
            snap = ann.tables.snapshot
            if snap.table.status != "playing" or snap.interlude is not None or bens_moves == 3:
                break
            if snap.legal:  # Ann's own move (not counted)
                screen.submit(snap.legal[0])
                await until(a, lambda turn=snap.turn: ann.tables.snapshot.turn != turn, what="Ann's move")
                await a.pause()
                continue
            await ben.wait_for(lambda c, turn=snap.turn: c.snapshot.turn == turn and c.snapshot.legal)
            if "extend" in ben.snapshot.legal:
                break
            before = str(board.content)
            renders.clear()
            layouts.clear()
            await ben.send(p.Move(ben.snapshot.legal[0], snap.turn))
            await until(a, lambda turn=snap.turn: ann.tables.snapshot.turn > turn, what="Ben's move")
            await a.pause()
            drawn_board = str(board.content)
            assert drawn_board != before  # Ann sees Ben's move...
            assert layouts == []  # ...repainted where it changed, without laying out the screen
            assert renders == []  # and her keys did not change: the bar is not drawn again
            bens_moves += 1
        assert bens_moves >= 2
        await ben.close()


async def test_the_other_players_moves_lay_out_no_game_screen(service, tmp_path, monkeypatch):
    """SEVEN, Yatzy, LITS and Mate, as Mille above: the other person's moves repaint Ann's table where
    it changed, and lay the screen out only when a widget's size changes (counted over a few moves)."""
    for game in ("seven", "yatzy", "lits", "mate"):
        ann = await room_for(service, f"ann-{game}", tmp_path, REGISTRY)
        async with ann.run_test(size=(80, 24)) as a:
            await until(a, lambda ann=ann: ann.tables is not None and ann.tables.name, what="the table service")
            await ann.tables.send(p.OpenTable(game, [p.SeatSpec("person"), p.SeatSpec("person")]))
            await until(a, lambda ann=ann: table_screen(ann) is not None and ann.screen is table_screen(ann))
            screen = table_screen(ann)
            ben = await connect(service, f"ben-{game}", "Ben")
            await ben.send(p.Join(ann.tables.snapshot.table.table))
            await until(a, lambda ann=ann: ann.tables.snapshot.table.status == "playing", what="the game")
            monkeypatch.setattr(StatusLine, "thinking", lambda self, text: None)  # the indicator: tested above
            layouts: list[Screen] = []
            refresh_layout = Screen._refresh_layout

            def counted_layout(self, *args, layouts=layouts, refresh_layout=refresh_layout, **kwargs):
                layouts.append(self)
                return refresh_layout(self, *args, **kwargs)

            bens_moves = laid_out = 0
            for _ in range(60):
                snap = ann.tables.snapshot
                if snap.table.status != "playing" or snap.interlude is not None or bens_moves == 4:
                    break
                if snap.legal:  # Ann's own move (not counted)
                    screen.submit(snap.legal[0])
                    await until(a, lambda turn=snap.turn, ann=ann: ann.tables.snapshot.turn != turn, what="Ann's")
                    await a.pause()
                    continue
                await ben.wait_for(lambda c, turn=snap.turn: c.snapshot.turn == turn and (c.snapshot.legal or None))
                await a.pause()
                monkeypatch.setattr(Screen, "_refresh_layout", counted_layout)
                layouts.clear()
                before = screen_text(ann)
                await ben.send(p.Move(ben.snapshot.legal[0], snap.turn))
                await until(a, lambda turn=snap.turn, ann=ann: ann.tables.snapshot.turn > turn, what="Ben's move")
                await a.pause()
                await a.pause()
                assert screen_text(ann) != before, game  # Ann sees Ben's move (repainted)...
                laid_out += len([s for s in layouts if s is screen])  # ...without laying the screen out
                monkeypatch.setattr(Screen, "_refresh_layout", refresh_layout)
                bens_moves += 1
            assert bens_moves >= 2, game
            assert laid_out == 0, f"{game}: {laid_out} layouts over Ben's {bens_moves} moves"
            await ben.close()
