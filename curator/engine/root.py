"""The composition root: open a vault and wire settings, index, store, ingest and watching.

Sources (``source_registry``), status records (``status``) and index rebuilds (``rebuild``)
live beside it in this package.

``Engine`` holds no rules of its own; it creates the parts, connects them, and closes them.
Each part is built once, here, and typed: ``store``, ``index``, ``review`` (the review actions,
from open on), ``summaries``, ``triggers`` (``curator.triggers.engine``: it hears new turns
through the ingestor's ``on_turns`` hook and is ticked by the watcher's worker) and, once
``start_reflection`` ran, ``reflection`` and ``runtime`` (the one model worker).

Two ways to open a vault:
    ``Engine(vault)``               the writer: takes the single-writer lock, replays the turn
                                    ledger into the index if a crash left it behind, syncs
                                    documents; may watch, import and reindex.
    ``Engine(vault, writer=False)`` a reader (search, show, status beside a running watcher).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.clock import Clock, SystemClock
from curator.engine.rebuild import (
    ReindexReport,
    build_beside,
    differences,
    fill_from_ledger,
    remove_sqlite,
    remove_stale_rebuilds,
)
from curator.engine.source_registry import SourceRegistry
from curator.engine.status import SourceStatus, source_statuses
from curator.events import EventBus
from curator.faults import fault_point
from curator.index.database import Index, IndexDamagedError
from curator.index.search import SearchFilters, SearchHit, search
from curator.index.views import IndexedDocuments, IndexTurnSource
from curator.mcp.tools import MemoryTools, index_document_file, sync_documents
from curator.outbound.sync import ClientMemory, Refresher
from curator.reflection.gates.fingerprints import RejectedMemory
from curator.reflection.ports import DocumentIndex
from curator.reflection.summaries import SummaryStore
from curator.review.actions import ReviewEngine
from curator.sources.discovery import DiscoveredClient, SourceDetails
from curator.sources.ingest import Ingestor, IngestReport, source_root
from curator.sources.ledger import TurnLedger
from curator.sources.turns import IndexedTurn
from curator.sources.watcher import SourceHealth, Watcher
from curator.triggers.engine import TriggerEngine
from curator.triggers.jobs import Job
from curator.vault.lock import VaultLock, pid_alive
from curator.vault.paths import VaultPaths
from curator.vault.settings import SourceConfig, load_settings, save_settings
from curator.vault.store import DocumentStore

if TYPE_CHECKING:  # the model stack loads only when reflection starts
    from curator.llm.runtime import ModelRuntime, Post
    from curator.reflection.service import ReflectionParts, ReflectionService

log = logging.getLogger(__name__)

LIFECYCLE_SECONDS = 600.0
# A writer waits up to 40 x 50 ms for the lock: long enough for an MCP server's inbox drain
# (a few ms) to finish, short enough that "the vault is in use" by another writer (say
# `curator watch`) is reported at once.
WRITER_LOCK_ATTEMPTS = 40


class Engine:
    """One open vault and everything wired to it.

    Args:
        vault: the vault folder (created when missing, if ``writer``).
        clock: time source (``ManualClock`` in tests).
        writer: take the single-writer lock (raises ``VaultLockedError`` when held).
        triggers: attach a ``TriggerEngine`` (off for one-shot commands such as ``review``).
    """

    def __init__(self, vault: Path, *, clock: Clock | None = None, writer: bool = True, triggers: bool = True,
                 bus: EventBus | None = None) -> None:
        self.paths = VaultPaths(Path(vault).expanduser().resolve())
        self.clock = clock or SystemClock()
        self.writer = writer
        self.lock: VaultLock | None = None
        # Set before anything can fail, so close() can always look at them.
        self.watcher: Watcher | None = None
        self.triggers: TriggerEngine | None = None
        self.reflection: ReflectionService | None = None
        self.runtime: ModelRuntime | None = None
        if writer:
            self.paths.root.mkdir(parents=True, exist_ok=True)
            self.lock = VaultLock(self.paths.lock_file)
            self.lock.acquire(attempts=WRITER_LOCK_ATTEMPTS)
        elif not self.paths.root.is_dir():
            raise FileNotFoundError(f"no vault at {self.paths.root} (run `curator init` first)")
        try:
            self.settings, self.warnings = load_settings(self.paths.settings_file)
            self.bus = bus or EventBus()
            self.ledger = TurnLedger(self.paths)
            self.store = DocumentStore(self.paths, self.clock)
            self.index = self._open_index()
            self.ingestor = Ingestor(
                self.index, self.ledger, self.bus, self.clock, exclude=(self.paths.root,), on_turns=self._on_turns
            )
            self.ingestor.source_roots = lambda: [source_root(s) for s in self.settings.sources]
            self.sources = SourceRegistry(
                self.paths, self.settings, self.ingestor, lambda: self.index,
                lambda: self.watcher.health() if self.watcher is not None else {}, self._restart_watching)
            self.memory = MemoryTools(self.paths, self.index, self.store, self.clock)
            # A reader's review actions (`curator review` beside a running `curator watch`)
            # write their document rows too: SQLite serialises them with the writer's, and
            # search finds an approval at once instead of after the writer's next rescan
            # (which then finds those rows up to date).
            self.documents: DocumentIndex = IndexedDocuments(lambda: self.index, self.paths.root,
                                                             self.document_changed)
            self.rejected = RejectedMemory(self.paths)
            self.summaries = SummaryStore(self.store, self.clock, self.documents, self.bus)
            self.review = ReviewEngine(self.paths, self.store, index=self.documents,
                                       turns=IndexTurnSource(lambda: self.index), events=self.bus,
                                       clock=self.clock, rejected=self.rejected)
            self.review.new_ttl_days = float(self.settings["lifecycle.new_ttl_days"])
            self.client_memory = ClientMemory(
                self.paths, lambda: self.settings, lambda user_id: self.index.approved_paths(user_id),
                lambda user_id: self.index.approved_fingerprint(user_id), clock=self.clock, emit=self.bus.emit)
            # Only the writer keeps clients in step: a reader's review actions reach the
            # writer's index, and its next tick sees them.
            self.client_sender: Refresher | None = Refresher(self.client_memory) if writer else None
            if self.client_sender is not None:
                self.bus.subscribe(lambda event: self.client_sender.poke() if self.client_sender else None,
                                   "review.")
            self._last_document_sync = self.clock.now()
            self._last_lifecycle = float("-inf")
            if writer:
                for user_id in {"default", *(s.user_id for s in self.settings.sources)}:
                    self.paths.user(user_id).ensure()
                if not self.paths.settings_file.exists():
                    save_settings(self.paths.settings_file, self.settings)
                remove_stale_rebuilds(self.paths.root)
                # Review actions a crash left half done were rolled back by ReviewEngine above,
                # before the documents are indexed below.
                self.warnings += self.review.recovered
                replayed = self.ingestor.replay_ledgers()
                if replayed:
                    self.warnings.append(f"recovered {replayed} turn-ledger records into the index")
                self.warnings += self.ingestor.ledger_warnings
                sync_documents(self.index, self.store)
                self.drain_agent_inbox()
            if triggers:
                self._attach_default_triggers()
        except BaseException:
            self.close()
            raise

    # ---- Opening the index

    def _open_index(self) -> Index:
        """The vault's index; a damaged one is set aside and rebuilt (a reader only when no writer runs)."""
        if self.writer:
            index = Index(self.paths.index_file, heal=True)
        else:
            try:
                return Index(self.paths.index_file)
            except IndexDamagedError:
                lock = VaultLock(self.paths.lock_file)
                lock.acquire()  # raises VaultLockedError: the running writer heals it itself
                try:
                    index = Index(self.paths.index_file, heal=True)
                    if index.healed:
                        fill_from_ledger(index, TurnLedger(self.paths), self.store, self.bus, self.clock,
                                         self.paths.root)
                finally:
                    lock.release()
                self.warnings.append(index.healed)
                return index
        if index.healed:
            self.warnings.append(index.healed)
            fill_from_ledger(index, self.ledger, self.store, self.bus, self.clock, self.paths.root)
        return index

    # ---- Triggers

    def _attach_default_triggers(self) -> None:
        try:
            engine = TriggerEngine(self.paths, self.settings, clock=self.clock, events=self.bus)
        except Exception:
            log.exception("trigger engine failed to start; continuing without triggers")
            return
        if self.writer:
            engine.queue.requeue_interrupted()
        self.attach_triggers(engine)

    def attach_triggers(self, trigger_engine: TriggerEngine) -> None:
        """Attach a trigger engine: it gets ``on_turns(user, turns)`` and ``tick()`` calls."""
        self.triggers = trigger_engine

    def _on_turns(self, user_id: str, turns: list[IndexedTurn]) -> None:
        if self.triggers is not None and self.writer:
            self.triggers.on_turns(user_id, turns)
        if self.writer:
            self._record_validations(user_id, turns)

    def _record_validations(self, user_id: str, turns: list[IndexedTurn]) -> None:
        """Seed 004 §10: a validated turn that used approved documents changes their trust."""
        verdicts = [t for t in turns
                    if t.context and str(t.extra.get("validation") or "") in ("APPROVE", "RETRY", "FAIL")]
        if not verdicts:
            return
        from curator.mcp.usage import UsageLog
        from curator.review.lifecycle import cited_documents

        usage = UsageLog(self.paths.root / "usage.sqlite")
        try:
            for turn in verdicts:
                known = [i for i in cited_documents(turn.context)
                         if (row := self.index.get_document(i)) is not None and row.area == "knowledge"
                         and row.user_id == user_id]
                # Recorded when read, not at the turn's own time: a demotion counts the failures
                # since the scope last changed, and that is a time of this clock.
                usage.record_uses(user_id, known, f"validation:{turn.extra['validation']}", self.clock.now())
        finally:
            usage.close()

    def _tick(self) -> None:
        # Runs on the watcher's worker thread every few seconds.
        if self.triggers is not None:
            self.triggers.tick()
        if self.client_sender is not None:
            self.client_sender.poke()  # MEMORY.md or memories changed by another process
        self.drain_agent_inbox()
        now = self.clock.now()
        if now - self._last_document_sync >= float(self.settings["watch.rescan_seconds"]):
            # Documents written by another process (the GUI, a person's editor) reach the
            # index here even if nobody called document_changed().
            self._last_document_sync = now
            sync_documents(self.index, self.store)
            if now - self._last_lifecycle >= LIFECYCLE_SECONDS:
                # Promotions, rechecks and archival change slowly; a pass reads every document.
                self._last_lifecycle = now
                self.run_lifecycle()

    # ---- Sources

    def add_source(self, path: Path, adapter: str | None = None, user_id: str = "default") -> SourceConfig:
        """Add a watched source (see ``SourceRegistry.add``; raises ``SourceError``)."""
        return self.sources.add(path, adapter, user_id)

    def discover_clients(self, **where: Any) -> list[DiscoveredClient]:
        """Chat clients installed at their default places (see ``SourceRegistry.discover_clients``)."""
        return self.sources.discover_clients(**where)

    def add_discovered(self, clients: list[DiscoveredClient], user_id: str = "default") -> list[SourceConfig]:
        """Add every supported, not yet added client of ``clients`` as a source."""
        return self.sources.add_discovered(clients, user_id)

    def source_details(self) -> dict[str, SourceDetails]:
        """Client, version and health of every source, by id (Settings → Sources)."""
        return self.sources.details()

    def find_source(self, ref: str) -> SourceConfig:
        """A configured source by id or path."""
        return self.sources.find(ref)

    def remove_source(self, ref: str) -> SourceConfig:
        """Stop watching a source. Its turns and everything derived from them are kept."""
        return self.sources.remove(ref)

    def import_path(self, path: Path, adapter: str | None = None, user_id: str = "default") -> IngestReport:
        """One-shot ingest of a folder or file (a configured source or any other path)."""
        return self.sources.import_path(path, adapter, user_id)

    def scan_all(self) -> IngestReport:
        """Read every enabled source now (no stability wait)."""
        return self.sources.scan_all()

    # ---- Watching

    def start_watching(self) -> Watcher:
        """Start the watcher (start-up scan included); returns it."""
        if self.watcher is None:
            self.watcher = Watcher(
                self.settings,
                self.ingestor,
                self.bus,
                exclude=(self.paths.root,),
                on_tick=self._tick,
                on_health=self._store_health,
            )
            self.watcher.start()
        return self.watcher

    def _restart_watching(self) -> None:
        # The watcher holds its own list of sources; a changed list means a new watcher.
        if self.watcher is not None:
            self.stop_watching()
            self.start_watching()

    def stop_watching(self) -> None:
        """Stop the watcher (pending reads are picked up by the next start-up scan)."""
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None

    def _store_health(self, health: SourceHealth) -> None:
        self.index.set_health(health.source_id, health.status, health.detail, self.clock.now())

    # ---- Agent proposals (curator mcp)

    def drain_agent_inbox(self) -> list[Any]:
        """Stage what agents proposed through ``curator mcp`` (the writer is the only stager)."""
        if not self.writer:
            return []
        from curator.mcp.inbox import InboxDrainer

        try:
            results = InboxDrainer(self.paths, self.index, self.store, self.clock,
                                   float(self.settings["gates.keyword_support"])).drain_all()
        except Exception:  # one bad proposal must not stop the watcher's tick
            log.exception("staging agent proposals failed")
            return []
        for result in results:
            self.bus.emit("agent.proposal", **result.to_dict())
        return results

    def run_lifecycle(self) -> dict[str, Any]:
        """Propose promotions and "still true?" rechecks, and archive old turns (seed 004 §10-§12)."""
        if not self.writer:
            return {}
        from curator.index.archive import Archiver
        from curator.mcp.usage import UsageLog
        from curator.review.lifecycle import Lifecycle

        out: dict[str, Any] = {}
        try:
            usage = UsageLog(self.paths.root / "usage.sqlite")
            try:
                lifecycle = Lifecycle(self.store, usage, self.clock,
                                      promote_after=int(self.settings["lifecycle.promote_after_uses"]),
                                      ttl_days=float(self.settings["lifecycle.new_ttl_days"]),
                                      expire=self.settings["lifecycle.new_expiry"] == "expire")
                for user_id in self.paths.user_ids():
                    report = lifecycle.run(user_id)
                    out[user_id] = report.to_dict()
                    for doc_id in report.expired:  # out of search with the file
                        self.documents.remove(doc_id)
                    for doc_id in report.demoted:  # the scope filter must see the new scope
                        doc = self.store.find(doc_id, user_id, areas=("knowledge",))
                        if doc is not None and doc.path is not None:
                            self.document_changed(doc.path)
            finally:
                usage.close()
            archived = Archiver(self.index, self.paths).archive(
                self.clock.now() - float(self.settings["archive.after_days"]) * 86400.0)
            out["archived"] = archived
        except Exception:  # the lifecycle must never stop the watcher's tick
            log.exception("lifecycle pass failed")
        return out

    # ---- Documents and search

    def document_changed(self, path: Path) -> None:
        """Tell the index that a vault document was written, moved or deleted."""
        index_document_file(self.index, self.store, Path(path))

    def sync_documents(self) -> dict[str, int]:
        """Re-index every vault document that changed on disk."""
        return sync_documents(self.index, self.store)

    def search(self, query: str, filters: SearchFilters | None = None, limit: int = 10) -> list[SearchHit]:
        """The unified search (see ``curator.index.search.search``)."""
        return search(self.index, query, filters, limit)

    # ---- Rebuild

    def reindex(self) -> ReindexReport:
        """Rebuild the index from the vault (turn ledger, documents) and the sources.

        The live index first catches up with the sources; then a fresh index is built beside
        it, compared with it, and put in its place. ``equal`` says whether both agreed.
        """
        if not self.writer:
            raise RuntimeError("reindex needs the writer engine")
        self.stop_watching()
        catch_up = self.scan_all().summary()
        sync_documents(self.index, self.store)
        target, old, new = build_beside(self.index, self.paths, self.ledger, self.store, self.clock,
                                        self.settings.sources)
        found = differences(old, new)
        fault_point("reindex.before_swap")
        self.index.close()
        remove_sqlite(self.paths.index_file, keep_main=True)
        fault_point("reindex.mid_swap")
        os.replace(target, self.paths.index_file)
        remove_sqlite(target)
        self.index = Index(self.paths.index_file)
        self.ingestor.index = self.index
        self.memory.index = self.index
        report = ReindexReport(not found, len(new["turns"]), len(new["documents"]), found, catch_up)
        log.info("reindex: %d turns, %d documents; %s", report.turns, report.documents,
                 "same as the live index" if report.equal else f"{len(found)} differences")
        return report

    # ---- Status

    def _writer_holder(self) -> tuple[dict[str, Any], bool]:
        """The lock's holder, and whether a live writer other than this engine holds it."""
        holder = self.lock.holder() if self.lock else VaultLock(self.paths.lock_file).holder()
        elsewhere = not self.writer and bool(holder.get("held")) and pid_alive(int(holder.get("pid", 0) or 0))
        return holder, elsewhere

    def source_statuses(self) -> list[SourceStatus]:
        """Each source with its health and turn count (see ``curator.engine.status``)."""
        live = self.watcher.health() if self.watcher is not None else {}
        _holder, watcher_elsewhere = self._writer_holder()
        stored = self.index.health() if watcher_elsewhere else {}
        return source_statuses(self.settings.sources, self.index, self.ingestor, live, stored)

    def status(self) -> dict[str, Any]:
        """Sources and their health, turn and document counts, trigger state."""
        holder, watcher_elsewhere = self._writer_holder()
        sources = self.source_statuses()
        result: dict[str, Any] = {
            "vault": str(self.paths.root),
            "sources": [source.to_dict() for source in sources],
            "turns": self.index.turn_counts(),
            "documents": self.index.document_counts(),
            "writer": holder if holder.get("held") and (self.writer or watcher_elsewhere) else None,
            "warnings": list(self.warnings),
        }
        if self.triggers is not None:
            triggers = {}
            for user_id in sorted({"default", *(s.user_id for s in self.settings.sources), *self.triggers.users()}):
                try:
                    triggers[user_id] = self.triggers.status(user_id).to_dict()
                except Exception as exc:  # status must never fail because of one part
                    triggers[user_id] = {"error": str(exc)}
            result["triggers"] = triggers
        return result

    # ---- Reflection (the model worker and the reflectors, started on demand)

    def reflection_parts(self) -> ReflectionParts:
        """What a ``ReflectionService`` needs of this vault (it never sees the engine itself)."""
        from curator.reflection.service import ReflectionParts

        if self.triggers is None:
            raise RuntimeError("reflection needs the vault's trigger engine (its job queue)")
        return ReflectionParts(
            paths=self.paths, store=self.store, settings=self.settings, clock=self.clock,
            bus=self.bus, triggers=self.triggers, review=self.review, summaries=self.summaries,
            rejected=self.rejected, documents=self.documents, current_index=lambda: self.index,
        )

    def start_reflection(self, *, model_path: Path | str | None = None,
                         post: Post | None = None) -> ReflectionService:
        """Run queued reflection jobs on a background thread, on one model; returns the service.

        The model itself loads lazily, on the first job (or ``runtime.preload()``).
        """
        if self.reflection is None:
            from curator.reflection.service import ReflectionService

            parts = self.reflection_parts()
            if post is not None:
                service = ReflectionService(parts, model_path=model_path, post=post)
            else:
                service = ReflectionService(parts, model_path=model_path)
            self.reflection = service
            self.runtime = service.runtime
            if self.writer:
                service.start()
        return self.reflection

    def reflect_now(self, user_id: str = "default", kind: str = "summary",
                    prompt: str | None = None) -> Job:
        """Queue a manual reflection (runs before triggered ones); returns the job."""
        if self.triggers is None:
            raise RuntimeError("this vault has no trigger engine to queue a reflection")
        return self.triggers.request(kind, user_id, prompt=prompt)

    def cancel_job(self, job_id: str) -> Job | None:
        """Cancel a queued or running reflection job; a running one stages nothing."""
        reflection = self.reflection
        if reflection is not None and job_id in (reflection.current_job_id, reflection.model.model_job_id):
            reflection.cancel_current()
        if self.triggers is None:
            return None
        job = self.triggers.queue.get(job_id)
        if job is not None and job.status in ("queued", "running"):
            return self.triggers.queue.cancel(job_id, "cancelled by the person")
        return job

    def update_settings(self, changes: dict[str, Any]) -> None:
        """Check, save and apply changed options (each checked against its declaration)."""
        for key, value in changes.items():
            self.settings.set(key, value)
        save_settings(self.paths.settings_file, self.settings)
        self.review.new_ttl_days = float(self.settings["lifecycle.new_ttl_days"])
        if self.triggers is not None:
            self.triggers.update_settings(self.settings)
        if self.client_sender is not None and any(key.startswith("send.") for key in changes):
            self.client_sender.poke()

    # ---- Closing

    def close(self) -> None:
        """Stop reflecting and watching, close the index, release the lock (safe to call twice)."""
        reflection = self.reflection
        if reflection is not None:
            try:
                reflection.close()
            except Exception:
                log.exception("stopping reflection failed")
            self.reflection = None
        if self.watcher is not None:
            self.stop_watching()
        sender: Refresher | None = getattr(self, "client_sender", None)
        if sender is not None:
            try:
                sender.close()  # a change approved just before closing still reaches the clients
            except Exception:
                log.exception("sending memory to clients failed")
            self.client_sender = None
        triggers = self.triggers
        if triggers is not None:
            try:
                triggers.close()
            except Exception:
                log.exception("closing the trigger engine failed")
            self.triggers = None
        index: Index | None = getattr(self, "index", None)  # absent if opening failed early
        if index is not None:
            index.close()
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
