"""The model layer: one llama.cpp model, loaded once, used by one worker thread.

Everything that wants the model submits a :class:`ModelRequest` and gets a
:class:`JobHandle` (a future plus ``cancel()``). Jobs wait in a priority queue (a person's
request first), run one at a time, stream their tokens, can be cancelled between tokens
and have a wall-clock limit. Before each call the prompt is measured with the model's own
tokenizer and its variable parts are trimmed to fit; structured output is generated under
a JSON-schema grammar and validated again in code.

Threading contract:
    * The ``llama_cpp.Llama`` object is created, used and closed only on the worker thread
      ("curator-model"); llama.cpp contexts are not thread-safe.
    * ``submit``/``cancel``/``status`` may be called from any thread.
    * Per-job callbacks (``on_token``, ``on_done``) are passed through ``post``; with the
      default ``post`` they run on the worker thread. A GUI passes a poster that hops to its
      own thread. Events on the bus are emitted on the worker thread.

Events (on the ``EventBus``, when one is given):
    ``model.loading`` (path), ``model.ready`` (path, name, n_ctx, load_seconds),
    ``model.error`` (path, error), ``job.queued`` / ``job.started`` (job_id, job_kind,
    priority), ``job.progress`` (job_id, job_kind, phase, prompt_tokens, max_tokens),
    ``model.token`` (job_id, job_kind, text, index), ``job.finished`` (job_id, job_kind,
    status, error, completion_tokens, seconds). (``job_kind`` is the request's ``kind``;
    the bus reserves ``kind`` for the event's own name.)

A hard stop is not possible inside one llama.cpp call (prompt evaluation is not
interruptible from Python): cancel and timeout act between tokens. If a future model
crashes the process, the same interface can move into a child process.

This module is the queue and its worker; the parts it drives live beside it: the llama.cpp
adapter (``backend``), loading the one model (``model_slot``), fitting a prompt to the
context (``budget``) and running one job (``generation``).
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from curator.events import EventBus
from curator.llm.backend import (
    Backend,
    BackendFactory,
    LlamaBackend,
    display_name,
    llama_backend,
)
from curator.llm.budget import PromptPlan, PromptTooLong, plan_prompt
from curator.llm.generation import Generation, JobRun
from curator.llm.handles import JobHandle, ModelJob, Post, RuntimeStatus, post_direct
from curator.llm.model_slot import NO_MODEL_MESSAGE, LoadError, ModelSlot
from curator.llm.request import JobStatus, ModelRequest, ModelResult, Priority, Segment

log = logging.getLogger(__name__)

T = TypeVar("T")


class ModelRuntime:
    """One model, one worker thread, a priority queue of jobs.

    Args:
        model_path: The GGUF file. None means "no model configured"; jobs then fail with
            a clear error (``from_settings`` fills in the bundled default).
        n_ctx: Context window to load the model with; capped at the model's trained
            context length when the header states it.
        threads: CPU threads for llama.cpp (0: measured while it works, see ``curator.llm.threads``).
        timeout_seconds: Default wall-clock limit per job (from its start, not its wait).
        bus: Where to emit events; optional.
        post: How callbacks reach their thread (see the module's threading contract).
        backend_factory: Builds the backend on the worker thread; llama.cpp by default,
            a scripted fake in tests.
        validate_file: Check the GGUF header before loading (off only for fakes).
    """

    def __init__(
        self,
        model_path: Path | None,
        *,
        n_ctx: int = 4096,
        threads: int = 0,
        timeout_seconds: float = 300.0,
        bus: EventBus | None = None,
        post: Post = post_direct,
        backend_factory: BackendFactory = llama_backend,
        validate_file: bool = True,
    ) -> None:
        self.timeout_seconds = timeout_seconds
        self._bus = bus
        self._post = post
        self._queue: queue.PriorityQueue[tuple[int, int, ModelJob | None]] = queue.PriorityQueue()
        self._seq = itertools.count(1)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stopped = False
        self.slot = ModelSlot(Path(model_path) if model_path is not None else None, n_ctx=n_ctx,
                              threads=threads, factory=backend_factory, validate=validate_file,
                              lock=self._lock, emit=self._emit)
        self._generation = Generation(self._emit, post, self._finish)
        # Read under _lock by status().
        self._current: ModelJob | None = None
        self._pending: set[ModelJob] = set()

    # ---- Construction

    @classmethod
    def from_settings(
        cls,
        settings: Any,
        *,
        bus: EventBus | None = None,
        post: Post = post_direct,
        model_path: Path | str | None = None,
        backend_factory: BackendFactory = llama_backend,
    ) -> ModelRuntime:
        """A runtime configured from ``curator.vault.settings.Settings``.

        Args:
            settings: The settings (``model.*`` options).
            bus: Event bus.
            post: Callback poster.
            model_path: Overrides ``model.path`` (``curator reflect --model``).
            backend_factory: For tests.
        """
        path = resolve_model_path(model_path or settings["model.path"])
        return cls(
            path,
            n_ctx=int(settings["model.n_ctx"]),
            threads=int(settings["model.threads"]),
            timeout_seconds=float(settings["model.timeout_seconds"]),
            bus=bus,
            post=post,
            backend_factory=backend_factory,
        )

    # ---- Public API

    @property
    def model_path(self) -> Path | None:
        """The model file jobs run on (or will, once loaded)."""
        return self.slot.path

    @property
    def n_ctx(self) -> int:
        """The context window (the loaded one once the model is loaded)."""
        return self.slot.loaded_n_ctx or self.slot.requested_n_ctx

    def status(self) -> RuntimeStatus:
        """A snapshot of the runtime's state; safe from any thread."""
        with self._lock:
            current = self._current
            return RuntimeStatus(
                **self.slot.status_fields(),
                current_job=current.id if current else None,
                current_kind=current.kind if current else "",
                queued=sum(1 for j in self._pending if j.state == "queued"),
            )

    def submit(
        self,
        request: ModelRequest,
        *,
        priority: int = Priority.TRIGGERED,
        on_token: Callable[[str], None] | None = None,
        on_done: Callable[[ModelResult], None] | None = None,
    ) -> JobHandle:
        """Queue a model call.

        Args:
            request: What to ask (see ``PromptTemplate.request``).
            priority: Lower runs first (:class:`Priority`); equal priorities run in order.
            on_token: Called with each generated piece of text (through ``post``).
            on_done: Called with the result (through ``post``).

        Returns:
            A handle to wait on or cancel.
        """
        job = ModelJob(
            id=next(self._ids),
            kind=request.kind,
            priority=int(priority),
            future=Future(),
            request=request,
            on_token=on_token,
        )
        handle = JobHandle(job, self._cancel, self._post)
        if on_done is not None:
            handle.add_done_callback(on_done)
        if self._enqueue(job):
            self._emit("job.queued", job_id=job.id, job_kind=job.kind, priority=job.priority)
        return handle

    def complete(
        self,
        request: ModelRequest,
        *,
        priority: int = Priority.TRIGGERED,
        on_token: Callable[[str], None] | None = None,
    ) -> ModelResult:
        """Submit a request and wait for its result (for the CLI and engine jobs)."""
        return self.submit(request, priority=priority, on_token=on_token).result()

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text`` by the model's tokenizer (waits for the running job to end).

        Raises:
            RuntimeError: The model cannot be loaded.
        """
        return int(self._call(lambda backend: len(backend.tokenize(text))).result())

    def preload(self) -> Future[None]:
        """Load the model now instead of at the first job; the future ends when it is ready."""
        return self._call(lambda backend: None)

    def set_model(self, model_path: Path | None) -> Future[None]:
        """Use another model file from the next job on (the current one is closed)."""

        def switch(_: Backend | None) -> None:
            self.slot.switch(Path(model_path) if model_path is not None else None)

        return self._call(switch, needs_model=False)

    def shutdown(self, *, cancel_pending: bool = True, wait: bool = True) -> None:
        """Stop the worker and free the model.

        Args:
            cancel_pending: Cancel queued and running jobs (else let the queue drain first).
            wait: Block until the worker has stopped.
        """
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            pending = list(self._pending)
            thread = self._thread
        if cancel_pending:
            for job in pending:
                self._cancel(job)
        if thread is None:
            self.slot.set_state("stopped")
            return
        self._queue.put((-1000 if cancel_pending else 10**9, next(self._seq), None))
        if wait:
            thread.join()

    def __enter__(self) -> ModelRuntime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    # ---- Queue plumbing

    def _enqueue(self, job: ModelJob) -> bool:
        with self._lock:
            stopped = self._stopped
            if not stopped:
                self._pending.add(job)
                if self._thread is None:
                    self._thread = threading.Thread(target=self._worker, name="curator-model", daemon=True)
                    self._thread.start()
        if stopped:
            job.state = "done"
            if job.call is not None:
                job.future.set_exception(RuntimeError("the model worker has stopped"))
            else:
                stopped_result = ModelResult(
                    JobStatus.CANCELLED, kind=job.kind, job_id=job.id, error="the model worker has stopped"
                )
                job.future.set_result(stopped_result)
            return False
        self._queue.put((job.priority, next(self._seq), job))
        return True

    def _call(self, fn: Callable[[Any], T], *, needs_model: bool = True) -> Future[T]:
        job = ModelJob(id=0, kind="_call", priority=-100, future=Future(), call=fn, needs_model=needs_model)
        self._enqueue(job)
        return job.future

    def _cancel(self, job: ModelJob) -> bool:
        with job.lock:
            if job.state == "done":
                return False
            job.cancel_event.set()
            if job.state != "queued":
                return True
            job.state = "done"
        with self._lock:
            self._pending.discard(job)
        if job.call is not None:
            job.future.set_exception(RuntimeError("cancelled"))
        else:
            result = ModelResult(
                JobStatus.CANCELLED, kind=job.kind, job_id=job.id, error="cancelled before it started"
            )
            self._finish(job, result)
        return True

    def _emit(self, event: str, **data: Any) -> None:
        if self._bus is not None:
            self._bus.emit(event, **data)

    def _finish(self, job: ModelJob, result: ModelResult) -> None:
        """Complete ``job`` with ``result`` and say so on the bus."""
        self._emit(
            "job.finished",
            job_id=job.id,
            job_kind=job.kind,
            status=str(result.status),
            error=result.error,
            completion_tokens=result.completion_tokens,
            seconds=round(result.prompt_seconds + result.generation_seconds, 3),
        )
        job.future.set_result(result)

    # ---- Worker thread

    def _worker(self) -> None:
        try:
            while True:
                _, _, job = self._queue.get()
                if job is None:
                    break
                with job.lock:
                    if job.state != "queued":
                        continue
                    job.state = "running"
                with self._lock:
                    self._current = job
                try:
                    if job.call is not None:
                        self._run_call(job)
                    else:
                        self._run_job(job)
                except Exception as exc:  # a bug must not kill the only worker
                    log.exception("model job %s failed", job.id)
                    if not job.future.done():
                        if job.call is not None:
                            job.future.set_exception(exc)
                        else:
                            failed = ModelResult(
                                JobStatus.ERROR, kind=job.kind, job_id=job.id, error=f"internal error: {exc}"
                            )
                            self._finish(job, failed)
                finally:
                    with job.lock:
                        job.state = "done"
                    with self._lock:
                        self._current = None
                        self._pending.discard(job)
                        if self.slot.state == "busy":
                            self.slot.state = "ready"
        finally:
            self._drain_after_stop()
            self.slot.close()
            self.slot.set_state("stopped")

    def _drain_after_stop(self) -> None:
        while True:
            try:
                _, _, job = self._queue.get_nowait()
            except queue.Empty:
                return
            if job is not None:
                self._cancel(job)

    def _run_call(self, job: ModelJob) -> None:
        assert job.call is not None
        if not job.needs_model:
            job.future.set_result(job.call(None))
            return
        try:
            backend = self.slot.ensure()
        except LoadError as exc:
            job.future.set_exception(RuntimeError(str(exc)))
            return
        job.future.set_result(job.call(backend))

    def _run_job(self, job: ModelJob) -> None:
        request = job.request
        assert request is not None
        run = JobRun(job, request, queued=time.monotonic() - job.submitted)
        self._emit("job.started", job_id=job.id, job_kind=job.kind, priority=job.priority)
        try:
            backend = self.slot.ensure()
        except LoadError as exc:
            self._finish(job, run.failed(JobStatus.ERROR, str(exc)))
            return
        self.slot.set_state("busy")
        run.model_name = self.slot.name
        self._generation.run(run, backend, self.timeout_seconds)


def resolve_model_path(value: str | Path | None) -> Path | None:
    """The model file to use: ``value`` when set, else the bundled default (None if absent)."""
    if value:
        return Path(value).expanduser()
    from curator.llm.default_model import resolve_default_model

    return resolve_default_model().path


__all__ = [
    "NO_MODEL_MESSAGE",
    "Backend",
    "BackendFactory",
    "JobHandle",
    "LlamaBackend",
    "ModelRuntime",
    "Post",
    "PromptPlan",
    "PromptTooLong",
    "RuntimeStatus",
    "Segment",
    "display_name",
    "llama_backend",
    "plan_prompt",
    "post_direct",
    "resolve_model_path",
]
