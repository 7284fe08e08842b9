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
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from curator.clock import Clock, SystemClock, iso_utc
from curator.events import EventBus
from curator.faults import fault_point
from curator.reflection.cycle import apply as cycle_files
from curator.reflection.gates.fingerprints import RejectedMemory, fingerprint
from curator.reflection.gates.untrusted import invisible_characters, reveal
from curator.reflection.ports import DocumentIndex, NullDocumentIndex, TurnSource
from curator.reflection.summaries import REVIEW_LANE, REVIEW_PENDING, SummaryStore, turn_pair
from curator.review.diffing import Hunk, word_diff
from curator.review.intent import ActionInProgressError, IntentLog
from curator.review.lifecycle import (
    DEFAULT_TTL_DAYS,
    LIFECYCLE_KINDS,
    approval_meta,
    demotion_meta,
    expiry_for,
)
from curator.review.staging import (
    KIND_CATEGORY,
    StagingArea,
    StagingProblem,
    file_hash,
    flags_of,
    is_flagged,
    promotion_count,
    to_knowledge,
)
from curator.vault.atomic import atomic_write_text, read_json_state, write_json_state
from curator.vault.documents import Document, DocumentError
from curator.vault.paths import DOC_ID_RE, VaultPaths, safe_child
from curator.vault.store import DocumentStore, TrashEntry

UNDO_LIMIT = 100
SHOWN_LIMIT = 200
MIN_HASH_PREFIX = 8
RESOLUTIONS = ("keep_a", "keep_b", "keep_both", "keep_neither")
KINDS = ("fact", "correction", "connection", "open_question", "contradiction")


class ReviewError(Exception):
    """An action that cannot be done (unknown item, wrong kind, bad arguments)."""


class FlaggedItemError(ReviewError):
    """A flagged item was to be written to Knowledge without ``accept_flags``."""


class ChangedOnDiskError(ReviewError):
    """The file is not what the person was shown; ``diff`` says how it differs."""

    def __init__(self, message: str, diff: str) -> None:
        super().__init__(message)
        self.diff = diff


@dataclass
class ReviewItem:
    """A staged item as the queue shows it."""

    doc_id: str
    kind: str
    title: str
    text: str
    category: str
    confidence: float
    promotion_count: int
    recurring: bool
    flagged: bool
    flags: list[dict[str, str]]
    gates: list[str]
    source_turns: list[int]
    staged_at: str
    origin: str
    path: str  # relative to the user folder
    content_hash: str
    lane: str  # "flagged" | "review"
    fields: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class EvidenceTurn:
    number: int
    role: str
    speaker: str
    text: str
    exists: bool


@dataclass
class ReviewDetail:
    """Everything the review pane shows for one item."""

    item: ReviewItem
    file_text: str
    revealed_text: str  # the body with invisible characters made visible
    invisible: list[str]
    evidence: list[EvidenceTurn]
    diff: list[Hunk]
    old_text: str = ""
    new_text: str = ""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["diff"] = [asdict(h) for h in self.diff]
        return data


@dataclass
class QueueListing:
    items: list[ReviewItem]
    problems: list[StagingProblem]

    def by_kind(self) -> dict[str, list[ReviewItem]]:
        out: dict[str, list[ReviewItem]] = {}
        for item in self.items:
            out.setdefault(item.kind, []).append(item)
        return out

    def lane(self, lane: str) -> list[ReviewItem]:
        return [i for i in self.items if i.lane == lane]


