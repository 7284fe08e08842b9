"""Thin adapters from panes to the engine API: each method is one engine call or a lookup.

Panes call these from the ``OpRunner`` worker thread. Nothing here decides anything: ranking,
gates, approval, undo and resolution are the engine's (``curator.review.actions``,
``curator.reflection.summaries``, ``curator.index.search``...). What lives here is plumbing: which
engine object answers, and gathering what a view needs in one background call (the turns
an item cites, the text a correction replaces).

Threading contract: every method may block and runs on a worker thread; never call one on
the GUI thread.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.clock import iso_utc

if TYPE_CHECKING:
    # The engine's modules load on the worker thread when the vault opens, not before the
    # window shows (they are a third of a second of imports); here they are only types.
    from curator.engine import Engine, SourceStatus
    from curator.index.search import SearchHit
    from curator.llm.discovery import DiscoveredModel
    from curator.llm.runtime import ModelRuntime
    from curator.outbound.sync import Plan
    from curator.reflection.summaries import SummaryRecord
    from curator.review.actions import ActionResult, ReviewItem
    from curator.sources.discovery import SourceDetails
    from curator.sources.turns import IndexedTurn
    from curator.triggers.jobs import Job
    from curator.vault.documents import Document
    from curator.vault.settings import SourceConfig
    from curator.vault.store import HistoryEntry, TrashEntry

CONTEXT_RADIUS = 6
# Similar enough to ask "already known?" (the dedup gate drops a proposal above 0.8).
ALREADY_KNOWN = 0.45


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
    turns: Sequence[IndexedTurn] = ()
    missing_turns: Sequence[int] = ()
    left: Statement | None = None
    right: Statement | None = None
    known_id: str = ""  # an approved memory that says much the same ("already known?")
    known_text: str = ""
    dated: str = ""  # what a relative time in it meant when it was said ("next week" is ...)


def _date_of(value: Any) -> str:
    if isinstance(value, (int, float)) and value > 0:
        return iso_utc(float(value))
    return str(value or "")


class ReviewService:
    """The review queue of one user, over ``ReviewEngine`` (list, show, approve, discard, undo, resolve)."""

    def __init__(self, engine: Engine, user_id: str = "default") -> None:
        self.engine = engine
        self.user_id = user_id
        self.review = engine.review

    # ---- Lists

    def list_items(self) -> list[ReviewItem]:
        """Staged items of the user, in the engine's ranked order."""
        return list(self.review.list_items(self.user_id).items)

    def list_contradictions(self) -> list[ReviewItem]:
        return list(self.review.list_items(self.user_id, kind="contradiction").items)

    # ---- Detail

    def detail(self, item: ReviewItem) -> ReviewDetail:
        """What the panes show for ``item``; ``show`` also records the bytes shown (hash check)."""
        from curator.reflection.dated import described  # engine code: loaded off the GUI thread

        shown = self.review.show(self.user_id, item.doc_id)
        current = shown.item
        numbers = [t.number for t in shown.evidence]
        turns, missing = self.turns(numbers, self.user_id)
        fields = dict(current.fields)
        left = right = None
        if current.kind == "contradiction":
            existing = (
                self.engine.store.find(
                    str(fields.get("existing_id") or ""), self.user_id, areas=("knowledge",)
                )
                if fields.get("existing_id")
                else None
            )
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
        known_id, known_text = self._already_known(current) if current.kind == "fact" else ("", "")
        return ReviewDetail(
            known_id=known_id,
            known_text=known_text,
            dated=described(fields.get("dated"), self.engine.clock.now()),
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
        )

    def _already_known(self, item: ReviewItem) -> tuple[str, str]:
        """The approved memory closest to ``item`` when it is close enough to ask about merging."""
        from curator.reflection.gates.similarity import similarity
        from curator.reflection.knowledge import IndexKnowledge

        best = ("", "", 0.0)
        for doc in IndexKnowledge(lambda: self.engine.index, self.engine.store).search(self.user_id, item.text, 5):
            score = similarity(item.text, doc.text)
            if score > best[2]:
                best = (doc.doc_id, doc.text, score)
        return (best[0], best[1]) if best[2] >= ALREADY_KNOWN else ("", "")

    def turns(self, numbers: Sequence[int], user_id: str) -> tuple[list[IndexedTurn], list[int]]:
        """The indexed turns with these numbers, and the numbers not found."""
        found: list[IndexedTurn] = []
        missing: list[int] = []
        for number in numbers:
            turn = self.engine.index.get_turn(user_id, number)
            (found.append(turn) if turn is not None else missing.append(number))
        return found, missing

    def conversation_around(self, item: ReviewItem | None, number: int) -> list[IndexedTurn]:
        """The turns of the same conversation around turn ``number``."""
        index = self.engine.index
        center = index.get_turn(self.user_id, number)
        turns = index.turns(self.user_id, after=max(0, number - CONTEXT_RADIUS - 1), limit=2 * CONTEXT_RADIUS + 1)
        if center is None:
            return list(turns)
        return [t for t in turns if t.conversation == center.conversation and t.file == center.file]

    # ---- Actions

    def approve(self, item: ReviewItem, edited_text: str | None, shown_hash: str = "",
                accept_flags: bool = False) -> ActionResult:
        """Approve ``item`` as shown, with the person's edit when given.

        ``shown_hash`` is the hash of the bytes the person saw (the detail view's); without
        one, the hash the item carried when the queue listed it. Never re-read here: a file
        changed since it was shown must fail the approval, not be approved unseen.
        """
        return self.review.approve(self.user_id, item.doc_id, shown_hash or item.content_hash,
                                   text=edited_text, accept_flags=accept_flags)

    def discard(self, item: ReviewItem, reason: str) -> ActionResult:
        return self.review.discard(self.user_id, item.doc_id, reason)

    def undo(self) -> ActionResult | None:
        results = self.review.undo(self.user_id)
        return results[0] if results else None

    def resolve(self, item: ReviewItem, choice: str, note: str, shown_hash: str = "") -> ActionResult:
        return self.review.resolve(self.user_id, item.doc_id, choice, shown_hash or item.content_hash,
                                   note=note)

    # ---- The person's own hand (one undoable step each)

    def approve_all(self, items: Sequence[ReviewItem], accept_flags: bool = False) -> ActionResult:
        return own_hand(self.engine).approve_all(self.user_id, [i.doc_id for i in items], accept_flags=accept_flags)

    def discard_all(self, items: Sequence[ReviewItem], reason: str) -> ActionResult:
        return own_hand(self.engine).discard_all(self.user_id, [i.doc_id for i in items], reason)

    def merge(self, ids: Sequence[str], text: str) -> ActionResult:
        return own_hand(self.engine).merge(self.user_id, ids, text)

    def remember(self, turn_number: int, text: str, approve: bool) -> ActionResult:
        return own_hand(self.engine).remember(self.user_id, turn_number, text, approve=approve)

    def same_conversation(self, item: ReviewItem) -> tuple[str, list[str]]:
        """(the item's conversation, ids of every staged item citing it); ("", []) for none."""
        own = own_hand(self.engine)
        conversations = own.conversations_of(self.user_id, item.source_turns)
        if not conversations:
            return "", []
        return conversations[0], own.staged_ids(self.user_id, conversation=conversations[0])


