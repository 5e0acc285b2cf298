"""The shared tables' wire protocol: versioned, validated, bounded messages.

A connection carries *frames*: a 4-byte big-endian length, then that many
bytes of MessagePack holding one message.  Every message is a tagged
``msgspec.Struct``; decoding checks every field's type, length and range, so
what reaches :mod:`gamenight.tables.service` is always well formed.  Anything
else -- garbage, a frame over the size cap, an unknown message, a field out of
range, a wrong protocol version -- raises :class:`ProtocolError` with a short
reason, and the service answers with an :class:`Error` and hangs up.

The protocol has no notion of *who* is speaking: the server that sets up a
connection (one socketpair per SSH session) tells the service the identity it
belongs to, so a room cannot claim to be someone else.
"""

from __future__ import annotations

import asyncio
import struct
import time
from typing import Annotated, Any, Literal

import msgspec

__all__ = [
    "CLIENT_FRAME_CAP",
    "PROTOCOL_VERSION",
    "SERVICE_FRAME_CAP",
    "Ack",
    "Again",
    "Chat",
    "ChatLine",
    "ClientMessage",
    "Error",
    "Event",
    "Finished",
    "HallGame",
    "HallName",
    "HallOfFame",
    "HallQuery",
    "HallScore",
    "HallSeat",
    "Hello",
    "InterludeInfo",
    "Join",
    "KeptTables",
    "Leave",
    "ListKept",
    "ListTables",
    "Move",
    "OpenTable",
    "ProtocolError",
    "RateLimiter",
    "Reason",
    "SeatInfo",
    "SeatSpec",
    "ServiceMessage",
    "Snapshot",
    "SoloGame",
    "Start",
    "TableInfo",
    "TableList",
    "Watch",
    "Welcome",
    "decode_client",
    "decode_service",
    "encode",
    "read_frame",
    "write_frame",
]

PROTOCOL_VERSION = 1
"""Bumped on any incompatible change; a Hello with another version is refused."""

CLIENT_FRAME_CAP = 64 * 1024
"""Largest frame a client may send (bytes).  No legitimate message comes near it."""

SERVICE_FRAME_CAP = 1024 * 1024
"""Largest frame the service sends (a snapshot with a long public log)."""

_HEADER = struct.Struct(">I")

Short = Annotated[str, msgspec.Meta(max_length=64)]
TableId = Annotated[str, msgspec.Meta(min_length=1, max_length=16, pattern=r"^[A-Za-z0-9]+$")]
Code = Annotated[str, msgspec.Meta(max_length=16, pattern=r"^[A-Za-z0-9]*$")]
GameId = Annotated[str, msgspec.Meta(min_length=1, max_length=32, pattern=r"^[a-z0-9_-]+$")]
SeatNumber = Annotated[int, msgspec.Meta(ge=-1, le=15)]
OptionValue = bool | Annotated[int, msgspec.Meta(ge=-(2**31), le=2**31)] | Short


class ProtocolError(Exception):
    """A frame or message that breaks the protocol; the text says how (shown to the sender, logged)."""


# -- client -> service -------------------------------------------------------------


class Hello(msgspec.Struct, tag="hello", forbid_unknown_fields=True):
    """The first message of a connection: the protocol version the client speaks."""

    version: Annotated[int, msgspec.Meta(ge=0, le=1000)]


class ListTables(msgspec.Struct, tag="list", forbid_unknown_fields=True):
    """Ask for the public tables (answered with :class:`TableList`)."""


class SeatSpec(msgspec.Struct, forbid_unknown_fields=True):
    """One seat of a table being opened: for a person, or for a bot (``bot`` names it)."""

    kind: Literal["person", "bot"]
    bot: Short = ""


MAX_BOT_DELAY = 3.0
"""Longest pause before a bot's move a solo table takes from the room's setting (seconds)."""
MAX_KEPT = 5
"""Solo tables one person may keep on a server; opening another closes their oldest."""


