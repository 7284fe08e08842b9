"""The turn ledger: an append-only record, per user, of every change to the turn table.

Sources can be edited or emptied, so the history of what was read (turn numbers, the old
text of an edited message, removals) cannot be re-derived from the sources alone. The
ledger keeps it in the vault, as the files-are-the-truth rule asks, and the SQLite index
replays it: at start-up (recovering from a crash between ledger and index) and on reindex.

Records are JSON objects with a per-user ``seq`` and an ``op``:

- ``add``: a new turn row (every IndexedTurn field, plus ``supersedes`` and ``ingested_at``)
- ``status``: ``number`` becomes ``status`` (active / edited / removed) with a ``reason``
- ``move``: ``number`` now sits at ``key``/``position`` (a positional source shifted)
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from curator.vault.atomic import append_lines, atomic_write_bytes
from curator.vault.paths import VaultPaths

log = logging.getLogger(__name__)

# One encoder for every record: ``json.dumps`` with options builds a new one per call. Keys
# stay in the order the record was built (sorting them was a third of encoding an import's
# ledger), without spaces after separators; a record is a tree of plain values, so the
# circular-reference check has nothing to find.
_RECORD = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)

LEDGER_NAME = "turns.jsonl"
REJECTED_NAME = "turns.rejected.jsonl"


class TurnLedger:
    """Per-user append-only turn ledgers under ``Users/<id>/Logs/turns.jsonl``."""

    def __init__(self, paths: VaultPaths) -> None:
        self.paths = paths

    def path(self, user_id: str) -> Path:
        """Where one user's ledger lives."""
        return self.paths.user(user_id).root / "Logs" / LEDGER_NAME

    def users(self) -> list[str]:
        """Users that have a ledger."""
        return [uid for uid in self.paths.user_ids() if self.path(uid).exists()]

    def append(self, user_id: str, records: list[dict[str, Any]]) -> None:
        """Durably append ``records`` (each already carrying its ``seq``)."""
        if records:
            append_lines(
                self.path(user_id),
                [_RECORD.encode(r) for r in records],
            )

    def last_seq(self, user_id: str) -> int:
        """The ``seq`` of the last complete record (0 for none), reading only the file's tail."""
        path = self.path(user_id)
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return 0
        window = 65536
        while True:
            with open(path, "rb") as handle:
                handle.seek(max(0, size - window))
                tail = handle.read()
            lines = tail.split(b"\n")[:-1]  # the piece after the last newline is incomplete
            if window < size:
                lines = lines[1:]  # the first piece may start mid-line
            for raw in reversed(lines):
                try:
                    return int(json.loads(raw.decode("utf-8"))["seq"])
                except (UnicodeDecodeError, ValueError, KeyError, TypeError):
                    continue
            if window >= size:
                return 0
            window *= 4

    def read(self, user_id: str, after_seq: int = 0) -> Iterator[dict[str, Any]]:
        """Records with ``seq > after_seq`` in order; unreadable lines are logged and skipped."""
        path = self.path(user_id)
        if not path.exists():
            return
        with open(path, "rb") as handle:
            for line_no, raw in enumerate(handle, start=1):
                if not raw.endswith(b"\n"):
                    log.warning("%s line %d: incomplete last line (interrupted write); ignored", path, line_no)
                    continue
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw.decode("utf-8"))
                    seq = int(record["seq"])
                except (UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
                    log.warning("%s line %d: unreadable record (%s); ignored", path, line_no, exc)
                    continue
                if seq > after_seq:
                    yield record

    def set_aside(self, user_id: str, refused: list[tuple[Any, str]]) -> Path:
        """Move refused records out of the ledger into ``turns.rejected.jsonl``, with their reasons.

        The rejected file is written (fsynced) before the ledger is rewritten without them,
        so a crash in between leaves a record in both places, never in neither.
        """
        path = self.path(user_id)
        aside = path.with_name(REJECTED_NAME)
        seqs = set()
        lines = []
        for record, reason in refused:
            seq = record.get("seq") if isinstance(record, dict) else None
            seqs.add(seq)
            lines.append(json.dumps({"reason": reason, "record": record}, ensure_ascii=False, sort_keys=True))
        append_lines(aside, lines)
        kept: list[bytes] = []
        with open(path, "rb") as handle:
            for raw in handle:
                try:
                    seq = json.loads(raw.decode("utf-8")).get("seq")
                except (UnicodeDecodeError, ValueError, AttributeError):
                    seq = None
                if seq is not None and seq in seqs:
                    continue
                kept.append(raw if raw.endswith(b"\n") else raw + b"\n")
        atomic_write_bytes(path, b"".join(kept))
        return aside
