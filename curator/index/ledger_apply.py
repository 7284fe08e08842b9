"""Applying turn-ledger records to the index: adds, status changes, moves, and pairing.

A turn is indexed with the active turn before it in its conversation (the ``prev`` column),
so every change here also keeps that pairing right.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterable
from typing import Any

from curator.index.rows import extra_of, stored_extra, stored_sha
from curator.index.schema import ARCHIVED_ROW, CONVERSATION_ID
from curator.index.text import fts_text
from curator.sources.read_state import ReadState
from curator.sources.validation import record_problem

log = logging.getLogger(__name__)

TurnRow = tuple[Any, ...]


def prev_turn(conn: sqlite3.Connection, conversation_id: int, position: int,
              row_id: int) -> tuple[int | None, str]:
    """Row id and text of the active turn before ``row_id`` in its conversation (None, '' for the first)."""
    prev = conn.execute(
        # Row-value comparison so SQLite walks the (conversation, position, rowid) index
        # backwards instead of scanning the whole conversation.
        f"SELECT id, COALESCE({ARCHIVED_ROW.format('text')}, turn_rows.text) AS text FROM turn_rows "
        "WHERE conversation_id = ? AND (position, id) < (?, ?) AND status = 'active' "
        "ORDER BY position DESC, id DESC LIMIT 1",
        (conversation_id, position, row_id),
    ).fetchone()
    return (int(prev["id"]), str(prev["text"])) if prev else (None, "")


class Provenance:
    """The numbers of files and conversations, added the first time a turn names them."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._files: dict[tuple[str, str], int] = {}
        self._conversations: dict[tuple[str, str], int] = {}

    def file_id(self, source_id: str, file: str) -> int:
        return self._number(self._files, "turn_files", "file", (source_id, file))

    def conversation_id(self, source_id: str, conversation: str) -> int:
        return self._number(self._conversations, "conversations", "conversation", (source_id, conversation))

    def _number(self, cache: dict[tuple[str, str], int], table: str, column: str, names: tuple[str, str]) -> int:
        found = cache.get(names)
        if found is None:
            self.conn.execute(f"INSERT OR IGNORE INTO {table}(source_id, {column}) VALUES (?, ?)", names)
            row = self.conn.execute(f"SELECT id FROM {table} WHERE source_id = ? AND {column} = ?", names).fetchone()
            found = cache[names] = int(row[0])
        return found


def record_seq(record: Any) -> int:
    try:
        return int(record["seq"])
    except (TypeError, ValueError, KeyError, OverflowError):
        return 0


def apply_ledger_records(
    conn: sqlite3.Connection,
    user_id: str,
    records: list[dict[str, Any]],
    read_states: Iterable[tuple[str, str, ReadState | None, str]],
    checked: bool,
) -> list[tuple[dict[str, Any], str]]:
    """The work of ``Index.apply_records`` inside its write transaction; the refused records."""
    refused: list[tuple[dict[str, Any], str]] = []
    done = int(
        (
            conn.execute(
                "SELECT value FROM meta WHERE key = ?", (f"ledger_seq:{user_id}",)
            ).fetchone()
            or ["0"]
        )[0]
    )
    touched: list[int] = []
    last = done
    adds: list[dict[str, Any]] = []  # consecutive adds, applied together
    for record in records:
        seq = record_seq(record)
        if seq <= done:
            continue
        last = max(last, seq)
        problem = None if checked else record_problem(record)
        if problem is None and record.get("op") == "add":
            adds.append(record)
            continue
        _apply_adds(conn, user_id, adds, touched, refused)
        adds = []
        if problem is None:
            problem = _apply_guarded(conn, user_id, record, touched)
        if problem is not None:
            log.warning("ledger record %s of %s set aside: %s", seq, user_id, problem)
            refused.append((record, problem))
    _apply_adds(conn, user_id, adds, touched, refused)
    if last != done:
        conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (f"ledger_seq:{user_id}", str(last))
        )
    _refresh_pairs(conn, user_id, touched)
    for source_id, unit, state, problem in read_states:
        if state is None:
            conn.execute("DELETE FROM read_state WHERE source_id = ? AND unit = ?", (source_id, unit))
        else:
            conn.execute(
                "INSERT OR REPLACE INTO read_state(source_id, unit, state, problem) VALUES (?, ?, ?, ?)",
                (source_id, unit, json.dumps(state.to_dict()), problem),
            )
    return refused


