"""Time as an injectable dependency, so triggers and expiry are testable without sleeping."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    """Anything that can tell the current time as a Unix timestamp (seconds, UTC)."""

    def now(self) -> float: ...


class SystemClock:
    """The wall clock."""

    def now(self) -> float:
        return time.time()


class ManualClock:
    """A clock that only moves when told to; for tests."""

    def __init__(self, start: float = 1_770_400_000.0) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += seconds

    def set(self, timestamp: float) -> None:
        self._now = timestamp


def iso_utc(timestamp: float) -> str:
    """Format a Unix timestamp as an ISO-8601 UTC string with a trailing Z."""
    try:
        return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, OSError, ValueError, TypeError):
        # A time no calendar can hold (NaN, far future) from an old record: shown, not fatal.
        return f"(invalid time {timestamp!r})"


def parse_iso(value: str) -> float | None:
    """Parse an ISO-8601 string (naive strings are taken as UTC); None when unparsable."""
    text = value.strip()
    if not text:
        return None
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()
