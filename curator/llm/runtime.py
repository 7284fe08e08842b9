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
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from curator.events import EventBus
from curator.llm.gguf import GGUFError, read_gguf
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
Post = Callable[[Callable[[], None]], None]

# Room for the chat template's role markers around the two messages, plus a little slack
# because items are measured one by one (token merges at the seams can differ slightly).
TEMPLATE_MARGIN = 48
# Don't bother keeping a shortened item smaller than this.
MIN_CUT_TOKENS = 24


def post_direct(fn: Callable[[], None]) -> None:
    """Run a callback right away, on the calling (worker) thread; for the CLI and tests."""
    fn()


class Backend(Protocol):
    """What the worker needs from a loaded model. Only ever used on the worker thread."""

    @property
    def n_ctx(self) -> int: ...

    def tokenize(self, text: str) -> list[int]: ...

    def detokenize(self, tokens: Sequence[int]) -> str: ...

    def stream_chat(
        self,
        messages: list[dict[str, str]],
        *,
        temperature: float,
        max_tokens: int,
        schema: dict[str, Any] | None,
        seed: int | None,
        repeat_penalty: float = 1.0,
    ) -> Iterator[tuple[str, str | None]]:
        """Yield (text piece, finish_reason or None), one piece per generated token."""
        ...

    def reset(self) -> None: ...

    def close(self) -> None: ...


BackendFactory = Callable[[Path, int, int], Backend]


def effective_threads(requested: int, cpu_count: int | None = None) -> int:
    """Threads to give llama.cpp: as requested, but always leaving one core free.

    llama.cpp's worker threads spin while they wait for each other. When every core is
    taken (the person's chat client runs its own model, the GUI repaints), a thread that
    gets descheduled stalls the rest: on a busy 2-core machine, SmolLM2 generated 3 tokens/s
    with 2 threads and 40 with 1. Leaving a core free keeps both the curator and the GUI
    responsive.
    """
    cores = cpu_count if cpu_count is not None else (os.cpu_count() or 1)
    return max(1, min(requested, cores - 1))


class LlamaBackend:
    """llama-cpp-python behind the :class:`Backend` interface."""

    def __init__(self, path: Path, n_ctx: int, threads: int) -> None:
        # Imported here, on the worker thread, so that importing curator stays fast.
        import llama_cpp

        self._grammars: dict[str, Any] = {}
        self._constrained: Any = None
        self._llama_cpp = llama_cpp
        # Both phases are capped: measured on a busy 2-core machine, prompt evaluation also
        # ran 2-3x slower with both cores than with one (see effective_threads).
        self.threads = effective_threads(threads)
        self.llm = llama_cpp.Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=self.threads,
            n_threads_batch=self.threads,
            verbose=False,
        )

    @property
    def n_ctx(self) -> int:
        return int(self.llm.n_ctx())

    def tokenize(self, text: str) -> list[int]:
        return list(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def detokenize(self, tokens: Sequence[int]) -> str:
        return bytes(self.llm.detokenize(list(tokens))).decode("utf-8", errors="ignore")

    def _constrained_generator(self) -> Any:
        if self._constrained is None:
            from curator.llm.sampling import ConstrainedGenerator

            try:
                self._constrained = ConstrainedGenerator(self.llm)
            except (ValueError, AttributeError, KeyError) as exc:
                log.info("constrained sampler unavailable (%s); using llama-cpp-python's grammar path", exc)
                self._constrained = False
        return self._constrained or None

    def _grammar(self, schema: dict[str, Any]) -> Any:
        import json

        key = json.dumps(schema, sort_keys=True)
        grammar = self._grammars.get(key)
        if grammar is None:
            # The grammar follows the schema's property order, so build it from the schema
            # as written (the sorted dump is only the cache key).
            grammar = self._llama_cpp.LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
            self._grammars[key] = grammar
        return grammar

    def stream_chat(
        self,
        messages: list[dict[str, str]],
        *,
        temperature: float,
        max_tokens: int,
        schema: dict[str, Any] | None,
        seed: int | None,
        repeat_penalty: float = 1.0,
    ) -> Iterator[tuple[str, str | None]]:
        kwargs: dict[str, Any] = {
            "messages": messages,
            "temperature": temperature,
            "max_tokens": max_tokens,
            "repeat_penalty": repeat_penalty,
            "stream": True,
        }
        if seed is not None:
            kwargs["seed"] = seed
        if schema is not None:
            grammar = self._grammar(schema)
            constrained = self._constrained_generator()
            if constrained is not None:
                # Top-k first, grammar only on the chosen token: same grammar, ~30x faster.
                yield from constrained.stream(
                    messages, grammar._grammar, grammar._root, temperature=temperature,
                    max_tokens=max_tokens, seed=seed, repeat_penalty=repeat_penalty,
                )
                return
            kwargs["grammar"] = grammar
        stream = self.llm.create_chat_completion(**kwargs)
        with contextlib.closing(stream):
            for chunk in stream:
                choice = chunk["choices"][0]
                piece = choice.get("delta", {}).get("content") or ""
                yield piece, choice.get("finish_reason")

    def reset(self) -> None:
        self.llm.reset()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.llm.close()


def llama_backend(path: Path, n_ctx: int, threads: int) -> Backend:
    """The default :data:`BackendFactory`."""
    return LlamaBackend(path, n_ctx, threads)


@dataclass
class RuntimeStatus:
    """A snapshot of the runtime for a status bar or ``curator status``."""

    state: str  # idle | loading | ready | busy | error | stopped
    model_path: Path | None
    model_name: str = ""
    n_ctx: int = 0
    error: str = ""
    current_job: int | None = None
    current_kind: str = ""
    queued: int = 0
    load_seconds: float = 0.0


@dataclass(eq=False)
class _Job:
    id: int
    kind: str
    priority: int
    future: Future[Any]
    request: ModelRequest | None = None
    call: Callable[[Backend], Any] | None = None
    on_token: Callable[[str], None] | None = None
    cancel_event: threading.Event = field(default_factory=threading.Event)
    state: str = "queued"
    submitted: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)
    pieces: list[str] = field(default_factory=list)
    needs_model: bool = True


