"""One reflection job: its kinds, statuses, priorities, allowed status changes and file form."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

JOB_KINDS = ("batch", "micro", "summary", "cycle")
JOB_STATUSES = ("queued", "running", "done", "failed", "cancelled")
PENDING_STATUSES = ("queued", "running")
FINISHED_STATUSES = ("done", "failed", "cancelled")

PRIORITY_MANUAL = 100
PRIORITY_NORMAL = 50
PRIORITY_LOW = 10

# Allowed status changes; anything else is a programming error in the caller.
TRANSITIONS: dict[str, tuple[str, ...]] = {
    "queued": ("running", "cancelled"),
    "running": ("done", "failed", "cancelled", "queued"),
    "done": (),
    "failed": (),
    "cancelled": (),
}


class JobStateError(ValueError):
    """An unknown job id or a status change that is not allowed."""


@dataclass(frozen=True)
class Job:
    """One unit of reflection work.

    Attributes:
        id: Stable id, ``job-NNNNNN``.
        kind: ``batch`` | ``micro`` | ``summary`` | ``cycle``.
        user_id: Whose memories the job works on.
        conversation: The conversation for ``summary``/``micro`` jobs, else ``None``.
        reason: Human-readable trigger reason ("10/10 turns since the last batch").
        trigger: Short machine code of the trigger (``turn_count``, ``urgency``,
            ``inactivity``, ``silence``, ``session_end``, ``context_pressure``, ``schedule``,
            ``unprocessed``, ``manual``).
        created_at: Unix time the job was queued.
        priority: Higher runs first (``PRIORITY_MANUAL`` > ``PRIORITY_NORMAL``).
        status: ``queued`` | ``running`` | ``done`` | ``failed`` | ``cancelled``.
        turn_range: Inclusive (first, last) per-user turn numbers the job covers, if any.
        prompt: A custom instruction from a manual request, else ``None``.
        manual: True when a person asked for the job.
        meta: What the trigger counted when it fired (used to reset counters on completion).
        started_at / finished_at: Unix times of the status changes.
        error: Why a job failed or was cancelled.
        result: What the engine reports on completion (free-form, JSON-serialisable).
        seq: Insertion order, the last tie-breaker.
    """

    id: str
    kind: str
    user_id: str
    reason: str
    created_at: float
    trigger: str = ""
    conversation: str | None = None
    priority: int = PRIORITY_NORMAL
    status: str = "queued"
    turn_range: tuple[int, int] | None = None
    prompt: str | None = None
    manual: bool = False
    meta: dict[str, Any] = field(default_factory=dict, compare=False)
    started_at: float | None = None
    finished_at: float | None = None
    error: str | None = None
    result: dict[str, Any] | None = field(default=None, compare=False)
    seq: int = 0

    @property
    def pending(self) -> bool:
        """True while the job is queued or running."""
        return self.status in PENDING_STATUSES

    def identity(self) -> tuple[Any, ...]:
        """What makes two jobs "the same work" for de-duplication."""
        return (self.kind, self.user_id, self.conversation, self.turn_range, self.prompt)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable mapping (also what ``--json`` output shows)."""
        return {
            "id": self.id,
            "kind": self.kind,
            "user_id": self.user_id,
            "conversation": self.conversation,
            "reason": self.reason,
            "trigger": self.trigger,
            "created_at": self.created_at,
            "priority": self.priority,
            "status": self.status,
            "turn_range": list(self.turn_range) if self.turn_range else None,
            "prompt": self.prompt,
            "manual": self.manual,
            "meta": dict(self.meta),
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "error": self.error,
            "result": self.result,
            "seq": self.seq,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Job:
        """Rebuild a job from ``to_dict`` output; raises ``ValueError`` on bad data."""
        kind = str(data["kind"])
        status = str(data.get("status", "queued"))
        if kind not in JOB_KINDS or status not in JOB_STATUSES:
            raise ValueError(f"bad job kind/status {kind!r}/{status!r}")
        raw_range = data.get("turn_range")
        turn_range = (int(raw_range[0]), int(raw_range[1])) if raw_range else None
        return cls(
            id=str(data["id"]),
            kind=kind,
            user_id=str(data["user_id"]),
            reason=str(data.get("reason", "")),
            created_at=float(data.get("created_at", 0.0)),
            trigger=str(data.get("trigger", "")),
            conversation=None if data.get("conversation") is None else str(data["conversation"]),
            priority=int(data.get("priority", PRIORITY_NORMAL)),
            status=status,
            turn_range=turn_range,
            prompt=None if data.get("prompt") is None else str(data["prompt"]),
            manual=bool(data.get("manual", False)),
            meta=dict(data.get("meta") or {}),
            started_at=_opt_float(data.get("started_at")),
            finished_at=_opt_float(data.get("finished_at")),
            error=None if data.get("error") is None else str(data["error"]),
            result=data.get("result") if isinstance(data.get("result"), dict) else None,
            seq=int(data.get("seq", 0)),
        )


def _opt_float(value: Any) -> float | None:
    return None if value is None else float(value)


def run_order(job: Job) -> tuple[int, float, int]:
    """Sort key of pending jobs: highest priority first, then the oldest."""
    return (-job.priority, job.created_at, job.seq)
