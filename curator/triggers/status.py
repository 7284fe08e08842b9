"""``TriggerStatus``: what each trigger of a user counts and what fires next, as text and data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from curator.triggers.batch import BatchTrigger
from curator.triggers.cycle import CycleTrigger
from curator.triggers.jobs import JobQueue
from curator.triggers.micro import MicroTrigger
from curator.triggers.state import TriggerUser
from curator.triggers.summary import SummaryTrigger

STATUS_CONVERSATIONS = 5


@dataclass(frozen=True)
class TriggerStatus:
    """What each trigger of a user is counting and what fires next.

    Attributes:
        user_id: The user.
        lines: Counters, one line per trigger (and per active conversation).
        next: What fires next, one line per trigger.
        data: The same as plain data for ``--json``.
    """

    user_id: str
    lines: tuple[str, ...]
    next: tuple[str, ...]
    data: dict[str, Any]

    def text(self) -> str:
        """The lines and the "next" lines, ready to print."""
        return "\n".join([*self.lines, *(f"next: {n}" for n in self.next)])

    def to_dict(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "lines": list(self.lines), "next": list(self.next),
                **self.data}


def build_status(user: TriggerUser, now: float, queue: JobQueue, batch: BatchTrigger,
                 summary: SummaryTrigger, micro: MicroTrigger, cycle: CycleTrigger
                 ) -> TriggerStatus:
    """Assemble every family's status part (read-only)."""
    batch_part = batch.status(user)
    lines, upcoming = list(batch_part.lines), list(batch_part.upcoming)
    active = sorted(
        ((name, c) for name, c in user.state.conversations.items() if not c.idle),
        key=lambda item: item[1].last_message_at, reverse=True,
    )
    conv_data: list[dict[str, Any]] = []
    for name, conv in active[:STATUS_CONVERSATIONS]:
        s_part = summary.status(user, name, conv, now)
        m_part = micro.status(user, name, conv, now)
        lines += s_part.lines + m_part.lines
        upcoming += s_part.upcoming + m_part.upcoming
        conv_data.append({"conversation": name, **s_part.data, **m_part.data})
    if len(active) > STATUS_CONVERSATIONS:
        lines.append(f"(+{len(active) - STATUS_CONVERSATIONS} more active conversations)")
    cycle_part = cycle.status(user, now)
    lines += cycle_part.lines
    upcoming += cycle_part.upcoming
    jobs = queue.pending(user_id=user.id)
    queued = sum(1 for j in jobs if j.status == "queued")
    lines.append(f"jobs: {queued} queued, {len(jobs) - queued} running")
    data = {
        "batch": batch_part.data,
        "conversations": conv_data,
        "cycle": cycle_part.data,
        "pending_jobs": [j.to_dict() for j in jobs],
        "last_turn": user.state.last_turn,
    }
    return TriggerStatus(user.id, tuple(lines), tuple(upcoming), data)


__all__ = ["TriggerStatus", "build_status"]
