"""Trigger decisions and the context every trigger family records them through.

Every evaluation that fires, and every evaluation whose outcome changed since the last one
recorded for that trigger (a tick every second would otherwise drown the list), becomes a
``TriggerDecision``: logged (fired at INFO, not fired at DEBUG), appended to a bounded
in-memory list, kept per user in ``trigger_state.json`` (last 50, so ``curator status`` in
another process can show them), and emitted on the bus as ``"trigger.decision"``.
"""

from __future__ import annotations

import logging
import math
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields
from datetime import tzinfo
from typing import Any

from curator.clock import Clock
from curator.events import EventBus
from curator.triggers.jobs import PRIORITY_NORMAL, Job, JobQueue
from curator.triggers.state import PERSISTED_DECISIONS, TriggerUser
from curator.vault.settings import Settings

log = logging.getLogger(__name__)

DECISION_EVENT = "trigger.decision"

TurnRange = tuple[int, int] | None
Scope = tuple[TurnRange, dict[str, Any]]


@dataclass(frozen=True)
class TriggerDecision:
    """One trigger evaluation worth recording: did it fire, and why (or why not)."""

    timestamp: float
    user_id: str
    trigger: str  # batch | summary | micro | cycle
    fired: bool
    code: str  # turn_count, urgency, inactivity, silence, session_end, context_pressure,
    #            schedule, unprocessed, manual, below_threshold, pending, after_failure, ...
    reason: str
    conversation: str | None = None
    job_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable mapping (the event's data, ``--json`` output)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TriggerDecision:
        """Rebuild from ``to_dict`` output."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def text(self) -> str:
        """One line for a log or ``curator watch``."""
        verdict = "FIRED" if self.fired else "waits"
        job = f" -> {self.job_id}" if self.job_id else ""
        return f"[{self.user_id}] {self.trigger} {verdict}: {self.reason}{job}"


def format_duration(seconds: float) -> str:
    """``45s``, ``2m``, ``1h 5m``: whole units, rounded down, for status lines."""
    total = max(0, int(seconds))
    if total < 60:
        return f"{total}s"
    minutes = total // 60
    if minutes < 60:
        return f"{minutes}m"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes}m" if minutes else f"{hours}h"


def estimate_tokens(text: str) -> int:
    """A model-free token estimate (about four characters per token for English)."""
    return max(1, math.ceil(len(text) / 4)) if text else 0


def label(conversation: str | None) -> str:
    """How a conversation is named in decision and status lines."""
    return conversation if conversation else "(default)"


class TriggerContext:
    """What the trigger families share: settings, clock, queue, and the decision record.

    The families read ``settings`` on every evaluation, so ``TriggerEngine.update_settings``
    only has to replace it here.
    """

    def __init__(self, settings: Settings, clock: Clock, queue: JobQueue,
                 events: EventBus | None, tz: tzinfo | None,
                 count_tokens: Callable[[str], int], max_decisions: int) -> None:
        self.settings = settings
        self.clock = clock
        self.queue = queue
        self.events = events
        self.tz = tz
        self.count_tokens = count_tokens
        self.decisions: deque[TriggerDecision] = deque(maxlen=max_decisions)
        # While counting a batch of new turns, which jobs are pending is asked after every
        # turn; only this context queues jobs meanwhile, so the answers are kept until it does.
        self._pending_memo: dict[tuple[str, str, str | None, bool], list[Job]] | None = None
        # Settings values read while counting, looked up once per batch instead of per turn.
        self._setting_memo: dict[str, Any] | None = None

    @contextmanager
    def counting(self) -> Iterator[None]:
        """Remember pending-job answers and defer queue writes until the block ends."""
        self._pending_memo = {}
        self._setting_memo = {}
        try:
            with self.queue.deferred_saves():
                yield
        finally:
            self._pending_memo = None
            self._setting_memo = None

    def setting(self, key: str) -> Any:
        """``settings[key]`` (remembered inside ``counting``)."""
        memo = self._setting_memo
        if memo is None:
            return self.settings[key]
        if key not in memo:
            memo[key] = self.settings[key]
        return memo[key]

    def pending(self, kind: str, user_id: str, conversation: str | None, any_conversation: bool) -> list[Job]:
        """``queue.pending`` (remembered inside ``counting``)."""
        memo = self._pending_memo
        if memo is None:
            return self.queue.pending(kind=kind, user_id=user_id, conversation=conversation,
                                      any_conversation=any_conversation)
        key = (kind, user_id, conversation, any_conversation)
        if key not in memo:
            memo[key] = self.queue.pending(kind=kind, user_id=user_id, conversation=conversation,
                                           any_conversation=any_conversation)
        return memo[key]

    def fire(self, user: TriggerUser, kind: str, conversation: str | None, code: str, why: str,
             scope: Scope, now: float) -> TriggerDecision:
        """Queue the job and record that the trigger fired (or merged into a pending job)."""
        turn_range, meta = scope
        job, created = self.queue.enqueue(
            kind, user.id, reason=why, trigger=code, conversation=conversation,
            priority=PRIORITY_NORMAL, turn_range=turn_range, meta=meta,
        )
        if self._pending_memo is not None:
            self._pending_memo.clear()
        if not created:
            return self.record(user, kind, conversation, False, "pending",
                               f"{why}, but identical {job.id} is still {job.status}",
                               now=now, job_id=job.id)
        return self.record(user, kind, conversation, True, code, why, now=now, job_id=job.id)

    def miss(self, user: TriggerUser, kind: str, conversation: str | None, code: str, why: str,
             signature: tuple[Any, ...], now: float, record: bool) -> list[TriggerDecision]:
        """Record a "not now" once per change of its signature."""
        if not record or user.signatures.get((kind, conversation)) == (code, *signature):
            return []
        decision = self.record(user, kind, conversation, False, code, why, now=now)
        user.signatures[(kind, conversation)] = (code, *signature)
        return [decision]

    def waits(self, user: TriggerUser, kind: str, conversation: str | None, last_turn: int) -> bool:
        """Whether a due trigger must wait (a job of it is pending or just failed).

        When it waits and misses are not recorded, ``blocked`` decides nothing, so a caller
        asking on every new turn skips building the words of a decision nobody keeps.
        """
        if self.pending(kind, user.id, conversation, conversation is None):
            return True
        return user.state.suppressed.get(user.suppression_key(kind, conversation), -1) >= last_turn

    def blocked(self, user: TriggerUser, kind: str, conversation: str | None, last_turn: int,
                counts: str, now: float, record_misses: bool) -> list[TriggerDecision] | None:
        """The "not now" decision when a job of this trigger is pending or just failed."""
        pending = self.pending(kind, user.id, conversation, conversation is None)
        if pending:
            job = pending[0]
            return self.miss(user, kind, conversation, "pending",
                             f"{kind}: due ({counts}) but {job.id} is still {job.status}",
                             ("pending", job.id), now, record_misses)
        if user.state.suppressed.get(user.suppression_key(kind, conversation), -1) >= last_turn:
            return self.miss(user, kind, conversation, "after_failure",
                             f"{kind}: due ({counts}) but the last job failed or was "
                             "cancelled; waiting for a new turn",
                             ("after_failure", last_turn), now, record_misses)
        return None

    def record(self, user: TriggerUser, kind: str, conversation: str | None, fired: bool,
               code: str, why: str, *, now: float, job_id: str | None = None
               ) -> TriggerDecision:
        """Log, keep and emit one decision."""
        decision = TriggerDecision(now, user.id, kind, fired, code, why, conversation, job_id)
        if fired:
            user.signatures.pop((kind, conversation), None)
            log.info("trigger fired: %s", decision.text())
        else:
            log.debug("trigger decision: %s", decision.text())
        self.decisions.append(decision)
        user.state.recent_decisions.append(decision.to_dict())
        del user.state.recent_decisions[:-PERSISTED_DECISIONS]
        if self.events is not None:
            self.events.emit(DECISION_EVENT, **decision.to_dict())
        return decision


@dataclass(frozen=True)
class StatusPart:
    """One family's share of ``TriggerEngine.status``: counter lines, "next" lines, data."""

    lines: list[str]
    upcoming: list[str]
    data: dict[str, Any]


__all__ = [
    "DECISION_EVENT",
    "Scope",
    "StatusPart",
    "TriggerContext",
    "TriggerDecision",
    "estimate_tokens",
    "format_duration",
    "label",
]