def own_hand(engine: Engine) -> Any:
    """The person's memory actions over the engine's review (``curator.review.own_hand``)."""
    from curator.review.own_hand import OwnHand
    from curator.vault.person import person_name

    return OwnHand(engine.review, person=person_name(engine.settings))


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


class KnowledgeService:
    """Search, documents, trash and history over the engine's index and document store."""

    def __init__(self, engine: Engine, user_id: str = "default") -> None:
        self.engine = engine
        self.user_id = user_id

    def search(self, request: SearchRequest) -> list[SearchHit]:
        """Unified search hits; with an empty query, the approved documents (newest first)."""
        from curator.index.search import SearchFilters, search

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

    def _listing(self, request: SearchRequest) -> list[SearchHit]:
        """Approved documents as search hits without a score (no query to score against)."""
        from curator.clock import parse_iso

        out: list[SearchHit] = []
        from curator.vault.documents import Document  # loaded with the engine by now

        for _path, doc in self.engine.store.iter_documents(self.user_id, "knowledge"):
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
            from curator.index.search import SearchHit

            out.append(SearchHit(item_type="document", id=doc.id, score=0.0, snippet=doc.body.strip()[:160],
                                 title=doc.title, user_id=self.user_id, kind=doc.kind, timestamp=created,
                                 topic=topic, scope=doc.scope, quality=doc.quality))
        out.sort(key=lambda d: d.timestamp or 0, reverse=True)
        return out[: request.limit]

    def open_document(self, doc_id: str) -> tuple[Document | None, list[HistoryEntry]]:
        doc = self.engine.store.find(doc_id, self.user_id)
        history = self.engine.store.history(doc_id, self.user_id) if doc is not None else []
        return doc, list(reversed(history))

    def turn_text(self, hit: SearchHit) -> str:
        number = hit.number if hit.number is not None else int(hit.id)
        turn = self.engine.index.get_turn(hit.user_id or self.user_id, number)
        if turn is None:
            return "(this turn is no longer in the index)"
        return f"#{turn.number} {turn.speaker or turn.role} — {iso_utc(turn.timestamp)}\n{turn.file}\n\n{turn.text}"

    def save_document(self, doc: Document, values: dict[str, Any], body: str) -> Path:
        """Write the person's edit (history kept by the store) and re-index it."""
        from curator.vault.documents import Document

        edited = Document(meta=dict(doc.meta), body=body, path=doc.path)
        edited.meta.update(values)
        path = self.engine.store.update(edited, action="edit")
        self.engine.document_changed(path)
        return path

    def trash_document(self, doc: Document) -> TrashEntry:
        old_path = doc.path
        entry = self.engine.store.trash(doc, reason="deleted in the knowledge browser")
        if old_path is not None:
            self.engine.document_changed(old_path)
        return entry

    def list_trash(self) -> list[TrashEntry]:
        return list(reversed(self.engine.store.list_trash(self.user_id)))

    def restore(self, entry: TrashEntry) -> Path:
        path = self.engine.store.restore(entry)
        self.engine.document_changed(path)
        return path

    def read_version(self, entry: HistoryEntry) -> str:
        return entry.path.read_text("utf-8")

    # ---- The person's own hand

    def add(self, text: str, turns: Sequence[int]) -> ActionResult:
        return own_hand(self.engine).add(self.user_id, text, turns=turns)

    def pin(self, doc: Document, pinned: bool) -> ActionResult:
        return own_hand(self.engine).pin(self.user_id, doc.id, pinned)

    def retire(self, doc: Document, reason: str) -> ActionResult:
        return own_hand(self.engine).retire(self.user_id, doc.id, reason)

    def merge(self, ids: Sequence[str], text: str) -> ActionResult:
        return own_hand(self.engine).merge(self.user_id, ids, text)

    def undo(self) -> ActionResult | None:
        results = self.engine.review.undo(self.user_id)
        return results[0] if results else None

    def bodies(self, ids: Sequence[str]) -> list[str]:
        """The texts of these documents, in order ('' for one that is gone)."""
        docs = [self.engine.store.find(i, self.user_id, areas=("knowledge",)) for i in ids]
        return [d.body.strip() if d is not None else "" for d in docs]

    def matching_turns(self, text: str, limit: int = 6) -> list[IndexedTurn]:
        """Turns whose words match ``text`` (evidence offered while a memory is typed)."""
        from curator.index.search import SearchFilters, search

        if len(text.split()) < 2:
            return []
        hits = search(self.engine.index, text, SearchFilters(user_id=self.user_id, item_types=("turn",)), limit)
        turns = [self.engine.index.get_turn(self.user_id, h.number) for h in hits if h.number is not None]
        return [t for t in turns if t is not None]



