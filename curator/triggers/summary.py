"""The context-summary trigger (seed 002), per user and conversation.

Fires when at least ``summary.min_messages`` (5) of the person's messages arrived since the
last summary (seed 002 counts ``onUserMessage``; the assistant's replies do not count) AND no
user message came for ``summary.inactivity_minutes`` (5). Every new user message restarts the
timer; when the job is done the counts drop by what it covered. ``summary.enabled`` off: no
summary is queued by itself (one asked for still runs), and the counts start again from zero.

Why per conversation rather than per user: seed 002 summarises "the current context", which is
one conversation's working context. A person may keep several conversations open (different
clients, characters, projects), and a message in one says nothing about whether another has
paused. Mixing them would summarise unrelated contexts together and let chatter in one
conversation postpone the summary of another forever.
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


class SummaryTrigger:
    """Watches each conversation's pause; queues ``summary`` jobs."""

    kind = "summary"

    def __init__(self, ctx: TriggerContext) -> None:
        self.ctx = ctx

    def _limits(self) -> tuple[int, float]:
        settings = self.ctx.settings
        return (int(settings["summary.min_messages"]),
                float(settings["summary.inactivity_minutes"]) * 60.0)

    @staticmethod
    def _inactive(conv: ConversationState, now: float) -> float:
        return max(0.0, now - (conv.last_user_message_at or conv.last_message_at))

    def evaluate(self, user: TriggerUser, name: str, now: float) -> list[TriggerDecision]:
        conv = user.state.conversations[name]
        if conv.messages_since_summary == 0:
            return []
        if not self.ctx.setting("summary.enabled"):
            conv.messages_since_summary = conv.user_messages_since_summary = conv.summary_from_turn = 0
            return self.ctx.miss(user, "summary", name, "disabled",
                                 f"summary [{label(name)}]: context summaries are off (summary.enabled)",
                                 ("disabled",), now, True)
        min_msgs, limit = self._limits()
        inactive = self._inactive(conv, now)
        counts = (f"{conv.user_messages_since_summary}/{min_msgs} of your messages, "
                  f"inactive {format_duration(inactive)} of {format_duration(limit)}")
        enough = conv.user_messages_since_summary >= min_msgs
        quiet = inactive >= limit
        if not (enough and quiet):
            return self.ctx.miss(user, "summary", name, "below_threshold",
                                 f"summary [{label(name)}]: not yet, {counts}",
                                 ("below", enough, quiet), now, True)
        blocked = self.ctx.blocked(user, "summary", name, conv.last_turn, counts, now, True)
        if blocked is not None:
            return blocked
        why = (f"summary [{label(name)}]: {conv.user_messages_since_summary} of your messages since the last "
               f"summary and no user message for {format_duration(inactive)} "
               f"(>= {format_duration(limit)})")
        return [self.ctx.fire(user, "summary", name, "inactivity", why, self.scope(conv), now)]

    @staticmethod
    def scope(conv: ConversationState) -> Scope:
        """The turns the next summary covers, and the count to drop when it is done."""
        first, count = conv.summary_from_turn, conv.messages_since_summary
        meta: dict[str, Any] = {"messages": count, "user_messages": conv.user_messages_since_summary}
        return ((first, conv.last_turn) if count and first else None), meta

    @staticmethod
    def complete(conv: ConversationState, job: Job, now: float) -> None:
        end = job.turn_range[1] if job.turn_range else None
        conv.messages_since_summary = max(
            0, conv.messages_since_summary - int(job.meta.get("messages", 0)))
        conv.user_messages_since_summary = max(
            0, conv.user_messages_since_summary - int(job.meta.get("user_messages", 0)))
        conv.summary_from_turn = (end + 1) if (conv.messages_since_summary and end) else 0
        conv.last_summary_at = now

    def status(self, user: TriggerUser, name: str, conv: ConversationState, now: float
               ) -> StatusPart:
        min_msgs, limit = self._limits()
        inactive = self._inactive(conv, now)
        tag = label(name)
        if not self.ctx.setting("summary.enabled"):
            return StatusPart([f"summary [{tag}]: off (summary.enabled)"], [], {"summary_enabled": False})
        line = (f"summary [{tag}]: {conv.user_messages_since_summary}/{min_msgs} of your messages, "
                f"inactive {format_duration(inactive)} of {format_duration(limit)}")
        upcoming: list[str] = []
        if self.ctx.queue.pending(kind="summary", user_id=user.id, conversation=name):
            upcoming.append(f"summary [{tag}]: a job is pending")
        elif conv.user_messages_since_summary >= min_msgs:
            upcoming.append(f"summary [{tag}]: in {format_duration(max(0.0, limit - inactive))} "
                            "if no new user message")
        elif conv.messages_since_summary:
            more = min_msgs - conv.user_messages_since_summary
            plural = "s" if more != 1 else ""
            upcoming.append(f"summary [{tag}]: after {more} more message{plural} of yours"
                            f" and {format_duration(limit)} without a user message")
        data = {
            "messages_since_summary": conv.messages_since_summary,
            "user_messages_since_summary": conv.user_messages_since_summary,
            "summary_min_messages": min_msgs,
            "inactive_seconds": inactive,
            "summary_inactivity_seconds": limit,
        }
        return StatusPart([line], upcoming, data)


__all__ = ["SummaryTrigger"]