class OpenTable(msgspec.Struct, tag="open", forbid_unknown_fields=True):
    """Open a table; the opener takes the first person seat and is its host."""

    game: GameId
    seats: Annotated[list[SeatSpec], msgspec.Meta(min_length=1, max_length=16)]
    options: Annotated[dict[Short, OptionValue], msgspec.Meta(max_length=32)] = {}
    public: bool = True
    timer: Literal[0, 30, 60, 300] = 0
    solo: bool = False
    """A private game of one person against bots, run here (chance and bots on the server):
    unlisted, started at once, and kept while its person is away (no bot takes the seat);
    the person comes back to it from :class:`ListKept`."""
    bot_delay: Annotated[float, msgspec.Meta(ge=0, le=MAX_BOT_DELAY)] = 0.0
    """At a solo table: seconds each bot move waits, so it plays at the pace of a local game."""


class ListKept(msgspec.Struct, tag="kept", forbid_unknown_fields=True):
    """Ask for this person's solo tables kept on the server (answered with :class:`KeptTables`)."""


class Join(msgspec.Struct, tag="join", forbid_unknown_fields=True):
    """Sit at a table (``seat`` -1: any free person seat); ``code`` for a private one.

    With ``table`` empty, ``code`` alone names the table (a private table's
    short code, typed in the lobby)."""

    table: Annotated[str, msgspec.Meta(max_length=16, pattern=r"^[A-Za-z0-9]*$")]
    seat: SeatNumber = -1
    code: Code = ""


class Watch(msgspec.Struct, tag="watch", forbid_unknown_fields=True):
    """Watch a table (public view only)."""

    table: TableId
    code: Code = ""


class Leave(msgspec.Struct, tag="leave", forbid_unknown_fields=True):
    """Leave the table: a seat goes to the table's bot (the person may reclaim it)."""


class Start(msgspec.Struct, tag="start", forbid_unknown_fields=True):
    """The host starts the game now, the free seats played by the table's bot."""


class Move(msgspec.Struct, tag="move", forbid_unknown_fields=True):
    """Take ``action`` for one's own seat; ``turn`` is the move number the client saw."""

    action: Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
    turn: Annotated[int, msgspec.Meta(ge=0, le=10_000_000)]


class Chat(msgspec.Struct, tag="chat", forbid_unknown_fields=True):
    """One line of chat to the table (sanitised and bounded by the service)."""

    text: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]


class Again(msgspec.Struct, tag="again", forbid_unknown_fields=True):
    """At a finished table: play again with the same seats (once every seated person asked)."""


class Ack(msgspec.Struct, tag="ack", forbid_unknown_fields=True):
    """The seat saw the pause ``key`` (end of a hand): play may go on once every person has."""

    key: Short


MAX_SOLO_LOG = 4000
"""Most actions a finished solo game sent for the server's records may hold (a Yatzy game takes ~100)."""

Action = Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
LogSeat = Annotated[int, msgspec.Meta(ge=-1, le=15)]


class SoloGame(msgspec.Struct, tag="solo", forbid_unknown_fields=True):
    """Retired: a game a room played on its own, sent for the server's records.

    A room's chance can be foreseen from its save, so the service refuses it
    (``solo-retired``) and records nothing: a hosted solo game is played at a
    solo table (``OpenTable(solo=True)``), chance and bots on the server.  Still
    decoded, so an older room gets that clear refusal, not a protocol error.
    """

    game: GameId
    plugin_version: Short
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]
    game_number: Annotated[int, msgspec.Meta(ge=0, le=100_000)]
    bots: Annotated[list[Short], msgspec.Meta(min_length=1, max_length=16)]
    log: Annotated[list[tuple[LogSeat, Action]], msgspec.Meta(max_length=MAX_SOLO_LOG)]
    options: Annotated[dict[Short, OptionValue], msgspec.Meta(max_length=32)] = {}


class HallQuery(msgspec.Struct, tag="hall", forbid_unknown_fields=True):
    """Ask for the hall of fame: ``game``'s best scores and the latest finished games."""

    game: GameId


class HallName(msgspec.Struct, tag="hall-name", forbid_unknown_fields=True):
    """Whether this person's name shows in the hall of fame (else "anonymous"); their setting."""

    shown: bool


