"""Runs reflection jobs end to end: job queue -> model worker -> reflectors -> staging.

This is the glue between the trigger engine's job queue (``curator.triggers.jobs``), the single model
worker (``curator.llm.runtime``) and the model-independent reflectors
(``curator.reflection``). It adapts the real objects to the reflection ports and holds no
rules of its own: what to stage is the reflectors' business, when to run is the triggers'.

Threading contract: ``run_job``/``run_pending`` run on the calling thread and block on the
model worker; ``start()`` runs the same loop on one background thread ("curator-reflect").
``cancel_current()`` may be called from any thread.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, is_dataclass
from pathlib import Path
from typing import Any, Protocol

from curator.clock import Clock
from curator.events import EventBus
from curator.index.database import Index
from curator.index.views import IndexTurnSource
from curator.llm.gguf import read_gguf
from curator.llm.gguf_info import GGUFError
from curator.llm.request import JobStatus, Priority
from curator.llm.runtime import JobHandle, ModelRuntime, Post, post_direct
from curator.reflection.batch import BatchReflector
from curator.reflection.cycle.runner import CycleRunner
from curator.reflection.gates.fingerprints import RejectedMemory
from curator.reflection.knowledge import IndexKnowledge
from curator.reflection.micro import MicroReflector, entries_from_turns
from curator.reflection.narrowing import narrow
from curator.reflection.people import NamedTurns, named_all
from curator.reflection.ports import (
    DocumentIndex,
    GenerationDefaults,
    ModelCallError,
    ModelCancelled,
    ModelReply,
)
from curator.reflection.prompts import load_prompt
from curator.reflection.summaries import SummaryStore, SummaryWriter
from curator.review.actions import ReviewEngine
from curator.review.cycles import CycleReview
from curator.review.lifecycle import propose_fading
from curator.review.staging import StagingArea
from curator.sources.turns import IndexedTurn
from curator.triggers.jobs import Job, JobQueue
from curator.vault.paths import VaultPaths
from curator.vault.person import person_name
from curator.vault.settings import Settings
from curator.vault.store import DocumentStore

log = logging.getLogger(__name__)

RUNNABLE_KINDS = ("batch", "micro", "summary", "cycle")
MICRO_WINDOW = 80
CAPABLE_BILLIONS = 1.0  # from this size on, reflection.writer auto lets the model word what it chose
SUMMARY_WINDOW = 200


class RuntimeModelClient:
    """The reflection ``ModelClient`` port over the real model worker.

    Uses the prompt file's own schema for the grammar (it matches the prompt's wording),
    specialised for the call by the reflector's narrowing when it passes one (see
    ``curator.reflection.narrowing``: only the turns, quotes and ids that were shown); the
    reflectors validate the output again against theirs. ``seed`` (None: random) makes
    sampling repeatable, for tests and benchmarks.
    """

    def __init__(self, runtime: ModelRuntime, vault: Path, prompts_folder: str = "",
                 bus: EventBus | None = None) -> None:
        self.runtime = runtime
        self.vault = vault
        self.prompts_folder = prompts_folder or None
        self.bus = bus
        self.priority: int = int(Priority.TRIGGERED)
        self._current: JobHandle | None = None
        self._lock = threading.Lock()
        self._cancelled = False
        self.on_token: Callable[[str], None] | None = None
        self.seed: int | None = None

    @property
    def model_name(self) -> str:
        status = self.runtime.status()
        if status.model_name:
            return status.model_name
        return self.runtime.model_path.name if self.runtime.model_path else ""

    def count_tokens(self, text: str) -> int:
        return self.runtime.count_tokens(text)

    def call(self, prompt_name: str, variables: Mapping[str, Any], schema: Mapping[str, Any] | None,
             defaults: GenerationDefaults) -> ModelReply:
        template = load_prompt(prompt_name, vault=self.vault, folder=self.prompts_folder)
        base = template.output_schema if template.output_schema is not None else (
            dict(schema) if schema is not None else None)
        grammar = narrow(base, variables)
        overrides: dict[str, Any] = {"schema": grammar}
        granted = variables.get("_max_tokens")  # a cycle's output budget may grant less
        if isinstance(granted, int) and 0 < granted < template.max_tokens:
            overrides["max_tokens"] = granted
        if self.seed is not None:
            overrides["seed"] = self.seed
        request = template.request(variables, **overrides)
        with self._lock:
            if self._cancelled:
                raise ModelCancelled("cancelled before the model call")
            handle = self.runtime.submit(request, priority=self.priority, on_token=self.on_token)
            self._current = handle
        try:
            result = handle.result()
        finally:
            with self._lock:
                self._current = None
        settings = {"temperature": request.temperature, "max_tokens": request.max_tokens,
                    "prompt_tokens": result.prompt_tokens, "completion_tokens": result.completion_tokens}
        if result.status is JobStatus.CANCELLED:
            raise ModelCancelled(result.error or "cancelled")
        if result.status in (JobStatus.OK, JobStatus.INVALID):
            return ModelReply(
                text=result.text,
                model=result.model or self.model_name,
                prompt_version=f"{template.name}@{template.version}",
                finish_reason=result.finish_reason or "stop",
                settings=settings,
                problems=_syntax_problems(result.text, result.problems),
            )
        raise ModelCallError(result.error or f"model call ended with {result.status}")

    @property
    def model_job_id(self) -> str | None:
        """The model worker's id of the call in flight (what ``model.token`` events carry)."""
        handle = self._current
        return str(handle.id) if handle is not None else None

    def begin(self) -> None:
        """Start a new job: forget an earlier cancel."""
        with self._lock:
            self._cancelled = False

    def cancel(self) -> bool:
        """Cancel the call in flight (and any further call of the same job)."""
        with self._lock:
            self._cancelled = True
            handle = self._current
        return handle.cancel() if handle is not None else False


