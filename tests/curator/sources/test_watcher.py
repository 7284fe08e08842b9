"""The watcher with real watchdog observers on real folders, in the write patterns of chat clients."""

import json
import os
import time
from pathlib import Path

import pytest

from curator.engine import Engine
from curator.index.search import SearchFilters
from curator.sources.adapters import ADAPTERS

TIMEOUT = 10.0


def msg(role, content, mid=None):
    fields = {"role": role, "content": content, "timestamp": "2026-11-20T18:00:00Z"}
    if mid:
        fields["id"] = mid
    return json.dumps(fields) + "\n"


def wait_for(predicate, timeout=TIMEOUT, step=0.05):
    for _ in range(int(timeout / step)):  # bounded by a count of looks, not by the clock
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


def texts(engine, status="active"):
    return sorted(t.text for t in engine.index.turns("default", statuses=(status,)))


def found_once(engine, word):
    hits = engine.search(word, SearchFilters(kinds=("turn",)), limit=100)
    own = [h for h in hits if word in engine.index.get_turn("default", h.number).text]
    return len(own) == 1


@pytest.fixture
def watching(tmp_path):
    engines = []

    def start(source: Path, *, polling=False, rescan=30.0, adapter=None):
        engine = Engine(tmp_path / "vault", triggers=False)
        engine.settings.set("watch.debounce_ms", 100)
        engine.settings.set("watch.max_latency_ms", 2000)
        engine.settings.set("watch.rescan_seconds", rescan)
        engine.settings.set("watch.polling", polling)
        if not engine.settings.sources:
            engine.add_source(source, adapter=adapter)
        engine.start_watching()
        engines.append(engine)
        return engine

    yield start
    for engine in engines:
        engine.close()


@pytest.mark.parametrize("polling", [False, True], ids=["native", "polling"])
def test_jsonl_appended_line_by_line_with_half_lines(tmp_path, watching, polling):
    source = tmp_path / "chats"
    source.mkdir()
    (source / "chat.jsonl").write_text("")
    engine = watching(source, polling=polling)
    words = [f"appendword{i}" for i in range(8)]
    with open(source / "chat.jsonl", "a") as handle:
        for i, word in enumerate(words):
            line = msg("user" if i % 2 == 0 else "assistant", f"message {word}")
            handle.write(line[:10])  # a half-written line first
            handle.flush()
            time.sleep(0.03)
            handle.write(line[10:])
            handle.flush()
            time.sleep(0.03)
    assert wait_for(lambda: len(texts(engine)) == 8), texts(engine)
    for word in words:
        assert found_once(engine, word)
    assert engine.index.problems() == []


def test_file_written_by_temp_and_rename(tmp_path, watching):
    source = tmp_path / "chats"
    source.mkdir()
    engine = watching(source, adapter="jsonl")
    target = source / "chat.jsonl"
    content = ""
    for i in range(4):
        content += msg("user", f"renamed{i} words", f"m{i}")
        tmp = source / ".chat.jsonl.tmp"
        tmp.write_text(content)
        os.replace(tmp, target)
        time.sleep(0.15)
    assert wait_for(lambda: len(texts(engine)) == 4), texts(engine)
    for i in range(4):
        assert found_once(engine, f"renamed{i}")
    assert texts(engine, "edited") == [] and texts(engine, "removed") == []


def test_turn_folder_written_file_by_file(tmp_path, watching):
    source = tmp_path / "turns"
    source.mkdir()
    (source / "turn_000001").mkdir()
    (source / "turn_000001" / "context.md").write_text("## §0 Query\nfirst question\n")
    (source / "turn_000001" / "response.md").write_text("first answer")
    engine = watching(source)
    assert wait_for(lambda: len(texts(engine)) == 2)
    unit = source / "turn_000002"
    unit.mkdir()
    (unit / "context.md").write_text("## §0 Query\nWhat about folderquery?\n")
    time.sleep(0.3)
    assert len(texts(engine)) == 2  # incomplete: not read yet
    with open(unit / "response.md", "w") as handle:
        for chunk in ("The answer ", "is folderanswer ", "in pieces."):
            handle.write(chunk)
            handle.flush()
            time.sleep(0.03)
    (unit / "metadata.json").write_text('{"quality_score": 0.7}')
    assert wait_for(lambda: len(texts(engine)) == 4), texts(engine)
    assert found_once(engine, "folderquery") and found_once(engine, "folderanswer")
    assert texts(engine, "edited") == []  # never read half-written


