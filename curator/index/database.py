"""The SQLite index of turns and documents (derived; rebuilt from vault + sources).

Tables:
    turn_rows    every turn ever read, with its per-user number, provenance and status
                 (active / edited / removed); rows are never deleted. Its file and
                 conversation are numbers into ``turn_files`` and ``conversations``; the
                 ``turns`` view names them, and every read goes through it
    documents    every vault document (Knowledge, Knowledge_staging, Reflections)
    turn_items   a turn's filter columns for search, under the turn row's id
    items        every other searchable item (a document, an archive day), with the same columns
    items_fts    FTS5 (Porter stemming) over both: body, previous turn, title, context
    read_state   per source unit: what was read so far (offsets, fingerprints, problems)
    source_health  what the watcher last knew about each source (for ``curator status``)
    meta         schema version and per-user ledger positions

Threading contract: any thread may read (each gets its own connection; WAL lets reads run
beside a write); writes are serialised by one lock on one write connection.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from curator.index.db_files import remove_database, set_aside_database
from curator.index.document_table import DocumentTable
from curator.index.rows import DocumentRow
from curator.index.schema import BM25_WEIGHTS, EXPECTED_TURN_COLUMNS, SCHEMA, SCHEMA_VERSION
from curator.index.turn_reads import TurnReads
from curator.sources.read_state import ReadState

# Callers import these from here, where they always lived.
__all__ = [
    "BM25_WEIGHTS", "SCHEMA_VERSION", "DocumentRow", "Index", "IndexDamagedError", "remove_database",
    "set_aside_database",
]

log = logging.getLogger(__name__)

# Page cache of the write connection, in KiB (SQLite's default is 2,000).
WRITER_CACHE_KIB = 32_768
# Free pages an index keeps for its next writes before it gives them back to the file system.
FREE_PAGES_KEPT = 256


class IndexDamagedError(RuntimeError):
    """The index file cannot be used and this process may not replace it."""


class OlderSchemaError(sqlite3.DatabaseError):
    """The index was built by an earlier version of the app: sound, but of another layout."""


class Index(TurnReads, DocumentTable):
    """The index database of one vault.

    Args:
        path: the index file.
        heal: when the file is unreadable, corrupt or of another schema, move it aside
            (``index.sqlite.corrupt-N``) and start an empty one; ``healed`` then says what
            happened and the caller rebuilds it (the index is derived). Without ``heal`` such
            a file raises ``IndexDamagedError``.
    """

    # The queries live in the mixins by table (turn_reads, document_table); the ledger's
    # application in ledger_apply; this class opens, checks and heals the file.

    def __init__(self, path: Path, *, heal: bool = False) -> None:
        super().__init__(path)
        self.healed = ""
        try:
            self._open()
        except sqlite3.DatabaseError as exc:
            self.close()
            if not heal:
                raise IndexDamagedError(
                    f"the index {self.path} cannot be used ({exc}); start `curator watch`, the app or "
                    "`curator reindex` to rebuild it"
                ) from exc
            if isinstance(exc, OlderSchemaError):
                # Not damaged, only outdated: nothing in it is lost by rebuilding, and a copy
                # the size of the index kept aside would only take room.
                remove_database(self.path)
                self.healed = (
                    f"the index was built by an earlier version of the app ({exc}); it is rebuilt from the "
                    "vault and the sources"
                )
            else:
                aside = set_aside_database(self.path)
                self.healed = (
                    f"the index could not be used ({exc}); it was moved aside as {aside.name} and is rebuilt "
                    "from the vault and the sources"
                )
            log.warning(self.healed)
            self._closed = False
            self._open()

    def _open(self) -> None:
        self._writer = self._connect()
        # One write transaction holds up to 20,000 new turns (``FLUSH_RECORDS``): with the
        # default 2 MB page cache their index pages were spilled and read back mid-way.
        # Grown only as pages are used, and only on this one connection.
        self._writer.execute(f"PRAGMA cache_size = -{WRITER_CACHE_KIB}")
        if self._schema_ready():
            return  # no write at all: readers beside a busy watcher never wait here
        self._check_not_foreign()
        with self._write_lock:
            self._writer.executescript(SCHEMA)
            self._writer.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)",
                (str(SCHEMA_VERSION),),
            )
            self._writer.execute(
                "INSERT OR IGNORE INTO items_fts(items_fts, rank) VALUES ('rank', ?)",
                (f"bm25({', '.join(str(w) for w in BM25_WEIGHTS)})",),
            )
            self._writer.commit()

    def _schema_ready(self) -> bool:
        try:
            row = self._writer.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.OperationalError as exc:
            if "no such table" not in str(exc):
                raise sqlite3.DatabaseError(str(exc)) from exc
            return False
        if row is None or row[0] != str(SCHEMA_VERSION):
            return False
        if self._writer.execute("SELECT 1 FROM sqlite_master WHERE name = 'turn_archive'").fetchone() is None:
            return False  # an index from before turn archival: its tables are added by _open
        columns = {r[1] for r in self._writer.execute("PRAGMA table_info(turns)")}
        if not columns >= EXPECTED_TURN_COLUMNS:
            raise sqlite3.DatabaseError("the turns table lacks columns of this schema")
        # Reads every page of the small tables' roots; a damaged file fails here, not later.
        self._writer.execute("SELECT COUNT(*) FROM meta").fetchone()
        return True

    def _check_not_foreign(self) -> None:
        # An index of another schema version (or a database that is not ours) is rebuilt,
        # never patched with CREATE IF NOT EXISTS into a mix of two layouts.
        tables = {r[0] for r in self._writer.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            return
        row = None
        if "meta" in tables:
            row = self._writer.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None or row[0] != str(SCHEMA_VERSION):
            found = row[0] if row is not None else "none"
            message = f"schema version {found}, this app needs {SCHEMA_VERSION}"
            if str(found).isdigit() and 0 < int(found) < SCHEMA_VERSION and tables & {"turns", "turn_rows"}:
                raise OlderSchemaError(message)
            raise sqlite3.DatabaseError(message)

    # ---- Meta

    def get_meta(self, key: str, default: str = "") -> str:
        """A value of the meta table (schema version, ledger positions)."""
        row = self.reader().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row["value"] if row else default

    def ledger_seq(self, user_id: str) -> int:
        """The last ledger record of ``user_id`` applied to this index."""
        return int(self.get_meta(f"ledger_seq:{user_id}", "0"))

    # ---- Turns: applying ledger records

    def apply_records(
        self,
        user_id: str,
        records: list[dict[str, Any]],
        read_states: Iterable[tuple[str, str, ReadState | None, str]] = (),
        *,
        checked: bool = False,
    ) -> list[tuple[dict[str, Any], str]]:
        """Apply turn-ledger records (and read-state updates) in one transaction.

        ``read_states`` holds (source id, unit, state or None to forget, problem text).
        Records already applied (``seq`` not above the stored position) are skipped, so a
        replay after a crash is idempotent. A record that fails its checks or that SQLite
        refuses is left out (its ``seq`` still counts as seen) and returned with the reason,
        so one bad record never blocks the ones after it.

        Args:
            checked: the records already passed ``record_problem`` (the ingestor checks
                them before the ledger); a replay of the ledger leaves it False.
        """
        with self._write_lock:
            with self.write() as conn:
                # Imported here: a reader (curator search, the MCP server) never applies ledger records.
                from curator.index.ledger_apply import apply_ledger_records

                refused = apply_ledger_records(conn, user_id, records, read_states, checked)
            self._return_free_pages()
        return refused

    def _return_free_pages(self) -> None:
        # FTS5 merges its segments as turns arrive and frees the merged ones' pages: an import
        # of 100,000 turns left 2 MB of them inside the file. Given back once there are many.
        if self._writer.execute("PRAGMA freelist_count").fetchone()[0] >= FREE_PAGES_KEPT:
            # Each step of the statement frees one page, and ``execute`` steps it once (so does
            # fetching its rows, which it has none of); a script runs it to its end.
            self._writer.executescript("PRAGMA incremental_vacuum;")

    # ---- Read state and source health

    def read_state(self, source_id: str, unit: str) -> ReadState | None:
        """What was remembered about a source unit, or None."""
        row = self.reader().execute(
            "SELECT state FROM read_state WHERE source_id = ? AND unit = ?", (source_id, unit)
        ).fetchone()
        return ReadState.from_dict(json.loads(row["state"])) if row else None

    def read_units(self, source_id: str) -> list[str]:
        """Units of a source with a read state."""
        rows = self.reader().execute("SELECT unit FROM read_state WHERE source_id = ?", (source_id,))
        return [r["unit"] for r in rows]

    def problems(self, source_id: str | None = None) -> list[tuple[str, str, str]]:
        """(source id, unit, problem) for units whose last read reported a problem."""
        sql = "SELECT source_id, unit, problem FROM read_state WHERE problem != ''"
        params: tuple[Any, ...] = ()
        if source_id is not None:
            sql += " AND source_id = ?"
            params = (source_id,)
        return [(r["source_id"], r["unit"], r["problem"]) for r in self.reader().execute(sql, params)]

    def set_health(self, source_id: str, status: str, detail: str, at: float) -> None:
        """Record a source's health (available / unavailable / error) for other processes."""
        with self.write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO source_health(source_id, status, detail, updated_at) VALUES (?,?,?,?)",
                (source_id, status, detail, at),
            )

    def health(self) -> dict[str, dict[str, Any]]:
        """{source id: {status, detail, updated_at}}."""
        rows = self.reader().execute("SELECT source_id, status, detail, updated_at FROM source_health")
        return {
            r["source_id"]: {
                "status": r["status"],
                "detail": r["detail"],
                "updated_at": r["updated_at"],
            }
            for r in rows
        }

    def forget_source(self, source_id: str) -> None:
        """Drop a source's read state and health (its turns stay: they are history)."""
        with self.write() as conn:
            conn.execute("DELETE FROM read_state WHERE source_id = ?", (source_id,))
            conn.execute("DELETE FROM source_health WHERE source_id = ?", (source_id,))
    # ---- Comparison

    def snapshot(self) -> dict[str, Any]:
        """Everything derived that two indexes of the same vault must agree on."""
        conn = self.reader()
        turns = [
            tuple(r)
            for r in conn.execute(
                "SELECT user_id, number, source_id, file, conversation, key, position, role, speaker, text, "
                "timestamp, sha256, status, status_reason, supersedes, context, extra, ingested_at "
                "FROM turns ORDER BY user_id, number"
            )
        ]
        documents = [
            tuple(r)
            for r in conn.execute(
                "SELECT path, id, user_id, kind, area, title, topic, keywords, scope, quality, content_types, "
                "created_at, deleted, source_turns FROM documents ORDER BY path"
            )
        ]
        items = [
            tuple(r)
            for r in conn.execute(
                "SELECT COALESCE(i.ref, 't:' || t.user_id || ':' || t.number) AS ref, i.item_type, i.user_id, "
                "i.kind, i.content_types, i.topic, i.scope, i.quality, "
                "i.ts, i.searchable, f.title, f.body, f.prev, f.context FROM all_items i "
                "JOIN items_fts f ON f.rowid = i.id LEFT JOIN turn_rows t ON t.id = i.id ORDER BY 1"
            )
        ]
        archive = [
            tuple(r)
            for r in conn.execute("SELECT user_id, number, text, context FROM turn_archive ORDER BY user_id, number")
        ]
        return {"turns": turns, "documents": documents, "items": items, "archive": archive}
