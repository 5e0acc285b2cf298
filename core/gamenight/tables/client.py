"""The client side of a shared table: a connection to the service, and a match-like face for screens.

:class:`TableClient` speaks the protocol over one stream (in a hosted room:
the socketpair the server gave the session) and keeps the latest
:class:`~gamenight.tables.protocol.Snapshot`.  :class:`RemoteTable` shows
that snapshot to a game screen through the members of
:class:`~gamenight.match.Match` the screens use (``grep -o
"self.match\\.[a-z_]*"`` over ``gamenight.ui.game_screen`` and the five
screens):

====================  ==================================================
seats, game, rules,   from the snapshot / the locally installed game
options, totals,
wins, display
to_move, over,        from the snapshot
legal_actions,
human_to_move,
bot_to_move
view(seat)            the snapshot's view, rebuilt as the game's view type
pending_interlude,    the snapshot's pause; acknowledging sends an Ack
acknowledge
apply(action)         sends a Move (the service answers with a snapshot)
log                   the public move descriptions
state                 **none**: a remote table has no full state; a screen
                      reading it raises (LITS, Mate, Mille, SEVEN, Yatzy
                      and GameScreen.describe/after_move do so today)
apply_chance,         the service's job: raise here
bot_choice,
start_game,
record_result
====================  ==================================================
"""

from __future__ import annotations

import asyncio
import contextlib
import typing
from collections.abc import Callable
from typing import Any

import msgspec

from gamenight.match import SeatConfig
from gamenight.sdk import OBSERVER, TERMINAL, GameInfo, Interlude, Outcome, PublicEvent
from gamenight.tables import protocol as p

__all__ = ["RemoteTable", "TableClient", "view_type"]


class TableClient:
    """One connection to the table service (any asyncio stream pair)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.snapshot: p.Snapshot | None = None
        self.log: list[tuple[int, str]] = []
        """The table's public move descriptions, put together from the snapshots."""
        self.events: list[p.Event] = []
        self.public_events: dict[int, tuple[str, list[PublicEvent]]] = {}
        """The latest game's moves' public events by turn (with the move's sentence, to match it
        against the snapshot's log: a new game's turn numbers start again)."""
        self.chats: list[p.ChatLine] = []
        self.errors: list[p.Error] = []
        self.finished: list[p.Finished] = []
        """Save documents of finished games at which this connection sat."""
        self.tables: list[p.TableInfo] = []
        self.kept: list[p.TableInfo] | None = None
        """This person's solo tables kept on the server (``None`` until :class:`~gamenight.tables.protocol.ListKept`
        is answered)."""
        self.received: list[p.ServiceMessage] = []
        self.name = ""
        self.closed = asyncio.Event()
        self._changed = asyncio.Condition()
        self._task: asyncio.Task[None] | None = None
        self.listeners: list[Callable[[p.ServiceMessage], None]] = []
        self.keep_all = False
        self.failure: Exception | None = None
        """Why the connection ended, when it was not a clean end of stream."""

    async def connect(self) -> TableClient:
        self._task = asyncio.create_task(self._read())
        await self.send(p.Hello(p.PROTOCOL_VERSION))
        return self

    async def send(self, message: msgspec.Struct) -> None:
        self.writer.write(p.encode(message))
        await self.writer.drain()

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(Exception):
            await self.writer.wait_closed()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def _read(self) -> None:
        try:
            while (frame := await p.read_frame(self.reader, p.SERVICE_FRAME_CAP)) is not None:
                message = p.decode_service(frame)
                if self.keep_all:
                    self.received.append(message)
                match message:
                    case p.Snapshot():
                        if message.log_start == 0:
                            self.log = [tuple(entry) for entry in message.log]  # type: ignore[misc]
                        elif message.log_start == len(self.log):
                            self.log.extend(tuple(entry) for entry in message.log)  # type: ignore[misc]
                        else:
                            raise p.ProtocolError("the service's log skipped entries")
                        self.snapshot = message
                    case p.Event():
                        self.events.append(message)
                        self.public_events[message.turn] = (message.text, _public_events(message.events))
                    case p.ChatLine():
                        self.chats.append(message)
                    case p.Error():
                        self.errors.append(message)
                    case p.Finished():
                        self.finished.append(message)
                    case p.TableList():
                        self.tables = message.tables
                    case p.KeptTables():
                        self.kept = message.tables
                    case p.Welcome():
                        self.name = message.name
                for listener in self.listeners:
                    listener(message)
                async with self._changed:
                    self._changed.notify_all()
        except (ConnectionError, OSError, p.ProtocolError) as error:
            self.failure = error
        finally:
            self.closed.set()
            async with self._changed:
                self._changed.notify_all()

    async def wait_for(self, predicate: Callable[[TableClient], Any], timeout: float = 10.0) -> Any:
        """Wait until ``predicate(self)`` is true (returns its value); TimeoutError otherwise."""

        async def waiting() -> Any:
            async with self._changed:
                while not (value := predicate(self)):
                    if self.closed.is_set():
                        raise ConnectionError("the service closed the connection")
                    await self._changed.wait()
                return value

        return await asyncio.wait_for(waiting(), timeout)


