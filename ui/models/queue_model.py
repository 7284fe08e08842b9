"""The review queue as a two-level tree: lanes (flagged first, then one per kind) and their items.

The engine decides the order of items (ranking is a review rule, not a view rule); this
model keeps it, groups items into lanes and shows counts in the lane titles.
``ItemRole`` returns the engine's item object for item rows and None for lane rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QFont

from curator.index.text import elide
from curator.review.records import ReviewItem
from curator.text_safety import visible
from ui.infra.resources import accents, icon

ItemRole = Qt.ItemDataRole.UserRole + 1
LaneRole = Qt.ItemDataRole.UserRole + 2
IdRole = Qt.ItemDataRole.UserRole + 3

FLAGGED_LANE = "flagged"
KIND_TITLES = {
    "fact": "New facts",
    "new_fact": "New facts",
    "correction": "Corrections",
    "connection": "Connections",
    "open_question": "Open questions",
    "question": "Open questions",
    "contradiction": "Contradictions",
    "archival": "Archival proposals",
    "core_rewrite": "Core memory rewrites",
    "procedure": "Procedures",
    "insight": "Insights",
    "pattern": "Patterns",
    "preference": "Preferences",
    "promotion": "Promotions (proven useful)",
    "recheck": "Still true?",
}
LANE_ORDER = [FLAGGED_LANE, "contradiction", "correction", "fact", "new_fact", "connection",
              "open_question", "question", "core_rewrite", "archival", "procedure", "insight", "promotion",
              "recheck"]

_Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class QueueEntry:
    """What a queue row shows about one staged item (read from the engine's item).

    ``shown_hash`` is the hash of the item's bytes when the queue was listed: approving
    several rows at once approves exactly what the rows showed.
    """

    item_id: str
    kind: str
    title: str
    text: str
    confidence: float
    flags: tuple[str, ...]
    gates: tuple[str, ...]
    recurring: int
    item: ReviewItem
    shown_hash: str = ""


def flag_text(flag: Mapping[str, str]) -> str:
    """``"instruction: reads like an order"`` from a staged item's flag record."""
    name, reason = flag.get("flag", ""), flag.get("reason", "")
    return f"{name}: {reason}" if name and reason else (name or reason)


def entry_from_item(item: ReviewItem) -> QueueEntry:
    """What the queue shows of an engine staged item."""
    return QueueEntry(
        item_id=item.doc_id,
        kind=item.kind or "fact",
        title=item.title,
        text=item.text.strip(),
        confidence=float(item.confidence),
        flags=tuple(flag_text(f) for f in item.flags),
        gates=tuple(item.gates),
        recurring=int(item.promotion_count),
        item=item,
        shown_hash=item.content_hash,
    )


def lane_title(lane: str, count: int) -> str:
    title = (
        "Flagged — needs a decision"
        if lane == FLAGGED_LANE
        else KIND_TITLES.get(lane, lane.replace("_", " ").capitalize())
    )
    return f"{title} ({count})"


class _Lane:
    __slots__ = ("entries", "key")

    def __init__(self, key: str) -> None:
        self.key = key
        self.entries: list[QueueEntry] = []


class QueueModel(QAbstractItemModel):
    """Tree model of staged items. Threading: GUI thread only (fed through ``set_entries``)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._lanes: list[_Lane] = []

    # ---- Public API

    def set_entries(self, entries: Sequence[QueueEntry]) -> None:
        """Replace the queue with ``entries`` (in the engine's ranked order)."""
        lanes: dict[str, _Lane] = {}
        for entry in entries:
            key = FLAGGED_LANE if entry.flags else entry.kind
            lanes.setdefault(key, _Lane(key)).entries.append(entry)
        order = {k: i for i, k in enumerate(LANE_ORDER)}
        self.beginResetModel()
        self._lanes = sorted(lanes.values(), key=lambda lane: (order.get(lane.key, len(order)), lane.key))
        self.endResetModel()

    def total(self) -> int:
        return sum(len(lane.entries) for lane in self._lanes)

    def entries(self) -> list[QueueEntry]:
        return [e for lane in self._lanes for e in lane.entries]

    def index_of(self, item_id: str) -> QModelIndex:
        for row, lane in enumerate(self._lanes):
            for child, entry in enumerate(lane.entries):
                if entry.item_id == item_id:
                    return self.index(child, 0, self.index(row, 0))
        return QModelIndex()

    def indexes_of(self, item_ids: set[str]) -> list[QModelIndex]:
        """The rows of these items (one pass over the queue)."""
        return [self.index(child, 0, self.index(row, 0)) for row, lane in enumerate(self._lanes)
                for child, entry in enumerate(lane.entries) if entry.item_id in item_ids]

    def entry(self, index: _Index) -> QueueEntry | None:
        value = index.data(ItemRole) if index.isValid() else None
        return value if isinstance(value, QueueEntry) else None

    def first_item_index(self) -> QModelIndex:
        for row, lane in enumerate(self._lanes):
            if lane.entries:
                return self.index(0, 0, self.index(row, 0))
        return QModelIndex()

    # ---- QAbstractItemModel overrides

    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        """Override: lane rows carry no pointer; item rows point at their lane."""
        if column != 0 or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, 0, None) if row < len(self._lanes) else QModelIndex()
        if parent.internalPointer() is not None or parent.row() >= len(self._lanes):
            return QModelIndex()
        lane = self._lanes[parent.row()]
        return self.createIndex(row, 0, lane) if row < len(lane.entries) else QModelIndex()

    def parent(self, index: _Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        """Override: an item's parent is its lane."""
        if not index.isValid():
            return QModelIndex()
        lane = index.internalPointer()
        if lane is None:
            return QModelIndex()
        for row, candidate in enumerate(self._lanes):
            if candidate is lane:
                return self.createIndex(row, 0, None)
        return QModelIndex()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        """Override."""
        if not parent.isValid():
            return len(self._lanes)
        if parent.column() != 0 or parent.internalPointer() is not None:
            return 0
        return len(self._lanes[parent.row()].entries) if parent.row() < len(self._lanes) else 0

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        """Override."""
        return 1

    def hasChildren(self, parent: _Index = QModelIndex()) -> bool:  # noqa: B008
        """Override."""
        return self.rowCount(parent) > 0

    def flags(self, index: _Index) -> Qt.ItemFlag:
        """Override: lanes are not selectable; items are."""
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if index.internalPointer() is None:
            return Qt.ItemFlag.ItemIsEnabled
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Override."""
        if not index.isValid():
            return None
        lane_obj = index.internalPointer()
        if lane_obj is None:
            if index.row() >= len(self._lanes):
                return None
            lane = self._lanes[index.row()]
            if role == Qt.ItemDataRole.DisplayRole:
                return lane_title(lane.key, len(lane.entries))
            if role == Qt.ItemDataRole.FontRole:
                font = QFont()
                font.setBold(True)
                return font
            if role == Qt.ItemDataRole.DecorationRole and lane.key == FLAGGED_LANE:
                return icon("flag")
            if role == Qt.ItemDataRole.DecorationRole and lane.key == "contradiction":
                return icon("contradiction")
            if role == LaneRole:
                return lane.key
            return None
        if index.row() >= len(lane_obj.entries):
            return None
        entry = lane_obj.entries[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            marks = []
            if entry.recurring > 1:
                marks.append(f"seen {entry.recurring}×")
            marks.append(f"conf {entry.confidence:.2f}")
            return f"{elide(entry.title or entry.text, 80)}   ·   {' · '.join(marks)}"
        if role == Qt.ItemDataRole.ToolTipRole:
            lines = [visible(entry.text)]
            if entry.gates:
                lines.append("Gates: " + ", ".join(entry.gates))
            if entry.flags:
                lines.append("Flags: " + "; ".join(entry.flags))
            return "\n".join(lines)
        if role == Qt.ItemDataRole.BackgroundRole and entry.flags:
            return QBrush(accents().flagged)
        if role == ItemRole:
            return entry
        if role == LaneRole:
            return lane_obj.key
        if role == IdRole:
            return entry.item_id
        return None
