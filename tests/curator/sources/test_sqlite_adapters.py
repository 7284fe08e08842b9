"""SQLite chat clients (Open WebUI, AnythingLLM, Ollama app): read right, read-only, incrementally."""

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from fakes.chatdbs import (
    anything_put,
    make_anythingllm,
    make_ollama,
    make_webui,
    ollama_save_chat,
    webui_message,
    webui_put_chat,
)

from curator.sources.adapters import ADAPTERS, detect_adapter
from curator.sources.adapters.base import ReadState
from curator.sources.adapters.sqlite_base import parse_db_time

T0 = 1767225600  # 2026-01-01T00:00:00Z


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read(adapter_name, db, state=None):
    adapter = ADAPTERS[adapter_name]
    return adapter.read(db.parent, db, "src", state)


def branchy_webui(db, **kwargs):
    conn = make_webui(db, **kwargs)
    msgs = [
        webui_message("m1", None, "user", "What's the capital of France?", T0),
        webui_message("m2", "m1", "assistant", "Paris.", T0 + 1),
        webui_message("m3", "m1", "assistant", "The capital of France is Paris.", T0 + 11),
        webui_message("m4", "m3", "user", "And of Spain?", T0 + 20),
        webui_message("m5", "m4", "assistant", "Madrid.", T0 + 21),
    ]
    webui_put_chat(conn, "c1", "u-ana", "Capitals", msgs, "m5", T0 + 21, **kwargs)
    other = [webui_message("x1", None, "user", "Ben asks about kites", T0 + 30),
             webui_message("x2", "x1", "assistant", "Kites need wind.", T0 + 31)]
    webui_put_chat(conn, "c2", "u-ben", "Kites", other, "x2", T0 + 31, **kwargs)
    return conn


# ---- Open WebUI


@pytest.mark.parametrize("message_table", [True, False])
def test_webui_reads_the_visible_branch_of_each_users_chats(tmp_path, message_table):
    db = tmp_path / "webui.db"
    branchy_webui(db, message_table=message_table).close()
    assert detect_adapter(tmp_path)[0] == "openwebui"
    result = read("openwebui", db)
    assert result.ready and result.full and not result.problems
    c1 = [t for t in result.turns if t.conversation == "c1"]
    assert [(t.key, t.role, t.speaker, t.text) for t in c1] == [
        ("m1", "user", "Ana", "What's the capital of France?"),
        ("m3", "assistant", "Llama 3.1 8B", "The capital of France is Paris."),
        ("m4", "user", "Ana", "And of Spain?"),
        ("m5", "assistant", "Llama 3.1 8B", "Madrid."),
    ]
    assert [t.timestamp for t in c1] == [T0, T0 + 11, T0 + 20, T0 + 21]
    assert all(t.extra["title"] == "Capitals" and not t.extra.get("time_unknown") for t in c1)
    c2 = [t for t in result.turns if t.conversation == "c2"]
    assert [(t.speaker, t.extra["client_user"]) for t in c2] == [("Ben", "u-ben"), ("Llama 3.1 8B", "u-ben")]


def test_webui_message_only_in_chat_message_table_is_read(tmp_path):
    db = tmp_path / "webui.db"
    conn = make_webui(db)
    msgs = [webui_message("m1", None, "user", "hello there", T0), webui_message("m2", "m1", "assistant", "hi", T0 + 1)]
    webui_put_chat(conn, "c1", "u-ana", "Hi", msgs, "m2", T0 + 1)
    # A newer build keeps the messages in chat_message and only the pointer in the document.
    conn.execute("UPDATE chat SET chat = ? WHERE id = 'c1'",
                 (json.dumps({"title": "Hi", "history": {"currentId": "m2", "messages": {}}}),))
    conn.close()
    turns = read("openwebui", db).turns
    assert [(t.role, t.text) for t in turns] == [("user", "hello there"), ("assistant", "hi")]


