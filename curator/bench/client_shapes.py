"""A chat written to disk the way a real client saves it, with no name for the person.

The multilingual reflection set (``data/multilingual.yaml``) is stored once as role/text
pairs; these writers lay it out as plain JSONL, a Jan thread, an LM Studio conversation, a
ChatGPT export, a SillyTavern chat or a text-generation-webui history, so the benchmark reads
each chat through the adapter a person's own files go through.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

Message = tuple[str, str]  # (role, text)
START = 1_767_225_600  # 2026-01-01, seconds


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _lines(rows: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def plain_jsonl(root: Path, name: str, chat: Sequence[Message]) -> Path:
    rows = [{"role": r, "content": t, "timestamp": START + 60 * i} for i, (r, t) in enumerate(chat)]
    return _write(root / f"{name}.jsonl", _lines(rows))


def jan_thread(root: Path, name: str, chat: Sequence[Message]) -> Path:
    folder = root / "threads" / name
    _write(folder / "thread.json", json.dumps({"id": name, "object": "thread", "title": name,
                                               "assistants": [{"assistant_id": "jan", "assistant_name": "Jan"}],
                                               "created": START, "updated": START}))
    rows = [{"id": f"{name}-{i}", "object": "thread.message", "thread_id": name, "role": r,
             "content": [{"type": "text", "text": {"value": t, "annotations": []}}], "status": "ready",
             "created_at": (START + 60 * i) * 1000, "completed_at": (START + 60 * i) * 1000, "metadata": {}}
            for i, (r, t) in enumerate(chat)]
    return _write(folder / "messages.jsonl", _lines(rows))


def lmstudio_conversation(root: Path, name: str, chat: Sequence[Message]) -> Path:
    def version(role: str, text: str) -> dict[str, Any]:
        if role == "user":
            return {"type": "singleStep", "role": "user", "content": [{"type": "text", "text": text}]}
        return {"type": "multiStep", "role": "assistant", "senderInfo": {"senderName": "local-model"},
                "steps": [{"type": "contentBlock", "content": [{"type": "text", "text": text}]}]}
    doc = {"name": name, "createdAt": START * 1000, "systemPrompt": "",
           "messages": [{"versions": [version(r, t)], "currentlySelected": 0} for r, t in chat]}
    return _write(root / "conversations" / f"{START * 1000}-{name}.conversation.json", json.dumps(doc))


def chatgpt_export(root: Path, name: str, chat: Sequence[Message]) -> Path:
    mapping: dict[str, Any] = {"root": {"id": "root", "parent": None, "children": ["n0"], "message": None}}
    for i, (role, text) in enumerate(chat):
        node = f"n{i}"
        mapping[node] = {"id": node, "parent": "root" if i == 0 else f"n{i - 1}",
                         "children": [f"n{i + 1}"] if i + 1 < len(chat) else [],
                         "message": {"id": node, "author": {"role": role, "name": None, "metadata": {}},
                                     "create_time": START + 60 * i,
                                     "content": {"content_type": "text", "parts": [text]},
                                     "status": "finished_successfully", "metadata": {}, "recipient": "all"}}
    doc = [{"id": name, "conversation_id": name, "title": name, "create_time": START,
            "update_time": START + 60 * len(chat), "mapping": mapping, "current_node": f"n{len(chat) - 1}"}]
    return _write(root / "conversations.json", json.dumps(doc, ensure_ascii=False))


def sillytavern_chat(root: Path, name: str, chat: Sequence[Message]) -> Path:
    # SillyTavern stores the persona's display name; "User" is what a person who never set one has.
    header = {"user_name": "unused", "character_name": "unused", "chat_metadata": {}}
    rows: list[dict[str, Any]] = [header]
    rows += [{"name": "User" if r == "user" else "Aria", "is_user": r == "user", "is_system": False,
              "send_date": f"2026-01-01T10:{i:02d}:00.000Z", "mes": t, "extra": {}}
             for i, (r, t) in enumerate(chat)]
    return _write(root / "data/default-user/chats/Aria" / f"Aria - 2026-01-01@10h00m00s000ms {name}.jsonl",
                  _lines(rows))


def textgen_history(root: Path, name: str, chat: Sequence[Message]) -> Path:
    pairs: list[list[str]] = []
    pending = ""
    for role, text in chat:
        if role == "user":
            if pending:
                pairs.append([pending, ""])
            pending = text
        else:
            pairs.append([pending, text])
            pending = ""
    if pending:
        pairs.append([pending, ""])
    doc = {"internal": pairs, "visible": pairs, "metadata": {}}
    return _write(root / "user_data/logs/chat/Assistant" / f"20260101-10-00-{len(name):02d}.json",
                  json.dumps(doc, ensure_ascii=False))


def open_webui_database(root: Path, name: str, chat: Sequence[Message]) -> Path:
    """Open WebUI's ``webui.db`` (an older build: the chat JSON only, no ``chat_message``)."""
    import sqlite3

    root.mkdir(parents=True, exist_ok=True)
    path = root / "webui.db"
    messages: dict[str, Any] = {}
    for i, (role, text) in enumerate(chat):
        messages[f"m{i}"] = {"id": f"m{i}", "parentId": f"m{i - 1}" if i else None,
                             "childrenIds": [f"m{i + 1}"] if i + 1 < len(chat) else [], "role": role,
                             "content": text, "timestamp": START + 60 * i}
    document = {"id": name, "title": name, "models": ["local"], "history": {
        "currentId": f"m{len(chat) - 1}", "messages": messages}, "messages": list(messages.values())}
    conn = sqlite3.connect(path)
    try:
        conn.executescript(
            "CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY);"
            "CREATE TABLE user (id VARCHAR(255) PRIMARY KEY, name VARCHAR(255), email VARCHAR(255));"
            "CREATE TABLE chat (id VARCHAR(255) PRIMARY KEY, user_id VARCHAR(255), title TEXT, chat JSON,"
            " created_at BIGINT, updated_at BIGINT);"
            "INSERT INTO alembic_version VALUES ('3781e22d8b01');"
            # Open WebUI asks for a display name at sign-up; "User" is what many leave.
            "INSERT INTO user (id, name, email) VALUES ('u1', 'User', 'user@localhost');")
        conn.execute("INSERT INTO chat VALUES (?, 'u1', ?, ?, ?, ?)",
                     (name, name, json.dumps(document, ensure_ascii=False), START, START + 60 * len(chat)))
        conn.commit()
    finally:
        conn.close()
    return path


WRITERS: dict[str, Callable[[Path, str, Sequence[Message]], Path]] = {
    "jsonl": plain_jsonl, "jan": jan_thread, "lmstudio": lmstudio_conversation, "chatgpt": chatgpt_export,
    "sillytavern": sillytavern_chat, "textgen": textgen_history, "webui": open_webui_database,
}
