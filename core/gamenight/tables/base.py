"""What the parts of :class:`~gamenight.tables.service.TableService` share, declared once for a type checker.

The service is one object written in parts, one module each (seats, moves, views, driver, limits,
records_link, persist, authority), composed in :mod:`gamenight.tables.service`.  Each part uses the service's state
(set by ``TableService.__init__``) and calls the other parts' methods; :class:`_ServiceBase`, which every
part inherits, declares that state and those methods, so mypy checks each part on its own and checks the
parts' methods against these declarations.  Nothing here exists at run time but the annotations: the
methods are the parts' own, and the state is set in ``TableService.__init__``.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from gamenight.tables import protocol as p

if TYPE_CHECKING:
    from gamenight.match import Match
    from gamenight.plugins import Registry
    from gamenight.tables.limits import CodeTries
    from gamenight.tables.relay import OutboxReader
    from gamenight.tables.service import Connection
    from gamenight.tables.shared_caps import SharedCaps
    from gamenight.tables.table import Table


class _ServiceBase:
    """The state and methods the parts of :class:`~gamenight.tables.service.TableService` share."""

    # -- the state, set in TableService.__init__ ----------------------------------------------
    registry: Registry
    records_url: str | None
    tables_per_identity: int
    tables_per_address: int
    data_dir: Path | None
    keep_records: bool
    records: Any
    """The open records store (:mod:`gamenight.records.backends`), used only in :attr:`_db`'s thread."""
    _db: ThreadPoolExecutor | None
    _db_tasks: set[asyncio.Future[Any]]
    _halls: dict[str, p.HallOfFame]
    _shown: dict[str, bool]
    away_timeout: float
    message_rate: tuple[float, float]
    bot_time_budget: float
    tables: dict[str, Table]
    connections: list[Connection]
    _seeds: random.Random | None
    _list_pending: bool
    _closing: bool
    _later: Callable[[float, Callable[[], None]], object]
    refusals: list[tuple[str, str]]
    # with --tables-url (authority.py)
    tables_url: str | None
    store: Any
    """The :class:`~gamenight.tables.redis_store.RedisTableStore`, or ``None``: no Redis."""
    _own_store: bool
    host_id: str
    lease_ttl: float
    renew_interval: float
    sweep_interval: float
    _taking: set[str]
    _takes: set[asyncio.Task[None]]
    _sweeper: asyncio.Task[None] | None
    lobby_interval: float
    _lobby_reader: asyncio.Task[None] | None
    _remote: dict[str, p.TableInfo]
    """Other hosts' public tables as last read from the store's lobby, by id (shown in this host's list)."""
    # relay.py
    _relayed: dict[tuple[str, str], Connection]
    """The connections other hosts relay to this host's tables, by (their host, their connection id)."""
    _relay_sending: dict[str, asyncio.Task[None]]
    _relay_tasks: set[asyncio.Task[None]]
    _outbox_readers: dict[str, OutboxReader]
    """This host's one reader of its relayed connections' outboxes per table, by table id."""
    # limits.py
    _caps: SharedCaps | None
    """With the tables in Redis: this host's tables counted with every host's, and the codes' index."""
    _caps_pending: Counter[str]
    _caps_task: asyncio.Task[None] | None
    _limit_tasks: set[asyncio.Task[None]]
    _code_tries: CodeTries
    _caps_wake: asyncio.Event
    _kept_written: dict[str, tuple[str, bytes]]

    if TYPE_CHECKING:  # the methods one part calls on another: each is defined by exactly one part

        @property
        def max_tables(self) -> int: ...
        @property
        def max_solo_tables(self) -> int: ...
        @property
        def solo_tables_per_address(self) -> int: ...

        # service.py
        def _refuse(
            self,
            connection: Connection,
            code: str,
            reason: str,
            fatal: bool = True,
            why: p.Reason | None = None,
            counted: bool = True,
        ) -> None: ...

        def _flush(self, connection: Connection) -> None: ...
        def _handle(self, connection: Connection, message: p.ClientMessage) -> None: ...
        def _connection(self, identity: str, name: str, writer: Any, address: str) -> Connection: ...

        # seats.py
        def _join(self, connection: Connection, message: p.Join) -> None: ...
        def _watch(self, connection: Connection, message: p.Watch) -> None: ...
        def _forget(self, table: Table, why: str) -> None: ...
        def _begin(self, table: Table, first: bool = True) -> None: ...
        def _sit(self, connection: Connection, table: Table, seat: int) -> None: ...
        def _detach(self, connection: Connection, dropped: bool) -> None: ...
        def _take_over(self, table: Table, seat: int) -> None: ...

        # moves.py
        def _apply(self, table: Table, action: str) -> None: ...
        def _send_saves(self, table: Table) -> None: ...

        # views.py
        def _changed(self, table: Table) -> None: ...
        def _broadcast(self, table: Table) -> None: ...
        def _send_snapshot(self, table: Table, connection: Connection) -> None: ...
        def _watchers_changed(self, table: Table) -> None: ...
        def _list_changed(self) -> None: ...
        def _info(self, table: Table) -> p.TableInfo: ...

        # driver.py
        def _launch(self, table: Table) -> None: ...
        def _waiting(self, table: Table) -> list[int]: ...

        # limits.py
        def _table_limit(self, connection: Connection) -> tuple[str, str] | None: ...
        def _solo_limit(self, connection: Connection) -> tuple[str, str] | None: ...
        def _kept(self, identity: str) -> list[Table]: ...
        def _keep_room_for_solo(self, connection: Connection) -> None: ...
        def _spawn(self, work: Coroutine[Any, Any, None]) -> None: ...
        async def _shared_limit(
            self, connection: Connection, solo: bool
        ) -> tuple[tuple[str, str] | None, list[str]]: ...
        def _caps_done(self, counted: list[str]) -> None: ...
        def _start_caps(self) -> None: ...
        async def _stop_caps(self) -> None: ...
        def _list_kept(self, connection: Connection) -> None: ...
        def _code_windows(self, connection: Connection) -> list[tuple[str, int]]: ...
        async def _forgive_shared(self, caps: SharedCaps, names: list[str], token: str) -> None: ...

        # records_link.py
        def _record_table(self, table: Table) -> None: ...

        # persist.py
        async def _save_loop(self, table: Table) -> None: ...
        def _documents(self, table: Table) -> tuple[dict[str, Any], dict[str, Any]]: ...
        def _table_document(self, table: Table) -> dict[str, Any]: ...
        def _table_from(self, document: dict[str, Any], match: Match) -> Table: ...

        # authority.py
        def _log_move(self, table: Table, seat: int, action: str) -> None: ...
        def _queue_state(self, table: Table) -> None: ...
        async def _keep(self, table: Table) -> None: ...
        def _take_for(self, connection: Connection, message: p.Join | p.Watch) -> bool: ...

        # relay.py
        def _relay_to(self, connection: Connection, message: p.Join | p.Watch) -> None: ...
        def _relay_send(
            self, connection: Connection, payload: bytes, kind: Literal["message", "gone"] = "message"
        ) -> None: ...
        def _end_relay(self, connection: Connection) -> None: ...
        async def _read_inbox(self, table: Table) -> None: ...
        async def _close_relays(self) -> None: ...
        async def _inbox_end(self, table_id: str) -> bytes: ...