def test_webui_streaming_reply_waits_until_done(tmp_path):
    db = tmp_path / "webui.db"
    conn = make_webui(db, wal=True)
    msgs = [webui_message("m1", None, "user", "tell me a story", T0),
            webui_message("m2", "m1", "assistant", "Once upon", T0 + 1, done=False)]
    webui_put_chat(conn, "c1", "u-ana", "Story", msgs, "m2", T0 + 1)
    first = read("openwebui", db)
    assert [t.text for t in first.turns] == ["tell me a story"]
    assert first.state.fingerprint.startswith("held:")
    msgs[1] = webui_message("m2", "m1", "assistant", "Once upon a time, the end.", T0 + 1)
    webui_put_chat(conn, "c1", "u-ana", "Story", msgs, "m2", T0 + 5)
    second = read("openwebui", db, first.state)
    assert not second.full
    assert [t.text for t in second.turns if t.role == "assistant"] == ["Once upon a time, the end."]
    conn.close()


def test_webui_incremental_read_only_returns_changed_chats(tmp_path):
    db = tmp_path / "webui.db"
    conn = branchy_webui(db)
    first = read("openwebui", db)
    webui_put_chat(conn, "c3", "u-ana", "New", [webui_message("n1", None, "user", "a brand new chat", T0 + 40)],
                   "n1", T0 + 40)
    second = read("openwebui", db, first.state)
    # The chat updated in the cursor's own second is read again (a commit in that second
    # after our read must not be missed); the ingestor drops the repeats.
    assert {t.conversation for t in second.turns} == {"c2", "c3"}
    conn.close()


def test_webui_unknown_schema_is_unsupported_and_reads_nothing(tmp_path):
    db = tmp_path / "webui.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE chat (id TEXT PRIMARY KEY, owner TEXT, body TEXT)")
    conn.execute("INSERT INTO chat VALUES ('c1', 'u', '{}')")
    conn.commit()
    conn.close()
    result = read("openwebui", db)
    assert not result.ready and result.turns == []
    assert "unsupported version" in result.problems[0]
    info = ADAPTERS["openwebui"].describe(db)
    assert not info.supported and "chat.chat" in info.detail


# ---- AnythingLLM


def test_anythingllm_reads_exchanges_and_skips_excluded(tmp_path):
    db = tmp_path / "anythingllm.db"
    conn = make_anythingllm(db)
    anything_put(conn, "What's the capital of France?", "The capital of France is Paris.", 1767225601200)
    anything_put(conn, "regenerated question", "old answer", 1767225602000, include=False)
    anything_put(conn, "default thread question", "default answer", "2026-01-01T00:01:00.000Z", thread=None, user=1)
    conn.close()
    assert detect_adapter(tmp_path)[0] == "anythingllm"
    result = read("anythingllm", db)
    assert [(t.conversation, t.role, t.speaker, t.text) for t in result.turns] == [
        ("workspace-3/thread-7", "user", "user", "What's the capital of France?"),
        ("workspace-3/thread-7", "assistant", "AnythingLLM", "The capital of France is Paris."),
        ("workspace-3/default/user-1", "user", "ana", "default thread question"),
        ("workspace-3/default/user-1", "assistant", "AnythingLLM", "default answer"),
    ]
    assert result.turns[0].timestamp == pytest.approx(1767225601.2)
    assert result.turns[2].timestamp == pytest.approx(T0 + 60)
    assert result.turns[0].extra["title"] == "Garden / Tomatoes"
    assert any("include = false" in p for p in result.problems)
    info = ADAPTERS["anythingllm"].describe(db)
    assert info.supported and info.conversations == 2 and "20250226005538_init" in info.version


def test_anythingllm_incremental_by_id(tmp_path):
    db = tmp_path / "anythingllm.db"
    conn = make_anythingllm(db)
    anything_put(conn, "one", "uno", 1767225601200)
    first = read("anythingllm", db)
    anything_put(conn, "two", "dos", 1767225700000)
    anything_put(conn, "three", "tres", 1767225800000)
    first = read("anythingllm", db, first.state)
    anything_put(conn, "four", "cuatro", 1767225900000)
    second = read("anythingllm", db, first.state)
    # Only the row at the cursor's own instant is read again (the ingestor drops it).
    assert [t.text for t in second.turns] == ["three", "tres", "four", "cuatro"] and not second.full
    conn.close()


# ---- Ollama app


