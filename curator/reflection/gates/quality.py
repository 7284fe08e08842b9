"""Caps, the five quality gates of seed 000 §5 (plus "rejected before"), and confidence.

Every gate is code, never a model. A failing gate removes the item and records a
:class:`Rejection` (item, gate, reason) for the batch log. Gate names used in logs:
``schema``, ``cap``, ``turn_existence``, ``keyword``, ``related_file``, ``rejected_before``,
``dedup``, ``drift_guard``, ``evidence`` (micro-reflection), ``subject`` (micro-reflection).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from curator.index.text import elide
from curator.reflection.gates.chain import Evidence, check_item
from curator.reflection.gates.fingerprints import RejectedMemory
from curator.reflection.gates.similarity import normalised_scores
from curator.reflection.gates.untrusted import Flag
from curator.reflection.narrowing import sentences
from curator.reflection.ports import KnowledgeDoc, KnowledgeIndex, TurnSource
from curator.reflection.schemas import BatchOutput, short
from curator.sources.turns import IndexedTurn
from curator.vault.paths import DOC_ID_RE

CAPS = {"new_facts": 2, "corrections": 1, "connections": 2, "open_questions": 2}
DEDUP_THRESHOLD = 0.8
DRIFT_CONFIDENCE = 0.9
DEFAULT_KEYWORD_SUPPORT = 0.6



@dataclass(frozen=True)
class Rejection:
    """An item removed by a gate: a short rendering of the item, the gate, and why."""

    item: str
    gate: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"item": self.item, "gate": self.gate, "reason": self.reason}


@dataclass
class Proposal:
    """One proposed item on its way through the gates to staging.

    ``refs`` holds the raw references the model gave per field (``related_existing``,
    ``existing_file``, ``file_a``, ``file_b``); ``resolved`` the Knowledge documents those
    references resolved to (by id, through the index) once the related-file gate passed.
    """

    kind: str  # fact | correction | connection | open_question
    section: str  # new_facts | corrections | connections | open_questions | facts
    title: str
    text: str
    category: str = "Facts"
    source_turns: list[int] = field(default_factory=list)
    refs: dict[str, list[str]] = field(default_factory=dict)
    fields: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    resolved: dict[str, list[KnowledgeDoc]] = field(default_factory=dict)
    gates: list[str] = field(default_factory=list)
    confidence: float = 0.0
    flags: list[Flag] = field(default_factory=list)
    cited: list[IndexedTurn] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)

    def label(self) -> str:
        """Short rendering for logs."""
        return f"{self.section}: {short(self.title or self.text, 70)}"

    def ref_ids(self, key: str) -> list[str]:
        return [d.doc_id for d in self.resolved.get(key, [])]


def proposals_from_batch(output: BatchOutput) -> list[Proposal]:
    """The batch output's items as proposals (order: facts, corrections, connections, questions)."""
    items: list[Proposal] = []
    for f in output.new_facts:
        fact = Proposal("fact", "new_facts", f.title, f.content, f.category, f.source_turns,
                        {"related_existing": f.related_existing}, {}, list(f.notes))
        fact.evidence = [Evidence(n, q) for n, q in f.evidence]
        items.append(fact)
    for c in output.corrections:
        items.append(Proposal("correction", "corrections", f"Correction: {short(c.what_changed, 50)}",
                              c.what_changed, "Corrections", c.source_turns, {"existing_file": [c.existing_file]},
                              {"what_changed": c.what_changed, "new_confidence_hint": c.new_confidence_hint},
                              list(c.notes)))
    for k in output.connections:
        items.append(Proposal("connection", "connections", f"Connection: {short(k.relationship, 50)}",
                              k.relationship, "Connections", k.source_turns,
                              {"file_a": [k.file_a], "file_b": [k.file_b]}, {}, list(k.notes)))
    for q in output.open_questions:
        items.append(Proposal("open_question", "open_questions", q.question, q.question, "Questions",
                              q.source_turns, {}, {"why_unresolved": q.why_unresolved}, list(q.notes)))
    return items