def test_truncate_and_rewrite(tmp_path, watching):
    source = tmp_path / "chats"
    source.mkdir()
    f = source / "chat.jsonl"
    lines = [msg("user", f"rewrite{i} text") for i in range(3)]
    f.write_text("".join(lines))
    engine = watching(source)
    assert wait_for(lambda: len(texts(engine)) == 3)
    lines.append(msg("assistant", "rewrite3 text"))
    with open(f, "w") as handle:  # truncate, then write the whole history again, slowly
        for line in lines:
            handle.write(line)
            handle.flush()
            time.sleep(0.05)
    assert wait_for(lambda: len(texts(engine)) == 4 and engine.watcher.wait_idle(0.5)), texts(engine)
    for i in range(4):
        assert found_once(engine, f"rewrite{i}")
    assert engine.index.max_number("default") == 4


def test_bad_input_is_skipped_and_the_watcher_keeps_going(tmp_path, watching):
    source = tmp_path / "chats"
    source.mkdir()
    engine = watching(source, adapter="jsonl")
    (source / "chat.jsonl").write_bytes(
        msg("user", "goodbefore words").encode() + b'{"role":"user","content":"bad \xff\xfe bytes"}\n'
        + b"{not json}\n" + msg("user", "goodafter words").encode()
    )
    assert wait_for(lambda: len(texts(engine)) == 2), texts(engine)
    problems = wait_for(lambda: engine.index.problems())
    assert "not valid UTF-8" in problems[0][2] and "not valid JSON" in problems[0][2]
    assert engine.watcher.is_alive()
    with open(source / "chat.jsonl", "a") as handle:
        handle.write(msg("user", "stillworking words"))
    assert wait_for(lambda: found_once(engine, "stillworking"))


def test_vanished_source_is_unavailable_and_comes_back(tmp_path, watching):
    source = tmp_path / "chats"
    source.mkdir()
    (source / "chat.jsonl").write_text(msg("user", "vanishone words") + msg("assistant", "vanishtwo words"))
    engine = watching(source, rescan=1.0)
    assert wait_for(lambda: len(texts(engine)) == 2)
    source_id = engine.settings.sources[0].id
    away = tmp_path / "elsewhere"
    os.rename(source, away)
    assert wait_for(lambda: engine.watcher.health()[source_id].status == "unavailable")
    time.sleep(1.5)  # a rescan or two while it is gone
    assert texts(engine) == ["vanishone words", "vanishtwo words"]  # nothing read as deleted
    assert engine.status()["sources"][0]["status"] == "unavailable"
    os.rename(away, source)
    with open(source / "chat.jsonl", "a") as handle:
        handle.write(msg("user", "vanishthree words"))
    assert wait_for(lambda: engine.watcher.health()[source_id].status in ("watching", "polling"))
    assert wait_for(lambda: len(texts(engine)) == 3), texts(engine)
    assert found_once(engine, "vanishthree") and found_once(engine, "vanishone")
    assert engine.watcher.is_alive()


def test_a_crashing_handler_or_adapter_never_stops_watching(tmp_path, watching, monkeypatch):
    source = tmp_path / "chats"
    source.mkdir()
    engine = watching(source, adapter="jsonl")
    watcher = engine.watcher
    real_enqueue = watcher._enqueue_path
    calls = {"n": 0}

    def flaky_enqueue(path):
        calls["n"] += 1
        if calls["n"] <= 2:
            raise RuntimeError("handler bug")
        real_enqueue(path)

    monkeypatch.setattr(watcher, "_enqueue_path", flaky_enqueue)
    adapter = ADAPTERS["jsonl"]
    real_read = adapter.read
    failures = {"n": 0}

    def flaky_read(*args, **kwargs):
        if failures["n"] == 0:
            failures["n"] += 1
            raise RuntimeError("adapter bug")
        return real_read(*args, **kwargs)

    monkeypatch.setattr(adapter, "read", flaky_read)
    (source / "chat.jsonl").write_text(msg("user", "crashone words"))
    time.sleep(0.5)
    with open(source / "chat.jsonl", "a") as handle:
        handle.write(msg("user", "crashtwo words"))
    assert wait_for(lambda: len(texts(engine)) == 2), texts(engine)
    assert calls["n"] > 2 and failures["n"] == 1
    assert watcher.is_alive() and watcher._observer.is_alive()


def test_changes_made_while_closed_are_picked_up_exactly_once(tmp_path, watching):
    source = tmp_path / "chats"
    source.mkdir()
    f = source / "chat.jsonl"
    f.write_text(msg("user", "closedone words"))
    engine = watching(source)
    assert wait_for(lambda: len(texts(engine)) == 1)
    engine.close()
    with open(f, "a") as handle:
        handle.write(msg("user", "closedtwo words"))
    (source / "other.jsonl").write_text(msg("user", "closedthree words"))
    engine = watching(source)
    assert wait_for(lambda: len(texts(engine)) == 3), texts(engine)
    for word in ("closedone", "closedtwo", "closedthree"):
        assert found_once(engine, word)


