"""What every SQLite chat client adapter shares: reading a live database without harm.

The client owns the database and may be writing to it while we read, in WAL or rollback-
journal mode. So we open it read-only through a ``file:...?mode=ro`` URI (never
``immutable=1``, which would hide live changes), set ``query_only``, read in one short
transaction and close at once: the client's writes never wait for us. A "database is
locked" while a rollback-journal writer commits is not an error, only "read again later".

A unit is the database file; the ``-wal`` and ``-journal`` files beside it map to it, so a
change to either is noticed, and the periodic rescan (fingerprint of all three) is the
polling fallback. Reads are incremental: each adapter keeps a cursor (``updated_at`` and
rowid high-water marks) in ``ReadState.offset``/``ReadState.lines``.

A schema the adapter does not know (missing tables or columns, a version number it has not
seen) is reported as "unsupported version" and nothing is read from it.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
import time
from abc import abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from curator.sources.adapters.base import (
    Adapter,
    ReadResult,
    ReadState,
    relative_name,
    stat_fingerprint,
)
from curator.sources.turns import (
    EXTRA_FORMAT,
    EXTRA_MESSAGE_ID,
    EXTRA_TIME_UNKNOWN,
    EXTRA_TITLE,
    Turn,
)

SQLITE_MAGIC = b"SQLite format 3\x00"
# Suffixes of the files SQLite keeps beside a database; a change to any is a change to it.
COMPANIONS = ("-wal", "-journal")
BUSY_TIMEOUT_MS = 200  # short: if a writer holds the lock, we come back rather than wait
UNSUPPORTED = "unsupported version"
DB_SUFFIXES = (".db", ".sqlite", ".sqlite3")

_GO_TIME_RE = re.compile(
    r"^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?\s*(Z|[+-]\d{2}:?\d{2})?(?:\s+\S+)?$"
)


class SchemaError(Exception):
    """The database's tables are not the shape this adapter reads."""


@dataclass(frozen=True)
class SchemaInfo:
    """What a database says about itself: its version and whether we can read it."""

    version: str
    supported: bool
    reason: str = ""
    tables: frozenset[str] = frozenset()


@dataclass
class ClientInfo:
    """A client database as seen from outside: for discovery and the Sources settings."""

    client: str
    adapter: str
    path: str
    version: str = ""
    supported: bool = True
    conversations: int = 0
    detail: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "adapter": self.adapter,
            "path": self.path,
            "version": self.version,
            "supported": self.supported,
            "conversations": self.conversations,
            "detail": self.detail,
        }


def is_sqlite_file(path: Path) -> bool:
    """True when ``path`` starts with the SQLite header."""
    try:
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


@contextmanager
def open_readonly(db: Path) -> Iterator[sqlite3.Connection]:
    """A read-only, query-only connection to ``db`` inside one read transaction.

    ``mode=ro`` means SQLite itself refuses any write; ``query_only`` is a second guard.
    The connection is closed on exit so no read lock outlives the ``with`` block.

    A WAL database whose client is not running has no ``-wal`` file; a reader would create
    an empty ``-wal`` and ``-shm`` beside it (it cannot remove them read-only). Then the main
    file holds everything, so it is read as immutable and nothing is created in the
    client's folder. While the client runs (``-wal`` present) we share its WAL as any reader.
    """
    uri = f"file:{_uri_path(db)}?mode=ro"
    if _is_wal_mode(db) and not db.with_name(db.name + "-wal").exists():
        uri += "&immutable=1"
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000.0, isolation_level=None,
                           check_same_thread=False)
    try:
        conn.row_factory = sqlite3.Row
        conn.text_factory = _text_or_bytes
        conn.execute("PRAGMA query_only = ON")
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # One snapshot for the whole read, so rows of one chat never mix two commits.
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            conn.execute("COMMIT")
    finally:
        conn.close()


def _text_or_bytes(data: bytes) -> str | bytes:
    # Invalid UTF-8 in one cell must not fail the whole read: the raw bytes come back and
    # the adapter skips that value with a reason.
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def _is_wal_mode(db: Path) -> bool:
    # Header bytes 18 and 19 (file format write/read versions) are 2 in WAL mode.
    try:
        with open(db, "rb") as handle:
            header = handle.read(20)
    except OSError:
        return False
    return len(header) == 20 and header[18] == 2 and header[19] == 2


def _uri_path(db: Path) -> str:
    # '?' and '#' would end the path part of the URI; '%' must not start an escape.
    text = Path(db).resolve().as_posix()
    return text.replace("%", "%25").replace("?", "%3f").replace("#", "%23")


def table_columns(conn: sqlite3.Connection) -> dict[str, set[str]]:
    """Every table of the database with its column names."""
    tables: dict[str, set[str]] = {}
    for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        name = str(row[0])
        cols = conn.execute(f'PRAGMA table_info("{name.replace(chr(34), "")}")').fetchall()
        tables[name] = {str(c[1]) for c in cols}
    return tables


