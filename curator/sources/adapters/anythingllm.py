"""AnythingLLM: ``anythingllm.db``, table ``workspace_chats``, one row per exchange.

A row holds the person's ``prompt`` and the reply as JSON in ``response`` (its ``text``);
it is inserted once the reply has finished streaming, so there are no partial rows. Rows
with ``include = false`` were taken out of the history by the person (reset, regenerate)
and are skipped, counted. A conversation is a workspace's thread (or its default thread)
for one user. Prisma writes times as epoch milliseconds, sometimes as ISO text.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from curator.sources.adapters.base import ReadResult
from curator.sources.adapters.sqlite_base import (
    Cursor,
    SchemaInfo,
    SqliteAdapter,
    as_int,
    load_json,
    missing_columns,
    parse_db_time,
    table_columns,
    time_key,
)

REQUIRED = {"workspace_chats": {"id", "workspaceId", "prompt", "response", "include", "createdAt"}}


class AnythingLLMAdapter(SqliteAdapter):
    """Reads every included exchange of an AnythingLLM database."""

    name = "anythingllm"
    client = "AnythingLLM"
    description = "AnythingLLM anythingllm.db (workspace_chats), read-only"
    db_names = ("anythingllm.db",)

    def inspect(self, conn: sqlite3.Connection) -> SchemaInfo:
        tables = table_columns(conn)
        version = ""
        if "_prisma_migrations" in tables:
            row = conn.execute(
                "SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL "
                "ORDER BY migration_name DESC LIMIT 1"
            ).fetchone()
            version = f"prisma {row[0]}" if row else "prisma (no migration finished)"
        missing = missing_columns(tables, REQUIRED)
        if missing:
            return SchemaInfo(version, False, "missing " + ", ".join(missing), frozenset(tables))
        return SchemaInfo(version, True, "", frozenset(tables))

    def count_conversations(self, conn: sqlite3.Connection) -> int:
        cols = table_columns(conn)["workspace_chats"]
        thread = "thread_id" if "thread_id" in cols else "NULL"
        user = "user_id" if "user_id" in cols else "NULL"
        row = conn.execute(
            f"SELECT COUNT(*) FROM (SELECT DISTINCT workspaceId, {thread}, {user} FROM workspace_chats "
            "WHERE include IS NOT 0)"
        ).fetchone()
        return int(row[0])

    def read_db(self, conn: sqlite3.Connection, where: str, source_id: str, cursor: Cursor,
                result: ReadResult) -> None:
        tables = table_columns(conn)
        cols = tables["workspace_chats"]
        updated_col = "lastUpdatedAt" if "lastUpdatedAt" in cols else "createdAt"
        since, after = cursor.updated, cursor.rowid
        wanted: list[int] = []
        for row in conn.execute(f"SELECT id, {updated_col} AS changed FROM workspace_chats ORDER BY id"):
            rowid, key = as_int(row["id"]), time_key(row["changed"])
            if rowid is None:
                continue
            if cursor.first or rowid > after or (key is not None and key >= since):
                wanted.append(rowid)
            cursor.see(key, rowid)
        workspaces = self._names(conn, tables, "workspaces", "name")
        threads = self._names(conn, tables, "workspace_threads", "name")
        users = self._names(conn, tables, "users", "username")
        optional = [c for c in ("thread_id", "user_id", "api_session_id") if c in cols]
        select = ", ".join(["id", "workspaceId", "prompt", "response", "include", "createdAt", *optional])
        skipped = 0
        for start in range(0, len(wanted), 400):
            batch = wanted[start : start + 400]
            marks = ",".join("?" * len(batch))
            for row in conn.execute(f"SELECT {select} FROM workspace_chats WHERE id IN ({marks}) ORDER BY id",
                                    batch):
                if row["include"] in (0, False, "0", "false"):
                    skipped += 1
                    continue
                self._read_row(dict(row), workspaces, threads, users, where, source_id, result)
        if skipped and cursor.first:
            result.problem(f"{where}: {skipped} exchanges taken out of the history in "
                                   "AnythingLLM (include = false); skipped")

    @staticmethod
    def _names(conn: sqlite3.Connection, tables: dict[str, set[str]], table: str, column: str) -> dict[str, str]:
        if table not in tables or not {"id", column} <= tables[table]:
            return {}
        return {str(r[0]): str(r[1] or "") for r in conn.execute(f"SELECT id, {column} FROM {table}")}

    def _read_row(self, row: dict[str, Any], workspaces: dict[str, str], threads: dict[str, str],
                  users: dict[str, str], where: str, source_id: str, result: ReadResult) -> None:
        chat_id = as_int(row["id"])
        workspace = str(row.get("workspaceId"))
        thread = row.get("thread_id")
        user = row.get("user_id")
        conversation = f"workspace-{workspace}/" + (f"thread-{thread}" if thread is not None else "default")
        if user is not None:
            conversation += f"/user-{user}"
        if row.get("api_session_id"):
            conversation += f"/api-{row['api_session_id']}"
        title = workspaces.get(workspace, f"workspace {workspace}")
        if thread is not None and threads.get(str(thread)):
            title += f" / {threads[str(thread)]}"
        when = parse_db_time(row.get("createdAt"))
        prompt = row.get("prompt")
        reply, reason = load_json(row.get("response"))
        reply_text = reply.get("text") if isinstance(reply, dict) else None
        common: dict[str, Any] = {"source_id": source_id, "where": where, "conversation": conversation,
                                   "when": when, "title": title,
                                   "extra": {"client_user": str(user) if user is not None else ""}}
        if isinstance(prompt, str) and prompt.strip():
            speaker = users.get(str(user), "") if user is not None else ""
            result.turns.append(self.turn(key=f"{chat_id}:prompt", position=2 * (chat_id or 0), role="user",
                                          speaker=speaker or "user", text=prompt.strip(),
                                          message_id=f"{chat_id}:prompt", **common))
        else:
            result.problem(f"{where}: workspace_chats row {chat_id}: prompt is not text; skipped")
        if isinstance(reply_text, str) and reply_text.strip():
            result.turns.append(self.turn(key=f"{chat_id}:response", position=2 * (chat_id or 0) + 1,
                                          role="assistant", speaker="AnythingLLM", text=reply_text.strip(),
                                          message_id=f"{chat_id}:response", **common))
        elif not isinstance(reply_text, str):
            why = reason or ("no text in the response JSON" if reply_text is None else
                             f"text is a {type(reply_text).__name__}")
            result.problem(f"{where}: workspace_chats row {chat_id}: response {why}; reply skipped")
