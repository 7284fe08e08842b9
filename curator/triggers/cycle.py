"""The consolidation-cycle trigger (seed 001), per user.

Fires when the local time ``cycle.schedule`` (03:00) is crossed, at most once per local day
(also when the app was closed over 03:00: the catch-up comes at the next tick; ``""``
disables the schedule); or when ``cycle.unprocessed_turns`` (200) turns were not yet
consolidated; or at the end of a long conversation (``cycle.session_end_turns`` messages);
or when the person asks in the chat ("reflect on your memories", "consolidate"); or on
``TriggerEngine.request("cycle", ...)`` (the button, ``curator reflect --job cycle``).
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta

from curator.sources.turns import IndexedTurn
from curator.triggers.decisions import (
    Scope,
    StatusPart,
    TriggerContext,
    TriggerDecision,
    format_duration,
)
from curator.triggers.jobs import Job
from curator.triggers.keywords import folded, holds_any
from curator.triggers.state import TriggerUser

_SCHEDULE_RE = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*$")
# The seed's manual trigger said in the chat: "reflect on your memories", or "consolidate"
# as the request itself (not any sentence that happens to use the word).
_ASK_RE = re.compile(
    r"\breflect\s+on\s+(?:your|my|our|the)\s+memor(?:y|ies)\b"
    r"|\bconsolidate\s+(?:your|my|our|the)\s+memor(?:y|ies)\b"
    r"|^\W*(?:please\W+)?consolidate\W*(?:now|please)?\W*$",
    re.IGNORECASE)


def asks_for_cycle(text: str) -> bool:
    """Whether a person's message asks for a consolidation cycle."""
    # Searched in every user turn: without either word (see ``curator.triggers.keywords``)
    # the pattern cannot match, and the substring test is far cheaper than the search.
    if not holds_any(folded(text or ""), ("reflect", "consolidate")):
        return False
    return bool(_ASK_RE.search(text or ""))


def parse_schedule(value: str) -> time | None:
    """``"03:00"`` -> 03:00; ``""`` -> ``None`` (disabled); raises ``ValueError`` if malformed."""
    if not value or not value.strip():
        return None
    match = _SCHEDULE_RE.match(value)
    if not match or int(match.group(1)) > 23 or int(match.group(2)) > 59:
        raise ValueError(f"cycle.schedule must be HH:MM (24 h) or empty, got {value!r}")
    return time(int(match.group(1)), int(match.group(2)))


