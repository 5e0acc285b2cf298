"""Each table's driver: one asyncio task per table running chance, bots (in worker threads, from their seat's
view only), pauses, the move timer and the seats whose person is away."""

from __future__ import annotations

import asyncio
import logging
import time

from gamenight.sdk import CHANCE, IllegalAction
from gamenight.tables.base import _ServiceBase
from gamenight.tables.table import Table
from gamenight.text import safe_text

log = logging.getLogger("gamenight.tables")


class Driver(_ServiceBase):
    """Part of :class:`~gamenight.tables.service.TableService`: what moves a table on when no person does."""

    def _launch(self, table: Table) -> None:
        table.driver = asyncio.create_task(self._drive(table), name=f"table-{table.id}")
        # With the tables in Redis, the table's writer there (its lease, then every move before it is shown).
        keeper = self._keep(table) if self.store is not None else self._save_loop(table)
        table.saver = asyncio.create_task(keeper, name=f"table-{table.id}-save")

    async def _drive(self, table: Table) -> None:
        """Run chance, bots, pauses, the move timer and away seats of one table, forever."""
        match = table.match
        while True:
            if table.logged < table.applied:  # a move not yet written to Redis: nothing more until it is
                await table.durable.wait()
                continue
            table.wake.clear()
            if table.started and not match.over:
                interlude = match.pending_interlude()
                now = time.monotonic()
                for seat, since in list(table.away.items()) if not table.solo else ():
                    if now - since >= self.away_timeout:
                        self._take_over(table, seat)
                        self._changed(table)
                if interlude is not None:
                    waiting = self._waiting(table)
                    if not waiting:
                        match.acknowledge(interlude)
                        table.acks.clear()
                        self._changed(table)
                        continue
                    if table.timer and not table.deadline:
                        table.deadline = now + table.timer
                elif match.to_move() == CHANCE:
                    self._apply(table, match.rules.sample_chance(match.state, match._chance_rng()))
                    continue
                elif match.bot_to_move():
                    if table.bot_delay:  # a solo table plays at its person's pace
                        await self._bot_pause(table.bot_delay)
                    await self._bot_move(table)
                    continue
                elif table.timer and not table.deadline:
                    table.deadline = now + table.timer
                    self._broadcast(table)
            elif match.over and not match.recorded:
                match.record_result()
                if self.store is not None:
                    self._queue_state(table)
                self._send_saves(table)
                self._record_table(table)
                self._changed(table)
            timeouts = [table.deadline - time.monotonic()] if table.deadline else []
            if not table.solo:
                timeouts += [since + self.away_timeout - time.monotonic() for since in table.away.values()]
            try:
                await asyncio.wait_for(table.wake.wait(), max(0.0, min(timeouts)) if timeouts else None)
            except TimeoutError:
                if table.deadline and time.monotonic() >= table.deadline:
                    table.deadline = 0.0
                    await self._expire(table)

    async def _bot_pause(self, seconds: float) -> None:
        """Wait before a solo table's bot moves (a test counts these instead of timing them)."""
        await asyncio.sleep(seconds)

    def _waiting(self, table: Table) -> list[int]:
        """Seated, present persons who have not acknowledged the pause."""
        return [
            seat
            for seat, owner in enumerate(table.owners)
            if owner is not None and not table.bot_plays(seat) and seat not in table.away and seat not in table.acks
        ]

    async def _expire(self, table: Table) -> None:
        """The move timer ran out: a pause goes on, a person's move is made by the table's bot."""
        match = table.match
        interlude = match.pending_interlude()
        if interlude is not None:
            match.acknowledge(interlude)
            table.acks.clear()
            self._changed(table)
        elif match.human_to_move():
            await self._bot_move(table, stand_in=True)

    async def _bot_move(self, table: Table, stand_in: bool = False) -> None:
        match = table.match
        seat = match.to_move()
        turn = len(match.log)
        state = match.state
        view = match.rules.view(state, seat)
        legal = match.rules.legal_actions(state)
        if stand_in:
            spec = table.game.bot(table.takeover_bot)
            bot = spec.factory(match.rules, seat, match.options)
        else:
            bot = match.bot(seat)
        stop = False
        context = match.bot_context(seat, should_stop=lambda: stop)
        try:
            action = await asyncio.wait_for(
                asyncio.to_thread(bot.choose, view, legal, context), self.bot_time_budget * 2 + 1
            )
        except Exception as error:  # a bot that fails or overruns plays its first legal move
            stop = True
            log.warning(
                "table %s: bot of seat %d failed (%s); first legal move",
                table.id,
                seat,
                safe_text(f"{type(error).__name__}: {error}", limit=120),
            )
            action = legal[0]
        if len(match.log) != turn or match.state is not state or (not stand_in and not table.bot_plays(seat)):
            return  # the position moved on, or the person reclaimed the seat meanwhile
        try:
            self._apply(table, action)
        except IllegalAction:
            self._apply(table, legal[0])
