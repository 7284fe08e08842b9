"""When to reflect: the four trigger families of the seeds, code only, on an injected clock.

One ``TriggerEngine`` per vault. It is told about new turns and ticked on a timer, and it
puts jobs on the vault's ``JobQueue`` (``curator.triggers.jobs``) for the reflection engines.

==========  ====================================  ============================================
job kind    fires when (every number a setting)   scope and reset
==========  ====================================  ============================================
batch       ``turns_since_last_batch`` >=         per user (seed 000 §2, ``urgency``);
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

Each family lives in its own module (``batch``, ``summary``, ``micro``, ``cycle``; the
summary module says why summaries and micro-reflections are per conversation); they record
through ``curator.triggers.decisions.TriggerContext``, keep their counters in
``curator.triggers.state`` and describe themselves in ``curator.triggers.status``. This
class only routes turns, ticks and finished jobs to them.

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
``curator.vault.atomic.write_json_state`` only when it changed; a corrupt file is kept aside and
the backup or defaults restored with a warning (``TriggerEngine.warnings``). The batch
counters live in ``signal_state.json`` (``curator.triggers.urgency``), exactly as the seed lays out.

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
import threading
from collections.abc import Callable, Sequence
from datetime import tzinfo
from pathlib import Path

from curator.clock import Clock, SystemClock
from curator.events import EventBus
from curator.sources.turns import IndexedTurn
from curator.triggers.batch import BatchTrigger
from curator.triggers.cycle import CycleTrigger
from curator.triggers.decisions import (
    DECISION_EVENT,
    Scope,
    TriggerContext,
    TriggerDecision,
    estimate_tokens,
)
from curator.triggers.jobs import FINISHED_STATUSES, JOB_KINDS, PRIORITY_MANUAL, Job, JobQueue
from curator.triggers.micro import MicroTrigger
from curator.triggers.state import TriggerUser, load_state, save_state
from curator.triggers.status import TriggerStatus, build_status
from curator.triggers.summary import SummaryTrigger
from curator.triggers.urgency import SignalAccumulator
from curator.vault.paths import VaultPaths
from curator.vault.settings import Settings

log = logging.getLogger(__name__)

# Keys of a turn's extra with which a client says the session (or thread) is over.
_CLOSING_KEYS = frozenset(("thread_closed", "session_end", "closed"))


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
        clock = clock or SystemClock()
        self.queue = queue or JobQueue.for_vault(self.paths, clock=clock, events=events)
        self.ctx = TriggerContext(settings or Settings(), clock, self.queue, events, tz,
                                  token_counter or estimate_tokens, max_decisions)
        self.batch = BatchTrigger(self.ctx)
        self.summary = SummaryTrigger(self.ctx)
        self.micro = MicroTrigger(self.ctx)
        self.cycle = CycleTrigger(self.ctx)
        self.warnings: list[str] = []
        self._lock = threading.RLock()
        self._users: dict[str, TriggerUser] = {}
        # The conversation each (user, source) wrote to last: a new one there ends the old session.
        self._open_conversation: dict[tuple[str, str], str] = {}
        loaded: list[TriggerDecision] = []
        for user_id in self.paths.user_ids():
            user_paths = self.paths.user(user_id)
            if user_paths.trigger_state.exists() or user_paths.signal_state.exists():
                loaded.extend(_restore_decisions(self._user(user_id)))
        self.ctx.decisions.extend(sorted(loaded, key=lambda d: d.timestamp))
        self._unsubscribe = self.queue.subscribe(self._on_job_changed)

    @property
    def settings(self) -> Settings:
        return self.ctx.settings

    @property
    def clock(self) -> Clock:
        return self.ctx.clock

    # ---- Public API

    def close(self) -> None:
        """Stop listening to the job queue (state is already on disk)."""
        self._unsubscribe()

    def users(self) -> list[str]:
        """Users this engine has state for."""
        with self._lock:
            return sorted(self._users)

    def last_batch_turn(self, user_id: str) -> int:
        """The last turn of ``user_id`` a batch reflection covered (0 before the first)."""
        return int(self.accumulator(user_id).state.last_batch_turn)

    def accumulator(self, user_id: str) -> SignalAccumulator:
        """The one urgency accumulator of ``user_id`` (``signal_state.json`` has one owner)."""
        with self._lock:
            return self._user(user_id).acc

    def update_settings(self, settings: Settings) -> None:
        """Use new thresholds from now on (the settings pane changed them)."""
        with self._lock:
            self.ctx.settings = settings
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
        with self._lock, self.ctx.counting():
            user = self._user(user_id)
            with user.acc.held_settings():
                return self._count_turns(user, turns)

    def _count_turns(self, user: TriggerUser, turns: Sequence[IndexedTurn]) -> list[TriggerDecision]:
        now = self.ctx.clock.now()
        decisions: list[TriggerDecision] = []
        fresh: dict[int, IndexedTurn] = {}
        for turn in turns:
            if turn.number > user.state.last_turn and turn.status == "active":
                fresh.setdefault(turn.number, turn)
        for number in sorted(fresh):
            turn = fresh[number]
            self._count_turn(user, turn, now)
            decisions += self._session_ends(user, turn, now)
            decisions += self.batch.evaluate(user, now, record_misses=False)
            decisions += self.micro.evaluate(user, turn.conversation, now,
                                             record_misses=False, pressure_only=True)
            decisions += self.cycle.evaluate(user, now, record_misses=False)
            decisions += self.cycle.on_request_phrase(user, turn, now)
        if fresh:
            user.acc.save()
        decisions += self._evaluate(user, now)
        save_state(user)
        return decisions

    def tick(self) -> list[TriggerDecision]:
        """Check the time-based triggers of every user (inactivity, silence, schedule).

        Call it on a timer; every few seconds is plenty. Returns the decisions recorded.
        """
        with self._lock:
            now = self.ctx.clock.now()
            decisions: list[TriggerDecision] = []
            for user in list(self._users.values()):
                decisions += self.cycle.evaluate_schedule(user, now)
                decisions += self._evaluate(user, now)
                save_state(user)
            return decisions

    def end_session(self, user_id: str, conversation: str) -> TriggerDecision:
        """A session ended explicitly: queue a micro-reflection if there is anything new."""
        with self._lock:
            user = self._user(user_id)
            decision = self.micro.end_session(user, conversation, self.ctx.clock.now())
            self.cycle.on_session_end(user, conversation, self.ctx.clock.now())
            save_state(user)
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
            if job_kind in ("batch", "cycle"):
                conversation = None
            elif conversation is None:
                conversation = user.latest_conversation()
            turn_range, meta = self._scope(user, job_kind, conversation)
            why = "manual request" + (f" with prompt {prompt[:60]!r}" if prompt else "")
            job, created = self.queue.enqueue(
                job_kind, user_id, reason=why, trigger="manual", conversation=conversation,
                priority=priority, turn_range=turn_range, prompt=prompt, manual=True, meta=meta,
            )
            if not created:
                why = f"{why}; merged into pending {job.id}"
            self.ctx.record(user, job_kind, conversation, True, "manual", f"{job_kind}: {why}",
                            now=self.ctx.clock.now(), job_id=job.id)
            save_state(user)
            return job

    def recent_decisions(
        self, user_id: str | None = None, limit: int = 50
    ) -> list[TriggerDecision]:
        """The last ``limit`` recorded decisions (of one user or all), oldest first."""
        with self._lock:
            items = [d for d in self.ctx.decisions if user_id is None or d.user_id == user_id]
            return items[-limit:] if limit else items

    def status(self, user_id: str) -> TriggerStatus:
        """What each trigger of ``user_id`` counts and what fires next (read-only)."""
        with self._lock:
            return build_status(self._user(user_id), self.ctx.clock.now(), self.queue,
                                self.batch, self.summary, self.micro, self.cycle)

    # ---- Counting and evaluation

    def _session_ends(self, user: TriggerUser, turn: IndexedTurn, now: float) -> list[TriggerDecision]:
        """Sessions the adapters' turns show as over: a new conversation began in the same
        source (the old one ended), or the message says its thread was closed. Silence past
        ``micro.silence_minutes`` is the third way and is checked on every tick."""
        ended: list[str] = []
        key = (user.id, turn.source_id)
        previous = self._open_conversation.get(key)
        if previous is not None and previous != turn.conversation:
            ended.append(previous)
        self._open_conversation[key] = turn.conversation
        extra = turn.extra
        # Asked for every turn; nearly none carries a closing key (one set test for the three).
        if extra and not _CLOSING_KEYS.isdisjoint(extra) \
                and any(extra.get(k) in (True, "true", "closed", 1) for k in _CLOSING_KEYS):
            ended.append(turn.conversation)
        if not ended:
            return []
        decisions = [self.micro.end_session(user, name, now) for name in ended]
        return decisions + [d for name in ended for d in self.cycle.on_session_end(user, name, now)]

    def _count_turn(self, user: TriggerUser, turn: IndexedTurn, now: float) -> None:
        state = user.state
        state.last_turn = turn.number
        user.acc.count(turn)
        conv = user.conversation(turn.conversation)
        # The message's own time when plausible: a turn found late still counts from when
        # it was written; a clock ahead of ours is clipped to now.
        stamp = turn.timestamp if 0 < turn.timestamp <= now else now
        conv.last_message_at = max(conv.last_message_at, stamp)
        if turn.role == "user":
            conv.last_user_message_at = max(conv.last_user_message_at, stamp)
            conv.user_messages_since_micro += 1
            conv.user_messages_since_summary += 1
        conv.last_turn = turn.number
        conv.messages += 1
        conv.messages_since_summary += 1
        conv.summary_from_turn = conv.summary_from_turn or turn.number
        conv.messages_since_micro += 1
        conv.micro_from_turn = conv.micro_from_turn or turn.number
        conv.tokens_since_micro += self.ctx.count_tokens(turn.text)
        state.cycle.unprocessed_turns += 1
        state.cycle.from_turn = state.cycle.from_turn or turn.number

    def _evaluate(self, user: TriggerUser, now: float) -> list[TriggerDecision]:
        decisions = self.batch.evaluate(user, now)
        for name in list(user.state.conversations):
            decisions += self.summary.evaluate(user, name, now)
            decisions += self.micro.evaluate(user, name, now)
        decisions += self.cycle.evaluate(user, now)
        return decisions

    def _scope(self, user: TriggerUser, kind: str, conversation: str | None) -> Scope:
        if kind == "batch":
            return self.batch.scope(user)
        if kind == "cycle":
            return self.cycle.scope(user)
        conv = user.state.conversations.get(conversation or "")
        if conv is None:
            return None, {}
        return self.summary.scope(conv) if kind == "summary" else self.micro.scope(conv)

    # ---- Job completion (called by the queue, possibly on the worker thread)

    def _on_job_changed(self, job: Job, old_status: str | None) -> None:
        if job.status not in FINISHED_STATUSES:
            return
        with self._lock:
            user = self._user(job.user_id)
            if job.status == "done":
                self._complete(user, job)
            elif not job.manual:
                # Failed or cancelled: wait for a new turn, so a broken model does not loop
                # every tick.
                conv = user.state.conversations.get(job.conversation or "")
                last = conv.last_turn if (conv is not None and job.conversation is not None) \
                    else user.state.last_turn
                user.state.suppressed[user.suppression_key(job.kind, job.conversation)] = last
                log.info("%s of %s %s; its trigger waits for a new turn", job.id, job.user_id,
                         job.status)
            user.signatures.pop((job.kind, job.conversation), None)
            save_state(user)

    def _complete(self, user: TriggerUser, job: Job) -> None:
        now = self.ctx.clock.now()
        if job.kind == "batch":
            self.batch.complete(user, job)
        elif job.kind == "cycle":
            self.cycle.complete(user, job, now)
        else:
            conv = user.state.conversations.get(job.conversation or "")
            if conv is None:
                return
            if job.kind == "summary":
                self.summary.complete(conv, job, now)
            else:
                self.micro.complete(conv, job, now)
            user.state.suppressed.pop(user.suppression_key(job.kind, job.conversation), None)
        log.info("%s (%s) of %s done; its counters were reset", job.id, job.kind, job.user_id)

    # ---- Users

    def _user(self, user_id: str) -> TriggerUser:
        user = self._users.get(user_id)
        if user is not None:
            return user
        paths = self.paths.user(user_id)  # validates the id
        acc = SignalAccumulator(paths.signal_state, self.ctx.settings, clock=self.ctx.clock)
        self.warnings.extend(acc.warnings)
        state, written = load_state(paths.trigger_state, self.warnings)
        user = TriggerUser(user_id, paths, acc, state, written)
        self._users[user_id] = user
        return user


def _restore_decisions(user: TriggerUser) -> list[TriggerDecision]:
    restored = []
    for item in user.state.recent_decisions:
        try:
            restored.append(TriggerDecision.from_dict(item))
        except TypeError:
            continue
    return restored


__all__ = ["DECISION_EVENT", "TriggerEngine", "TriggerStatus"]