@dataclass
class ActionResult:
    action: str
    doc_id: str
    message: str
    paths: list[str] = field(default_factory=list)
    content_hash: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def unified(old: str, new: str, old_name: str = "shown", new_name: str = "on disk") -> str:
    """A unified diff of two texts."""
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=old_name, tofile=new_name))


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
        # Days a newly approved ``new`` document stays before "still true?" (seed 004 §10);
        # the engine sets it from ``lifecycle.new_ttl_days``.
        self.new_ttl_days = DEFAULT_TTL_DAYS
        self.intents = IntentLog(paths)
        self.recovered = self.recover()

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
            text = summary.path.read_text("utf-8")
            self._remember_shown(user_id, text)
            item = self._summary_item(user_id, summary)
            turns = [self.turns.get(user_id, n) if self.turns is not None else None for n in item.source_turns[:200]]
            evidence = [EvidenceTurn(n, t.role if t else "", t.speaker if t else "", t.text if t else "", t is not None)
                        for n, t in zip(item.source_turns[:200], turns, strict=True)]
            return ReviewDetail(item, text, reveal(item.text), invisible_characters(item.text), evidence, [])
        doc = self._staged(user_id, item_id)
        assert doc.path is not None
        text = doc.path.read_text("utf-8")
        self._remember_shown(user_id, text)
        item = self._item(user_id, doc)
        evidence = []
        for number in item.source_turns:
            turn = self.turns.get(user_id, number) if self.turns is not None else None
            evidence.append(EvidenceTurn(number, turn.role if turn else "", turn.speaker if turn else "",
                                         turn.text if turn else "", turn is not None))
        old, new = self._sides(doc)
        hunks = word_diff(old, new) if (old or new) and doc.kind in ("correction", "contradiction") else []
        return ReviewDetail(item, text, reveal(doc.body), invisible_characters(doc.body), evidence, hunks, old, new)

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

    def _ids_of(self, user_id: str, item_id: str) -> list[str]:
        # The item and the Knowledge document it corrects or contradicts: every file an
        # action on it may touch carries one of these ids in its name.
        if self._pending_summary(user_id, item_id) is not None:
            return [item_id]  # a summary waiting for review touches only its own file
        doc = self._staged(user_id, item_id)
        related = [str(doc.get(key) or "") for key in ("target_id", "existing_id")]
        return [item_id, *(r for r in related if DOC_ID_RE.match(r))]

    def _approve(self, user_id: str, item_id: str, seen_hash: str, *, text: str | None = None,
                accept_flags: bool = False) -> ActionResult:
        """Approve a staged item (optionally with an edited text) into Knowledge."""
        summary = self._pending_summary(user_id, item_id)
        if summary is not None:
            return self._approve_summary(user_id, summary, seen_hash, text)
        doc = self._checked(user_id, item_id, seen_hash)
        self._require_flags_ok(doc, accept_flags)
        if doc.kind == "contradiction":
            raise ReviewError(
                "a contradiction is resolved, not approved: use resolve (keep_a|keep_b|keep_both|keep_neither)"
            )
        if doc.kind == "correction":
            return self._apply_correction(user_id, doc, text)
        if doc.kind in LIFECYCLE_KINDS:
            return self._apply_lifecycle(user_id, doc)
        steps: list[dict[str, Any]] = []
        path = self._move_to_knowledge(user_id, doc, "edited" if text is not None else "approved", text, steps)
        self._log(user_id, "approve", doc.id, steps)
        self._emit("review.approved", user_id, doc.id, path=path)
        return ActionResult("approve", doc.id, f"approved into {path}", [path], file_hash(self._abs(user_id, path)))

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
        rel = self._rel(user_id, doc.path)
        new_hash = file_hash(doc.path)
        self._log(user_id, "edit", doc.id, [{"op": "updated", "rel": rel, "before_text": before, "after_hash": new_hash,
                                             "doc_id": doc.id, "area": "staging"}])
        self._emit("review.edited", user_id, doc.id, path=rel)
        return ActionResult("edit", doc.id, "edited", [rel], new_hash)

    def _discard(self, user_id: str, item_id: str, reason: str = "", seen_hash: str | None = None) -> ActionResult:
        """Move a staged item to trash, keep the reason, and remember its text as rejected."""
        summary = self._pending_summary(user_id, item_id)
        if summary is not None:
            # A summary is soft-deleted, as in the Reflections timeline: kept, never searchable.
            self._summaries(user_id).delete(user_id, summary.id)
            self._emit("review.discarded", user_id, summary.id, reason=reason)
            return ActionResult("discard", summary.id, "summary deleted (kept in Reflections, not searchable)")
        doc = self._checked(user_id, item_id, seen_hash) if seen_hash else self._staged(user_id, item_id)
        steps: list[dict[str, Any]] = []
        self._reject_text(user_id, doc, reason or "discarded", steps)
        self._trash(user_id, doc, f"discarded: {reason}" if reason else "discarded", steps)
        self._log(user_id, "discard", doc.id, steps)
        self._emit("review.discarded", user_id, doc.id, reason=reason)
        return ActionResult("discard", doc.id, "discarded to trash" + (f" ({reason})" if reason else ""))

    def _resolve(self, user_id: str, item_id: str, choice: str, seen_hash: str, *, note: str = "",
                accept_flags: bool = False) -> ActionResult:
        """Resolve a contradiction: keep_a (existing), keep_b (proposed), keep_both (note), keep_neither."""
        if choice not in RESOLUTIONS:
            raise ReviewError(f"choice must be one of {', '.join(RESOLUTIONS)}")
        doc = self._checked(user_id, item_id, seen_hash)
        if doc.kind != "contradiction":
            raise ReviewError(f"{item_id} is a {doc.kind}, not a contradiction")
        if choice == "keep_both" and not note.strip():
            raise ReviewError("keep_both needs a note saying how both can be true (e.g. when or where each holds)")
        if choice in ("keep_b", "keep_both"):
            self._require_flags_ok(doc, accept_flags)
        existing = self._knowledge_doc(user_id, str(doc.get("existing_id") or ""))
        expected = str(doc.get("existing_hash") or "")
        if existing is not None and expected and existing.path is not None and file_hash(existing.path) != expected:
            raise ChangedOnDiskError(f"{existing.id} changed since the contradiction was staged",
                                     unified(str(doc.get("existing_text") or ""), existing.body, "when staged", "now"))
        if existing is None and choice in ("keep_b", "keep_neither"):
            raise ReviewError(f"the existing document {doc.get('existing_id')} is no longer in Knowledge")
        steps: list[dict[str, Any]] = []
        proposed = doc.body.strip()
        paths: list[str] = []
        if choice == "keep_a":
            self._reject_text(user_id, doc, "contradiction resolved: kept the existing fact", steps)
            self._trash(user_id, doc, "contradiction resolved: kept the existing fact", steps)
        elif choice == "keep_b":
            assert existing is not None
            paths.append(self._update_knowledge(user_id, existing, steps, body=proposed,
                                                meta={"superseded_text": existing.body.strip(), "corrected_by": doc.id,
                                                      **demotion_meta(existing, self.clock.now(),
                                                                      f"contradicted by {doc.id}")},
                                                action="contradiction: kept proposed"))
            self._trash(user_id, doc, "contradiction resolved: proposed fact replaced the existing one", steps)
        elif choice == "keep_both":
            if existing is not None:
                meta = {"contradiction_note": note,
                        **demotion_meta(existing, self.clock.now(), f"contradicted by {doc.id}")}
                paths.append(self._update_knowledge(user_id, existing, steps, meta=meta,
                                                    action="contradiction: kept both"))
            doc.meta["kind"] = "fact"
            doc.meta["contradiction_note"] = note
            doc.meta["category"] = str(doc.get("proposed_category") or "Facts")
            paths.append(self._move_to_knowledge(user_id, doc, "kept both", None, steps))
        else:
            assert existing is not None
            self._trash(user_id, existing, "contradiction resolved: kept neither", steps, area="knowledge")
            self._reject_text(user_id, doc, "contradiction resolved: kept neither", steps)
            self._trash(user_id, doc, "contradiction resolved: kept neither", steps)
        self._log(user_id, f"resolve:{choice}", doc.id, steps)
        self._emit("review.resolved", user_id, doc.id, choice=choice)
        return ActionResult("resolve", doc.id, f"resolved with {choice}", paths)

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
            ids, rels = _touched_by(entries[-1])
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
        self._precheck_undo(user_id, steps)
        for step in reversed(steps):
            self._undo_step(user_id, step)
            fault_point("review.undo.after_step")
        fault_point("review.undo.before_log")
        self._save_undo(user_id, entries[:-1])
        self._emit("review.undone", user_id, str(entry.get("doc_id", "")), action=entry.get("action"))
        return ActionResult("undo", str(entry.get("doc_id", "")), f"undid {entry.get('action')}")

    def record_action(self, user_id: str, action: str, doc_id: str, steps: list[dict[str, Any]],
                      actor: str = "") -> None:
        """Log an action done elsewhere (a consolidation cycle) so ``undo`` reverses it as one."""
        self._log(user_id, action, doc_id, steps, actor=actor)

    def emit(self, kind: str, user_id: str, doc_id: str, **data: Any) -> None:
        """Emit a review event for an action done elsewhere."""
        self._emit(kind, user_id, doc_id, **data)

    def undo_log(self, user_id: str) -> list[dict[str, Any]]:
        """The persisted action log, oldest first."""
        data, _warning = read_json_state(self._undo_file(user_id), {"entries": []})
        entries = data.get("entries", []) if isinstance(data, dict) else []
        return [e for e in entries if isinstance(e, dict)]

    # ---- Internals: items

    def _item(self, user_id: str, doc: Document) -> ReviewItem:
        assert doc.path is not None
        flagged = is_flagged(doc)
        extra_keys = ("related", "target_id", "target_title", "old_text", "new_text", "what_changed",
                      "new_confidence_hint", "file_a", "file_b", "text_a", "text_b", "why_unresolved",
                      "existing_id", "existing_title", "existing_text", "proposed_text", "conflict", "subject",
                      "subject_id", "subject_name", "fact_type", "evidence", "model_confidence", "notes", "provenance")
        return ReviewItem(
            doc_id=doc.id, kind=doc.kind, title=doc.title, text=doc.body.strip(),
            category=str(doc.get("category") or doc.path.parent.name), confidence=doc.confidence,
            promotion_count=promotion_count(doc), recurring=bool(doc.get("recurring")), flagged=flagged,
            flags=[f.to_dict() for f in flags_of(doc)], gates=[str(g) for g in (doc.get("gates") or [])],
            source_turns=doc.source_turns, staged_at=str(doc.get("staged_at") or ""),
            origin=str(doc.get("origin") or ""), path=self._rel(user_id, doc.path),
            content_hash=file_hash(doc.path), lane="flagged" if flagged else "review",
            fields={k: doc.get(k) for k in extra_keys if doc.get(k) not in (None, "", [])},
        )

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
        _prompt, summary = turn_pair(doc)
        return ReviewItem(
            doc_id=doc.id, kind="summary", title=doc.title, text=summary, category="Reflections",
            confidence=0.0, promotion_count=0, recurring=False, flagged=bool(doc.get("flags")),
            flags=[f.to_dict() for f in flags_of(doc)], gates=[], source_turns=doc.source_turns,
            staged_at=str(doc.get("created_at") or ""), origin="summary", path=self._rel(user_id, doc.path),
            content_hash=file_hash(doc.path), lane=REVIEW_LANE,
            fields={k: doc.get(k) for k in ("marked_words", "review_reasons", "prompt", "turn_range")
                    if doc.get(k) not in (None, "", [])},
        )

    def _approve_summary(self, user_id: str, doc: Document, seen_hash: str, text: str | None) -> ActionResult:
        assert doc.path is not None
        current = _sha(doc.path.read_text("utf-8"))
        wanted = (seen_hash or "").strip().lower()
        if len(wanted) < MIN_HASH_PREFIX or not current.startswith(wanted):
            raise ChangedOnDiskError(f"{doc.id} is not what was shown; show it again", "")
        store = self._summaries(user_id)
        if text is not None:
            store.edit(user_id, doc.id, summary=text)
        approved = store.approve(user_id, doc.id)
        self._emit("review.approved", user_id, doc.id, path=self._rel(user_id, approved.path or doc.path))
        return ActionResult("approve", doc.id, "summary approved: search may return it", [], "")

    @staticmethod
    def _sides(doc: Document) -> tuple[str, str]:
        if doc.kind == "correction":
            return str(doc.get("old_text") or ""), doc.body.strip()
        if doc.kind == "contradiction":
            return str(doc.get("existing_text") or ""), doc.body.strip()
        return "", ""

    def _staged(self, user_id: str, item_id: str) -> Document:
        if not DOC_ID_RE.match(item_id or ""):
            raise ReviewError(f"invalid item id {item_id!r}")
        for path in self.store.iter_paths(user_id, "staging"):
            if path.stem.endswith(f"--{item_id}"):
                try:
                    doc = Document.load(path)
                except (DocumentError, OSError) as exc:
                    raise ReviewError(f"{path.name} cannot be read: {exc}") from exc
                if doc.id == item_id:
                    return doc
        raise ReviewError(f"no staged item {item_id}")

    def _checked(self, user_id: str, item_id: str, seen_hash: str) -> Document:
        """The staged item, provided its bytes are the ones the person was shown."""
        doc = self._staged(user_id, item_id)
        assert doc.path is not None
        current_text = doc.path.read_text("utf-8")
        current = _sha(current_text)
        wanted = (seen_hash or "").strip().lower()
        if len(wanted) < MIN_HASH_PREFIX or not current.startswith(wanted):
            shown = self._shown_text(user_id, wanted)
            diff = unified(shown, current_text) if shown is not None else ""
            raise ChangedOnDiskError(
                f"{item_id} is not what was shown (shown {wanted[:12] or 'nothing'}, now {current[:12]}); "
                "show it again and review the new text", diff)
        return doc

    def _require_flags_ok(self, doc: Document, accept_flags: bool) -> None:
        if is_flagged(doc) and not accept_flags:
            reasons = "; ".join(f"{f.flag}: {f.reason}" for f in flags_of(doc)) or "quarantined"
            raise FlaggedItemError(f"{doc.id} is flagged ({reasons}); approving it needs an explicit accept_flags")

    def _knowledge_doc(self, user_id: str, doc_id: str) -> Document | None:
        if not DOC_ID_RE.match(doc_id):
            return None
        return self.store.find(doc_id, user_id, areas=("knowledge",))

    # ---- Internals: file operations that record how to undo them

    def _rel(self, user_id: str, path: Path) -> str:
        return Path(path).resolve().relative_to(self.paths.user(user_id).root.resolve()).as_posix()

    def _abs(self, user_id: str, rel: str) -> Path:
        return safe_child(self.paths.user(user_id).root, rel)

    def _move_to_knowledge(self, user_id: str, doc: Document, action: str, text: str | None,
                           steps: list[dict[str, Any]]) -> str:
        assert doc.path is not None
        before = doc.path.read_text("utf-8")
        from_category = doc.path.parent.name
        if text is not None:
            doc.body = text.rstrip("\n") + "\n"
        to_knowledge(doc, action, iso_utc(self.clock.now()))
        if doc.scope == "new" and not doc.get("expires_at"):
            doc.meta["expires_at"] = expiry_for(self.clock.now(), self.new_ttl_days)
        category = KIND_CATEGORY.get(doc.kind, str(doc.get("category") or "Facts"))
        if doc.kind == "fact":
            category = str(doc.get("category") or "Facts")
        target = self.store.move(doc, user_id, "knowledge", category, action=action)
        self.index.upsert(doc)
        rel = self._rel(user_id, target)
        steps.append({"op": "moved", "doc_id": doc.id, "from_area": "staging", "from_category": from_category,
                      "before_text": before, "to_rel": rel, "after_hash": file_hash(target)})
        return rel

    def _update_knowledge(self, user_id: str, doc: Document, steps: list[dict[str, Any]], *, body: str | None = None,
                          meta: dict[str, Any] | None = None, action: str) -> str:
        assert doc.path is not None
        before = doc.path.read_text("utf-8")
        if body is not None:
            doc.body = body.rstrip("\n") + "\n"
        doc.meta.update(meta or {})
        self.store.update(doc, action=action)
        self.index.upsert(doc)
        rel = self._rel(user_id, doc.path)
        steps.append({"op": "updated", "rel": rel, "before_text": before, "after_hash": file_hash(doc.path),
                      "doc_id": doc.id, "area": "knowledge"})
        return rel

    def _trash(
        self,
        user_id: str,
        doc: Document,
        reason: str,
        steps: list[dict[str, Any]],
        area: str = "staging",
    ) -> None:
        entry = self.store.trash(doc, reason=reason)
        if area == "knowledge":
            self.index.remove(doc.id)
        steps.append({"op": "trashed", "doc_id": doc.id, "area": area, "trash_path": str(entry.trash_path),
                      "original": entry.original, "title": entry.title, "deleted_at": entry.deleted_at,
                      "reason": reason})

    def _reject_text(self, user_id: str, doc: Document, reason: str, steps: list[dict[str, Any]]) -> None:
        text = str(doc.get("proposed_text") or "") if doc.kind == "contradiction" else doc.body.strip()
        text = text or doc.body.strip()
        self.rejected.add(user_id, text, doc.kind, reason, doc.id)
        steps.append({"op": "rejected", "fingerprint": fingerprint(text), "doc_id": doc.id})

    def _apply_correction(self, user_id: str, doc: Document, text: str | None) -> ActionResult:
        target = self._knowledge_doc(user_id, str(doc.get("target_id") or ""))
        if target is None and doc.get("target_staged"):
            return self._apply_staged_correction(user_id, doc, text)
        if target is None or target.path is None:
            raise ReviewError(f"the corrected document {doc.get('target_id')} is no longer in Knowledge")
        expected = str(doc.get("target_hash") or "")
        if expected and file_hash(target.path) != expected:
            raise ChangedOnDiskError(f"{target.id} changed since the correction was staged",
                                     unified(str(doc.get("old_text") or ""), target.body, "when staged", "now"))
        new_text = (text if text is not None else doc.body).strip()
        hint = str(doc.get("new_confidence_hint") or "same")
        confidence = target.confidence + {"higher": 0.1, "lower": -0.15}.get(hint, 0.0)
        steps: list[dict[str, Any]] = []
        rel = self._update_knowledge(user_id, target, steps, body=new_text, action="correction", meta={
            "confidence": round(max(0.0, min(0.95, confidence)), 2),
            "source_turns": sorted(set(target.source_turns) | set(doc.source_turns)),
            "corrected_by": doc.id,
            "corrected_at": iso_utc(self.clock.now()),
            **demotion_meta(target, self.clock.now(), f"corrected by {doc.id}"),
        })
        self._trash(user_id, doc, f"correction applied to {target.id}", steps)
        self._log(user_id, "approve", doc.id, steps)
        self._emit("review.approved", user_id, doc.id, path=rel, target=target.id)
        return ActionResult(
            "approve",
            doc.id,
            f"correction applied to {rel}",
            [rel],
            file_hash(self._abs(user_id, rel)),
        )

    def _apply_staged_correction(self, user_id: str, doc: Document, text: str | None) -> ActionResult:
        """A correction of a fact still waiting for review: the fact is approved as corrected.

        Both were staged from the same chat before the person saw either ("Lisbon in
        October", then "actually September"); approving the correction keeps one memory with
        the corrected text, and the correction item leaves the queue.
        """
        target_id = str(doc.get("target_id") or "")
        try:
            target = self._staged(user_id, target_id)
        except ReviewError as exc:
            raise ReviewError(f"the corrected item {target_id} is no longer waiting for review") from exc
        assert target.path is not None
        # Its text, not its bytes: a staged item's sightings are counted in its frontmatter.
        old_text = str(doc.get("old_text") or "")
        if old_text and target.body.strip() != old_text.strip():
            raise ChangedOnDiskError(f"{target_id} changed since the correction was staged",
                                     unified(old_text, target.body, "when staged", "now"))
        new_text = (text if text is not None else doc.body).strip()
        target.meta["source_turns"] = sorted(set(target.source_turns) | set(doc.source_turns))
        target.meta["corrected_by"] = doc.id
        steps: list[dict[str, Any]] = []
        rel = self._move_to_knowledge(user_id, target, "corrected", new_text, steps)
        self._trash(user_id, doc, f"correction applied to {target_id}", steps)
        self._log(user_id, "approve", doc.id, steps)
        self._emit("review.approved", user_id, doc.id, path=rel, target=target_id)
        return ActionResult("approve", doc.id, f"correction applied; approved into {rel}", [rel],
                            file_hash(self._abs(user_id, rel)))

    def _apply_lifecycle(self, user_id: str, doc: Document) -> ActionResult:
        """A confirmed promotion or "still true?": change the target's scope or renew its date."""
        target = self._knowledge_doc(user_id, str(doc.get("target_id") or ""))
        if target is None or target.path is None:
            raise ReviewError(f"the document {doc.get('target_id')} is no longer in Knowledge")
        steps: list[dict[str, Any]] = []
        rel = self._update_knowledge(user_id, target, steps, meta=approval_meta(doc, target, self.clock.now()),
                                     action=doc.kind)
        self._trash(user_id, doc, f"{doc.kind} confirmed for {target.id}", steps)
        self._log(user_id, "approve", doc.id, steps)
        self._emit("review.approved", user_id, doc.id, path=rel, target=target.id)
        return ActionResult(
            "approve",
            doc.id,
            f"{doc.kind} applied to {rel}",
            [rel],
            file_hash(self._abs(user_id, rel)),
        )

    # ---- Internals: undo

    def _precheck_undo(self, user_id: str, steps: list[dict[str, Any]]) -> None:
        for step in steps:
            if step.get("op") == "file":  # a consolidation cycle's whole-file change
                problem = cycle_files.check_undo(self.paths.user(user_id).root, step)
                if problem:
                    raise ChangedOnDiskError(f"cannot undo: {problem}", "")
                continue
            rel = (
                step.get("to_rel")
                if step.get("op") == "moved"
                else step.get("rel")
                if step.get("op") == "updated"
                else None
            )
            if rel is None:
                continue
            path = self._abs(user_id, str(rel))
            if not path.exists():
                raise ReviewError(f"cannot undo: {rel} is gone")
            if file_hash(path) != step.get("after_hash"):
                current = path.read_text("utf-8")
                raise ChangedOnDiskError(f"cannot undo: {rel} changed since the action", unified("", current, "", rel))

    def _undo_step(self, user_id: str, step: dict[str, Any]) -> None:
        op = step.get("op")
        if op == "moved":
            path = self._abs(user_id, str(step["to_rel"]))
            doc = Document.load(path)
            back = self.store.move(doc, user_id, str(step["from_area"]), str(step["from_category"]), action="undo")
            atomic_write_text(back, str(step["before_text"]))  # the exact staged bytes again
            self.index.remove(str(step["doc_id"]))
        elif op == "updated":
            path = self._abs(user_id, str(step["rel"]))
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
                self.index.upsert(Document.load(self._abs(user_id, rel)))
        elif op == "rejected":
            self.rejected.remove(user_id, str(step["fingerprint"]), str(step.get("doc_id", "")))

    # ---- Internals: persisted logs

    def _undo_file(self, user_id: str) -> Path:
        return self.paths.user(user_id).root / "Logs" / "review_undo.json"

    def _save_undo(self, user_id: str, entries: list[dict[str, Any]]) -> None:
        write_json_state(self._undo_file(user_id), {"entries": entries[-UNDO_LIMIT:]})

    def _log(self, user_id: str, action: str, doc_id: str, steps: list[dict[str, Any]], actor: str = "") -> None:
        fault_point(f"review.{action.split(':')[0]}.before_log")
        entries = self.undo_log(user_id)
        entry: dict[str, Any] = {"action": action, "doc_id": doc_id, "at": iso_utc(self.clock.now()), "steps": steps}
        if actor:
            entry["actor"] = actor
        entries.append(entry)
        self._save_undo(user_id, entries)

    def _shown_file(self, user_id: str) -> Path:
        return self.paths.user(user_id).root / "Logs" / "review_shown.json"

    def _remember_shown(self, user_id: str, text: str) -> None:
        data, _ = read_json_state(self._shown_file(user_id), {"shown": {}})
        shown = data.get("shown", {}) if isinstance(data, dict) else {}
        shown = {k: v for k, v in shown.items() if isinstance(v, str)}
        shown.pop(_sha(text), None)
        shown[_sha(text)] = text
        write_json_state(self._shown_file(user_id), {"shown": dict(list(shown.items())[-SHOWN_LIMIT:])})

    def _shown_text(self, user_id: str, hash_prefix: str) -> str | None:
        if len(hash_prefix) < MIN_HASH_PREFIX:
            return None
        data, _ = read_json_state(self._shown_file(user_id), {"shown": {}})
        shown = data.get("shown", {}) if isinstance(data, dict) else {}
        for key, value in shown.items():
            if key.startswith(hash_prefix) and isinstance(value, str):
                return value
        return None

    def _emit(self, kind: str, user_id: str, doc_id: str, **data: Any) -> None:
        if self.events is not None:
            self.events.emit(kind, user_id=user_id, doc_id=doc_id, **data)


def _touched_by(entry: dict[str, Any]) -> tuple[list[str], list[str]]:
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
