"""Times as the panes show them: local ``YYYY-MM-DD HH:MM``."""

from __future__ import annotations

from datetime import UTC, datetime

from curator.clock import parse_iso


def _local(stamp: float) -> str:
    return datetime.fromtimestamp(float(stamp), UTC).astimezone().strftime("%Y-%m-%d %H:%M")


def format_time(timestamp: float | None) -> str:
    """A Unix time as local ``YYYY-MM-DD HH:MM`` (empty when unknown)."""
    return _local(timestamp) if timestamp else ""


def short_time(value: str | float | None) -> str:
    """An ISO-8601 UTC string or a Unix time as local ``YYYY-MM-DD HH:MM`` (as given when unparsable)."""
    if isinstance(value, (int, float)):
        stamp: float | None = float(value) if value > 0 else None
    else:
        stamp = parse_iso(str(value or ""))
    return _local(stamp) if stamp is not None else str(value or "")
