"""Remembered rejections: a discarded fact is not proposed again.

A fingerprint is the sha256 of the sorted content stems of a text, so reordering, case,
punctuation and inflection do not make a discarded fact new again. Near-misses are caught
by a similarity check against the stored texts. Stored per user in
``Users/<u>/Logs/review_rejected.json`` (atomic, with a backup copy).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from curator.clock import Clock, SystemClock, iso_utc
from curator.index.text import content_words, stems
from curator.reflection.gates.similarity import similarity
from curator.vault.atomic import read_json_state, write_json_state
from curator.vault.paths import VaultPaths

NEAR_DUPLICATE = 0.9
MAX_ENTRIES = 5000


def fingerprint(text: str) -> str:
    """Order-, case- and inflection-insensitive fingerprint of a text."""
    words = sorted(stems(content_words(text)))
    return hashlib.sha256("|".join(words).encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True)
class RejectedEntry:
    """One remembered rejection."""

    fingerprint: str
    text: str
    kind: str
    reason: str
    rejected_at: str
    doc_id: str = ""


class RejectedMemory:
    """The per-user list of rejected texts, consulted by the gates."""

    def __init__(self, paths: VaultPaths, clock: Clock | None = None) -> None:
        self.paths = paths
        self.clock = clock or SystemClock()

    def _file(self, user_id: str) -> Path:
        return self.paths.user(user_id).root / "Logs" / "review_rejected.json"

    def entries(self, user_id: str) -> list[RejectedEntry]:
        data, _warning = read_json_state(self._file(user_id), {"entries": []})
        raw = data.get("entries", []) if isinstance(data, dict) else []
        out = []
        for item in raw:
            if isinstance(item, dict) and isinstance(item.get("fingerprint"), str):
                out.append(RejectedEntry(
                    str(item["fingerprint"]), str(item.get("text", "")), str(item.get("kind", "")),
                    str(item.get("reason", "")), str(item.get("rejected_at", "")), str(item.get("doc_id", "")),
                ))
        return out

    def _save(self, user_id: str, entries: list[RejectedEntry]) -> None:
        write_json_state(self._file(user_id), {"entries": [e.__dict__ for e in entries[-MAX_ENTRIES:]]})

    def add(self, user_id: str, text: str, kind: str, reason: str, doc_id: str = "") -> RejectedEntry:
        """Remember ``text`` as rejected."""
        entry = RejectedEntry(fingerprint(text), text, kind, reason, iso_utc(self.clock.now()), doc_id)
        entries = [e for e in self.entries(user_id) if not (e.fingerprint == entry.fingerprint and e.doc_id == doc_id)]
        entries.append(entry)
        self._save(user_id, entries)
        return entry

    def remove(self, user_id: str, fp: str, doc_id: str = "") -> None:
        """Forget a rejection (undo of a discard)."""
        self._save(user_id, [e for e in self.entries(user_id) if not (e.fingerprint == fp and e.doc_id == doc_id)])

    def match(self, user_id: str, text: str) -> RejectedEntry | None:
        """The remembered rejection ``text`` repeats, if any."""
        fp = fingerprint(text)
        entries = self.entries(user_id)
        for entry in entries:
            if entry.fingerprint == fp:
                return entry
        for entry in entries:
            if entry.text and similarity(text, entry.text) >= NEAR_DUPLICATE:
                return entry
        return None
