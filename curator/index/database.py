"""The SQLite index of turns and documents (derived; rebuilt from vault + sources).

Tables:
    turns        every turn ever read, with its per-user number, provenance and status
                 (active / edited / removed); rows are never deleted
    documents    every vault document (Knowledge, Knowledge_staging, Reflections)
    items        one searchable item per turn or document, with the filter columns
    items_fts    FTS5 (Porter stemming) over items: title, body, previous turn, context
    read_state   per source unit: what was read so far (offsets, fingerprints, problems)
    source_health  what the watcher last knew about each source (for ``curator status``)
    meta         schema version and per-user ledger positions

Threading contract: any thread may read (each gets its own connection; WAL lets reads run
beside a write); writes are serialised by one lock on one write connection.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.clock import parse_iso
from curator.sources.adapters.base import ReadState
from curator.sources.turns import IndexedTurn
from curator.sources.validation import record_problem
from curator.vault.documents import Document

log = logging.getLogger(__name__)
# One encoder for every turn's extra: ``json.dumps`` with options builds a new one per call.
_EXTRA_JSON = json.JSONEncoder(sort_keys=True)

SCHEMA_VERSION = 1
# bm25 column weights: title, body, previous turn (context of a pair), context.md
BM25_WEIGHTS = (2.0, 1.0, 0.4, 0.2)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS turns(
    id INTEGER PRIMARY KEY,
    user_id TEXT NOT NULL,
    number INTEGER NOT NULL,
    source_id TEXT NOT NULL,
    file TEXT NOT NULL,
    conversation TEXT NOT NULL,
    key TEXT NOT NULL,
    position INTEGER NOT NULL,
    role TEXT NOT NULL,
    speaker TEXT NOT NULL,
    text TEXT NOT NULL,
    timestamp REAL NOT NULL,
    sha256 TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'active',
    status_reason TEXT NOT NULL DEFAULT '',
    supersedes INTEGER,
    context TEXT NOT NULL DEFAULT '',
    extra TEXT NOT NULL DEFAULT '{}',
    ingested_at REAL NOT NULL,
    item_id INTEGER,
    UNIQUE(user_id, number)
);
CREATE INDEX IF NOT EXISTS turns_file ON turns(source_id, file, status);
CREATE INDEX IF NOT EXISTS turns_identity ON turns(source_id, file, conversation, key, sha256);
CREATE INDEX IF NOT EXISTS turns_conversation ON turns(source_id, conversation, position);
CREATE TABLE IF NOT EXISTS documents(
    path TEXT PRIMARY KEY,
    id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    area TEXT NOT NULL,
    title TEXT NOT NULL,
    topic TEXT NOT NULL,
    keywords TEXT NOT NULL,
    scope TEXT NOT NULL,
    quality REAL,
    content_types TEXT NOT NULL,
    created_at TEXT NOT NULL,
    deleted INTEGER NOT NULL,
    source_turns TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    item_id INTEGER
);
CREATE INDEX IF NOT EXISTS documents_id ON documents(id);
CREATE TABLE IF NOT EXISTS items(
    id INTEGER PRIMARY KEY,
    item_type TEXT NOT NULL,
    ref TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    content_types TEXT NOT NULL,
    topic TEXT NOT NULL,
    scope TEXT,
    quality REAL,
    ts REAL,
    searchable INTEGER NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS items_fts USING fts5(
    title, body, prev, context, tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS read_state(
    source_id TEXT NOT NULL,
    unit TEXT NOT NULL,
    state TEXT NOT NULL,
    problem TEXT NOT NULL DEFAULT '',
    PRIMARY KEY(source_id, unit)
);
CREATE TABLE IF NOT EXISTS turn_archive(
    user_id TEXT NOT NULL,
    number INTEGER NOT NULL,
    text TEXT NOT NULL,
    context TEXT NOT NULL,
    PRIMARY KEY(user_id, number)
);
CREATE VIRTUAL TABLE IF NOT EXISTS archive_fts USING fts5(
    text, user_id UNINDEXED, number UNINDEXED, tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS source_health(
    source_id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    detail TEXT NOT NULL,
    updated_at REAL NOT NULL
);
"""

