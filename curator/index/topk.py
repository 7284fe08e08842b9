"""The exact top k of the BM25 ranking over FTS5, without ranking every match when it can.

FTS5 scores a row in one to two microseconds, so ranking the 30,000 rows that share a
common word costs tens of milliseconds. The top k needs fewer: a row can only enter it if
the phrases it holds could add up to more than the k-th best score already found (the
MaxScore idea). A phrase adds at most ``idf * (k1 + 1)`` to a row's BM25 (its saturation
limit), times the largest quality factor in the index. So:

1. rank a seed: the rows holding a rare phrase (or, when every phrase is common, all of
   them), and take ``theta``, the k-th best score among them;
2. the rows that can still beat ``theta`` hold a set of phrases whose bounds reach it: one
   FTS5 boolean query (an OR of ANDs over the sets the seed did not cover) finds them;
3. rank those. Every row left out is bounded below ``theta``, so the top k is exact.

FTS5 ranks rows by the phrases of the query it runs. To score the rows of a region R by
the whole query Q, ``(Q) AND (R)`` is ranked and R's own score of each row subtracted: BM25
is a sum over the expression's phrases, each term fixed by the phrase's corpus-wide IDF and
its hits in the row, so what is left is Q's score. When the region is not much smaller
than Q's matches, Q is ranked whole instead (the same answer, cheaper).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from curator.index.schema import ITEM_IDS_FROM, TURN_ITEMS

K1 = 1.2  # FTS5 bm25()'s k1
# A query matching at most this many rows is ranked whole, in one statement. Measured over
# 100,000 turns: one statement costs about 2 us a match (10,000 matches: about 22 ms), and
# below that the bounds rarely save more than their own queries cost.
DIRECT = 10_000
SEED_RARE = 2000  # a phrase in at most this many rows seeds theta
SUBSETS_UP_TO = 8  # up to this many phrases every subset is weighed; past it, MaxScore's essential list


@dataclass(frozen=True)
class Ranked:
    """One row of the top k: its FTS5 rowid (the item id) and final score (higher is better)."""

    rowid: int
    score: float


@dataclass(frozen=True)
class Query:
    """What ranks a query's rows: the phrases, the narrowing of rows and the quality factor."""

    phrases: tuple[str, ...]
    where: tuple[str, ...]  # clauses over ``i``, an item with the columns of ``items``
    params: tuple[Any, ...]
    quality_weight: str  # SQL factor a row's BM25 is multiplied by

    @property
    def expression(self) -> str:
        return any_of(self.phrases)


def quoted(phrase: str) -> str:
    return '"' + phrase.replace('"', '""') + '"'


def any_of(phrases: Sequence[str]) -> str:
    return " OR ".join(quoted(p) for p in phrases)


def all_of(phrases: Sequence[str]) -> str:
    return " AND ".join(quoted(p) for p in phrases)