class JobHandle:
    """A submitted job: wait for it, cancel it, or watch its text grow."""

    def __init__(self, job: _Job, runtime: ModelRuntime) -> None:
        self._job = job
        self._runtime = runtime

    @property
    def id(self) -> int:
        """The job number (also in every event about the job)."""
        return self._job.id

    @property
    def kind(self) -> str:
        """The request's kind."""
        return self._job.kind

    @property
    def state(self) -> str:
        """``queued``, ``running`` or ``done``."""
        return self._job.state

    @property
    def future(self) -> Future[ModelResult]:
        """The result as a ``concurrent.futures.Future``."""
        return self._job.future

    @property
    def text_so_far(self) -> str:
        """The tokens streamed so far (for a live view; not a result)."""
        return "".join(self._job.pieces)

    def done(self) -> bool:
        """Whether the result is ready."""
        return self._job.future.done()

    def result(self, timeout: float | None = None) -> ModelResult:
        """Block until the job ends (a cancelled job ends at once) and return its result."""
        return self._job.future.result(timeout)

    def cancel(self) -> bool:
        """Ask the job to stop. A queued job ends at once; a running one at its next token.

        Returns:
            False when the job had already finished.
        """
        return self._runtime._cancel(self._job)

    def add_done_callback(self, fn: Callable[[ModelResult], None]) -> None:
        """Call ``fn(result)`` when the job ends, through the runtime's ``post``."""
        post = self._runtime._post
        self._job.future.add_done_callback(lambda f: post(lambda: fn(f.result())))


class _LoadError(Exception):
    pass


@dataclass
class _Plan:
    user_text: str
    prompt_tokens: int
    max_tokens: int
    kept: dict[str, list[int]]
    dropped: dict[str, int]
    cut: list[str]