# ---- Reflections (context summaries)


class SummariesService:
    """Context summaries of one user, over ``curator.reflection.summaries.SummaryStore``."""

    def __init__(self, engine: Engine, user_id: str = "default") -> None:
        self.engine = engine
        self.user_id = user_id
        self.store = engine.summaries

    def list(self, include_deleted: bool) -> list[SummaryRecord]:
        """Summaries oldest first (the timeline's order)."""
        return self.store.records(self.user_id, include_deleted=include_deleted)

    def edit(self, summary: SummaryRecord, text: str) -> Document:
        return self.store.edit(self.user_id, summary.id, summary=text)

    def delete(self, summary: SummaryRecord) -> Document:
        return self.store.delete(self.user_id, summary.id)

    def restore(self, summary: SummaryRecord) -> Document:
        return self.store.restore(self.user_id, summary.id)

    def reflect_now(self, prompt: str, kind: str = "summary") -> Job:
        """Ask for a reflection now (manual priority, before triggered jobs); returns the job."""
        return self.engine.reflect_now(self.user_id, kind=kind, prompt=prompt or None)


# ---- Status


@dataclass(frozen=True)
class StatusSnapshot:
    """What the status pane shows, gathered in one background call."""

    sources: list[SourceStatus]
    triggers: str
    model: str
    jobs: list[Job]
    batches: list[dict[str, Any]] = field(default_factory=list)


