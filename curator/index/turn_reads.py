"""Reading turns from the index: by number, by unit, by message identity, and counts."""

from __future__ import annotations

from typing import Any

from curator.index.connections import Connections
from curator.index.rows import turn_from_row
from curator.index.schema import CONVERSATION_ID, FILE_ID, SAME_CONTENT, TURN_COLUMNS
from curator.sources.turns import IndexedTurn


class TurnReads(Connections):
    """The turn queries of ``Index``."""

    def max_number(self, user_id: str) -> int:
        """The highest turn number of a user (0 when none)."""
        row = self.reader().execute(
            "SELECT MAX(number) AS n FROM turn_rows WHERE user_id = ?", (user_id,)
        ).fetchone()
        return int(row["n"] or 0)

    def get_turn(self, user_id: str, number: int) -> IndexedTurn | None:
        """A turn by its per-user number."""
        row = self.reader().execute(
            f"SELECT {TURN_COLUMNS} FROM turns WHERE user_id = ? AND number = ?", (user_id, number)
        ).fetchone()
        return turn_from_row(row) if row else None

    def turns(
        self,
        user_id: str,
        *,
        after: int = 0,
        limit: int | None = None,
        statuses: tuple[str, ...] = ("active",),
    ) -> list[IndexedTurn]:
        """A user's turns with numbers above ``after``, in number order."""
        marks = ",".join("?" * len(statuses))
        sql = (
            f"SELECT {TURN_COLUMNS} FROM turns WHERE user_id = ? AND number > ? "
            f"AND status IN ({marks}) ORDER BY number"
        )
        params: list[Any] = [user_id, after, *statuses]
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [turn_from_row(r) for r in self.reader().execute(sql, params)]

    def conversation_turns(self, user_id: str, conversation: str, *, up_to: int, limit: int) -> list[IndexedTurn]:
        """The last ``limit`` active turns of one conversation numbered ``up_to`` or lower, oldest first."""
        rows = self.reader().execute(
            f"SELECT {TURN_COLUMNS} FROM turns WHERE user_id = ? AND number <= ? AND conversation = ? "
            "AND status = 'active' ORDER BY number DESC LIMIT ?",
            (user_id, up_to, conversation, limit),
        )
        return [turn_from_row(r) for r in rows][::-1]

    def file_turns(self, source_id: str, file: str, statuses: tuple[str, ...] = ("active",)) -> list[IndexedTurn]:
        """Turns read from one unit of a source, in position order."""
        marks = ",".join("?" * len(statuses))
        rows = self.reader().execute(
            f"SELECT {TURN_COLUMNS} FROM turns WHERE file_id = {FILE_ID} AND status IN ({marks}) "
            "ORDER BY position, number",
            (source_id, file, *statuses),
        )
        return [turn_from_row(r) for r in rows]

    def find_identity(self, source_id: str, file: str, conversation: str, key: str, sha256: str,
                      text: str) -> IndexedTurn | None:
        """The row for exactly this message and content (``text``, whose hash is ``sha256``), whatever its status."""
        row = self.reader().execute(
            f"SELECT {TURN_COLUMNS} FROM turns WHERE file_id = {FILE_ID} AND conversation_id = {CONVERSATION_ID} "
            f"AND key = ? AND {SAME_CONTENT} ORDER BY number DESC LIMIT 1",
            (source_id, file, source_id, conversation, key, sha256, text),
        ).fetchone()
        return turn_from_row(row) if row else None

    def find_key(self, source_id: str, file: str, conversation: str, key: str) -> IndexedTurn | None:
        """The active row holding a message key, if any."""
        row = self.reader().execute(
            f"SELECT {TURN_COLUMNS} FROM turns WHERE file_id = {FILE_ID} AND conversation_id = {CONVERSATION_ID} "
            "AND key = ? AND status = 'active' ORDER BY number DESC LIMIT 1",
            (source_id, file, source_id, conversation, key),
        ).fetchone()
        return turn_from_row(row) if row else None

    def has_line(self, source_id: str, file: str, conversation: str, position: int, sha256: str, text: str) -> bool:
        """Whether a unit already holds this text (whose hash is ``sha256``) at this position
        (an already-read line)."""
        row = self.reader().execute(
            f"SELECT 1 FROM turns WHERE conversation_id = {CONVERSATION_ID} AND position = ? "
            f"AND file_id = {FILE_ID} AND {SAME_CONTENT} AND status != 'removed' LIMIT 1",
            (source_id, conversation, position, source_id, file, sha256, text),
        ).fetchone()
        return row is not None

    def key_uses(self, source_id: str, file: str, conversation: str, key: str) -> int:
        """How many distinct messages of a unit carry ``key`` (itself or with a ``#dup`` suffix)."""
        prefix = key + "#dup"
        row = self.reader().execute(
            f"SELECT COUNT(DISTINCT key) AS n FROM turn_rows WHERE file_id = {FILE_ID} "
            f"AND conversation_id = {CONVERSATION_ID} AND status != 'removed' AND (key = ? OR substr(key, 1, ?) = ?)",
            (source_id, file, source_id, conversation, key, len(prefix), prefix),
        ).fetchone()
        return int(row["n"] or 0)

    def file_known(self, source_id: str, file: str) -> bool:
        """Whether any turn (of any status) was ever read from this unit."""
        row = self.reader().execute(
            f"SELECT 1 FROM turn_rows WHERE file_id = {FILE_ID} LIMIT 1", (source_id, file)
        ).fetchone()
        return row is not None

    def source_files(self, source_id: str) -> list[str]:
        """Units of a source that have active turns."""
        rows = self.reader().execute(
            "SELECT f.file FROM turn_files f WHERE f.source_id = ? AND EXISTS "
            "(SELECT 1 FROM turn_rows r WHERE r.file_id = f.id AND r.status = 'active')", (source_id,)
        )
        return [r["file"] for r in rows]

    def turn_counts(self) -> dict[str, dict[str, int]]:
        """{user: {status: count}} over all turns."""
        counts: dict[str, dict[str, int]] = {}
        for row in self.reader().execute(
            "SELECT user_id, status, COUNT(*) AS n FROM turn_rows GROUP BY user_id, status"
        ):
            counts.setdefault(row["user_id"], {})[row["status"]] = row["n"]
        return counts

    def source_turn_counts(self) -> dict[str, int]:
        """{source id: active turns}."""
        rows = self.reader().execute(
            "SELECT f.source_id, COUNT(*) AS n FROM turn_rows r JOIN turn_files f ON f.id = r.file_id "
            "WHERE r.status = 'active' GROUP BY f.source_id"
        )
        return {r["source_id"]: r["n"] for r in rows}