# An archived turn's text and context live in ``turn_archive`` (curator.index.archive); every
# read of a turn takes them from there, so callers never see the difference.
_ARCHIVED = "(SELECT a.{0} FROM turn_archive a WHERE a.user_id = turns.user_id AND a.number = turns.number)"
_TURN_COLUMNS = (
    "number, user_id, source_id, file, conversation, key, position, role, speaker, "
    f"COALESCE({_ARCHIVED.format('text')}, turns.text) AS text, "
    f"timestamp, sha256, status, COALESCE({_ARCHIVED.format('context')}, turns.context) AS context, extra"
)


@dataclass(frozen=True)
class DocumentRow:
    """A document as the index knows it."""

    path: str  # relative to the vault root
    id: str
    user_id: str
    kind: str
    area: str  # knowledge | staging | reflections
    title: str
    topic: str
    keywords: list[str]
    scope: str
    quality: float | None
    content_types: list[str]
    created_at: str
    deleted: bool
    source_turns: list[int]


def _turn_from_row(row: sqlite3.Row) -> IndexedTurn:
    return IndexedTurn(
        number=row["number"],
        user_id=row["user_id"],
        source_id=row["source_id"],
        file=row["file"],
        conversation=row["conversation"],
        key=row["key"],
        position=row["position"],
        role=row["role"],
        speaker=row["speaker"],
        text=row["text"],
        timestamp=row["timestamp"],
        sha256=row["sha256"],
        status=row["status"],
        context=row["context"],
        extra=json.loads(row["extra"] or "{}"),
    )


def _doc_from_row(row: sqlite3.Row) -> DocumentRow:
    return DocumentRow(
        path=row["path"],
        id=row["id"],
        user_id=row["user_id"],
        kind=row["kind"],
        area=row["area"],
        title=row["title"],
        topic=row["topic"],
        keywords=json.loads(row["keywords"]),
        scope=row["scope"],
        quality=row["quality"],
        content_types=json.loads(row["content_types"]),
        created_at=row["created_at"],
        deleted=bool(row["deleted"]),
        source_turns=json.loads(row["source_turns"]),
    )


def _prev_text(conn: sqlite3.Connection, source_id: str, conversation: str, position: int, row_id: int) -> str:
    """Text of the active turn before ``row_id`` in its conversation ('' for the first)."""
    prev = conn.execute(
        # Row-value comparison so SQLite walks the (source, conversation, position, rowid)
        # index backwards instead of scanning the whole conversation.
        f"SELECT COALESCE({_ARCHIVED.format('text')}, turns.text) AS text FROM turns "
        "WHERE source_id = ? AND conversation = ? AND (position, id) < (?, ?) AND status = 'active' "
        "ORDER BY position DESC, id DESC LIMIT 1",
        (source_id, conversation, position, row_id),
    ).fetchone()
    return str(prev["text"]) if prev else ""


_EXPECTED_TURN_COLUMNS = {
    "id", "user_id", "number", "source_id", "file", "conversation", "key", "position", "role", "speaker",
    "text", "timestamp", "sha256", "status", "status_reason", "supersedes", "context", "extra", "ingested_at",
    "item_id",
}


def remove_database(path: Path) -> None:
    """Delete an SQLite file with its WAL and shared-memory files (missing ones are fine)."""
    for name in (path.name, path.name + "-wal", path.name + "-shm", path.name + "-journal"):
        try:
            os.unlink(path.with_name(name))
        except FileNotFoundError:
            pass


