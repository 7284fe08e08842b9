"""Staged items in ``Users/<u>/Knowledge_staging/<Category>/`` and their lifecycle (seed 000 §6).

A staged item is a vault document whose frontmatter carries the seed's fields (``staged_at``,
``batch_id``, ``promotion_count``, ``source_turns``, ``confidence``) plus ``kind``, ``flags``
(and ``quarantine``), the gates it passed and its provenance. Lifecycle after every batch:

- an item of an earlier batch that a new batch proposes again (normalised BM25 similarity
  > 0.7, same kind) gets ``promotion_count += 1`` and is marked ``recurring`` (the new
  proposal is merged into it rather than staged twice); the first sighting counts as 1, so
  "seen in two batches" means ``promotion_count >= 2``;
- with ``batch.auto_promote`` on, a recurring, unflagged fact/connection/question moves to
  ``Knowledge/`` by itself; off (the default) it only ranks first in the review queue;
- an item older than ``batch.expiry_days`` that was seen fewer than twice goes to trash.

A staging file that cannot be read is reported as a :class:`StagingProblem`; it is never
deleted or rewritten by this module.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curator.clock import Clock, SystemClock, iso_utc, parse_iso
from curator.reflection.gates.similarity import normalised_scores
from curator.reflection.gates.untrusted import Flag
from curator.review.metadata import describe
from curator.vault.documents import Document
from curator.vault.paths import new_id
from curator.vault.store import DocumentStore, TrashEntry

RECURRENCE_SIMILARITY = 0.7
PROMOTE_AT = 2
PROMOTABLE = ("fact", "connection", "open_question")
KIND_CATEGORY = {
    "correction": "Corrections",
    "connection": "Connections",
    "open_question": "Questions",
    "contradiction": "Contradictions",
}
STAGING_KEYS = ("staged_at", "batch_id", "promotion_count", "recurring", "seen_in_batches", "quarantine")


@dataclass
class StagedDraft:
    """Everything needed to write one staged item."""

    kind: str
    title: str
    text: str
    category: str
    source_turns: list[int]
    confidence: float
    batch_id: int | None
    origin: str  # batch | micro
    flags: list[Flag] = field(default_factory=list)
    gates: list[str] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict)
    fields: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class StagingProblem:
    """A staging file that could not be read (reported, left where it is)."""

    path: Path
    reason: str


def file_hash(path: Path) -> str:
    """sha256 of a file's bytes: the identity of what a person was shown."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def staged_category(kind: str, category: str) -> str:
    return KIND_CATEGORY.get(kind, category or "Facts")


def is_flagged(doc: Document) -> bool:
    """Whether a staged item carries untrusted-output flags."""
    return bool(doc.get("quarantine")) or bool(doc.get("flags"))


def flags_of(doc: Document) -> list[Flag]:
    """The flags stored on a staged item."""
    raw = doc.get("flags")
    if not isinstance(raw, list):
        return []
    return [f for f in (Flag.from_dict(x) for x in raw) if f is not None]


def promotion_count(doc: Document) -> int:
    try:
        return int(doc.get("promotion_count", 1))
    except (TypeError, ValueError):
        return 1


def to_knowledge(doc: Document, action: str, when: str) -> None:
    """Turn a staged item's frontmatter into an approved document's (in place).

    The body is left exactly as it is: what was shown is what is written.
    """
    meta = doc.meta
    meta["status"] = "approved"
    meta["reviewer_action"] = action
    meta["approved_at"] = when
    meta["staging"] = {k: meta.pop(k) for k in STAGING_KEYS if k in meta}
    if meta.get("flags"):
        meta["flags_accepted"] = True
    if action == "edited":  # the person's words may move the memory to another topic
        meta["keywords"], meta["primary_topic"], meta["content_types"] = [], "", []
    describe(meta, doc.title, doc.body)