ClientMessage = (
    Hello
    | ListTables
    | OpenTable
    | Join
    | Watch
    | Leave
    | Start
    | Move
    | Chat
    | Ack
    | Again
    | SoloGame
    | ListKept
    | HallQuery
    | HallName
)


# -- service -> client -------------------------------------------------------------


class Welcome(msgspec.Struct, tag="welcome"):
    version: int
    name: str
    """The name this connection plays under (given by the server)."""


class SeatInfo(msgspec.Struct):
    name: str
    bot: bool
    """True when a bot plays the seat now (a bot seat, or a person's seat taken over)."""
    person: bool
    """True when a person holds (or may take) the seat."""
    taken: bool
    away: bool


class TableInfo(msgspec.Struct):
    table: str
    game: str
    options: dict[str, Any]
    seats: list[SeatInfo]
    status: Literal["waiting", "playing", "over"]
    to_move: int
    watchers: int
    timer: float
    """Seconds a person has for a move (0: no timer)."""
    public: bool
    solo: bool = False
    """A person's solo game against bots: kept while they are away, never listed."""


class TableList(msgspec.Struct, tag="tables"):
    tables: list[TableInfo]


class KeptTables(msgspec.Struct, tag="kept-tables"):
    """The answer to :class:`ListKept`: this person's unfinished solo tables, oldest first."""

    tables: list[TableInfo]


class InterludeInfo(msgspec.Struct):
    key: str
    title: str
    scores: list[float]
    lines: list[tuple[str, list[float | str]]]
    waiting: list[int]
    """The seats whose person has not acknowledged yet."""


class Snapshot(msgspec.Struct, tag="snapshot"):
    """Everything one connection may know of its table now."""

    table: TableInfo
    seat: int
    """The connection's seat, or ``gamenight.sdk.OBSERVER`` for a watcher."""
    code: str
    view: Any
    """``rules.view(state, seat)`` as plain data (tuples become lists)."""
    legal: list[str]
    """The seat's legal actions when it is to move, else empty."""
    turn: int
    """The move number (length of the log): a :class:`Move` names it."""
    log: list[tuple[int, str]]
    """Public descriptions of the moves ``log_start`` onwards: ``(seat, text)``.

    The first snapshot of a connection at a table starts at 0 (the whole log);
    later ones carry only what is new, so a long game does not resend it."""
    log_start: int
    scores: list[float] | None
    totals: list[float]
    interlude: InterludeInfo | None
    outcome: list[float] | None
    winners: list[int]
    deadline: float
    """Seconds left on the move timer (0: no timer running)."""
    again: list[int] = []
    """At a finished table: the seats whose person asked to play again."""
    host: bool = False
    """True for the connection of the table's host (who may start it before every seat is taken)."""
    outcome_lines: list[tuple[str, list[float | str]]] = []
    """A finished game's itemised result (``Outcome.lines``), for the end dialog as in a local game."""


class Event(msgspec.Struct, tag="event"):
    """A move's public description (``seat`` is who took it, -1 for chance)."""

    table: str
    turn: int
    seat: int
    text: str
    events: list[dict[str, Any]] = []
    """The move's public events (``PublicEvent.to_json()`` each): a room says them in its own
    language (``GameScreen.describe_events``) and a screen reacts to them (``on_events``)."""


class ChatLine(msgspec.Struct, tag="chatline"):
    table: str
    name: str
    """Who said it, as shown at that table (no two identities there share a name)."""
    text: str
    watching: bool = False
    """Said by a watcher (shown as "NAME (watching)")."""


class Finished(msgspec.Struct, tag="finished"):
    """A finished game's save document (TOML), sent to each seated person for their own saves."""

    table: str
    save: str


class Reason(msgspec.Struct):
    """Why the rules refused a move, as data (``IllegalAction.because(code, template, **params)``): the
    room says it in its own language, through the game's catalogue, as a local game does."""

    code: str
    template: str
    """The English sentence with ``{placeholders}`` (the game's message id); ``""``: only ``Error.message``."""
    params: dict[str, Any] = {}


class Error(msgspec.Struct, tag="error"):
    code: str
    message: str
    reason: Reason | None = None
    """For a refused move (``code`` "illegal"): the rules' reason as data."""


