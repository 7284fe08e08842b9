"""The full-text index keeps no copy of the text: it reads its words through ``items_src``.

FTS5 removes an entry by reading the words it was indexed with from that view, so a value
there changing before its entry is deleted would leave stray words behind. FTS5's own
integrity check compares every entry with the view; it must pass after every kind of change.
"""

from __future__ import annotations

import json
import sqlite3

from curator.clock import ManualClock
from curator.engine import Engine
from curator.index.archive import Archiver
from curator.vault.documents import Document

BASE = 1_790_000_000


def _line(conv: str, n: int, text: str, day: int = 0) -> str:
    return json.dumps({"role": "user" if n % 2 else "assistant", "content": text, "id": f"{conv}-{n}",
                       "conversation": conv, "timestamp": BASE + day * 86400 + n}) + "\n"


def _check(engine: Engine) -> None:
    with engine.index.write() as conn:
        conn.execute("INSERT INTO items_fts(items_fts, rank) VALUES ('integrity-check', 1)")


def _edit(path, index: int, line: str) -> None:
    lines = path.read_text().splitlines(keepends=True)
    lines[index] = line
    path.write_text("".join(lines))


def test_the_index_matches_its_content_through_appends_edits_removals_archival_and_documents(tmp_path):
    source = tmp_path / "chats"
    source.mkdir()
    a = source / "a.jsonl"
    a.write_text("".join(_line("c1" if n % 3 else "c2", n, f"kettle note {n}", day=n // 10) for n in range(1, 40)))
    with Engine(tmp_path / "vault", clock=ManualClock(BASE + 90 * 86400), triggers=False) as engine:
        engine.add_source(source)
        engine.scan_all()
        _check(engine)
        # An edit in the middle: the old turn is marked, a new one pairs with its neighbours.
        _edit(a, 5, _line("c1" if 6 % 3 else "c2", 6, "kettle note six, edited", day=0))
        engine.scan_all()
        _check(engine)
        lines = a.read_text().splitlines(keepends=True)
        del lines[10]  # a removal: the next turn pairs with the one before the removed one
        a.write_text("".join(lines))
        engine.scan_all()
        _check(engine)
        # Archival moves the first days' text out; later turns still pair with archived ones.
        assert Archiver(engine.index, engine.paths).archive(BASE + 2 * 86400) > 0
        _check(engine)
        _edit(a, 25, _line("c1" if 27 % 3 else "c2", 27, "kettle note twenty-seven, edited", day=2))
        engine.scan_all()
        _check(engine)
        doc = Document.new(doc_id="m1", kind="fact", title="Kettle", body="The user owns a blue kettle.")
        engine.index.upsert_document("Knowledge/m1.md", doc, "default", "knowledge", "1")
        engine.index.upsert_document("Knowledge/m1.md", doc, "default", "knowledge", "2")
        _check(engine)
        engine.index.remove_document("Knowledge/m1.md")
        _check(engine)
        assert engine.search("twenty-seven")[0].snippet.startswith("kettle note [twenty]-[seven]")
        report = engine.reindex()
        assert report.equal, report.differences
        _check(engine)


def test_the_index_stores_no_text_of_its_own(tmp_path):
    source = tmp_path / "chats"
    source.mkdir()
    (source / "a.jsonl").write_text("".join(_line("c1", n, f"kettle note {n}") for n in range(1, 20)))
    with Engine(tmp_path / "vault", clock=ManualClock(BASE + 86400), triggers=False) as engine:
        engine.add_source(source)
        engine.scan_all()
        names = {r[0] for r in engine.index.reader().execute("SELECT name FROM sqlite_master")}
    assert "items_fts_content" not in names
    # A connection without the project's function cannot read the words: there is no copy.
    conn = sqlite3.connect(tmp_path / "vault" / "index.sqlite")
    try:
        conn.execute("SELECT body FROM items_fts LIMIT 1").fetchall()
        raise AssertionError("the full-text index answered without fts_text")
    except sqlite3.OperationalError as exc:
        assert "fts_text" in str(exc)
    finally:
        conn.close()
