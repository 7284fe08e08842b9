"""Review's file operations, each recording the step that reverses it, and the reversal (undo).

A step is a plain dict kept in the undo log: ``created`` (a memory the person made; undone
to the trash), ``moved``, ``updated``, ``trashed``, ``rejected``, or ``file`` (a consolidation
cycle's whole-file change). Undo first checks every file is still what the action left, then
replays the steps backwards with the exact earlier bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from curator.clock import Clock, iso_utc, parse_iso
from curator.reflection.cycle import apply as cycle_files
from curator.reflection.dated import moment_ends
from curator.reflection.gates.fingerprints import RejectedMemory, fingerprint
from curator.reflection.ports import DocumentIndex
from curator.review.lifecycle import DEFAULT_TTL_DAYS, expiry_for
from curator.review.records import ChangedOnDiskError, ReviewError, unified
from curator.review.staging import KIND_CATEGORY, file_hash, to_knowledge
from curator.vault.atomic import atomic_write_text
from curator.vault.documents import Document
from curator.vault.paths import DOC_ID_RE, VaultPaths, safe_child
from curator.vault.store import DocumentStore, TrashEntry

Steps = list[dict[str, Any]]


class UndoableFiles:
    """File operations of review actions over one vault; each appends its reversal to ``steps``."""

    def __init__(self, paths: VaultPaths, store: DocumentStore, index: DocumentIndex, rejected: RejectedMemory,
                 clock: Clock) -> None:
        self.paths = paths
        self.store = store
        self.index = index
        self.rejected = rejected
        self.clock = clock
        # Days a newly approved ``new`` document stays before "still true?" (seed 004 §10).
        self.new_ttl_days = DEFAULT_TTL_DAYS

    def rel(self, user_id: str, path: Path) -> str:
        return Path(path).resolve().relative_to(self.paths.user(user_id).root.resolve()).as_posix()

    def abs(self, user_id: str, rel: str) -> Path:
        return safe_child(self.paths.user(user_id).root, rel)

    # ---- Operations

    def move_to_knowledge(self, user_id: str, doc: Document, action: str, text: str | None, steps: Steps) -> str:
        assert doc.path is not None
        before = doc.path.read_text("utf-8")
        from_category = doc.path.parent.name
        if text is not None:
            doc.body = text.rstrip("\n") + "\n"
        to_knowledge(doc, action, iso_utc(self.clock.now()))
        if doc.scope == "new" and not doc.get("expires_at"):
            doc.meta["expires_at"] = expiry_for(self.clock.now(), self.new_ttl_days)
            ends = moment_ends(doc.get("dated"))
            if ends is not None and self.clock.now() < ends < (parse_iso(str(doc.meta["expires_at"])) or ends + 1):
                # "Works nights next week": asked "Still true?" once that week is over, not in 90 days.
                doc.meta["expires_at"] = iso_utc(ends)
        category = KIND_CATEGORY.get(doc.kind, str(doc.get("category") or "Facts"))
        if doc.kind == "fact":
            category = str(doc.get("category") or "Facts")
        target = self.store.move(doc, user_id, "knowledge", category, action=action)
        self.index.upsert(doc)
        rel = self.rel(user_id, target)
        steps.append({"op": "moved", "doc_id": doc.id, "from_area": "staging", "from_category": from_category,
                      "before_text": before, "to_rel": rel, "after_hash": file_hash(target)})
        return rel

    def update_knowledge(self, user_id: str, doc: Document, steps: Steps, *, body: str | None = None,
                         meta: dict[str, Any] | None = None, action: str) -> str:
        assert doc.path is not None
        before = doc.path.read_text("utf-8")
        if body is not None:
            doc.body = body.rstrip("\n") + "\n"
        doc.meta.update(meta or {})
        self.store.update(doc, action=action)
        self.index.upsert(doc)
        rel = self.rel(user_id, doc.path)
        steps.append({"op": "updated", "rel": rel, "before_text": before, "after_hash": file_hash(doc.path),
                      "doc_id": doc.id, "area": "knowledge"})
        return rel

    def trash(self, user_id: str, doc: Document, reason: str, steps: Steps, area: str = "staging") -> None:
        entry = self.store.trash(doc, reason=reason)
        if area == "knowledge":
            self.index.remove(doc.id)
        steps.append({"op": "trashed", "doc_id": doc.id, "area": area, "trash_path": str(entry.trash_path),
                      "original": entry.original, "title": entry.title, "deleted_at": entry.deleted_at,
                      "reason": reason})

    def reject_text(self, user_id: str, doc: Document, reason: str, steps: Steps) -> None:
        text = str(doc.get("proposed_text") or "") if doc.kind == "contradiction" else doc.body.strip()
        text = text or doc.body.strip()
        self.rejected.add(user_id, text, doc.kind, reason, doc.id)
        steps.append({"op": "rejected", "fingerprint": fingerprint(text), "doc_id": doc.id})

    # ---- Undo

    def precheck_undo(self, user_id: str, steps: Steps) -> None:
        """Refuse before anything is touched when a file is not what the action left."""
        moved = {str(s.get("doc_id")) for s in steps if s.get("op") == "moved"}
        for step in steps:
            if step.get("op") == "created" and str(step.get("doc_id")) in moved:
                continue  # created, then approved: the move's check covers the file
            if step.get("op") == "file":  # a consolidation cycle's whole-file change
                problem = cycle_files.check_undo(self.paths.user(user_id).root, step)
                if problem:
                    raise ChangedOnDiskError(f"cannot undo: {problem}", "")
                continue
            rel = (
                step.get("to_rel")
                if step.get("op") == "moved"
                else step.get("rel")
                if step.get("op") in ("updated", "created")
                else None
            )
            if rel is None:
                continue
            path = self.abs(user_id, str(rel))
            if not path.exists():
                raise ReviewError(f"cannot undo: {rel} is gone")
            if file_hash(path) != step.get("after_hash"):
                current = path.read_text("utf-8")
                raise ChangedOnDiskError(f"cannot undo: {rel} changed since the action", unified("", current, "", rel))

    def undo_step(self, user_id: str, step: dict[str, Any]) -> None:
        op = step.get("op")
        if op == "created":
            # What the person made goes to the trash, not away: an undo never loses a word.
            doc = Document.load(self.abs(user_id, str(step["rel"])))
            self.store.trash(doc, reason="undone")
            self.index.remove(str(step["doc_id"]))
        elif op == "moved":
            path = self.abs(user_id, str(step["to_rel"]))
            doc = Document.load(path)
            back = self.store.move(doc, user_id, str(step["from_area"]), str(step["from_category"]), action="undo")
            atomic_write_text(back, str(step["before_text"]))  # the exact staged bytes again
            self.index.remove(str(step["doc_id"]))
        elif op == "updated":
            path = self.abs(user_id, str(step["rel"]))
            # The exact earlier bytes, not a re-serialised document: an undo adds nothing.
            self.store.write_exact(path, str(step.get("doc_id", "")), str(step["before_text"]), action="undo")
            if step.get("area") == "knowledge":
                self.index.upsert(Document.load(path))
        elif op == "trashed":
            entry = TrashEntry(user_id, Path(str(step["trash_path"])), str(step["original"]), str(step["doc_id"]),
                               str(step.get("title", "")), str(step.get("deleted_at", "")), str(step.get("reason", "")))
            restored = self.store.restore(entry)
            if step.get("area") == "knowledge":
                self.index.upsert(Document.load(restored))
        elif op == "file":
            cycle_files.undo_step(self.paths.user(user_id).root, step)
            rel = str(step.get("rel", ""))
            if rel.startswith("Knowledge/") and step.get("before_text"):
                self.index.upsert(Document.load(self.abs(user_id, rel)))
        elif op == "rejected":
            self.rejected.remove(user_id, str(step["fingerprint"]), str(step.get("doc_id", "")))


def touched_by(entry: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Document ids and user-relative paths an undo-log entry's reversal may change."""
    ids = {str(entry.get("doc_id", ""))}
    rels: set[str] = set()
    for step in entry.get("steps", []):
        if not isinstance(step, dict):
            continue
        ids.add(str(step.get("doc_id", "")))
        for key in ("rel", "to_rel", "original"):
            value = step.get(key)
            if isinstance(value, str) and value and not value.startswith("/"):
                rels.add(value)
    return [i for i in ids if DOC_ID_RE.match(i)], sorted(rels)