HALL_SIZE = 10
"""Entries in each list of the hall of fame."""


class HallScore(msgspec.Struct):
    rank: int
    score: float
    name: str
    """The player's name, or ``""`` for one who stays anonymous."""
    finished: float


class HallSeat(msgspec.Struct):
    name: str
    """A person's name (``""``: anonymous), or a bot's seat name."""
    bot: str
    """The bot's id, ``""`` for a person."""
    score: float
    won: bool


class HallGame(msgspec.Struct):
    game: str
    finished: float
    seats: list[HallSeat]


class HallOfFame(msgspec.Struct, tag="hall-of-fame"):
    """The answer to :class:`HallQuery` (at most :data:`HALL_SIZE` entries in each list)."""

    game: str
    available: bool
    """False when the server keeps no records (the lists are then empty)."""
    top: list[HallScore]
    recent: list[HallGame]


ServiceMessage = Welcome | TableList | KeptTables | Snapshot | Event | ChatLine | Finished | Error | HallOfFame

_encoder = msgspec.msgpack.Encoder()
_client_decoder = msgspec.msgpack.Decoder(ClientMessage)
_service_decoder = msgspec.msgpack.Decoder(ServiceMessage)


def encode(message: msgspec.Struct) -> bytes:
    """A message as one frame (length prefix included)."""
    payload = _encoder.encode(message)
    return _HEADER.pack(len(payload)) + payload


def _decode(decoder: msgspec.msgpack.Decoder[Any], payload: bytes) -> Any:
    """Every way a payload can fail to decode is a :class:`ProtocolError`: a wrong field, bytes that are
    not MessagePack, but also nesting too deep to follow (``RecursionError``) and numbers or lengths
    no type can hold (``ValueError``, ``OverflowError``) -- never an exception the caller does not expect."""
    try:
        return decoder.decode(payload)
    except msgspec.ValidationError as error:
        raise ProtocolError(f"invalid message: {str(error)[:160]}") from None
    except msgspec.DecodeError as error:
        raise ProtocolError(f"undecodable message: {str(error)[:160]}") from None
    except RecursionError:
        raise ProtocolError("undecodable message: nested too deeply") from None
    except (ValueError, OverflowError, TypeError, MemoryError) as error:
        raise ProtocolError(f"undecodable message: {type(error).__name__}: {str(error)[:120]}") from None


def decode_client(payload: bytes) -> ClientMessage:
    """A client's frame payload as a validated message; :class:`ProtocolError` otherwise."""
    return _decode(_client_decoder, payload)


def decode_service(payload: bytes) -> ServiceMessage:
    """The service's frame payload as a message; :class:`ProtocolError` otherwise."""
    return _decode(_service_decoder, payload)


async def read_frame(reader: asyncio.StreamReader, cap: int) -> bytes | None:
    """The next frame's payload; ``None`` at a clean end of stream.

    A length over ``cap`` raises :class:`ProtocolError` before anything of
    the body is read, so an attacker cannot make the reader buffer it.
    """
    try:
        header = await reader.readexactly(_HEADER.size)
    except asyncio.IncompleteReadError as error:
        if error.partial:
            raise ProtocolError("the stream ended inside a frame header") from None
        return None
    (size,) = _HEADER.unpack(header)
    if size > cap:
        raise ProtocolError(f"frame of {size} bytes is over the {cap}-byte limit")
    try:
        return await reader.readexactly(size)
    except asyncio.IncompleteReadError:
        raise ProtocolError("the stream ended inside a frame") from None


async def write_frame(writer: asyncio.StreamWriter, message: msgspec.Struct) -> None:
    writer.write(encode(message))
    await writer.drain()


class RateLimiter:
    """A token bucket: ``rate`` tokens a second, at most ``burst`` saved up."""

    def __init__(self, rate: float, burst: float, clock=time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.clock = clock
        self.stamp = clock()

    def allow(self, cost: float = 1.0) -> bool:
        """Take ``cost`` tokens if there are enough; False (taking none) when the sender is too fast."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < cost:
            return False
        self.tokens -= cost
        return True
