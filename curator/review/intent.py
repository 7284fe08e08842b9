"""The review intent log: every review action is all or nothing, even under ``kill -9``.

Before an action (approve, edit, discard, resolve, undo) touches anything, it writes one
intent record (atomically, fsynced) holding the exact bytes of every file the action may
change: each file whose name carries one of the action's document ids in Knowledge/,
Knowledge_staging/ and .trash/, any other file it names, and the review logs (undo history,
rejected texts). Then it does its steps. The last step removes the record.

A record still present means the action never finished. ``recover`` rolls it back: every
file is put back to its recorded bytes and every file the action created is removed, so
the item is where it was before (never in two places, never in none) and the undo history
is the one that matched those files. Recovery is idempotent: a crash during recovery is
recovered by the next one. A record of a live process (another window mid-action) is left
alone.
"""

from __future__ import annotations

import base64
import json
import logging
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from curator.faults import fault_point
from curator.vault.atomic import atomic_write_bytes, quarantine
from curator.vault.lock import pid_alive
from curator.vault.paths import DOC_ID_RE, VaultPaths, safe_child

log = logging.getLogger(__name__)

INTENT_NAME = "review_intent.json"
_AREAS = ("Knowledge", "Knowledge_staging", ".trash")
_STATE_FILES = ("Logs/review_undo.json", "Logs/review_rejected.json")


class ActionInProgressError(RuntimeError):
    """Another live process is in the middle of a review action on this user's files."""


class IntentLog:
    """Write-ahead records of review actions for one vault."""

    def __init__(self, paths: VaultPaths) -> None:
        self.paths = paths

    def file(self, user_id: str) -> Path:
        """Where one user's pending intent lives."""
        return self.paths.user(user_id).root / "Logs" / INTENT_NAME

    # ---- Writing

    @contextmanager
    def action(self, user_id: str, action: str, doc_ids: Iterable[str],
               rels: Iterable[str] = ()) -> Iterator[None]:
        """Run the body as one recoverable action (rolled back on an exception, too)."""
        self.begin(user_id, action, doc_ids, rels)
        try:
            yield
        except BaseException:
            # A refusal half-way (a file that appeared, a full disk) must not leave half an action.
            self.recover(user_id, force=True)
            raise
        fault_point(f"review.{action}.before_done")
        self.done(user_id)

    def begin(self, user_id: str, action: str, doc_ids: Iterable[str], rels: Iterable[str] = ()) -> None:
        """Record the bytes of everything ``action`` may change, before it changes anything."""
        pending = self.recover(user_id)
        if pending:
            log.warning(pending)
        root = self.paths.user(user_id).root
        ids = sorted({d for d in doc_ids if d and DOC_ID_RE.match(d)})
        files: dict[str, str | None] = {}
        for rel in [*self._doc_files(root, ids), *_STATE_FILES, *rels]:
            path = safe_child(root, rel)
            files[rel] = base64.b64encode(path.read_bytes()).decode("ascii") if path.is_file() else None
        record = {"action": action, "pid": os.getpid(), "doc_ids": ids, "files": files}
        atomic_write_bytes(self.file(user_id), json.dumps(record, sort_keys=True).encode("utf-8"))
        fault_point(f"review.{action}.after_intent")

    def done(self, user_id: str) -> None:
        """The action finished: forget its record."""
        self.file(user_id).unlink(missing_ok=True)

    # ---- Recovering

    def recover(self, user_id: str, *, force: bool = False) -> str:
        """Roll back an unfinished action of ``user_id``; returns what was done ('' for nothing).

        Args:
            user_id: whose files.
            force: roll back even when the record's process is alive (it is this process,
                recovering from its own exception).

        Raises:
            ActionInProgressError: the record belongs to another live process.
        """
        path = self.file(user_id)
        if not path.exists():
            return ""
        try:
            record = json.loads(path.read_bytes())
            files = record["files"]
            ids = [str(d) for d in record.get("doc_ids", [])]
            if not isinstance(files, dict):
                raise TypeError("files is not a mapping")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            aside = quarantine(path)
            return f"an unreadable review intent record was kept aside as {aside.name} ({exc})"
        pid = int(record.get("pid", 0) or 0)
        if not force and pid != os.getpid() and pid_alive(pid):
            raise ActionInProgressError(f"another process (pid {pid}) is in the middle of a review action; try again")
        root = self.paths.user(user_id).root
        changed = self._roll_back(root, ids, files)
        path.unlink(missing_ok=True)
        action = str(record.get("action", "action"))
        message = f"an interrupted {action} of {', '.join(ids) or 'an item'} was rolled back ({changed} files restored)"
        log.warning(message)
        return message

    def _roll_back(self, root: Path, ids: list[str], files: dict[str, Any]) -> int:
        changed = 0
        # Put every recorded file back first, then remove what the action created: a crash
        # in between leaves an extra copy (removed by the next recovery), never no copy.
        for rel, encoded in files.items():
            if encoded is None:
                continue
            target = safe_child(root, rel)
            data = base64.b64decode(encoded)
            if not target.is_file() or target.read_bytes() != data:
                atomic_write_bytes(target, data)
                changed += 1
        for rel in [*self._doc_files(root, ids), *(r for r, e in files.items() if e is None)]:
            if files.get(rel) is None:
                target = safe_child(root, rel)
                if target.is_file():
                    target.unlink()
                    changed += 1
        return changed

    @staticmethod
    def _doc_files(root: Path, ids: list[str]) -> list[str]:
        """User-relative paths of every file in the review areas that carries one of ``ids``."""
        out: list[str] = []
        for area in _AREAS:
            base = root / area
            if not base.is_dir() or base.is_symlink():
                continue
            for doc_id in ids:
                for path in base.rglob(f"*--{doc_id}.*"):
                    if path.suffix in (".md", ".json") and path.is_file():
                        out.append(path.relative_to(root).as_posix())
        return sorted(set(out))
