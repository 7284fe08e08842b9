"""What an ingest changed, and whether a source can be read at all."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from curator.sources.turns import IndexedTurn


@dataclass
class IngestReport:
    """What one ingest (of a unit, a source or everything) changed."""

    added: list[IndexedTurn] = field(default_factory=list)
    edited: list[tuple[str, int, int]] = field(default_factory=list)  # (user, old number, new number)
    removed: list[tuple[str, int]] = field(default_factory=list)
    restored: list[tuple[str, int]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    units_read: int = 0
    units_unchanged: int = 0
    units_waiting: int = 0

    def merge(self, other: IngestReport) -> IngestReport:
        self.added += other.added
        self.edited += other.edited
        self.removed += other.removed
        self.restored += other.restored
        self.problems += other.problems
        self.units_read += other.units_read
        self.units_unchanged += other.units_unchanged
        self.units_waiting += other.units_waiting
        return self

    def summary(self) -> dict[str, Any]:
        return {
            "added": len(self.added),
            "edited": len(self.edited),
            "removed": len(self.removed),
            "restored": len(self.restored),
            "problems": list(self.problems),
            "units_read": self.units_read,
            "units_unchanged": self.units_unchanged,
            "units_waiting": self.units_waiting,
        }


@dataclass(frozen=True)
class Availability:
    """Whether a source can be read now, and why not."""

    available: bool
    reason: str = ""