def apply_caps(output: BatchOutput, caps: dict[str, int] = CAPS) -> list[Rejection]:
    """Truncate each section to its hard cap (seed 000 §4); returns what was cut."""
    cut: list[Rejection] = []
    for section, limit in caps.items():
        items: list[Any] = getattr(output, section)
        for extra in items[limit:]:
            text = getattr(extra, "content", None) or getattr(extra, "what_changed", None) or \
                getattr(extra, "relationship", None) or getattr(extra, "question", "")
            cut.append(Rejection(f"{section}: {short(text, 70)}", "cap", f"more than {limit} {section} in one batch"))
        del items[limit:]
    return cut


# ---- Confidence


def turn_approved(turn: IndexedTurn) -> bool:
    """A turn validated with APPROVE and quality >= 0.80 (metadata some clients record)."""
    extra = turn.extra or {}
    verdict = str(extra.get("validation") or extra.get("validation_result") or "").strip().upper()
    try:
        quality = float(extra.get("quality", 0.0))
    except (TypeError, ValueError):
        quality = 0.0
    return verdict == "APPROVE" and quality >= 0.80


def confidence_for(turns: Sequence[IndexedTurn]) -> float:
    """Base confidence from the number of source turns (seed 000 §5), never from the model."""
    count = len({t.number for t in turns})
    if count <= 1:
        return 0.60
    if count == 2:
        return 0.75
    return 0.85 if any(turn_approved(t) for t in turns) else 0.75


# ---- Words of an item


@dataclass(frozen=True)
class KeywordCheck:
    passed: bool
    ratio: float
    reason: str
    gate: str = "keyword"
    failing_words: tuple[str, ...] = ()


def keyword_support(text: str, turns: Sequence[IndexedTurn], threshold: float,
                    evidence: Sequence[Evidence] = ()) -> KeywordCheck:
    """Whether the cited ``turns`` support ``text``: the shared chain of :mod:`gates.chain`."""
    verdict = check_item(text, turns, evidence, threshold=threshold)
    # Names and content share are both "keyword" in batch logs (seed 000 §5's gate name).
    gate = "keyword" if verdict.gate in ("", "names", "support") else verdict.gate
    return KeywordCheck(verdict.passed, verdict.support, verdict.reason, gate, verdict.failing_words)


# ---- References


def _title_from(text: str, limit: int = 60) -> str:
    """A short title from an item's first sentence, cut at a word boundary, no end stop."""
    first = (sentences(text) or [""])[0].rstrip(".!?")
    return elide(first, limit)


def parse_ref(raw: str) -> str | None:
    """The document id in a model's reference: a bare id or ``...--<id>.md``; else None.

    Only the id is ever used; the rest of the string (a path, maybe hostile) is discarded.
    """
    value = raw.strip()
    if DOC_ID_RE.match(value):
        return value
    if value.endswith(".md") and "--" in value:
        candidate = value[:-3].rsplit("--", 1)[1]
        if DOC_ID_RE.match(candidate):
            return candidate
    return None


# ---- The gates


