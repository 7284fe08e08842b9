"""Small anonymous chat-client databases in the shapes Open WebUI, AnythingLLM and Ollama write.

The tables follow the clients' own schemas (column names and types as the research notes
describe them); the rows are made up. Each builder writes like the client does, in a
transaction, so the adapter sees what it would see on a real machine.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

WEBUI_SCHEMA = """
CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY);
CREATE TABLE user (id VARCHAR(255) PRIMARY KEY, name VARCHAR(255), email VARCHAR(255), role VARCHAR(255),
                   api_key VARCHAR(255), created_at BIGINT, updated_at BIGINT);
CREATE TABLE auth (id VARCHAR(255) PRIMARY KEY, email VARCHAR(255), password TEXT, active BOOLEAN);
CREATE TABLE chat (id VARCHAR(255) PRIMARY KEY, user_id VARCHAR(255), title TEXT, chat JSON,
                   created_at BIGINT, updated_at BIGINT, share_id VARCHAR(255), archived BOOLEAN DEFAULT 0,
                   pinned BOOLEAN DEFAULT 0, meta JSON DEFAULT '{}', folder_id TEXT);
"""
WEBUI_MESSAGE_TABLE = """
CREATE TABLE chat_message (id TEXT PRIMARY KEY, chat_id TEXT, user_id TEXT, role TEXT, parent_id TEXT,
                           content JSON, output JSON, model_id TEXT, files JSON, sources JSON, embeds JSON,
                           meta JSON, done BOOLEAN, status_history JSON, error JSON, usage JSON,
                           created_at BIGINT, updated_at BIGINT);
"""


def connect(path: Path, wal: bool = False) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, timeout=5)
    if wal:
        conn.execute("PRAGMA journal_mode=WAL")
    return conn


def webui_message(mid: str, parent: str | None, role: str, content: str, ts: int, *, done: bool | None = None,
                  model: str = "llama3.1:8b") -> dict[str, Any]:
    message: dict[str, Any] = {"id": mid, "parentId": parent, "childrenIds": [], "role": role,
                               "content": content, "timestamp": ts}
    if role == "assistant":
        message.update({"model": model, "modelName": "Llama 3.1 8B", "modelIdx": 0,
                        "done": True if done is None else done})
    else:
        message["models"] = [model]
    return message


def webui_document(title: str, messages: list[dict[str, Any]], current: str | None) -> dict[str, Any]:
    by_id = {m["id"]: dict(m) for m in messages}
    for m in by_id.values():
        if m["parentId"] in by_id:
            by_id[m["parentId"]]["childrenIds"].append(m["id"])
    linear = []
    node = current
    while node:
        linear.append(by_id[node])
        node = by_id[node]["parentId"]
    return {"id": "", "title": title, "models": ["llama3.1:8b"], "params": {}, "files": [], "tags": [],
            "timestamp": (messages[0]["timestamp"] if messages else 0) * 1000,
            "history": {"currentId": current, "messages": by_id}, "messages": list(reversed(linear))}


def make_webui(path: Path, *, wal: bool = False, message_table: bool = True) -> sqlite3.Connection:
    conn = connect(path, wal)
    conn.executescript(WEBUI_SCHEMA + (WEBUI_MESSAGE_TABLE if message_table else ""))
    conn.execute("INSERT INTO alembic_version VALUES ('3781e22d8b01')")
    conn.execute("INSERT INTO user (id, name, email, role, api_key) VALUES ('u-ana', 'Ana', 'a@x', 'admin', 'sk-1')")
    conn.execute("INSERT INTO user (id, name, email, role, api_key) VALUES ('u-ben', 'Ben', 'b@x', 'user', 'sk-2')")
    conn.execute("INSERT INTO auth VALUES ('u-ana', 'a@x', '$2b$12$hash', 1)")
    return conn


def webui_put_chat(conn: sqlite3.Connection, chat_id: str, user: str, title: str, messages: list[dict[str, Any]],
                   current: str | None, updated: int, *, message_table: bool = True) -> None:
    """Insert or replace a chat as Open WebUI's update_chat_by_id does (chat row, then messages)."""
    document = webui_document(title, messages, current)
    created = messages[0]["timestamp"] if messages else updated
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(
        "INSERT INTO chat (id, user_id, title, chat, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(id) DO UPDATE SET title=excluded.title, chat=excluded.chat, updated_at=excluded.updated_at",
        (chat_id, user, title, json.dumps(document), created, updated),
    )
    if message_table:
        for m in messages:
            conn.execute(
                "INSERT OR REPLACE INTO chat_message (id, chat_id, user_id, role, parent_id, content, model_id, done,"
                " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (f"{chat_id}-{m['id']}", chat_id, user, m["role"], m["parentId"], json.dumps(m["content"]),
                 m.get("model"), 1 if m.get("done", True) else 0, m["timestamp"], updated),
            )
    conn.execute("COMMIT")