def _public_events(data: list[dict[str, Any]]) -> list[PublicEvent]:
    """The events of an Event message; one that is not a ``PublicEvent.to_json()`` is left out."""
    events = []
    for item in data:
        try:
            events.append(PublicEvent.from_json(item))
        except (ValueError, TypeError):
            continue
    return events


def view_type(game: GameInfo) -> Any:
    """The type ``game.rules.view`` returns (from its annotation), or None when it says nothing usable."""
    try:
        hints = typing.get_type_hints(type(game.rules).view)
    except Exception:
        return None
    kind = hints.get("return")
    return None if kind in (None, Any) or isinstance(kind, typing.TypeVar) else kind


class RemoteTable:
    """A shared table as a game screen sees it: the members of ``Match`` it uses, fed by snapshots."""

    def __init__(self, client: TableClient, game: GameInfo) -> None:
        self.client = client
        self.game = game
        self.display: dict[str, bool | int | str] = {}
        self._type = view_type(game)
        self._decoded: tuple[p.Snapshot, Any] | None = None
        """The last snapshot and its view, rebuilt once.  The snapshot itself is kept, not its ``id()``:
        a freed snapshot's id is soon a new one's, and the screen drew the old view (seen over real SSH)."""

    @property
    def _snap(self) -> p.Snapshot:
        if self.client.snapshot is None:
            raise RuntimeError("no snapshot from the table service yet")
        return self.client.snapshot

    # -- what a screen reads ------------------------------------------------------------------

    @property
    def rules(self) -> Any:
        return self.game.rules

    @property
    def state(self) -> Any:
        raise AttributeError("a shared table has no full state: draw from view(seat) and the public log")

    @property
    def seat(self) -> int:
        """The seat this room plays (``OBSERVER`` for a watcher)."""
        return self._snap.seat

    @property
    def seats(self) -> list[SeatConfig]:
        return [SeatConfig(info.name, "table" if info.bot else None) for info in self._snap.table.seats]

    @property
    def options(self) -> dict[str, Any]:
        return dict(self._snap.table.options)

    @property
    def totals(self) -> list[float]:
        return list(self._snap.totals)

    @property
    def wins(self) -> list[float]:
        return [0.0] * len(self._snap.table.seats)

    @property
    def log(self) -> list[tuple[int, str]]:
        """The public description of every move: ``(seat, text)``."""
        return list(self.client.log)

    def to_move(self) -> int:
        return self._snap.table.to_move

    def events_of(self, turn: int, text: str) -> list[PublicEvent]:
        """The public events of move number ``turn`` (1-based) whose sentence is ``text``; ``[]`` if not heard.

        A room that joins or comes back mid-game gets the earlier moves as sentences only."""
        heard = self.client.public_events.get(turn)
        return list(heard[1]) if heard is not None and heard[0] == text else []

    def last_events(self) -> list[PublicEvent]:
        """The public events of the latest move, as ``Match.last_events()`` (``[]`` if not heard)."""
        log = self.client.log
        return self.events_of(len(log), log[-1][1]) if log else []

    @property
    def over(self) -> bool:
        return self.to_move() == TERMINAL

    def legal_actions(self) -> list[str]:
        return list(self._snap.legal)

    def human_to_move(self) -> bool:
        """True when *this* room's person must act now."""
        return bool(self._snap.legal)

    def bot_to_move(self) -> bool:
        seat = self.to_move()
        return seat >= 0 and self._snap.table.seats[seat].bot

    def view(self, seat: int | None = None) -> Any:
        """This room's view (only its own seat's is ever sent), rebuilt as the game's view type.

        A watcher gets the public view whichever seat the screen draws from."""
        snap = self._snap
        if seat is not None and seat != snap.seat and snap.seat != OBSERVER:
            raise PermissionError(f"this room holds seat {snap.seat}, not {seat}")
        if self._decoded is not None and self._decoded[0] is snap:
            return self._decoded[1]
        view = snap.view
        if self._type is not None:
            view = msgspec.convert(view, self._type, strict=False)
        self._decoded = (snap, view)
        return view

    def pending_interlude(self) -> Interlude | None:
        info = self._snap.interlude
        if info is None:
            return None
        return Interlude(
            info.title, tuple(info.scores), tuple((label, tuple(values)) for label, values in info.lines), info.key
        )

    def outcome(self) -> Outcome:
        snap = self._snap
        if snap.outcome is None:
            raise RuntimeError("the game is not over")
        lines = tuple((label, tuple(values)) for label, values in snap.outcome_lines)
        return Outcome(tuple(snap.outcome), tuple(snap.winners), lines)

    # -- what a screen does ------------------------------------------------------------------

    def acknowledge(self, interlude: Interlude) -> None:
        self._send(p.Ack(interlude.key))

    def apply(self, action: str) -> None:
        """Send the move; the service's next snapshot shows its effect (or an Error says why not)."""
        self._send(p.Move(action, self._snap.turn))

    def _send(self, message: msgspec.Struct) -> None:
        if not self.client.closed.is_set():
            self.client.writer.write(p.encode(message))

    def chat(self, text: str) -> None:
        """Send one line of chat to the table."""
        self._send(p.Chat(text))

    def again(self) -> None:
        """Ask to play again with the same seats (the service starts once every person asked)."""
        self._send(p.Again())

    def start(self) -> None:
        """The host starts the waiting table now: the table's bot plays the free seats."""
        self._send(p.Start())

    @property
    def can_start(self) -> bool:
        """True for the host of a table still waiting for people."""
        snap = self._snap
        return snap.host and snap.table.status == "waiting"

    def leave(self) -> None:
        """Leave the table (a seat goes to the table's bot; the person may come back to it)."""
        self._send(p.Leave())

    @property
    def history(self) -> list[Any]:
        return []

    @property
    def away(self) -> list[int]:
        """The seats whose person's connection dropped."""
        return [seat for seat, info in enumerate(self._snap.table.seats) if info.away]

    @property
    def remote(self) -> bool:
        return True

    @property
    def code(self) -> str:
        """A private table's short code (shown to its seated players to share), else ``""``.

        A solo table has none to share: nobody else may sit there."""
        return "" if self._snap.table.solo else self._snap.code

    @property
    def solo(self) -> bool:
        """True at a solo table: this person against bots, the game kept on the server."""
        return self._snap.table.solo

    def record_result(self) -> Outcome:
        return self.outcome()

    def apply_chance(self) -> str:
        raise RuntimeError("the table service draws chance")

    def bot_choice(self, should_stop: Callable[[], bool] = lambda: False) -> str:
        raise RuntimeError("the table service runs the bots")

    def start_game(self) -> None:
        raise RuntimeError("the table service starts the next game")

    @property
    def watching(self) -> bool:
        return self._snap.seat == OBSERVER
