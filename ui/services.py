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
from pathlib import Path
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


def _date_of(value: Any) -> str:
    if isinstance(value, (int, float)) and value > 0:
        return iso_utc(float(value))
    return str(value or "")


def review_engine(engine: Any) -> Any:
    """The engine's review actions (``curator.reflection.review.ReviewEngine``).

    Uses ``engine.review`` when the engine wires one; otherwise wires one here over the
    engine's store, index and bus (cached on the engine object, so undo state is shared).
    """
    existing = getattr(engine, "review", None)
    if existing is not None:
        return existing
    cached = getattr(engine, "_ui_review_engine", None)
    if cached is not None:
        return cached
    from curator.reflect_service import EngineDocumentIndex, IndexTurnSource
    from curator.reflection.review import ReviewEngine

    review = ReviewEngine(engine.paths, engine.store, index=EngineDocumentIndex(engine),
                          turns=IndexTurnSource(engine.index), events=engine.bus, clock=engine.clock)
    engine._ui_review_engine = review
    return review


class ReviewService:
    """The review queue of one user, over ``ReviewEngine`` (list, show, approve, discard, undo, resolve)."""

    def __init__(self, engine: Any, user_id: str = "default") -> None:
        self.engine = engine
        self.user_id = user_id
        self.review = review_engine(engine)

    # ---- Lists

    def list_items(self) -> list[Any]:
        """Staged items of the user, in the engine's ranked order."""
        return list(self.review.list_items(self.user_id).items)

    def list_contradictions(self) -> list[Any]:
        return list(self.review.list_items(self.user_id, kind="contradiction").items)

    # ---- Detail

    def detail(self, item: Any) -> ReviewDetail:
        """What the panes show for ``item``; ``show`` also records the bytes shown (hash check)."""
        shown = self.review.show(self.user_id, self._item_id(item))
        current = shown.item
        numbers = [t.number for t in shown.evidence]
        turns, missing = self.turns(numbers, self.user_id)
        fields = dict(current.fields)
        left = right = None
        if current.kind == "contradiction":
            existing = self.engine.store.find(str(fields.get("existing_id") or ""), self.user_id, areas=("knowledge",)) \
                if fields.get("existing_id") else None
            left = Statement(
                text=str(fields.get("existing_text") or (existing.body.strip() if existing else "")),
                origin=f"Knowledge: {fields.get('existing_title') or (existing.title if existing else '')}".strip(),
                date=str((existing.get("approved_at") or existing.get("created_at")) if existing else ""),
                turns=tuple(existing.source_turns) if existing else (),
            )
            right = Statement(
                text=str(fields.get("proposed_text") or current.text),
                origin=f"proposed by {current.origin or 'a reflection'}",
                date=current.staged_at,
                turns=tuple(current.source_turns),
            )
        proposed = shown.new_text if current.kind == "correction" and shown.new_text else current.text
        return ReviewDetail(
            item_id=current.doc_id,
            claim=current.text,
            proposed_text=proposed,
            old_text=shown.old_text if current.kind == "correction" else "",
            shown_hash=current.content_hash,
            quote=str(fields.get("evidence") or ""),
            turns=turns,
            missing_turns=missing,
            left=left,
            right=right,
            extra={"flagged": current.flagged, "invisible": list(shown.invisible), "fields": fields},
        )

    def turns(self, numbers: Sequence[int], user_id: str) -> tuple[list[Any], list[int]]:
        """The indexed turns with these numbers, and the numbers not found."""
        found, missing = [], []
        for number in numbers:
            turn = self.engine.index.get_turn(user_id, number)
            (found.append(turn) if turn is not None else missing.append(number))
        return found, missing

    def conversation_around(self, item: Any, number: int) -> list[Any]:
        """The turns of the same conversation around turn ``number``."""
        index = self.engine.index
        center = index.get_turn(self.user_id, number)
        turns = index.turns(self.user_id, after=max(0, number - CONTEXT_RADIUS - 1), limit=2 * CONTEXT_RADIUS + 1)
        if center is None:
            return list(turns)
        return [t for t in turns if t.conversation == center.conversation and t.file == center.file]

    @staticmethod
    def _item_id(item: Any) -> str:
        return str(field_of(item, "doc_id", "id", "item_id", default=""))

    # ---- Actions

    def approve(self, item: Any, edited_text: str | None, shown_hash: str, accept_flags: bool = False) -> Any:
        """Approve ``item`` as shown (``shown_hash``), with the person's edit when given."""
        if not shown_hash:
            shown_hash = self.review.show(self.user_id, self._item_id(item)).item.content_hash
        return self.review.approve(self.user_id, self._item_id(item), shown_hash, text=edited_text,
                                   accept_flags=accept_flags)

    def discard(self, item: Any, reason: str) -> Any:
        return self.review.discard(self.user_id, self._item_id(item), reason)

    def undo(self) -> Any:
        results = self.review.undo(self.user_id)
        return results[0] if results else None

    def resolve(self, item: Any, choice: str, note: str, shown_hash: str = "") -> Any:
        if not shown_hash:
            shown_hash = self.review.show(self.user_id, self._item_id(item)).item.content_hash
        return self.review.resolve(self.user_id, self._item_id(item), choice, shown_hash, note=note)


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
        path = self.engine.store.update(edited, action="edit")
        self.engine.document_changed(path)
        return path

    def trash_document(self, doc: Document) -> Any:
        old_path = doc.path
        entry = self.engine.store.trash(doc, reason="deleted in the knowledge browser")
        if old_path is not None:
            self.engine.document_changed(old_path)
        return entry

    def list_trash(self) -> list[Any]:
        return list(reversed(self.engine.store.list_trash(self.user_id)))

    def restore(self, entry: Any) -> Any:
        path = self.engine.store.restore(entry)
        self.engine.document_changed(path)
        return path

    def read_version(self, entry: Any) -> str:
        path = field_of(entry, "path", default=None)
        return path.read_text("utf-8") if path is not None else ""



