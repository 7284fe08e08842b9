"""Finding the documents review acts on, and turning them into the queue's records."""

from __future__ import annotations

from curator.reflection.summaries import REVIEW_LANE, turn_pair
from curator.review.records import FlaggedItemError, ReviewError, ReviewItem
from curator.review.staging import file_hash, flags_of, is_flagged, promotion_count
from curator.vault.documents import Document, DocumentError
from curator.vault.paths import DOC_ID_RE
from curator.vault.store import DocumentStore

# Frontmatter keys of a staged item the review pane shows beside its text.
EXTRA_KEYS = ("related", "target_id", "target_title", "old_text", "new_text", "what_changed",
              "new_confidence_hint", "file_a", "file_b", "text_a", "text_b", "why_unresolved",
              "existing_id", "existing_title", "existing_text", "proposed_text", "conflict", "subject",
              "subject_id", "subject_name", "fact_type", "evidence", "model_confidence", "notes", "provenance",
              "dated")
SUMMARY_KEYS = ("marked_words", "review_reasons", "prompt", "turn_range")


def find_staged(store: DocumentStore, user_id: str, item_id: str) -> Document:
    """The staged item ``item_id``; ReviewError when the id is bad, missing or unreadable."""
    if not DOC_ID_RE.match(item_id or ""):
        raise ReviewError(f"invalid item id {item_id!r}")
    for path in store.iter_paths(user_id, "staging"):
        if path.stem.endswith(f"--{item_id}"):
            try:
                doc = Document.load(path)
            except (DocumentError, OSError) as exc:
                raise ReviewError(f"{path.name} cannot be read: {exc}") from exc
            if doc.id == item_id:
                return doc
    raise ReviewError(f"no staged item {item_id}")


def find_knowledge(store: DocumentStore, user_id: str, doc_id: str) -> Document | None:
    if not DOC_ID_RE.match(doc_id):
        return None
    return store.find(doc_id, user_id, areas=("knowledge",))


def require_flags_ok(doc: Document, accept_flags: bool) -> None:
    if is_flagged(doc) and not accept_flags:
        reasons = "; ".join(f"{f.flag}: {f.reason}" for f in flags_of(doc)) or "quarantined"
        raise FlaggedItemError(f"{doc.id} is flagged ({reasons}); approving it needs an explicit accept_flags")


def review_item(doc: Document, rel: str) -> ReviewItem:
    """A staged document as the queue shows it; ``rel`` is its path under the user folder."""
    assert doc.path is not None
    flagged = is_flagged(doc)
    return ReviewItem(
        doc_id=doc.id, kind=doc.kind, title=doc.title, text=doc.body.strip(),
        category=str(doc.get("category") or doc.path.parent.name), confidence=doc.confidence,
        promotion_count=promotion_count(doc), recurring=bool(doc.get("recurring")), flagged=flagged,
        flags=[f.to_dict() for f in flags_of(doc)], gates=[str(g) for g in (doc.get("gates") or [])],
        source_turns=doc.source_turns, staged_at=str(doc.get("staged_at") or ""),
        origin=str(doc.get("origin") or ""), path=rel,
        content_hash=file_hash(doc.path), lane="flagged" if flagged else "review",
        fields={k: doc.get(k) for k in EXTRA_KEYS if doc.get(k) not in (None, "", [])},
    )


def summary_item(doc: Document, rel: str) -> ReviewItem:
    """A summary waiting for review, in its own lane."""
    assert doc.path is not None
    _prompt, summary = turn_pair(doc)
    return ReviewItem(
        doc_id=doc.id, kind="summary", title=doc.title, text=summary, category="Reflections",
        confidence=0.0, promotion_count=0, recurring=False, flagged=bool(doc.get("flags")),
        flags=[f.to_dict() for f in flags_of(doc)], gates=[], source_turns=doc.source_turns,
        staged_at=str(doc.get("created_at") or ""), origin="summary", path=rel,
        content_hash=file_hash(doc.path), lane=REVIEW_LANE,
        fields={k: doc.get(k) for k in SUMMARY_KEYS if doc.get(k) not in (None, "", [])},
    )


def sides(doc: Document) -> tuple[str, str]:
    """The old and new text a correction or contradiction is shown as a diff of."""
    if doc.kind == "correction":
        return str(doc.get("old_text") or ""), doc.body.strip()
    if doc.kind == "contradiction":
        return str(doc.get("existing_text") or ""), doc.body.strip()
    return "", ""