class ModelRuntime:
    """One model, one worker thread, a priority queue of jobs.

    Args:
        model_path: The GGUF file. None means "no model configured"; jobs then fail with
            a clear error (``from_settings`` fills in the bundled default).
        n_ctx: Context window to load the model with; capped at the model's trained
            context length when the header states it.
        threads: CPU threads for llama.cpp.
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
        threads: int = 2,
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
        self._queue: queue.PriorityQueue[tuple[int, int, _Job | None]] = queue.PriorityQueue()
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
        self._current: _Job | None = None
        self._pending: set[_Job] = set()

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
        """A runtime configured from ``curator.settings.Settings``.

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
        job = _Job(
            id=next(self._ids),
            kind=request.kind,
            priority=int(priority),
            future=Future(),
            request=request,
            on_token=on_token,
        )
        handle = JobHandle(job, self)
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

    def _enqueue(self, job: _Job) -> bool:
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
        job = _Job(id=0, kind="_call", priority=-100, future=Future(), call=fn, needs_model=needs_model)
        self._enqueue(job)
        return job.future

    def _cancel(self, job: _Job) -> bool:
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

    def _emit(self, event: str, **data: Any) -> None:
        if self._bus is not None:
            self._bus.emit(event, **data)

    def _finish(self, job: _Job, result: ModelResult, *, emit: bool) -> None:
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
            raise self._set_error(None, "no model configured and the bundled default model was not found")
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
            name = info.name
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

    def _run_call(self, job: _Job) -> None:
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

    def _run_job(self, job: _Job) -> None:
        request = job.request
        assert request is not None
        queued = time.monotonic() - job.submitted
        self._emit("job.started", job_id=job.id, job_kind=job.kind, priority=job.priority)

        def fail(status: JobStatus, error: str, **extra: Any) -> None:
            result = ModelResult(
                status, kind=job.kind, job_id=job.id, error=error, queued_seconds=queued, **extra
            )
            self._finish(job, result, emit=True)

        try:
            backend = self._ensure_backend()
        except _LoadError as exc:
            fail(JobStatus.ERROR, str(exc))
            return
        with self._lock:
            self._state = "busy"
        model_name = self._model_name
        timeout = request.timeout_seconds if request.timeout_seconds is not None else self.timeout_seconds
        started = time.monotonic()
        deadline = started + timeout
        try:
            plan = plan_prompt(request, backend.tokenize, backend.detokenize, backend.n_ctx)
        except PromptTooLong as exc:
            fail(JobStatus.ERROR, str(exc), model=model_name)
            return
        self._emit(
            "job.progress",
            job_id=job.id,
            job_kind=job.kind,
            phase="prompt",
            prompt_tokens=plan.prompt_tokens,
            max_tokens=plan.max_tokens,
        )
        common: dict[str, Any] = {
            "kind": job.kind,
            "job_id": job.id,
            "prompt_tokens": plan.prompt_tokens,
            "max_tokens": plan.max_tokens,
            "kept": plan.kept,
            "dropped": plan.dropped,
            "cut": plan.cut,
            "queued_seconds": queued,
            "model": model_name,
        }
        if job.cancel_event.is_set():
            self._finish(job, ModelResult(JobStatus.CANCELLED, error="cancelled", **common), emit=True)
            return

        finish_reason = ""
        first_token_at: float | None = None
        stopped: JobStatus | None = None
        count = 0
        try:
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
                        stopped = JobStatus.CANCELLED
                        break
                    if now > deadline:
                        stopped = JobStatus.TIMEOUT
                        break
                    if piece:
                        if first_token_at is None:
                            first_token_at = now
                            self._emit(
                                "job.progress",
                                job_id=job.id,
                                job_kind=job.kind,
                                phase="generate",
                                prompt_tokens=plan.prompt_tokens,
                                max_tokens=plan.max_tokens,
                            )
                        job.pieces.append(piece)
                        count += 1
                        self._emit("model.token", job_id=job.id, job_kind=job.kind, text=piece, index=count)
                        if job.on_token is not None:
                            callback, text = job.on_token, piece
                            self._post(lambda: callback(text))
                    if finish:
                        finish_reason = str(finish)
        except Exception as exc:
            # A failed call can leave the KV cache in an odd state; start clean next time.
            with contextlib.suppress(Exception):
                backend.reset()
            error = f"model call failed: {exc}"
            fail(JobStatus.ERROR, error, model=model_name, prompt_tokens=plan.prompt_tokens)
            return
        ended = time.monotonic()
        prompt_seconds = (first_token_at or ended) - started
        generation_seconds = ended - (first_token_at or ended)
        timing = {
            "prompt_seconds": prompt_seconds,
            "generation_seconds": generation_seconds,
            "completion_tokens": count,
        }
        if stopped is None and job.cancel_event.is_set():
            stopped = JobStatus.CANCELLED
        if stopped is JobStatus.CANCELLED:
            cancelled = ModelResult(JobStatus.CANCELLED, error="cancelled", **common, **timing)
            self._finish(job, cancelled, emit=True)
            return
        if stopped is JobStatus.TIMEOUT:
            error = f"stopped after the time limit of {timeout:g} s ({count} tokens generated)"
            self._finish(job, ModelResult(JobStatus.TIMEOUT, error=error, **common, **timing), emit=True)
            return
        text = "".join(job.pieces)
        data, problems = check_output(text, finish_reason, request.schema)
        if problems:
            result = ModelResult(
                JobStatus.INVALID,
                text=text,
                error=f"invalid model output: {problems[0]}",
                problems=problems,
                finish_reason=finish_reason,
                **common,
                **timing,
            )
        else:
            result = ModelResult(
                JobStatus.OK, text=text, data=data, finish_reason=finish_reason, **common, **timing
            )
        self._finish(job, result, emit=True)


