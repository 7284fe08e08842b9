"""The batch trigger (seed 000 §2): enough turns, or urgency, since the last batch.

Fires when ``turns_since_last_batch`` >= ``batch.turn_threshold`` (10) or the urgency score
is strictly greater than ``batch.urgency_threshold`` (5.0). Per user; the counters live in
``signal_state.json`` (``curator.triggers.urgency``) and reset when the batch job is done.
A job covers at most ``batch.max_turns`` turns.
"""

from __future__ import annotations

from curator.triggers.decisions import Scope, StatusPart, TriggerContext, TriggerDecision
from curator.triggers.jobs import Job
from curator.triggers.state import TriggerUser


class BatchTrigger:
    """Counts turns and urgency per user; queues ``batch`` jobs."""

    kind = "batch"

    def __init__(self, ctx: TriggerContext) -> None:
        self.ctx = ctx

    def _thresholds(self) -> tuple[int, float]:
        setting = self.ctx.setting
        return int(setting("batch.turn_threshold")), float(setting("batch.urgency_threshold"))

    def evaluate(self, user: TriggerUser, now: float, record_misses: bool = True
                 ) -> list[TriggerDecision]:
        code = user.acc.trigger_reason()
        if not record_misses and (code is None or self.ctx.waits(user, "batch", None, user.state.last_turn)):
            return []  # counted on every new turn: nothing to build when nothing is decided
        turns, urgency, _ = user.acc.counters()
        turn_thr, urg_thr = self._thresholds()
        counts = f"{turns}/{turn_thr} turns, urgency {urgency:.1f}/{urg_thr:.1f}"
        if code is None:
            return self.ctx.miss(user, "batch", None, "below_threshold",
                                 f"batch: not yet, {counts}",
                                 ("below", turns, urgency), now,
                                 record_misses)
        blocked = self.ctx.blocked(user, "batch", None, user.state.last_turn, counts, now,
                                   record_misses)
        if blocked is not None:
            return blocked
        if code == "turn_count":
            why = f"batch: {turns}/{turn_thr} turns since the last batch"
        else:
            why = f"batch: urgency {urgency:.1f} > {urg_thr:.1f}"
        return [self.ctx.fire(user, "batch", None, code, why, self.scope(user), now)]

    def scope(self, user: TriggerUser) -> Scope:
        """The turns the next batch covers, and the counters to reset when it is done."""
        acc = user.acc.state
        first = acc.last_batch_turn + 1
        cap = int(self.ctx.settings["batch.max_turns"])
        last = min(user.state.last_turn, acc.last_batch_turn + cap)
        meta = {"turns": acc.turns_since_last_batch, "urgency": acc.urgency_score}
        return ((first, last) if last >= first else None), meta

    def complete(self, user: TriggerUser, job: Job) -> None:
        """A batch job is done: reset the counters up to the turn it covered."""
        end = job.turn_range[1] if job.turn_range else None
        user.acc.reset_after_batch(end if end is not None else user.acc.state.last_batch_turn,
                                   user.state.last_turn)
        user.state.suppressed.pop("batch", None)

    def status(self, user: TriggerUser) -> StatusPart:
        acc = user.acc.state
        turn_thr, urg_thr = self._thresholds()
        pending = self.ctx.queue.pending(kind="batch", user_id=user.id)
        line = (f"batch: {acc.turns_since_last_batch}/{turn_thr} turns, "
                f"urgency {acc.urgency_score:.1f}/{urg_thr:.1f}")
        if pending:
            line += f" ({pending[0].id} {pending[0].status})"
            upcoming = f"batch: {pending[0].id} is {pending[0].status}"
        elif user.acc.should_trigger():
            upcoming = "batch: due now"
        else:
            more = turn_thr - acc.turns_since_last_batch
            upcoming = (f"batch: after {more} more turn{'s' if more != 1 else ''}, "
                        f"or sooner if urgency exceeds {urg_thr:.1f}")
        data = {
            "turns": acc.turns_since_last_batch, "turn_threshold": turn_thr,
            "urgency": acc.urgency_score, "urgency_threshold": urg_thr,
            "last_batch_turn": acc.last_batch_turn, "due": user.acc.should_trigger(),
        }
        return StatusPart([line], [upcoming], data)


__all__ = ["BatchTrigger"]
