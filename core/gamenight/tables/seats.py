"""Seats: opening a table, finding it, sitting, watching, leaving, the bot taking a seat over, closing a table."""

from __future__ import annotations

import hmac
import logging
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

from gamenight.match import SEED_BITS, Match, SeatConfig, new_seed
from gamenight.sdk import OBSERVER
from gamenight.tables import protocol as p
from gamenight.tables.base import _ServiceBase
from gamenight.tables.limits import CODE_WINDOW
from gamenight.tables.names import unique_name
from gamenight.tables.shared_caps import bounded
from gamenight.tables.table import Table, names_but
from gamenight.text import safe_text

if TYPE_CHECKING:
    from gamenight.tables.service import Connection

log = logging.getLogger("gamenight.tables")


class Seats(_ServiceBase):
    """Part of :class:`~gamenight.tables.service.TableService`: who sits where, and the tables' coming and going."""

    def _open(self, connection: Connection, message: p.OpenTable) -> None:
        """Open a table: checked against this host's caps, then (with the tables in Redis) every host's."""
        refusal = self._open_refusal(connection, message)
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
        if self._caps is None:
            return self._open_now(connection, message, game, seats, options, takeover)

        async def admitted() -> None:
            refusal, counted = await self._shared_limit(connection, message.solo)
            try:
                if connection.closed:
                    return
                refusal = refusal or self._open_refusal(connection, message)  # (this host's, again: time passed)
                if refusal is not None:
                    self._refuse(connection, *refusal, fatal=False)
                else:
                    self._open_now(connection, message, game, seats, options, takeover)
                self._flush(connection)
            finally:
                self._caps_done(counted)  # the table counts as itself now (or was refused)

        self._spawn(admitted())

    def _open_refusal(self, connection: Connection, message: p.OpenTable) -> tuple[str, str] | None:
        if connection.table is not None:
            return "busy", "leave your table first"
        return self._solo_limit(connection) if message.solo else self._table_limit(connection)

    def _open_now(
        self,
        connection: Connection,
        message: p.OpenTable,
        game: Any,
        seats: list[SeatConfig],
        options: Any,
        takeover: str,
    ) -> None:
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
        if self._caps is not None and not table.public and not table.solo:
            self._spawn(self._file_code(table, index=True))

    async def _file_code(self, table: Table, index: bool) -> None:
        """File a private table under its code for every host (or take it out: the table closed)."""
        from gamenight.tables.redis_store import StoreError

        caps = self._caps
        if caps is None:
            return
        try:
            if not index:
                return await bounded(caps.unindex(table.code, table.id), "a code taken out")
            if not await bounded(caps.index(table.code, table.id), "a code filed"):
                log.warning("table %s: the index of codes is full; its code works on this host only", table.id)
        except StoreError as error:
            log.warning("table %s: its code: %s", table.id, safe_text(error, limit=200))

    def _forget(self, table: Table, why: str) -> None:
        """Close ``table``: its driver stops, its files go; anyone still watching it is told and let go."""
        if self.tables.get(table.id) is not table:
            return
        del self.tables[table.id]
        if self._caps is not None:
            self._caps_wake.set()  # every host sees the table gone at once
            if not table.public and not table.solo:
                self._spawn(self._file_code(table, index=False))
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

    def _matching(self, message: p.Join | p.Watch) -> Table | None:
        """The table here that ``message`` names: by id (a private one's code right too), or by code alone."""
        table = self.tables.get(message.table) if message.table else self._by_code(message.code)
        if table is None or (not table.public and not _same_code(message.code, table.code)):
            return None
        return table

    def _by_code(self, code: str) -> Table | None:
        """The private table whose short code is ``code`` (a code alone, typed in a lobby)."""
        for table in self.tables.values():
            if code and not table.public and _same_code(code, table.code):
                return table
        return None

    def _reach(
        self,
        connection: Connection,
        message: p.Join | p.Watch,
        then: Callable[[Connection, Any, Table], None],
    ) -> None:
        """Find the table ``message`` names and go on with ``then``, or refuse.  A code tried (a private
        table's id, or a code alone) counts against the wrong codes of the identity and address (on every
        host, with the tables in Redis) and is forgiven when it was right; a code alone that names no table
        here is looked up in the index every host shares, and the room relayed to the table's host."""
        table = self.tables.get(message.table) if message.table else None
        if table is not None and table.public:
            return then(connection, message, table)
        if message.table and table is None:
            return self._refuse(connection, "no-table", "no such table (or a wrong code)", fatal=False)
        windows = self._code_windows(connection)
        names = [name for name, _cap in windows]
        local = self._code_tries.take(windows, CODE_WINDOW)
        if local is None:
            return self._refuse(connection, "code-limit", "too many wrong codes: try again later", fatal=False)
        if self._caps is None:
            table = self._matching(message)
            if table is None:
                return self._refuse(connection, "no-table", "no such table (or a wrong code)", fatal=False)
            self._code_tries.forgive(names, local)
            return then(connection, message, table)
        self._spawn(self._reach_shared(connection, message, then, windows, local))

    async def _reach_shared(
        self,
        connection: Connection,
        message: p.Join | p.Watch,
        then: Callable[[Connection, Any, Table], None],
        windows: list[tuple[str, int]],
        local: int,
    ) -> None:
        from gamenight.tables.redis_store import StoreError

        caps = self._caps
        assert caps is not None
        names = [name for name, _cap in windows]
        shared: str | None = ""  # "": Redis away, this host's count alone holds
        try:
            shared = await bounded(caps.try_code(windows, CODE_WINDOW), "a code's try")
        except StoreError as error:
            log.warning("wrong codes: %s; this host's own count holds", safe_text(error, limit=200))
        if shared is None:
            self._code_tries.forgive(names, local)
            self._refuse(connection, "code-limit", "too many wrong codes: try again later", fatal=False)
            return self._flush(connection)
        table, elsewhere = self._matching(message), None
        if table is None and not message.table:
            try:
                elsewhere = await bounded(caps.lookup(message.code), "a code's table")
            except StoreError as error:
                log.warning("a code's table: %s", safe_text(error, limit=200))
        if connection.closed:
            return
        if table is not None and self.tables.get(table.id) is not table:
            table = None  # closed meanwhile
        if table is None and (elsewhere is None or elsewhere in self.tables):
            self._refuse(connection, "no-table", "no such table (or a wrong code)", fatal=False)
            return self._flush(connection)
        self._code_tries.forgive(names, local)
        if shared:
            self._spawn(self._forgive_shared(caps, names, shared))
        if table is not None:
            then(connection, message, table)
        elif not self._take_for(connection, msgspec.structs.replace(message, table=elsewhere)):
            self._refuse(connection, "no-table", "no such table (or a wrong code)", fatal=False)
        self._flush(connection)

    def _join(self, connection: Connection, message: p.Join) -> None:
        own = self.tables.get(message.table) if message.table else None
        if own is not None and own.solo:  # a person's own kept game: theirs alone, no code needed
            held = own.seat_of(connection.identity)
            if held is None:
                return self._refuse(connection, "no-table", "no such table (or a wrong code)", fatal=False)
            return self._sit(connection, own, held)
        self._reach(connection, message, self._join_at)

    def _join_at(self, connection: Connection, message: p.Join, table: Table) -> None:
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
                log.info("table %s: %s sits again at seat %d on a new connection", table.id, connection.identity, seat)
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
        self._reach(connection, message, self._watch_at)

    def _watch_at(self, connection: Connection, message: p.Watch, table: Table) -> None:
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


def _same_code(typed: str, code: str) -> bool:
    """``typed`` is the table's ``code`` (any case), compared in constant time."""
    return bool(code) and hmac.compare_digest(typed.upper().encode(), code.encode())
