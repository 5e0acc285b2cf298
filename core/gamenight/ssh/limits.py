"""Rates: new connections per address (a sliding one-minute window) and token buckets."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

__all__ = ["RateLimiter", "TokenBucket"]


class RateLimiter:
    """At most ``per_minute`` new connections per address in any 60 seconds.

    Memory stays bounded: an address whose window has emptied is forgotten, and
    a refused attempt is not recorded (so a flood cannot extend its own ban).
    """

    WINDOW = 60.0

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic, window: float = 60.0) -> None:
        """``per_minute`` new events per address in any ``window`` seconds (a minute unless said)."""
        self.per_minute = per_minute
        self.WINDOW = window
        self._clock = clock
        self._seen: dict[str, deque[float]] = {}
        self._last_sweep = float("-inf")

    def allow(self, address: str) -> bool:
        """Record a new connection from ``address``; ``False`` when over the limit."""
        if self.per_minute <= 0:
            return True
        now = self._clock()
        if now - self._last_sweep >= 1.0:  # sweep every address at most once a second
            self._last_sweep = now
            self._forget_before(now - self.WINDOW)
        stamps = self._seen.setdefault(address, deque())
        while stamps and stamps[0] <= now - self.WINDOW:
            stamps.popleft()
        if len(stamps) >= self.per_minute:
            return False
        stamps.append(now)
        return True

    def _forget_before(self, cutoff: float) -> None:
        for address in list(self._seen):
            stamps = self._seen[address]
            while stamps and stamps[0] <= cutoff:
                stamps.popleft()
            if not stamps:
                del self._seen[address]

    def __len__(self) -> int:
        return len(self._seen)


class TokenBucket:
    """``rate`` units per second on average, up to ``burst`` at once (a token bucket).

    Used for the input a room accepts (bytes) and for log lines: what does not
    fit is refused, never queued, so nothing grows while a client floods.
    """

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._tokens = burst
        self._stamp = clock()

    def take(self, amount: float) -> bool:
        """Spend ``amount`` if that much is available now; ``False`` (nothing spent) if not."""
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now
        if amount > self._tokens:
            return False
        self._tokens -= amount
        return True