class PromptTooLong(Exception):
    """The fixed part of a prompt leaves no room for output in the model's context."""


def plan_prompt(
    request: ModelRequest,
    tokenize: Callable[[str], list[int]],
    detokenize: Callable[[Sequence[int]], str],
    n_ctx: int,
) -> _Plan:
    """Fit a request into the context window, trimming only its variable parts.

    The system message and fixed user text are never cut. The output keeps its full
    ``max_tokens`` when everything fits; otherwise it gets the larger of what the full
    input leaves and half of the free room (never below ``min_output_tokens``), and the
    trimmable item lists lose items in their rank order, from the end each names. When a
    list would lose its last item, that item is shortened instead if a useful part fits.

    Raises:
        PromptTooLong: Even with every variable item dropped there is no room for output.
    """
    count = lambda text: len(tokenize(text)) if text else 0  # noqa: E731
    segments = request.user
    fixed = count(request.system) + TEMPLATE_MARGIN
    item_tokens: dict[int, list[int]] = {}
    for index, segment in enumerate(segments):
        if segment.trimmable:
            joiner = count(segment.joiner) if segment.joiner.strip() else 1
            item_tokens[index] = [count(item) + joiner for item in segment.items or []]
            fixed += count(segment.empty)
        else:
            fixed += count(segment.text)
    variable = sum(sum(tokens) for tokens in item_tokens.values())
    free = n_ctx - fixed
    if free < request.min_output_tokens:
        raise PromptTooLong(
            f"{request.kind}: the fixed part of the prompt takes {fixed} of {n_ctx} tokens, "
            f"leaving no room for output; load the model with a larger context"
        )
    if variable + request.max_tokens <= free:
        max_tokens = request.max_tokens
    else:
        max_tokens = min(request.max_tokens, max(free - variable, free // 2, request.min_output_tokens))
    room = free - max_tokens

    kept: dict[int, list[int]] = {i: list(range(len(t))) for i, t in item_tokens.items()}
    cut: dict[int, str] = {}
    used = variable
    order = sorted(item_tokens, key=lambda i: segments[i].rank)
    for index in order:
        if used <= room:
            break
        segment = segments[index]
        tokens = item_tokens[index]
        while used > room and kept[index]:
            victim = kept[index][0] if segment.drop == "oldest" else kept[index][-1]
            if len(kept[index]) == 1:
                # Last item of this list: shorten it rather than lose it when enough fits.
                others = used - tokens[victim]
                budget = room - others - 4
                if budget >= MIN_CUT_TOKENS:
                    item = (segment.items or [])[victim]
                    cut[index] = detokenize(tokenize(item)[:budget]).rstrip() + " …"
                    used = others + count(cut[index]) + 1
                    break
            kept[index].remove(victim)
            used -= tokens[victim]
    if used > room:
        raise PromptTooLong(f"{request.kind}: the prompt does not fit in {n_ctx} tokens")
    user_text = request.user_text(kept, cut)
    names = {i: segments[i].placeholder or f"segment{i}" for i in item_tokens}
    return _Plan(
        user_text=user_text,
        prompt_tokens=fixed - TEMPLATE_MARGIN + used,
        max_tokens=max_tokens,
        kept={names[i]: kept[i] for i in item_tokens},
        dropped={names[i]: len(item_tokens[i]) - len(kept[i]) for i in item_tokens},
        cut=[names[i] for i in cut],
    )


def resolve_model_path(value: str | Path | None) -> Path | None:
    """The model file to use: ``value`` when set, else the bundled default (None if absent)."""
    if value:
        return Path(value).expanduser()
    from curator.llm.default_model import resolve_default_model

    return resolve_default_model().path


__all__ = [
    "Backend",
    "BackendFactory",
    "JobHandle",
    "LlamaBackend",
    "ModelRuntime",
    "PromptTooLong",
    "RuntimeStatus",
    "Segment",
    "plan_prompt",
    "post_direct",
    "resolve_model_path",
]
