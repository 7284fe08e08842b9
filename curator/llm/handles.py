"""What callers of the model worker hold: job handles, the job record, the status snapshot."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from curator.llm.request import ModelRequest, ModelResult

if TYPE_CHECKING:
    from pathlib import Path

    from curator.llm.backend import Backend

Post = Callable[[Callable[[], None]], None]


def post_direct(fn: Callable[[], None]) -> None:
    """Run a callback right away, on the calling (worker) thread; for the CLI and tests."""
    fn()


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
class ModelJob:
    """One queued model call (a request, or an internal call on the backend)."""

    id: int
    kind: str
    priority: int
    future: Future[Any]
    request: ModelRequest | None = None
    call: Callable[[Backend | None], Any] | None = None
    on_token: Callable[[str], None] | None = None
    cancel_event: threading.Event = field(default_factory=threading.Event)
    state: str = "queued"
    submitted: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)
    pieces: list[str] = field(default_factory=list)
    needs_model: bool = True


class JobHandle:
    """A submitted job: wait for it, cancel it, or watch its text grow."""

    def __init__(self, job: ModelJob, cancel: Callable[[ModelJob], bool], post: Post) -> None:
        self._job = job
        self._cancel = cancel
        self._post = post

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
        return self._cancel(self._job)

    def add_done_callback(self, fn: Callable[[ModelResult], None]) -> None:
        """Call ``fn(result)`` when the job ends, through the runtime's ``post``."""
        post = self._post
        self._job.future.add_done_callback(lambda f: post(lambda: fn(f.result())))


__all__ = ["JobHandle", "ModelJob", "Post", "RuntimeStatus", "post_direct"]
