"""Moves: a seated person's move, a pause acknowledged, chat, playing again, and the finished game's save
sent to its players."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import msgspec
import tomli_w

from gamenight.saves import match_to_document
from gamenight.sdk import IllegalAction, fill_seat_names
from gamenight.tables import protocol as p
from gamenight.tables.base import _ServiceBase
from gamenight.tables.table import Table
from gamenight.text import safe_text

if TYPE_CHECKING:
    from gamenight.tables.service import Connection

log = logging.getLogger("gamenight.tables")

CHAT_LIMIT = 200


class Moves(_ServiceBase):
    """Part of :class:`~gamenight.tables.service.TableService`: what happens at a table once people sit there."""

    def _move(self, connection: Connection, message: p.Move) -> None:
        table = connection.table
        if table is None or connection.seat < 0:
            return self._refuse(connection, "not-seated", "you have no seat", fatal=False)
        match = table.match
        seat = connection.seat
        if (
            not table.started
            or match.to_move() != seat
            or match.bot_to_move()
            or table.owners[seat] != connection.identity
        ):
            return self._refuse(connection, "not-your-turn", "it is not your turn", fatal=False)
        if match.pending_interlude() is not None:
            return self._refuse(connection, "paused", "the table is paused", fatal=False)
        if table.store_down:  # said at once (ahead of the frames that wait), and not held against the person
            return connection.send_now(p.encode(p.Error("store-down", "the table waits: its store cannot be reached")))
        if message.turn != len(match.log):
            return self._refuse(connection, "stale", "that move answers an older position", fatal=False)
        try:
            self._apply(table, message.action)
        except IllegalAction as error:
            self._refuse(
                connection,
                "illegal",
                safe_text(error, limit=200),
                fatal=False,
                why=_reason(error),
                counted=not connection.illegal.allow(),
            )

    def _apply(self, table: Table, action: str) -> None:
        """Apply one action for whoever is to move, then tell everyone (raises IllegalAction, changing nothing)."""
        match = table.match
        seat = match.to_move()
        before = match.state
        match.apply(action)
        if self.store is not None:  # written to Redis before any frame that shows it goes out
            self._log_move(table, seat, action)
        text = fill_seat_names(match.rules.describe_action(before, action, seat), table.names)
        table.descriptions.append((seat, text))
        try:
            events = [event.to_json() for event in match.last_events()]
        except Exception as error:  # a plugin's public_events that fails: the sentence still goes out
            log.warning("table %s: no public events: %s", table.id, safe_text(error, limit=200))
            events = []
        event = p.Event(table.id, len(match.log), seat, text, events)
        for connection in table.connections:
            connection.send(event)
        table.deadline = 0.0
        ended = match.over and not match.recorded
        if ended:  # counted before the snapshots go out: every end view shows the totals with this game
            match.record_result()
            if self.store is not None:
                self._queue_state(table)
        self._changed(table)
        if ended:
            self._send_saves(table)
            self._record_table(table)

    def _ack(self, connection: Connection, message: p.Ack) -> None:
        table = connection.table
        if table is None or connection.seat < 0:
            return
        interlude = table.match.pending_interlude()
        if interlude is not None and interlude.key == message.key:
            table.acks.add(connection.seat)
            self._changed(table)

    def _chat(self, connection: Connection, message: p.Chat) -> None:
        table = connection.table
        if table is None:
            return self._refuse(connection, "not-seated", "chat goes to a table", fatal=False)
        if not connection.chats.allow():
            return self._refuse(connection, "chat-flood", "you are chatting too fast", fatal=False)
        text = " ".join(safe_text(message.text, limit=CHAT_LIMIT).split())
        if not text:
            return
        watching = connection.seat < 0
        line = p.ChatLine(table.id, connection.shown if watching else table.names[connection.seat], text, watching)
        for other in table.connections:
            other.send(line)

    def _again(self, connection: Connection) -> None:
        """A seated person asks to play again; once every present person has, the next game starts."""
        table = connection.table
        if table is None or connection.seat < 0 or not table.match.over:
            return self._refuse(connection, "not-over", "the game is not over", fatal=False)
        table.again.add(connection.seat)
        present = [
            seat
            for seat, owner in enumerate(table.owners)
            if owner is not None and not table.bot_plays(seat) and seat not in table.away
        ]
        if all(seat in table.again for seat in present):
            if not table.match.recorded:
                table.match.record_result()
                self._send_saves(table)
                self._record_table(table)
            self._begin(table, first=False)
            table.again.clear()
            table.acks.clear()
            table.descriptions = []
            for other in table.connections:
                other.log_sent = 0
        self._changed(table)

    def _send_saves(self, table: Table) -> None:
        """Send the finished game's save document to each seated person's room (for their own saves)."""
        seated = [c for c in table.connections if c.seat >= 0 and table.owners[c.seat] == c.identity]
        if not seated:
            return
        try:
            text = tomli_w.dumps(match_to_document(table.match))
        except (TypeError, ValueError) as error:
            log.warning("table %s: no save for the players: %s", table.id, safe_text(error, limit=200))
            return
        if len(text) > p.SERVICE_FRAME_CAP // 2:
            log.warning("table %s: the save is too big to send (%d bytes)", table.id, len(text))
            return
        message = p.Finished(table.id, text)
        for connection in seated:
            connection.send(message)


def _reason(error: IllegalAction) -> p.Reason | None:
    """The rules' reason for a refused move as data for the room, or ``None`` when it cannot travel
    (params that are not plain JSON values, or too long): the room then shows the English text."""
    if not error.template:
        return None
    try:
        reason = p.Reason(safe_text(error.code, limit=64), error.template, msgspec.to_builtins(error.params))
        if len(p.encode(reason)) > 2000:
            return None
    except (TypeError, ValueError, OverflowError):
        return None
    return reason
