"""The index as the reflection and review ports see it (``curator.reflection.ports``).

Both take the index through a callable rather than the object itself: ``Engine.reindex``
puts a fresh ``Index`` in place of the old one, and a held reference would go stale.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from curator.index.database import Index
from curator.sources.turns import IndexedTurn
from curator.vault.documents import Document


class IndexTurnSource:
    """The ``TurnSource`` port over the SQLite index.

    ``upto`` bounds ``turns_since`` to the turn range a job was queued for, so a batch reviews
    the turns its trigger counted and not whatever arrived since.
    """

    def __init__(self, index: Index | Callable[[], Index], upto: int | None = None) -> None:
        self._index = index
        self.upto = upto

    @property
    def index(self) -> Index:
        return self._index if isinstance(self._index, Index) else self._index()

    def get(self, user_id: str, number: int) -> IndexedTurn | None:
        turn = self.index.get_turn(user_id, number)
        return turn if turn is not None and turn.status != "removed" else None

    def turns_since(self, user_id: str, after_number: int, limit: int) -> Sequence[IndexedTurn]:
        turns = self.index.turns(user_id, after=after_number)
        if self.upto is not None:
            turns = [t for t in turns if t.number <= self.upto]
        return turns[-limit:] if limit else turns


class IndexedDocuments:
    """The ``DocumentIndex`` port: keeps the search index in step with the vault's files.

    Args:
        index: The live index (called each time).
        root: The vault folder (index rows hold paths relative to it).
        changed: Re-index one document file (``Engine.document_changed``).
    """

    def __init__(self, index: Callable[[], Index], root: Path,
                 changed: Callable[[Path], None]) -> None:
        self._index = index
        self.root = root
        self._changed = changed

    def upsert(self, doc: Document) -> None:
        if doc.path is not None:
            self._changed(doc.path)

    def remove(self, doc_id: str) -> None:
        row = self._index().get_document(doc_id)
        if row is not None:
            self._changed(self.root / row.path)


__all__ = ["IndexTurnSource", "IndexedDocuments"]
