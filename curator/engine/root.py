"""The composition root: open a vault and wire settings, index, store, ingest and watching.

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

import hashlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.clock import Clock, SystemClock
from curator.events import EventBus
from curator.faults import fault_point
from curator.index.database import Index, IndexDamagedError
from curator.index.search import SearchFilters, SearchHit, search
from curator.index.views import IndexedDocuments, IndexTurnSource
from curator.mcp.tools import MemoryTools, index_document_file, sync_documents
from curator.reflection.gates.fingerprints import RejectedMemory
from curator.reflection.ports import DocumentIndex
from curator.reflection.summaries import SummaryStore
from curator.review.actions import ReviewEngine
from curator.sources.adapters import detect_adapter, get_adapter, resolve_source_root
from curator.sources.discovery import (
    DiscoveredClient,
    SourceDetails,
    describe_source,
    discover_clients,
)
from curator.sources.health import describe as describe_health
from curator.sources.health import summarise as summarise_health
from curator.sources.ingest import Ingestor, IngestReport, source_root
from curator.sources.ledger import TurnLedger
from curator.sources.turns import IndexedTurn
from curator.sources.watcher import SourceHealth, Watcher
from curator.triggers.engine import TriggerEngine
from curator.triggers.jobs import Job
from curator.vault.lock import VaultLock, pid_alive
from curator.vault.paths import VaultPaths, slugify, validate_user_id
from curator.vault.settings import SourceConfig, load_settings, save_settings
from curator.vault.store import DocumentStore

if TYPE_CHECKING:  # the model stack loads only when reflection starts
    from curator.llm.runtime import ModelRuntime, Post
    from curator.reflection.service import ReflectionParts, ReflectionService

log = logging.getLogger(__name__)

LIFECYCLE_SECONDS = 600.0


class SourceError(ValueError):
    """A source that cannot be added, found or read (the message says why)."""


@dataclass
class ReindexReport:
    """Outcome of ``Engine.reindex``."""

    equal: bool
    turns: int
    documents: int
    differences: list[str] = field(default_factory=list)
    catch_up: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "equal": self.equal,
            "turns": self.turns,
            "documents": self.documents,
            "differences": self.differences,
            "catch_up": self.catch_up,
        }


def make_source_id(path: Path) -> str:
    """A stable, readable id for a source path."""
    digest = hashlib.sha1(str(path).encode("utf-8")).hexdigest()[:6]
    return f"{slugify(path.stem or path.name, 24)}-{digest}"


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
            self.lock.acquire()
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
            self._last_document_sync = self.clock.now()
            self._last_lifecycle = float("-inf")
            if writer:
                for user_id in {"default", *(s.user_id for s in self.settings.sources)}:
                    self.paths.user(user_id).ensure()
                if not self.paths.settings_file.exists():
                    save_settings(self.paths.settings_file, self.settings)
                _remove_stale_rebuilds(self.paths.root)
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
                        self._rebuild_into(index, TurnLedger(self.paths))
                finally:
                    lock.release()
                self.warnings.append(index.healed)
                return index
        if index.healed:
            self.warnings.append(index.healed)
            self._rebuild_into(index, self.ledger)
        return index

    def _rebuild_into(self, index: Index, ledger: TurnLedger) -> None:
        """Fill an empty index from the turn ledger and the vault's documents, with progress events."""
        users = ledger.users()
        total = len(users) + 1
        self.bus.emit("index.rebuild", stage="started", done=0, total=total, message=index.healed)
        rebuild = Ingestor(index, ledger, EventBus(), self.clock, exclude=(self.paths.root,))
        for done, user_id in enumerate(users, start=1):
            rebuild.replay_user(user_id, logging.INFO)
            self.bus.emit("index.rebuild", stage="turns", done=done, total=total, message=f"turns of {user_id}")
        counts = sync_documents(index, self.store)
        self.bus.emit("index.rebuild", stage="done", done=total, total=total,
                      message=f"index rebuilt: {sum(index.turn_counts().get(u, {}).get('active', 0) for u in users)} "
                              f"active turns, {counts['indexed']} documents")

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

    def _tick(self) -> None:
        # Runs on the watcher's worker thread every few seconds.
        if self.triggers is not None:
            self.triggers.tick()
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
        """Add a watched source (adapter detected from its contents when not named).

        Raises:
            SourceError: missing path, inside the vault, already added, or unrecognised.
        """
        root = resolve_source_root(Path(path).expanduser().resolve())
        validate_user_id(user_id)
        if not root.exists():
            raise SourceError(f"{root} does not exist")
        if root == self.paths.root or root.is_relative_to(self.paths.root):
            raise SourceError(f"{root} is inside the vault; the vault is never watched as a source")
        if any(source_root(s).resolve() == root for s in self.settings.sources):
            raise SourceError(f"{root} is already a source")
        if adapter is None:
            adapter, score = detect_adapter(root)
            log.info("source %s: adapter %s detected (score %.2f)", root, adapter, score)
        else:
            get_adapter(adapter)
        source = SourceConfig(path=str(root), adapter=adapter, user_id=user_id, id=make_source_id(root))
        if self.paths.root.is_relative_to(root):
            log.warning("the vault %s is inside source %s; it is excluded from watching", self.paths.root, root)
        self.settings.sources.append(source)
        save_settings(self.paths.settings_file, self.settings)
        self.paths.user(user_id).ensure()
        self._restart_watching()
        return source

    def discover_clients(self, **where: Any) -> list[DiscoveredClient]:
        """Chat clients installed at their default places, each marked with the source that
        already reads it (``source_id``). ``where`` goes to ``discovery.discover_clients``
        (``home``, ``env``, ``platform``, ``system_paths``); it only reads."""
        clients = discover_clients(**where)
        roots = {source_root(s).resolve(): s.id for s in self.settings.sources}
        for client in clients:
            path = Path(client.path).resolve()
            client.source_id = next((sid for root, sid in roots.items()
                                     if path == root or path.is_relative_to(root)
                                     or (root.is_file() and root.parent == path)), "")
        return clients

    def add_discovered(self, clients: list[DiscoveredClient], user_id: str = "default") -> list[SourceConfig]:
        """Add every supported, not yet added client of ``clients`` as a source."""
        added = []
        for client in clients:
            if client.supported and client.adapter and not client.source_id:
                source = self.add_source(Path(client.path), client.adapter, user_id)
                client.source_id = source.id
                added.append(source)
        return added

    def source_details(self) -> dict[str, SourceDetails]:
        """Client, version and health of every source, by id (Settings → Sources)."""
        live = self.watcher.health() if self.watcher is not None else {}
        details = {}
        for source in self.settings.sources:
            info = describe_source(source.id, source_root(source), source.adapter)
            if not info.health:
                if source.id in live:
                    info.health, info.detail = live[source.id].status, live[source.id].detail
                else:
                    available = self.ingestor.availability(source)
                    info.health = "available" if available.available else "unavailable"
                    info.detail = available.reason
                problems = self.index.problems(source.id)
                if problems and info.health in ("available", "watching", "polling"):
                    info.detail = f"{len(problems)} parts skipped: {problems[0][2]}"
            details[source.id] = info
        return details

    def find_source(self, ref: str) -> SourceConfig:
        """A configured source by id or path."""
        for source in self.settings.sources:
            if source.id == ref:
                return source
        try:
            wanted = Path(ref).expanduser().resolve()
        except OSError:
            wanted = None
        for source in self.settings.sources:
            if wanted is not None and source_root(source).resolve() == wanted:
                return source
        raise SourceError(f"no source {ref!r} (see `curator source list`)")

    def remove_source(self, ref: str) -> SourceConfig:
        """Stop watching a source. Its turns and everything derived from them are kept."""
        source = self.find_source(ref)
        self.settings.sources = [s for s in self.settings.sources if s.id != source.id]
        save_settings(self.paths.settings_file, self.settings)
        self._restart_watching()
        self.index.forget_source(source.id)
        return source

    def import_path(self, path: Path, adapter: str | None = None, user_id: str = "default") -> IngestReport:
        """One-shot ingest of a folder or file (a configured source or any other path)."""
        root = Path(path).expanduser().resolve()
        if not root.exists():
            raise SourceError(f"{root} does not exist")
        if root == self.paths.root or root.is_relative_to(self.paths.root):
            raise SourceError(f"{root} is inside the vault")
        try:
            source = self.find_source(str(root))
        except SourceError:
            if adapter is None:
                adapter, _ = detect_adapter(root)
            source = SourceConfig(path=str(root), adapter=adapter, user_id=validate_user_id(user_id),
                                  id="import-" + make_source_id(root))
            self.paths.user(user_id).ensure()
        return self.ingestor.import_path(source)

    def scan_all(self) -> IngestReport:
        """Read every enabled source now (no stability wait)."""
        report = IngestReport()
        for source in self.settings.sources:
            if source.enabled:
                report.merge(self.ingestor.import_path(source))
        return report

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
                                      ttl_days=float(self.settings["lifecycle.new_ttl_days"]))
                for user_id in self.paths.user_ids():
                    out[user_id] = lifecycle.run(user_id).to_dict()
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
        target = self.paths.root / f".index-rebuild-{os.getpid()}.sqlite"
        _remove_sqlite(target)
        fresh = Index(target)
        try:
            rebuild = Ingestor(fresh, self.ledger, EventBus(), self.clock, exclude=(self.paths.root,))
            rebuild.replay_ledgers(logging.INFO)
            sync_documents(fresh, self.store)
            for source in self.settings.sources:
                if source.enabled:
                    rebuild.import_path(source)
            # Archival is part of what the index derives: the same boundary, the same rows.
            from curator.index.archive import Archiver

            Archiver(self.index, self.paths).reapply()
            Archiver(fresh, self.paths).reapply()
            old, new = self.index.snapshot(), fresh.snapshot()
        finally:
            fresh.close()
        differences = _differences(old, new)
        fault_point("reindex.before_swap")
        self.index.close()
        _remove_sqlite(self.paths.index_file, keep_main=True)
        fault_point("reindex.mid_swap")
        os.replace(target, self.paths.index_file)
        _remove_sqlite(target)
        self.index = Index(self.paths.index_file)
        self.ingestor.index = self.index
        self.memory.index = self.index
        report = ReindexReport(not differences, len(new["turns"]), len(new["documents"]), differences, catch_up)
        log.info("reindex: %d turns, %d documents; %s", report.turns, report.documents,
                 "same as the live index" if report.equal else f"{len(differences)} differences")
        return report

    # ---- Status

    def status(self) -> dict[str, Any]:
        """Sources and their health, turn and document counts, trigger state."""
        live = self.watcher.health() if self.watcher is not None else {}
        holder = self.lock.holder() if self.lock else VaultLock(self.paths.lock_file).holder()
        watcher_elsewhere = not self.writer and bool(holder.get("held")) and pid_alive(int(holder.get("pid", 0) or 0))
        stored = self.index.health() if watcher_elsewhere else {}
        per_source = self.index.source_turn_counts()
        sources = []
        for source in self.settings.sources:
            if source.id in live:
                health = {"status": live[source.id].status, "detail": live[source.id].detail}
            elif source.id in stored:  # what the running `curator watch` last recorded
                health = {"status": stored[source.id]["status"], "detail": stored[source.id]["detail"]}
            else:
                available = self.ingestor.availability(source, thorough=True)
                health = {"status": "available" if available.available else "unavailable", "detail": available.reason}
            problems = [f"{unit}: {problem}" for _, unit, problem in self.index.problems(source.id)]
            counts = summarise_health([p for _, _, p in self.index.problems(source.id)])
            if not health.get("detail"):
                health["detail"] = describe_health(counts)  # the Status pane shows it as a tooltip
            sources.append({
                **source.to_dict(),
                **health,
                "turns": per_source.get(source.id, 0),
                "problems": problems,
                "reading": counts,
            })
        result: dict[str, Any] = {
            "vault": str(self.paths.root),
            "sources": sources,
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


def _remove_stale_rebuilds(root: Path) -> None:
    # Only the writer rebuilds, and we hold the writer lock: any rebuild file is a dead one's.
    for path in root.glob(".index-rebuild-*.sqlite"):
        log.info("removing %s, left by an interrupted reindex", path.name)
        _remove_sqlite(path)
    for path in root.glob(".index-rebuild-*.sqlite-*"):
        if not path.with_name(path.name.rsplit("-", 1)[0]).exists():
            path.unlink(missing_ok=True)


def _remove_sqlite(path: Path, keep_main: bool = False) -> None:
    names = [path.name + "-wal", path.name + "-shm"] + ([] if keep_main else [path.name])
    for name in names:
        try:
            os.unlink(path.with_name(name))
        except FileNotFoundError:
            pass


def _differences(old: dict[str, Any], new: dict[str, Any], limit: int = 20) -> list[str]:
    out: list[str] = []
    for table in ("turns", "documents", "items", "archive"):
        a, b = set(old[table]), set(new[table])
        for row in sorted(a - b, key=repr)[:limit]:
            out.append(f"{table}: only in the live index: {str(row)[:200]}")
        for row in sorted(b - a, key=repr)[:limit]:
            out.append(f"{table}: only in the rebuilt index: {str(row)[:200]}")
    return out[:limit]

