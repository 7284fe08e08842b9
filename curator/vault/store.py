"""Documents on disk: create, update with history, trash and restore, find by id.

Files are the truth. Every write is atomic; every overwrite first copies the old bytes to
``.history/<id>/``; a delete moves the file to ``.trash/`` with a note of where it was, so it
can be restored byte for byte.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from curator.clock import Clock, SystemClock, iso_utc
from curator.faults import fault_point
from curator.vault.atomic import atomic_write_bytes, atomic_write_text
from curator.vault.documents import Document, DocumentError
from curator.vault.paths import (
    CATEGORY_RE,
    UnsafePathError,
    UserPaths,
    VaultPaths,
    document_filename,
    safe_child,
)

AREAS = ("knowledge", "staging", "reflections")


@dataclass(frozen=True)
class TrashEntry:
    """A deleted document waiting in ``.trash/``."""

    user_id: str
    trash_path: Path
    original: str  # path relative to the user folder
    doc_id: str
    title: str
    deleted_at: str
    reason: str


@dataclass(frozen=True)
class HistoryEntry:
    """One earlier version of a document."""

    doc_id: str
    path: Path
    saved_at: str
    action: str


class DocumentStore:
    """All document file operations of one vault."""

    def __init__(self, paths: VaultPaths, clock: Clock | None = None) -> None:
        self.paths = paths
        self.clock = clock or SystemClock()

    # ---- Locations

    def area_dir(self, user_id: str, area: str) -> Path:
        user = self.paths.user(user_id)
        if area == "knowledge":
            return user.knowledge
        if area == "staging":
            return user.staging
        if area == "reflections":
            return user.reflections
        raise ValueError(f"unknown area {area!r}")

    def new_path(self, user_id: str, area: str, category: str, title: str, doc_id: str) -> Path:
        """Where a new document goes: ``<area>/<Category>/<slug>--<id>.md``."""
        base = self.area_dir(user_id, area)
        self._inside(base / "probe")  # a linked area folder is named as such, before it is resolved away
        if area == "reflections":
            return safe_child(base, document_filename(title, doc_id))
        if not CATEGORY_RE.match(category):
            raise UnsafePathError(f"invalid category {category!r}")
        return safe_child(base, category, document_filename(title, doc_id))

    def area_of(self, path: Path) -> tuple[str, str] | None:
        """(user_id, area) of a document path inside this vault, or None."""
        try:
            rel = Path(path).resolve().relative_to(self.paths.users_dir.resolve())
        except ValueError:
            return None
        parts = rel.parts
        if len(parts) < 3:
            return None
        folder = {"Knowledge": "knowledge", "Knowledge_staging": "staging", "Reflections": "reflections"}
        area = folder.get(parts[1])
        return (parts[0], area) if area else None

    def _inside(self, path: Path) -> Path:
        """``path``, provided it stays inside the vault with symlinks resolved.

        Every folder from the vault root down to the file must be a real folder, not a
        symbolic link: a linked ``Users/<u>/Knowledge`` would send approvals (and the
        deletion of the staged copy) somewhere else. Checked before anything is written or
        deleted, so a refusal changes nothing.
        """
        root = self.paths.root.resolve()
        absolute = Path(os.path.abspath(path))
        for base in (self.paths.root, root):
            try:
                rel = absolute.relative_to(Path(os.path.abspath(base)))
                break
            except ValueError:
                continue
        else:
            raise UnsafePathError(f"refusing to write {path}: it is outside the vault {root}")
        if not rel.parts:
            raise UnsafePathError(f"refusing to write the vault folder {root} itself")
        current = root
        for part in rel.parts:
            current = current / part
            if current.is_symlink():
                raise UnsafePathError(
                    f"refusing to write {path}: {current} is a symbolic link (to {os.path.realpath(current)}); "
                    "the vault's folders and files must be real ones inside it"
                )
        if not current.resolve().is_relative_to(root):
            raise UnsafePathError(f"refusing to write {path}: it resolves outside the vault {root}")
        return current

    # ---- Reading

    def iter_paths(self, user_id: str, area: str) -> Iterator[Path]:
        base = self.area_dir(user_id, area)
        if not base.is_dir():
            return
        for path in sorted(base.rglob("*.md")):
            if not any(part.startswith(".") for part in path.relative_to(base).parts):
                yield path

    def iter_documents(self, user_id: str, area: str) -> Iterator[tuple[Path, Document | DocumentError]]:
        """Every document of an area; unreadable ones come back as their error, not skipped silently."""
        for path in self.iter_paths(user_id, area):
            try:
                yield path, Document.load(path)
            except (DocumentError, OSError) as exc:
                yield path, DocumentError(str(exc))

    def find(self, doc_id: str, user_id: str | None = None, areas: tuple[str, ...] = AREAS) -> Document | None:
        """Find a document by id by scanning file names (ids are in every file name)."""
        users = [user_id] if user_id else self.paths.user_ids()
        for uid in users:
            for area in areas:
                for path in self.iter_paths(uid, area):
                    if path.stem.endswith(f"--{doc_id}"):
                        try:
                            doc = Document.load(path)
                        except (DocumentError, OSError):
                            continue
                        if doc.id == doc_id:
                            return doc
        return None

    # ---- Writing

    def create(self, doc: Document, user_id: str, area: str, category: str = "Facts") -> Path:
        """Write a new document; refuses to overwrite an existing file."""
        path = self._inside(self.new_path(user_id, area, category, doc.title or doc.id, doc.id))
        if path.exists():
            raise FileExistsError(f"{path} already exists")
        doc.meta["user_id"] = user_id
        return doc.save(path)

    def update(self, doc: Document, action: str = "edit") -> Path:
        """Save a changed document in place, keeping the previous bytes in its history."""
        if doc.path is None:
            raise ValueError("document was never saved")
        self._inside(doc.path)
        self._snapshot(doc.path, doc.id, action)
        doc.meta["updated_at"] = iso_utc(self.clock.now())
        return doc.save()

    def write_exact(self, path: Path, doc_id: str, text: str, action: str) -> Path:
        """Put ``text`` back into a document file byte for byte (an undo), keeping history."""
        path = self._inside(path)
        self._snapshot(path, doc_id, action)
        atomic_write_text(path, text)
        return path

    def move(self, doc: Document, user_id: str, area: str, category: str, action: str) -> Path:
        """Move a document to another area (e.g. staging -> knowledge), with history."""
        if doc.path is None:
            raise ValueError("document was never saved")
        old = self._inside(doc.path)
        target = self._inside(self.new_path(user_id, area, category, doc.title or doc.id, doc.id))
        self._snapshot(old, doc.id, action)
        if target.exists() and target != old:
            raise FileExistsError(f"{target} already exists")
        doc.save(target)
        fault_point("store.move.after_write")
        if old != target and old.exists():
            os.unlink(old)
        return target

    def _history_dir(self, doc_path: Path, doc_id: str) -> Path:
        located = self.area_of(doc_path)
        user = self.paths.user(located[0] if located else "default")
        return safe_child(user.history, doc_id)

    def _snapshot(self, path: Path, doc_id: str, action: str) -> None:
        if not path.exists() or not doc_id:
            return
        folder = self._history_dir(path, doc_id)
        self._inside(folder / "x")
        stamp = f"{self.clock.now():.6f}"
        atomic_write_bytes(folder / f"{stamp}.md", path.read_bytes())
        atomic_write_text(
            folder / f"{stamp}.json",
            json.dumps(
                {"action": action, "saved_at": iso_utc(self.clock.now()), "path": str(path)}
            ),
        )

    def history(self, doc_id: str, user_id: str) -> list[HistoryEntry]:
        """Earlier versions of a document, oldest first."""
        folder = self.paths.user(user_id).history / doc_id
        entries: list[HistoryEntry] = []
        if not folder.is_dir():
            return entries
        for md in sorted(folder.glob("*.md"), key=lambda p: float(p.stem)):
            info: dict[str, str] = {}
            try:
                info = json.loads(md.with_suffix(".json").read_text("utf-8"))
            except (OSError, ValueError):
                pass
            entries.append(HistoryEntry(doc_id, md, str(info.get("saved_at", "")), str(info.get("action", ""))))
        return entries

    # ---- Trash

    def trash(self, doc: Document, reason: str = "") -> TrashEntry:
        """Move a document into its user's ``.trash/`` with a note of where it came from."""
        if doc.path is None or not doc.path.exists():
            raise FileNotFoundError("document is not on disk")
        located = self.area_of(doc.path)
        user_id = located[0] if located else doc.user_id
        user = self.paths.user(user_id)
        stamp = f"{self.clock.now():.6f}"
        self._inside(doc.path)
        target = self._inside(user.trash / f"{stamp}--{doc.path.name}")
        user.trash.mkdir(parents=True, exist_ok=True)
        note = {
            "original": str(doc.path.resolve().relative_to(user.root.resolve())),
            "doc_id": doc.id,
            "title": doc.title,
            "deleted_at": iso_utc(self.clock.now()),
            "reason": reason,
        }
        atomic_write_text(target.with_suffix(".json"), json.dumps(note, indent=2))
        fault_point("store.trash.after_note")
        shutil.move(str(doc.path), str(target))
        return self._trash_entry(user_id, target, note)

    def _trash_entry(self, user_id: str, target: Path, note: dict[str, str]) -> TrashEntry:
        return TrashEntry(
            user_id=user_id,
            trash_path=target,
            original=note.get("original", ""),
            doc_id=note.get("doc_id", ""),
            title=note.get("title", ""),
            deleted_at=note.get("deleted_at", ""),
            reason=note.get("reason", ""),
        )

    def list_trash(self, user_id: str) -> list[TrashEntry]:
        user: UserPaths = self.paths.user(user_id)
        entries: list[TrashEntry] = []
        if not user.trash.is_dir():
            return entries
        for md in sorted(user.trash.glob("*.md")):
            try:
                note = json.loads(md.with_suffix(".json").read_text("utf-8"))
            except (OSError, ValueError):
                note = {"original": f"Knowledge/Restored/{md.name.split('--', 1)[-1]}"}
            entries.append(self._trash_entry(user_id, md, note))
        return entries

    def restore(self, entry: TrashEntry) -> Path:
        """Put a trashed document back where it was (refusing to overwrite)."""
        user = self.paths.user(entry.user_id)
        target = self._inside(safe_child(user.root, entry.original))
        self._inside(entry.trash_path)
        if target.exists():
            raise FileExistsError(f"cannot restore: {target} exists")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(entry.trash_path), str(target))
        fault_point("store.restore.after_move")
        note = entry.trash_path.with_suffix(".json")
        if note.exists():
            os.unlink(note)
        return target
