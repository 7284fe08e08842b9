"""One unified search (seed 004 §5) over turns, context summaries and approved knowledge.

Everything searchable lives in one FTS5 table, so BM25 scores of a turn and of a document
come from the same corpus statistics and can be ranked together. Staged items
(Knowledge_staging/) and soft-deleted reflections are indexed but never searchable:
the ``searchable`` flag of an item is set by the index, and every query requires it.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import asdict, dataclass, field
from typing import Any

from curator.index.database import Index
from curator.index.text import STOP_WORDS, cjk_phrases, readable_snippet, tokenize
from curator.index.topk import Query, any_of, top_k

log = logging.getLogger(__name__)

MAX_QUERY_TERMS = 32


@dataclass(frozen=True)
class SearchFilters:
    """Optional narrowing of a search; ``None``/empty means no filter.

    ``kinds`` match a document's kind or any of its content types; turns have kind
    ``turn`` and content types ``context`` and their role. ``topic`` matches a
    hierarchical topic and its children (``pet`` matches ``pet.hamster``). Items without
    a scope or quality never pass a scope or minimum-quality filter.
    """

    user_id: str | None = None
    kinds: tuple[str, ...] = ()
    topic: str | None = None
    scope: str | None = None
    min_quality: float | None = None
    since: float | None = None
    until: float | None = None
    item_types: tuple[str, ...] = ()  # "turn" and/or "document"; empty: both


@dataclass(frozen=True)
class SearchHit:
    """One search result.

    ``id`` is the turn number (as text) for a turn and the document id for a document.
    ``score`` is the BM25 relevance (higher is better). Turn hits carry ``number`` and
    ``provenance``; document hits carry ``path``, ``area``, ``topic``, ``scope`` and ``quality``.
    """

    item_type: str
    id: str
    score: float
    snippet: str
    title: str
    user_id: str
    kind: str
    timestamp: float | None
    number: int | None = None
    role: str | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    path: str | None = None
    area: str | None = None
    topic: str | None = None
    scope: str | None = None
    quality: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# Relevance and quality together (seed 004 §5): FTS5's rank is bm25() negated, so scaling it
# by 0.5 + quality leaves an item of unknown or middling quality (every turn) as bm25 ranks
# it, and moves a well-evidenced, reviewed memory up by up to half its relevance.
QUALITY_WEIGHT = "(0.5 + COALESCE(i.quality, 0.5))"


def query_terms(query: str) -> list[str]:
    """The distinct words of a query that count: stop words dropped (unless nothing else is left)."""
    tokens = tokenize(query)
    words = [t for t in tokens if t not in STOP_WORDS] or tokens
    unique: list[str] = []
    for word in words:
        if word not in unique:
            unique.append(word)
    return unique[:MAX_QUERY_TERMS]


def _phrases(terms: list[str]) -> tuple[str, ...]:
    """The FTS phrases of the query terms, each once."""
    return tuple(dict.fromkeys(p for t in terms for p in cjk_phrases(t)))


def _or_expression(terms: list[str]) -> str:
    return any_of(_phrases(terms))


def match_expression(query: str) -> str | None:
    """An FTS5 MATCH expression for a natural-language query (stop words dropped, OR-ed terms).

    Returns None when the query holds no words at all.
    """
    terms = query_terms(query)
    return _or_expression(terms) if terms else None


def search(index: Index, query: str, filters: SearchFilters | None = None, limit: int = 10) -> list[SearchHit]:
    """Search over every searchable item of the index, ranked by BM25 relevance and quality.

    Args:
        index: the vault's index.
        query: natural language or keywords.
        filters: optional narrowing (user, kind/content type, topic, scope, quality, time).
        limit: most hits returned.

    Returns:
        Hits, best first. Staged and soft-deleted documents and edited/removed turns are never
        among them.
    """
    terms = query_terms(query)
    if not terms or limit <= 0:
        return []
    conn = index.reader()
    where, params = _filter_clauses(filters or SearchFilters())
    ranking = Query(_phrases(terms), tuple(where), tuple(params), QUALITY_WEIGHT)
    top = top_k(conn, ranking, limit)
    if not top:
        return []
    expression = ranking.expression
    scores = {r.rowid: r.score for r in top}
    found = {row["id"]: row for row in conn.execute(
        "SELECT i.id, i.item_type, i.ref, i.user_id, i.kind, i.topic, i.scope, i.quality, i.ts, "
        "(SELECT t.number FROM turn_rows t WHERE i.item_type = 'turn' AND t.id = i.id) AS number "
        f"FROM all_items i WHERE i.id IN ({','.join('?' * len(top))})", [r.rowid for r in top])}
    rows = [found[r.rowid] for r in top if r.rowid in found]
    snippets = _snippets(conn, expression, [r["id"] for r in rows])
    return [_hit(index, row, scores[row["id"]], snippets.get(row["id"], "")) for row in rows]


def _filter_clauses(filters: SearchFilters) -> tuple[list[str], list[Any]]:
    """The WHERE clauses (over ``i``, an item with the columns of ``items``) and their parameters that narrow
    a search."""
    where: list[str] = []
    params: list[Any] = []
    if filters.user_id:
        where.append("i.user_id = ?")
        params.append(filters.user_id)
    if filters.item_types:
        where.append(f"i.item_type IN ({','.join('?' * len(filters.item_types))})")
        params.extend(filters.item_types)
    if filters.kinds:
        alternatives = []
        for kind in filters.kinds:
            alternatives.append("i.kind = ? OR i.content_types LIKE ?")
            params.extend([kind.lower(), f"%,{kind.lower()},%"])
        where.append("(" + " OR ".join(alternatives) + ")")
    if filters.topic:
        where.append("(i.topic = ? OR i.topic LIKE ?)")
        params.extend([filters.topic.lower(), filters.topic.lower() + ".%"])
    if filters.scope:
        where.append("i.scope = ?")
        params.append(filters.scope)
    if filters.min_quality is not None:
        where.append("i.quality >= ?")
        params.append(filters.min_quality)
    if filters.since is not None:
        where.append("i.ts >= ?")
        params.append(filters.since)
    if filters.until is not None:
        where.append("i.ts <= ?")
        params.append(filters.until)
    return where, params


def _snippets(conn: sqlite3.Connection, expression: str, ids: list[int]) -> dict[int, str]:
    """{item id: a snippet of its body around the matched words}."""
    return {
        r[0]: readable_snippet(r[1])
        for r in conn.execute(
            # Always the item's own text (column 0, the body): a turn found through its
            # neighbour's words must not show the neighbour, or results look duplicated.
            "SELECT rowid, snippet(items_fts, 0, '[', ']', '…', 16) "
            "FROM items_fts "
            f"WHERE items_fts MATCH ? AND rowid IN ({','.join('?' * len(ids))})",
            [expression, *ids],
        )
    }


def _hit(index: Index, row: Any, score: float, snippet: str) -> SearchHit:
    if row["item_type"] == "archive":
        from curator.index.archive import archive_hit  # archival builds on this module

        numbers = index.reader().execute("SELECT context FROM items_fts WHERE rowid = ?", (row["id"],)).fetchone()
        return archive_hit(row, snippet, str(numbers[0]) if numbers else "", score)
    if row["item_type"] == "turn":
        turn = index.get_turn(row["user_id"], int(row["number"])) if row["number"] is not None else None
        if turn is None:  # indexed but gone: cannot happen inside one transaction; be safe
            return SearchHit("turn", str(row["number"]), score, snippet, "", row["user_id"], "turn", row["ts"])
        return SearchHit(
            item_type="turn",
            id=str(turn.number),
            score=score,
            snippet=snippet,
            title=f"turn {turn.number} ({turn.role})",
            user_id=turn.user_id,
            kind="turn",
            timestamp=turn.timestamp,
            number=turn.number,
            role=turn.role,
            provenance={
                "source_id": turn.source_id,
                "file": turn.file,
                "conversation": turn.conversation,
                "key": turn.key,
                "position": turn.position,
                "timestamp": turn.timestamp,
                "sha256": turn.sha256,
            },
            topic=row["topic"] or None,
            quality=row["quality"],
        )
    path = row["ref"].split(":", 1)[1]
    doc = index.get_document(path)
    return SearchHit(
        item_type="document",
        id=doc.id if doc else path,
        score=score,
        snippet=snippet,
        title=doc.title if doc else path,
        user_id=row["user_id"],
        kind=row["kind"],
        timestamp=row["ts"],
        path=path,
        area=doc.area if doc else None,
        topic=row["topic"] or None,
        scope=row["scope"],
        quality=row["quality"],
    )
