"""Damaged client databases: every bad row is skipped with a reason, nothing crashes, nothing is written."""

import hashlib
import json
import random

import pytest
from fakes.chatdbs import (
    anything_put,
    make_anythingllm,
    make_ollama,
    make_webui,
    webui_message,
    webui_put_chat,
)

from curator.sources.adapters import ADAPTERS

T0 = 1767225600


def snapshot(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


def read_all(adapter, db):
    before = snapshot(db.parent)
    result = ADAPTERS[adapter].read(db.parent, db, "src", None)
    assert snapshot(db.parent) == before
    return result


def good_webui(db):
    conn = make_webui(db)
    webui_put_chat(conn, "ok", "u-ana", "Fine", [webui_message("g1", None, "user", "a good question", T0)], "g1", T0)
    return conn


WEBUI_DAMAGE = {
    "malformed json": "UPDATE chat SET chat = '{\"history\": {\"messages\": {' WHERE id = 'bad'",
    "json is a list": "UPDATE chat SET chat = '[1, 2]' WHERE id = 'bad'",
    "json is a number": "UPDATE chat SET chat = 42 WHERE id = 'bad'",
    "invalid utf-8": "UPDATE chat SET chat = CAST(X'7b22ff22' AS TEXT) WHERE id = 'bad'",
    "blob": "UPDATE chat SET chat = X'00ff00' WHERE id = 'bad'",
    "messages wrong type": "UPDATE chat SET chat = "
                           "'{\"history\": {\"currentId\": 5, \"messages\": [1]}}' WHERE id = 'bad'",
    "parent cycle": "UPDATE chat SET chat = "
                    "'{\"history\": {\"currentId\": \"a\", \"messages\": {\"a\": {\"id\": \"a\", "
                    "\"parentId\": \"b\", \"role\": \"user\", \"content\": \"loop a\"}, \"b\": {\"id\": \"b\", "
                    "\"parentId\": \"a\", \"role\": \"assistant\", \"content\": 7}}}}' WHERE id = 'bad'",
    "null updated_at": "UPDATE chat SET updated_at = NULL, created_at = 'x' WHERE id = 'bad'",
}


@pytest.mark.parametrize("damage", sorted(WEBUI_DAMAGE))
def test_webui_bad_rows_are_skipped(tmp_path, damage):
    db = tmp_path / "webui.db"
    conn = good_webui(db)
    webui_put_chat(conn, "bad", "u-ghost", "Bad", [webui_message("b1", None, "user", "soon broken", T0)], "b1", T0,
                   message_table=False)
    conn.execute(WEBUI_DAMAGE[damage])
    conn.close()
    result = read_all("openwebui", db)
    assert result.ready
    assert "a good question" in [t.text for t in result.turns]
    assert "soon broken" not in [t.text for t in result.turns] or damage == "null updated_at"
    for turn in result.turns:
        assert isinstance(turn.text, str) and turn.role in ("user", "assistant", "system")


@pytest.mark.parametrize("name, make", [("webui.db", make_webui), ("anythingllm.db", make_anythingllm),
                                        ("db.sqlite", make_ollama)])
@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty", "tables dropped"])
def test_broken_database_files_never_crash(tmp_path, name, make, damage):
    db = tmp_path / name
    make(db).close()
    data = db.read_bytes()
    if damage == "truncated":
        db.write_bytes(data[: len(data) // 3])
    elif damage == "garbage":
        db.write_bytes(b"SQLite format 3\x00" + bytes(random.Random(7).randrange(256) for _ in range(5000)))
    elif damage == "empty":
        db.write_bytes(b"")
    else:
        import sqlite3

        conn = sqlite3.connect(db)
        query = "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
        for (table,) in conn.execute(query).fetchall():
            conn.execute(f'DROP TABLE "{table}"')
        conn.commit()
        conn.close()
    adapter = next(a for a in ADAPTERS.values() if name in getattr(a, "db_names", ()))
    result = read_all(adapter.name, db)
    assert result.turns == [] or all(isinstance(t.text, str) for t in result.turns)
    if damage in ("tables dropped",):
        assert not result.ready and "unsupported version" in result.problems[0]
    info = adapter.describe(db)  # discovery never raises either
    assert info.client


def test_anythingllm_wrong_types_and_bad_response_json(tmp_path):
    db = tmp_path / "anythingllm.db"
    conn = make_anythingllm(db)
    anything_put(conn, "fine prompt", "fine reply", T0 * 1000)
    anything_put(conn, "prompt with broken reply", "", T0 * 1000, response='{"text": "unterminated')
    anything_put(conn, "prompt with list reply", "", T0 * 1000, response=json.dumps([1, 2]))
    conn.execute("INSERT INTO workspace_chats (workspaceId, prompt, response, include, createdAt) "
                 "VALUES (3, X'ff00', '{\"text\": \"reply to bytes\"}', 1, 'not a time')")
    conn.execute("INSERT INTO workspace_chats (workspaceId, prompt, response, include, createdAt) "
                 "VALUES (3, 12345, '{\"text\": 5}', 'yes', NULL)")
    conn.close()
    result = read_all("anythingllm", db)
    texts = [t.text for t in result.turns]
    assert texts[:2] == ["fine prompt", "fine reply"]
    assert "prompt with broken reply" in texts and "reply to bytes" in texts
    timeless = next(t for t in result.turns if t.text == "reply to bytes")
    assert timeless.extra["time_unknown"] is True
    assert len(result.problems) >= 4


def test_ollama_wrong_types(tmp_path):
    db = tmp_path / "db.sqlite"
    conn = make_ollama(db)
    conn.execute("INSERT INTO chats (id, title) VALUES ('c', 'x')")
    rows = [("user", "fine question", "2026-01-01 12:00:00+00:00"), ("user", b"\xff\x00", "2026-01-01 12:00:01+00:00"),
            ("robot", "odd role", "2026-01-01 12:00:02+00:00"), ("tool", "{\"x\": 1}", "2026-01-01 12:00:03+00:00"),
            ("assistant", "fine answer", "yesterday")]
    for role, content, when in rows:
        conn.execute("INSERT INTO messages (chat_id, role, content, created_at, updated_at) VALUES ('c', ?, ?, ?, ?)",
                     (role, content, when, "2026-01-01 12:00:09+00:00"))
    conn.close()
    result = read_all("ollama", db)
    assert [(t.role, t.text) for t in result.turns] == [("user", "fine question"), ("assistant", "fine answer")]
    assert result.turns[1].extra["time_unknown"] is True
    assert any("robot" in p for p in result.problems) and any("bytes" in p for p in result.problems)