def test_the_vault_is_never_watched(tmp_path, watching):
    # A vault inside the watched folder: its own files (JSONL ledger included) are ignored.
    source = tmp_path / "chats"
    source.mkdir()
    (source / "chat.jsonl").write_text(msg("user", "outside words"))
    engine = Engine(source / "vault", triggers=False)
    engine.add_source(source)
    engine.settings.set("watch.debounce_ms", 100)
    engine.start_watching()
    try:
        assert wait_for(lambda: len(texts(engine)) == 1)
        engine.memory.save(title="inside", content="inside words", area="knowledge")
        time.sleep(0.5)
        assert texts(engine) == ["outside words"]
    finally:
        engine.close()


def test_native_events_failing_falls_back_to_polling(tmp_path, watching, monkeypatch, caplog):
    import watchdog.observers

    class BrokenObserver:
        def __init__(self, *a, **k):
            pass

        def start(self):
            raise OSError(28, "inotify watch limit reached")

    monkeypatch.setattr(watchdog.observers, "Observer", BrokenObserver)
    source = tmp_path / "chats"
    source.mkdir()
    (source / "chat.jsonl").write_text("")
    engine = watching(source)
    assert "max_user_watches" in caplog.text
    sid = engine.settings.sources[0].id
    assert engine.watcher.health()[sid].status == "polling"
    with open(source / "chat.jsonl", "a") as handle:
        handle.write(msg("user", "polledword text"))
    assert wait_for(lambda: found_once(engine, "polledword"))


def test_a_source_added_while_watching_is_watched(tmp_path, watching):
    first = tmp_path / "one"
    first.mkdir()
    (first / "a.jsonl").write_text(msg("user", "firstsource words"))
    engine = watching(first)
    assert wait_for(lambda: len(texts(engine)) == 1)
    second = tmp_path / "two"
    second.mkdir()
    (second / "b.jsonl").write_text(msg("user", "secondsource words"))
    engine.add_source(second)
    assert wait_for(lambda: found_once(engine, "secondsource"))
    with open(second / "b.jsonl", "a") as handle:
        handle.write(msg("user", "secondlive words"))
    assert wait_for(lambda: found_once(engine, "secondlive"))


def test_the_first_append_to_a_quiet_file_is_read_at_once(tmp_path, watching):
    """Freshness: with a quiet gap of a minute, a new message is still found in seconds, because
    the first event of a quiet append-only file is handled at once (the burst after it waits)."""
    source = tmp_path / "chats"
    source.mkdir()
    chat = source / "c.jsonl"
    chat.write_text(msg("user", "hello there", "m1"), "utf-8")
    engine = watching(source)
    assert wait_for(lambda: texts(engine) == ["hello there"])
    engine.settings.set("watch.debounce_ms", 60_000)
    engine.settings.set("watch.max_latency_ms", 120_000)
    time.sleep(0.3)  # the start-up read is done: the file is quiet again
    engine.watcher._last_read.clear()  # "quiet for a while", without waiting a minute
    with chat.open("a", encoding="utf-8") as f:
        f.write(msg("assistant", "freshnessword arrives", "m2"))
    assert wait_for(lambda: found_once(engine, "freshnessword"))


def test_a_file_that_keeps_growing_is_read_again_without_waiting_for_quiet(tmp_path, watching):
    """Freshness during a conversation: a line appended right after another (the file not quiet)
    is read in the next tail read, not after the debounce (a minute here)."""
    source = tmp_path / "chats"
    source.mkdir()
    chat = source / "c.jsonl"
    chat.write_text(msg("user", "hello there", "m1"), "utf-8")
    engine = watching(source)
    assert wait_for(lambda: texts(engine) == ["hello there"])
    engine.settings.set("watch.debounce_ms", 60_000)
    engine.settings.set("watch.max_latency_ms", 120_000)
    engine.watcher._last_read.clear()
    with chat.open("a", encoding="utf-8") as f:
        f.write(msg("assistant", "firstgrowing reply", "m2"))
    assert wait_for(lambda: found_once(engine, "firstgrowing"))
    with chat.open("a", encoding="utf-8") as f:  # the file was read a moment ago: not quiet
        f.write(msg("user", "secondgrowing question", "m3"))
    assert wait_for(lambda: found_once(engine, "secondgrowing"))