def missing_columns(tables: dict[str, set[str]], required: dict[str, set[str]]) -> list[str]:
    """'table' or 'table.column' for each required piece that is not there."""
    missing = []
    for table, columns in required.items():
        if table not in tables:
            missing.append(table)
            continue
        missing += [f"{table}.{c}" for c in sorted(columns - tables[table])]
    return missing


def parse_db_time(value: Any) -> float | None:
    """A database time as UTC epoch seconds, or None when unreadable.

    Numbers are seconds, milliseconds or microseconds (told apart by size); strings are ISO
    or go-sqlite3's ``2026-01-01 12:00:00.123456789+01:00``; a string without a zone is UTC
    (SQLite's CURRENT_TIMESTAMP, Prisma's ISO text).
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return _from_number(float(value))
    text = str(value).strip()
    if not text:
        return None
    try:
        return _from_number(float(text))
    except ValueError:
        pass
    match = _GO_TIME_RE.match(text)
    if match is None:
        return None
    day, clock, fraction, zone = match.groups()
    stamp = f"{day}T{clock}"
    if fraction:
        stamp += "." + fraction[:6]
    if zone and zone != "Z":
        zone = zone if ":" in zone else f"{zone[:3]}:{zone[3:]}"
        stamp += zone
    try:
        parsed = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def _from_number(number: float) -> float | None:
    # 2000-01-01 .. 2200-01-01: anything else is not a chat time.
    if not math.isfinite(number) or number <= 0:
        return None
    for scale in (1.0, 1e3, 1e6):
        seconds = number / scale
        if 946684800.0 <= seconds <= 7258118400.0:
            return seconds
    return None


def load_json(value: Any) -> tuple[Any, str]:
    """A JSON column's value and '' , or (None, reason) when it is not JSON."""
    if value is None:
        return None, "empty"
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            return None, "not valid UTF-8"
    if not isinstance(value, str):
        return None, f"a {type(value).__name__}, not JSON text"
    try:
        return json.loads(value), ""
    except json.JSONDecodeError as exc:
        return None, f"malformed JSON ({exc.msg} at {exc.pos})"
    except ValueError as exc:  # e.g. a number too long to convert
        return None, f"malformed JSON ({exc})"


