"""Review actions: what a person does with staged items (engine API behind the GUI and CLI).

- ``list_items`` - staged items by kind, ranked (recurring and confident first), flagged
  items in their own lane, unreadable files reported;
- ``show`` - one item with its gates, flags, evidence turns and, for corrections and
  contradictions, a diff; records the exact bytes shown;
- ``approve`` - into ``Knowledge/<Category>/`` with history, writing exactly the text shown:
  the caller passes the sha256 of the bytes it showed and a changed file is refused with a
  unified diff; flagged items need ``accept_flags=True``; an edited text may be given;
- ``edit`` - change a staged item's text; ``discard`` - to trash with the reason, and the
  text is remembered so it is not proposed again; ``resolve`` - a contradiction:
  ``keep_a`` (the existing fact), ``keep_b`` (the proposed one), ``keep_both`` (with a
  note), ``keep_neither``;
- ``undo`` - reverses the last actions from a persisted log
  (``Users/<u>/Logs/review_undo.json``), refusing when a file changed since.

Every write goes through :class:`~curator.vault.store.DocumentStore` or ``curator.vault.atomic``;
the search index is kept in step through the :class:`DocumentIndex` port; events
``review.approved|edited|discarded|resolved|undone`` are emitted on the bus.

This module is the public API; the parts live beside it: ``records`` (what actions return
and raise), ``items`` (finding documents, building queue records), ``applying`` (corrections,
lifecycle changes, contradiction answers), ``file_ops`` (undoable file operations and undo)
and ``action_log`` (the undo log, the texts shown, the events).
"""

from __future__ import annotations

from typing import Any

from curator.clock import Clock, SystemClock, iso_utc
from curator.events import EventBus
from curator.faults import fault_point
from curator.reflection.gates.fingerprints import RejectedMemory
from curator.reflection.gates.untrusted import invisible_characters, reveal
from curator.reflection.ports import DocumentIndex, NullDocumentIndex, TurnSource
from curator.reflection.summaries import REVIEW_PENDING, SummaryStore
from curator.review.action_log import SHOWN_LIMIT, UNDO_LIMIT, ActionLog
from curator.review.applying import Applier
from curator.review.diffing import word_diff
from curator.review.file_ops import Steps, UndoableFiles, touched_by
from curator.review.intent import ActionInProgressError, IntentLog
from curator.review.items import find_staged, require_flags_ok, review_item, sides, summary_item
from curator.review.lifecycle import LIFECYCLE_KINDS
from curator.review.records import (
    KINDS,
    MIN_HASH_PREFIX,
    RESOLUTIONS,
    ActionResult,
    ChangedOnDiskError,
    EvidenceTurn,
    FlaggedItemError,
    QueueListing,
    ReviewDetail,
    ReviewError,
    ReviewItem,
    sha_text,
    unified,
)
from curator.review.staging import StagingArea, file_hash
from curator.vault.documents import Document
from curator.vault.paths import DOC_ID_RE, VaultPaths
from curator.vault.store import DocumentStore

__all__ = [
    "KINDS", "MIN_HASH_PREFIX", "RESOLUTIONS", "SHOWN_LIMIT", "UNDO_LIMIT", "ActionResult", "ChangedOnDiskError",
    "EvidenceTurn", "FlaggedItemError", "QueueListing", "ReviewDetail", "ReviewEngine", "ReviewError", "ReviewItem",
    "unified",
]


