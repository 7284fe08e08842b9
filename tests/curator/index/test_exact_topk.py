"""Issue 22: the top k that search returns is the top k of a full BM25 ranking of the same
query, for every query, over a generated corpus large enough that search prunes."""

from __future__ import annotations

import json
import random

import pytest

from curator.clock import ManualClock
from curator.engine import Engine
from curator.index import topk
from curator.index.search import (
    QUALITY_WEIGHT,
    SearchFilters,
    _filter_clauses,
    _or_expression,
    query_terms,
)
from curator.vault.documents import Document

# A Zipf-like vocabulary: a few words in most turns, most words in few (as in chat).
COMMON = ["today", "really", "think", "friend", "work", "home"]
MIDDLE = [f"topic{i}" for i in range(40)]
RARE = [f"rare{i}" for i in range(400)]
TURNS = 6000
DIRECT = 1500  # ranked whole below this many matches (here): the common words take the pruned path


def sentence(rng: random.Random) -> str:
    if rng.random() < 0.05:  # short and repetitive: common words only, yet high in a ranking
        return " ".join(rng.choice(COMMON[:3]) for _ in range(rng.randint(2, 6)))
    words = rng.sample(COMMON, rng.randint(1, 3)) + rng.sample(MIDDLE, rng.randint(0, 2))
    rare = rng.sample(RARE, rng.randint(0, 2))
    words += rare + ["filler"] * rng.randint(10 if rare else 0, 40 if rare else 12)  # rare words in long turns
    if rng.random() < 0.1:
        words += [rng.choice(COMMON)] * rng.randint(2, 5)  # a word said again and again
    rng.shuffle(words)
    return " ".join(words)


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    rng = random.Random(22)
    root = tmp_path_factory.mktemp("exact")
    chats = root / "chats"
    chats.mkdir()
    with (chats / "corpus.jsonl").open("w", encoding="utf-8") as handle:
        for i in range(TURNS):
            handle.write(json.dumps({"role": "user" if i % 2 else "assistant", "content": sentence(rng),
                                     "timestamp": f"2026-11-{1 + i % 28:02d}T10:00:00Z"}) + "\n")
    engine = Engine(root / "vault", clock=ManualClock(), triggers=False)
    engine.add_source(chats)
    engine.scan_all()
    for i in range(30):  # approved memories with their own quality: a factor of 0.5 to 1.5
        doc = Document.new(doc_id=f"mem{i:04d}", kind="fact", title=f"memory {i}", body=sentence(rng) + "\n",
                           confidence=0.7, quality=round(rng.random(), 2), scope="user")
        engine.document_changed(engine.store.create(doc, "default", "knowledge", "Facts"))
    yield engine
    engine.close()


def full_ranking(engine: Engine, query: str, filters: SearchFilters, limit: int) -> list[tuple[int, float]]:
    """Every match ranked by BM25 and quality: what search must equal (over the view of both kinds of
    item, which search never joins)."""
    where, params = _filter_clauses(filters)
    clauses = " AND ".join(["items_fts MATCH ?", "i.searchable = 1", *where])
    rows = engine.index.reader().execute(
        f"SELECT items_fts.rowid, items_fts.rank * {QUALITY_WEIGHT} AS r FROM items_fts "
        f"JOIN all_items i ON i.id = items_fts.rowid WHERE {clauses} ORDER BY r",
        [_or_expression(query_terms(query)), *params]).fetchall()
    return [(int(rowid), -float(rank)) for rowid, rank in rows][:limit]


def queries() -> list[str]:
    rng = random.Random(7)
    found = [" ".join(rng.sample(COMMON, 2)), " ".join(COMMON), "today", "filler", "friend home work"]
    for _ in range(60):
        found.append(" ".join(rng.sample(COMMON, rng.randint(1, 3)) + rng.sample(MIDDLE, rng.randint(0, 2))
                              + rng.sample(RARE, rng.randint(0, 2))))
    found.append(" ".join(COMMON + MIDDLE[:6]))  # more phrases than are weighed set by set
    return found


def ident(engine: Engine, rowid: int) -> str:
    """What a search hit calls the item of FTS row ``rowid``: a turn's number, a document's id."""
    conn = engine.index.reader()
    item_type = conn.execute("SELECT item_type FROM all_items WHERE id = ?", (rowid,)).fetchone()[0]
    if item_type == "turn":
        return str(conn.execute("SELECT number FROM turn_rows WHERE id = ?", (rowid,)).fetchone()[0])
    return str(conn.execute("SELECT id FROM documents WHERE item_id = ?", (rowid,)).fetchone()[0])


@pytest.mark.parametrize("filters", [SearchFilters(), SearchFilters(item_types=("document",)),
                                     SearchFilters(min_quality=0.3), SearchFilters(kinds=("user",)),
                                     SearchFilters(item_types=("turn",), user_id="default")],
                         ids=["all", "documents", "quality", "the person's turns", "turns"])
def test_search_returns_the_top_k_of_a_full_ranking(engine: Engine, filters: SearchFilters, monkeypatch) -> None:
    monkeypatch.setattr(topk, "DIRECT", DIRECT)
    whole: list[str] = []  # expressions ranked whole in one statement
    ranked = topk.ranked
    monkeypatch.setattr(topk, "ranked", lambda conn, q, e, limit: whole.append(e) or ranked(conn, q, e, limit))
    pruned = 0
    for query in queries():
        whole.clear()
        hits = engine.search(query, filters, 10)
        want = full_ranking(engine, query, filters, 10)
        assert [round(h.score, 9) for h in hits] == [round(s, 9) for _, s in want], query
        for hit, (rowid, score) in zip(hits, want, strict=True):
            tied = sum(1 for _, s in want if abs(s - score) < 1e-9) > 1
            if not tied:  # ties aside, the very same items in the same order
                assert hit.id == ident(engine, rowid), query
        pruned += not whole
    if filters == SearchFilters():  # (the filtered ones leave too few rows for a bound to cut)
        assert pruned >= 10  # these were answered without ranking every match
