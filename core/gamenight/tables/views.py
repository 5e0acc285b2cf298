"""What each connection sees: a seat's snapshot (its own view only; watchers the public one), the table list."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

import msgspec

from gamenight.sdk import OBSERVER, TERMINAL, observer_view
from gamenight.tables import protocol as p
from gamenight.tables.base import _ServiceBase
from gamenight.tables.table import Table

if TYPE_CHECKING:
    from gamenight.tables.service import Connection

log = logging.getLogger("gamenight.tables")

LIST_INTERVAL = 0.5
"""Seconds between two table lists sent to the connections that keep the list open: every change
meanwhile goes out in the next one (the latest state wins; the last change is never lost)."""


class Views(_ServiceBase):
    """Part of :class:`~gamenight.tables.service.TableService`: snapshots and table lists, sent as the tables change."""

    def _info(self, table: Table) -> p.TableInfo:
        seats = [
            p.SeatInfo(
                name=table.names[seat],
                bot=table.bot_plays(seat),
                person=table.persons[seat],
                taken=table.owners[seat] is not None,
                away=seat in table.away,
            )
            for seat in range(len(table.names))
        ]
        match = table.match
        return p.TableInfo(
            table=table.id,
            game=table.game.id,
            options=dict(match.options),
            seats=seats,
            status=table.status(),  # type: ignore[arg-type]
            to_move=match.to_move(),
            watchers=sum(c.seat == OBSERVER for c in table.connections),
            timer=table.timer,
            public=table.public,
            solo=table.solo,
        )

    def snapshot(self, table: Table, seat: int, log_start: int = 0, identity: str = "") -> p.Snapshot:
        """What ``seat`` (or a watcher, ``OBSERVER``) may know of ``table`` now (the log from ``log_start``)."""
        match = table.match
        rules = match.rules
        view = observer_view(rules, match.state) if seat == OBSERVER else rules.view(match.state, seat)
        to_move = match.to_move()
        interlude = match.pending_interlude()
        legal = (
            rules.legal_actions(match.state)
            if (seat >= 0 and to_move == seat and interlude is None and table.started and not table.bot_plays(seat))
            else []
        )
        scores = rules.current_scores(match.state)
        outcome = match.outcome() if to_move == TERMINAL else None
        return p.Snapshot(
            table=self._info(table),
            seat=seat,
            code=table.code if seat >= 0 else "",
            view=_narrow(msgspec.to_builtins(view)) if table.wide_ints else msgspec.to_builtins(view),
            legal=list(legal),
            turn=len(match.log),
            log=table.descriptions[log_start:],
            log_start=log_start,
            scores=list(scores) if scores is not None else None,
            totals=list(match.totals),
            interlude=None
            if interlude is None
            else p.InterludeInfo(
                key=interlude.key,
                title=interlude.title,
                scores=list(interlude.scores),
                lines=[(label, list(values)) for label, values in interlude.lines],
                waiting=self._waiting(table),
            ),
            outcome=list(outcome.scores) if outcome else None,
            winners=list(outcome.winners) if outcome else [],
            outcome_lines=[(label, list(values)) for label, values in outcome.lines] if outcome else [],
            deadline=max(0.0, table.deadline - time.monotonic()) if table.deadline else 0.0,
            again=sorted(table.again),
            host=bool(identity) and identity == table.host,
        )

    def _broadcast(self, table: Table) -> None:
        for connection in list(table.connections):
            self._send_snapshot(table, connection)

    def _send_snapshot(self, table: Table, connection: Connection) -> None:
        try:
            connection.send(self.snapshot(table, connection.seat, connection.log_sent, connection.identity))
        except OverflowError:  # an integer wider than 64 bits in the view: from now on sent as text
            table.wide_ints = True
            connection.send(self.snapshot(table, connection.seat, connection.log_sent, connection.identity))
        connection.log_sent = len(table.descriptions)

    def _watchers_changed(self, table: Table) -> None:
        """A watcher came or went: the players see the new count, the other watchers nothing (nothing
        at the table changed for them).  Sending every watcher a snapshot made watch/leave churn cost
        the server O(watchers²) snapshots."""
        for connection in table.connections:
            if connection.seat >= 0:
                self._send_snapshot(table, connection)
        if self.store is not None:
            table.dirty.set()  # its summary in the store's lobby shows the watchers too
        self._list_changed()

    def _changed(self, table: Table) -> None:
        table.wake.set()
        table.dirty.set()
        self._broadcast(table)
        self._list_changed()

    def _table_list(self) -> p.TableList:
        """The public tables of this host, then (with the tables in Redis) those other hosts run."""
        here = [self._info(t) for t in self.tables.values() if t.public and t.status() != "over"]
        return p.TableList(here + [info for table_id, info in self._remote.items() if table_id not in self.tables])

    def _list_changed(self) -> None:
        """The tables changed: the connections keeping the list open get it again, at most every
        :data:`LIST_INTERVAL` (every change meanwhile is in that one list, encoded once)."""
        if self._list_pending or not any(c.listing for c in self.connections):
            return
        self._list_pending = True
        self._later(LIST_INTERVAL, self._send_lists)

    def _send_lists(self) -> None:
        self._list_pending = False
        # Not to those at a table (their room's list is out of sight; they get it when they leave):
        # a busy table's watchers would otherwise get every list too.
        listing = [c for c in self.connections if c.listing and c.table is None and not c.closed]
        if not listing:
            return
        frame = p.encode(self._table_list())
        for connection in listing:
            if connection.list_sent != frame:  # the latest state wins; an unchanged list is not resent
                connection.list_sent = frame
                connection.send_frame(frame)


def _narrow(value: Any) -> Any:
    """``value`` (plain data) with every integer MessagePack cannot hold as decimal text.

    The client's ``msgspec.convert(..., strict=False)`` turns the text back
    into the int the view type declares.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**64 else str(value)
    if isinstance(value, list | tuple):
        return [_narrow(item) for item in value]
    if isinstance(value, dict):
        return {key: _narrow(item) for key, item in value.items()}
    return value