def _apply_guarded(conn: sqlite3.Connection, user_id: str, record: dict[str, Any],
                  touched: list[int]) -> str | None:
    """Apply one record inside its own savepoint; the reason when the index refuses it."""
    conn.execute("SAVEPOINT one_record")
    problem = None
    try:
        touched.append(_apply_one(conn, user_id, record))
    except (sqlite3.Error, ValueError, TypeError, KeyError, OverflowError) as exc:
        conn.execute("ROLLBACK TO one_record")
        problem = f"refused by the index ({type(exc).__name__}: {exc})"
    conn.execute("RELEASE one_record")
    return problem


def _apply_adds(conn: sqlite3.Connection, user_id: str, adds: list[dict[str, Any]],
               touched: list[int], refused: list[tuple[dict[str, Any], str]]) -> None:
    """Apply a run of new turns: in three ``executemany`` when they only extend their
    conversations, else one by one.

    Row ids are given in record order, exactly as one-by-one inserts would get them, so
    a live import and a rebuild from the ledger pair every turn with the same one.
    """
    if not adds:
        return
    if len(adds) > 1 and _bulk_adds(conn, user_id, adds):
        return
    for record in adds:
        problem = _apply_guarded(conn, user_id, record, touched)
        if problem is not None:
            log.warning("ledger record %s of %s set aside: %s", record.get("seq"), user_id, problem)
            refused.append((record, problem))


def _bulk_adds(conn: sqlite3.Connection, user_id: str, adds: list[dict[str, Any]]) -> bool:
    """The fast path of ``_apply_adds``; False (nothing written) when it does not apply.

    It applies when no active turn already sits at or after the first new position of
    each conversation: then each new turn's predecessor is the one before it among the
    new turns (or, for the first, the last one already indexed), and no indexed turn
    needs a new predecessor. That is every first import and every append at the end.
    """
    groups = _conversations_of(adds)
    if not _only_appends(conn, adds, groups):
        return False
    turn_id = int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM turn_rows").fetchone()[0]) + 1
    ids = [turn_id + i for i in range(len(adds))]
    names = Provenance(conn)
    prev = _bulk_prev_turns(conn, adds, groups, ids, names)
    return _insert_bulk(conn, *_bulk_rows(user_id, adds, ids, prev, names), count=len(adds))


def _conversations_of(adds: list[dict[str, Any]]) -> dict[tuple[str, str], list[int]]:
    """{(source id, conversation): indexes into ``adds``}."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, record in enumerate(adds):
        t = record["turn"]
        groups.setdefault((t["source_id"], t["conversation"]), []).append(i)
    return groups


def _only_appends(conn: sqlite3.Connection, adds: list[dict[str, Any]],
                  groups: dict[tuple[str, str], list[int]]) -> bool:
    """Whether no active turn sits at or after the first new position of any conversation."""
    for (source_id, conversation), members in groups.items():
        first = min(int(adds[i]["turn"]["position"]) for i in members)
        later = conn.execute(
            f"SELECT 1 FROM turn_rows WHERE conversation_id = {CONVERSATION_ID} AND position >= ? "
            "AND status = 'active' LIMIT 1",
            (source_id, conversation, first),
        ).fetchone()
        if later is not None:
            return False
    return True


def _bulk_prev_turns(conn: sqlite3.Connection, adds: list[dict[str, Any]],
                     groups: dict[tuple[str, str], list[int]],
                     ids: list[int], names: Provenance) -> list[tuple[int | None, str]]:
    """Each new turn's predecessor (row id, text), in ``adds`` order."""
    prev: list[tuple[int | None, str]] = [(None, "")] * len(adds)
    for (source_id, conversation), members in groups.items():
        members.sort(key=lambda i: (int(adds[i]["turn"]["position"]), ids[i]))
        head = members[0]
        before = prev_turn(conn, names.conversation_id(source_id, conversation),
                           int(adds[head]["turn"]["position"]), ids[head])
        for i in members:
            prev[i] = before
            t = adds[i]["turn"]
            if t.get("status", "active") == "active":
                before = (ids[i], t["text"])
    return prev


