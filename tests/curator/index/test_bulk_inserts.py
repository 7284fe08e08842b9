"""New turns are inserted in bulk when they only extend their conversations; the index is
the same as the one-by-one inserts build, through edits, removals and interleaved chats."""

from __future__ import annotations

import json
import re

import pytest

from curator.clock import ManualClock
from curator.engine import Engine
from curator.index import ledger_apply
from curator.index.database import WRITER_CACHE_KIB, Index
from curator.sources.turns import text_hash


def _line(conv: str, n: int, text: str) -> str:
    return json.dumps({"role": "user" if n % 2 else "assistant", "content": text, "id": f"{conv}-{n}",
                       "conversation": conv, "timestamp": 1_790_000_000 + n}) + "\n"


def _history(engine: Engine, source) -> None:
    # Two conversations interleaved in one file, a second file, then an append, an edit
    # in the middle (a full re-read), and a removal.
    a = source / "a.jsonl"
    a.write_text("".join(_line("c1" if n % 3 else "c2", n, f"kettle note {n}") for n in range(1, 40)))
    (source / "b.jsonl").write_text("".join(_line("c3", n, f"teapot line {n}") for n in range(1, 12)))
    engine.add_source(source)
    engine.scan_all()
    with a.open("a") as handle:
        handle.write("".join(_line("c1", n, f"kettle note {n}") for n in range(40, 50)))
    engine.scan_all()
    lines = a.read_text().splitlines(keepends=True)
    lines[5] = _line("c1" if 6 % 3 else "c2", 6, "kettle note six, edited")
    del lines[10]
    a.write_text("".join(lines))
    engine.scan_all()


def _snapshot(tmp_path, name, monkeypatch, bulk: bool):
    if not bulk:
        monkeypatch.setattr(ledger_apply, "_bulk_adds", lambda *args, **kwargs: False)
    source = tmp_path / f"{name}-chats"
    source.mkdir()
    with Engine(tmp_path / name, clock=ManualClock(1_790_000_500), triggers=False) as engine:
        _history(engine, source)
        snap = engine.index.snapshot()
        assert engine.reindex().equal  # a rebuild from the ledger agrees with the live index
    monkeypatch.undo()
    return snap


def _strip_source(snap):
    # The two vaults read different folders: compare everything but the source id.
    return {k: [tuple(re.sub(r"(bulk|slow)-chats-[0-9a-f]+", "X", str(v)) for v in row) for row in rows]
            for k, rows in snap.items()}


def test_bulk_and_one_by_one_inserts_build_the_same_index(tmp_path, monkeypatch):
    bulk = _snapshot(tmp_path, "bulk", monkeypatch, bulk=True)
    slow = _snapshot(tmp_path, "slow", monkeypatch, bulk=False)
    assert len(bulk["turns"]) == len(slow["turns"]) > 60
    assert _strip_source(bulk) == _strip_source(slow)


def test_each_turn_is_paired_with_the_one_before_it_in_its_conversation(tmp_path):
    source = tmp_path / "chats"
    source.mkdir()
    (source / "a.jsonl").write_text(_line("c1", 1, "alpha one") + _line("c2", 2, "beta one")
                                    + _line("c1", 3, "alpha two") + _line("c2", 4, "beta two"))
    with Engine(tmp_path / "vault", triggers=False) as engine:
        engine.add_source(source)
        engine.scan_all()
        rows = engine.index.reader().execute(
            "SELECT f.body, f.prev FROM turn_items i JOIN items_fts f ON f.rowid = i.id ORDER BY i.id").fetchall()
    assert [(r["body"], r["prev"]) for r in rows] == [
        ("alpha one", ""), ("beta one", ""), ("alpha two", "alpha one"), ("beta two", "beta one")]


@pytest.mark.parametrize("bulk", [True, False])
def test_a_refused_row_in_a_bulk_insert_refuses_only_itself(tmp_path, monkeypatch, bulk):
    if not bulk:
        monkeypatch.setattr(ledger_apply, "_bulk_adds", lambda *args, **kwargs: False)
    index = Index(tmp_path / "index.sqlite")
    turn = {"user_id": "u", "source_id": "s", "file": "f", "conversation": "c", "key": "k", "role": "user",
            "speaker": "user", "timestamp": 1_790_000_000.0, "sha256": "0" * 64, "context": "", "extra": {}}
    records = [{"seq": n, "op": "add", "at": 0.0, "turn": {**turn, "number": num, "position": n, "text": f"t{n}"}}
               for n, num in ((1, 1), (2, 2), (3, 2), (4, 3))]  # the third reuses number 2
    refused = index.apply_records("u", records)
    assert [r["seq"] for r, _ in refused] == [3]
    assert [t.text for t in index.turns("u")] == ["t1", "t2", "t4"]
    assert {t.sha256 for t in index.turns("u")} == {"0" * 64}  # not its text's hash: kept as it was
    index.close()


def test_only_the_write_connection_gets_the_large_page_cache(tmp_path) -> None:
    index = Index(tmp_path / "index.sqlite")
    try:
        assert index._writer.execute("PRAGMA cache_size").fetchone()[0] == -WRITER_CACHE_KIB
        assert index.reader().execute("PRAGMA cache_size").fetchone()[0] == -2000  # SQLite's default
    finally:
        index.close()


def test_a_first_import_takes_the_bulk_path_whole(tmp_path, monkeypatch):
    # The one-by-one path is the fallback when SQLite refuses a bulk row; a bulk statement
    # that is wrong for every row would hide behind it, ten times slower, with every test green.
    def one_by_one(*args, **kwargs):
        raise AssertionError("a plain first import fell back to one-by-one inserts")

    monkeypatch.setattr(ledger_apply, "_apply_one", one_by_one)
    source = tmp_path / "chats"
    source.mkdir()
    (source / "a.jsonl").write_text("".join(_line("c1", n, f"kettle note {n}") for n in range(1, 30)))
    with Engine(tmp_path / "vault", triggers=False) as engine:
        engine.add_source(source)
        engine.scan_all()
        assert len(engine.index.turns("default")) == 29
        # A row keeps no hash of its own text; reading it gives the hash back.
        turn = engine.index.get_turn("default", 3)
        assert turn.sha256 == text_hash(turn.text) == text_hash("kettle note 3")
        kept = engine.index.reader().execute("SELECT count(*) FROM turn_rows WHERE sha256 IS NOT NULL")
        assert kept.fetchone()[0] == 0


def test_the_hash_a_reader_computes_is_the_ingest_hash():
    from curator.index.rows import text_sha

    for text in ("kettle", "Grüße aus Zürich", "我每个星期天早上跑步", "", "x" * 100_000):
        assert text_sha(text) == text_hash(text)


def test_a_message_id_the_key_holds_is_stored_once_and_read_back():
    from curator.index.rows import extra_of, stored_extra

    cases = [({"message_id": "m-1"}, "id:m-1", "="),
             ({"message_id": "m-1", "model": "qwen"}, "id:m-1", '={"model": "qwen"}'),
             ({"message_id": "m-1"}, "id:m-1#dup2", '{"message_id": "m-1"}'),  # the key is not the id
             ({"message_id": 7}, "id:7", '{"message_id": 7}'),
             ({}, "pos:3", "{}")]
    for extra, key, stored in cases:
        assert stored_extra(extra, key) == stored
        assert extra_of(stored, key) == extra
    # A move to another key keeps the id it held (ledger_apply re-stores the extra).
    assert extra_of(stored_extra(extra_of("=", "id:m-1"), "pos:9"), "pos:9") == {"message_id": "m-1"}
