"""What the triggers remember per user, and how it is kept in ``trigger_state.json``.

The file lives at ``Users/<u>/Logs/reflector/trigger_state.json`` (counters per conversation,
cycle schedule, last turn seen, recent decisions) and is written atomically through
``curator.vault.atomic.write_json_state`` only when it changed; a corrupt file is kept aside
and defaults restored with a warning. The batch counters live in ``signal_state.json``
(``curator.triggers.urgency``), exactly as seed 000 lays out.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from curator.triggers.urgency import SignalAccumulator
from curator.vault.atomic import quarantine, read_json_state, write_json_state
from curator.vault.paths import UserPaths

log = logging.getLogger(__name__)

STATE_VERSION = 1
PERSISTED_DECISIONS = 50
MAX_CONVERSATIONS = 500


@dataclass
class ConversationState:
    """Counters of one conversation for the summary and micro triggers."""

    last_message_at: float = 0.0
    last_user_message_at: float = 0.0
    last_turn: int = 0
    messages_since_summary: int = 0
    user_messages_since_summary: int = 0  # seed 002's gate counts the person's messages only
    summary_from_turn: int = 0
    last_summary_at: float = 0.0
    messages_since_micro: int = 0
    user_messages_since_micro: int = 0
    tokens_since_micro: int = 0
    micro_from_turn: int = 0
    last_micro_at: float = 0.0
    messages: int = 0  # the whole conversation's length (a long one ends with a cycle)
    cycle_requested_at: int = 0  # the turn that last asked for a cycle ("consolidate")

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
            "version": STATE_VERSION,
            "last_turn": self.last_turn,
            "conversations": {k: asdict(v) for k, v in self.conversations.items()},
            "cycle": asdict(self.cycle),
            "suppressed": dict(self.suppressed),
            "recent_decisions": list(self.recent_decisions[-PERSISTED_DECISIONS:]),
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


class TriggerUser:
    """In-memory side of one user: paths, accumulator, trigger state, last signatures."""

    def __init__(self, user_id: str, paths: UserPaths, acc: SignalAccumulator,
                 state: UserTriggerState, written: dict[str, Any] | None) -> None:
        self.id = user_id
        self.paths = paths
        self.acc = acc
        self.state = state
        self.written = written
        # The last "not fired" outcome per (trigger, conversation), so an unchanged miss is
        # recorded once rather than on every tick.
        self.signatures: dict[tuple[str, str | None], tuple[Any, ...]] = {}

    def conversation(self, name: str) -> ConversationState:
        # Asked for every counted turn: a fresh state only when the conversation is new.
        conv = self.state.conversations.get(name)
        if conv is None:
            conv = self.state.conversations[name] = ConversationState()
        return conv

    def latest_conversation(self) -> str | None:
        """The conversation with the most recent message, if any."""
        if not self.state.conversations:
            return None
        return max(self.state.conversations.items(), key=lambda kv: kv[1].last_message_at)[0]

    def suppression_key(self, kind: str, conversation: str | None) -> str:
        return kind if conversation is None else f"{kind}:{conversation}"


def load_state(path: Path, warnings: list[str]) -> tuple[UserTriggerState, dict[str, Any] | None]:
    """The state in ``path`` and the raw data it came from (defaults when absent or bad)."""
    data, warning = read_json_state(path, None)
    if warning:
        warnings.append(warning)
    if data is None:
        return UserTriggerState(), None
    try:
        if not isinstance(data, Mapping):
            raise TypeError("not a JSON object")
        return UserTriggerState.from_dict(data), dict(data)
    except (TypeError, ValueError, AttributeError) as exc:
        message = f"trigger state {path} is invalid ({exc}); defaults restored"
        if path.exists():
            message += f", kept aside as {quarantine(path).name}"
        log.warning(message)
        warnings.append(message)
        return UserTriggerState(), None


def save_state(user: TriggerUser) -> None:
    """Write the user's state if it changed (ticks that change nothing do not touch the disk)."""
    _prune(user)
    data = user.state.to_dict()
    if data != user.written:
        write_json_state(user.paths.trigger_state, data)
        user.written = data


def _prune(user: TriggerUser) -> None:
    conversations = user.state.conversations
    if len(conversations) <= MAX_CONVERSATIONS:
        return
    idle = sorted((c.last_message_at, name) for name, c in conversations.items() if c.idle)
    for _, name in idle[: len(conversations) - MAX_CONVERSATIONS]:
        del conversations[name]


__all__ = [
    "ConversationState",
    "CycleState",
    "TriggerUser",
    "UserTriggerState",
    "load_state",
    "save_state",
]