# ---- Reflections (context summaries)


def summary_store(engine: Any) -> Any:
    """The engine's summary store, or one wired here over the engine's store, index and bus."""
    existing = getattr(engine, "summaries", None)
    if existing is not None:
        return existing
    from curator.reflect_service import EngineDocumentIndex
    from curator.reflection.summaries import SummaryStore

    return SummaryStore(engine.store, engine.clock, EngineDocumentIndex(engine), engine.bus)


class SummariesService:
    """Context summaries of one user, over ``curator.reflection.summaries.SummaryStore``."""

    def __init__(self, engine: Any, user_id: str = "default") -> None:
        self.engine = engine
        self.user_id = user_id
        self.store = summary_store(engine)

    def list(self, include_deleted: bool) -> list[Any]:
        """Summaries oldest first (the timeline's order)."""
        return list(self.store.list(self.user_id, include_deleted=include_deleted))

    def edit(self, summary: Any, text: str) -> Any:
        return self.store.edit(self.user_id, self._id(summary), summary=text)

    def delete(self, summary: Any) -> Any:
        return self.store.delete(self.user_id, self._id(summary))

    def restore(self, summary: Any) -> Any:
        return self.store.restore(self.user_id, self._id(summary))

    def reflect_now(self, prompt: str, kind: str = "summary") -> Any:
        """Ask for a reflection now (manual priority, before triggered jobs); returns the job."""
        return self.engine.reflect_now(self.user_id, kind=kind, prompt=prompt or None)

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
    batches: list[dict[str, Any]] = field(default_factory=list)


