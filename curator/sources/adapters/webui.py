"""Open WebUI: ``webui.db``, one ``chat`` row per conversation, plus ``chat_message`` in new builds.

A ``chat`` row's ``chat`` column is a JSON document whose ``history.messages`` is a tree of
messages (``parentId``); ``history.currentId`` is the leaf the person sees, so the
conversation is the path from the root to it, and other branches (regenerations, edits)
are left out. Recent builds also write each message to the ``chat_message`` table; a
message found only there is read from it. An assistant message with ``done: false`` is
still being streamed: it and anything after it wait for the next read.

The app is multi-user: every chat keeps its owner, whose name (only ``user.name``; the
database also holds credentials, which are never read) is the user turns' speaker.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from curator.sources.adapters.base import ReadResult
from curator.sources.adapters.sqlite_base import (
    Cursor,
    SchemaInfo,
    SqliteAdapter,
    load_json,
    missing_columns,
    parse_db_time,
    table_columns,
    text_of,
    time_key,
)
from curator.sources.turns import normalise_role

REQUIRED = {"chat": {"id", "user_id", "title", "chat", "updated_at"}}
MESSAGE_TABLE = {"id", "chat_id", "role", "parent_id", "content", "done", "updated_at"}
_CHUNK = 400  # ids per IN (...) query, well under SQLite's parameter limit


class OpenWebUIAdapter(SqliteAdapter):
    """Reads the visible branch of every chat in an Open WebUI database."""

    name = "openwebui"
    client = "Open WebUI"
    description = "Open WebUI webui.db (chat JSON column and chat_message table), read-only"
    db_names = ("webui.db",)

    def inspect(self, conn: sqlite3.Connection) -> SchemaInfo:
        tables = table_columns(conn)
        version = ""
        if "alembic_version" in tables:
            row = conn.execute("SELECT version_num FROM alembic_version LIMIT 1").fetchone()
            version = f"alembic {row[0]}" if row else "alembic (empty)"
        elif "migratehistory" in tables:
            version = "peewee migrations"
        missing = missing_columns(tables, REQUIRED)
        if missing:
            return SchemaInfo(version, False, "missing " + ", ".join(missing), frozenset(tables))
        if "chat_message" in tables and MESSAGE_TABLE - tables["chat_message"]:
            # A chat_message we cannot read would hide messages kept only there.
            lacking = ", ".join(sorted(MESSAGE_TABLE - tables["chat_message"]))
            return SchemaInfo(version, False, f"chat_message lacks {lacking}", frozenset(tables))
        return SchemaInfo(version, True, "", frozenset(tables))

    def count_conversations(self, conn: sqlite3.Connection) -> int:
        return int(conn.execute("SELECT COUNT(*) FROM chat").fetchone()[0])

    def read_db(self, conn: sqlite3.Connection, where: str, source_id: str, cursor: Cursor,
                result: ReadResult) -> None:
        tables = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        has_messages = "chat_message" in tables
        since, after = cursor.updated, cursor.rowid
        changed: list[str] = []
        chat_times: dict[str, int] = {}
        for row in conn.execute("SELECT rowid, id, updated_at FROM chat ORDER BY rowid"):
            key, rowid = time_key(row["updated_at"]), int(row["rowid"])
            chat_id = str(row["id"])
            chat_times[chat_id] = key or 0
            if cursor.first or (key is not None and key >= since) or rowid > after:
                changed.append(chat_id)
            cursor.see(key, rowid)
        if has_messages and not cursor.first:
            seen = set(changed)
            for row in conn.execute("SELECT chat_id, updated_at FROM chat_message"):
                key = time_key(row["updated_at"])
                chat_id = str(row["chat_id"])
                if key is not None and key >= since and chat_id not in seen and chat_id in chat_times:
                    changed.append(chat_id)
                    seen.add(chat_id)
                cursor.see(key, None)
        names = self._user_names(conn, tables)
        held_from: int | None = None
        for start in range(0, len(changed), _CHUNK):
            batch = changed[start : start + _CHUNK]
            marks = ",".join("?" * len(batch))
            rows = conn.execute(
                f"SELECT id, user_id, title, chat, created_at, updated_at FROM chat WHERE id IN ({marks})", batch
            ).fetchall()
            extra_rows = self._message_rows(conn, batch) if has_messages else {}
            for row in rows:
                chat_id = str(row["id"])
                if self._read_chat(row, extra_rows.get(chat_id, {}), names, where, source_id, result):
                    mark = chat_times.get(chat_id, 0)
                    held_from = mark if held_from is None else min(held_from, mark)
        if held_from is not None:
            cursor.held = True
            cursor.updated = min(cursor.updated, held_from)

    @staticmethod
    def _user_names(conn: sqlite3.Connection, tables: set[str]) -> dict[str, str]:
        if "user" not in tables:
            return {}
        try:
            return {str(r[0]): str(r[1] or "") for r in conn.execute('SELECT id, name FROM "user"')}
        except sqlite3.Error:
            return {}

    @staticmethod
    def _message_rows(conn: sqlite3.Connection, chat_ids: list[str]) -> dict[str, dict[str, dict[str, Any]]]:
        marks = ",".join("?" * len(chat_ids))
        found: dict[str, dict[str, dict[str, Any]]] = {}
        for raw in conn.execute(
            f"SELECT * FROM chat_message WHERE chat_id IN ({marks})", chat_ids
        ):
            row = dict(raw)  # optional columns differ by version; a dict answers .get
            chat_id = str(row["chat_id"])
            raw_id = str(row["id"])
            # id is "{chat_id}-{message_id}"
            message_id = raw_id[len(chat_id) + 1 :] if raw_id.startswith(chat_id + "-") else raw_id
            content, _ = load_json(row["content"])
            if content is None and isinstance(row["content"], str):
                content = row["content"]
            found.setdefault(chat_id, {})[message_id] = {
                "id": message_id,
                "parentId": row["parent_id"],
                "role": row["role"],
                "content": content,
                "done": row["done"],
                "timestamp": row.get("created_at"),
                "model": row.get("model_id"),
            }
        return found

    def _read_chat(self, row: sqlite3.Row, table_messages: dict[str, dict[str, Any]], names: dict[str, str],
                   where: str, source_id: str, result: ReadResult) -> bool:
        """Append the visible turns of one chat; True when a message is still streaming."""
        chat_id = str(row["id"])
        document, reason = load_json(row["chat"])
        if not isinstance(document, dict):
            if not table_messages:
                result.problem(f"{where}: chat {chat_id}: {reason or 'not a JSON object'}; skipped")
                return False
            document = {}
        raw_history = document.get("history")
        history: dict[str, Any] = raw_history if isinstance(raw_history, dict) else {}
        raw_messages = history.get("messages")
        messages: dict[str, dict[str, Any]] = {
            str(k): v
            for k, v in (raw_messages.items() if isinstance(raw_messages, dict) else ())
            if isinstance(v, dict)
        }
        for message_id, message in table_messages.items():
            messages.setdefault(message_id, message)
        current = history.get("currentId")
        if not isinstance(current, str) or current not in messages:
            current = None
        path = self._visible_path(messages, current, document.get("messages"))
        title = str(row["title"] or document.get("title") or "")
        owner = str(row["user_id"] or "")
        fallback = parse_db_time(row["created_at"]) or parse_db_time(row["updated_at"])
        for position, message in enumerate(path):
            if message.get("done") in (False, 0, "false"):
                return True
            role = normalise_role(message.get("role"))
            message_id = str(message.get("id") or "")
            if role not in ("user", "assistant", "system"):
                result.problem(f"{where}: chat {chat_id} message {message_id}: role "
                                       f"{message.get('role')!r} is not a chat turn; skipped")
                continue
            text = text_of(message.get("content")).strip()
            if not text:
                continue  # an empty or failed reply carries nothing to remember
            if role == "user":
                speaker = names.get(owner) or "user"
            elif role == "assistant":
                speaker = str(message.get("modelName") or message.get("model") or "assistant")
            else:
                speaker = "system"
            when = parse_db_time(message.get("timestamp"))
            result.turns.append(self.turn(
                source_id=source_id, where=where, conversation=chat_id, key=message_id or f"pos:{position}",
                position=position, role=role, speaker=speaker, text=text, when=when, fallback=fallback,
                title=title, message_id=message_id, extra={"client_user": owner},
            ))
            if when is not None:
                fallback = when
        return False

    @staticmethod
    def _visible_path(messages: dict[str, dict[str, Any]], current: str | None, linear: Any) -> list[dict[str, Any]]:
        """Root → ``current``; without a usable currentId, the legacy linear list or the newest leaf."""
        if current is None:
            if isinstance(linear, list) and linear:
                return [m for m in linear if isinstance(m, dict)]
            leaves = [m for k, m in messages.items() if not any(
                isinstance(o, dict) and o.get("parentId") == k for o in messages.values())]
            if not leaves:
                return []
            current = str(max(leaves, key=lambda m: parse_db_time(m.get("timestamp")) or 0.0).get("id") or "")
            if current not in messages:
                return []
        path: list[dict[str, Any]] = []
        seen: set[str] = set()
        node: str | None = current
        # Bounded by the number of messages: a parent cycle in a damaged document ends here.
        while isinstance(node, str) and node in messages and node not in seen:
            seen.add(node)
            path.append(messages[node])
            parent = messages[node].get("parentId")
            node = str(parent) if parent is not None else None
        path.reverse()
        return path
