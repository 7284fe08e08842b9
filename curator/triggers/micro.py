"""The micro-reflection trigger (seed 003), per user and conversation.

Fires when the conversation has been silent for ``micro.silence_minutes`` (with a user message
among the new ones), when a client reports the session ended, or when the estimated tokens
since the last micro-reflection reach ``micro.context_pressure`` x ``model.n_ctx``. Needs new
messages since the last micro job; when it is done the counts drop by what it covered.
"""

from __future__ import annotations

from typing import Any

from curator.triggers.decisions import (
    Scope,
    StatusPart,
    TriggerContext,
    TriggerDecision,
    format_duration,
    label,
)
from curator.triggers.jobs import Job
from curator.triggers.state import ConversationState, TriggerUser


class MicroTrigger:
    """Watches each conversation's silence and context pressure; queues ``micro`` jobs."""

    kind = "micro"

    def __init__(self, ctx: TriggerContext) -> None:
        self.ctx = ctx

    def _budget(self) -> float:
        setting = self.ctx.setting
        return float(setting("micro.context_pressure")) * int(setting("model.n_ctx"))

    def _silence(self) -> float:
        return float(self.ctx.setting("micro.silence_minutes")) * 60.0

    def _limits(self) -> tuple[float, float]:
        return self._silence(), self._budget()

    def evaluate(self, user: TriggerUser, name: str, now: float, record_misses: bool = True,
                 pressure_only: bool = False) -> list[TriggerDecision]:
        conv = user.state.conversations.get(name)
        if conv is None or conv.messages_since_micro == 0:
            return []
        if not self.ctx.setting("micro.enabled"):
            self._forget(conv)
            return self.ctx.miss(user, "micro", name, "disabled",
                                 f"micro [{label(name)}]: micro-reflections are off (micro.enabled)",
                                 ("disabled",), now, record_misses)
        budget = self._budget()
        if pressure_only and conv.tokens_since_micro < budget:
            return []  # asked on every new turn: decide before reading or formatting anything
        silence_limit = self._silence()
        silent = max(0.0, now - conv.last_message_at)
        pressure = conv.tokens_since_micro >= budget
        if pressure_only and not record_misses and self.ctx.waits(user, "micro", name, conv.last_turn):
            return []  # a pending or just-failed job: ``blocked`` would record nothing either
        counts = (f"silent {format_duration(silent)} of {format_duration(silence_limit)}, "
                  f"~{conv.tokens_since_micro}/{int(budget)} tokens")
        quiet = (not pressure_only and silent >= silence_limit
                 and conv.user_messages_since_micro > 0)
        if not (pressure or quiet):
            return self._not_yet(user, name, silent >= silence_limit, counts, now, record_misses)
        blocked = self.ctx.blocked(user, "micro", name, conv.last_turn, counts, now,
                                   record_misses)
        if blocked is not None:
            return blocked
        settings = self.ctx.settings
        if pressure:
            code = "context_pressure"
            why = (f"micro [{label(name)}]: ~{conv.tokens_since_micro} tokens >= "
                   f"{settings['micro.context_pressure']:.0%} of the "
                   f"{int(settings['model.n_ctx'])}-token context")
        else:
            code = "silence"
            why = (f"micro [{label(name)}]: silent for {format_duration(silent)} "
                   f"(>= {format_duration(silence_limit)})")
        return [self.fire(user, name, conv, now, code, why)]

    def _not_yet(self, user: TriggerUser, name: str, silent_enough: bool, counts: str,
                 now: float, record_misses: bool) -> list[TriggerDecision]:
        if silent_enough:
            # Silent long enough, but only the other side spoke: nothing of the user's to
            # reflect on yet.
            return self.ctx.miss(user, "micro", name, "no_user_message",
                                 f"micro [{label(name)}]: silent, but no user message since "
                                 f"the last micro-reflection ({counts})",
                                 ("no_user",), now, record_misses)
        return self.ctx.miss(user, "micro", name, "below_threshold",
                             f"micro [{label(name)}]: not yet, {counts}",
                             ("below",), now, record_misses)

    def end_session(self, user: TriggerUser, name: str, now: float) -> TriggerDecision:
        """A client reported the session closed: fire if anything is new."""
        conv = user.state.conversations.get(name)
        if conv is not None and not self.ctx.setting("micro.enabled"):
            self._forget(conv)
            return self.ctx.record(user, "micro", name, False, "disabled",
                                   "micro: session ended, but micro-reflections are off (micro.enabled)", now=now)
        if conv is None or conv.messages_since_micro == 0:
            return self.ctx.record(user, "micro", name, False, "nothing_new",
                                   "micro: session ended but no new messages since the "
                                   "last micro-reflection", now=now)
        return self.fire(user, name, conv, now, "session_end", "micro: the session ended")

    def fire(self, user: TriggerUser, name: str, conv: ConversationState, now: float,
             code: str, why: str) -> TriggerDecision:
        pending = self.ctx.pending("micro", user.id, name, True)
        if pending:
            return self.ctx.record(user, "micro", name, False, "pending",
                                   f"{why}, but {pending[0].id} is still {pending[0].status}",
                                   now=now)
        return self.ctx.fire(user, "micro", name, code, why, self.scope(conv), now)

    @staticmethod
    def _forget(conv: ConversationState) -> None:
        """Off means off: turns seen while micro-reflection is off are not owed one later."""
        conv.messages_since_micro = conv.user_messages_since_micro = conv.tokens_since_micro = 0
        conv.micro_from_turn = 0

    @staticmethod
    def scope(conv: ConversationState) -> Scope:
        """The turns the next micro job covers, and the counts to drop when it is done."""
        first, count = conv.micro_from_turn, conv.messages_since_micro
        meta: dict[str, Any] = {"messages": count, "user_messages": conv.user_messages_since_micro,
                                "tokens": conv.tokens_since_micro}
        return ((first, conv.last_turn) if count and first else None), meta

    @staticmethod
    def complete(conv: ConversationState, job: Job, now: float) -> None:
        meta = job.meta
        end = job.turn_range[1] if job.turn_range else None
        conv.messages_since_micro = max(
            0, conv.messages_since_micro - int(meta.get("messages", 0)))
        conv.user_messages_since_micro = max(
            0, conv.user_messages_since_micro - int(meta.get("user_messages", 0)))
        conv.tokens_since_micro = max(0, conv.tokens_since_micro - int(meta.get("tokens", 0)))
        conv.micro_from_turn = (end + 1) if (conv.messages_since_micro and end) else 0
        conv.last_micro_at = now

    def status(self, user: TriggerUser, name: str, conv: ConversationState, now: float
               ) -> StatusPart:
        tag = label(name)
        if not self.ctx.setting("micro.enabled"):
            return StatusPart([f"micro [{tag}]: off (micro.enabled)"], [], {"micro_enabled": False})
        silence_limit, budget_f = self._limits()
        budget = int(budget_f)
        silent = max(0.0, now - conv.last_message_at)
        line = (f"micro [{tag}]: silent {format_duration(silent)} of "
                f"{format_duration(silence_limit)}, ~{conv.tokens_since_micro}/{budget} tokens")
        upcoming: list[str] = []
        if self.ctx.queue.pending(kind="micro", user_id=user.id, conversation=name):
            upcoming.append(f"micro [{tag}]: a job is pending")
        elif conv.user_messages_since_micro:
            wait = format_duration(max(0.0, silence_limit - silent))
            upcoming.append(f"micro [{tag}]: in {wait} of silence, at session end, "
                            "or near the context budget")
        data = {
            "messages_since_micro": conv.messages_since_micro,
            "silent_seconds": silent,
            "micro_silence_seconds": silence_limit,
            "tokens_since_micro": conv.tokens_since_micro,
            "token_budget": budget,
        }
        return StatusPart([line], upcoming, data)


__all__ = ["MicroTrigger"]