def _bulk_rows(user_id: str, adds: list[dict[str, Any]], ids: list[int],
               prev: list[tuple[int | None, str]],
               names: Provenance) -> tuple[list[TurnRow], list[TurnRow], list[TurnRow]]:
    """The turn_rows, turn_items and items_fts rows of the new turns."""
    turn_rows = []
    item_rows = []
    fts_rows = []
    for i, record in enumerate(adds):
        t = record["turn"]
        extra = t.get("extra") or {}
        number = int(t["number"])
        status = t.get("status", "active")
        timestamp = float(t["timestamp"])
        quality = extra.get("quality")
        role = t["role"]
        turn_rows.append((
            ids[i], user_id, number, names.file_id(t["source_id"], t["file"]),
            names.conversation_id(t["source_id"], t["conversation"]), t["key"],
            int(t["position"]), role, t["speaker"], t["text"], timestamp,
            stored_sha(t.get("sha256"), t["text"]), status, "",
            record.get("supersedes"), t.get("context", ""), stored_extra(extra, t["key"]),
            float(record.get("at", 0.0)), prev[i][0],
        ))
        item_rows.append((
            ids[i], user_id, role, str(extra.get("topic") or "").lower(),
            float(quality) if isinstance(quality, (int, float)) else None,
            timestamp, 1 if status == "active" else 0,
        ))
        fts_rows.append((ids[i], fts_text(t["text"]), fts_text(prev[i][1]), fts_text(t.get("context", ""))))
    return turn_rows, item_rows, fts_rows


def _insert_bulk(conn: sqlite3.Connection, turn_rows: list[TurnRow], item_rows: list[TurnRow],
                 fts_rows: list[TurnRow], *, count: int) -> bool:
    """Write the rows in one savepoint; False (rolled back) when SQLite refuses any of them."""
    conn.execute("SAVEPOINT bulk_adds")
    try:
        conn.executemany(
            "INSERT INTO turn_rows(id, user_id, number, file_id, conversation_id, key, position, role, "
            "speaker, text, timestamp, sha256, status, status_reason, supersedes, context, extra, "
            "ingested_at, prev_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            turn_rows,
        )
        conn.executemany(
            "INSERT INTO turn_items(id, user_id, role, topic, quality, ts, searchable) VALUES (?,?,?,?,?,?,?)",
            item_rows,
        )
        conn.executemany(
            "INSERT INTO items_fts(rowid, title, body, prev, context) VALUES (?, '', ?, ?, ?)", fts_rows
        )
    except sqlite3.Error as exc:
        # One refused row (a number used twice, say): redo them one by one, so only it is refused.
        conn.execute("ROLLBACK TO bulk_adds")
        conn.execute("RELEASE bulk_adds")
        log.info("bulk insert of %d turns refused (%s); applying them one by one", count, exc)
        return False
    conn.execute("RELEASE bulk_adds")
    return True


