"""Ollama's desktop app: ``db.sqlite`` with ``chats`` and ``messages`` (WAL mode).

On every send the app deletes a chat's messages and inserts them all again, so row ids
change each turn: a message is keyed by its role and ``created_at`` (kept across the
re-insert), never by ``messages.id``. The reply streams into the last assistant row by
repeated updates; it is taken once a newer message follows it or it has not changed for
``SETTLE_SECONDS``. The schema version is ``settings.schema_version``; only versions read
in the app's source are accepted.
"""

from __future__ import annotations

import sqlite3
import time

from curator.sources.adapters.base import ReadResult
from curator.sources.adapters.sqlite_base import (
    Cursor,
    SchemaInfo,
    SqliteAdapter,
    as_int,
    missing_columns,
    parse_db_time,
    table_columns,
    time_key,
)
from curator.sources.turns import normalise_role

KNOWN_VERSIONS = range(2, 19)  # app/store/database.go: schema v2 (first release) .. v18
REQUIRED = {
    "chats": {"id", "title", "created_at"},
    "messages": {"id", "chat_id", "role", "content", "created_at", "updated_at"},
}
SETTLE_SECONDS = 3.0


class OllamaAppAdapter(SqliteAdapter):
    """Reads the chats of the Ollama desktop app."""

    name = "ollama"
    client = "Ollama app"
    description = "Ollama desktop app db.sqlite (chats, messages), read-only"
    db_names = ("db.sqlite",)

    def inspect(self, conn: sqlite3.Connection) -> SchemaInfo:
        tables = table_columns(conn)
        version_number: int | None = None
        if "settings" in tables and "schema_version" in tables["settings"]:
            row = conn.execute("SELECT schema_version FROM settings LIMIT 1").fetchone()
            version_number = as_int(row[0]) if row else None
        version = f"schema {version_number}" if version_number is not None else ""
        missing = missing_columns(tables, REQUIRED)
        if missing:
            return SchemaInfo(version, False, "missing " + ", ".join(missing), frozenset(tables))
        if version_number is None:
            return SchemaInfo(version, False, "no settings.schema_version", frozenset(tables))
        if version_number not in KNOWN_VERSIONS:
            return SchemaInfo(version, False, f"schema {version_number} is not one of the known "
                              f"{KNOWN_VERSIONS.start}..{KNOWN_VERSIONS.stop - 1}", frozenset(tables))
        return SchemaInfo(version, True, "", frozenset(tables))

    def count_conversations(self, conn: sqlite3.Connection) -> int:
        return int(conn.execute("SELECT COUNT(*) FROM chats").fetchone()[0])

    def read_db(self, conn: sqlite3.Connection, where: str, source_id: str, cursor: Cursor,
                result: ReadResult) -> None:
        since, after = cursor.updated, cursor.rowid
        changed: list[str] = []
        seen: set[str] = set()
        for row in conn.execute("SELECT id, chat_id, updated_at FROM messages ORDER BY id"):
            rowid, key = as_int(row["id"]), time_key(row["updated_at"])
            chat_id = str(row["chat_id"])
            if chat_id not in seen and (cursor.first or (rowid or 0) > after or (key is not None and key >= since)):
                changed.append(chat_id)
                seen.add(chat_id)
            cursor.see(key, rowid)
        now = time.time()
        held_from: int | None = None
        for chat_id in changed:
            mark = self._read_chat(conn, chat_id, where, source_id, result, now)
            if mark is not None:
                held_from = mark if held_from is None else min(held_from, mark)
        if held_from is not None:
            cursor.held = True
            cursor.updated = min(cursor.updated, held_from)

    def _read_chat(self, conn: sqlite3.Connection, chat_id: str, where: str, source_id: str,
                   result: ReadResult, now: float) -> int | None:
        """Append one chat's settled turns; the held reply's cursor mark, or None."""
        chat = conn.execute("SELECT title, created_at FROM chats WHERE id = ?", (chat_id,)).fetchone()
        title = str(chat["title"] or "") if chat else ""
        fallback = parse_db_time(chat["created_at"]) if chat else None
        # Optional columns (model_name) differ by schema version; dicts answer .get.
        rows = [dict(r) for r in conn.execute("SELECT * FROM messages WHERE chat_id = ? ORDER BY id", (chat_id,))]
        counts: dict[str, int] = {}
        for position, row in enumerate(rows):
            role = normalise_role(row["role"])
            content = row["content"]
            updated = parse_db_time(row["updated_at"])
            settling = updated is None or now - updated < SETTLE_SECONDS
            if role == "assistant" and position == len(rows) - 1 and settling:
                return time_key(row["updated_at"]) or 0  # still streaming, perhaps
            if role == "tool":
                continue  # tool output is not conversation; kept in the app, not a turn
            if role not in ("user", "assistant", "system"):
                result.problem(f"{where}: chat {chat_id} message {row['id']}: role {row['role']!r} "
                                       "is not a chat turn; skipped")
                continue
            if not isinstance(content, str):
                result.problem(f"{where}: chat {chat_id} message {row['id']}: content is "
                                       f"{type(content).__name__}, not text; skipped")
                continue
            if not content.strip():
                continue
            when = parse_db_time(row["created_at"])
            # created_at survives the app's delete-and-reinsert; the counter separates two
            # messages of one role written in the same instant.
            stamp = str(row["created_at"])
            slot = f"{role}@{stamp}"
            counts[slot] = counts.get(slot, 0) + 1
            key = slot if counts[slot] == 1 else f"{slot}#{counts[slot]}"
            model = row.get("model_name")
            speaker = "user" if role == "user" else str(model or "assistant") if role == "assistant" else "system"
            result.turns.append(self.turn(
                source_id=source_id, where=where, conversation=chat_id, key=key, position=position,
                role=role, speaker=speaker, text=content.strip(), when=when, fallback=fallback,
                title=title, message_id=key,
            ))
            if when is not None:
                fallback = when
        return None
