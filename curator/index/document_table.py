"""The index's vault documents: indexing, removing and reading them."""

from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING

from curator.clock import parse_iso
from curator.index.connections import Connections
from curator.index.rows import DocumentRow, doc_from_row, pack_types
from curator.index.schema import NEXT_ITEM_ID
from curator.index.text import fts_text

if TYPE_CHECKING:  # a reader's start-up skips the YAML front matter machinery
    from curator.vault.documents import Document


def index_item_text(conn: sqlite3.Connection, item_id: int, title: str, body: str, context: str) -> None:
    """Index an item that is not a turn: its words in ``item_text`` (the full-text index's
    content for it), then its full-text entry made of the same words."""
    conn.execute("INSERT INTO item_text(id, title, body, context) VALUES (?, ?, ?, ?)",
                 (item_id, title, body, context))
    conn.execute("INSERT INTO items_fts(rowid, title, body, prev, context) VALUES (?, ?, ?, '', ?)",
                 (item_id, title, body, context))


class DocumentTable(Connections):
    """The document rows of ``Index``."""

    def document_fingerprint(self, rel_path: str) -> str | None:
        """The size/mtime fingerprint a document was indexed at, or None when not indexed."""
        row = self.reader().execute("SELECT fingerprint FROM documents WHERE path = ?", (rel_path,)).fetchone()
        return row["fingerprint"] if row else None

    def document_paths(self) -> list[str]:
        """Vault-relative paths of every indexed document."""
        return [r["path"] for r in self.reader().execute("SELECT path FROM documents")]

    def upsert_document(self, rel_path: str, doc: Document, user_id: str, area: str, fingerprint: str) -> None:
        """Index (or re-index) one vault document."""
        title = doc.title
        topic = str(doc.get("primary_topic") or "").lower()
        keywords = doc.keywords
        created_at = str(doc.get("created_at") or "")
        deleted = doc.deleted
        # A summary waiting for review (ungrounded or flagged) is not searchable until approved.
        pending = doc.get("review") == "pending"
        retired = bool(doc.get("retired_at"))  # "no longer true": kept, never a search result
        hidden = deleted or pending or retired
        searchable = 1 if area in ("knowledge", "reflections") and not hidden else 0
        quality = doc.get("quality")
        quality_value = float(quality) if isinstance(quality, (int, float)) and not isinstance(quality, bool) else None
        with self.write() as conn:
            self._remove_document(conn, rel_path)
            item = conn.execute(
                "INSERT INTO items(id, item_type, ref, user_id, kind, content_types, topic, scope, quality, ts, "
                f"searchable) VALUES ({NEXT_ITEM_ID}, 'document', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    f"d:{rel_path}", user_id, doc.kind.lower(), pack_types(doc.content_types), topic,
                    doc.scope, quality_value, parse_iso(created_at), searchable,
                ),
            )
            item_id = int(item.lastrowid or 0)
            index_item_text(conn, item_id,
                            fts_text(" ".join([title, " ".join(keywords), topic.replace(".", " ")]).strip()),
                            fts_text(doc.body), "")
            conn.execute(
                "INSERT INTO documents(path, id, user_id, kind, area, title, topic, keywords, scope, quality, "
                "content_types, created_at, deleted, source_turns, fingerprint, item_id) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    rel_path, doc.id, user_id, doc.kind, area, title, topic, json.dumps(keywords), doc.scope,
                    quality_value, json.dumps(doc.content_types), created_at, int(deleted),
                    json.dumps(doc.source_turns), fingerprint, item_id,
                ),
            )

    def remove_document(self, rel_path: str) -> None:
        """Forget a document that is no longer in the vault."""
        with self.write() as conn:
            self._remove_document(conn, rel_path)

    @staticmethod
    def _remove_document(conn: sqlite3.Connection, rel_path: str) -> None:
        row = conn.execute("SELECT item_id FROM documents WHERE path = ?", (rel_path,)).fetchone()
        if row is None:
            return
        conn.execute("DELETE FROM items_fts WHERE rowid = ?", (row["item_id"],))
        conn.execute("DELETE FROM item_text WHERE id = ?", (row["item_id"],))
        conn.execute("DELETE FROM items WHERE id = ?", (row["item_id"],))
        conn.execute("DELETE FROM documents WHERE path = ?", (rel_path,))

    def get_document(self, doc_id_or_path: str) -> DocumentRow | None:
        """A document row by id (prefering Knowledge, then Reflections, then staging) or by path."""
        row = self.reader().execute(
            "SELECT * FROM documents WHERE id = ? OR path = ? ORDER BY "
            "CASE area WHEN 'knowledge' THEN 0 WHEN 'reflections' THEN 1 ELSE 2 END LIMIT 1",
            (doc_id_or_path, doc_id_or_path),
        ).fetchone()
        return doc_from_row(row) if row else None

    def approved_paths(self, user_id: str) -> list[str]:
        """Vault-relative paths of ``user_id``'s approved memories that search serves (not deleted,
        retired or pending), best quality first, then newest."""
        rows = self.reader().execute(
            "SELECT d.path FROM documents d JOIN items i ON i.id = d.item_id "
            "WHERE d.user_id = ? AND d.area = 'knowledge' AND i.searchable = 1 "
            "ORDER BY COALESCE(d.quality, 0) DESC, d.created_at DESC, d.path", (user_id,))
        return [r["path"] for r in rows]

    def approved_fingerprint(self, user_id: str) -> str:
        """A value that changes whenever one of ``user_id``'s Knowledge documents changes."""
        row = self.reader().execute(
            "SELECT COUNT(*) AS n, group_concat(path || '=' || fingerprint, '|') AS f FROM "
            "(SELECT path, fingerprint FROM documents WHERE user_id = ? AND area = 'knowledge' ORDER BY path)",
            (user_id,)).fetchone()
        return f"{row['n']}:{hash(row['f'] or '')}"

    def documents(self, user_id: str | None = None, area: str | None = None) -> list[DocumentRow]:
        """Document rows, optionally of one user and area."""
        sql, params = "SELECT * FROM documents WHERE 1=1", []
        if user_id is not None:
            sql += " AND user_id = ?"
            params.append(user_id)
        if area is not None:
            sql += " AND area = ?"
            params.append(area)
        return [doc_from_row(r) for r in self.reader().execute(sql + " ORDER BY path", params)]

    def document_counts(self) -> dict[str, int]:
        """{area: documents} (soft-deleted reflections counted under 'deleted')."""
        counts: dict[str, int] = {}
        for row in self.reader().execute("SELECT area, deleted, COUNT(*) AS n FROM documents GROUP BY area, deleted"):
            key = "deleted" if row["deleted"] else row["area"]
            counts[key] = counts.get(key, 0) + row["n"]
        return counts
