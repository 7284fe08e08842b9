"""Thin adapters from panes to the engine API: each method is one engine call or a lookup.

Panes call these from the ``OpRunner`` worker thread. Nothing here decides anything: ranking,
gates, approval, undo and resolution are the engine's (``curator.reflection.review``,
``curator.reflection.summaries``, ``curator.search``...). What lives here is plumbing: which
engine object answers, and gathering what a view needs in one background call (the turns
an item cites, the text a correction replaces).

Threading contract: every method may block and runs on a worker thread; never call one on
the GUI thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from curator.clock import iso_utc
from curator.documents import Document
from ui.adapt import as_int_list, field as field_of, text_of

CONTEXT_RADIUS = 6


@dataclass(frozen=True)
class Statement:
    """One side of a contradiction as shown: its text, where it came from, when."""

    text: str
    origin: str = ""
    date: str = ""
    turns: tuple[int, ...] = ()


@dataclass(frozen=True)
class ReviewDetail:
    """Everything the review pane shows for one item, gathered off the GUI thread."""

    item_id: str
    claim: str
    proposed_text: str
    old_text: str = ""
    shown_hash: str = ""
    quote: str = ""
    turns: Sequence[Any] = ()
    missing_turns: Sequence[int] = ()
    left: Statement | None = None
    right: Statement | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _user_of(item: Any, default: str) -> str:
    return str(field_of(item, "user_id", default=default) or default)


def _doc_of(item: Any) -> Document | None:
    if isinstance(item, Document):
        return item
    doc = getattr(item, "doc", None) or getattr(item, "document", None)
    return doc if isinstance(doc, Document) else None


def _date_of(value: Any) -> str:
    if isinstance(value, (int, float)) and value > 0:
        return iso_utc(float(value))
    return str(value or "")


class ReviewService:
    """The review queue of one user, over ``engine.review``."""

    def __init__(self, engine: Any, user_id: str = "default") -> None:
        self.engine = engine
        self.user_id = user_id

    @property
    def _review(self) -> Any:
        return self.engine.review

    # ---- Lists

    def list_items(self) -> list[Any]:
        """Staged items of the user, in the engine's ranked order."""
        return list(self._review.list(self.user_id))

    def list_contradictions(self) -> list[Any]:
        return [i for i in self.list_items() if str(field_of(i, "kind", default="")) == "contradiction"]

    # ---- Detail

    def detail(self, item: Any) -> ReviewDetail:
        """What the panes show for ``item``: its text, cited turns and, for corrections, the old text."""
        shown = self._review.show(self._item_id(item), self.user_id) if hasattr(self._review, "show") else item
        shown = shown or item
        text = text_of(shown)
        numbers = as_int_list(field_of(shown, "source_turns", default=[]))
        turns, missing = self.turns(numbers, _user_of(shown, self.user_id))
        old_text = str(field_of(shown, "old_text", "existing_text", "supersedes_text", default="") or "")
        left = right = None
        if str(field_of(shown, "kind", default="")) == "contradiction":
            left = self._statement(field_of(shown, "existing", "left", default=None), "Knowledge")
            right = self._statement(field_of(shown, "proposed", "right", default=None), "this conversation")
            if left is None:
                left = Statement(old_text or "(the known statement could not be found)", "Knowledge")
            if right is None:
                right = Statement(text, "this conversation", _date_of(field_of(shown, "staged_at", default="")),
                                  tuple(numbers))
        return ReviewDetail(
            item_id=self._item_id(item),
            claim=text,
            proposed_text=text,
            old_text=old_text,
            shown_hash=str(field_of(shown, "content_hash", "shown_hash", "hash", default="") or ""),
            quote=str(field_of(shown, "evidence", "evidence_quote", "quote", default="") or ""),
            turns=turns,
            missing_turns=missing,
            left=left,
            right=right,
        )

    def turns(self, numbers: Sequence[int], user_id: str) -> tuple[list[Any], list[int]]:
        """The indexed turns with these numbers, and the numbers not found."""
        found, missing = [], []
        index = getattr(self.engine, "index", None)
        for number in numbers:
            turn = index.get_turn(user_id, number) if index is not None else None
            (found.append(turn) if turn is not None else missing.append(number))
        return found, missing

    def conversation_around(self, item: Any, number: int) -> list[Any]:
        """The turns of the same conversation around turn ``number``."""
        user_id = _user_of(item, self.user_id) if item is not None else self.user_id
        index = self.engine.index
        center = index.get_turn(user_id, number)
        turns = index.turns(user_id, after=max(0, number - CONTEXT_RADIUS - 1), limit=2 * CONTEXT_RADIUS + 1)
        if center is None:
            return list(turns)
        return [t for t in turns if t.conversation == center.conversation and t.file == center.file]

    def _statement(self, value: Any, origin: str) -> Statement | None:
        if value is None:
            return None
        if isinstance(value, str):
            return Statement(value, origin)
        return Statement(
            text=text_of(value),
            origin=str(field_of(value, "origin", "source", "source_file", "title", default=origin) or origin),
            date=_date_of(field_of(value, "date", "created_at", "timestamp", default="")),
            turns=tuple(as_int_list(field_of(value, "source_turns", "turns", default=[]))),
        )

    @staticmethod
    def _item_id(item: Any) -> str:
        return str(field_of(item, "id", "item_id", "doc_id", default=""))

    # ---- Actions

    def approve(self, item: Any, edited_text: str | None, shown_hash: str) -> Any:
        """Approve ``item`` (with the person's edit when given), hash-checked by the engine."""
        return self._review.approve(self._item_id(item), self.user_id, edited_text=edited_text,
                                    expected_hash=shown_hash or None)

    def discard(self, item: Any, reason: str) -> Any:
        return self._review.discard(self._item_id(item), self.user_id, reason=reason)

    def undo(self) -> Any:
        return self._review.undo(self.user_id)

    def resolve(self, item: Any, choice: str, note: str) -> Any:
        return self._review.resolve(self._item_id(item), self.user_id, choice=choice, note=note)


