"""SQLite clients end to end: a watched database, a row written by the client, found by search."""

import json
import subprocess
import sys
import time
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

from curator.engine import Engine
from curator.index.search import SearchFilters

FAKES = Path(__file__).resolve().parents[2] / "fakes"
STEPS = 200  # bounded polling of the index, 0.05 s apart


def found(engine, word):
    hits = engine.search(word, SearchFilters(kinds=("turn",)), limit=50)
    turns = [engine.index.get_turn("default", h.number) for h in hits]
    return [t for t in turns if word in t.text.lower()]  # hits may also be neighbouring turns


def wait_found(engine, word, steps=STEPS):
    for _ in range(steps):
        turns = found(engine, word)
        if turns:
            return turns
        time.sleep(0.05)
    return []


@pytest.fixture
def watch(tmp_path):
    engines = []

    def start(source, *, polling=False):
        engine = Engine(tmp_path / "vault", triggers=False)
        engine.settings.set("watch.debounce_ms", 50)
        engine.settings.set("watch.max_latency_ms", 500)
        engine.settings.set("watch.rescan_seconds", 1.0 if polling else 30.0)
        engine.settings.set("watch.polling", polling)
        engine.add_source(source)
        engine.start_watching()
        engines.append(engine)
        return engine

    yield start
    for engine in engines:
        engine.close()


def test_webui_watched_row_inserted_found_by_search(tmp_path, watch):
    folder = tmp_path / "data"
    folder.mkdir()
    conn = make_webui(folder / "webui.db", wal=True)
    webui_put_chat(conn, "c0", "u-ana", "Old", [webui_message("o1", None, "user", "an older question", 1767225600)],
                   "o1", 1767225600)
    engine = watch(folder)
    assert engine.settings.sources[0].adapter == "openwebui"
    assert wait_found(engine, "older")
    webui_put_chat(conn, "c1", "u-ana", "Marmalade",
                   [webui_message("m1", None, "user", "how long to boil marmalade", 1767225700),
                    webui_message("m2", "m1", "assistant", "About twenty minutes.", 1767225701)], "m2", 1767225701)
    turns = wait_found(engine, "marmalade")
    assert [(t.role, t.speaker, t.conversation) for t in turns] == [("user", "Ana", "c1")]
    conn.close()


def test_anythingllm_watched_row_inserted_found_by_search(tmp_path, watch):
    folder = tmp_path / "storage"
    folder.mkdir()
    conn = make_anythingllm(folder / "anythingllm.db")
    anything_put(conn, "first question", "first answer", 1767225600000)
    engine = watch(folder)
    assert engine.settings.sources[0].adapter == "anythingllm"
    assert wait_found(engine, "first")
    anything_put(conn, "which compost for quinces", "Leaf mould.", 1767225700000)
    turns = wait_found(engine, "quinces")
    assert [t.role for t in turns] == ["user"]
    conn.close()


@pytest.mark.parametrize("polling", [False, True], ids=["native", "polling"])
def test_ollama_watched_chat_saved_found_by_search(tmp_path, watch, polling):
    folder = tmp_path / "ollama"
    folder.mkdir()
    conn = make_ollama(folder / "db.sqlite")
    ollama_save_chat(conn, "c", "Greeting", [("user", "hello", "2026-01-01 12:00:00+00:00"),
                                          ("assistant", "hi there", "2026-01-01 12:00:01+00:00")])
    engine = watch(folder, polling=polling)
    assert engine.settings.sources[0].adapter == "ollama"
    assert wait_found(engine, "hello")
    ollama_save_chat(conn, "c", "Greeting", [("user", "hello", "2026-01-01 12:00:00+00:00"),
                                          ("assistant", "hi there", "2026-01-01 12:00:01+00:00"),
                                          ("user", "what about rhubarb", "2026-01-01 12:01:00+00:00"),
                                          ("assistant", "rhubarb likes cold winters", "2026-01-01 12:01:05+00:00")])
    assert {t.role for t in wait_found(engine, "rhubarb")} == {"user", "assistant"}
    # The app re-inserted every row with new ids; nothing was read twice.
    assert len(found(engine, "hello")) == 1
    conn.close()


def test_webui_writer_process_never_sees_locked_while_curator_reads(tmp_path, watch):
    folder = tmp_path / "data"
    folder.mkdir()
    conn = make_webui(folder / "webui.db", wal=True)
    webui_put_chat(conn, "c0", "u-ana", "Seed", [webui_message("s1", None, "user", "seed question", 1767225600)],
                   "s1", 1767225600)
    engine = watch(folder)
    assert wait_found(engine, "seed")
    count = 60
    writer = subprocess.run(
        [sys.executable, str(FAKES / "webui_writer.py"), str(folder / "webui.db"), str(count)],
        capture_output=True, text=True, timeout=120, check=True,
    )
    outcome = json.loads(writer.stdout.strip().splitlines()[-1])
    assert outcome == {"written": 2 * count, "locked": 0, "errors": []}
    conn.close()
    # Every finished reply is found once, and no partial "thinking" text was kept.
    for i in (0, count // 2, count - 1):
        assert [t.role for t in wait_found(engine, f"livereply{i}")] == ["assistant"]
    assert wait_found(engine, f"livewebui{count - 1}")
    assert found(engine, "thinking") == []
    assert len(engine.index.turns("default")) == 1 + 2 * count
