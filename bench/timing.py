"""Shared by the bench scripts: time an action and print one Markdown table row."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def measure(label: str, action: Callable[[], object], runs: int) -> str:
    """``| label | median | IQR | max |`` of ``runs`` wall-clock timings of ``action``, in milliseconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    q1, _median, q3 = statistics.quantiles(times, n=4)
    return f"| {label} | {statistics.median(times):.2f} ms | {q1:.2f}–{q3:.2f} ms | {max(times):.2f} ms |"


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values``, interpolated between the two nearest ranks."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
