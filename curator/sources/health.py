"""A source's reading health in numbers, from the problems its units recorded.

Adapters report per unit (``ReadResult.problems`` and ``ReadResult.notes``); the index keeps
that text per unit. ``summarise`` turns it into counts for ``curator status`` and the Status
pane: lines skipped on purpose (not chat turns), turns without a readable time, and lines
or files that could not be understood.
"""

from __future__ import annotations

import re
from typing import Any

_SKIPPED_RE = re.compile(r"skipped (\d+) lines that are not chat turns")
_UNKNOWN_RE = re.compile(r"(\d+) turns have no readable time")
_MORE_RE = re.compile(r"(\d+) more problems like the above")
# Ingest joins a unit's problems with "; ", and a problem itself ends "; skipped" or
# "; will read it again ...": split only where a new problem starts.
_JOIN_RE = re.compile(r"; (?!skipped(?:;|$)|will\b)")


def summarise(problems: list[str]) -> dict[str, Any]:
    """Counts over a source's per-unit problem texts (each may join several with '; ')."""
    skipped = unknown = unreadable = 0
    for text in problems:
        for part in _JOIN_RE.split(text):
            if match := _SKIPPED_RE.search(part):
                skipped += int(match.group(1))
            elif match := _UNKNOWN_RE.search(part):
                unknown += int(match.group(1))
            elif match := _MORE_RE.search(part):
                unreadable += int(match.group(1))
            elif part.strip() and not part.startswith("("):
                unreadable += 1
    return {"skipped": skipped, "time_unknown": unknown, "unreadable": unreadable}


def describe(counts: dict[str, Any]) -> str:
    """One line for people: '', or e.g. '92 non-chat lines skipped, 10 turns time-unknown'."""
    parts = []
    if counts.get("unreadable"):
        parts.append(f"{counts['unreadable']} lines or files not understood (skipped)")
    if counts.get("skipped"):
        parts.append(f"{counts['skipped']} lines that are not chat turns skipped")
    if counts.get("time_unknown"):
        parts.append(f"{counts['time_unknown']} turns time-unknown")
    return ", ".join(parts)
