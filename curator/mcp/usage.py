"""Usage counts of seed 004 §10: which documents were served to an agent.

The MCP server runs in its own process beside the app, which holds the vault's one-writer
lock; usage is therefore kept in its own small SQLite file, ``<vault>/usage.sqlite``, that
any process may append to (WAL, short transactions). It is not derived from other files,
so ``curator reindex`` leaves it alone.

Tables:
    uses        one row per document served: a search hit or a retrieval (who, what, when)
    proposals   when a promotion or a "still true?" question was put to the person for a
                document (so a declined one is not asked again at once)

A turn folder whose context.md §2 cites an approved document and whose §6 validation is
APPROVE, RETRY or FAIL records ``validation:<verdict>`` as a use of it (seed 004 §10).

Corrections, contradictions and scope changes are recorded on the document itself
(``scope_changed_at``), where the lifecycle reads them (``curator.review.lifecycle``).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)

# Seed 004 §10: a turn that used a document and was validated APPROVE counts as a use; RETRY
# and FAIL lower its trust; REVISE changes nothing (and is not recorded).
VALIDATED = "validation:APPROVE"
FAILED = ("validation:RETRY", "validation:FAIL")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS uses(
    id INTEGER PRIMARY KEY,
    doc_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    how TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS uses_doc ON uses(doc_id, at);
CREATE TABLE IF NOT EXISTS proposals(
    id INTEGER PRIMARY KEY,
    doc_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS proposals_doc ON proposals(doc_id, kind, at);
"""


class UsageLog:
    """The usage file of one vault (safe to share between processes and threads)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA busy_timeout=30000")
        with self._lock:
            self._conn.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def record_uses(self, user_id: str, doc_ids: Iterable[str], how: str, at: float) -> int:
        """Count each document once as served (``how``: ``search`` or ``retrieve``)."""
        rows = [(doc_id, user_id, how, at) for doc_id in dict.fromkeys(doc_ids) if doc_id]
        if rows:
            try:
                with self._lock:
                    self._conn.executemany("INSERT INTO uses(doc_id, user_id, how, at) VALUES (?,?,?,?)", rows)
            except sqlite3.Error as exc:  # a count lost is better than an answer refused
                log.warning("usage not recorded: %s", exc)
                return 0
        return len(rows)

    def record_proposal(self, doc_id: str, kind: str, at: float) -> None:
        """Remember that a promotion or a "still true?" was put to the person for a document."""
        with self._lock:
            self._conn.execute("INSERT INTO proposals(doc_id, kind, at) VALUES (?,?,?)", (doc_id, kind, at))

    def last_proposal(self, doc_id: str, kind: str) -> float | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT MAX(at) FROM proposals WHERE doc_id = ? AND kind = ?", (doc_id, kind)
            ).fetchone()
        return float(row[0]) if row and row[0] is not None else None

    def uses_since(self, doc_id: str, since: float | None) -> int:
        """Uses of a document after ``since`` (exclusive; None: all of them); a failed
        validation is no use."""
        with self._lock:
            row = self._conn.execute(
                "SELECT COUNT(*) FROM uses WHERE doc_id = ? AND at > ? AND how NOT IN (?, ?)",
                (doc_id, since if since is not None else float("-inf"), *FAILED),
            ).fetchone()
        return int(row[0])

    def failures_since(self, doc_id: str, since: float | None) -> int:
        """Turns after ``since`` that used the document and failed validation (RETRY / FAIL)."""
        with self._lock:
            row = self._conn.execute(
                "SELECT COUNT(*) FROM uses WHERE doc_id = ? AND at > ? AND how IN (?, ?)",
                (doc_id, since if since is not None else float("-inf"), *FAILED),
            ).fetchone()
        return int(row[0])