class StatusService:
    """Sources, triggers, model and jobs, read from the engine."""

    def __init__(self, engine: Engine, user_id: str = "default") -> None:
        self.engine = engine
        self.user_id = user_id

    def snapshot(self) -> StatusSnapshot:
        sources = self.engine.source_statuses()
        triggers = ""
        jobs: list[Job] = []
        trig = self.engine.triggers
        if trig is not None:
            triggers = trig.status(self.user_id).text()
            lines = [d.text() for d in trig.recent_decisions(self.user_id)[-8:]]
            if lines:
                triggers += "\n\nRecent decisions:\n" + "\n".join(lines)
            jobs = list(trig.queue.list())[-50:]
            pending = [j for j in jobs if j.pending]
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
        runtime = self.engine.runtime
        if runtime is None:
            return ""
        status = runtime.status()
        path = status.model_path
        name = status.model_name or (Path(path).name if path else "")
        extra = f" — {status.error}" if status.error else ""
        return f"{name or 'default model'} — {status.state}{extra}"

    def cancel(self, job_id: str) -> Job | None:
        """Cancel a running or queued reflection by the id its events carry."""
        return self.engine.cancel_job(job_id)


def model_runtime(engine: Engine) -> ModelRuntime | None:
    """The engine's model runtime (None until the engine starts reflecting)."""
    return engine.runtime


# ---- Settings


def apply_settings(engine: Engine, changes: dict[str, Any]) -> None:
    """Check and save changed options (``curator.yaml``) and tell the running parts.

    A changed ``model.path`` also switches the running model worker (``switch_model``).

    ``Engine.update_settings`` checks each value against its ``Option``, saves the file and
    passes the settings to the trigger engine.
    """
    _save_options(engine, changes)
    if "model.path" in changes:
        switch_model(engine, str(changes["model.path"]))


def discover_models(engine: Engine) -> list[DiscoveredModel]:
    """The GGUF models on this machine plus ``model.search_folders`` (worker thread: reads headers)."""
    from curator.llm.discovery import discover_for_settings

    return discover_for_settings(engine.settings)


def switch_model(engine: Engine, value: str) -> Future[None] | None:
    """Point the running model worker at ``value`` ("" = the bundled default) from its next job.

    Returns the runtime's ``set_model`` future, or None when no runtime runs yet (it will read
    ``model.path`` when it starts).
    """
    runtime = engine.runtime
    if runtime is None:
        return None
    from curator.llm.runtime import resolve_model_path

    return runtime.set_model(resolve_model_path(value))


def _save_options(engine: Engine, changes: dict[str, Any]) -> None:
    engine.update_settings(changes)


# ---- Sources


class SourcesService:
    """The engine's watched sources for the settings dialog (``ui.dialogs.setup_widgets.SourceBackend``).

    ``add``/``remove`` run on the worker thread; each writes ``curator.yaml`` through the
    engine, restarts watching and returns the new list. Errors are the engine's ``SourceError``.
    """

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def list(self) -> list[SourceConfig]:
        return list(self._engine.settings.sources)

    def add(self, path: str, adapter: str | None, user_id: str) -> builtins.list[SourceConfig]:
        self._engine.add_source(Path(path), adapter=adapter, user_id=user_id or "default")
        return self.list()

    def remove(self, source: SourceConfig) -> builtins.list[SourceConfig]:
        self._engine.remove_source(source.id or source.path)
        return self.list()

    def details(self) -> dict[str, SourceDetails]:
        """Client, version and health of each source, by id (worker thread)."""
        return dict(self._engine.source_details())


class ClientSendService:
    """The engine's client memory for Settings > Sources (``ui.dialogs.client_send.ClientSendBackend``).

    Every method runs on the worker thread; ``switch`` and ``apply`` write a plan the person
    saw as a diff and said yes to, and return the clients as they are now.
    """

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def rows(self) -> list[dict[str, Any]]:
        return self._engine.client_memory.overview()

    def plan(self, key: str, take_back: bool) -> Plan:
        return self._engine.client_memory.plan(key, take_back=take_back)

    def switch(self, key: str, on: bool, plan: Plan) -> list[dict[str, Any]]:
        if plan.changes:
            self._engine.client_memory.apply(plan)
        from curator.outbound.sync import setting_key

        self._engine.update_settings({setting_key(key): on})
        return self.rows()

    def undo_plan(self, key: str) -> Plan:
        return self._engine.client_memory.undo_last(key)

    def apply(self, plan: Plan) -> list[dict[str, Any]]:
        self._engine.client_memory.apply(plan)
        return self.rows()

    def writes(self, key: str) -> list[tuple[str, str]]:
        return self._engine.client_memory.writes(key)

    def set_api_key(self, key: str, value: str) -> list[dict[str, Any]]:
        if key != "openwebui":
            raise ValueError(f"{key} takes no API key")
        self._engine.client_memory.set_api_key(value)
        return self.rows()
