"""Running one model job on a loaded backend: fit the prompt, stream tokens, judge the output.

The worker (``curator.llm.runtime``) calls ``Generation.run`` with the backend already
loaded. Cancel and the time limit act between tokens (prompt evaluation is one llama.cpp
call that Python cannot interrupt).
"""

from __future__ import annotations

import contextlib
import time
import zlib
from collections.abc import Callable
from typing import Any

from curator.llm.backend import Backend
from curator.llm.budget import PromptPlan, PromptTooLong, plan_prompt
from curator.llm.handles import ModelJob, Post
from curator.llm.request import JobStatus, ModelRequest, ModelResult, check_output

Finish = Callable[[ModelJob, ModelResult], None]


class JobRun:
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

    def failed(self, status: JobStatus, error: str, **extra: Any) -> ModelResult:
        """The result of a job that failed before or while generating."""
        return ModelResult(status, kind=self.job.kind, job_id=self.job.id, error=error,
                           queued_seconds=self.queued, **extra)


class Generation:
    """Runs planned jobs; remembers the prompt-evaluation rate to estimate the next one's wait.

    ``emit`` sends a bus event, ``post`` hops a per-job callback to its thread and
    ``finish`` completes a job's future (emitting ``job.finished``).
    """

    def __init__(self, emit: Callable[..., None], post: Post, finish: Finish) -> None:
        self._emit = emit
        self._post = post
        self._finish = finish
        # Prompt tokens evaluated per second by the last job: the first estimate of the next.
        self.prompt_rate = 0.0

    def run(self, run: JobRun, backend: Backend, default_timeout: float) -> None:
        """Plan, check for a cancel, stream and finish ``run.job`` with its result."""
        job, request = run.job, run.request
        run.timeout = request.timeout_seconds if request.timeout_seconds is not None else default_timeout
        run.started = time.monotonic()
        try:
            run.plan = plan_prompt(request, backend.tokenize, backend.detokenize, backend.n_ctx)
        except PromptTooLong as exc:
            self._finish(job, run.failed(JobStatus.ERROR, str(exc), model=run.model_name))
            return
        self._emit("job.progress", job_id=job.id, job_kind=job.kind, phase="prompt",
                   prompt_tokens=run.plan.prompt_tokens, max_tokens=run.plan.max_tokens)
        if job.cancel_event.is_set():
            self._finish(job, ModelResult(JobStatus.CANCELLED, error="cancelled", **run.common))
            return
        try:
            self._stream(run, backend)
        except Exception as exc:
            # A failed call can leave the KV cache in an odd state; start clean next time.
            with contextlib.suppress(Exception):
                backend.reset()
            self._finish(job, run.failed(JobStatus.ERROR, f"model call failed: {exc}", model=run.model_name,
                                         prompt_tokens=run.plan.prompt_tokens))
            return
        self._finish(job, self._outcome(run))

    def _stream(self, run: JobRun, backend: Backend) -> None:
        """Generate, token by token, until the end, a cancel or the time limit."""
        job, request, plan = run.job, run.request, run.plan
        deadline = run.started + run.timeout
        if hasattr(backend, "prompt_progress"):  # optional: only backends that can report it
            setattr(backend, "prompt_progress", self._prompt_reporter(job, plan.max_tokens))  # noqa: B010
        messages = request.messages(plan.user_text)
        stream = backend.stream_chat(
            messages,
            temperature=request.temperature,
            max_tokens=plan.max_tokens,
            schema=request.schema,
            seed=sampling_seed(request, messages),
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

    def _take_piece(self, run: JobRun, piece: str, now: float) -> None:
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
                self.prompt_rate = evaluated / elapsed
            eta = (total - done) / self.prompt_rate if self.prompt_rate > 0 else None
            self._emit("job.progress", job_id=job.id, job_kind=job.kind, phase="prompt",
                       prompt_done=done, prompt_tokens=total, max_tokens=max_tokens,
                       eta_seconds=round(eta, 1) if eta is not None else None)

        return report

    @staticmethod
    def _outcome(run: JobRun) -> ModelResult:
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


def sampling_seed(request: ModelRequest, messages: list[dict[str, str]]) -> int:
    """The request's own seed, or one drawn from the words the model reads.

    A person who reflects on the same chat twice gets the same proposals: sampling at a
    temperature above 0 with a fresh seed each time made the bundled model keep one, then
    four, of the same chat's statements from one run to the next.
    """
    if request.seed is not None:
        return request.seed
    return zlib.crc32("\x00".join(m.get("content", "") for m in messages).encode("utf-8", "surrogatepass"))