class QualityGates:
    """Runs the gates for one user's proposals against the turn index and Knowledge."""

    def __init__(
        self,
        user_id: str,
        turns: TurnSource,
        knowledge: KnowledgeIndex,
        rejected: RejectedMemory | None = None,
        keyword_threshold: float = DEFAULT_KEYWORD_SUPPORT,
        dedup_threshold: float = DEDUP_THRESHOLD,
    ) -> None:
        self.user_id = user_id
        self.turns = turns
        self.knowledge = knowledge
        self.rejected = rejected
        self.keyword_threshold = keyword_threshold
        self.dedup_threshold = dedup_threshold

    def turn_existence(self, item: Proposal) -> Rejection | None:
        """Every cited turn exists (and was not removed from its source)."""
        cited: list[IndexedTurn] = []
        missing: list[int] = []
        for number in item.source_turns:
            try:
                turn = self.turns.get(self.user_id, number)
            except Exception:  # a broken lookup is the same as a missing turn here
                turn = None
            if turn is None or turn.status == "removed":
                missing.append(number)
            else:
                cited.append(turn)
        if not item.source_turns:
            return Rejection(item.label(), "turn_existence", "cites no turns")
        if missing:
            return Rejection(item.label(), "turn_existence", f"turns {', '.join(map(str, missing))} do not exist")
        item.cited = cited
        item.gates.append("turn_existence")
        return None

    def keyword(self, item: Proposal) -> Rejection | None:
        """The item's content words are supported by the turns it cites."""
        check = keyword_support(item.text, item.cited, self.keyword_threshold, item.evidence)
        if not check.passed:
            return Rejection(item.label(), check.gate, check.reason)
        item.fields["keyword_support"] = round(check.ratio, 3)
        if item.evidence:
            item.gates.append("evidence")  # each quote found in its own turn (the chain checked it)
        item.gates.append("keyword")
        # The title is what a person reads first in the queue: one the turns do not support
        # (small models write headlines of their own) gives way to the item's own words.
        if (
            item.kind == "fact"
            and item.title
            and not keyword_support(item.title, item.cited, self.keyword_threshold).passed
        ):
            item.notes.append(f"title {item.title[:60]!r} was not supported by the cited turns; replaced")
            item.title = _title_from(item.text)
        return None

    def related_file(self, item: Proposal) -> Rejection | None:
        """Every referenced document is a Knowledge document id known to the index."""
        for key, raws in item.refs.items():
            docs: list[KnowledgeDoc] = []
            for raw in raws:
                doc_id = parse_ref(raw)
                if doc_id is None:
                    return Rejection(item.label(), "related_file", f"{key} {short(raw, 60)!r} is not a document id")
                doc = self.knowledge.get(self.user_id, doc_id)
                if doc is None:
                    return Rejection(item.label(), "related_file", f"{key} {doc_id} is not a Knowledge document")
                if doc.doc_id not in [d.doc_id for d in docs]:
                    docs.append(doc)
            item.resolved[key] = docs
        item.gates.append("related_file")
        return None

    def rejected_before(self, item: Proposal) -> Rejection | None:
        """The person has not already discarded this text."""
        if self.rejected is not None:
            entry = self.rejected.match(self.user_id, item.text)
            if entry is not None:
                return Rejection(item.label(), "rejected_before",
                                 f"discarded before on {entry.rejected_at or 'an earlier review'}"
                                 + (f" ({entry.reason})" if entry.reason else ""))
        item.gates.append("rejected_before")
        return None

    def dedup(self, item: Proposal) -> Rejection | None:
        """Not already known: normalised BM25 against Knowledge must stay <= the threshold."""
        candidates = self.knowledge.search(self.user_id, item.text, limit=10)
        scores = normalised_scores(item.text, [f"{c.title}\n{c.text}" for c in candidates])
        if scores:
            best = max(range(len(scores)), key=lambda i: scores[i])
            if scores[best] > self.dedup_threshold:
                return Rejection(item.label(), "dedup",
                                 f"already known: similar to {candidates[best].doc_id} ({scores[best]:.2f})")
        item.gates.append("dedup")
        return None

    def drift_guard(self, item: Proposal) -> Rejection | None:
        """A correction may not overturn a very confident fact on the word of one turn."""
        if item.kind == "correction":
            for target in item.resolved.get("existing_file", []):
                if target.confidence > DRIFT_CONFIDENCE and len(item.source_turns) == 1:
                    return Rejection(
                        item.label(),
                        "drift_guard",
                        f"{target.doc_id} has confidence {target.confidence:.2f}; one turn cannot correct it",
                    )
        item.gates.append("drift_guard")
        return None
