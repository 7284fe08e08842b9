"""A persistent queue of reflection jobs (batch, micro, summary, cycle).

Triggers (``curator.triggers.engine``) and manual requests put jobs here; the reflection engines
(one model worker, one job at a time) take them out in priority order. Until those engines
exist, jobs are simply recorded and listed.

Storage: one queue per vault, ``<vault>/Logs/jobs.json``. One file rather than one per user
because a single model worker serves every user, and "what runs next" is a question about
all users at once (a manual request of user B must overtake an automatic batch of user A).
Jobs are state, so the file is written with ``curator.vault.atomic.write_json_state`` (atomic,
backup copy); a corrupt file is kept aside and the backup (or an empty queue) is used, with
a warning. Finished jobs are kept as history, bounded by ``history_limit``; queued and
running jobs are never dropped.

Public API::

    queue = JobQueue.for_vault(vault_root, clock=clock, events=bus)
    job, created = queue.enqueue("batch", "alice", reason="10/10 turns", trigger="turn_count",
                                 turn_range=(1, 10), priority=PRIORITY_NORMAL)
    queue.list(status="queued")            # everything, in run order for pending jobs
    queue.pending(kind="batch", user_id="alice")
    queue.next()                            # peek: highest priority, then oldest
    job = queue.claim()                     # worker: next + mark running, atomically
    queue.mark_done(job.id, result={...})   # or mark_failed(job.id, "why") / cancel(job.id)
    queue.subscribe(lambda job, old_status: ...)
    queue.requeue_interrupted()             # at start-up: running jobs of a dead process

Priorities are integers, higher runs first; ``PRIORITY_MANUAL`` (a person asked) beats
``PRIORITY_NORMAL`` (a trigger fired). Ties go to the oldest job.

Threading contract: every method may be called from any thread (watcher, timer, model
worker, GUI); one re-entrant lock serialises them. Listeners and bus events are called on
the calling thread *after* the lock is released, so a listener may call back into the queue.

Another process (``curator status``, a one-shot CLI request) may read or write the same file:
before each operation the queue reloads the file if it changed on disk since it was last
read or written by this instance. That is enough for an occasional second writer; the
engine that runs ``curator watch`` is meant to be the main owner.
"""

from __future__ import annotations

import builtins
import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from curator.clock import Clock, SystemClock
from curator.events import EventBus
from curator.triggers.job import (
    FINISHED_STATUSES,
    JOB_KINDS,
    JOB_STATUSES,
    PENDING_STATUSES,
    PRIORITY_LOW,
    PRIORITY_MANUAL,
    PRIORITY_NORMAL,
    TRANSITIONS,
    Job,
    JobStateError,
    run_order,
)
from curator.vault.atomic import quarantine, read_json_state, write_json_state
from curator.vault.paths import VaultPaths, validate_user_id

log = logging.getLogger(__name__)

# The job's names lived here; callers still import them from this module.
__all__ = [
    "FINISHED_STATUSES", "JOB_KINDS", "JOB_STATUSES", "PENDING_STATUSES", "PRIORITY_LOW", "PRIORITY_MANUAL",
    "PRIORITY_NORMAL", "Job", "JobListener", "JobQueue", "JobStateError",
]

_FORMAT_VERSION = 1

JobListener = Callable[[Job, "str | None"], None]