class CycleTrigger:
    """Counts unprocessed turns and watches the schedule; queues ``cycle`` jobs."""

    kind = "cycle"

    def __init__(self, ctx: TriggerContext) -> None:
        self.ctx = ctx

    def evaluate(self, user: TriggerUser, now: float, record_misses: bool = True
                 ) -> list[TriggerDecision]:
        """The unprocessed-turns threshold."""
        cycle = user.state.cycle
        threshold = int(self.ctx.setting("cycle.unprocessed_turns"))
        if not record_misses and (cycle.unprocessed_turns < threshold
                                  or self.ctx.waits(user, "cycle", None, user.state.last_turn)):
            return []
        counts = f"{cycle.unprocessed_turns}/{threshold} unprocessed turns"
        if cycle.unprocessed_turns < threshold:
            # Below the threshold is the normal state; recording it once per crossing of
            # zero is enough (the count itself is in status()).
            return self.ctx.miss(user, "cycle", None, "below_threshold",
                                 f"cycle: not yet, {counts}", ("below",), now, record_misses)
        blocked = self.ctx.blocked(user, "cycle", None, user.state.last_turn, counts, now,
                                   record_misses)
        if blocked is not None:
            return blocked
        return [self.ctx.fire(user, "cycle", None, "unprocessed", f"cycle: {counts}",
                              self.scope(user), now)]

    def on_request_phrase(self, user: TriggerUser, turn: IndexedTurn, now: float) -> list[TriggerDecision]:
        """A person asked for a cycle in the chat: queue one (once per asking turn)."""
        if turn.role != "user" or not asks_for_cycle(turn.text):
            return []
        conv = user.conversation(turn.conversation)
        if conv.cycle_requested_at >= turn.number:
            return []
        conv.cycle_requested_at = turn.number
        why = f"cycle: asked for in turn {turn.number} ({turn.text.strip()[:60]!r})"
        blocked = self.ctx.blocked(user, "cycle", None, turn.number, f"asked in turn {turn.number}", now, True)
        if blocked is not None:
            return blocked
        return [self.ctx.fire(user, "cycle", None, "asked", why, self.scope(user), now)]

    def on_session_end(self, user: TriggerUser, conversation: str, now: float) -> list[TriggerDecision]:
        """A conversation ended: a long one (``cycle.session_end_turns``) queues a cycle."""
        conv = user.state.conversations.get(conversation)
        length = conv.messages if conv is not None else 0
        needed = int(self.ctx.settings["cycle.session_end_turns"])
        if length < needed:
            return self.ctx.miss(user, "cycle", conversation, "short_session",
                                 f"cycle: session {conversation} ended after {length} messages "
                                 f"(a cycle needs {needed})", ("short", length), now, True)
        why = f"cycle: long session {conversation} ended ({length} messages)"
        blocked = self.ctx.blocked(user, "cycle", None, user.state.last_turn, f"{length} messages", now, True)
        if blocked is not None:
            return blocked
        turn_range, meta = self.scope(user)
        # Seed 001: an approved cycle is committed as ``reflection:SESSION_ID``; the session
        # that ended is the one this cycle reflects.
        return [self.ctx.fire(user, "cycle", None, "session_end", why, (turn_range, {**meta, "session": conversation}),
                              now)]

    def evaluate_schedule(self, user: TriggerUser, now: float) -> list[TriggerDecision]:
        """The daily schedule: fires once per local day when its time was crossed."""
        try:
            at = parse_schedule(str(self.ctx.settings["cycle.schedule"]))
        except ValueError as exc:
            return self.ctx.miss(user, "cycle", None, "bad_schedule", f"cycle: {exc}",
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
        pending = self.ctx.queue.pending(kind="cycle", user_id=user.id)
        if pending:
            return [self.ctx.record(user, "cycle", None, False, "pending",
                                    f"cycle: scheduled {at:%H:%M} passed ({counts}) but "
                                    f"{pending[0].id} is still {pending[0].status}", now=now)]
        why = f"cycle: scheduled time {at:%H:%M} of {day} reached ({counts})"
        return [self.ctx.fire(user, "cycle", None, "schedule", why, self.scope(user), now)]

    @staticmethod
    def scope(user: TriggerUser) -> Scope:
        """The turns the next cycle covers, and the count to drop when it is done."""
        cycle = user.state.cycle
        meta = {"turns": cycle.unprocessed_turns}
        if cycle.unprocessed_turns and cycle.from_turn:
            return (cycle.from_turn, user.state.last_turn), meta
        return None, meta

    @staticmethod
    def complete(user: TriggerUser, job: Job, now: float) -> None:
        cycle = user.state.cycle
        end = job.turn_range[1] if job.turn_range else None
        cycle.unprocessed_turns = max(0, cycle.unprocessed_turns - int(job.meta.get("turns", 0)))
        cycle.from_turn = (end + 1) if (cycle.unprocessed_turns and end) else 0
        cycle.last_cycle_at = now
        user.state.suppressed.pop("cycle", None)

    def status(self, user: TriggerUser, now: float) -> StatusPart:
        cycle = user.state.cycle
        threshold = int(self.ctx.settings["cycle.unprocessed_turns"])
        line = f"cycle: {cycle.unprocessed_turns}/{threshold} unprocessed turns"
        next_at = self.next_scheduled(now)
        if next_at is not None:
            wait = format_duration(next_at.timestamp() - now)
            line += f", next scheduled {next_at:%Y-%m-%d %H:%M} (in {wait})"
        else:
            line += ", schedule off"
        pending = self.ctx.queue.pending(kind="cycle", user_id=user.id)
        if pending:
            upcoming = f"cycle: {pending[0].id} is {pending[0].status}"
        else:
            more = max(0, threshold - cycle.unprocessed_turns)
            when = f"at {next_at:%Y-%m-%d %H:%M}, or " if next_at is not None else ""
            upcoming = f"cycle: {when}after {more} more unprocessed turns"
        data = {
            "unprocessed_turns": cycle.unprocessed_turns, "threshold": threshold,
            "next_scheduled": next_at.isoformat() if next_at is not None else None,
            "last_cycle_at": cycle.last_cycle_at or None,
        }
        return StatusPart([line], [upcoming], data)

    # ---- Time of day

    def _local(self, timestamp: float) -> datetime:
        if self.ctx.tz is not None:
            return datetime.fromtimestamp(timestamp, self.ctx.tz)
        return datetime.fromtimestamp(timestamp).astimezone()

    def _at(self, day: date, at: time) -> datetime:
        if self.ctx.tz is not None:
            return datetime.combine(day, at, tzinfo=self.ctx.tz)
        return datetime.combine(day, at).astimezone()  # naive = system local time

    def _latest_scheduled(self, at: time, after: float, until: float) -> datetime | None:
        """The latest scheduled instant in ``(after, until]``, or ``None``."""
        day = self._local(until).date()
        candidate = self._at(day, at)
        if candidate.timestamp() > until:
            candidate = self._at(day - timedelta(days=1), at)
        return candidate if candidate.timestamp() > after else None

    def next_scheduled(self, now: float) -> datetime | None:
        """The next scheduled instant after ``now``, or ``None`` when off or malformed."""
        try:
            at = parse_schedule(str(self.ctx.settings["cycle.schedule"]))
        except ValueError:
            return None
        if at is None:
            return None
        day = self._local(now).date()
        candidate = self._at(day, at)
        if candidate.timestamp() <= now:
            candidate = self._at(day + timedelta(days=1), at)
        return candidate


__all__ = ["CycleTrigger", "parse_schedule"]
