"""The wire protocol on its own: frames, validation, rate limits."""

from __future__ import annotations

import asyncio
import struct

import msgspec
import pytest
from gamenight.tables import protocol as p
from hypothesis import given, settings
from hypothesis import strategies as st


def payload(message) -> bytes:
    return p.encode(message)[4:]


def raw_payload(**fields) -> bytes:
    return msgspec.msgpack.encode(fields)


@pytest.mark.parametrize(
    "message",
    [
        p.Hello(1),
        p.ListTables(),
        p.Join("ab12"),
        p.Watch("ab12", "F00"),
        p.Leave(),
        p.Start(),
        p.OpenTable("seven", [p.SeatSpec("person"), p.SeatSpec("bot", "random")], {"x": 1}, False, 60),
        p.Move("play:7S", 12),
        p.Chat("hello"),
        p.Ack("hand-1"),
    ],
)
def test_every_client_message_round_trips(message):
    assert p.decode_client(payload(message)) == message


@pytest.mark.parametrize(
    "fields",
    [
        {"type": "nope"},
        {"type": "move", "action": "", "turn": 1},
        {"type": "move", "action": "x" * 129, "turn": 1},
        {"type": "move", "action": "draw", "turn": -1},
        {"type": "move", "action": "draw", "turn": "1"},
        {"type": "move", "action": "draw", "turn": 1, "seat": 3},  # no field names a seat
        {"type": "open", "game": "seven", "seats": [], "timer": 0},
        {"type": "open", "game": "seven", "seats": [{"kind": "person"}], "timer": 45},
        {"type": "open", "game": "../etc", "seats": [{"kind": "person"}]},
        {"type": "open", "game": "seven", "seats": [{"kind": "god"}]},
        {"type": "open", "game": "seven", "seats": [{"kind": "person"}] * 17},
        {"type": "open", "game": "seven", "seats": [{"kind": "person"}], "options": {"k": [1, 2]}},
        {"type": "join", "table": "a/../b"},
        {"type": "join", "table": "ab", "seat": 99},
        {"type": "chat", "text": ""},
        {"type": "hello", "version": 10**9},
    ],
)
def test_malformed_messages_are_refused_with_a_reason(fields):
    with pytest.raises(p.ProtocolError, match="invalid message"):
        p.decode_client(raw_payload(**fields))


@pytest.mark.parametrize("data", [b"", b"\xc1", b"\x92\x01", b"\xff" * 20, b"\xdd\xff\xff\xff\xff"])
def test_bytes_that_are_not_a_message_are_refused(data):
    with pytest.raises(p.ProtocolError):
        p.decode_client(data)


async def test_a_frame_over_the_cap_is_refused_without_reading_it():
    reader = asyncio.StreamReader()
    reader.feed_data(struct.pack(">I", p.CLIENT_FRAME_CAP + 1))
    with pytest.raises(p.ProtocolError, match="limit"):
        await p.read_frame(reader, p.CLIENT_FRAME_CAP)


async def test_a_stream_cut_inside_a_frame_is_an_error_but_a_clean_end_is_not():
    reader = asyncio.StreamReader()
    reader.feed_data(struct.pack(">I", 10) + b"abc")
    reader.feed_eof()
    with pytest.raises(p.ProtocolError, match="inside a frame"):
        await p.read_frame(reader, p.CLIENT_FRAME_CAP)
    clean = asyncio.StreamReader()
    clean.feed_eof()
    assert await p.read_frame(clean, p.CLIENT_FRAME_CAP) is None


def test_the_rate_limiter_allows_a_burst_then_the_rate():
    now = [0.0]
    limiter = p.RateLimiter(rate=2, burst=3, clock=lambda: now[0])
    assert [limiter.allow() for _ in range(4)] == [True, True, True, False]
    now[0] += 0.5
    assert limiter.allow() and not limiter.allow()
    now[0] += 100
    assert sum(limiter.allow() for _ in range(10)) == 3


# -- hostile payloads: every decoder failure is a ProtocolError -------------------------------------

DEEP_MAP = b"\x81\xa1a" * 20000 + b"\xc0"
"""A 60 KB frame of maps nested 20,000 deep: deeper than the decoder follows."""
DEEP_ARRAY_IN_A_FIELD = b"\x82\xa4type\xa4chat\xa4text" + b"\x91" * 20000 + b"\xc0"
HUGE_INT = b"\x82\xa4type\xa5hello\xa7version\xcf" + b"\xff" * 8
HUGE_NEGATIVE = b"\x82\xa4type\xa5hello\xa7version\xd3\x80" + b"\x00" * 7


@pytest.mark.parametrize("decode", [p.decode_client, p.decode_service])
@pytest.mark.parametrize(
    "frame",
    [DEEP_MAP, DEEP_ARRAY_IN_A_FIELD, b"\x91" * 60000 + b"\xc0", HUGE_INT, HUGE_NEGATIVE, b"\x81", b"\xdb\xff\xff"],
    ids=["deep-map", "deep-array-in-a-field", "deep-array", "huge-int", "huge-negative", "truncated", "short-str"],
)
def test_deep_nesting_huge_numbers_and_truncation_are_protocol_errors(decode, frame):
    with pytest.raises(p.ProtocolError):
        decode(frame)


def _nested(depth: int, leaf: bytes, kind: int) -> bytes:
    opener = {0: b"\x81\xa1a", 1: b"\x91", 2: b"\x82\xa4type\xa4chat\xa4text"}[kind]
    return opener * depth + leaf


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.binary(max_size=256),
        st.builds(
            _nested,
            st.integers(0, 30000),
            st.sampled_from([b"\xc0", b"\xcf\xff", b"\xd9\x05ab", b"\x81", b"\xcb" + b"\xff" * 8, b""]),
            st.integers(0, 2),
        ),
        st.builds(
            lambda tag, value: msgspec.msgpack.encode({"type": tag, "version": value, "text": value, "turn": value}),
            st.sampled_from(["hello", "chat", "move", "open", "join", "nope"]),
            st.one_of(
                st.integers(-(2**63), 2**64 - 1),
                st.floats(allow_nan=True),
                st.text(max_size=300),
                st.lists(st.integers(-(2**63), 2**64 - 1), max_size=5),
                st.none(),
            ),
        ),
    ),
    st.integers(0, 64),
)
def test_any_payload_decodes_or_is_a_protocol_error(frame, cut):
    for decode in (p.decode_client, p.decode_service):
        for payload in (frame, frame[: max(0, len(frame) - cut)]):  # whole, and truncated
            try:
                decode(payload)
            except p.ProtocolError:
                pass
