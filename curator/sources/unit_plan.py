"""One unit's ledger records, numbered and sequenced as the ingestor decides them."""

from __future__ import annotations

from typing import Any

from curator.sources.turns import IndexedTurn, Turn, built


class UnitPlan:
    """Ledger records for one unit, numbered and sequenced as they are made."""

    def __init__(self, user_id: str, next_number: int, next_seq: int, now: float) -> None:
        self.user_id = user_id
        self.next_number = next_number
        self.next_seq = next_seq
        self.now = now
        self.records: list[dict[str, Any]] = []
        self.added: list[IndexedTurn] = []
        self.edited: list[tuple[str, int, int]] = []
        self.removed: list[tuple[str, int]] = []
        self.restored: list[tuple[str, int]] = []

    def _record(self, op: str, **fields: Any) -> None:
        self.records.append({"seq": self.next_seq, "op": op, "at": self.now, **fields})
        self.next_seq += 1

    def add(self, turn: Turn, supersedes: int | None = None) -> int:
        number = self.next_number
        self.next_number += 1
        sha256 = turn.sha256  # a property that hashes the text: once
        extra = dict(turn.extra)
        # The indexed turn and its ledger record are made from the values directly, in the
        # field order of IndexedTurn: copying them back out of a frozen turn (or
        # dataclasses.asdict, which deep-copies) was a visible part of an import.
        fields = {
            "number": number, "user_id": self.user_id, "source_id": turn.source_id, "file": turn.file,
            "conversation": turn.conversation, "key": turn.key, "position": turn.position,
            "role": turn.role, "speaker": turn.speaker, "text": turn.text, "timestamp": turn.timestamp,
            "sha256": sha256, "status": "active", "context": turn.context, "extra": extra,
        }
        record = dict(fields)
        # The ledger's form of an added turn: no digest when it is its text's hash (this one
        # is, by construction), so neither the ledger nor the index hashes the text again.
        del record["sha256"]
        record["extra"] = dict(extra)
        self._record("add", turn=record, supersedes=supersedes)
        indexed = built(IndexedTurn, fields)
        if supersedes is None:
            self.added.append(indexed)
        else:
            self.edited.append((self.user_id, supersedes, number))
        return number

    def status(self, number: int, status: str, reason: str) -> None:
        self._record("status", number=number, status=status, reason=reason)
        if status == "removed":
            self.removed.append((self.user_id, number))
        elif status == "active":
            self.restored.append((self.user_id, number))

    def move(self, number: int, key: str, position: int) -> None:
        self._record("move", number=number, key=key, position=position)