class StagingArea:
    """Writes and maintains one vault's staged items."""

    def __init__(self, store: DocumentStore, clock: Clock | None = None) -> None:
        self.store = store
        self.clock = clock or SystemClock()

    # ---- Writing

    def stage(self, user_id: str, draft: StagedDraft, doc_id: str | None = None) -> Document:
        """Write a new staged item and return it (``doc.path`` is set).

        ``doc_id``: an id chosen before (an action's crash record must know the file it creates).
        """
        now = iso_utc(self.clock.now())
        flags = [f.to_dict() for f in draft.flags]
        doc = Document.new(
            doc_id=doc_id or new_id(),
            kind=draft.kind,
            title=draft.title,
            body=draft.text.strip() + "\n",
            created_at=now,
            staged_at=now,
            batch_id=draft.batch_id,
            promotion_count=1,
            recurring=False,
            seen_in_batches=[draft.batch_id] if draft.batch_id is not None else [],
            source_turns=list(draft.source_turns),
            confidence=round(float(draft.confidence), 2),
            category=draft.category,
            origin=draft.origin,
            quarantine=bool(flags),
            flags=flags,
            gates=list(draft.gates),
            provenance=draft.provenance,
            **draft.fields,
        )
        files = draft.provenance.get("source_files") or []
        if files and isinstance(files[0], dict):  # the core provenance fields name the first source
            doc.meta["source_file"] = str(files[0].get("file", ""))
            doc.meta["source_hash"] = str(files[0].get("sha256", ""))
        if draft.notes:
            doc.meta["notes"] = list(draft.notes)
        describe(doc.meta, doc.title, doc.body)
        self.store.create(doc, user_id, "staging", staged_category(draft.kind, draft.category))
        return doc

    # ---- Reading

    def scan(self, user_id: str) -> tuple[list[Document], list[StagingProblem]]:
        """All readable staged items, and a problem for each unreadable file."""
        docs: list[Document] = []
        problems: list[StagingProblem] = []
        for path, doc in self.store.iter_documents(user_id, "staging"):
            if isinstance(doc, Document) and doc.id:
                docs.append(doc)
            elif isinstance(doc, Document):
                problems.append(StagingProblem(path, "frontmatter has no id"))
            else:
                problems.append(StagingProblem(path, str(doc)))
        return docs, problems

    def find_recurring(
        self, docs: list[Document], kind: str, text: str, batch_id: int | None
    ) -> tuple[Document, float] | None:
        """The staged item of an earlier batch that ``text`` repeats (> 0.7), if any."""
        pool = [
            d
            for d in docs
            if d.kind == kind
            and (batch_id is None or batch_id not in (d.get("seen_in_batches") or []))
        ]
        if not pool:
            return None
        scores = normalised_scores(text, [d.body for d in pool])
        best = max(range(len(scores)), key=lambda i: scores[i])
        if scores[best] > RECURRENCE_SIMILARITY:
            return pool[best], scores[best]
        return None

    def mark_seen(self, doc: Document, batch_id: int | None, source_turns: list[int]) -> int:
        """Count another sighting of a staged item; returns its new promotion count."""
        count = promotion_count(doc) + 1
        doc.meta["promotion_count"] = count
        doc.meta["recurring"] = count >= PROMOTE_AT
        seen = list(doc.get("seen_in_batches") or [])
        if batch_id is not None and batch_id not in seen:
            seen.append(batch_id)
        doc.meta["seen_in_batches"] = seen
        doc.meta["source_turns"] = sorted(set(doc.source_turns) | set(source_turns))
        doc.meta["last_seen_at"] = iso_utc(self.clock.now())
        self.store.update(doc, action="recurrence")
        return count

    # ---- Lifecycle

    def auto_promote(self, user_id: str, docs: list[Document]) -> list[Path]:
        """Move recurring, unflagged, promotable items to ``Knowledge/`` (auto_promote on)."""
        promoted = []
        for doc in docs:
            if doc.kind in PROMOTABLE and promotion_count(doc) >= PROMOTE_AT and not is_flagged(doc):
                category = str(doc.get("category") or "Facts")
                to_knowledge(doc, "auto-promoted", iso_utc(self.clock.now()))
                target_category = KIND_CATEGORY.get(doc.kind, category)
                promoted.append(self.store.move(doc, user_id, "knowledge", target_category, action="auto-promote"))
        return promoted

    def expire(self, user_id: str, docs: list[Document], expiry_days: int) -> list[TrashEntry]:
        """Trash items older than ``expiry_days`` seen fewer than twice."""
        now = self.clock.now()
        expired = []
        for doc in docs:
            staged = parse_iso(str(doc.get("staged_at") or ""))
            if staged is None or promotion_count(doc) >= PROMOTE_AT:
                continue
            if now - staged > expiry_days * 86400:
                expired.append(self.store.trash(
                    doc, reason=f"expired: staged {expiry_days}+ days ago and seen in fewer than {PROMOTE_AT} batches"))
        return expired
