"""Turn archival (seed 004 §12): old turns leave the active index, never the vault.

Turns older than ``archive.after_days`` (30) are archived: their text and context move from
the ``turns`` table and the full-text index to cold storage (``turn_archive``, with its own
full-text table ``archive_fts``), and the active index keeps one summary row per
conversation and day (``items`` of type ``archive``), found by ordinary searches. Nothing is
deleted: every read of a turn (``Index.get_turn``, ``curator show``, evidence, reflections)
takes the text from cold storage, the turn ledger in the vault still holds every word, and
``search_archived`` searches the archived text itself on request.

The boundary is a date kept in the vault (``Logs/archive_state.json``, only ever moved
forward), so a rebuilt index archives exactly the same turns: ``Engine.reindex`` calls
``reapply`` on both indexes before comparing them.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from curator.clock import iso_utc
from curator.index.database import Index
from curator.index.document_table import index_item_text
from curator.index.schema import NEXT_ITEM_ID
from curator.index.search import SearchFilters, SearchHit, match_expression
from curator.index.text import STOP_WORDS, fts_text, readable_snippet
from curator.vault.atomic import read_json_state, write_json_state
from curator.vault.paths import VaultPaths

log = logging.getLogger(__name__)

SUMMARY_WORDS = 24
OPENING_CHARS = 240
_WORD_RE = re.compile(r"[^\W\d_]{3,}", re.UNICODE)


def _day(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d")


class Archiver:
    """Moves turns older than a boundary to cold storage in one index."""

    def __init__(self, index: Index, paths: VaultPaths) -> None:
        self.index = index
        self.paths = paths

    @property
    def state_file(self) -> Any:
        return self.paths.logs_dir / "archive_state.json"

    def boundary(self) -> float | None:
        """Turns with a timestamp before this are archived (None: nothing archived yet)."""
        data, _ = read_json_state(self.state_file, {})
        value = data.get("archived_before") if isinstance(data, dict) else None
        return float(value) if isinstance(value, (int, float)) else None

    def archive(self, before: float) -> int:
        """Move the boundary forward to ``before`` (never back) and archive; returns turns archived."""
        current = self.boundary()
        if current is None or before > current:
            write_json_state(self.state_file, {"archived_before": before, "since": iso_utc(before)})
            current = before
        return self._archive(current)

    def reapply(self) -> int:
        """Archive what the stored boundary says (after a rebuild, or turns read late)."""
        current = self.boundary()
        return self._archive(current) if current is not None else 0

    def _archive(self, before: float) -> int:
        with self.index.write() as conn:
            rows = conn.execute(
                "SELECT t.id, t.user_id, t.number, t.source_id, t.conversation, t.timestamp, t.text, t.context "
                "FROM turns t WHERE t.timestamp < ? AND NOT EXISTS (SELECT 1 FROM turn_archive a "
                "WHERE a.user_id = t.user_id AND a.number = t.number) ORDER BY t.user_id, t.number",
                (before,),
            ).fetchall()
            groups: set[tuple[str, str, str, str]] = set()
            for r in rows:
                # First, while items_src still gives the words the entry was indexed with.
                conn.execute("DELETE FROM items_fts WHERE rowid = ?", (r["id"],))
                conn.execute("INSERT INTO turn_archive(user_id, number, text, context) VALUES (?,?,?,?)",
                             (r["user_id"], r["number"], r["text"], r["context"]))
                conn.execute("INSERT INTO archive_fts(text, user_id, number) VALUES (?,?,?)",
                             (fts_text(r["text"]), r["user_id"], r["number"]))
                conn.execute("UPDATE turn_rows SET text = '', context = '' WHERE id = ?", (r["id"],))
                conn.execute("UPDATE turn_items SET searchable = 0 WHERE id = ?", (r["id"],))
                groups.add((r["user_id"], r["source_id"], r["conversation"], _day(r["timestamp"])))
            for group in sorted(groups):
                self._summarise(conn, *group)
        if rows:
            log.info("archived %d turns in %d conversation-days", len(rows), len(groups))
        return len(rows)

    def _summarise(self, conn: Any, user_id: str, source_id: str, conversation: str, day: str) -> None:
        """(Re)write the summary row of one conversation-day from all its archived turns."""
        start = datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=UTC).timestamp()
        turns = conn.execute(
            "SELECT t.number, t.role, a.text FROM turns t JOIN turn_archive a ON a.user_id = t.user_id "
            "AND a.number = t.number WHERE t.user_id = ? AND t.source_id = ? AND t.conversation = ? "
            "AND t.timestamp >= ? AND t.timestamp < ? AND t.status = 'active' ORDER BY t.number",
            (user_id, source_id, conversation, start, start + 86400.0),
        ).fetchall()
        ref = f"a:{user_id}:{source_id}:{conversation}:{day}"
        old = conn.execute("SELECT id FROM items WHERE ref = ?", (ref,)).fetchone()
        if old is not None:
            conn.execute("DELETE FROM items_fts WHERE rowid = ?", (old["id"],))
            conn.execute("DELETE FROM item_text WHERE id = ?", (old["id"],))
            conn.execute("DELETE FROM items WHERE id = ?", (old["id"],))
        if not turns:
            return
        numbers = [int(t["number"]) for t in turns]
        words = Counter(w for t in turns for w in (x.lower() for x in _WORD_RE.findall(t["text"]))
                        if w not in STOP_WORDS)
        top = [w for w, _ in sorted(words.items(), key=lambda kv: (-kv[1], kv[0]))[:SUMMARY_WORDS]]
        opening = next((t["text"] for t in turns if t["role"] == "user"), turns[0]["text"])
        body = (f"{len(turns)} archived turns ({numbers[0]}-{numbers[-1]}). Opening: "
                f"{' '.join(opening.split())[:OPENING_CHARS]}\nTopics: {', '.join(top)}")
        item = conn.execute(
            "INSERT INTO items(id, item_type, ref, user_id, kind, content_types, topic, scope, quality, ts, "
            f"searchable) VALUES ({NEXT_ITEM_ID}, 'archive', ?, ?, 'archive', ',context,archive,', '', NULL, NULL, "
            "?, 1)",
            (ref, user_id, start),
        )
        index_item_text(conn, int(item.lastrowid or 0), f"archived conversation {conversation} {day}",
                        fts_text(body), ",".join(map(str, numbers)))


def archive_hit(row: Any, snippet: str, context: str, score: float) -> SearchHit:
    """A search hit for an archive summary row (the active index's stand-in for a day of turns)."""
    _, user_id, source_id, rest = row["ref"].split(":", 3)
    conversation, day = rest.rsplit(":", 1)
    numbers = [int(n) for n in context.split(",") if n.strip().isdigit()]
    return SearchHit(
        item_type="archive", id=f"archive:{conversation}:{day}", score=score, snippet=snippet,
        title=f"archived: conversation {conversation} on {day} ({len(numbers)} turns)", user_id=user_id,
        kind="archive", timestamp=row["ts"],
        # Where a person finds the full text: ``curator show N`` for each of these turns.
        path=f"archived turns {numbers[0]}-{numbers[-1]}" if numbers else None,
        provenance={"source_id": source_id, "conversation": conversation, "day": day, "turns": numbers},
    )


def search_archived(index: Index, query: str, filters: SearchFilters | None = None,
                    limit: int = 10) -> list[SearchHit]:
    """BM25 search over archived turns' full text (asked for explicitly; never by default)."""
    expression = match_expression(query)
    if expression is None or limit <= 0:
        return []
    filters = filters or SearchFilters()
    where: list[str] = ["archive_fts MATCH ?", "t.status = 'active'"]
    params: list[Any] = [expression]
    if filters.user_id:
        where.append("f.user_id = ?")
        params.append(filters.user_id)
    if filters.since is not None:
        where.append("t.timestamp >= ?")
        params.append(filters.since)
    if filters.until is not None:
        where.append("t.timestamp <= ?")
        params.append(filters.until)
    if filters.kinds and not {"turn", "context", "archive"} & {k.lower() for k in filters.kinds}:
        return []
    if filters.scope or filters.min_quality is not None or filters.topic:
        return []  # turns carry no scope; archived ones keep no topic or quality in the index
    rows = index.reader().execute(
        "SELECT f.user_id, f.number, f.rank AS rank, snippet(archive_fts, 0, '[', ']', '…', 16) AS snip "
        f"FROM archive_fts f JOIN turns t ON t.user_id = f.user_id AND t.number = f.number "
        f"WHERE {' AND '.join(where)} ORDER BY f.rank LIMIT ?",
        [*params, limit],
    ).fetchall()
    hits = []
    for r in rows:
        turn = index.get_turn(str(r["user_id"]), int(r["number"]))
        if turn is None:
            continue
        hits.append(SearchHit(
            item_type="turn", id=str(turn.number), score=-float(r["rank"]), snippet=readable_snippet(str(r["snip"])),
            title=f"turn {turn.number} ({turn.role}, archived)", user_id=turn.user_id, kind="turn",
            timestamp=turn.timestamp, number=turn.number, role=turn.role,
            provenance={"source_id": turn.source_id, "file": turn.file, "conversation": turn.conversation,
                        "key": turn.key, "position": turn.position, "timestamp": turn.timestamp,
                        "sha256": turn.sha256, "archived": True},
        ))
    return hits


def archived_search(index: Index, query: str, filters: SearchFilters, limit: int) -> list[dict[str, Any]]:
    """``search_archived`` as the agent tools' plain dicts."""
    return [{
        "id": f"turn:{h.id}", "type": "turn", "title": h.title, "snippet": h.snippet, "scope": None,
        "confidence": None, "quality": None, "created": iso_utc(h.timestamp or 0.0), "source_turns": [h.number],
        "score": round(h.score, 4), "role": h.role, "conversation": h.provenance.get("conversation"),
    } for h in search_archived(index, query, filters, limit)]
