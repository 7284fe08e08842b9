"""Small statistics for noisy timings: median, nearest-rank percentiles, a timer."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q``-th percentile (0 < q <= 100) of ``values``; NaN when empty.

    Nearest rank rather than interpolation: with few samples a p95 should be a value that
    was actually observed, not a blend of the two slowest runs.
    """
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100.0 * len(ordered)))
    return float(ordered[min(rank, len(ordered)) - 1])


def median(values: Sequence[float]) -> float:
    """The median of ``values`` (mean of the two middle ones for an even count); NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return float(ordered[mid])
    return (ordered[mid - 1] + ordered[mid]) / 2.0


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    """Run ``fn`` and return its result with the elapsed wall-clock seconds."""
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def ms(seconds: float) -> float:
    """Seconds to milliseconds."""
    return seconds * 1000.0