def test_ollama_reads_chats_keyed_across_the_apps_reinsert(tmp_path):
    db = tmp_path / "db.sqlite"
    conn = make_ollama(db)
    history = [("user", "What's the capital of France?", "2026-01-01 12:00:00.2+00:00"),
               ("assistant", "The capital of France is Paris.", "2026-01-01 12:00:00.400000000+01:00")]
    ollama_save_chat(conn, "019b2f7c-6a10", "Capital of France", history)
    assert detect_adapter(tmp_path)[0] == "ollama"
    first = read("ollama", db)
    assert [(t.role, t.speaker, t.text) for t in first.turns] == [
        ("user", "user", "What's the capital of France?"), ("assistant", "qwen3:8b", "The capital of France is Paris.")]
    assert first.turns[0].timestamp == pytest.approx(1767268800.2)
    assert first.turns[1].timestamp == pytest.approx(1767265200.4)
    history += [("user", "And Spain?", "2026-01-01 12:01:00+00:00"),
                ("assistant", "Madrid.", "2026-01-01 12:01:01+00:00")]
    ollama_save_chat(conn, "019b2f7c-6a10", "Capital of France", history)  # all rows get new ids
    second = read("ollama", db, first.state)
    keys_first = {t.key for t in first.turns}
    assert keys_first <= {t.key for t in second.turns}
    assert [t.text for t in second.turns if t.key not in keys_first] == ["And Spain?", "Madrid."]
    conn.close()


def test_ollama_reply_still_streaming_waits(tmp_path):
    db = tmp_path / "db.sqlite"
    conn = make_ollama(db)
    ollama_save_chat(conn, "c", "t", [("user", "hi", "2026-01-01 12:00:00+00:00")])
    conn.execute("INSERT INTO messages (chat_id, role, content, created_at, updated_at) "
                 "VALUES ('c', 'assistant', 'Hel', '2026-01-01 12:00:01+00:00', strftime('%Y-%m-%d %H:%M:%f', 'now'))")
    result = read("ollama", db)
    assert [t.text for t in result.turns] == ["hi"] and result.state.fingerprint.startswith("held:")
    conn.close()


def test_ollama_unknown_schema_version_is_unsupported(tmp_path):
    db = tmp_path / "db.sqlite"
    conn = make_ollama(db, version=99)
    ollama_save_chat(conn, "c", "t", [("user", "hi", "2026-01-01 12:00:00+00:00")])
    conn.close()
    result = read("ollama", db)
    assert not result.ready and not result.turns
    assert "unsupported version" in result.problems[0] and "schema 99" in result.problems[0]


# ---- Common


@pytest.mark.parametrize("given, expected", [
    (1767225600, 1767225600.0), (1767225600123, 1767225600.123), ("2026-01-01T00:00:00Z", 1767225600.0),
    ("2026-01-01 01:00:00.123456789+01:00", 1767225600.123456), ("2026-01-01 00:00:00", 1767225600.0),
    ("garbage", None), (None, None), (True, None), (-5, None), (float("nan"), None),
])
def test_parse_db_time(given, expected):
    value = parse_db_time(given)
    assert value == (pytest.approx(expected) if expected is not None else None)


@pytest.mark.parametrize("name, build", [
    ("webui.db", lambda p: branchy_webui(p)),
    ("anythingllm.db", lambda p: make_anythingllm(p)),
    ("db.sqlite", lambda p: make_ollama(p)),
])
def test_reading_never_writes(tmp_path, name, build):
    db = tmp_path / name
    build(db).close()
    before = {p.name: digest(p) for p in tmp_path.iterdir()}
    adapter = next(a for a in ADAPTERS.values() if name in getattr(a, "db_names", ()))
    adapter.read(tmp_path, db, "s", None)
    adapter.read(tmp_path, db, "s", ReadState(fingerprint="x", offset=0, lines=0))
    adapter.describe(db)
    # Not even an empty -wal or -shm appears beside a closed client's database.
    assert {p.name: digest(p) for p in tmp_path.iterdir()} == before


def test_wal_and_journal_files_map_to_the_database(tmp_path):
    adapter = ADAPTERS["openwebui"]
    assert adapter.unit_for(tmp_path, tmp_path / "webui.db-wal") == tmp_path / "webui.db"
    assert adapter.unit_for(tmp_path, tmp_path / "webui.db-journal") == tmp_path / "webui.db"
    assert adapter.unit_for(tmp_path, tmp_path / "webui.db-shm") is None
    assert adapter.unit_for(tmp_path, tmp_path / "other.db") is None