class JobQueue:
    """The persistent, thread-safe job queue of one vault (see the module docstring)."""

    def __init__(
        self,
        path: Path,
        *,
        clock: Clock | None = None,
        events: EventBus | None = None,
        history_limit: int = 500,
    ) -> None:
        """Open (or create on first write) the queue stored at ``path``.

        Args:
            path: The JSON file, normally ``<vault>/Logs/jobs.json``.
            clock: Time source for ``created_at``/``started_at``/``finished_at``.
            events: Optional bus; every change is emitted as ``jobs.<status>`` (``job.*``
                belongs to the model worker) with ``job=<Job.to_dict()>``.
            history_limit: Finished jobs kept (newest first); pending jobs are always kept.
        """
        self.path = Path(path)
        self.clock: Clock = clock or SystemClock()
        self.events = events
        self.history_limit = history_limit
        self.warnings: list[str] = []
        self._lock = threading.RLock()
        self._jobs: dict[str, Job] = {}
        # Pending jobs only, rebuilt after any change: the triggers ask for them on every
        # new turn, and the finished history can be long.
        self._pending_view: builtins.list[Job] | None = None
        self._next_seq = 1
        self._disk_stamp: tuple[int, int] | None = None
        self._listeners: list[JobListener] = []
        self._deferred = 0
        self._dirty = False
        self._load()

    @classmethod
    def for_vault(cls, vault: VaultPaths | Path, **kwargs: Any) -> JobQueue:
        """The queue of a vault: ``<vault>/Logs/jobs.json``."""
        paths = vault if isinstance(vault, VaultPaths) else VaultPaths(Path(vault))
        return cls(paths.logs_dir / "jobs.json", **kwargs)

    # ---- Public API

    def subscribe(self, listener: JobListener) -> Callable[[], None]:
        """Call ``listener(job, old_status)`` after every change; returns an unsubscriber.

        ``old_status`` is ``None`` for a newly queued job. Called after the queue's lock is
        released, on the thread that made the change.
        """
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def enqueue(
        self,
        kind: str,
        user_id: str,
        *,
        reason: str,
        trigger: str = "",
        conversation: str | None = None,
        priority: int = PRIORITY_NORMAL,
        turn_range: tuple[int, int] | None = None,
        prompt: str | None = None,
        manual: bool = False,
        meta: dict[str, Any] | None = None,
    ) -> tuple[Job, bool]:
        """Queue a job unless an identical one is already pending.

        Identical means same kind, user, conversation, turn range and prompt, and still
        queued or running. In that case nothing new is queued and the existing job is
        returned; if the new request has a higher priority (a manual request for work a
        trigger already queued), the existing queued job is raised to that priority.

        Returns:
            ``(job, created)``: the queued (or existing) job and whether it is new.

        Raises:
            ValueError: unknown kind or invalid user id.
        """
        if kind not in JOB_KINDS:
            raise ValueError(f"unknown job kind {kind!r}; expected one of {', '.join(JOB_KINDS)}")
        validate_user_id(user_id)
        if turn_range is not None:
            turn_range = (int(turn_range[0]), int(turn_range[1]))
        notify: list[tuple[Job, str | None]] = []
        with self._lock:
            self._refresh()
            probe = Job(id="", kind=kind, user_id=user_id, reason=reason, created_at=0.0,
                        conversation=conversation, turn_range=turn_range, prompt=prompt)
            identity = probe.identity()
            # The first identical pending job in run order: sorting only the identical ones
            # (at most a few) instead of the whole queue, which grows during a large import.
            same = [j for j in self._jobs.values() if j.pending and j.identity() == identity]
            existing = min(same, key=run_order) if same else None
            if existing is not None:
                result = self._raise_identical(existing, priority, manual, notify)
            else:
                result = self._add(replace(probe, created_at=self.clock.now(), trigger=trigger,
                                           priority=int(priority), manual=manual, meta=dict(meta or {})))
                notify.append((result, None))
        self._notify(notify)
        return result, bool(notify) and notify[0][1] is None

    def _raise_identical(self, existing: Job, priority: int, manual: bool,
                         notify: list[tuple[Job, str | None]]) -> Job:
        """An identical pending job: raised to ``priority`` if it waits at a lower one (under the lock)."""
        if existing.status == "queued" and priority > existing.priority:
            raised = replace(existing, priority=priority, manual=existing.manual or manual)
            self._jobs[raised.id] = raised
            self._pending_view = None
            self._save()
            log.info("job %s raised to priority %d", raised.id, priority)
            notify.append((raised, raised.status))
            return raised
        log.debug("job not queued: identical %s is %s", existing.id, existing.status)
        return existing

    def _add(self, job: Job) -> Job:
        """``job`` numbered and saved in the queue (under the lock)."""
        seq = self._next_seq
        self._next_seq += 1
        added = replace(job, id=f"job-{seq:06d}", seq=seq)
        self._jobs[added.id] = added
        self._pending_view = None
        self._save()
        log.info("queued %s: %s for %s (%s)", added.id, added.kind, added.user_id, added.reason)
        return added

    def get(self, job_id: str) -> Job | None:
        """The job with this id, or ``None``."""
        with self._lock:
            self._refresh()
            return self._jobs.get(job_id)

    def list(
        self,
        *,
        status: str | Iterable[str] | None = None,
        user_id: str | None = None,
        kind: str | None = None,
    ) -> builtins.list[Job]:
        """Jobs matching the filters: pending ones in run order, then finished, newest first."""
        return self._select(status, user_id, kind, None, False)

    def pending(
        self,
        *,
        kind: str | None = None,
        user_id: str | None = None,
        conversation: str | None = None,
        any_conversation: bool = True,
    ) -> builtins.list[Job]:
        """Queued and running jobs matching the filters, in run order.

        ``conversation`` is only compared when given or when ``any_conversation`` is False
        (then ``None`` means "jobs without a conversation").
        """
        by_conversation = conversation is not None or not any_conversation
        return self._select(PENDING_STATUSES, user_id, kind, conversation, by_conversation)

    def _select(self, status: str | Iterable[str] | None, user_id: str | None, kind: str | None,
                conversation: str | None, by_conversation: bool) -> builtins.list[Job]:
        # Filtered before sorting: a growing queue is asked about on every new turn.
        statuses = {status} if isinstance(status, str) else set(status) if status else None
        with self._lock:
            self._refresh()
            if statuses is not None and statuses <= set(PENDING_STATUSES):
                if self._pending_view is None:
                    self._pending_view = [j for j in self._jobs.values() if j.pending]
                pool: Iterable[Job] = self._pending_view
            else:
                pool = self._jobs.values()
            jobs = [
                j
                for j in pool
                if (statuses is None or j.status in statuses)
                and (user_id is None or j.user_id == user_id)
                and (kind is None or j.kind == kind)
                and (not by_conversation or j.conversation == conversation)
            ]
        pending = self._sorted(j for j in jobs if j.pending)
        # Running before queued: it is what the worker is doing now.
        pending.sort(key=lambda j: j.status != "running")
        finished = sorted(
            (j for j in jobs if not j.pending),
            key=lambda j: (j.finished_at or j.created_at, j.seq),
            reverse=True,
        )
        return pending + finished

    def next(self, kinds: Iterable[str] | None = None) -> Job | None:
        """The queued job that should run next (highest priority, then oldest), or ``None``."""
        wanted = set(kinds) if kinds is not None else None
        with self._lock:
            self._refresh()
            for job in self._sorted(self._jobs.values()):
                if job.status == "queued" and (wanted is None or job.kind in wanted):
                    return job
        return None

    def claim(self, kinds: Iterable[str] | None = None) -> Job | None:
        """Take the next queued job and mark it running, atomically (the worker's call)."""
        with self._lock:
            job = self.next(kinds)
            if job is None:
                return None
            updated, old = self._transition_locked(job.id, "running", started_at=self.clock.now())
        # Listeners run outside the lock (see the threading contract).
        self._notify([(updated, old)])
        return updated

    def mark_running(self, job_id: str) -> Job:
        """queued -> running."""
        return self._transition(job_id, "running", started_at=self.clock.now())

    def mark_done(self, job_id: str, result: dict[str, Any] | None = None) -> Job:
        """running -> done, with the engine's ``result`` (JSON-serialisable)."""
        return self._transition(job_id, "done", finished_at=self.clock.now(), result=result)

    def mark_failed(self, job_id: str, error: str) -> Job:
        """running -> failed, with the reason."""
        return self._transition(job_id, "failed", finished_at=self.clock.now(), error=error)

    def cancel(self, job_id: str, reason: str = "cancelled") -> Job:
        """queued or running -> cancelled. The worker checks the status to stop a running job."""
        return self._transition(job_id, "cancelled", finished_at=self.clock.now(), error=reason)

    def requeue_interrupted(self) -> builtins.list[Job]:
        """Put jobs left ``running`` by a process that died back in the queue.

        Call once at start-up, before the worker starts, in the process that owns the queue.
        """
        with self._lock:
            self._refresh()
            running = [j.id for j in self._jobs.values() if j.status == "running"]
        return [self._transition(job_id, "queued", started_at=None) for job_id in running]

    def reload(self) -> None:
        """Re-read the file now (normally done automatically when it changed on disk)."""
        with self._lock:
            self._load()

    # ---- Internals

    def _transition(self, job_id: str, status: str, **changes: Any) -> Job:
        with self._lock:
            updated, old = self._transition_locked(job_id, status, **changes)
        self._notify([(updated, old)])
        return updated

    def _transition_locked(self, job_id: str, status: str, **changes: Any) -> tuple[Job, str]:
        self._refresh()
        job = self._jobs.get(job_id)
        if job is None:
            raise JobStateError(f"no job {job_id!r}")
        if status not in TRANSITIONS[job.status]:
            raise JobStateError(f"job {job_id} is {job.status}; cannot become {status}")
        updated = replace(job, status=status, **changes)
        self._jobs[job_id] = updated
        self._pending_view = None
        self._prune()
        self._save()
        suffix = f" ({updated.error})" if updated.error else ""
        log.info("job %s: %s -> %s%s", job_id, job.status, status, suffix)
        return updated, job.status

    @staticmethod
    def _sorted(jobs: Iterable[Job]) -> builtins.list[Job]:
        return sorted(jobs, key=run_order)

    def _prune(self) -> None:
        finished = sorted(
            (j for j in self._jobs.values() if not j.pending),
            key=lambda j: (j.finished_at or j.created_at, j.seq),
            reverse=True,
        )
        for old in finished[self.history_limit :]:
            del self._jobs[old.id]
            self._pending_view = None

    def _stamp(self) -> tuple[int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    @contextmanager
    def deferred_saves(self) -> Iterator[None]:
        """Write the queue file once at the end of the block instead of after every change.

        A scan of many new turns can queue hundreds of jobs; rewriting the whole file (with
        an fsync) for each one grew with the square of the queue.
        """
        with self._lock:
            self._deferred += 1
        try:
            yield
        finally:
            with self._lock:
                self._deferred -= 1
                if not self._deferred and self._dirty:
                    self._save()

    def _refresh(self) -> None:
        # Another process may have changed the file; cheap stat, reload only when it did.
        # Unsaved changes of a deferred block are kept (they are written at its end).
        if self._dirty:
            return
        if self._stamp() != self._disk_stamp:
            self._load()

    def _load(self) -> None:
        data, warning = read_json_state(self.path, {"version": _FORMAT_VERSION, "jobs": []})
        if warning:
            self.warnings.append(warning)
        jobs: dict[str, Job] = {}
        next_seq = 1
        if not isinstance(data, dict) or not isinstance(data.get("jobs"), list):
            message = f"job queue {self.path} has an unexpected shape; kept aside, queue emptied"
            if self.path.exists():
                aside = quarantine(self.path)
                message = f"{message} (see {aside.name})"
            log.warning(message)
            self.warnings.append(message)
            data = {"jobs": []}
        for entry in data["jobs"]:
            try:
                job = Job.from_dict(entry)
            except (KeyError, TypeError, ValueError) as exc:
                message = f"skipped an unreadable job in {self.path.name}: {exc}"
                log.warning(message)
                self.warnings.append(message)
                continue
            jobs[job.id] = job
            next_seq = max(next_seq, job.seq + 1)
        self._jobs = jobs
        self._pending_view = None
        self._next_seq = max(next_seq, int(data.get("next_seq", 1) or 1))
        self._disk_stamp = self._stamp()

    def _save(self) -> None:
        if self._deferred:
            self._dirty = True
            return
        self._dirty = False
        state = {
            "version": _FORMAT_VERSION,
            "next_seq": self._next_seq,
            "jobs": [j.to_dict() for j in sorted(self._jobs.values(), key=lambda j: j.seq)],
        }
        write_json_state(self.path, state)
        self._disk_stamp = self._stamp()

    def _notify(self, changes: builtins.list[tuple[Job, str | None]]) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for job, old in changes:
            if self.events is not None:
                self.events.emit(f"jobs.{job.status}", job=job.to_dict(), previous=old)
            for listener in listeners:
                try:
                    listener(job, old)
                except Exception:
                    log.exception("job listener failed for %s", job.id)