def set_aside_database(path: Path) -> Path:
    """Move a damaged index (and its WAL) aside as ``<name>.corrupt-N``; never deletes it."""
    n = 1
    while path.with_name(f"{path.name}.corrupt-{n}").exists():
        n += 1
    aside = path.with_name(f"{path.name}.corrupt-{n}")
    if path.exists():
        os.replace(path, aside)
    for suffix in ("-wal", "-shm", "-journal"):
        extra = path.with_name(path.name + suffix)
        if extra.exists():
            os.replace(extra, aside.with_name(aside.name + suffix))
    return aside


def _record_seq(record: Any) -> int:
    try:
        return int(record["seq"])
    except (TypeError, ValueError, KeyError, OverflowError):
        return 0


def _pack_types(types: Iterable[str]) -> str:
    # ",a,b," so one LIKE '%,x,%' tests membership
    cleaned = [t.strip().lower() for t in types if t and t.strip()]
    return "," + ",".join(cleaned) + "," if cleaned else ""


class IndexDamagedError(RuntimeError):
    """The index file cannot be used and this process may not replace it."""


class Index:
    """The index database of one vault.

    Args:
        path: the index file.
        heal: when the file is unreadable, corrupt or of another schema, move it aside
            (``index.sqlite.corrupt-N``) and start an empty one; ``healed`` then says what
            happened and the caller rebuilds it (the index is derived). Without ``heal`` such
            a file raises ``IndexDamagedError``.
    """

    def __init__(self, path: Path, *, heal: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._write_lock = threading.RLock()
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._closed = False
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
        if self._schema_ready():
            return  # no write at all: readers beside a busy watcher never wait here
        self._check_not_foreign()
        with self._write_lock:
            self._writer.executescript(_SCHEMA)
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
        if not columns >= _EXPECTED_TURN_COLUMNS:
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
            raise sqlite3.DatabaseError(f"schema version {found}, this app needs {SCHEMA_VERSION}")

    # ---- Connections

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
        conn.row_factory = sqlite3.Row
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

    # ---- Meta

    def get_meta(self, key: str, default: str = "") -> str:
        """A value of the meta table (schema version, ledger positions)."""
        row = self.reader().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row["value"] if row else default

    def ledger_seq(self, user_id: str) -> int:
        """The last ledger record of ``user_id`` applied to this index."""
        return int(self.get_meta(f"ledger_seq:{user_id}", "0"))

    # ---- Turns: reading

    def max_number(self, user_id: str) -> int:
        """The highest turn number of a user (0 when none)."""
        row = self.reader().execute(
            "SELECT MAX(number) AS n FROM turns WHERE user_id = ?", (user_id,)
        ).fetchone()
        return int(row["n"] or 0)

    def get_turn(self, user_id: str, number: int) -> IndexedTurn | None:
        """A turn by its per-user number."""
        row = self.reader().execute(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE user_id = ? AND number = ?", (user_id, number)
        ).fetchone()
        return _turn_from_row(row) if row else None

    def turns(
        self,
        user_id: str,
        *,
        after: int = 0,
        limit: int | None = None,
        statuses: tuple[str, ...] = ("active",),
    ) -> list[IndexedTurn]:
        """A user's turns with numbers above ``after``, in number order."""
        marks = ",".join("?" * len(statuses))
        sql = (
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE user_id = ? AND number > ? "
            f"AND status IN ({marks}) ORDER BY number"
        )
        params: list[Any] = [user_id, after, *statuses]
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [_turn_from_row(r) for r in self.reader().execute(sql, params)]

    def file_turns(self, source_id: str, file: str, statuses: tuple[str, ...] = ("active",)) -> list[IndexedTurn]:
        """Turns read from one unit of a source, in position order."""
        marks = ",".join("?" * len(statuses))
        rows = self.reader().execute(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE source_id = ? AND file = ? AND status IN ({marks}) "
            "ORDER BY position, number",
            (source_id, file, *statuses),
        )
        return [_turn_from_row(r) for r in rows]

    def find_identity(self, source_id: str, file: str, conversation: str, key: str, sha256: str) -> IndexedTurn | None:
        """The row for exactly this message and content, whatever its status."""
        row = self.reader().execute(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE source_id = ? AND file = ? AND conversation = ? "
            "AND key = ? AND sha256 = ? ORDER BY number DESC LIMIT 1",
            (source_id, file, conversation, key, sha256),
        ).fetchone()
        return _turn_from_row(row) if row else None

    def find_key(self, source_id: str, file: str, conversation: str, key: str) -> IndexedTurn | None:
        """The active row holding a message key, if any."""
        row = self.reader().execute(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE source_id = ? AND file = ? AND conversation = ? "
            "AND key = ? AND status = 'active' ORDER BY number DESC LIMIT 1",
            (source_id, file, conversation, key),
        ).fetchone()
        return _turn_from_row(row) if row else None

    def has_line(self, source_id: str, file: str, conversation: str, position: int, sha256: str) -> bool:
        """Whether a unit already holds this text at this position (an already-read line)."""
        row = self.reader().execute(
            "SELECT 1 FROM turns WHERE source_id = ? AND conversation = ? AND position = ? AND file = ? "
            "AND sha256 = ? AND status != 'removed' LIMIT 1",
            (source_id, conversation, position, file, sha256),
        ).fetchone()
        return row is not None

    def key_uses(self, source_id: str, file: str, conversation: str, key: str) -> int:
        """How many distinct messages of a unit carry ``key`` (itself or with a ``#dup`` suffix)."""
        prefix = key + "#dup"
        row = self.reader().execute(
            "SELECT COUNT(DISTINCT key) AS n FROM turns WHERE source_id = ? AND file = ? AND conversation = ? "
            "AND status != 'removed' AND (key = ? OR substr(key, 1, ?) = ?)",
            (source_id, file, conversation, key, len(prefix), prefix),
        ).fetchone()
        return int(row["n"] or 0)

    def file_known(self, source_id: str, file: str) -> bool:
        """Whether any turn (of any status) was ever read from this unit."""
        row = self.reader().execute(
            "SELECT 1 FROM turns WHERE source_id = ? AND file = ? LIMIT 1", (source_id, file)
        ).fetchone()
        return row is not None

    def source_files(self, source_id: str) -> list[str]:
        """Units of a source that have active turns."""
        rows = self.reader().execute(
            "SELECT DISTINCT file FROM turns WHERE source_id = ? AND status = 'active'", (source_id,)
        )
        return [r["file"] for r in rows]

    def turn_counts(self) -> dict[str, dict[str, int]]:
        """{user: {status: count}} over all turns."""
        counts: dict[str, dict[str, int]] = {}
        for row in self.reader().execute(
            "SELECT user_id, status, COUNT(*) AS n FROM turns GROUP BY user_id, status"
        ):
            counts.setdefault(row["user_id"], {})[row["status"]] = row["n"]
        return counts

    def source_turn_counts(self) -> dict[str, int]:
        """{source id: active turns}."""
        rows = self.reader().execute(
            "SELECT source_id, COUNT(*) AS n FROM turns WHERE status = 'active' GROUP BY source_id"
        )
        return {r["source_id"]: r["n"] for r in rows}

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
        refused: list[tuple[dict[str, Any], str]] = []
        with self.write() as conn:
            done = int(
                (
                    conn.execute(
                        "SELECT value FROM meta WHERE key = ?", (f"ledger_seq:{user_id}",)
                    ).fetchone()
                    or ["0"]
                )[0]
            )
            touched: list[int] = []
            last = done
            adds: list[dict[str, Any]] = []  # consecutive adds, applied together
            for record in records:
                seq = _record_seq(record)
                if seq <= done:
                    continue
                last = max(last, seq)
                problem = None if checked else record_problem(record)
                if problem is None and record.get("op") == "add":
                    adds.append(record)
                    continue
                self._apply_adds(conn, user_id, adds, touched, refused)
                adds = []
                if problem is None:
                    problem = self._apply_guarded(conn, user_id, record, touched)
                if problem is not None:
                    log.warning("ledger record %s of %s set aside: %s", seq, user_id, problem)
                    refused.append((record, problem))
            self._apply_adds(conn, user_id, adds, touched, refused)
            if last != done:
                conn.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (f"ledger_seq:{user_id}", str(last))
                )
            self._refresh_pairs(conn, user_id, touched)
            for source_id, unit, state, problem in read_states:
                if state is None:
                    conn.execute("DELETE FROM read_state WHERE source_id = ? AND unit = ?", (source_id, unit))
                else:
                    conn.execute(
                        "INSERT OR REPLACE INTO read_state(source_id, unit, state, problem) VALUES (?, ?, ?, ?)",
                        (source_id, unit, json.dumps(state.to_dict()), problem),
                    )
        return refused

    def _apply_guarded(self, conn: sqlite3.Connection, user_id: str, record: dict[str, Any],
                       touched: list[int]) -> str | None:
        """Apply one record inside its own savepoint; the reason when the index refuses it."""
        conn.execute("SAVEPOINT one_record")
        problem = None
        try:
            touched.append(self._apply_one(conn, user_id, record))
        except (sqlite3.Error, ValueError, TypeError, KeyError, OverflowError) as exc:
            conn.execute("ROLLBACK TO one_record")
            problem = f"refused by the index ({type(exc).__name__}: {exc})"
        conn.execute("RELEASE one_record")
        return problem

    def _apply_adds(self, conn: sqlite3.Connection, user_id: str, adds: list[dict[str, Any]],
                    touched: list[int], refused: list[tuple[dict[str, Any], str]]) -> None:
        """Apply a run of new turns: in three ``executemany`` when they only extend their
        conversations, else one by one.

        Row ids are given in record order, exactly as one-by-one inserts would get them, so
        a live import and a rebuild from the ledger pair every turn with the same one.
        """
        if not adds:
            return
        if len(adds) > 1 and self._bulk_adds(conn, user_id, adds):
            return
        for record in adds:
            problem = self._apply_guarded(conn, user_id, record, touched)
            if problem is not None:
                log.warning("ledger record %s of %s set aside: %s", record.get("seq"), user_id, problem)
                refused.append((record, problem))

    def _bulk_adds(self, conn: sqlite3.Connection, user_id: str, adds: list[dict[str, Any]]) -> bool:
        """The fast path of ``_apply_adds``; False (nothing written) when it does not apply.

        It applies when no active turn already sits at or after the first new position of
        each conversation: then each new turn's predecessor is the one before it among the
        new turns (or, for the first, the last one already indexed), and no indexed turn
        needs a new predecessor. That is every first import and every append at the end.
        """
        groups: dict[tuple[str, str], list[int]] = {}
        for i, record in enumerate(adds):
            t = record["turn"]
            groups.setdefault((t["source_id"], t["conversation"]), []).append(i)
        for (source_id, conversation), members in groups.items():
            first = min(int(adds[i]["turn"]["position"]) for i in members)
            later = conn.execute(
                "SELECT 1 FROM turns WHERE source_id = ? AND conversation = ? AND position >= ? "
                "AND status = 'active' LIMIT 1",
                (source_id, conversation, first),
            ).fetchone()
            if later is not None:
                return False
        turn_id = int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM turns").fetchone()[0]) + 1
        item_id = int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM items").fetchone()[0]) + 1
        ids = [(turn_id + i, item_id + i) for i in range(len(adds))]
        prev: list[str] = [""] * len(adds)
        for (source_id, conversation), members in groups.items():
            members.sort(key=lambda i: (int(adds[i]["turn"]["position"]), ids[i][0]))
            head = members[0]
            before = _prev_text(conn, source_id, conversation, int(adds[head]["turn"]["position"]), ids[head][0])
            for i in members:
                prev[i] = before
                t = adds[i]["turn"]
                if t.get("status", "active") == "active":
                    before = t["text"]
        turn_rows = []
        item_rows = []
        fts_rows = []
        for i, record in enumerate(adds):
            t = record["turn"]
            extra = t.get("extra") or {}
            number = int(t["number"])
            status = t.get("status", "active")
            timestamp = float(t["timestamp"])
            quality = extra.get("quality")
            turn_rows.append((
                ids[i][0], user_id, number, t["source_id"], t["file"], t["conversation"], t["key"],
                int(t["position"]), t["role"], t["speaker"], t["text"], timestamp, t["sha256"], status, "",
                record.get("supersedes"), t.get("context", ""), _EXTRA_JSON.encode(extra),
                float(record.get("at", 0.0)), ids[i][1],
            ))
            item_rows.append((
                ids[i][1], f"t:{user_id}:{number}", user_id, _pack_types(["context", t["role"]]),
                str(extra.get("topic") or "").lower(),
                float(quality) if isinstance(quality, (int, float)) else None,
                timestamp, 1 if status == "active" else 0,
            ))
            fts_rows.append((ids[i][1], t["text"], prev[i], t.get("context", "")))
        conn.execute("SAVEPOINT bulk_adds")
        try:
            conn.executemany(
                "INSERT INTO turns(id, user_id, number, source_id, file, conversation, key, position, role, "
                "speaker, text, timestamp, sha256, status, status_reason, supersedes, context, extra, "
                "ingested_at, item_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                turn_rows,
            )
            conn.executemany(
                "INSERT INTO items(id, item_type, ref, user_id, kind, content_types, topic, scope, quality, ts, "
                "searchable) VALUES (?, 'turn', ?, ?, 'turn', ?, ?, NULL, ?, ?, ?)",
                item_rows,
            )
            conn.executemany(
                "INSERT INTO items_fts(rowid, title, body, prev, context) VALUES (?, '', ?, ?, ?)", fts_rows
            )
        except sqlite3.Error as exc:
            # One refused row (a number used twice, say): redo them one by one, so only it is refused.
            conn.execute("ROLLBACK TO bulk_adds")
            conn.execute("RELEASE bulk_adds")
            log.info("bulk insert of %d turns refused (%s); applying them one by one", len(adds), exc)
            return False
        conn.execute("RELEASE bulk_adds")
        return True

    def _apply_one(self, conn: sqlite3.Connection, user_id: str, record: dict[str, Any]) -> int:
        op = record.get("op")
        if op == "add":
            t = record["turn"]
            extra = t.get("extra") or {}
            cur = conn.execute(
                "INSERT INTO turns(user_id, number, source_id, file, conversation, key, position, role, "
                "speaker, text, timestamp, sha256, status, status_reason, supersedes, context, extra, "
                "ingested_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    user_id, int(t["number"]), t["source_id"], t["file"], t["conversation"], t["key"],
                    int(t["position"]), t["role"], t["speaker"], t["text"], float(t["timestamp"]),
                    t["sha256"], t.get("status", "active"), "", record.get("supersedes"),
                    t.get("context", ""), _EXTRA_JSON.encode(extra), float(record.get("at", 0.0)),
                ),
            )
            turn_row_id = int(cur.lastrowid or 0)
            quality = extra.get("quality")
            item = conn.execute(
                "INSERT INTO items(item_type, ref, user_id, kind, content_types, topic, scope, quality, ts, "
                "searchable) VALUES ('turn', ?, ?, 'turn', ?, ?, NULL, ?, ?, ?)",
                (
                    f"t:{user_id}:{int(t['number'])}", user_id, _pack_types(["context", t["role"]]),
                    str(extra.get("topic") or "").lower(),
                    float(quality) if isinstance(quality, (int, float)) else None,
                    float(t["timestamp"]), 1 if t.get("status", "active") == "active" else 0,
                ),
            )
            item_id = int(item.lastrowid or 0)
            conn.execute("UPDATE turns SET item_id = ? WHERE id = ?", (item_id, turn_row_id))
            # Pair the turn with its predecessor now: rewriting an FTS row later costs a delete
            # and an insert, which made the pairing pass most of the cost of an import.
            prev_text = _prev_text(conn, t["source_id"], t["conversation"], int(t["position"]), turn_row_id)
            conn.execute(
                "INSERT INTO items_fts(rowid, title, body, prev, context) VALUES (?, '', ?, ?, ?)",
                (item_id, t["text"], prev_text, t.get("context", "")),
            )
            return turn_row_id
        row = conn.execute(
            "SELECT id, item_id FROM turns WHERE user_id = ? AND number = ?", (user_id, int(record["number"]))
        ).fetchone()
        if row is None:
            log.warning("ledger record %s names unknown turn %s; ignored", record.get("seq"), record.get("number"))
            return 0
        if op == "status":
            status = str(record["status"])
            conn.execute(
                "UPDATE turns SET status = ?, status_reason = ? WHERE id = ?",
                (status, str(record.get("reason", "")), row["id"]),
            )
            conn.execute(
                "UPDATE items SET searchable = ? WHERE id = ?", (1 if status == "active" else 0, row["item_id"])
            )
        elif op == "move":
            conn.execute(
                "UPDATE turns SET key = ?, position = ? WHERE id = ?",
                (str(record["key"]), int(record["position"]), row["id"]),
            )
        else:
            log.warning("ledger record %s has unknown op %r; ignored", record.get("seq"), op)
        return int(row["id"])

    def _refresh_pairs(self, conn: sqlite3.Connection, user_id: str, touched: list[int]) -> None:
        # A turn is indexed with the active turn before it; changes shift that pairing for the
        # touched turns and for the turn right after each of them.
        targets: set[int] = set()
        for row_id in touched:
            if not row_id:
                continue
            row = conn.execute(
                "SELECT source_id, conversation, position FROM turns WHERE id = ?", (row_id,)
            ).fetchone()
            if row is None:
                continue
            targets.add(row_id)
            nxt = conn.execute(
                "SELECT id FROM turns WHERE source_id = ? AND conversation = ? AND (position, id) > (?, ?) "
                "AND status = 'active' ORDER BY position, id LIMIT 1",
                (row["source_id"], row["conversation"], row["position"], row_id),
            ).fetchone()
            if nxt is not None:
                targets.add(nxt["id"])
        for row_id in targets:
            row = conn.execute(
                "SELECT source_id, conversation, position, item_id FROM turns WHERE id = ?", (row_id,)
            ).fetchone()
            prev_text = _prev_text(conn, row["source_id"], row["conversation"], row["position"], row_id)
            current = conn.execute("SELECT prev FROM items_fts WHERE rowid = ?", (row["item_id"],)).fetchone()
            if current is not None and current["prev"] != prev_text:
                conn.execute("UPDATE items_fts SET prev = ? WHERE rowid = ?", (prev_text, row["item_id"]))

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

    # ---- Documents

    def document_fingerprint(self, rel_path: str) -> str | None:
        """The size/mtime fingerprint a document was indexed at, or None when not indexed."""
        row = self.reader().execute("SELECT fingerprint FROM documents WHERE path = ?", (rel_path,)).fetchone()
        return row["fingerprint"] if row else None

    def document_paths(self) -> list[str]:
        """Vault-relative paths of every indexed document."""
        return [r["path"] for r in self.reader().execute("SELECT path FROM documents")]

    def upsert_document(self, rel_path: str, doc: Document, user_id: str, area: str, fingerprint: str) -> None:
        """Index (or re-index) one vault document."""
        title = doc.title
        topic = str(doc.get("primary_topic") or "").lower()
        keywords = doc.keywords
        created_at = str(doc.get("created_at") or "")
        deleted = doc.deleted
        # A summary waiting for review (ungrounded or flagged) is not searchable until approved.
        pending = doc.get("review") == "pending"
        searchable = 1 if area in ("knowledge", "reflections") and not deleted and not pending else 0
        quality = doc.get("quality")
        quality_value = float(quality) if isinstance(quality, (int, float)) and not isinstance(quality, bool) else None
        with self.write() as conn:
            self._remove_document(conn, rel_path)
            item = conn.execute(
                "INSERT INTO items(item_type, ref, user_id, kind, content_types, topic, scope, quality, ts, "
                "searchable) VALUES ('document', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    f"d:{rel_path}", user_id, doc.kind.lower(), _pack_types(doc.content_types), topic,
                    doc.scope, quality_value, parse_iso(created_at), searchable,
                ),
            )
            item_id = int(item.lastrowid or 0)
            conn.execute(
                "INSERT INTO items_fts(rowid, title, body, prev, context) VALUES (?, ?, ?, '', '')",
                (item_id, " ".join([title, " ".join(keywords), topic.replace(".", " ")]).strip(), doc.body),
            )
            conn.execute(
                "INSERT INTO documents(path, id, user_id, kind, area, title, topic, keywords, scope, quality, "
                "content_types, created_at, deleted, source_turns, fingerprint, item_id) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    rel_path, doc.id, user_id, doc.kind, area, title, topic, json.dumps(keywords), doc.scope,
                    quality_value, json.dumps(doc.content_types), created_at, int(deleted),
                    json.dumps(doc.source_turns), fingerprint, item_id,
                ),
            )

    def remove_document(self, rel_path: str) -> None:
        """Forget a document that is no longer in the vault."""
        with self.write() as conn:
            self._remove_document(conn, rel_path)

    @staticmethod
    def _remove_document(conn: sqlite3.Connection, rel_path: str) -> None:
        row = conn.execute("SELECT item_id FROM documents WHERE path = ?", (rel_path,)).fetchone()
        if row is None:
            return
        conn.execute("DELETE FROM items_fts WHERE rowid = ?", (row["item_id"],))
        conn.execute("DELETE FROM items WHERE id = ?", (row["item_id"],))
        conn.execute("DELETE FROM documents WHERE path = ?", (rel_path,))

    def get_document(self, doc_id_or_path: str) -> DocumentRow | None:
        """A document row by id (prefering Knowledge, then Reflections, then staging) or by path."""
        row = self.reader().execute(
            "SELECT * FROM documents WHERE id = ? OR path = ? ORDER BY "
            "CASE area WHEN 'knowledge' THEN 0 WHEN 'reflections' THEN 1 ELSE 2 END LIMIT 1",
            (doc_id_or_path, doc_id_or_path),
        ).fetchone()
        return _doc_from_row(row) if row else None

    def documents(self, user_id: str | None = None, area: str | None = None) -> list[DocumentRow]:
        """Document rows, optionally of one user and area."""
        sql, params = "SELECT * FROM documents WHERE 1=1", []
        if user_id is not None:
            sql += " AND user_id = ?"
            params.append(user_id)
        if area is not None:
            sql += " AND area = ?"
            params.append(area)
        return [_doc_from_row(r) for r in self.reader().execute(sql + " ORDER BY path", params)]

    def document_counts(self) -> dict[str, int]:
        """{area: documents} (soft-deleted reflections counted under 'deleted')."""
        counts: dict[str, int] = {}
        for row in self.reader().execute("SELECT area, deleted, COUNT(*) AS n FROM documents GROUP BY area, deleted"):
            key = "deleted" if row["deleted"] else row["area"]
            counts[key] = counts.get(key, 0) + row["n"]
        return counts

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
                "SELECT i.ref, i.item_type, i.user_id, i.kind, i.content_types, i.topic, i.scope, i.quality, "
                "i.ts, i.searchable, f.title, f.body, f.prev, f.context FROM items i "
                "JOIN items_fts f ON f.rowid = i.id ORDER BY i.ref"
            )
        ]
        archive = [
            tuple(r)
            for r in conn.execute("SELECT user_id, number, text, context FROM turn_archive ORDER BY user_id, number")
        ]
        return {"turns": turns, "documents": documents, "items": items, "archive": archive}
