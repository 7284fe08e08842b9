"""What ``curator status`` and the Status pane show of each source: a typed record per source.

Health comes from the running watcher when this process watches, else from what the running
``curator watch`` last recorded in the index (a reader beside it), else from a look at the
source's folder now.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from curator.index.database import Index
from curator.sources.health import describe as describe_health
from curator.sources.health import summarise as summarise_health
from curator.sources.ingest import Ingestor
from curator.sources.watcher import SourceHealth
from curator.vault.settings import SourceConfig


@dataclass(frozen=True)
class SourceStatus:
    """One watched source, its health and what was read from it."""

    source: SourceConfig
    status: str
    detail: str
    turns: int
    problems: list[str] = field(default_factory=list)
    reading: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The shape of ``curator status --json`` (the source's settings, then its health)."""
        return {**self.source.to_dict(), "status": self.status, "detail": self.detail,
                "turns": self.turns, "problems": list(self.problems), "reading": dict(self.reading)}


def source_statuses(sources: list[SourceConfig], index: Index, ingestor: Ingestor,
                    live: Mapping[str, SourceHealth], recorded: Mapping[str, Mapping[str, Any]]
                    ) -> list[SourceStatus]:
    """``live`` is the watcher's health in this process; ``recorded`` another watcher's."""
    per_source = index.source_turn_counts()
    out: list[SourceStatus] = []
    for source in sources:
        if source.id in live:
            status, detail = live[source.id].status, live[source.id].detail
        elif source.id in recorded:
            status, detail = str(recorded[source.id]["status"]), str(recorded[source.id]["detail"] or "")
        else:
            available = ingestor.availability(source, thorough=True)
            status, detail = ("available" if available.available else "unavailable"), available.reason
        found = index.problems(source.id)
        counts = summarise_health([p for _, _, p in found])
        out.append(SourceStatus(
            source=source,
            status=status,
            # The Status pane shows the detail as a tooltip: say what reading skipped.
            detail=detail or describe_health(counts),
            turns=per_source.get(source.id, 0),
            problems=[f"{unit}: {problem}" for _, unit, problem in found],
            reading=counts,
        ))
    return out
