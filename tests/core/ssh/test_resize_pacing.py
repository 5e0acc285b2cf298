"""A storm of resizes reaches the room at most once per RESIZE_INTERVAL: counted on a fake clock.

The session's clock (``time.monotonic``) and its timers (``loop.call_later``) are replaced by one
simulated clock, so the pacing is checked exactly, whatever the machine's load.
"""

from __future__ import annotations

import heapq
import types
from collections.abc import Callable

import gamenight.ssh.sessions as sessions
from gamenight.ssh.sessions import RESIZE_DELAY, RESIZE_INTERVAL, GameSession


class SimulatedLoop:
    """``time.monotonic`` and ``call_later`` on one clock that moves when :meth:`advance` says."""

    def __init__(self) -> None:
        self.now = 100.0
        self._timers: list[tuple[float, int, Callable[[], None]]] = []
        self._count = 0

    def monotonic(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Callable[[], None]) -> types.SimpleNamespace:
        self._count += 1
        heapq.heappush(self._timers, (self.now + delay, self._count, callback))
        return types.SimpleNamespace(cancel=lambda: None)

    def advance(self, seconds: float) -> None:
        until = self.now + seconds
        while self._timers and self._timers[0][0] <= until:
            when, _, callback = heapq.heappop(self._timers)
            self.now = when
            callback()
        self.now = until


class Room:
    def __init__(self) -> None:
        self.sizes: list[tuple[int, int]] = []

    def resize(self, width: int, height: int) -> None:
        self.sizes.append((width, height))


def session_on(loop: SimulatedLoop, monkeypatch) -> tuple[GameSession, Room]:
    monkeypatch.setattr(sessions, "time", types.SimpleNamespace(monotonic=loop.monotonic))
    monkeypatch.setattr(sessions, "asyncio", types.SimpleNamespace(get_running_loop=lambda: loop))
    session = GameSession(types.SimpleNamespace(hub=None))
    room = Room()
    session.room = room  # type: ignore[assignment]
    return session, room


def test_a_storm_of_resizes_reaches_the_room_once_per_interval_and_the_last_size_wins(monkeypatch):
    loop = SimulatedLoop()
    session, room = session_on(loop, monkeypatch)
    for sent in range(1000):  # 1,000 resizes, one every 3 ms: 3 s
        session.terminal_size_changed(40 + sent % 100, 10 + sent % 50, 0, 0)
        loop.advance(0.003)
    session.terminal_size_changed(123, 45, 0, 0)
    loop.advance(1.0)
    assert room.sizes[-1] == (123, 45)
    # the first after RESIZE_DELAY, then one per RESIZE_INTERVAL: 13 in these 3 s, and the last one
    assert len(room.sizes) <= 1 + 3.0 / RESIZE_INTERVAL + 2, len(room.sizes)
    assert len(room.sizes) >= 3.0 / RESIZE_INTERVAL - 1  # and it keeps passing them on


def test_a_single_resize_reaches_the_room_after_the_short_delay(monkeypatch):
    loop = SimulatedLoop()
    session, room = session_on(loop, monkeypatch)
    session.terminal_size_changed(100, 30, 0, 0)
    loop.advance(RESIZE_DELAY * 0.9)
    assert room.sizes == []
    loop.advance(RESIZE_DELAY * 0.2)
    assert room.sizes == [(100, 30)]
