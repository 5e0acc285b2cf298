"""One table of the service: its match, who holds each seat, who watches (plain data, no behaviour of
the service), and the two questions about it that several parts of the service ask."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gamenight.match import Match
from gamenight.sdk import OBSERVER, GameInfo

if TYPE_CHECKING:
    from gamenight.tables.service import Connection

__all__ = ["Table", "names_but", "people_at_the_end"]


@dataclass
class Table:
    """One shared table: its match, who holds each seat, who watches."""

    id: str
    game: GameInfo
    match: Match
    persons: list[bool]
    """Per seat: True when the seat is for a person (False: a bot seat from the start)."""
    owners: list[str | None]
    """Per person seat: the identity holding it (kept while a bot stands in)."""
    names: list[str]
    takeover_bot: str
    public: bool = True
    code: str = ""
    timer: float = 0
    host: str = ""
    address: str = ""
    """The address the host opened the table from (not saved: a restored table counts for no address)."""
    started: bool = False
    away: dict[int, float] = field(default_factory=dict)
    """Seats whose person dropped: since when (monotonic)."""
    acks: set[int] = field(default_factory=set)
    again: set[int] = field(default_factory=set)
    """At a finished table: the seats whose person asked to play again."""
    descriptions: list[tuple[int, str]] = field(default_factory=list)
    connections: list[Connection] = field(default_factory=list)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    deadline: float = 0.0
    driver: asyncio.Task[None] | None = None
    dirty: asyncio.Event = field(default_factory=asyncio.Event)
    saver: asyncio.Task[None] | None = None
    writing: asyncio.Future[None] | None = None
    """The saver's write under way in a thread: a write cannot be stopped, so closing waits for it."""
    forgotten: bool = False
    """Closed by :meth:`TableService._prune`: its saver deletes its files and stops."""
    solo: bool = False
    """One person against bots, opened from their lobby: unlisted, kept while they are away (no bot
    takes the seat), until the game ends or they open more than :data:`~gamenight.tables.protocol.MAX_KEPT`."""
    bot_delay: float = 0.0
    """Seconds each bot move waits at a solo table (the person's own setting, bounded)."""
    opened: float = field(default_factory=time.time)
    """When the table was opened (seconds since the epoch): the oldest kept solo table goes first."""
    epoch: int = 0
    """With the tables in Redis: the fencing epoch of this host's lease on the table (0: not taken yet)."""
    published: bytes = b""
    """With the tables in Redis: the table's summary as last written to the store's lobby (b"": none)."""
    inbox_reader: asyncio.Task[None] | None = None
    """With the tables in Redis: the reader of the messages other hosts relay to the table."""
    inbox_from: bytes = b"0-0"
    """The inbox entry after which the reader begins (a table taken over: the newest before its lease)."""
    reclaiming: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held while this host takes the table's lapsed lease back (its writer and renewer may both find it lapsed)."""
    outbox: list[tuple[str, Any]] = field(default_factory=list)
    """With the tables in Redis: the writes not made yet, in order (``("move", LogEntry)`` or
    ``("state", TableState)``); a frame that shows a move goes to no one before its write is made."""
    applied: int = 0
    """Moves applied here since the table was taken (with the tables in Redis)."""
    logged: int = 0
    """Of those, the moves written to Redis: while fewer than :attr:`applied`, frames to the table wait."""
    holding: list[Connection] = field(default_factory=list)
    """Connections whose frames wait for the table's moves to be written."""
    since_state: int = 0
    """Moves queued since the last state queued (the next move's place in the stored log)."""
    stored_doc: dict[str, Any] | None = None
    """The table's own document as last queued for Redis (a change of seats queues a new state)."""
    durable: asyncio.Event = field(default_factory=asyncio.Event)
    """Set while every applied move is written (the driver waits for it before the next bot move)."""
    renewer: asyncio.Task[None] | None = None
    gone: bool = False
    """Let go: another host runs the table now (or its lease lapsed); nothing here writes for it again."""
    store_down: bool = False
    """Its last write found the store unreachable (its players were told the table waits)."""
    wide_ints: bool = False
    """The game's views hold integers MessagePack cannot carry (LITS's bitboards): sent as decimal text."""

    def seat_of(self, identity: str) -> int | None:
        for seat, owner in enumerate(self.owners):
            if owner == identity:
                return seat
        return None

    def bot_plays(self, seat: int) -> bool:
        return self.match.seats[seat].bot is not None

    def status(self) -> str:
        if not self.started:
            return "waiting"
        return "over" if self.match.over else "playing"


def names_but(table: Table, identity: str, seat: int = OBSERVER) -> list[str]:
    """The names shown at ``table`` for everyone but ``identity`` (in ``seat``, or watching):
    the other seats' (a free seat's and a bot's too) and the other identities' watchers'."""
    names = [name for s, name in enumerate(table.names) if s != seat and table.owners[s] != identity]
    names += [c.shown for c in table.connections if c.seat == OBSERVER and c.identity != identity and c.shown]
    return names


def people_at_the_end(table: Table) -> bool:
    """True when a person still holds a seat of ``table``'s finished game (not the table's bot standing
    in for one who left).  A game the bots finished alone is no one's: it stays out of the records and
    the hall of fame ("Expert 5400 Expert 1550" in the latest games, seconds after both people left)."""
    return any(owner is not None and not table.bot_plays(seat) for seat, owner in enumerate(table.owners))