class JobSource(Protocol):
    """What reflection needs of the trigger engine: its job queue, manual requests, and
    where the last batch ended (``curator.triggers.engine.TriggerEngine`` is one)."""

    @property
    def queue(self) -> JobQueue: ...

    def request(self, job_kind: str, user_id: str, prompt: str | None = None, priority: int = ...,
                *, conversation: str | None = None) -> Job: ...

    def last_batch_turn(self, user_id: str) -> int: ...


@dataclass(frozen=True)
class ReflectionParts:
    """What the reflection service needs from the open vault; ``Engine`` builds it once.

    ``current_index`` is called on each use because ``Engine.reindex`` replaces the index.
    """

    paths: VaultPaths
    store: DocumentStore
    settings: Settings
    clock: Clock
    bus: EventBus
    triggers: JobSource
    review: ReviewEngine
    summaries: SummaryStore
    rejected: RejectedMemory
    documents: DocumentIndex
    current_index: Callable[[], Index]

    @property
    def index(self) -> Index:
        return self.current_index()

    @property
    def queue(self) -> JobQueue:
        return self.triggers.queue


class ReflectionService:
    """One vault's reflection jobs, run on one model.

    Args:
        parts: The vault's parts (``Engine.reflection_parts()``).
        runtime: The model worker; built from the settings when None (``model_path`` overrides).
        post: How model callbacks reach their thread (a GUI passes its poster).
        sleep: Wait used between a failed model call and its retry (tests pass a no-op).
    """

    def __init__(self, parts: ReflectionParts, runtime: ModelRuntime | None = None, *,
                 model_path: Path | str | None = None, post: Post = post_direct,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.parts = parts
        self.bus: EventBus = parts.bus
        self.runtime = runtime or ModelRuntime.from_settings(parts.settings, bus=self.bus,
                                                             post=post, model_path=model_path)
        self._owns_runtime = runtime is None
        self.model = RuntimeModelClient(self.runtime, parts.paths.root,
                                        str(parts.settings["prompts.folder"]), self.bus)
        self.model.on_token = self._emit_token
        self.turns = IndexTurnSource(parts.current_index)
        self.knowledge = IndexKnowledge(parts.current_index, parts.store)
        self.doc_index = parts.documents
        self.rejected = parts.rejected
        self.summaries = parts.summaries
        self.review = parts.review
        self._sleep = sleep
        self._current_job: Job | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._unsubscribe = self.bus.subscribe(lambda _e: self._wake.set(), "jobs.queued")
        self._size_of: tuple[Path | None, float] = (None, 0.0)

    # ---- Reflectors (built per job so they see current settings)

    def _batch(self, upto: int | None = None) -> BatchReflector:
        turns = NamedTurns(IndexTurnSource(self.parts.current_index, upto), self.person)
        return BatchReflector(self.parts.paths, self.parts.store, turns, self.knowledge, self.model,
                              self.parts.settings, clock=self.parts.clock, sleep=self._sleep,
                              events=self.bus, rejected=self.rejected, writer=self.writer())

    @property
    def person(self) -> str:
        """What memories call the person where a chat file names no one (read per job)."""
        return person_name(self.parts.settings)

    def writer(self) -> str:
        """Who words a batch's memories: code (the model choosing), the model rewording what
        it chose (checked), or the model itself; auto picks by the loaded model's size.

        Measured with `curator bench --suite reflection-quality` (see the README's table): the
        bundled 135M words worse than code, so it chooses; a model of a billion parameters or
        more (Qwen2.5-Coder-1.5B) rewords what it chose, shorter and in the chat's language,
        with F1 no lower. Writing on its own (`model`) measured worst with both.
        """
        chosen = str(self.parts.settings["reflection.writer"])
        if chosen in ("model", "reword", "choose"):
            return chosen
        return "reword" if self._billions() >= CAPABLE_BILLIONS else "choose"

    def _billions(self) -> float:
        """Parameters of the loaded model, in billions (0 when unknown), read once per file."""
        path = self.runtime.model_path
        if path is None:
            return 0.0
        if self._size_of[0] != path:
            try:
                self._size_of = (path, read_gguf(path, check_size=False).parameters / 1e9)
            except (OSError, GGUFError):
                self._size_of = (path, 0.0)
        return self._size_of[1]

    def _micro(self) -> MicroReflector:
        return MicroReflector(self.parts.paths, self.parts.store, self.knowledge, self.model,
                              self.parts.settings, clock=self.parts.clock, events=self.bus,
                              rejected=self.rejected, writer=self.writer())

    # ---- Jobs

    @property
    def queue(self) -> JobQueue:
        return self.parts.queue

    def request(self, kind: str, user_id: str = "default", prompt: str | None = None,
                conversation: str | None = None) -> Job:
        """Queue a manual job (it runs before triggered ones)."""
        return self.parts.triggers.request(kind, user_id, prompt, conversation=conversation)

    def run_pending(
        self, kinds: Iterable[str] = RUNNABLE_KINDS, limit: int | None = None
    ) -> list[tuple[Job, dict[str, Any]]]:
        """Run queued jobs of ``kinds`` until none is left (or ``limit`` ran); returns what ran."""
        done: list[tuple[Job, dict[str, Any]]] = []
        kinds = tuple(kinds)
        while (limit is None or len(done) < limit) and not self._stop.is_set():
            job = self.queue.claim(kinds)
            if job is None:
                break
            done.append((job, self.run_job(job)))
        return done

    def run_job(self, job: Job) -> dict[str, Any]:
        """Run one claimed (running) job and record how it ended on the queue."""
        self._current_job = job
        self.model.begin()
        self.model.priority = int(Priority.MANUAL if job.manual else Priority.TRIGGERED)
        self.bus.emit("reflection.started", job_id=job.id, job_kind=job.kind, user_id=job.user_id,
                      reason=job.reason)
        try:
            outcome = self._dispatch(job)
        except Exception as exc:  # a reflector bug must not kill the worker loop
            log.exception("reflection job %s failed", job.id)
            outcome = {"status": "aborted", "error": f"{type(exc).__name__}: {exc}"}
        finally:
            self._current_job = None
        status = outcome.get("status")
        if status == "cancelled":
            self._finish(job, "cancel", outcome.get("error") or "cancelled")
        elif status == "aborted":
            self._finish(job, "fail", outcome.get("error") or "aborted")
        else:
            self._finish(job, "done", outcome)
        self.bus.emit("reflection.finished", job_id=job.id, job_kind=job.kind, user_id=job.user_id,
                      outcome=outcome)
        return outcome

    def _finish(self, job: Job, how: str, detail: Any) -> None:
        current = self.queue.get(job.id)
        if current is not None and current.status not in ("running", "queued"):
            return  # cancelled from outside while it ran
        if how == "done":
            self.queue.mark_done(job.id, detail)
        elif how == "cancel":
            self.queue.cancel(job.id, str(detail))
        else:
            self.queue.mark_failed(job.id, str(detail))

    def _dispatch(self, job: Job) -> dict[str, Any]:
        if job.kind == "batch":
            after = (job.turn_range[0] - 1) if job.turn_range else self._last_batch_turn(job.user_id)
            upto = job.turn_range[1] if job.turn_range else None
            result = self._batch(upto).run(
                job.user_id,
                after,
                trigger=job.trigger or "manual",
                urgency_score=float(
                    job.meta.get("urgency", job.meta.get("urgency_score", 0.0)) or 0.0
                ),
            )
            outcome = _plain(result)
            if result.status in ("completed", "empty", "nothing_to_do"):
                outcome["status"] = result.status
            return outcome
        if job.kind == "cycle":
            return self.run_cycle(job.user_id, job.trigger or "manual", str(job.meta.get("session") or ""))
        turns = self._conversation_turns(job)
        if job.kind == "micro":
            trigger = {"silence": "silence", "session_end": "session_end",
                       "context_pressure": "context_pressure"}.get(job.trigger, "manual")
            return _plain(self._micro().run(job.user_id, entries_from_turns(turns), trigger=trigger))
        if job.kind == "summary":
            writer = SummaryWriter(self.summaries, self.model, self.parts.settings, writer=self.writer())
            return _plain(writer.generate(job.user_id, turns, prompt=job.prompt,
                                          trigger=job.trigger or "manual"))
        return {"status": "aborted", "error": f"no engine runs {job.kind!r} jobs"}

    def cycle_runner(self) -> CycleRunner:
        """A consolidation-cycle runner over this service's model (seed 001)."""
        return CycleRunner(self.parts.paths, self.model,
                           lambda user, after: named_all(self.parts.index.turns(user, after=after), self.person),
                           n_ctx=self.runtime.n_ctx, clock=self.parts.clock,
                           schedule=str(self.parts.settings["cycle.schedule"]), rejected=self.rejected,
                           prompts_vault=self.parts.paths.root, prose=self.writer() == "model")

    def run_cycle(self, user_id: str, trigger: str = "manual", session: str = "") -> dict[str, Any]:
        """Run one cycle now; it proposes (pending review) or says why it cannot run."""
        outcome = self.cycle_runner().run(user_id, trigger, session)
        propose_fading(StagingArea(self.parts.store, self.parts.clock), self.parts.store, user_id,
                       [(str(m.get("memory_id", "")), float(m.get("score", 0.0))) for m in outcome.fading])
        plain = _plain(outcome)
        if outcome.status == "blocked":
            plain["status"] = "nothing_to_do"  # the job is done: another cycle awaits review
            plain["error"] = outcome.reason
        self.bus.emit("reflection.cycle.finished", user_id=user_id, cycle_id=outcome.cycle_id,
                      status=outcome.status, reason=outcome.reason)
        return plain

    def cycle_review(self) -> CycleReview:
        """Answers to pending cycles (approve / partial / with changes / reject)."""
        return CycleReview(self.parts.paths, self.review, self.runtime.count_tokens, clock=self.parts.clock,
                           git_commit=bool(_setting(self.parts.settings, "cycle.git_commit", False)))

    def _last_batch_turn(self, user_id: str) -> int:
        return self.parts.triggers.last_batch_turn(user_id)

    def _conversation_turns(self, job: Job) -> list[IndexedTurn]:
        window = MICRO_WINDOW if job.kind == "micro" else SUMMARY_WINDOW
        if job.kind == "summary" and job.conversation:
            # Seed 002 summarises "the current context": everything of the conversation still in
            # its working window, turns before the last summary included, not only what came
            # since. The writer keeps the newest that fit its context budget.
            last = job.turn_range[1] if job.turn_range else self.parts.index.max_number(job.user_id)
            turns = self.parts.index.conversation_turns(job.user_id, job.conversation, up_to=last, limit=window)
            return named_all(turns, self.person)
        if job.turn_range:
            first, last = job.turn_range
            turns = [t for t in self.parts.index.turns(job.user_id, after=first - 1, limit=last - first + 1)]
        else:
            turns = self.parts.index.turns(job.user_id)
        if job.conversation:
            turns = [t for t in turns if t.conversation == job.conversation]
        return named_all(turns[-window:], self.person)

    # ---- Cancel and the background loop

    @property
    def current_job_id(self) -> str | None:
        """Id of the job running now, if any."""
        job = self._current_job
        return job.id if job is not None else None

    def cancel_current(self) -> bool:
        """Cancel the job that is running now; it stages nothing."""
        job = self._current_job
        if job is None:
            return False
        self.model.cancel()
        return True

    def start(self, tick_seconds: float = 10.0) -> None:
        """Run queued jobs on a background thread as they arrive."""
        if self._thread is not None:
            return

        def loop() -> None:
            while not self._stop.is_set():
                try:
                    self.run_pending()
                except Exception:
                    log.exception("reflection loop error")
                self._wake.wait(tick_seconds)
                self._wake.clear()

        self._thread = threading.Thread(target=loop, name="curator-reflect", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop running jobs for good (the job in flight is cancelled, nothing new starts)."""
        self._stop.set()
        self._wake.set()
        self.cancel_current()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None

    def close(self) -> None:
        """Stop the loop and free the model."""
        self.stop()
        self._unsubscribe()
        if self._owns_runtime:
            self.runtime.shutdown()

    def _emit_token(self, text: str) -> None:
        job = self._current_job
        self.bus.emit("reflection.token", job_id=job.id if job else "", text=text)


def _setting(settings: Any, key: str, default: Any) -> Any:
    try:
        return settings[key]
    except KeyError:
        return default


def _syntax_problems(text: str, problems: Sequence[str]) -> tuple[str, ...]:
    """Keep the runtime's problems only when the output is not JSON at all.

    Schema slips inside well-formed JSON (a confidence of 1.5, an extra key) are judged item
    by item by the reflectors' strict parsers, so one bad item does not void a whole batch.
    """
    if not problems:
        return ()
    try:
        json.loads(text)
    except ValueError:
        return tuple(problems)
    return ()


def _plain(result: Any) -> dict[str, Any]:
    """A reflector's result as JSON-friendly data for the job record and the CLI."""
    data = asdict(result) if is_dataclass(result) and not isinstance(result, type) else {"result": str(result)}
    plain: dict[str, Any] = json.loads(json.dumps(data, default=str))
    plain.setdefault("status", "completed")
    return plain
