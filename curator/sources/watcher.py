"""Watching sources: watchdog events only hint, a rescan is the truth.

Pipeline: watchdog observer thread -> handler (enqueue only, never raises) -> one worker
thread that debounces per unit, waits until the unit's size/mtime are stable, and then
asks the ingestor to read it. The same worker runs a full scan at start-up and every
``watch.rescan_seconds`` (events can be lost, or happen while we were closed), checks
every couple of seconds that each source folder is still there (a vanished folder is
"unavailable", never "everything deleted") and that the observer is alive, and calls an
optional tick hook (the trigger engine's timer).

Threading contract: ``start``/``stop``/``health``/``request_scan`` may be called from any
thread. Ingest, scans and the tick hook run on the worker thread; events are emitted there.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curator.events import EventBus
from curator.sources.adapters import get_adapter, is_temp_name
from curator.sources.ingest import Ingestor, source_root
from curator.vault.settings import Settings, SourceConfig

log = logging.getLogger(__name__)

HEALTH_CHECK_SECONDS = 2.0
MAX_QUEUE = 100_000
INOTIFY_HINT = (
    "raise the limit with: sudo sysctl fs.inotify.max_user_watches=524288 "
    "(and fs.inotify.max_user_instances=512); polling is used meanwhile"
)


@dataclass
class SourceHealth:
    """What the watcher knows about one source right now."""

    source_id: str
    path: str
    status: str = "starting"  # starting | watching | polling | unavailable
    detail: str = ""
    last_scan: float | None = None
    last_event: float | None = None
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source_id": self.source_id,
            "path": self.path,
            "status": self.status,
            "detail": self.detail,
            "last_scan": self.last_scan,
            "last_event": self.last_event,
            "problems": list(self.problems[-5:]),
        }


@dataclass
class _Pending:
    source_id: str
    unit: Path
    first_seen: float
    due: float
    fingerprint: str | None = None
    immediate: bool = False  # a file read while it grows: read when due, with no stability check


LAST_READ_KEPT = 10_000  # units whose last read time is remembered (for "quiet since")
TAIL_GAP = 0.05  # seconds between two reads of a growing file that is read while it grows

# inotify reports opening and closing without writing too; they never mean new content.
_READ_ONLY_EVENTS = frozenset({"opened", "closed_no_write"})


class _Handler:
    """watchdog handler that only enqueues; it must never raise into the observer thread."""

    def __init__(self, watcher: Watcher) -> None:
        self._watcher = watcher

    def dispatch(self, event: Any) -> None:
        try:
            if getattr(event, "event_type", "") in _READ_ONLY_EVENTS:
                return  # our own reads (a header peek, a SQLite snapshot) would wake us forever
            paths = [getattr(event, "src_path", None), getattr(event, "dest_path", None)]
            for raw in paths:
                if raw:
                    self._watcher._enqueue_path(Path(raw.decode() if isinstance(raw, bytes) else raw))
        except Exception:  # watchdog #793: an exception here would kill the observer
            log.exception("file event handler failed; event dropped (the next rescan covers it)")


class Watcher:
    """Watches every enabled source of ``settings`` and feeds the ingestor.

    Args:
        settings: sources and the ``watch.*`` options.
        ingestor: reads units into the index.
        bus: ``source.status`` events (available/unavailable) and ``watch.scan`` go here.
        exclude: folders never watched (the vault).
        on_tick: called on the worker thread about every ``tick_seconds`` (trigger timer).
        tick_seconds: period of ``on_tick``.
        on_health: called with a SourceHealth whenever a source's status changes.
    """

    def __init__(
        self,
        settings: Settings,
        ingestor: Ingestor,
        bus: EventBus | None = None,
        *,
        exclude: tuple[Path, ...] = (),
        on_tick: Callable[[], Any] | None = None,
        tick_seconds: float = 5.0,
        on_health: Callable[[SourceHealth], None] | None = None,
    ) -> None:
        self.settings = settings
        self.ingestor = ingestor
        self.bus = bus or ingestor.bus
        self.exclude = tuple(Path(p).resolve() for p in exclude)
        self.on_tick = on_tick
        self.tick_seconds = tick_seconds
        self.on_health = on_health
        self._sources: dict[str, SourceConfig] = {
            s.id: s for s in settings.sources if s.enabled and not self._is_excluded(source_root(s))
        }
        self._health = {
            sid: SourceHealth(sid, str(source_root(s))) for sid, s in self._sources.items()
        }
        self._roots = {sid: source_root(s).resolve() for sid, s in self._sources.items()}
        self._queue: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=MAX_QUEUE)
        self._pending: dict[tuple[str, Path], _Pending] = {}
        self._last_read: dict[tuple[str, Path], float] = {}  # monotonic time a unit was last read
        # Units a rescan found changed, per source: [read, total, new turns], so a large
        # backlog (the first start, a big import) reports its progress as ``source.progress``.
        self._backlog: dict[str, list[int]] = {}
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._observer: Any = None
        self._polling = bool(settings["watch.polling"])
        self._watches: dict[str, Any] = {}
        self._overflowed = False
        self.scans_completed = 0

    # ---- Public API

    def start(self) -> None:
        """Start observing and the worker (which first scans every source)."""
        if self._thread is not None:
            return
        self._start_observer()
        self._thread = threading.Thread(target=self._run, name="curator-ingest", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the observer and the worker; pending reads are dropped (a rescan covers them)."""
        self._stop.set()
        self._put(("wake", None))  # end the worker's wait at once
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        self._stop_observer()

    def request_scan(self) -> None:
        """Ask the worker for a full rescan soon."""
        self._put(("scan", None))

    def health(self) -> dict[str, SourceHealth]:
        """A copy of every watched source's health."""
        with self._lock:
            return {sid: SourceHealth(**vars(h)) for sid, h in self._health.items()}

    def is_alive(self) -> bool:
        """Whether the worker thread runs."""
        return self._thread is not None and self._thread.is_alive()

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Block until nothing is queued or pending (for tests and one-shot runs)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._idle.is_set() and self._queue.empty():
                return True
            time.sleep(0.02)
        return False

    # ---- Observer

    def _start_observer(self) -> None:
        from watchdog.observers import Observer
        from watchdog.observers.polling import PollingObserver

        if not self._polling:
            try:
                self._observer = Observer()
                self._observer.start()
            except OSError as exc:
                log.warning("native file events unavailable (%s); %s", exc, INOTIFY_HINT)
                self._polling = True
        if self._polling:
            self._observer = PollingObserver(timeout=1.0)
            self._observer.start()
        for source_id in self._sources:
            self._schedule(source_id)

    def _stop_observer(self) -> None:
        observer, self._observer = self._observer, None
        if observer is None:
            return
        try:
            observer.stop()
            observer.join(5.0)
        except Exception:
            log.exception("stopping the file observer failed")

    def _schedule(self, source_id: str) -> None:
        root = self._roots[source_id]
        folder = root if root.is_dir() else root.parent
        if not folder.is_dir():
            self._set_health(source_id, "unavailable", f"{root} does not exist")
            return
        self._unschedule(source_id)
        try:
            self._watches[source_id] = self._observer.schedule(_Handler(self), str(folder), recursive=True)
        except OSError as exc:
            if self._polling:
                self._set_health(source_id, "unavailable", f"cannot watch {folder}: {exc}")
                return
            # inotify watch or instance limit: move every source to polling
            log.warning("cannot watch %s natively (%s); %s", folder, exc, INOTIFY_HINT)
            self._switch_to_polling()
            return
        self._set_health(source_id, "polling" if self._polling else "watching", "")

    def _unschedule(self, source_id: str) -> None:
        watch = self._watches.pop(source_id, None)
        if watch is not None and self._observer is not None:
            try:
                self._observer.unschedule(watch)
            except Exception:
                log.debug("unschedule of %s failed (already gone)", source_id, exc_info=True)

    def _switch_to_polling(self) -> None:
        self._stop_observer()
        self._watches.clear()
        self._polling = True
        self._start_observer()

    def _observer_ok(self) -> bool:
        observer = self._observer
        if observer is None or not observer.is_alive():
            return False
        emitters = getattr(observer, "emitters", ())
        return all(e.is_alive() for e in list(emitters))

    # ---- Event intake (observer thread)

    def _enqueue_path(self, path: Path) -> None:
        if is_temp_name(path.name):
            return
        self._put(("path", path))

    def _put(self, item: tuple[str, Any]) -> None:
        try:
            self._queue.put_nowait(item)
            self._idle.clear()
        except queue.Full:
            # Bounded memory: drop events and let a full rescan find what they pointed at.
            self._overflowed = True

    # ---- Worker thread

    def _run(self) -> None:
        next_scan = 0.0
        next_health = 0.0
        next_tick = time.monotonic() + self.tick_seconds
        while not self._stop.is_set():
            try:
                now = time.monotonic()
                if now >= next_health:
                    self._check_sources()
                    next_health = now + HEALTH_CHECK_SECONDS
                if now >= next_scan or self._overflowed:
                    self._overflowed = False
                    self._scan_all()
                    next_scan = time.monotonic() + float(self.settings["watch.rescan_seconds"])
                if self.on_tick is not None and now >= next_tick:
                    next_tick = now + self.tick_seconds
                    try:
                        self.on_tick()
                    except Exception:
                        log.exception("tick hook failed")
                self._drain(timeout=self._wait_time(next_scan, next_health))
                self._process_due()
                if not self._pending and self._queue.empty():
                    self._idle.set()
            except Exception:
                # A bug in one step must not end watching; the next rescan repairs state.
                log.exception("watcher worker step failed; continuing")
                time.sleep(0.5)

    def _wait_time(self, next_scan: float, next_health: float) -> float:
        now = time.monotonic()
        deadlines = [next_scan, next_health] + [p.due for p in self._pending.values()]
        return max(0.01, min(0.5, min(deadlines) - now))

    def _drain(self, timeout: float) -> None:
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            return
        while True:
            kind, value = item
            if kind == "path":
                self._note_path(value)
            elif kind == "scan":
                self._scan_all()
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return

    def _note_path(self, path: Path) -> None:
        if self._is_excluded(path):
            return
        for source_id, root in self._roots.items():
            if path != root and not path.is_relative_to(root if root.is_dir() else root.parent):
                continue
            source = self._sources[source_id]
            unit = get_adapter(source.adapter).unit_for(source_root(source), self._unresolve(source, path))
            if unit is None:
                continue
            now = time.monotonic()
            with self._lock:
                health = self._health.get(source_id)
                if health is not None:
                    health.last_event = time.time()
            key = (source_id, unit)
            debounce = float(self.settings["watch.debounce_ms"]) / 1000.0
            # Remember how the unit looks now: it is read once it still looks the same after
            # a quiet gap (a stability check), or at the latest after max latency.
            fingerprint = get_adapter(source.adapter).fingerprint(unit)
            pending = self._pending.get(key)
            if pending is None and self._tail_safe(source, unit):
                # A file read while it grows (a new message appended): a quiet one is read at once,
                # so the turn is searchable within milliseconds; while it keeps growing it is read
                # at most every TAIL_GAP, so a burst of lines is coalesced into a few tail reads
                # (each reads only the new bytes) instead of waiting for the burst to end.
                due = max(now, self._last_read.get(key, -1e9) + min(debounce, TAIL_GAP))
                self._pending[key] = _Pending(source_id, unit, now, due, fingerprint, immediate=True)
            elif pending is None:
                self._pending[key] = _Pending(source_id, unit, now, now + debounce, fingerprint)
            elif pending.immediate:
                pending.fingerprint = fingerprint  # the same write's other events: still read at once
            else:
                pending.due = now + debounce
                pending.fingerprint = fingerprint

    @staticmethod
    def _tail_safe(source: SourceConfig, unit: Path) -> bool:
        """Whether the unit's format may be read while it grows (an ``auto`` source: its file's format)."""
        adapter = get_adapter(source.adapter)
        owner = getattr(adapter, "_adapter", None)
        if callable(owner):
            adapter = owner(unit) or adapter
        return bool(adapter.tail_safe)

    @staticmethod
    def _unresolve(source: SourceConfig, path: Path) -> Path:
        # Events carry resolved paths; adapters compare against the configured root.
        root = source_root(source)
        resolved = root.resolve()
        try:
            return root / path.relative_to(resolved)
        except ValueError:
            return path

    def _process_due(self) -> None:
        now = time.monotonic()
        debounce = float(self.settings["watch.debounce_ms"]) / 1000.0
        max_latency = float(self.settings["watch.max_latency_ms"]) / 1000.0
        with self.ingestor.batch():  # the triggers see all units due now as one change
            self._process_pending(now, debounce, max_latency)

    def _process_pending(self, now: float, debounce: float, max_latency: float) -> None:
        for key, pending in list(self._pending.items()):
            if pending.due > now:
                continue
            source = self._sources.get(pending.source_id)
            if source is None:
                self._pending.pop(key, None)
                continue
            adapter = get_adapter(source.adapter)
            fingerprint = adapter.fingerprint(pending.unit)
            overdue = now - pending.first_seen >= max_latency
            if not pending.immediate and fingerprint != pending.fingerprint and not (overdue and adapter.tail_safe):
                # Still changing (or first look): check again after another quiet gap.
                pending.fingerprint = fingerprint
                pending.due = now + max(debounce, 0.05)
                continue
            self._pending.pop(key, None)
            self._ingest(source, pending.unit)
            self._last_read[key] = time.monotonic()
            if pending.immediate and key not in self._pending and adapter.fingerprint(pending.unit) != fingerprint:
                # Read while it was still being written (a database committing, a line half
                # flushed): the events of that write may have been spent on this read, so the
                # unit is read once more, shortly, instead of waiting for the next change.
                self._pending[key] = _Pending(pending.source_id, pending.unit, now, time.monotonic() + TAIL_GAP,
                                              None, immediate=True)
            if len(self._last_read) > LAST_READ_KEPT:
                cutoff = time.monotonic() - debounce
                self._last_read = {k: t for k, t in self._last_read.items() if t >= cutoff}

    def _ingest(self, source: SourceConfig, unit: Path) -> None:
        try:
            report = self.ingestor.ingest_unit(source, unit)
        except Exception as exc:
            log.exception("reading %s failed; the next rescan retries", unit)
            self._note_problem(source.id, f"{unit}: {type(exc).__name__}: {exc}")
            return
        for problem in report.problems:
            self._note_problem(source.id, problem)
        backlog = self._backlog.get(source.id)
        if backlog is not None:
            backlog[0] += 1
            backlog[2] += len(report.added)
            self.bus.emit("source.progress", source_id=source.id, user_id=source.user_id,
                          files_done=min(backlog[0], backlog[1]), files_total=backlog[1], turns_added=backlog[2])
            if backlog[0] >= backlog[1]:
                del self._backlog[source.id]

    def _note_problem(self, source_id: str, problem: str) -> None:
        with self._lock:
            health = self._health.get(source_id)
            if health is not None:
                health.problems = ([*health.problems, problem])[-20:]

    def _scan_all(self) -> None:
        for source_id, source in self._sources.items():
            if self._health[source_id].status == "unavailable":
                continue
            try:
                _report, changed, available = self.ingestor.scan_source(source, read=False)
            except Exception as exc:
                log.exception("scan of source %s failed", source_id)
                self._note_problem(source_id, f"scan failed: {exc}")
                continue
            if not available.available:
                self._set_health(source_id, "unavailable", available.reason)
                continue
            now = time.monotonic()
            stale = self._backlog.get(source_id)
            if stale is not None and not any(key[0] == source_id for key in self._pending):
                # Some units of the last backlog were never read (gone, excluded): close it.
                del self._backlog[source_id]
                self.bus.emit("source.progress", source_id=source_id, user_id=source.user_id,
                              files_done=stale[1], files_total=stale[1], turns_added=stale[2])
            fresh = [u for u in changed if (source_id, u) not in self._pending]
            if fresh and source_id not in self._backlog:
                self._backlog[source_id] = [0, len(fresh), 0]
            for unit in changed:
                # Through the same stability gate as events: the unit may be mid-write.
                self._pending.setdefault((source_id, unit), _Pending(source_id, unit, now, now))
            with self._lock:
                self._health[source_id].last_scan = time.time()
        self.scans_completed += 1
        self.bus.emit("watch.scan", count=self.scans_completed)

    def _check_sources(self) -> None:
        for source_id, source in self._sources.items():
            status = self._health[source_id].status
            available = self.ingestor.availability(source, thorough=status == "unavailable")
            if not available.available and status != "unavailable":
                log.warning("source %s unavailable: %s (its turns and memories are kept)", source_id, available.reason)
                self._unschedule(source_id)
                self._set_health(source_id, "unavailable", available.reason)
                for key in [k for k in self._pending if k[0] == source_id]:
                    self._pending.pop(key, None)
            elif available.available and status == "unavailable":
                log.info("source %s is back; rescanning it", source_id)
                self._schedule(source_id)
                if self._health[source_id].status != "unavailable":
                    self._put(("scan", None))
        if self._observer is not None and not self._observer_ok():
            log.warning("file observer stopped; restarting it")
            self._stop_observer()
            self._watches.clear()
            self._start_observer()
            self._put(("scan", None))

    def _set_health(self, source_id: str, status: str, detail: str) -> None:
        with self._lock:
            health = self._health[source_id]
            changed = (health.status, health.detail) != (status, detail)
            health.status, health.detail = status, detail
            snapshot = SourceHealth(**vars(health))
        if changed:
            self.bus.emit("source.status", source_id=source_id, status=status, detail=detail)
            if self.on_health is not None:
                try:
                    self.on_health(snapshot)
                except Exception:
                    log.exception("health hook failed")

    def _is_excluded(self, path: Path) -> bool:
        try:
            resolved = Path(path).resolve()
        except OSError:
            return False
        return any(resolved == ex or resolved.is_relative_to(ex) for ex in self.exclude)
