"""The server's structured log: one JSON object per line, client-caused lines rate-limited."""

from __future__ import annotations

import json
import time
from typing import Any, TextIO

from gamenight.ssh.limits import TokenBucket

__all__ = ["EventLog"]


class EventLog:
    """One JSON object per line; strings from clients are truncated and escaped by json.

    Lines about what clients do are rate-limited over the whole server (``LINES_PER_SECOND``
    on average, ``LINES_BURST`` at once); a ``suppressed`` line later counts what was left out.
    The server's own events (start, stop, rooms, errors) are always written.
    """

    LINES_PER_SECOND = 50
    LINES_BURST = 500
    ALWAYS = frozenset({"listening", "stopping", "session_start", "session_end", "error", "suppressed"})

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._bucket = TokenBucket(self.LINES_PER_SECOND, self.LINES_BURST)
        self.suppressed = 0

    def __call__(self, event: str, **fields: Any) -> None:
        if event not in self.ALWAYS and not self._bucket.take(1):
            self.suppressed += 1
            return
        if self.suppressed:
            count, self.suppressed = self.suppressed, 0
            self._write({"ts": round(time.time(), 3), "event": "suppressed", "lines": count})
        record: dict[str, Any] = {"ts": round(time.time(), 3), "event": event}
        for key, value in fields.items():
            if isinstance(value, str) and len(value) > 200:
                value = value[:200] + "..."
            record[key] = value
        self._write(record)

    def _write(self, record: dict[str, Any]) -> None:
        try:
            self._stream.write(json.dumps(record, ensure_ascii=True) + "\n")
            self._stream.flush()
        except (OSError, ValueError):  # a closed log must never take the server down
            pass
