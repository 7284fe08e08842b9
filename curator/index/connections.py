"""The index's connections: one per reading thread, and one write connection behind a lock.

WAL lets reads run beside a write; writes are serialised by the lock.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from curator.index.text import fts_text


class Connections:
    """Per-thread read connections and one serialised write connection to an SQLite file."""

    # Opened by the subclass, which checks (or heals) the schema on it first.
    _writer: sqlite3.Connection

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._write_lock = threading.RLock()
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._closed = False

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
        conn.row_factory = sqlite3.Row
        # The full-text index reads its text through a view that calls this (schema.items_src).
        conn.create_function("fts_text", 1, fts_text, deterministic=True)
        # Taken only by a new file, before WAL mode writes its first page: an index made so can
        # give its free pages back (Index._return_free_pages); an older one keeps them for its
        # later writes.
        conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
        conn.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode: a commit survives an application crash; the turn ledger (fsynced)
        # covers a power loss, since the index is replayed from it.
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA busy_timeout=30000")
        with self._connections_lock:
            self._connections.append(conn)
        return conn

    def reader(self) -> sqlite3.Connection:
        """This thread's read connection."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
        return conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (serialised across threads); commits, or rolls back on error."""
        with self._write_lock:
            conn = self._writer
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def close(self) -> None:
        """Close every connection this index opened."""
        if self._closed:
            return
        self._closed = True
        with self._connections_lock:
            for conn in self._connections:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
            self._connections.clear()
