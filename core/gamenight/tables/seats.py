"""Seats: opening a table, finding it, sitting, watching, leaving, the bot taking a seat over, closing a table."""

from __future__ import annotations

import logging
import secrets
import time
from typing import TYPE_CHECKING

from gamenight.match import SEED_BITS, Match, SeatConfig, new_seed
from gamenight.sdk import OBSERVER
from gamenight.tables import protocol as p
from gamenight.tables.base import _ServiceBase
from gamenight.tables.names import unique_name
from gamenight.tables.table import Table, names_but
from gamenight.text import safe_text

if TYPE_CHECKING:
    from gamenight.tables.service import Connection

log = logging.getLogger("gamenight.tables")


class Seats(_ServiceBase):
    """Part of :class:`~gamenight.tables.service.TableService`: who sits where, and the tables' coming and going."""

    def _open(self, connection: Connection, message: p.OpenTable) -> None:
        if connection.table is not None:
            return self._refuse(connection, "busy", "leave your table first", fatal=False)
        refusal = self._solo_limit(connection) if message.solo else self._table_limit(connection)
        if refusal is not None:
            return self._refuse(connection, *refusal, fatal=False)
        try:
            game = self.registry.game(message.game)
            if not game.min_seats <= len(message.seats) <= game.max_seats:
                raise ValueError(f"{game.id} takes {game.min_seats}-{game.max_seats} seats")
            if not any(seat.kind == "person" for seat in message.seats):
                raise ValueError("a table needs a seat for a person")
            if message.solo and sum(seat.kind == "person" for seat in message.seats) != 1:
                raise ValueError("a solo table has one seat for a person, the others bots")
            if not game.bots:
                raise ValueError(f"{game.id} has no bot to stand in for an absent player")
            takeover = max(game.bots, key=lambda spec: spec.strength).id
            seats = []
            for number, spec in enumerate(message.seats):
                if spec.kind == "bot":
                    game.bot(spec.bot or takeover)  # KeyError if unknown
                    seats.append(
                        SeatConfig(f"{game.bot(spec.bot or takeover).label} {number + 1}", spec.bot or takeover)
                    )
                else:
                    seats.append(SeatConfig(f"Seat {number + 1}"))
            options = game.parse_options(message.options)
        except (KeyError, ValueError) as error:
            return self._refuse(connection, "bad-table", safe_text(str(error).strip("'\""), limit=200), fatal=False)
        table_id = secrets.token_hex(4)
        # No seed yet: the game's secret seed is drawn when it starts (_begin), never before.
        match = Match(game, seats, options, seed=0, bot_time_budget=self.bot_time_budget, table=table_id)
        persons = [spec.kind == "person" for spec in message.seats]
        table = Table(
            id=table_id,
            game=game,
            match=match,
            persons=persons,
            owners=[None] * len(seats),
            names=[seat.name for seat in seats],
            takeover_bot=takeover,
            public=message.public and not message.solo,
            code="" if message.public and not message.solo else secrets.token_hex(3).upper(),
            timer=0 if message.solo else message.timer,
            host=connection.identity,
            address=connection.address,
            solo=message.solo,
            bot_delay=message.bot_delay if message.solo else 0.0,
        )
        if message.solo:
            self._keep_room_for_solo(connection)
        self.tables[table_id] = table
        self._launch(table)
        self._sit(connection, table, persons.index(True))

    def _forget(self, table: Table, why: str) -> None:
        """Close ``table``: its driver stops, its files go; anyone still watching it is told and let go."""
        if self.tables.get(table.id) is not table:
            return
        del self.tables[table.id]
        if table.driver is not None:
            table.driver.cancel()
        table.forgotten = True  # the saver removes its files after its last write
        table.dirty.set()
        closed = p.Error("table-closed", "the table was closed: everyone left it")
        for connection in table.connections:
            connection.table, connection.seat = None, OBSERVER
            connection.send(closed)
        table.connections = []
        log.info("table %s closed (%s, %s)", table.id, table.status(), why)
        self._list_changed()

    def _seed(self) -> int:
        """A fresh secret seed for one game (128 bits from the OS; a test's service draws a fixed series)."""
        if self._seeds is None:
            return new_seed()
        return self._seeds.getrandbits(SEED_BITS)

    def _begin(self, table: Table, first: bool = True) -> None:
        """A game starts at ``table``: it draws chance from a fresh secret seed, held here alone until
        the game is over (only then does a save with it reach the players)."""
        if first:
            table.started = True
            table.match.seed = self._seed()
        else:
            table.match.start_game(seed=self._seed())
        if self.store is not None:  # the new seed (and an empty log) stored before the game's first move
            self._queue_state(table)

    def _find(self, connection: Connection, table_id: str, code: str) -> Table | None:
        table = self.tables.get(table_id) if table_id else self._by_code(code)
        if table is None or (not table.public and not secrets.compare_digest(code.upper(), table.code)):
            self._refuse(connection, "no-table", "no such table (or a wrong code)", fatal=False)
            return None
        return table

    def _by_code(self, code: str) -> Table | None:
        """The private table whose short code is ``code`` (a code alone, typed in a lobby)."""
        code = code.upper()
        for table in self.tables.values():
            if code and not table.public and secrets.compare_digest(code, table.code):
                return table
        return None

    def _join(self, connection: Connection, message: p.Join) -> None:
        own = self.tables.get(message.table) if message.table else None
        if own is not None and own.solo:  # a person's own kept game: theirs alone, no code needed
            held = own.seat_of(connection.identity)
            if held is None:
                return self._refuse(connection, "no-table", "no such table (or a wrong code)", fatal=False)
            return self._sit(connection, own, held)
        table = self._find(connection, message.table, message.code)
        if table is None:
            return
        held = table.seat_of(connection.identity)
        if held is not None:  # reclaiming one's own seat
            return self._sit(connection, table, held)
        if connection.table is not None:
            return self._refuse(connection, "busy", "leave your table first", fatal=False)
        free = [seat for seat, person in enumerate(table.persons) if person and table.owners[seat] is None]
        if message.seat != -1:
            free = [seat for seat in free if seat == message.seat]
        if not free:
            return self._refuse(connection, "no-seat", "no free seat for a person there", fatal=False)
        self._sit(connection, table, free[0])

    def _sit(self, connection: Connection, table: Table, seat: int) -> None:
        if connection.table is not None and connection.table is not table:
            self._detach(connection, dropped=False)
        for other in table.connections:  # the same identity on a new connection replaces the old one
            if other is not connection and other.identity == connection.identity:
                other.table = None
                other.close()
        table.connections = [c for c in table.connections if c.identity != connection.identity]
        table.owners[seat] = connection.identity
        table.names[seat] = unique_name(connection.name, names_but(table, connection.identity, seat))
        table.away.pop(seat, None)
        if table.match.seats[seat].bot is not None and table.persons[seat]:  # reclaimed from the stand-in
            log.info("table %s: %s reclaims seat %d", table.id, connection.identity, seat)
        table.match.seats[seat] = SeatConfig(table.names[seat])
        connection.table, connection.seat, connection.log_sent = table, seat, 0
        table.connections.append(connection)
        if not table.started and all(
            o is not None for o, person in zip(table.owners, table.persons, strict=True) if person
        ):
            self._begin(table)
        self._changed(table)

    def _watch(self, connection: Connection, message: p.Watch) -> None:
        table = self._find(connection, message.table, message.code)
        if table is None:
            return
        if not getattr(table.game.rules, "watchable", False):
            return self._refuse(connection, "no-watching", f"{table.game.id} cannot be watched", fatal=False)
        if connection.table is not None:
            self._detach(connection, dropped=False)
        connection.table, connection.seat, connection.log_sent = table, OBSERVER, 0
        connection.shown = unique_name(connection.name, names_but(table, connection.identity))
        table.connections.append(connection)
        self._send_snapshot(table, connection)
        self._watchers_changed(table)

    def _start(self, connection: Connection) -> None:
        table = connection.table
        if table is None or table.host != connection.identity or table.started:
            return self._refuse(connection, "not-host", "only the host starts a waiting table", fatal=False)
        for seat, person in enumerate(table.persons):
            if person and table.owners[seat] is None:
                table.match.seats[seat] = SeatConfig(table.names[seat], table.takeover_bot)
        self._begin(table)
        self._changed(table)

    def _reattach(self, connection: Connection) -> None:
        """A returning identity lands back at its seat (and reclaims it from the bot)."""
        for table in self.tables.values():
            seat = table.seat_of(connection.identity)
            if seat is not None and not table.match.over and not table.solo:  # solo games: from Resume
                self._sit(connection, table, seat)
                return

    def _detach(self, connection: Connection, dropped: bool) -> None:
        """The connection leaves its table: a dropped seat waits, a left seat goes to the bot at once."""
        table = connection.table
        if table is None:
            return
        connection.table = None
        if connection in table.connections:
            table.connections.remove(connection)
        seat = connection.seat
        if seat < 0:  # a watcher leaves: the table is as it was, but for its count of watchers
            return self._watchers_changed(table)
        if table.owners[seat] == connection.identity:
            if table.solo and not table.match.over:  # the seat waits for its person, however long
                table.away[seat] = time.monotonic()
            elif dropped and table.started and not table.match.over:
                table.away[seat] = time.monotonic()
            elif table.started:
                self._take_over(table, seat)
            else:
                table.owners[seat] = None
                table.names[seat] = f"Seat {seat + 1}"
        if not table.started and not any(table.owners) and not self._closing:
            # A waiting table nobody sits at any more (its host left, and no one else came): it would
            # stay listed "free, free" for ever.  A table in play stays: its players may come back.
            return self._forget(table, "its host left")
        self._changed(table)

    def _take_over(self, table: Table, seat: int) -> None:
        table.away.pop(seat, None)
        table.match.seats[seat] = SeatConfig(table.names[seat], table.takeover_bot)
        log.info("table %s: the bot takes seat %d", table.id, seat)
