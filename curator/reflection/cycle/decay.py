"""``memory/meta/decay-scores.json``: when the last cycle ran and how alive each memory is.

A memory's score halves every :data:`HALF_LIFE_DAYS` days since it was last seen (approved,
cited by a turn, or touched by a cycle). Seed 001's thresholds: a cycle reads entities and
procedures above :data:`READ_THRESHOLD`, lists memories below :data:`FADING_THRESHOLD` as
fading (offered to the person as a "still true?" question) and proposes archival below
:data:`ARCHIVE_THRESHOLD`. Nothing is dropped by the score alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

READ_THRESHOLD = 0.3
FADING_THRESHOLD = 0.5
ARCHIVE_THRESHOLD = 0.05
HALF_LIFE_DAYS = 30.0
DAY = 86_400.0


def iso(ts: float) -> str:
    """A UTC timestamp as ``2026-02-05T03:00:00Z``."""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(text: str | None) -> float | None:
    """The timestamp of an ISO text, or None when absent or unreadable."""
    if not text:
        return None
    try:
        return datetime.fromisoformat(str(text)).timestamp()
    except ValueError:
        return None


def score_at(last_seen: float, now: float) -> float:
    """Decay score of a memory last seen at ``last_seen`` (1.0 when seen now)."""
    days = max(0.0, (now - last_seen) / DAY)
    return round(0.5 ** (days / HALF_LIFE_DAYS), 4)


@dataclass
class MemoryScore:
    """One memory's entry: what it is, where it lives, when it was last seen."""

    memory_id: str
    kind: str
    title: str
    rel: str  # path under the user folder
    last_seen: float
    score: float = 1.0
    archived: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "title": self.title, "path": self.rel, "last_seen": iso(self.last_seen),
                "score": self.score, "archived": self.archived}


@dataclass
class DecayState:
    """The whole file."""

    last_reflection: str | None = None
    last_reflection_episode: str | None = None
    last_turn: int = 0
    reflection_count: int = 0
    memories: dict[str, MemoryScore] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> DecayState:
        """Read the file; a missing or unreadable one is a first cycle (nothing is lost: the
        memories themselves live elsewhere and are re-scored)."""
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            return cls()
        if not isinstance(data, dict):
            return cls()
        state = cls(last_reflection=_str_or_none(data.get("last_reflection")),
                    last_reflection_episode=_str_or_none(data.get("last_reflection_episode")),
                    last_turn=_int(data.get("last_turn")), reflection_count=_int(data.get("reflection_count")))
        raw = data.get("memories")
        for key, entry in (raw.items() if isinstance(raw, dict) else []):
            if not isinstance(entry, dict):
                continue
            seen = parse_iso(entry.get("last_seen")) or 0.0
            state.memories[str(key)] = MemoryScore(
                str(key),
                str(entry.get("kind", "")),
                str(entry.get("title", "")),
                str(entry.get("path", "")),
                seen,
                float(entry.get("score", 1.0) or 0.0),
                bool(entry.get("archived", False)),
            )
        return state

    def to_json(self) -> str:
        data = {"last_reflection": self.last_reflection, "last_reflection_episode": self.last_reflection_episode,
                "last_turn": self.last_turn, "reflection_count": self.reflection_count,
                "memories": {k: v.to_dict() for k, v in sorted(self.memories.items())}}
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    def observe(self, memory_id: str, kind: str, title: str, rel: str, seen: float) -> MemoryScore:
        """Register a memory (or refresh when it was seen later than recorded)."""
        entry = self.memories.get(memory_id)
        if entry is None:
            entry = MemoryScore(memory_id, kind, title, rel, seen)
            self.memories[memory_id] = entry
        else:
            entry.kind, entry.title, entry.rel = kind, title, rel
            entry.last_seen = max(entry.last_seen, seen)
        return entry

    def rescore(self, now: float) -> None:
        for entry in self.memories.values():
            entry.score = score_at(entry.last_seen, now)

    def live(self) -> list[MemoryScore]:
        return [m for m in self.memories.values() if not m.archived]

    def readable(self) -> list[MemoryScore]:
        """Memories a cycle reads in full (score above the read threshold)."""
        return [m for m in self.live() if m.score > READ_THRESHOLD]

    def fading(self) -> list[MemoryScore]:
        """Below the fading threshold, weakest first."""
        return sorted((m for m in self.live() if m.score < FADING_THRESHOLD), key=lambda m: (m.score, m.memory_id))

    def archivable(self) -> list[MemoryScore]:
        return [m for m in self.fading() if m.score < ARCHIVE_THRESHOLD]


def _str_or_none(value: Any) -> str | None:
    return str(value) if isinstance(value, str) and value else None


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0
