"""A turn's full-text entry is its turn row's id and every other item numbers from
``ITEM_IDS_FROM``: documents and turns added in any order are found as what they are, and
an index gives back the pages FTS5's merges free."""

from __future__ import annotations

import json

import pytest

from curator.clock import ManualClock
from curator.engine import Engine
from curator.index import ledger_apply
from curator.index.database import FREE_PAGES_KEPT, Index
from curator.index.schema import ITEM_IDS_FROM
from curator.index.search import SearchFilters, search
from curator.vault.documents import Document


def _append(path, words: list[str], first: int) -> None:
    with path.open("a", encoding="utf-8") as handle:
        for n, word in enumerate(words, first):
            handle.write(json.dumps({"role": "user" if n % 2 else "assistant", "content": f"a note on {word}",
                                     "id": f"m{n}", "conversation": "c1", "timestamp": 1_790_000_000 + n}) + "\n")


def _remember(engine: Engine, word: str) -> None:
    doc = Document.new(doc_id=f"mem-{word}", kind="fact", title=f"about {word}", body=f"The user keeps a {word}.\n",
                       confidence=0.7, scope="user")
    engine.document_changed(engine.store.create(doc, "default", "knowledge", "Facts"))


@pytest.mark.parametrize("bulk", [True, False])
def test_turns_and_documents_added_in_turn_are_found_as_themselves(tmp_path, monkeypatch, bulk):
    if not bulk:
        monkeypatch.setattr(ledger_apply, "_bulk_adds", lambda *args, **kwargs: False)
    chats = tmp_path / "chats"
    chats.mkdir()
    chat = chats / "a.jsonl"
    with Engine(tmp_path / "vault", clock=ManualClock(1_790_000_500), triggers=False) as engine:
        _remember(engine, "kayak")  # a document before any turn
        _append(chat, ["kettle", "teapot", "saucer"], 1)
        engine.add_source(chats)
        engine.scan_all()
        _remember(engine, "canoe")
        _append(chat, ["ladle", "whisk"], 4)
        engine.scan_all()
        expected = {"kayak": ("document", "mem-kayak"), "canoe": ("document", "mem-canoe")}
        numbers = {t.text.split()[-1]: str(t.number) for t in engine.index.turns("default")}
        expected.update({word: ("turn", numbers[word]) for word in ("kettle", "teapot", "saucer", "ladle", "whisk")})
        for word, (kind, ident) in expected.items():
            hits = search(engine.index, word, SearchFilters(item_types=(kind,)))
            # (the turn after a turn holds its words too, as the previous turn's)
            assert [(h.item_type, h.id) for h in hits[:1]] == [(kind, ident)], word
            assert search(engine.index, word, SearchFilters(
                item_types=("document" if kind == "turn" else "turn",))) == [], word
        conn = engine.index.reader()
        turn_ids = {r[0] for r in conn.execute("SELECT id FROM turn_rows")}
        assert {r[0] for r in conn.execute("SELECT id FROM turn_items")} == turn_ids
        assert all(r[0] >= ITEM_IDS_FROM for r in conn.execute("SELECT id FROM items"))
        entries = {r[0] for r in conn.execute("SELECT rowid FROM items_fts")}
        assert entries == turn_ids | {r[0] for r in conn.execute("SELECT id FROM items")}
        assert engine.reindex().equal


def test_an_index_gives_back_the_pages_its_writes_freed(tmp_path):
    index = Index(tmp_path / "index.sqlite")
    try:
        conn = index._writer
        assert conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # incremental, set before any table
        # Pages freed by any write (FTS5's merges free theirs the same way).
        with index.write() as w:
            w.execute("CREATE TABLE scratch(x BLOB)")
            w.executemany("INSERT INTO scratch VALUES (zeroblob(3000))", [()] * (2 * FREE_PAGES_KEPT))
        with index.write() as w:
            w.execute("DROP TABLE scratch")
        assert conn.execute("PRAGMA freelist_count").fetchone()[0] >= 2 * FREE_PAGES_KEPT
        index.apply_records("default", [])
        assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
    finally:
        index.close()
