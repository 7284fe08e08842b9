"""What reflection knows of a user's approved ``Knowledge/``: two :class:`KnowledgeIndex` views.

:class:`IndexKnowledge` is the one the app uses: seed 004 wants one search over every kind
of document, so reflection asks the vault's unified index (the same BM25 over FTS5 that the
window, the CLI and MCP search) and only loads the few documents it returns.
:class:`VaultKnowledgeIndex` scans the files with its own BM25; it is a unit seam for tests
that have no index. Both read only the ``knowledge`` area (never staging, never trash) and
resolve ids through the store, never through paths taken from model output.

``about`` answers seed 003's "existing facts of these subjects": the facts whose subject is
one of the excerpt's authors, or the assistant, or shared lore, or that name no subject (a
user folder's facts are about its person), most relevant to the excerpt first.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from curator.index.database import Index
from curator.index.search import SearchFilters, search
from curator.reflection.gates.similarity import normalised_scores
from curator.reflection.ports import KnowledgeDoc
from curator.vault.documents import Document, DocumentError
from curator.vault.paths import DOC_ID_RE, safe_child
from curator.vault.store import DocumentStore

log = logging.getLogger(__name__)


def knowledge_doc(doc: Document, score: float = 0.0) -> KnowledgeDoc:
    """The reflection view of a vault document."""
    category = doc.path.parent.name if doc.path is not None else str(doc.get("category", "Facts"))
    digest = hashlib.sha256(doc.path.read_bytes()).hexdigest() if doc.path and doc.path.exists() else ""
    return KnowledgeDoc(
        doc_id=doc.id,
        title=doc.title,
        text=doc.body.strip(),
        category=category,
        kind=doc.kind,
        confidence=doc.confidence,
        source_turns=tuple(doc.source_turns),
        content_hash=digest,
        score=score,
    )


class VaultKnowledgeIndex:
    """Search ``Users/<u>/Knowledge/`` documents with normalised BM25 (see ``similarity``)."""

    def __init__(self, store: DocumentStore) -> None:
        self.store = store

    def _documents(self, user_id: str) -> list[Document]:
        docs = []
        for path, doc in self.store.iter_documents(user_id, "knowledge"):
            if isinstance(doc, Document):
                if doc.id and not doc.deleted and not doc.get("retired_at"):
                    docs.append(doc)
            else:
                log.warning("unreadable knowledge document %s: %s", path, doc)
        return docs

    def search(self, user_id: str, query: str, limit: int = 10) -> list[KnowledgeDoc]:
        """Knowledge documents matching ``query``, best first (score 0..1)."""
        docs = self._documents(user_id)
        scores = normalised_scores(query, [f"{d.title}\n{d.body}" for d in docs])
        ranked = sorted(zip(scores, docs, strict=True), key=lambda pair: -pair[0])
        return [knowledge_doc(d, s) for s, d in ranked if s > 0][:limit]

    def get(self, user_id: str, doc_id: str) -> KnowledgeDoc | None:
        """The Knowledge document with ``doc_id`` (validated id) or None."""
        if not DOC_ID_RE.match(doc_id):
            return None
        doc = self.store.find(doc_id, user_id, areas=("knowledge",))
        return knowledge_doc(doc) if doc is not None and not doc.deleted else None

    def about(self, user_id: str, subject_ids: Sequence[str], query: str, limit: int = 20) -> list[KnowledgeDoc]:
        """Facts about the excerpt's subjects (see the module docstring), best match first."""
        return ranked_about(self._documents(user_id), subject_ids, query, limit)


# The newest facts a subject lookup reads: a micro-reflection lists at most ``limit`` of them,
# and a person's folder with thousands of facts must not be read whole at every pause.
ABOUT_SCAN = 400
GENERAL_SUBJECTS = ("bot", "lore")


def is_about(doc: Document, subject_ids: Sequence[str]) -> bool:
    """Whether ``doc`` is a fact about one of ``subject_ids``, the assistant, or shared lore."""
    subject = str(doc.get("subject") or "")
    if not subject or subject in GENERAL_SUBJECTS:
        return True
    subject_id = str(doc.get("subject_id") or "")
    return not subject_id or subject_id in subject_ids


def ranked_about(docs: Sequence[Document], subject_ids: Sequence[str], query: str, limit: int) -> list[KnowledgeDoc]:
    """The facts of ``docs`` about the subjects, most relevant to ``query`` first, then newest."""
    facts = [d for d in docs if d.kind == "fact" and is_about(d, subject_ids)]
    newest = sorted(facts, key=lambda d: str(d.get("approved_at") or d.get("created_at") or ""), reverse=True)
    scores = normalised_scores(query, [f"{d.title}\n{d.body}" for d in newest]) if query.strip() else []
    order = sorted(range(len(newest)), key=lambda i: -(scores[i] if scores else 0.0))
    return [knowledge_doc(newest[i], scores[i] if scores else 0.0) for i in order[:limit]]


class IndexKnowledge:
    """:class:`KnowledgeIndex` over the vault's unified search index (seed 004 §5).

    Args:
        index: Returns the current index (``Engine.reindex`` replaces it).
        store: The vault's documents, to read a hit's file.
    """

    def __init__(self, index: Callable[[], Index], store: DocumentStore) -> None:
        self.index = index
        self.store = store

    def _load(self, user_id: str, rel: str) -> Document | None:
        try:
            path = safe_child(self.store.paths.root, rel)
            knowledge = self.store.paths.user(user_id).root / "Knowledge"
            if knowledge not in path.parents:
                return None
            doc = Document.load(Path(path))
        except (ValueError, OSError, DocumentError):
            return None
        return doc if doc.id and not doc.deleted and not doc.get("retired_at") else None

    def search(self, user_id: str, query: str, limit: int = 10) -> list[KnowledgeDoc]:
        """Knowledge documents matching ``query``, best first (the index's BM25 score)."""
        hits = search(self.index(), query, SearchFilters(user_id=user_id, item_types=("document",)),
                      limit=max(limit * 3, limit + 10))
        out: list[KnowledgeDoc] = []
        for hit in hits:
            if hit.area != "knowledge" or not hit.path:
                continue
            doc = self._load(user_id, hit.path)
            if doc is not None:
                out.append(knowledge_doc(doc, hit.score))
            if len(out) >= limit:
                break
        return out

    def get(self, user_id: str, doc_id: str) -> KnowledgeDoc | None:
        """The Knowledge document with ``doc_id`` (validated id) or None."""
        if not DOC_ID_RE.match(doc_id):
            return None
        row = self.index().get_document(doc_id)
        if row is not None and row.area == "knowledge" and row.user_id == user_id:
            doc = self._load(user_id, row.path)
            if doc is not None and doc.id == doc_id:
                return knowledge_doc(doc)
        doc = self.store.find(doc_id, user_id, areas=("knowledge",))  # written but not indexed yet
        return knowledge_doc(doc) if doc is not None and not doc.deleted else None

    def about(self, user_id: str, subject_ids: Sequence[str], query: str, limit: int = 20) -> list[KnowledgeDoc]:
        """Facts about the excerpt's subjects (see the module docstring), best match first."""
        rows = [r for r in self.index().documents(user_id, "knowledge") if r.kind == "fact" and not r.deleted]
        rows.sort(key=lambda r: r.created_at, reverse=True)
        docs = [d for d in (self._load(user_id, r.path) for r in rows[:ABOUT_SCAN]) if d is not None]
        return ranked_about(docs, subject_ids, query, limit)
