"""What the code finds wrong before a cycle rewrites MEMORY.md: memories that disagree.

The bundled model rarely flags a contradiction, and MEMORY.md is what a chat client reads
first. So the cycle asks code (same subject, different value or a negation:
:func:`curator.reflection.contradictions.compare`) two questions:

- do two approved memories disagree ("Ana lives in Porto" / "Ana lives in Braga")?
- does a correction or contradiction waiting in the review queue contest an approved memory?

Each answer becomes a FLAG operation (seed 001's "Contradictions Detected", written to
``memory/meta/contradictions.md`` on approval), and the memories it names stay out of
MEMORY.md until the person has answered, so a client never reads a fact still in dispute.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from curator.reflection.contradictions import compare
from curator.reflection.cycle.operations import Operation
from curator.reflection.cycle.scope import Memory
from curator.vault.documents import Document, DocumentError

PAIRS_OF_AT_MOST = 150  # the newest memories compared pair by pair (150: about 11,000 pairs)


@dataclass(frozen=True)
class Disagreement:
    """Memories in dispute, and why."""

    memory_ids: tuple[str, ...]
    content: str
    reason: str = "found by code: the memories disagree"


def find(staging: Path, memories: Sequence[Memory]) -> list[Disagreement]:
    """Every disagreement among ``memories`` and with the review queue in ``staging``."""
    return [*_between(memories), *_contested(staging, memories)]


def flags(found: Sequence[Disagreement]) -> list[Operation]:
    """One FLAG operation per disagreement, citing the memories (the caller sets op ids and targets)."""
    return [Operation("", "FLAG", d.content, reason=d.reason, evidence=[f"memory {m}" for m in d.memory_ids],
                      gates=["code"]) for d in found]


def disputed(found: Sequence[Disagreement]) -> set[str]:
    """Ids of the memories a disagreement names."""
    return {m for d in found for m in d.memory_ids}


def _between(memories: Sequence[Memory]) -> list[Disagreement]:
    newest = sorted(memories, key=lambda m: -m.seen)[:PAIRS_OF_AT_MOST]
    out = []
    for a, b in combinations(newest, 2):
        result = compare(a.text, b.text)
        if result is not None:
            _kinds, details, _overlap = result
            out.append(Disagreement((a.memory_id, b.memory_id),
                                    f"“{a.text}” and “{b.text}” disagree ({'; '.join(details)})"))
    return out


def _contested(staging: Path, memories: Sequence[Memory]) -> list[Disagreement]:
    known = {m.memory_id: m for m in memories}
    out = []
    for path in sorted(staging.rglob("*.md")) if staging.is_dir() else []:
        try:
            doc = Document.load(path)
        except (DocumentError, OSError):
            continue
        if doc.kind not in ("correction", "contradiction") or doc.deleted:
            continue
        target = known.get(str(doc.get("target_id") or doc.get("existing_id") or ""))
        if target is None:
            continue
        what = "a correction" if doc.kind == "correction" else "a contradicting statement"
        proposed = str(doc.get("new_text") or doc.get("proposed_text") or doc.body).strip()
        out.append(Disagreement((target.memory_id,),
                                f"“{target.text}” is contested by {what} waiting in the review queue: "
                                f"“{' '.join(proposed.split())}”",
                                f"found by code: {what} in the review queue contests it; answer it there"))
    return out