# ---- Knowledge


@dataclass(frozen=True)
class SearchRequest:
    """A knowledge-browser search as the person set it up."""

    query: str = ""
    kind: str = ""
    topic: str = ""
    scope: str = ""
    min_quality: float | None = None
    since: float | None = None
    until: float | None = None
    limit: int = 100


@dataclass(frozen=True)
class DocumentListing:
    """An approved document listed without a query (shaped like a search hit)."""

    id: str
    title: str
    kind: str
    scope: str
    quality: float | None
    timestamp: float | None
    snippet: str
    item_type: str = "document"
    topic: str = ""


class KnowledgeService:
    """Search, documents, trash and history over the engine's index and document store."""

    def __init__(self, engine: Any, user_id: str = "default") -> None:
        self.engine = engine
        self.user_id = user_id

    def search(self, request: SearchRequest) -> list[Any]:
        """Unified search hits; with an empty query, the approved documents (newest first)."""
        from curator.search import SearchFilters, search

        if not request.query:
            return self._listing(request)
        filters = SearchFilters(
            user_id=self.user_id,
            kinds=(request.kind,) if request.kind else (),
            topic=request.topic or None,
            scope=request.scope or None,
            min_quality=request.min_quality,
            since=request.since,
            until=request.until,
        )
        return list(search(self.engine.index, request.query, filters, limit=request.limit))

    def _listing(self, request: SearchRequest) -> list[DocumentListing]:
        from curator.clock import parse_iso

        out: list[DocumentListing] = []
        for path, doc in self.engine.store.iter_documents(self.user_id, "knowledge"):
            if not isinstance(doc, Document):
                continue
            created = parse_iso(str(doc.get("updated_at") or doc.get("created_at") or ""))
            if request.kind and request.kind not in (doc.kind, *doc.content_types):
                continue
            if request.scope and doc.scope != request.scope:
                continue
            topic = str(doc.get("primary_topic") or "")
            if request.topic and not topic.lower().startswith(request.topic.lower()):
                continue
            if request.min_quality is not None and doc.quality < request.min_quality:
                continue
            if request.since is not None and (created or 0) < request.since:
                continue
            out.append(DocumentListing(doc.id, doc.title, doc.kind, doc.scope, doc.quality, created,
                                       doc.body.strip()[:160], topic=topic))
        out.sort(key=lambda d: d.timestamp or 0, reverse=True)
        return out[: request.limit]

    def open_document(self, doc_id: str) -> tuple[Document | None, list[Any]]:
        doc = self.engine.store.find(doc_id, self.user_id)
        history = self.engine.store.history(doc_id, self.user_id) if doc is not None else []
        return doc, list(reversed(history))

    def turn_text(self, hit: Any) -> str:
        number = int(field_of(hit, "number", "id", default=0))
        turn = self.engine.index.get_turn(str(field_of(hit, "user_id", default=self.user_id)), number)
        if turn is None:
            return "(this turn is no longer in the index)"
        return f"#{turn.number} {turn.speaker or turn.role} — {iso_utc(turn.timestamp)}\n{turn.file}\n\n{turn.text}"

    def save_document(self, doc: Document, values: dict[str, Any], body: str) -> Any:
        """Write the person's edit (history kept by the store) and re-index it."""
        edited = Document(meta=dict(doc.meta), body=body, path=doc.path)
        edited.meta.update(values)
        saver = getattr(self.engine, "update_document", None)
        if callable(saver):
            return saver(edited)
        path = self.engine.store.update(edited, action="edit")
        self._reindex()
        return path

    def trash_document(self, doc: Document) -> Any:
        trasher = getattr(self.engine, "trash_document", None)
        if callable(trasher):
            return trasher(doc)
        entry = self.engine.store.trash(doc, reason="deleted in the knowledge browser")
        self._reindex()
        return entry

    def list_trash(self) -> list[Any]:
        return list(reversed(self.engine.store.list_trash(self.user_id)))

    def restore(self, entry: Any) -> Any:
        restorer = getattr(self.engine, "restore_document", None)
        if callable(restorer):
            return restorer(entry)
        path = self.engine.store.restore(entry)
        self._reindex()
        return path

    def read_version(self, entry: Any) -> str:
        path = field_of(entry, "path", default=None)
        return path.read_text("utf-8") if path is not None else ""

    def _reindex(self) -> None:
        sync = getattr(self.engine, "sync_documents", None) or getattr(self.engine, "refresh_documents", None)
        if callable(sync):
            sync()