def _apply_one(conn: sqlite3.Connection, user_id: str, record: dict[str, Any]) -> int:
    op = record.get("op")
    if op == "add":
        t = record["turn"]
        extra = t.get("extra") or {}
        names = Provenance(conn)
        conversation_id = names.conversation_id(t["source_id"], t["conversation"])
        cur = conn.execute(
            "INSERT INTO turn_rows(user_id, number, file_id, conversation_id, key, position, role, "
            "speaker, text, timestamp, sha256, status, status_reason, supersedes, context, extra, "
            "ingested_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                user_id, int(t["number"]), names.file_id(t["source_id"], t["file"]), conversation_id, t["key"],
                int(t["position"]), t["role"], t["speaker"], t["text"], float(t["timestamp"]),
                stored_sha(t.get("sha256"), t["text"]), t.get("status", "active"), "", record.get("supersedes"),
                t.get("context", ""), stored_extra(extra, t["key"]), float(record.get("at", 0.0)),
            ),
        )
        turn_row_id = int(cur.lastrowid or 0)
        quality = extra.get("quality")
        conn.execute(
            "INSERT INTO turn_items(id, user_id, role, topic, quality, ts, searchable) VALUES (?,?,?,?,?,?,?)",
            (
                turn_row_id, user_id, t["role"], str(extra.get("topic") or "").lower(),
                float(quality) if isinstance(quality, (int, float)) else None,
                float(t["timestamp"]), 1 if t.get("status", "active") == "active" else 0,
            ),
        )
        # Pair the turn with its predecessor now: rewriting an FTS row later costs a delete
        # and an insert, which made the pairing pass most of the cost of an import.
        before_id, before = prev_turn(conn, conversation_id, int(t["position"]), turn_row_id)
        conn.execute("UPDATE turn_rows SET prev_id = ? WHERE id = ?", (before_id, turn_row_id))
        conn.execute(
            "INSERT INTO items_fts(rowid, title, body, prev, context) VALUES (?, '', ?, ?, ?)",
            (turn_row_id, fts_text(t["text"]), fts_text(before), fts_text(t.get("context", ""))),
        )
        return turn_row_id
    row = conn.execute(
        "SELECT id FROM turn_rows WHERE user_id = ? AND number = ?", (user_id, int(record["number"]))
    ).fetchone()
    if row is None:
        log.warning("ledger record %s names unknown turn %s; ignored", record.get("seq"), record.get("number"))
        return 0
    if op == "status":
        status = str(record["status"])
        conn.execute(
            "UPDATE turn_rows SET status = ?, status_reason = ? WHERE id = ?",
            (status, str(record.get("reason", "")), row["id"]),
        )
        conn.execute(
            "UPDATE turn_items SET searchable = ? WHERE id = ?", (1 if status == "active" else 0, row["id"])
        )
    elif op == "move":
        # The extra may hold the message id only through the old key (rows.stored_extra).
        old = conn.execute("SELECT key, extra FROM turn_rows WHERE id = ?", (row["id"],)).fetchone()
        key = str(record["key"])
        conn.execute(
            "UPDATE turn_rows SET key = ?, position = ?, extra = ? WHERE id = ?",
            (key, int(record["position"]), stored_extra(extra_of(old["extra"], old["key"]), key), row["id"]),
        )
    else:
        log.warning("ledger record %s has unknown op %r; ignored", record.get("seq"), op)
    return int(row["id"])


def _refresh_pairs(conn: sqlite3.Connection, user_id: str, touched: list[int]) -> None:
    # A turn is indexed with the active turn before it; changes shift that pairing for the
    # touched turns and for the turn right after each of them.
    targets: set[int] = set()
    for row_id in touched:
        if not row_id:
            continue
        row = conn.execute(
            "SELECT conversation_id, position FROM turn_rows WHERE id = ?", (row_id,)
        ).fetchone()
        if row is None:
            continue
        targets.add(row_id)
        nxt = conn.execute(
            "SELECT id FROM turn_rows WHERE conversation_id = ? AND (position, id) > (?, ?) "
            "AND status = 'active' ORDER BY position, id LIMIT 1",
            (row["conversation_id"], row["position"], row_id),
        ).fetchone()
        if nxt is not None:
            targets.add(nxt["id"])
    for row_id in targets:
        row = conn.execute(
            "SELECT conversation_id, position, prev_id, text, context, "
            f"{ARCHIVED_ROW.format('number')} IS NOT NULL AS archived FROM turn_rows WHERE id = ?", (row_id,)
        ).fetchone()
        if row["archived"]:
            continue  # out of the full-text index: archival took its entry out with its text
        before_id, before = prev_turn(conn, row["conversation_id"], row["position"], row_id)
        if before_id == row["prev_id"]:
            continue
        # The delete reads the entry's old words through items_src, so prev_id changes after it.
        conn.execute("DELETE FROM items_fts WHERE rowid = ?", (row_id,))
        conn.execute("UPDATE turn_rows SET prev_id = ? WHERE id = ?", (before_id, row_id))
        conn.execute(
            "INSERT INTO items_fts(rowid, title, body, prev, context) VALUES (?, '', ?, ?, ?)",
            (row_id, fts_text(row["text"]), fts_text(before), fts_text(row["context"])),
        )