ANYTHING_SCHEMA = """
CREATE TABLE _prisma_migrations (id TEXT PRIMARY KEY, checksum TEXT NOT NULL, finished_at DATETIME,
                                 migration_name TEXT NOT NULL, logs TEXT, rolled_back_at DATETIME,
                                 started_at DATETIME NOT NULL DEFAULT current_timestamp,
                                 applied_steps_count INTEGER NOT NULL DEFAULT 0);
CREATE TABLE workspaces (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, slug TEXT NOT NULL,
                         chatModel TEXT, createdAt DATETIME DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE workspace_threads (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, slug TEXT NOT NULL,
                                workspace_id INTEGER NOT NULL, user_id INTEGER,
                                createdAt DATETIME DEFAULT CURRENT_TIMESTAMP,
                                lastUpdatedAt DATETIME DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE users (id INTEGER PRIMARY KEY AUTOINCREMENT, username TEXT, password TEXT NOT NULL, role TEXT);
CREATE TABLE workspace_chats (id INTEGER PRIMARY KEY AUTOINCREMENT, workspaceId INTEGER NOT NULL,
                              prompt TEXT NOT NULL, response TEXT NOT NULL, include BOOLEAN NOT NULL DEFAULT true,
                              user_id INTEGER, thread_id INTEGER, api_session_id TEXT,
                              createdAt DATETIME DEFAULT CURRENT_TIMESTAMP,
                              lastUpdatedAt DATETIME DEFAULT CURRENT_TIMESTAMP,
                              feedbackScore BOOLEAN, memory_processed BOOLEAN DEFAULT false);
"""


def make_anythingllm(path: Path) -> sqlite3.Connection:
    conn = connect(path)
    conn.executescript(ANYTHING_SCHEMA)
    conn.execute("INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name) VALUES "
                 "('m1', 'c', 1767225600000, '20250226005538_init')")
    conn.execute("INSERT INTO workspaces (id, name, slug, chatModel) VALUES (3, 'Garden', 'garden', 'llama3')")
    conn.execute("INSERT INTO workspace_threads (id, name, slug, workspace_id) VALUES (7, 'Tomatoes', 't', 3)")
    conn.execute("INSERT INTO users (id, username, password, role) VALUES (1, 'ana', '$2b$hash', 'admin')")
    return conn


def anything_put(conn: sqlite3.Connection, prompt: str, reply: str, created: Any, *, thread: int | None = 7,
                 user: int | None = None, include: bool = True, row_id: int | None = None,
                 response: str | None = None) -> int:
    """One exchange, inserted once the reply is complete (as AnythingLLM does)."""
    body = response if response is not None else json.dumps(
        {"text": reply, "sources": [], "type": "chat", "attachments": [], "metrics": {"outputTps": 30.5}})
    cur = conn.execute(
        "INSERT INTO workspace_chats (id, workspaceId, prompt, response, include, user_id, thread_id, createdAt,"
        " lastUpdatedAt) VALUES (?, 3, ?, ?, ?, ?, ?, ?, ?)",
        (row_id, prompt, body, 1 if include else 0, user, thread, created, created),
    )
    return int(cur.lastrowid or 0)


OLLAMA_SCHEMA = """
CREATE TABLE settings (id INTEGER PRIMARY KEY CHECK (id = 1), device_id TEXT NOT NULL DEFAULT '',
                       models TEXT NOT NULL DEFAULT '', schema_version INTEGER NOT NULL DEFAULT 2);
CREATE TABLE chats (id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT '',
                    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, browser_state TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, chat_id TEXT NOT NULL, role TEXT NOT NULL,
                       content TEXT NOT NULL DEFAULT '', thinking TEXT NOT NULL DEFAULT '',
                       stream BOOLEAN NOT NULL DEFAULT 0, model_name TEXT, model_cloud BOOLEAN,
                       model_ollama_host BOOLEAN, created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
                       updated_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, thinking_time_start TIMESTAMP,
                       thinking_time_end TIMESTAMP, tool_result TEXT,
                       FOREIGN KEY (chat_id) REFERENCES chats(id) ON DELETE CASCADE);
CREATE INDEX idx_messages_chat_id ON messages(chat_id);
CREATE TABLE tool_calls (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id INTEGER NOT NULL, type TEXT NOT NULL,
                         function_name TEXT NOT NULL, function_arguments TEXT NOT NULL, function_result TEXT);
"""


def make_ollama(path: Path, version: int = 18) -> sqlite3.Connection:
    conn = connect(path, wal=True)
    conn.executescript(OLLAMA_SCHEMA)
    conn.execute("INSERT INTO settings (id, schema_version) VALUES (1, ?)", (version,))
    return conn


def ollama_save_chat(conn: sqlite3.Connection, chat_id: str, title: str,
                     messages: list[tuple[str, str, str]], model: str = "qwen3:8b") -> None:
    """The app's saveChat: delete every message of the chat and insert them all again.

    ``messages`` are (role, content, go time text); updated_at equals created_at (settled).
    """
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT OR IGNORE INTO chats (id, title, created_at) VALUES (?, ?, ?)",
                 (chat_id, title, messages[0][2] if messages else "2026-01-01 12:00:00+00:00"))
    conn.execute("DELETE FROM messages WHERE chat_id = ?", (chat_id,))
    for role, content, when in messages:
        conn.execute(
            "INSERT INTO messages (chat_id, role, content, stream, model_name, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (chat_id, role, content, 1 if role == "assistant" else 0, model if role == "assistant" else None,
             when, when),
        )
    conn.execute("COMMIT")
