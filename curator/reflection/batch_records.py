"""What a batch run produces and records: its results, its log file, and the turn texts it reads.

Split from :mod:`curator.reflection.batch` so that the reflector there holds the run itself;
micro-reflection and summaries use the turn rendering and keyword helpers too.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curator.clock import iso_utc
from curator.index.text import content_words, tokenize
from curator.reflection.gates.quality import Rejection
from curator.sources.adapters.turn_folder import section_blocks
from curator.sources.turns import IndexedTurn
from curator.vault.atomic import write_json_state
from curator.vault.settings import OPTIONS_BY_KEY, Settings

TOP_KEYWORDS = 8
# Seed 000 §3: of a turn folder's context.md the reflector reads §0 (the query, already the
# turn's text), §2 (context), §3 (plan) and §6 (response/validation); §1, §4 and §5 are the
# pipeline's working notes and would only spend the batch's token budget.
CONTEXT_SECTIONS = (2, 3, 6)
_BATCH_FILE_RE = re.compile(r"^batch_(\d+)\.json$")


@dataclass(frozen=True)
class StagedRef:
    """A staged item written by a run."""

    doc_id: str
    kind: str
    title: str
    path: str  # relative to the user folder, e.g. Knowledge_staging/Facts/x--id.md
    flagged: bool


@dataclass
class BatchResult:
    """Outcome of one batch run (also written to ``batch_NNN.json``)."""

    batch_id: int
    status: str  # completed | empty | nothing_to_do | aborted | cancelled
    reset_counters: bool
    turns_reviewed: list[int] = field(default_factory=list)
    last_turn: int | None = None
    items_proposed: int = 0
    items_passed: int = 0
    rejections: list[Rejection] = field(default_factory=list)
    staged: list[StagedRef] = field(default_factory=list)
    recurring: list[str] = field(default_factory=list)
    promoted_files: list[str] = field(default_factory=list)
    expired_files: list[str] = field(default_factory=list)
    error: str = ""
    log_path: Path | None = None
    duration_ms: int = 0


@dataclass
class AssembledBatch:
    """The turns a batch reviews, rendered, and what was left out."""

    turns: list[IndexedTurn]
    blocks: list[str]
    tokens: int
    dropped: list[int] = field(default_factory=list)
    read_errors: list[dict[str, Any]] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)  # every turn looked at, read or not


def setting(settings: Settings, key: str) -> Any:
    """A setting's value, falling back to its declared default (or None if undeclared)."""
    try:
        return settings[key]
    except KeyError:
        option = OPTIONS_BY_KEY.get(key)
        return option.default if option else None


def render_turn(turn: IndexedTurn) -> str:
    """One turn as the model sees it: number, role, speaker, text and any context."""
    if not isinstance(turn.text, str):
        raise ValueError("turn text is not text")
    # One line per turn, as in the prompt's example: a small model copies from what it sees
    # next to the turn number.
    speaker = f" ({turn.speaker})" if turn.speaker and turn.speaker.casefold() != turn.role.casefold() else ""
    block = f"[turn {turn.number}] {turn.role}{speaker}: {turn.text.strip()}"
    context = section_blocks(turn.context, CONTEXT_SECTIONS) if turn.context else ""
    if context:
        block += f"\n[context of turn {turn.number}]\n{context}"
    return block


def top_keywords(turns: Sequence[IndexedTurn], limit: int = TOP_KEYWORDS) -> list[str]:
    """The most frequent content words of the turns (speaker names left out)."""
    speakers = {w for t in turns for w in tokenize(t.speaker or "")}
    counts: Counter[str] = Counter()
    for turn in turns:
        counts.update(w for w in content_words(f"{turn.text} {turn.context}") if w not in speakers and not w.isdigit())
    return [w for w, _ in counts.most_common(limit)]


def next_batch_id(folder: Path) -> int:
    """One more than the highest ``batch_NNN.json`` in ``folder``."""
    highest = 0
    if folder.is_dir():
        for path in folder.iterdir():
            match = _BATCH_FILE_RE.match(path.name)
            if match:
                highest = max(highest, int(match.group(1)))
    return highest + 1


def write_batch_log(
    now: float,
    folder: Path,
    result: BatchResult,
    trigger: str,
    urgency: float,
    record: dict[str, Any],
) -> Path:
    entry: dict[str, Any] = {
        "batch_id": result.batch_id,
        "timestamp": iso_utc(now),
        "turns_reviewed": result.turns_reviewed,
        "trigger": trigger,
        "urgency_score": urgency,
        "quality_gate_results": {
            "items_proposed": result.items_proposed,
            "items_passed": result.items_passed,
            "rejections": [r.to_dict() for r in result.rejections],
        },
        "staged_files": [s.path for s in result.staged],
        "promoted_files": result.promoted_files,
        "duration_ms": result.duration_ms,
        "status": result.status,
        "reset_counters": result.reset_counters,
        "error": result.error,
        "recurring_items": result.recurring,
        "expired_files": result.expired_files,
        "flagged_items": [s.doc_id for s in result.staged if s.flagged],
    }
    entry.update(record)
    path = folder / f"batch_{result.batch_id:03d}.json"
    write_json_state(path, entry)
    return path