def top_k(conn: Any, query: Query, limit: int) -> list[Ranked]:
    """The ``limit`` best searchable rows of ``query``: the same as ranking every match."""
    full = query.expression
    matches = count(conn, full, DIRECT + 1)
    if matches <= DIRECT:
        return ranked(conn, query, full, limit)
    phrases = query.phrases
    counts = [count(conn, quoted(p)) for p in phrases]
    bounds = _bounds(conn, counts)
    rare = frozenset(i for i, n in enumerate(counts) if n <= SEED_RARE)
    every = frozenset(range(len(phrases)))
    seed = any_of([phrases[i] for i in sorted(rare)]) if rare else all_of(phrases)
    scored = _region_scores(conn, query, seed)
    groups = _reaching(bounds, _kth(scored, limit))
    if groups is None:
        return ranked(conn, query, full, limit)
    # Rows of a group holding a rare phrase were ranked with the seed; so were rows of all.
    open_groups = [g for g in groups if not (g & rare) and (rare or g != every)]
    if open_groups:
        region = " OR ".join("(" + all_of([phrases[i] for i in sorted(g)]) + ")" for g in open_groups)
        if 2 * count(conn, region, matches // 2 + 1) > matches:
            return ranked(conn, query, full, limit)  # most matches need ranking anyway
        scored.update(_region_scores(conn, query, region))
    best = sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    return [Ranked(rowid, score) for rowid, score in best]


def count(conn: Any, expression: str, cap: int | None = None) -> int:
    """Rows matching ``expression`` (at most ``cap``: counting stops there)."""
    if cap is None:
        row = conn.execute("SELECT count(*) FROM items_fts WHERE items_fts MATCH ?", (expression,)).fetchone()
    else:
        row = conn.execute("SELECT count(*) FROM (SELECT rowid FROM items_fts WHERE items_fts MATCH ? LIMIT ?)",
                           (expression, cap)).fetchone()
    return int(row[0])


def ranked(conn: Any, query: Query, expression: str, limit: int) -> list[Ranked]:
    """The top ``limit`` of ``expression``'s rows, each ranked by BM25 and quality (one statement)."""
    rows = conn.execute(
        f"SELECT rowid, r FROM ({_searchable(query, f'items_fts.rank * {query.quality_weight} AS r')}) "
        "ORDER BY r LIMIT ?",
        [*_arguments(query, expression), limit]).fetchall()
    return [Ranked(int(r[0]), -float(r[1])) for r in rows]


def _searchable(query: Query, columns: str) -> str:
    """SQL of the rowid and ``columns`` of the searchable rows matching an expression, narrowed
    by ``query`` (its arguments: :func:`_arguments`).

    Turns and other items are two arms split at their ids, each joined to its own table of
    filter columns; FTS5 bounds each arm's scan by the rowid range.
    """
    clauses = " AND ".join(["items_fts MATCH ?", "i.searchable = 1", *query.where])
    return " UNION ALL ".join(
        f"SELECT items_fts.rowid AS rowid, {columns} FROM items_fts JOIN {items} i ON i.id = items_fts.rowid "
        f"WHERE {clauses} AND items_fts.rowid {side} {ITEM_IDS_FROM}"
        for items, side in ((TURN_ITEMS, "<"), ("items", ">=")))


def _arguments(query: Query, expression: str) -> list[Any]:
    return [expression, *query.params] * 2


def _bounds(conn: Any, counts: Sequence[int]) -> list[float]:
    """Each phrase's largest possible share of a row's final score."""
    # Every full-text entry is a turn's (its id counts from 1) or another item's, so the largest
    # turn id plus the other items bound the entry count (asked of items_fts, the count would
    # scan its content view).
    top = conn.execute(
        "SELECT (SELECT COALESCE(max(id), 0) FROM turn_items) + (SELECT count(*) FROM items)").fetchone()[0]
    best = conn.execute("SELECT max(quality) FROM documents").fetchone()[0]  # turns have none (0.5)
    factor = max(1.0, 0.5 + float(best)) if best is not None else 1.0
    # FTS5's IDF grows with the row count, so the largest rowid bounds it from above.
    return [max(math.log((top - n + 0.5) / (n + 0.5)), 1e-6) * (K1 + 1.0) * factor for n in counts]


def _kth(scored: dict[int, float], limit: int) -> float:
    if len(scored) < limit:
        return -math.inf
    return sorted(scored.values(), reverse=True)[limit - 1]


def _reaching(bounds: Sequence[float], theta: float) -> list[frozenset[int]] | None:
    """The smallest sets of phrases whose bounds reach ``theta`` (None: any row may)."""
    if theta == -math.inf:
        return None
    if len(bounds) > SUBSETS_UP_TO:
        # MaxScore: the weakest phrases together stay below theta; a row needs one of the rest.
        order = sorted(range(len(bounds)), key=lambda i: bounds[i])
        total, cut = 0.0, 0
        for i in order:
            if total + bounds[i] >= theta:
                break
            total += bounds[i]
            cut += 1
        return [frozenset([i]) for i in order[cut:]]
    groups: list[frozenset[int]] = []
    for size in range(1, len(bounds) + 1):
        for chosen in combinations(range(len(bounds)), size):
            members = frozenset(chosen)
            if not any(g <= members for g in groups) and sum(bounds[i] for i in members) >= theta:
                groups.append(members)
    return groups


def _region_scores(conn: Any, query: Query, region: str) -> dict[int, float]:
    """{rowid: final score by the whole query} of the searchable rows matching ``region``."""
    full = query.expression
    if region == full:
        return {r.rowid: r.score for r in ranked(conn, query, full, -1)}
    both = conn.execute(_searchable(query, f"items_fts.rank, {query.quality_weight}"),
                        _arguments(query, f"({full}) AND ({region})")).fetchall()
    if not both:
        return {}
    own = dict(conn.execute("SELECT rowid, rank FROM items_fts WHERE items_fts MATCH ?", (region,)).fetchall())
    return {int(rowid): -(float(rank) - float(own[rowid])) * float(factor) for rowid, rank, factor in both}