class StatusService:
    """Sources, triggers, model and jobs, read from the engine."""

    def __init__(self, engine: Any, user_id: str = "default") -> None:
        self.engine = engine
        self.user_id = user_id

    def snapshot(self) -> StatusSnapshot:
        status = self.engine.status() if hasattr(self.engine, "status") else {}
        sources = list(status.get("sources", []))
        triggers = ""
        trig = getattr(self.engine, "triggers", None)
        if trig is not None and hasattr(trig, "status"):
            trigger_status = trig.status(self.user_id)
            triggers = trigger_status.text() if hasattr(trigger_status, "text") else str(trigger_status)
            recent = getattr(trig, "recent_decisions", None)
            if callable(recent):
                lines = [d.text() if hasattr(d, "text") else str(d) for d in list(recent(self.user_id))[-8:]]
                if lines:
                    triggers += "\n\nRecent decisions:\n" + "\n".join(lines)
        jobs: list[Any] = []
        queue = getattr(trig, "queue", None) if trig is not None else None
        if queue is not None and hasattr(queue, "list"):
            jobs = list(queue.list())[-50:]
            pending = [j for j in jobs if getattr(j, "pending", False)]
            if pending:
                triggers += "\n\nQueued jobs: " + ", ".join(f"{j.kind} ({j.status})" for j in pending)
        return StatusSnapshot(sources, triggers, self._model_text(), jobs, self.recent_batches())

    def recent_batches(self, limit: int = 30) -> list[dict[str, Any]]:
        """The newest batch logs (``Logs/reflector/batch_NNN.json``) of the user, oldest first."""
        import json
        import re

        folder = self.engine.paths.user(self.user_id).reflector_logs
        if not folder.is_dir():
            return []
        logs = sorted((int(m.group(1)), p) for p in folder.iterdir()
                      if (m := re.match(r"^batch_(\d+)\.json$", p.name)))
        out: list[dict[str, Any]] = []
        for _number, path in logs[-limit:]:
            try:
                data = json.loads(path.read_text("utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(data, dict):
                out.append(data)
        return out

    def _model_text(self) -> str:
        runtime = model_runtime(self.engine)
        status_fn = getattr(runtime, "status", None)
        if not callable(status_fn):
            return ""
        status = status_fn()
        path = getattr(status, "model_path", None)
        name = getattr(status, "model_name", "") or (Path(path).name if path else "")
        state = getattr(status, "state", "")
        extra = f" — {status.error}" if getattr(status, "error", "") else ""
        return f"{name or 'default model'} — {state}{extra}"

    def cancel(self, job_id: str) -> Any:
        """Cancel a running or queued reflection by the id its events carry."""
        return self.engine.cancel_job(job_id)


def model_runtime(engine: Any) -> Any:
    """The engine's model runtime (None until the engine starts reflecting)."""
    return getattr(engine, "runtime", None)


# ---- Settings


def apply_settings(engine: Any, changes: dict[str, Any]) -> None:
    """Check and save changed options (``curator.yaml``) and tell the running parts.

    A changed ``model.path`` also switches the running model worker (``switch_model``).

    Uses ``engine.update_settings`` when the engine has it; otherwise sets each value through
    ``Settings.set`` (which checks it against its ``Option``), saves the file and passes the
    settings to the trigger engine.
    """
    _save_options(engine, changes)
    if "model.path" in changes:
        switch_model(engine, str(changes["model.path"]))


def discover_models(engine: Any) -> list[Any]:
    """The GGUF models on this machine plus ``model.search_folders`` (worker thread: reads headers)."""
    from curator.llm.discovery import discover_for_settings

    return discover_for_settings(engine.settings)


def switch_model(engine: Any, value: str) -> Any:
    """Point the running model worker at ``value`` ("" = the bundled default) from its next job.

    Returns the runtime's ``set_model`` future, or None when no runtime runs yet (it will read
    ``model.path`` when it starts).
    """
    runtime = model_runtime(engine)
    if runtime is None or not hasattr(runtime, "set_model"):
        return None
    from curator.llm.runtime import resolve_model_path

    return runtime.set_model(resolve_model_path(value))


def _save_options(engine: Any, changes: dict[str, Any]) -> None:
    engine.update_settings(changes)


# ---- Sources


class SourcesService:
    """The engine's watched sources for the settings dialog (``ui.setup_widgets.SourceBackend``).

    ``add``/``remove`` run on the worker thread; each writes ``curator.yaml`` through the
    engine, restarts watching and returns the new list. Errors are the engine's ``SourceError``.
    """

    def __init__(self, engine: Any) -> None:
        self._engine = engine

    def list(self) -> list[Any]:
        return list(self._engine.settings.sources)

    def add(self, path: str, adapter: str | None, user_id: str) -> list[Any]:
        self._engine.add_source(Path(path), adapter=adapter, user_id=user_id or "default")
        return self.list()

    def remove(self, source: Any) -> list[Any]:
        self._engine.remove_source(source.id or source.path)
        return self.list()