class ReviewEngine:
    """Review actions over one vault.

    Threading contract: not thread-safe; call from one thread (the GUI runs actions as
    operations on a worker, one at a time).
    """

    def __init__(
        self,
        paths: VaultPaths,
        store: DocumentStore,
        *,
        index: DocumentIndex | None = None,
        turns: TurnSource | None = None,
        events: EventBus | None = None,
        clock: Clock | None = None,
        rejected: RejectedMemory | None = None,
    ) -> None:
        self.paths = paths
        self.store = store
        self.index = index or NullDocumentIndex()
        self.turns = turns
        self.events = events
        self.clock = clock or SystemClock()
        self.rejected = rejected if rejected is not None else RejectedMemory(paths, self.clock)
        self.staging = StagingArea(store, self.clock)
        self.log = ActionLog(paths, self.clock, events)
        self.files = UndoableFiles(paths, store, self.index, self.rejected, self.clock)
        self.applier = Applier(store, self.files, self.log, self.clock)
        self.intents = IntentLog(paths)
        self.recovered = self.recover()

    @property
    def new_ttl_days(self) -> float:
        """Days a newly approved ``new`` document stays before "still true?" (seed 004 §10);
        the engine sets it from ``lifecycle.new_ttl_days``."""
        return self.files.new_ttl_days

    @new_ttl_days.setter
    def new_ttl_days(self, days: float) -> None:
        self.files.new_ttl_days = days

    # ---- Reading

    def list_items(self, user_id: str, kind: str | None = None) -> QueueListing:
        """Staged items ranked for review; unreadable staging files in ``problems``."""
        docs, problems = self.staging.scan(user_id)
        items = [self._item(user_id, d) for d in docs if kind is None or d.kind == kind]
        if kind in (None, "summary"):
            items += [self._summary_item(user_id, d) for d in self._summaries(user_id).pending(user_id)]
        # Recurring first, then most confident, then newest.
        items.sort(key=lambda i: i.staged_at, reverse=True)
        items.sort(key=lambda i: (not i.recurring, -i.confidence))
        return QueueListing(items, problems)

    def show(self, user_id: str, item_id: str) -> ReviewDetail:
        """One item in full; the bytes shown are remembered for a later diff."""
        summary = self._pending_summary(user_id, item_id)
        if summary is not None and summary.path is not None:
            return self._show_summary(user_id, summary)
        doc = find_staged(self.store, user_id, item_id)
        assert doc.path is not None
        text = doc.path.read_text("utf-8")
        self.log.remember_shown(user_id, text)
        item = self._item(user_id, doc)
        old, new = sides(doc)
        hunks = word_diff(old, new) if (old or new) and doc.kind in ("correction", "contradiction") else []
        return ReviewDetail(item, text, reveal(doc.body), invisible_characters(doc.body),
                            self._evidence(user_id, item.source_turns), hunks, old, new)

    def _show_summary(self, user_id: str, summary: Document) -> ReviewDetail:
        assert summary.path is not None
        text = summary.path.read_text("utf-8")
        self.log.remember_shown(user_id, text)
        item = self._summary_item(user_id, summary)
        return ReviewDetail(item, text, reveal(item.text), invisible_characters(item.text),
                            self._evidence(user_id, item.source_turns[:200]), [])

    def _evidence(self, user_id: str, numbers: list[int]) -> list[EvidenceTurn]:
        evidence = []
        for number in numbers:
            turn = self.turns.get(user_id, number) if self.turns is not None else None
            evidence.append(EvidenceTurn(number, turn.role if turn else "", turn.speaker if turn else "",
                                         turn.text if turn else "", turn is not None))
        return evidence

    # ---- Actions

    def approve(self, user_id: str, item_id: str, seen_hash: str, *, text: str | None = None,
                accept_flags: bool = False) -> ActionResult:
        """Approve a staged item (optionally with an edited text) into Knowledge (all or nothing)."""
        with self.intents.action(user_id, "approve", self._ids_of(user_id, item_id)):
            return self._approve(user_id, item_id, seen_hash, text=text, accept_flags=accept_flags)

    def edit(self, user_id: str, item_id: str, seen_hash: str, text: str) -> ActionResult:
        """Replace a staged item's text (history kept); returns the new hash to show."""
        with self.intents.action(user_id, "edit", self._ids_of(user_id, item_id)):
            return self._edit(user_id, item_id, seen_hash, text)

    def discard(self, user_id: str, item_id: str, reason: str = "", seen_hash: str | None = None) -> ActionResult:
        """Move a staged item to trash, keep the reason, and remember its text as rejected."""
        with self.intents.action(user_id, "discard", self._ids_of(user_id, item_id)):
            return self._discard(user_id, item_id, reason, seen_hash)

    def resolve(self, user_id: str, item_id: str, choice: str, seen_hash: str, *, note: str = "",
                accept_flags: bool = False) -> ActionResult:
        """Resolve a contradiction: keep_a (existing), keep_b (proposed), keep_both (note), keep_neither."""
        with self.intents.action(user_id, "resolve", self._ids_of(user_id, item_id)):
            return self._resolve(user_id, item_id, choice, seen_hash, note=note, accept_flags=accept_flags)

    def recover(self) -> list[str]:
        """Roll back review actions a crash left unfinished (every user); returns what was done."""
        messages = []
        for user_id in self.paths.user_ids():
            try:
                message = self.intents.recover(user_id)
            except ActionInProgressError as exc:
                message = str(exc)
            if message:
                messages.append(message)
        return messages

    def _approve(self, user_id: str, item_id: str, seen_hash: str, *, text: str | None = None,
                accept_flags: bool = False) -> ActionResult:
        """Approve a staged item (optionally with an edited text) into Knowledge."""
        summary = self._pending_summary(user_id, item_id)
        if summary is not None:
            return self._approve_summary(user_id, summary, seen_hash, text)
        doc = self._checked(user_id, item_id, seen_hash)
        require_flags_ok(doc, accept_flags)
        if doc.kind == "contradiction":
            raise ReviewError(
                "a contradiction is resolved, not approved: use resolve (keep_a|keep_b|keep_both|keep_neither)"
            )
        if doc.kind == "correction":
            return self.applier.correction(user_id, doc, text)
        if doc.kind in LIFECYCLE_KINDS:
            return self.applier.lifecycle(user_id, doc)
        steps: Steps = []
        path = self.files.move_to_knowledge(user_id, doc, "edited" if text is not None else "approved", text, steps)
        self.log.append(user_id, "approve", doc.id, steps)
        self.log.emit("review.approved", user_id, doc.id, path=path)
        return ActionResult("approve", doc.id, f"approved into {path}", [path],
                            file_hash(self.files.abs(user_id, path)))

    def _edit(self, user_id: str, item_id: str, seen_hash: str, text: str) -> ActionResult:
        """Replace a staged item's text (history kept); returns the new hash to show."""
        if not text.strip():
            raise ReviewError("the text cannot be empty; discard the item instead")
        doc = self._checked(user_id, item_id, seen_hash)
        assert doc.path is not None
        before = doc.path.read_text("utf-8")
        doc.body = text.rstrip("\n") + "\n"
        doc.meta["edited_at"] = iso_utc(self.clock.now())
        if doc.kind == "correction":
            doc.meta["new_text"] = text
        elif doc.kind == "contradiction":
            doc.meta["proposed_text"] = text
        self.store.update(doc, action="edit staged")
        rel = self.files.rel(user_id, doc.path)
        new_hash = file_hash(doc.path)
        self.log.append(user_id, "edit", doc.id, [{"op": "updated", "rel": rel, "before_text": before,
                                                   "after_hash": new_hash, "doc_id": doc.id, "area": "staging"}])
        self.log.emit("review.edited", user_id, doc.id, path=rel)
        return ActionResult("edit", doc.id, "edited", [rel], new_hash)

    def _discard(self, user_id: str, item_id: str, reason: str = "", seen_hash: str | None = None) -> ActionResult:
        """Move a staged item to trash, keep the reason, and remember its text as rejected."""
        summary = self._pending_summary(user_id, item_id)
        if summary is not None:
            # A summary is soft-deleted, as in the Reflections timeline: kept, never searchable.
            self._summaries(user_id).delete(user_id, summary.id)
            self.log.emit("review.discarded", user_id, summary.id, reason=reason)
            return ActionResult("discard", summary.id, "summary deleted (kept in Reflections, not searchable)")
        doc = self._checked(user_id, item_id, seen_hash) if seen_hash else find_staged(self.store, user_id, item_id)
        steps: Steps = []
        self.files.reject_text(user_id, doc, reason or "discarded", steps)
        self.files.trash(user_id, doc, f"discarded: {reason}" if reason else "discarded", steps)
        self.log.append(user_id, "discard", doc.id, steps)
        self.log.emit("review.discarded", user_id, doc.id, reason=reason)
        return ActionResult("discard", doc.id, "discarded to trash" + (f" ({reason})" if reason else ""))

    def _resolve(self, user_id: str, item_id: str, choice: str, seen_hash: str, *, note: str = "",
                 accept_flags: bool = False) -> ActionResult:
        """Resolve a contradiction: keep_a (existing), keep_b (proposed), keep_both (note), keep_neither."""
        if choice not in RESOLUTIONS:
            raise ReviewError(f"choice must be one of {', '.join(RESOLUTIONS)}")
        doc = self._checked(user_id, item_id, seen_hash)
        return self.applier.resolve(user_id, doc, choice, note, accept_flags)

    # ---- Undo

    def undo(self, user_id: str, count: int = 1) -> list[ActionResult]:
        """Reverse the last ``count`` actions, newest first; stops at the first refusal.

        Each reversal is one recoverable action: a crash in the middle leaves the action
        done (and still undoable), never half undone.
        """
        results: list[ActionResult] = []
        for _ in range(count):
            entries = self.undo_log(user_id)
            if not entries:
                if not results:
                    raise ReviewError("nothing to undo")
                break
            ids, rels = touched_by(entries[-1])
            try:
                with self.intents.action(user_id, "undo", ids, rels):
                    results.append(self._undo_one(user_id))
            except ReviewError:
                if not results:
                    raise
                break
        return results

    def _undo_one(self, user_id: str) -> ActionResult:
        entries = self.undo_log(user_id)
        entry = entries[-1]
        steps = list(entry.get("steps", []))
        self.files.precheck_undo(user_id, steps)
        for step in reversed(steps):
            self.files.undo_step(user_id, step)
            fault_point("review.undo.after_step")
        fault_point("review.undo.before_log")
        self.log.save(user_id, entries[:-1])
        self.log.emit("review.undone", user_id, str(entry.get("doc_id", "")), action=entry.get("action"))
        return ActionResult("undo", str(entry.get("doc_id", "")), f"undid {undone_words(str(entry.get('action')))}")

    def record_action(self, user_id: str, action: str, doc_id: str, steps: list[dict[str, Any]],
                      actor: str = "") -> None:
        """Log an action done elsewhere (a consolidation cycle) so ``undo`` reverses it as one."""
        self.log.append(user_id, action, doc_id, steps, actor=actor)

    def emit(self, kind: str, user_id: str, doc_id: str, **data: Any) -> None:
        """Emit a review event for an action done elsewhere."""
        self.log.emit(kind, user_id, doc_id, **data)

    def undo_log(self, user_id: str) -> list[dict[str, Any]]:
        """The persisted action log, oldest first."""
        return self.log.entries(user_id)

    # ---- Internals: items

    def _item(self, user_id: str, doc: Document) -> ReviewItem:
        assert doc.path is not None
        return review_item(doc, self.files.rel(user_id, doc.path))

    def _checked(self, user_id: str, item_id: str, seen_hash: str) -> Document:
        """The staged item, provided its bytes are the ones the person was shown."""
        doc = find_staged(self.store, user_id, item_id)
        assert doc.path is not None
        current_text = doc.path.read_text("utf-8")
        current = sha_text(current_text)
        wanted = (seen_hash or "").strip().lower()
        if len(wanted) < MIN_HASH_PREFIX or not current.startswith(wanted):
            shown = self.log.shown_text(user_id, wanted)
            diff = unified(shown, current_text) if shown is not None else ""
            raise ChangedOnDiskError(
                f"{item_id} is not what was shown (shown {wanted[:12] or 'nothing'}, now {current[:12]}); "
                "show it again and review the new text", diff)
        return doc

    def _ids_of(self, user_id: str, item_id: str) -> list[str]:
        # The item and the Knowledge document it corrects or contradicts: every file an
        # action on it may touch carries one of these ids in its name.
        if self._pending_summary(user_id, item_id) is not None:
            return [item_id]  # a summary waiting for review touches only its own file
        doc = find_staged(self.store, user_id, item_id)
        related = [str(doc.get(key) or "") for key in ("target_id", "existing_id")]
        return [item_id, *(r for r in related if DOC_ID_RE.match(r))]

    # ---- Internals: summaries waiting for review (their own lane)

    def _summaries(self, user_id: str) -> SummaryStore:
        return SummaryStore(self.store, self.clock, self.index, self.events)

    def _pending_summary(self, user_id: str, item_id: str) -> Document | None:
        if not DOC_ID_RE.match(item_id or ""):
            return None
        doc = self.store.find(item_id, user_id, areas=("reflections",))
        return doc if doc is not None and doc.get("review") == REVIEW_PENDING and not doc.deleted else None

    def _summary_item(self, user_id: str, doc: Document) -> ReviewItem:
        assert doc.path is not None
        return summary_item(doc, self.files.rel(user_id, doc.path))

    def _approve_summary(self, user_id: str, doc: Document, seen_hash: str, text: str | None) -> ActionResult:
        assert doc.path is not None
        current = sha_text(doc.path.read_text("utf-8"))
        wanted = (seen_hash or "").strip().lower()
        if len(wanted) < MIN_HASH_PREFIX or not current.startswith(wanted):
            raise ChangedOnDiskError(f"{doc.id} is not what was shown; show it again", "")
        store = self._summaries(user_id)
        if text is not None:
            store.edit(user_id, doc.id, summary=text)
        approved = store.approve(user_id, doc.id)
        self.log.emit("review.approved", user_id, doc.id, path=self.files.rel(user_id, approved.path or doc.path))
        return ActionResult("approve", doc.id, "summary approved: search may return it", [], "")


# What an undo says it took back, in words (the log keeps the action's code name).
UNDONE = {"approve": "the approval", "discard": "the discard", "edit": "the edit",
          "resolve": "the answer to a contradiction", "approve_all": "approving several in one step",
          "discard_all": "discarding several in one step", "remember": "“remember this”",
          "add": "the memory added by hand", "pin": "the pin", "unpin": "the unpin",
          "retire": "“no longer true”", "merge": "the merge", "cycle": "the answer to a consolidation cycle"}


def undone_words(action: str) -> str:
    """``approve_all`` -> "approving several in one step": what an undo names to a person."""
    return UNDONE.get(action) or UNDONE.get(action.split(":")[0]) or action.replace("_", " ").replace(":", " ")
