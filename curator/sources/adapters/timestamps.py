"""Timestamps as chat clients write them, to UTC epoch seconds.

Clients disagree: epoch seconds or milliseconds, ISO-8601, SillyTavern's
``"June 3, 2024 6:03pm"`` and ``"2023-4-21 @20h 02m 47s 124ms"``, text-generation-webui's
``"May 03, 2026 14:05"``, go-sqlite3's ``"2026-01-01 12:00:00.123456789+01:00"``. Strings
without a zone are local time on the writer's machine; we read them as local time here,
which is right whenever the curator runs beside the client.
"""

from __future__ import annotations

import math
import re
from datetime import datetime
from typing import Any

from curator.clock import parse_iso

# Epochs before 2000 or after 2200 are not chat times: such a number is something else.
_MIN_EPOCH = 946684800.0
_MAX_EPOCH = 7258118400.0

_MERIDIEM_RE = re.compile(
    r"^([A-Za-z]+)\.?\s+(\d{1,2}),?\s+(\d{4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([ap]\.?m\.?)?$",
    re.IGNORECASE,
)
_ST_OLD_RE = re.compile(
    r"^(\d{4})-(\d{1,2})-(\d{1,2})\s*@\s*(\d{1,2})h\s*(\d{1,2})m\s*(\d{1,2})s(?:\s*(\d{1,3})ms)?$"
)
_GO_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?\s*(Z|[+-]\d{2}:?\d{2})?(?:\s+\S+)?$")
_MONTHS = {
    name: i + 1
    for i, names in enumerate(
        [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
         ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
         ("oct", "october"), ("nov", "november"), ("dec", "december")]
    )
    for name in names
}


def from_number(number: float) -> float | None:
    """Epoch seconds, milliseconds or microseconds, told apart by size; None when implausible."""
    if not math.isfinite(number) or number <= 0:
        return None
    for scale in (1.0, 1e3, 1e6):
        seconds = number / scale
        if _MIN_EPOCH <= seconds <= _MAX_EPOCH:
            return seconds
    return None


def _local(year: int, month: int, day: int, hour: int, minute: int, second: int = 0,
           micro: int = 0) -> float | None:
    try:
        return datetime(year, month, day, hour, minute, second, micro).timestamp()
    except (ValueError, OverflowError, OSError):
        return None


def _meridiem(match: re.Match[str]) -> float | None:
    month = _MONTHS.get(match.group(1).lower())
    if month is None:
        return None
    hour, minute = int(match.group(4)), int(match.group(5))
    marker = (match.group(7) or "").replace(".", "").lower()
    if marker:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if marker == "pm" else 0)
    return _local(int(match.group(3)), month, int(match.group(2)), hour, minute, int(match.group(6) or 0))


def _go(match: re.Match[str]) -> float | None:
    frac = (match.group(3) or "")[:7]  # Python takes at most microseconds
    zone = match.group(4) or ""
    if zone and zone != "Z" and ":" not in zone:
        zone = zone[:3] + ":" + zone[3:]
    return parse_iso(f"{match.group(1)}T{match.group(2)}{frac}{zone}")


def parse_time(value: Any) -> float | None:
    """UTC epoch seconds of a client's timestamp, or None when it cannot be read."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return from_number(float(value))
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text or len(text) > 64:
        return None
    if len(text) > 10 and text[4] == "-" and text[10] in "T ":
        # ISO-8601, what most clients write. No number and neither client pattern can hold a
        # "-" at 4 and a "T" or space at 10 and still match, so trying ISO first decides what
        # the long way decides, without a failed float() and two regexes per message.
        parsed = parse_iso(text)
        if parsed is not None:
            return parsed
    return parse_time_text(text)


def parse_time_text(text: str) -> float | None:
    """``parse_time`` of stripped text of at most 64 characters, each format tried in turn."""
    try:
        return from_number(float(text))
    except ValueError:
        pass
    match = _MERIDIEM_RE.match(text)
    if match:
        return _meridiem(match)
    match = _ST_OLD_RE.match(text)
    if match:
        y, mo, d, h, mi, s = (int(match.group(i)) for i in range(1, 7))
        return _local(y, mo, d, h, mi, s, int(match.group(7) or 0) * 1000)
    parsed = parse_iso(text)
    if parsed is not None:
        return parsed
    match = _GO_RE.match(text)
    return _go(match) if match else None