# ---- Reflections (context summaries)


class SummariesService:
    """Context summaries of one user, over ``engine.summaries``."""

    def __init__(self, engine: Any, user_id: str = "default") -> None:
        self.engine = engine
        self.user_id = user_id

    def list(self, include_deleted: bool) -> list[Any]:
        return list(self.engine.summaries.list(self.user_id, include_deleted=include_deleted))

    def edit(self, summary: Any, text: str) -> Any:
        return self.engine.summaries.edit(self._id(summary), self.user_id, text)

    def delete(self, summary: Any) -> Any:
        return self.engine.summaries.delete(self._id(summary), self.user_id)

    def restore(self, summary: Any) -> Any:
        return self.engine.summaries.restore(self._id(summary), self.user_id)

    def reflect_now(self, prompt: str) -> Any:
        """Ask the engine for a context summary now (manual priority); returns the job."""
        return self.engine.reflect_now(self.user_id, kind="summary", prompt=prompt or None)

    @staticmethod
    def _id(summary: Any) -> str:
        return str(field_of(summary, "id", "doc_id", default=""))


# ---- Status


@dataclass(frozen=True)
class StatusSnapshot:
    """What the status pane shows, gathered in one background call."""

    sources: list[Any]
    triggers: str
    model: str
    jobs: list[Any]


class StatusService:
    """Sources, triggers, model and jobs, read from the engine."""

    def __init__(self, engine: Any, user_id: str = "default") -> None:
        self.engine = engine
        self.user_id = user_id

    def snapshot(self) -> StatusSnapshot:
        sources = list(self.engine.sources_status()) if hasattr(self.engine, "sources_status") else []
        triggers = ""
        trig = getattr(self.engine, "triggers", None)
        if trig is not None and hasattr(trig, "status"):
            status = trig.status(self.user_id)
            triggers = status.text() if hasattr(status, "text") else str(status)
        model = str(self.engine.model_status()) if hasattr(self.engine, "model_status") else ""
        jobs_queue = getattr(self.engine, "jobs", None)
        jobs = list(jobs_queue.list())[-50:] if jobs_queue is not None and hasattr(jobs_queue, "list") else []
        return StatusSnapshot(sources, triggers, model, jobs)

    def cancel(self, job_id: str) -> Any:
        return self.engine.cancel_job(job_id)
