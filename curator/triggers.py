"""When to reflect: the four trigger families of the seeds, code only, on an injected clock.

One ``TriggerEngine`` per vault. It is told about new turns and ticked on a timer, and it
puts jobs on the vault's ``JobQueue`` (``curator.jobs``) for the reflection engines.

==========  ====================================  ============================================
job kind    fires when (every number a setting)   scope and reset
==========  ====================================  ============================================
batch       ``turns_since_last_batch`` >=         per user (seed 000 §2, ``curator.signals``);
            ``batch.turn_threshold`` (10) OR      counters reset when the batch job is done;
            urgency > ``batch.urgency_threshold``  covers at most ``batch.max_turns`` turns
            (5.0, strictly greater)
summary     >= ``summary.inactivity_minutes`` (5)  per user + conversation (seed 002); every
            since the last USER message AND >=    new user message restarts the timer; the
            ``summary.min_messages`` (5) messages  count drops by what the job covered
            since the last summary
micro       the conversation silent for           per user + conversation (seed 003); needs
            ``micro.silence_minutes``; or          new messages since the last micro job (and
            ``end_session()``; or its estimated    a user message among them, for silence)
            tokens since the last micro >=
            ``micro.context_pressure`` x
            ``model.n_ctx``
cycle       the local time ``cycle.schedule``      per user (seed 001); schedule fires at most
            (03:00) is crossed, once per day; or   once per local day, also when the app was
            ``cycle.unprocessed_turns`` (200)      closed over 03:00 (catch-up at the next
            unprocessed turns; or ``request()``    tick); "" disables the schedule
==========  ====================================  ============================================

Why summaries (and micro-reflections) are per user + conversation rather than per user:
seed 002 summarises "the current context", which is one conversation's working context;
a person may keep several conversations open (different clients, characters, projects),
and a message in one of them says nothing about whether another one has paused. Mixing
them would summarise unrelated contexts together and let chatter in one conversation
postpone the summary of another forever. Batches and cycles work on a user's whole memory,
so they are per user.

While a job of a trigger is queued or running, that trigger does not queue another (the
decision says so). When a job finishes the engine hears it from the queue: ``done`` resets
the trigger's counters by what the job covered (``Job.meta``); ``failed``/``cancelled``
leave them, and the trigger fires again only once a new turn arrives (so a broken model
does not loop every tick). Turns that arrive while a batch runs stay counted.

Decisions: every evaluation that fires, and every evaluation whose outcome changed since
the last one recorded for that trigger (a tick every second would otherwise drown the list),
becomes a ``TriggerDecision``: logged (fired at INFO, not fired at DEBUG), appended to a
bounded in-memory list (``recent_decisions()``), kept per user in ``trigger_state.json``
(last 50, so ``curator status`` in another process can show them), and emitted on the bus
as ``"trigger.decision"`` with ``TriggerDecision.to_dict()`` as data.

State: ``Users/<u>/Logs/reflector/trigger_state.json`` (counters per conversation, cycle
schedule, last turn seen, recent decisions), written atomically through
``curator.atomic.write_json_state`` only when it changed; a corrupt file is kept aside and
the backup or defaults restored with a warning (``TriggerEngine.warnings``). The batch
counters live in ``signal_state.json`` (``curator.signals``), exactly as the seed lays out.

Wiring (the engine / CLI)::

    engine = TriggerEngine(vault_root, settings, clock=SystemClock(), events=bus)
    engine.queue.requeue_interrupted()           # once, in the process that owns the queue
    engine.on_turns(user_id, new_indexed_turns)  # after the index stored new turns
    engine.tick()                                # on a timer, e.g. every 5-15 seconds
    engine.end_session(user_id, conversation)    # a client reported the session closed
    engine.request("cycle", user_id, prompt="...")   # manual request (GUI button / CLI)
    engine.status(user_id).lines                 # "batch: 7/10 turns, urgency 3.5/5.0", ...
    engine.recent_decisions(user_id)
    # The reflection worker: job = engine.queue.claim(); ...; engine.queue.mark_done(job.id)
    # (or mark_failed / cancel). Counters reset by themselves when the job is done.

Threading contract: all public methods take one re-entrant lock, so the watcher thread, a
timer thread and the model worker (through queue callbacks) may call in concurrently.
Events are emitted on the calling thread.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from datetime import date, datetime, time, timedelta, tzinfo
from pathlib import Path
from typing import Any

from curator.atomic import quarantine, read_json_state, write_json_state
from curator.clock import Clock, SystemClock
from curator.events import EventBus
from curator.jobs import (
    FINISHED_STATUSES,
    JOB_KINDS,
    PRIORITY_MANUAL,
    PRIORITY_NORMAL,
    Job,
    JobQueue,
)
from curator.settings import Settings
from curator.signals import SignalAccumulator
from curator.turns import IndexedTurn
from curator.vault_paths import UserPaths, VaultPaths

log = logging.getLogger(__name__)

DECISION_EVENT = "trigger.decision"
_STATE_VERSION = 1
_PERSISTED_DECISIONS = 50
_MAX_CONVERSATIONS = 500
_STATUS_CONVERSATIONS = 5
_SCHEDULE_RE = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*$")


def estimate_tokens(text: str) -> int:
    """A model-free token estimate (about four characters per token for English)."""
    return max(1, math.ceil(len(text) / 4)) if text else 0


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


def parse_schedule(value: str) -> time | None:
    """``"03:00"`` -> 03:00; ``""`` -> ``None`` (disabled); raises ``ValueError`` if malformed."""
    if not value or not value.strip():
        return None
    match = _SCHEDULE_RE.match(value)
    if not match or int(match.group(1)) > 23 or int(match.group(2)) > 59:
        raise ValueError(f"cycle.schedule must be HH:MM (24 h) or empty, got {value!r}")
    return time(int(match.group(1)), int(match.group(2)))


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


@dataclass
class ConversationState:
    """Counters of one conversation for the summary and micro triggers."""

    last_message_at: float = 0.0
    last_user_message_at: float = 0.0
    last_turn: int = 0
    messages_since_summary: int = 0
    summary_from_turn: int = 0
    last_summary_at: float = 0.0
    messages_since_micro: int = 0
    user_messages_since_micro: int = 0
    tokens_since_micro: int = 0
    micro_from_turn: int = 0
    last_micro_at: float = 0.0

    @property
    def idle(self) -> bool:
        """Nothing new since the last summary and micro-reflection."""
        return self.messages_since_summary == 0 and self.messages_since_micro == 0


@dataclass
class CycleState:
    """Counters of the consolidation cycle."""

    unprocessed_turns: int = 0
    from_turn: int = 0
    last_cycle_at: float = 0.0
    last_schedule_check: float = 0.0
    last_scheduled_date: str = ""


@dataclass
class UserTriggerState:
    """Everything ``trigger_state.json`` holds for one user."""

    last_turn: int = 0
    conversations: dict[str, ConversationState] = field(default_factory=dict)
    cycle: CycleState = field(default_factory=CycleState)
    suppressed: dict[str, int] = field(default_factory=dict)
    recent_decisions: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": _STATE_VERSION,
            "last_turn": self.last_turn,
            "conversations": {k: asdict(v) for k, v in self.conversations.items()},
            "cycle": asdict(self.cycle),
            "suppressed": dict(self.suppressed),
            "recent_decisions": list(self.recent_decisions[-_PERSISTED_DECISIONS:]),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> UserTriggerState:
        """Rebuild from ``to_dict`` output; raises ``(TypeError, ValueError)`` on bad data."""
        conv_names = {f.name for f in fields(ConversationState)}
        cycle_names = {f.name for f in fields(CycleState)}
        conversations = {
            str(k): ConversationState(**{n: v for n, v in dict(v).items() if n in conv_names})
            for k, v in dict(data.get("conversations") or {}).items()
        }
        cycle_raw = dict(data.get("cycle") or {})
        return cls(
            last_turn=int(data.get("last_turn", 0)),
            conversations=conversations,
            cycle=CycleState(**{n: v for n, v in cycle_raw.items() if n in cycle_names}),
            suppressed={str(k): int(v) for k, v in dict(data.get("suppressed") or {}).items()},
            recent_decisions=[dict(d) for d in data.get("recent_decisions") or []],
        )


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


class _User:
    """In-memory side of one user: paths, accumulator, trigger state, last signatures."""

    def __init__(self, user_id: str, paths: UserPaths, acc: SignalAccumulator,
                 state: UserTriggerState, written: dict[str, Any] | None) -> None:
        self.id = user_id
        self.paths = paths
        self.acc = acc
        self.state = state
        self.written = written
        self.signatures: dict[tuple[str, str | None], tuple[Any, ...]] = {}

    def conversation(self, name: str) -> ConversationState:
        return self.state.conversations.setdefault(name, ConversationState())


class TriggerEngine:
    """Decides when batch, summary, micro and cycle jobs are due (see the module docstring)."""

    def __init__(
        self,
        vault: VaultPaths | Path,
        settings: Settings | None = None,
        *,
        clock: Clock | None = None,
        queue: JobQueue | None = None,
        events: EventBus | None = None,
        tz: tzinfo | None = None,
        token_counter: Callable[[str], int] | None = None,
        max_decisions: int = 200,
    ) -> None:
        """Load every known user's trigger state and start listening to the job queue.

        Args:
            vault: The vault (its root folder or ``VaultPaths``).
            settings: Thresholds; defaults when ``None``.
            clock: Time source (``ManualClock`` in tests).
            queue: The job queue; by default ``<vault>/Logs/jobs.json``.
            events: Bus for ``trigger.decision`` events (and the default queue's events).
            tz: Time zone of the cycle schedule; ``None`` is the system's local time.
            token_counter: Tokens of a message for context pressure; ``None`` estimates
                about four characters per token (pass the model tokenizer when loaded).
            max_decisions: Size of the in-memory recent-decisions list.
        """
        self.paths = vault if isinstance(vault, VaultPaths) else VaultPaths(Path(vault))
        self.settings = settings or Settings()
        self.clock: Clock = clock or SystemClock()
        self.events = events
        self.tz = tz
        self.count_tokens = token_counter or estimate_tokens
        self.queue = queue or JobQueue.for_vault(self.paths, clock=self.clock, events=events)
        self.warnings: list[str] = []
        self._lock = threading.RLock()
        self._users: dict[str, _User] = {}
        self._decisions: deque[TriggerDecision] = deque(maxlen=max_decisions)
        loaded: list[TriggerDecision] = []
        for user_id in self.paths.user_ids():
            user_paths = self.paths.user(user_id)
            if user_paths.trigger_state.exists() or user_paths.signal_state.exists():
                user = self._user(user_id)
                loaded.extend(self._restore_decisions(user))
        self._decisions.extend(sorted(loaded, key=lambda d: d.timestamp))
        self._unsubscribe = self.queue.subscribe(self._on_job_changed)

    # ---- Public API

    def close(self) -> None:
        """Stop listening to the job queue (state is already on disk)."""
        self._unsubscribe()

    def users(self) -> list[str]:
        """Users this engine has state for."""
        with self._lock:
            return sorted(self._users)

    def update_settings(self, settings: Settings) -> None:
        """Use new thresholds from now on (the settings pane changed them)."""
        with self._lock:
            self.settings = settings
            for user in self._users.values():
                user.acc.settings = settings

    def on_turns(self, user_id: str, turns: Sequence[IndexedTurn]) -> list[TriggerDecision]:
        """Count new turns of ``user_id`` and fire what is due.

        Turns already seen (number <= the last one seen) and turns that are not ``active``
        are ignored, so a re-scan that reports old turns again is harmless. Batch, context
        pressure and the unprocessed-turns cycle are checked after each turn, so a job's turn
        range ends at the turn that made it due.

        Returns:
            The decisions recorded by this call.
        """
        with self._lock:
            user = self._user(user_id)
            now = self.clock.now()
            decisions: list[TriggerDecision] = []
            fresh: dict[int, IndexedTurn] = {}
            for turn in turns:
                if turn.number > user.state.last_turn and turn.status == "active":
                    fresh.setdefault(turn.number, turn)
            for number in sorted(fresh):
                turn = fresh[number]
                self._count_turn(user, turn, now)
                decisions += self._eval_batch(user, now, record_misses=False)
                decisions += self._eval_micro(user, turn.conversation, now, record_misses=False,
                                              pressure_only=True)
                decisions += self._eval_cycle_threshold(user, now, record_misses=False)
            if fresh:
                user.acc.save()
            decisions += self._evaluate(user, now)
            self._save(user)
            return decisions

    def tick(self) -> list[TriggerDecision]:
        """Check the time-based triggers of every user (inactivity, silence, schedule).

        Call it on a timer; every few seconds is plenty. Returns the decisions recorded.
        """
        with self._lock:
            now = self.clock.now()
            decisions: list[TriggerDecision] = []
            for user in list(self._users.values()):
                decisions += self._eval_schedule(user, now)
                decisions += self._evaluate(user, now)
                self._save(user)
            return decisions

    def end_session(self, user_id: str, conversation: str) -> TriggerDecision:
        """A session ended explicitly: queue a micro-reflection if there is anything new."""
        with self._lock:
            user = self._user(user_id)
            now = self.clock.now()
            conv = user.state.conversations.get(conversation)
            if conv is None or conv.messages_since_micro == 0:
                decision = self._record(user, "micro", conversation, False, "nothing_new",
                                        "micro: session ended but no new messages since the "
                                        "last micro-reflection", now=now)
            else:
                decision = self._fire_micro(user, conversation, conv, now, "session_end",
                                            "micro: the session ended")
            self._save(user)
            return decision

    def request(
        self,
        job_kind: str,
        user_id: str,
        prompt: str | None = None,
        priority: int = PRIORITY_MANUAL,
        *,
        conversation: str | None = None,
    ) -> Job:
        """Queue a job because a person asked for it (manual trigger).

        Args:
            job_kind: ``batch`` | ``micro`` | ``summary`` | ``cycle``.
            user_id: Whose memories.
            prompt: Optional custom instruction for the reflection.
            priority: Defaults to ``PRIORITY_MANUAL`` (runs before triggered jobs).
            conversation: For ``summary``/``micro``; defaults to the user's most recently
                active conversation.

        Returns:
            The queued job, or the identical pending job it was merged into (raised to
            ``priority``).
        """
        if job_kind not in JOB_KINDS:
            raise ValueError(f"unknown job kind {job_kind!r}; expected {', '.join(JOB_KINDS)}")
        with self._lock:
            user = self._user(user_id)
            now = self.clock.now()
            turn_range: tuple[int, int] | None = None
            meta: dict[str, Any] = {}
            if job_kind == "batch":
                turn_range, meta = self._batch_scope(user)
                conversation = None
            elif job_kind == "cycle":
                turn_range, meta = self._cycle_scope(user)
                conversation = None
            else:
                if conversation is None:
                    conversation = self._latest_conversation(user)
                conv = user.state.conversations.get(conversation or "")
                if conv is not None:
                    turn_range, meta = self._conversation_scope(job_kind, conv)
            why = "manual request" + (f" with prompt {prompt[:60]!r}" if prompt else "")
            job, created = self.queue.enqueue(
                job_kind, user_id, reason=why, trigger="manual", conversation=conversation,
                priority=priority, turn_range=turn_range, prompt=prompt, manual=True, meta=meta,
            )
            if not created:
                why = f"{why}; merged into pending {job.id}"
            self._record(user, job_kind, conversation, True, "manual", f"{job_kind}: {why}",
                         now=now, job_id=job.id)
            self._save(user)
            return job

    def recent_decisions(
        self, user_id: str | None = None, limit: int = 50
    ) -> list[TriggerDecision]:
        """The last ``limit`` recorded decisions (of one user or all), oldest first."""
        with self._lock:
            items = [d for d in self._decisions if user_id is None or d.user_id == user_id]
            return items[-limit:] if limit else items

    def status(self, user_id: str) -> TriggerStatus:
        """What each trigger of ``user_id`` counts and what fires next (read-only)."""
        with self._lock:
            user = self._user(user_id)
            now = self.clock.now()
            s = self.settings
            lines: list[str] = []
            upcoming: list[str] = []
            acc = user.acc.state
            turn_thr = int(s["batch.turn_threshold"])
            urg_thr = float(s["batch.urgency_threshold"])
            batch_pending = self.queue.pending(kind="batch", user_id=user_id)
            line = (f"batch: {acc.turns_since_last_batch}/{turn_thr} turns, "
                    f"urgency {acc.urgency_score:.1f}/{urg_thr:.1f}")
            if batch_pending:
                line += f" ({batch_pending[0].id} {batch_pending[0].status})"
            lines.append(line)
            if batch_pending:
                upcoming.append(f"batch: {batch_pending[0].id} is {batch_pending[0].status}")
            elif user.acc.should_trigger():
                upcoming.append("batch: due now")
            else:
                more = turn_thr - acc.turns_since_last_batch
                upcoming.append(f"batch: after {more} more turn{'s' if more != 1 else ''}, "
                                f"or sooner if urgency exceeds {urg_thr:.1f}")

            active = sorted(
                ((name, c) for name, c in user.state.conversations.items() if not c.idle),
                key=lambda item: item[1].last_message_at, reverse=True,
            )
            conv_data: list[dict[str, Any]] = []
            for name, conv in active[:_STATUS_CONVERSATIONS]:
                conv_lines, conv_next, data = self._conversation_status(user, name, conv, now)
                lines.extend(conv_lines)
                upcoming.extend(conv_next)
                conv_data.append(data)
            if len(active) > _STATUS_CONVERSATIONS:
                lines.append(f"(+{len(active) - _STATUS_CONVERSATIONS} more active conversations)")

            cycle = user.state.cycle
            cycle_thr = int(s["cycle.unprocessed_turns"])
            line = f"cycle: {cycle.unprocessed_turns}/{cycle_thr} unprocessed turns"
            next_at = self._next_scheduled(now)
            if next_at is not None:
                wait = format_duration(next_at.timestamp() - now)
                line += f", next scheduled {next_at:%Y-%m-%d %H:%M} (in {wait})"
            else:
                line += ", schedule off"
            lines.append(line)
            cycle_pending = self.queue.pending(kind="cycle", user_id=user_id)
            if cycle_pending:
                upcoming.append(f"cycle: {cycle_pending[0].id} is {cycle_pending[0].status}")
            else:
                more = max(0, cycle_thr - cycle.unprocessed_turns)
                when = f"at {next_at:%Y-%m-%d %H:%M}, or " if next_at is not None else ""
                upcoming.append(f"cycle: {when}after {more} more unprocessed turns")

            jobs = self.queue.pending(user_id=user_id)
            queued = sum(1 for j in jobs if j.status == "queued")
            lines.append(f"jobs: {queued} queued, {len(jobs) - queued} running")
            data = {
                "batch": {
                    "turns": acc.turns_since_last_batch, "turn_threshold": turn_thr,
                    "urgency": acc.urgency_score, "urgency_threshold": urg_thr,
                    "last_batch_turn": acc.last_batch_turn, "due": user.acc.should_trigger(),
                },
                "conversations": conv_data,
                "cycle": {
                    "unprocessed_turns": cycle.unprocessed_turns, "threshold": cycle_thr,
                    "next_scheduled": next_at.isoformat() if next_at is not None else None,
                    "last_cycle_at": cycle.last_cycle_at or None,
                },
                "pending_jobs": [j.to_dict() for j in jobs],
                "last_turn": user.state.last_turn,
            }
            return TriggerStatus(user_id, tuple(lines), tuple(upcoming), data)

    # ---- Counting

    def _count_turn(self, user: _User, turn: IndexedTurn, now: float) -> None:
        state = user.state
        state.last_turn = turn.number
        user.acc.update(turn, save=False)
        conv = user.conversation(turn.conversation)
        # The message's own time when plausible: a turn found late still counts from when
        # it was written; a clock ahead of ours is clipped to now.
        stamp = turn.timestamp if 0 < turn.timestamp <= now else now
        conv.last_message_at = max(conv.last_message_at, stamp)
        if turn.role == "user":
            conv.last_user_message_at = max(conv.last_user_message_at, stamp)
            conv.user_messages_since_micro += 1
        conv.last_turn = turn.number
        conv.messages_since_summary += 1
        conv.summary_from_turn = conv.summary_from_turn or turn.number
        conv.messages_since_micro += 1
        conv.micro_from_turn = conv.micro_from_turn or turn.number
        conv.tokens_since_micro += self.count_tokens(turn.text)
        state.cycle.unprocessed_turns += 1
        state.cycle.from_turn = state.cycle.from_turn or turn.number

    # ---- Evaluation

    def _evaluate(self, user: _User, now: float) -> list[TriggerDecision]:
        decisions = self._eval_batch(user, now)
        for name in list(user.state.conversations):
            decisions += self._eval_summary(user, name, now)
            decisions += self._eval_micro(user, name, now)
        decisions += self._eval_cycle_threshold(user, now)
        return decisions

    def _blocked(self, user: _User, kind: str, conversation: str | None, last_turn: int,
                 counts: str, now: float, record_misses: bool) -> list[TriggerDecision] | None:
        """The "not now" decision when a job of this trigger is pending or just failed."""
        pending = self.queue.pending(kind=kind, user_id=user.id, conversation=conversation,
                                     any_conversation=conversation is None)
        if pending:
            job = pending[0]
            return self._miss(user, kind, conversation, "pending",
                              f"{kind}: due ({counts}) but {job.id} is still {job.status}",
                              ("pending", job.id), now, record_misses)
        key = kind if conversation is None else f"{kind}:{conversation}"
        if user.state.suppressed.get(key, -1) >= last_turn:
            return self._miss(user, kind, conversation, "after_failure",
                              f"{kind}: due ({counts}) but the last job failed or was "
                              "cancelled; waiting for a new turn",
                              ("after_failure", last_turn), now, record_misses)
        return None

    def _eval_batch(self, user: _User, now: float, record_misses: bool = True
                    ) -> list[TriggerDecision]:
        acc = user.acc.state
        turn_thr = int(self.settings["batch.turn_threshold"])
        urg_thr = float(self.settings["batch.urgency_threshold"])
        counts = (f"{acc.turns_since_last_batch}/{turn_thr} turns, "
                  f"urgency {acc.urgency_score:.1f}/{urg_thr:.1f}")
        code = user.acc.trigger_reason()
        if code is None:
            return self._miss(user, "batch", None, "below_threshold", f"batch: not yet, {counts}",
                              ("below", acc.turns_since_last_batch, acc.urgency_score), now,
                              record_misses)
        blocked = self._blocked(user, "batch", None, user.state.last_turn, counts, now,
                                record_misses)
        if blocked is not None:
            return blocked
        turn_range, meta = self._batch_scope(user)
        if code == "turn_count":
            why = f"batch: {acc.turns_since_last_batch}/{turn_thr} turns since the last batch"
        else:
            why = f"batch: urgency {acc.urgency_score:.1f} > {urg_thr:.1f}"
        return [self._fire(user, "batch", None, code, why, turn_range, meta, now)]

    def _eval_summary(self, user: _User, name: str, now: float) -> list[TriggerDecision]:
        conv = user.state.conversations[name]
        if conv.messages_since_summary == 0:
            return []
        min_msgs = int(self.settings["summary.min_messages"])
        limit = float(self.settings["summary.inactivity_minutes"]) * 60.0
        inactive = max(0.0, now - (conv.last_user_message_at or conv.last_message_at))
        counts = (f"{conv.messages_since_summary}/{min_msgs} messages, "
                  f"inactive {format_duration(inactive)} of {format_duration(limit)}")
        enough = conv.messages_since_summary >= min_msgs
        quiet = inactive >= limit
        if not (enough and quiet):
            return self._miss(user, "summary", name, "below_threshold",
                              f"summary [{_label(name)}]: not yet, {counts}",
                              ("below", enough, quiet), now, True)
        blocked = self._blocked(user, "summary", name, conv.last_turn, counts, now, True)
        if blocked is not None:
            return blocked
        turn_range, meta = self._conversation_scope("summary", conv)
        why = (f"summary [{_label(name)}]: {conv.messages_since_summary} messages since the last "
               f"summary and no user message for {format_duration(inactive)} "
               f"(>= {format_duration(limit)})")
        return [self._fire(user, "summary", name, "inactivity", why, turn_range, meta, now)]

    def _eval_micro(self, user: _User, name: str, now: float, record_misses: bool = True,
                    pressure_only: bool = False) -> list[TriggerDecision]:
        conv = user.state.conversations.get(name)
        if conv is None or conv.messages_since_micro == 0:
            return []
        silence_limit = float(self.settings["micro.silence_minutes"]) * 60.0
        budget = float(self.settings["micro.context_pressure"]) * int(self.settings["model.n_ctx"])
        silent = max(0.0, now - conv.last_message_at)
        counts = (f"silent {format_duration(silent)} of {format_duration(silence_limit)}, "
                  f"~{conv.tokens_since_micro}/{int(budget)} tokens")
        pressure = conv.tokens_since_micro >= budget
        quiet = (not pressure_only and silent >= silence_limit
                 and conv.user_messages_since_micro > 0)
        if not (pressure or quiet):
            if pressure_only:
                return []
            if silent >= silence_limit:
                # Silent long enough, but only the other side spoke: nothing of the user's
                # to reflect on yet.
                return self._miss(user, "micro", name, "no_user_message",
                                  f"micro [{_label(name)}]: silent, but no user message since "
                                  f"the last micro-reflection ({counts})",
                                  ("no_user",), now, record_misses)
            return self._miss(user, "micro", name, "below_threshold",
                              f"micro [{_label(name)}]: not yet, {counts}",
                              ("below",), now, record_misses)
        blocked = self._blocked(user, "micro", name, conv.last_turn, counts, now, record_misses)
        if blocked is not None:
            return blocked
        if pressure:
            code = "context_pressure"
            why = (f"micro [{_label(name)}]: ~{conv.tokens_since_micro} tokens >= "
                   f"{self.settings['micro.context_pressure']:.0%} of the "
                   f"{int(self.settings['model.n_ctx'])}-token context")
        else:
            code = "silence"
            why = (f"micro [{_label(name)}]: silent for {format_duration(silent)} "
                   f"(>= {format_duration(silence_limit)})")
        return [self._fire_micro(user, name, conv, now, code, why)]

    def _fire_micro(self, user: _User, name: str, conv: ConversationState, now: float,
                    code: str, why: str) -> TriggerDecision:
        pending = self.queue.pending(kind="micro", user_id=user.id, conversation=name)
        if pending:
            return self._record(user, "micro", name, False, "pending",
                                f"{why}, but {pending[0].id} is still {pending[0].status}",
                                now=now)
        turn_range, meta = self._conversation_scope("micro", conv)
        return self._fire(user, "micro", name, code, why, turn_range, meta, now)

    def _eval_cycle_threshold(self, user: _User, now: float, record_misses: bool = True
                              ) -> list[TriggerDecision]:
        cycle = user.state.cycle
        threshold = int(self.settings["cycle.unprocessed_turns"])
        counts = f"{cycle.unprocessed_turns}/{threshold} unprocessed turns"
        if cycle.unprocessed_turns < threshold:
            # Below the threshold is the normal state; recording it once per crossing of
            # zero is enough (the count itself is in status()).
            return self._miss(user, "cycle", None, "below_threshold", f"cycle: not yet, {counts}",
                              ("below",), now, record_misses)
        blocked = self._blocked(user, "cycle", None, user.state.last_turn, counts, now,
                                record_misses)
        if blocked is not None:
            return blocked
        turn_range, meta = self._cycle_scope(user)
        return [self._fire(user, "cycle", None, "unprocessed", f"cycle: {counts}",
                           turn_range, meta, now)]

    def _eval_schedule(self, user: _User, now: float) -> list[TriggerDecision]:
        try:
            at = parse_schedule(str(self.settings["cycle.schedule"]))
        except ValueError as exc:
            return self._miss(user, "cycle", None, "bad_schedule", f"cycle: {exc}",
                              ("bad_schedule",), now, True)
        cycle = user.state.cycle
        if at is None:
            return []
        if cycle.last_schedule_check <= 0 or now < cycle.last_schedule_check:
            # First tick ever (or the clock went back): start watching from now.
            cycle.last_schedule_check = now
            return []
        due = self._latest_scheduled(at, cycle.last_schedule_check, now)
        cycle.last_schedule_check = now
        if due is None:
            return []
        day = due.date().isoformat()
        if cycle.last_scheduled_date == day:
            return []
        cycle.last_scheduled_date = day
        counts = f"{cycle.unprocessed_turns} unprocessed turns"
        pending = self.queue.pending(kind="cycle", user_id=user.id)
        if pending:
            return [self._record(user, "cycle", None, False, "pending",
                                 f"cycle: scheduled {at:%H:%M} passed ({counts}) but "
                                 f"{pending[0].id} is still {pending[0].status}", now=now)]
        turn_range, meta = self._cycle_scope(user)
        why = f"cycle: scheduled time {at:%H:%M} of {day} reached ({counts})"
        return [self._fire(user, "cycle", None, "schedule", why, turn_range, meta, now)]

    # ---- Scopes (what a job covers; kept in Job.meta to reset counters when it is done)

    def _batch_scope(self, user: _User) -> tuple[tuple[int, int] | None, dict[str, Any]]:
        acc = user.acc.state
        first = acc.last_batch_turn + 1
        cap = int(self.settings["batch.max_turns"])
        last = min(user.state.last_turn, acc.last_batch_turn + cap)
        meta = {"turns": acc.turns_since_last_batch, "urgency": acc.urgency_score}
        return ((first, last) if last >= first else None), meta

    def _cycle_scope(self, user: _User) -> tuple[tuple[int, int] | None, dict[str, Any]]:
        cycle = user.state.cycle
        meta = {"turns": cycle.unprocessed_turns}
        if cycle.unprocessed_turns and cycle.from_turn:
            return (cycle.from_turn, user.state.last_turn), meta
        return None, meta

    @staticmethod
    def _conversation_scope(kind: str, conv: ConversationState
                            ) -> tuple[tuple[int, int] | None, dict[str, Any]]:
        if kind == "summary":
            first, count = conv.summary_from_turn, conv.messages_since_summary
            meta: dict[str, Any] = {"messages": count}
        else:
            first, count = conv.micro_from_turn, conv.messages_since_micro
            meta = {"messages": count, "user_messages": conv.user_messages_since_micro,
                    "tokens": conv.tokens_since_micro}
        turn_range = (first, conv.last_turn) if count and first else None
        return turn_range, meta

    @staticmethod
    def _latest_conversation(user: _User) -> str | None:
        if not user.state.conversations:
            return None
        return max(user.state.conversations.items(), key=lambda kv: kv[1].last_message_at)[0]

    # ---- Job completion (called by the queue, possibly on the worker thread)

    def _on_job_changed(self, job: Job, old_status: str | None) -> None:
        if job.status not in FINISHED_STATUSES:
            return
        with self._lock:
            user = self._user(job.user_id)
            if job.status == "done":
                self._complete(user, job)
            elif not job.manual:
                key = job.kind if job.conversation is None else f"{job.kind}:{job.conversation}"
                conv = user.state.conversations.get(job.conversation or "")
                last = conv.last_turn if (conv is not None and job.conversation is not None) \
                    else user.state.last_turn
                user.state.suppressed[key] = last
                log.info("%s of %s %s; its trigger waits for a new turn", job.id, job.user_id,
                         job.status)
            user.signatures.pop((job.kind, job.conversation), None)
            self._save(user)

    def _complete(self, user: _User, job: Job) -> None:
        now = self.clock.now()
        meta = job.meta
        end = job.turn_range[1] if job.turn_range else None
        if job.kind == "batch":
            user.acc.reset_after_batch(end if end is not None else user.acc.state.last_batch_turn,
                                       user.state.last_turn)
            user.state.suppressed.pop("batch", None)
        elif job.kind == "cycle":
            cycle = user.state.cycle
            cycle.unprocessed_turns = max(0, cycle.unprocessed_turns - int(meta.get("turns", 0)))
            cycle.from_turn = (end + 1) if (cycle.unprocessed_turns and end) else 0
            cycle.last_cycle_at = now
            user.state.suppressed.pop("cycle", None)
        else:
            conv = user.state.conversations.get(job.conversation or "")
            if conv is None:
                return
            if job.kind == "summary":
                conv.messages_since_summary = max(
                    0, conv.messages_since_summary - int(meta.get("messages", 0)))
                conv.summary_from_turn = (end + 1) if (conv.messages_since_summary and end) else 0
                conv.last_summary_at = now
            else:
                conv.messages_since_micro = max(
                    0, conv.messages_since_micro - int(meta.get("messages", 0)))
                conv.user_messages_since_micro = max(
                    0, conv.user_messages_since_micro - int(meta.get("user_messages", 0)))
                conv.tokens_since_micro = max(
                    0, conv.tokens_since_micro - int(meta.get("tokens", 0)))
                conv.micro_from_turn = (end + 1) if (conv.messages_since_micro and end) else 0
                conv.last_micro_at = now
            user.state.suppressed.pop(f"{job.kind}:{job.conversation}", None)
        log.info("%s (%s) of %s done; its counters were reset", job.id, job.kind, job.user_id)

    # ---- Recording

    def _fire(self, user: _User, kind: str, conversation: str | None, code: str, why: str,
              turn_range: tuple[int, int] | None, meta: dict[str, Any], now: float
              ) -> TriggerDecision:
        job, created = self.queue.enqueue(
            kind, user.id, reason=why, trigger=code, conversation=conversation,
            priority=PRIORITY_NORMAL, turn_range=turn_range, meta=meta,
        )
        if not created:
            return self._record(user, kind, conversation, False, "pending",
                                f"{why}, but identical {job.id} is still {job.status}",
                                now=now, job_id=job.id)
        return self._record(user, kind, conversation, True, code, why, now=now, job_id=job.id)

    def _miss(self, user: _User, kind: str, conversation: str | None, code: str, why: str,
              signature: tuple[Any, ...], now: float, record: bool) -> list[TriggerDecision]:
        if not record or user.signatures.get((kind, conversation)) == (code, *signature):
            return []
        decision = self._record(user, kind, conversation, False, code, why, now=now)
        user.signatures[(kind, conversation)] = (code, *signature)
        return [decision]

    def _record(self, user: _User, kind: str, conversation: str | None, fired: bool, code: str,
                why: str, *, now: float, job_id: str | None = None) -> TriggerDecision:
        decision = TriggerDecision(now, user.id, kind, fired, code, why, conversation, job_id)
        if fired:
            user.signatures.pop((kind, conversation), None)
            log.info("trigger fired: %s", decision.text())
        else:
            log.debug("trigger decision: %s", decision.text())
        self._decisions.append(decision)
        user.state.recent_decisions.append(decision.to_dict())
        del user.state.recent_decisions[:-_PERSISTED_DECISIONS]
        if self.events is not None:
            self.events.emit(DECISION_EVENT, **decision.to_dict())
        return decision

    # ---- Status helpers

    def _conversation_status(self, user: _User, name: str, conv: ConversationState, now: float
                             ) -> tuple[list[str], list[str], dict[str, Any]]:
        s = self.settings
        min_msgs = int(s["summary.min_messages"])
        limit = float(s["summary.inactivity_minutes"]) * 60.0
        inactive = max(0.0, now - (conv.last_user_message_at or conv.last_message_at))
        silence_limit = float(s["micro.silence_minutes"]) * 60.0
        silent = max(0.0, now - conv.last_message_at)
        budget = int(float(s["micro.context_pressure"]) * int(s["model.n_ctx"]))
        label = _label(name)
        lines = [
            f"summary [{label}]: {conv.messages_since_summary}/{min_msgs} messages, "
            f"inactive {format_duration(inactive)} of {format_duration(limit)}",
            f"micro [{label}]: silent {format_duration(silent)} of "
            f"{format_duration(silence_limit)}, ~{conv.tokens_since_micro}/{budget} tokens",
        ]
        upcoming: list[str] = []
        if self.queue.pending(kind="summary", user_id=user.id, conversation=name):
            upcoming.append(f"summary [{label}]: a job is pending")
        elif conv.messages_since_summary >= min_msgs:
            upcoming.append(f"summary [{label}]: in {format_duration(max(0.0, limit - inactive))} "
                            "if no new user message")
        elif conv.messages_since_summary:
            more = min_msgs - conv.messages_since_summary
            plural = "s" if more != 1 else ""
            upcoming.append(f"summary [{label}]: after {more} more message{plural}"
                            f" and {format_duration(limit)} without a user message")
        if self.queue.pending(kind="micro", user_id=user.id, conversation=name):
            upcoming.append(f"micro [{label}]: a job is pending")
        elif conv.user_messages_since_micro:
            wait = format_duration(max(0.0, silence_limit - silent))
            upcoming.append(f"micro [{label}]: in {wait} of silence, at session end, "
                            "or near the context budget")
        data = {
            "conversation": name,
            "messages_since_summary": conv.messages_since_summary,
            "summary_min_messages": min_msgs,
            "inactive_seconds": inactive,
            "summary_inactivity_seconds": limit,
            "messages_since_micro": conv.messages_since_micro,
            "silent_seconds": silent,
            "micro_silence_seconds": silence_limit,
            "tokens_since_micro": conv.tokens_since_micro,
            "token_budget": budget,
        }
        return lines, upcoming, data

    # ---- Time of day

    def _local(self, timestamp: float) -> datetime:
        if self.tz is not None:
            return datetime.fromtimestamp(timestamp, self.tz)
        return datetime.fromtimestamp(timestamp).astimezone()

    def _at(self, day: date, at: time) -> datetime:
        if self.tz is not None:
            return datetime.combine(day, at, tzinfo=self.tz)
        return datetime.combine(day, at).astimezone()  # naive = system local time

    def _latest_scheduled(self, at: time, after: float, until: float) -> datetime | None:
        """The latest scheduled instant in ``(after, until]``, or ``None``."""
        day = self._local(until).date()
        candidate = self._at(day, at)
        if candidate.timestamp() > until:
            candidate = self._at(day - timedelta(days=1), at)
        return candidate if candidate.timestamp() > after else None

    def _next_scheduled(self, now: float) -> datetime | None:
        try:
            at = parse_schedule(str(self.settings["cycle.schedule"]))
        except ValueError:
            return None
        if at is None:
            return None
        day = self._local(now).date()
        candidate = self._at(day, at)
        if candidate.timestamp() <= now:
            candidate = self._at(day + timedelta(days=1), at)
        return candidate

    # ---- Persistence

    def _user(self, user_id: str) -> _User:
        user = self._users.get(user_id)
        if user is not None:
            return user
        paths = self.paths.user(user_id)  # validates the id
        acc = SignalAccumulator(paths.signal_state, self.settings, clock=self.clock)
        self.warnings.extend(acc.warnings)
        state, written = self._load_state(paths.trigger_state)
        user = _User(user_id, paths, acc, state, written)
        self._users[user_id] = user
        return user

    def _load_state(self, path: Path) -> tuple[UserTriggerState, dict[str, Any] | None]:
        data, warning = read_json_state(path, None)
        if warning:
            self.warnings.append(warning)
        if data is None:
            return UserTriggerState(), None
        try:
            if not isinstance(data, Mapping):
                raise TypeError("not a JSON object")
            return UserTriggerState.from_dict(data), data
        except (TypeError, ValueError, AttributeError) as exc:
            message = f"trigger state {path} is invalid ({exc}); defaults restored"
            if path.exists():
                message += f", kept aside as {quarantine(path).name}"
            log.warning(message)
            self.warnings.append(message)
            return UserTriggerState(), None

    @staticmethod
    def _restore_decisions(user: _User) -> list[TriggerDecision]:
        restored = []
        for item in user.state.recent_decisions:
            try:
                restored.append(TriggerDecision.from_dict(item))
            except TypeError:
                continue
        return restored

    def _save(self, user: _User) -> None:
        self._prune(user)
        data = user.state.to_dict()
        if data != user.written:  # ticks that change nothing do not touch the disk
            write_json_state(user.paths.trigger_state, data)
            user.written = data

    @staticmethod
    def _prune(user: _User) -> None:
        conversations = user.state.conversations
        if len(conversations) <= _MAX_CONVERSATIONS:
            return
        idle = sorted((c.last_message_at, name) for name, c in conversations.items() if c.idle)
        for _, name in idle[: len(conversations) - _MAX_CONVERSATIONS]:
            del conversations[name]


def _label(conversation: str | None) -> str:
    return conversation if conversation else "(default)"


__all__ = [
    "DECISION_EVENT",
    "ConversationState",
    "CycleState",
    "TriggerDecision",
    "TriggerEngine",
    "TriggerStatus",
    "UserTriggerState",
    "estimate_tokens",
    "format_duration",
    "parse_schedule",
]
