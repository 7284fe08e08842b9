"""The record of review actions: the persisted undo log, the texts shown, and the bus events.

``Users/<u>/Logs/review_undo.json`` holds the last actions with the steps that reverse them;
``Users/<u>/Logs/review_shown.json`` the exact texts last shown, so a refusal can say how the
file differs from what the person saw.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from curator.clock import Clock, iso_utc
from curator.events import EventBus
from curator.faults import fault_point
from curator.review.records import MIN_HASH_PREFIX, sha_text
from curator.vault.atomic import read_json_state, write_json_state
from curator.vault.paths import VaultPaths

UNDO_LIMIT = 100
SHOWN_LIMIT = 200


class ActionLog:
    """Undo log, shown texts and events of one vault's review actions."""

    def __init__(self, paths: VaultPaths, clock: Clock, events: EventBus | None) -> None:
        self.paths = paths
        self.clock = clock
        self.events = events

    # ---- The undo log

    def undo_file(self, user_id: str) -> Path:
        return self.paths.user(user_id).root / "Logs" / "review_undo.json"

    def entries(self, user_id: str) -> list[dict[str, Any]]:
        """The persisted action log, oldest first."""
        data, _warning = read_json_state(self.undo_file(user_id), {"entries": []})
        entries = data.get("entries", []) if isinstance(data, dict) else []
        return [e for e in entries if isinstance(e, dict)]

    def save(self, user_id: str, entries: list[dict[str, Any]]) -> None:
        write_json_state(self.undo_file(user_id), {"entries": entries[-UNDO_LIMIT:]})

    def append(self, user_id: str, action: str, doc_id: str, steps: list[dict[str, Any]], actor: str = "") -> None:
        fault_point(f"review.{action.split(':')[0]}.before_log")
        entries = self.entries(user_id)
        entry: dict[str, Any] = {"action": action, "doc_id": doc_id, "at": iso_utc(self.clock.now()), "steps": steps}
        if actor:
            entry["actor"] = actor
        entries.append(entry)
        self.save(user_id, entries)

    # ---- The texts shown

    def shown_file(self, user_id: str) -> Path:
        return self.paths.user(user_id).root / "Logs" / "review_shown.json"

    def remember_shown(self, user_id: str, text: str) -> None:
        data, _ = read_json_state(self.shown_file(user_id), {"shown": {}})
        shown = data.get("shown", {}) if isinstance(data, dict) else {}
        shown = {k: v for k, v in shown.items() if isinstance(v, str)}
        shown.pop(sha_text(text), None)
        shown[sha_text(text)] = text
        write_json_state(self.shown_file(user_id), {"shown": dict(list(shown.items())[-SHOWN_LIMIT:])})

    def shown_text(self, user_id: str, hash_prefix: str) -> str | None:
        if len(hash_prefix) < MIN_HASH_PREFIX:
            return None
        data, _ = read_json_state(self.shown_file(user_id), {"shown": {}})
        shown = data.get("shown", {}) if isinstance(data, dict) else {}
        for key, value in shown.items():
            if key.startswith(hash_prefix) and isinstance(value, str):
                return value
        return None

    # ---- Events

    def emit(self, kind: str, user_id: str, doc_id: str, **data: Any) -> None:
        if self.events is not None:
            self.events.emit(kind, user_id=user_id, doc_id=doc_id, **data)
