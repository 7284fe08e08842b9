"""A file-based :class:`~curator.reflection.ports.KnowledgeIndex` over ``Knowledge/``.

Used by tests and until the SQLite index is wired; fine for small vaults. It reads only the
``knowledge`` area (never staging, never trash) and resolves ids through the store, never
through paths taken from model output.
"""

from __future__ import annotations

import hashlib
import logging

from curator.reflection.gates.similarity import normalised_scores
from curator.reflection.ports import KnowledgeDoc
from curator.vault.documents import Document
from curator.vault.paths import DOC_ID_RE
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
                if doc.id and not doc.deleted:
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