def text_of(value: Any) -> str:
    """Message text from a string or a list of content blocks (text parts only)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for part in value:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and part.get("type", "text") in ("text", "input_text", "output_text"):
                inner = part.get("text")
                if isinstance(inner, str):
                    parts.append(inner)
        return "\n".join(p for p in parts if p)
    return ""


class Cursor:
    """The high-water marks of one incremental read (stored in ReadState)."""

    def __init__(self, state: ReadState | None) -> None:
        self.first = state is None or not state.fingerprint
        self.updated = 0 if state is None else state.offset  # seconds (or ms; adapter's unit)
        self.rowid = 0 if state is None else state.lines
        self.held = False  # something was left for later (still streaming)

    def see(self, updated: int | None, rowid: int | None) -> None:
        if updated is not None and updated > self.updated:
            self.updated = updated
        if rowid is not None and rowid > self.rowid:
            self.rowid = rowid


class SqliteAdapter(Adapter):
    """Base of the adapters whose source is a client's SQLite database.

    Subclasses name their database file(s), say which schema they read (``inspect``), and
    turn rows into turns (``read_db``). A source may be the database file itself or the
    folder it lives in.
    """

    client: ClassVar[str] = ""
    db_names: ClassVar[tuple[str, ...]] = ()
    tail_safe = True  # every read is one consistent snapshot; a busy writer never tears it

    # ---- Finding the database

    def claim(self, path: Path, head: bytes) -> float:
        """Per-file detection: our file name and the SQLite header; a renamed copy by its tables."""
        if not head.startswith(SQLITE_MAGIC):
            return 0.0
        if path.name in self.db_names:
            return 0.95
        try:
            return 0.8 if self.inspect_file(path).supported else 0.0
        except sqlite3.Error:
            return 0.0

    def detect(self, root: Path) -> float:
        units = self.list_units(root)
        if not units:
            return 0.0
        named = units[0].name in self.db_names
        try:
            supported = self.inspect_file(units[0]).supported
        except sqlite3.Error:
            supported = False
        # Our file name is the strongest sign (an unknown schema version of it is still ours:
        # it is then reported as unsupported rather than refused); a renamed copy counts
        # only when its tables are the ones we read.
        if named:
            return 0.95 if supported else 0.9
        return 0.8 if supported else 0.0

    def list_units(self, root: Path) -> list[Path]:
        if root.is_file():
            return [root] if is_sqlite_file(root) else []
        if not root.is_dir():
            return []
        try:
            names = sorted(p.name for p in root.iterdir())
        except OSError:
            return []
        return [root / n for n in names if self._is_ours(root / n) and is_sqlite_file(root / n)]

    def unit_for(self, root: Path, path: Path) -> Path | None:
        name = path.name
        for suffix in COMPANIONS:
            if name.endswith(suffix):
                path = path.with_name(name[: -len(suffix)])
                break
        if root.is_file():
            return root if path == root else None
        return path if path.parent == root and self._is_ours(path) else None

    def _is_ours(self, path: Path) -> bool:
        """A database directly in a source folder: the client's own file name, or a copy under
        another database name (``backup.sqlite``) whose tables are the ones we read."""
        if path.name in self.db_names:
            return True  # by name alone: no file opened for every file event
        if path.suffix.lower() not in DB_SUFFIXES or not is_sqlite_file(path):
            return False
        try:
            return self.inspect_file(path).supported
        except sqlite3.Error:
            return False

    def is_complete(self, unit: Path) -> bool:
        return is_sqlite_file(unit)

    def fingerprint(self, unit: Path) -> str:
        return stat_fingerprint([unit, *(unit.with_name(unit.name + s) for s in COMPANIONS)])

    # ---- Schema

    @abstractmethod
    def inspect(self, conn: sqlite3.Connection) -> SchemaInfo:
        """The schema's version and whether this adapter reads it."""

    def inspect_file(self, db: Path) -> SchemaInfo:
        with open_readonly(db) as conn:
            return self.inspect(conn)

    def describe(self, db: Path) -> ClientInfo:
        """Client, schema version, whether supported, and how many conversations it holds."""
        info = ClientInfo(self.client, self.name, str(db))
        try:
            with open_readonly(db) as conn:
                schema = self.inspect(conn)
                info.version, info.supported, info.detail = schema.version, schema.supported, schema.reason
                if schema.supported:
                    info.conversations = self.count_conversations(conn)
        except sqlite3.Error as exc:
            info.supported, info.detail = False, f"cannot be read: {exc}"
        return info

    @abstractmethod
    def count_conversations(self, conn: sqlite3.Connection) -> int:
        """How many conversations the database holds (for discovery)."""

    # ---- Reading

    def read(self, root: Path, unit: Path, source_id: str, state: ReadState | None) -> ReadResult:
        where = relative_name(root, unit)
        # The fingerprint before the read: a commit landing during it makes the next check
        # differ, so it is read again.
        fingerprint = self.fingerprint(unit)
        cursor = Cursor(state)
        result = ReadResult(full=cursor.first)
        try:
            with open_readonly(unit) as conn:
                schema = self.inspect(conn)
                if not schema.supported:
                    result.ready = False
                    result.problem(f"{where}: {UNSUPPORTED} of {self.client} "
                                           f"({schema.version or 'no version'}): {schema.reason}; nothing read")
                    return result
                self.read_db(conn, where, source_id, cursor, result)
        except sqlite3.OperationalError as exc:
            if _is_busy(exc):
                result.ready = False  # the client is committing; the next event or scan retries
                return result
            result.ready = False
            result.problem(f"{where}: cannot be read ({exc}); will retry when it changes")
            return result
        except sqlite3.DatabaseError as exc:
            result.ready = False
            result.problem(f"{where}: not a readable database ({exc}); skipped")
            return result
        # Something held back (a reply still streaming): a fingerprint that never matches
        # makes the next scan read again even if the file does not change meanwhile.
        stored = f"held:{time.monotonic_ns()}" if cursor.held else fingerprint
        result.state = ReadState(fingerprint=stored, offset=cursor.updated, lines=cursor.rowid)
        return result

    @abstractmethod
    def read_db(self, conn: sqlite3.Connection, where: str, source_id: str, cursor: Cursor,
                result: ReadResult) -> None:
        """Append the turns changed since ``cursor`` to ``result``; advance the cursor."""

    def turn(self, *, source_id: str, where: str, conversation: str, key: str, position: int,
             role: str, speaker: str, text: str, when: float | None, fallback: float | None = None,
             title: str = "", message_id: str = "", extra: dict[str, Any] | None = None) -> Turn:
        """A Turn with the provenance keys filled; an unreadable time is marked, not hidden.

        ``fallback`` (the conversation's own time, else the moment of reading) only orders a
        turn whose time the client did not give; ``time_unknown`` says so.
        """
        data = dict(extra or {})
        data[EXTRA_FORMAT] = self.name
        if title:
            data[EXTRA_TITLE] = title
        if message_id:
            data[EXTRA_MESSAGE_ID] = message_id
        if when is None:
            data[EXTRA_TIME_UNKNOWN] = True
            when = fallback if fallback is not None else time.time()
        return Turn(source_id, where, conversation, key, position, role, speaker, text, when, extra=data)


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    message = str(exc).lower()
    return "locked" in message or "busy" in message


def as_int(value: Any) -> int | None:
    """An integer column value, or None for anything else (wrong types are common)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return int(value)
    if isinstance(value, str):
        try:
            return int(float(value.strip()))
        except ValueError:
            return None
    return None


def time_key(value: Any) -> int | None:
    """A cursor value for an ``updated_at`` column: epoch milliseconds, whatever its form."""
    seconds = parse_db_time(value)
    return None if seconds is None else int(seconds * 1000)
