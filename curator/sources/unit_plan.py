"""One unit's ledger records, numbered and sequenced as the ingestor decides them."""

from __future__ import annotations

from dataclasses import fields as dataclass_fields
from typing import Any

from curator.sources.turns import IndexedTurn, Turn

# The fields of a ledger ``add`` record's turn, looked up once (``dataclasses.fields`` per
# turn was a visible part of an import).
_TURN_FIELDS = tuple(f.name for f in dataclass_fields(IndexedTurn))


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
        indexed = IndexedTurn(
            number=number,
            user_id=self.user_id,
            source_id=turn.source_id,
            file=turn.file,
            conversation=turn.conversation,
            key=turn.key,
            position=turn.position,
            role=turn.role,
            speaker=turn.speaker,
            text=turn.text,
            timestamp=turn.timestamp,
            sha256=turn.sha256,
            context=turn.context,
            extra=dict(turn.extra),
        )
        # A shallow field copy: dataclasses.asdict deep-copies every value and was a tenth of
        # an import's time; the ledger serialises the record right away anyway.
        record = {name: getattr(indexed, name) for name in _TURN_FIELDS}
        record["extra"] = dict(indexed.extra)
        self._record("add", turn=record, supersedes=supersedes)
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
