"""The three memory tools of seed 004 §6: search, save, retrieve.

These are the only memory operations offered to agents (and the GUI's knowledge pane):
``search`` is the unified search, ``save`` writes a document through the DocumentStore
and indexes it at once, ``retrieve`` returns one document by id or by vault-relative path
(checked with ``safe_child``) or one turn by number.

Saved documents go to Knowledge_staging/ by default: seed 004 §7 commits memory
candidates only after approval, so a model's ``save`` is a proposal, never a fact.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from curator.clock import Clock, SystemClock, iso_utc
from curator.index.database import Index
from curator.index.search import SearchFilters, search
from curator.vault.documents import Document, DocumentError
from curator.vault.paths import UnsafePathError, VaultPaths, new_id, safe_child
from curator.vault.scopes import SCOPES
from curator.vault.store import DocumentStore

log = logging.getLogger(__name__)


def document_fingerprint(path: Path) -> str:
    """Size and mtime of a document file: when it changes the document is re-indexed."""
    st = os.stat(path)
    return f"{st.st_size}:{st.st_mtime_ns}"


def index_document_file(index: Index, store: DocumentStore, path: Path) -> bool:
    """(Re-)index one document file of the vault; returns False when it is unreadable or outside."""
    located = store.area_of(path)
    if located is None:
        return False
    user_id, area = located
    rel = Path(path).resolve().relative_to(store.paths.root.resolve()).as_posix()
    if not Path(path).exists():
        index.remove_document(rel)
        return True
    try:
        doc = Document.load(path)
    except (DocumentError, OSError) as exc:
        log.warning("document %s not indexed: %s", rel, exc)
        return False
    index.upsert_document(rel, doc, user_id, area, document_fingerprint(path))
    return True


def sync_documents(index: Index, store: DocumentStore) -> dict[str, int]:
    """Bring the index's documents in line with the vault's files (changed, new, gone)."""
    seen: set[str] = set()
    counts = {"indexed": 0, "unchanged": 0, "removed": 0, "unreadable": 0}
    root = store.paths.root.resolve()
    for user_id in store.paths.user_ids():
        for area in ("knowledge", "staging", "reflections"):
            for path in store.iter_paths(user_id, area):
                rel = path.resolve().relative_to(root).as_posix()
                seen.add(rel)
                try:
                    fingerprint = document_fingerprint(path)
                except OSError:
                    continue
                if index.document_fingerprint(rel) == fingerprint:
                    counts["unchanged"] += 1
                elif index_document_file(index, store, path):
                    counts["indexed"] += 1
                else:
                    counts["unreadable"] += 1
    for rel in set(index.document_paths()) - seen:
        index.remove_document(rel)
        counts["removed"] += 1
    return counts


class MemoryTools:
    """memory.search / memory.save / memory.retrieve over one vault."""

    def __init__(self, paths: VaultPaths, index: Index, store: DocumentStore, clock: Clock | None = None) -> None:
        self.paths = paths
        self.index = index
        self.store = store
        self.clock = clock or SystemClock()

    def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        topic: str | None = None,
        content_types: Sequence[str] = (),
        scope: str | None = None,
        min_quality: float | None = None,
        since: float | None = None,
        until: float | None = None,
        freshness_days: float | None = None,
        limit: int = 10,
    ) -> list[dict[str, Any]]:
        """memory.search: unified BM25 search with filters; plain dicts, best first.

        ``freshness_days`` keeps only items from the last N days (another way to say ``since``).
        """
        if freshness_days is not None:
            since = max(since or 0.0, self.clock.now() - freshness_days * 86400.0)
        filters = SearchFilters(
            user_id=user_id,
            kinds=tuple(content_types),
            topic=topic,
            scope=scope,
            min_quality=min_quality,
            since=since,
            until=until,
        )
        return [hit.to_dict() for hit in search(self.index, query, filters, limit)]

    def save(
        self,
        *,
        title: str,
        content: str,
        user_id: str = "default",
        kind: str = "fact",
        category: str = "Facts",
        area: str = "staging",
        keywords: Sequence[str] = (),
        topic: str = "",
        content_types: Sequence[str] = (),
        scope: str = "new",
        quality: float = 0.5,
        source_turns: Sequence[int] = (),
        **fields: Any,
    ) -> dict[str, Any]:
        """memory.save: write a new document and index it; returns its id and vault path.

        ``area`` is ``staging`` (default: a proposal a person reviews) or ``knowledge``
        (for callers that already have a person's approval).
        """
        if area not in ("staging", "knowledge"):
            raise ValueError(f"memory.save writes to staging or knowledge, not {area!r}")
        if scope not in SCOPES:
            raise ValueError(f"scope must be one of {', '.join(SCOPES)}")
        if not 0.0 <= float(quality) <= 1.0:
            raise ValueError("quality must be between 0.0 and 1.0")
        doc = Document.new(
            doc_id=new_id(),
            kind=kind,
            title=title,
            body=content.rstrip() + "\n",
            primary_topic=topic,
            keywords=list(keywords),
            content_types=list(content_types) or [kind],
            scope=scope,
            quality=float(quality),
            created_at=iso_utc(self.clock.now()),
            source_turns=[int(n) for n in source_turns],
            **fields,
        )
        path = self.store.create(doc, user_id, area, category)
        index_document_file(self.index, self.store, path)
        rel = path.resolve().relative_to(self.paths.root.resolve()).as_posix()
        log.info("memory.save: %s %r saved to %s", kind, title, rel)
        return {"id": doc.id, "path": rel, "area": area}

    def retrieve(self, ref: str, *, user_id: str = "default", include_staged: bool = False) -> dict[str, Any] | None:
        """memory.retrieve: a document by id or vault-relative path, or a turn (``turn:N``).

        Staged items are returned only with ``include_staged`` (agents never see them).

        Raises:
            UnsafePathError: a path that would leave the vault.
        """
        ref = ref.strip()
        # A bare number is a turn, unless a document has it for its id: ids are 12 random hex
        # digits, and about one in 280 is digits only.
        if ref.startswith("turn:") or (ref.isdigit() and self.index.get_document(ref) is None):
            turn = self.index.get_turn(user_id, int(ref.split(":", 1)[-1]))
            if turn is None:
                return None
            return {"type": "turn", "id": str(turn.number), **_turn_dict(turn)}
        path: Path | None = None
        if "/" in ref or ref.endswith(".md"):
            path = safe_child(self.paths.root, ref)
        else:
            row = self.index.get_document(ref)
            if row is not None:
                path = safe_child(self.paths.root, row.path)
            else:
                found = self.store.find(ref)
                path = found.path if found else None
        if path is None or not path.is_file():
            return None
        located = self.store.area_of(path)
        if located is None:
            raise UnsafePathError(f"{ref} is not a document of the vault")
        if located[1] == "staging" and not include_staged:
            return None
        doc = Document.load(path)
        rel = path.resolve().relative_to(self.paths.root.resolve()).as_posix()
        return {"type": "document", "id": doc.id, "path": rel, "area": located[1], "meta": doc.meta, "body": doc.body}


def _turn_dict(turn: Any) -> dict[str, Any]:
    return {
        "number": turn.number,
        "user_id": turn.user_id,
        "role": turn.role,
        "speaker": turn.speaker,
        "text": turn.text,
        "timestamp": turn.timestamp,
        "status": turn.status,
        "provenance": {
            "source_id": turn.source_id,
            "file": turn.file,
            "conversation": turn.conversation,
            "key": turn.key,
            "position": turn.position,
            "sha256": turn.sha256,
        },
        "extra": turn.extra,
    }
