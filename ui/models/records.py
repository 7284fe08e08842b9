"""A table model over a list of engine records, with columns declared as (header, getter).

Search results, summaries, sources, trash, history and the activity log are all lists of
plain engine objects; each pane declares its columns and this adapter does the rest.
``ItemRole`` returns the record itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QIcon

ItemRole = Qt.ItemDataRole.UserRole + 1
SortRole = Qt.ItemDataRole.UserRole + 2

R = TypeVar("R")
_Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class Column(Generic[R]):
    """One column: its header, what it shows, and optional tooltip/sort/icon/colour getters."""

    header: str
    text: Callable[[R], Any]
    tooltip: Callable[[R], str] | None = None
    sort_key: Callable[[R], Any] | None = None
    icon: Callable[[R], QIcon | None] | None = None
    foreground: Callable[[R], QColor | None] | None = None


class RecordTableModel(QAbstractTableModel, Generic[R]):
    """Rows are records, columns are ``Column`` getters.

    Threading: GUI thread only; feed it with ``set_records``/``append`` from posted callbacks.
    """

    def __init__(self, columns: Sequence[Column[R]], parent: Any = None, max_rows: int = 0,
                 enabled: Callable[[R], bool] | None = None) -> None:
        super().__init__(parent)
        self._columns = list(columns)
        self._enabled = enabled
        self._records: list[R] = []
        self._max_rows = max_rows

    # ---- Public API

    def set_records(self, records: Sequence[R]) -> None:
        self.beginResetModel()
        self._records = list(records)
        self.endResetModel()

    def append(self, record: R) -> None:
        """Add a row at the end (dropping the oldest beyond ``max_rows``)."""
        if self._max_rows and len(self._records) >= self._max_rows:
            self.beginRemoveRows(QModelIndex(), 0, 0)
            self._records.pop(0)
            self.endRemoveRows()
        row = len(self._records)
        self.beginInsertRows(QModelIndex(), row, row)
        self._records.append(record)
        self.endInsertRows()

    def update_record(self, row: int, record: R) -> None:
        self._records[row] = record
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(self._columns) - 1))

    def records(self) -> list[R]:
        return list(self._records)

    def record(self, row: int) -> R | None:
        return self._records[row] if 0 <= row < len(self._records) else None

    def row_of(self, predicate: Callable[[R], bool]) -> int:
        for row, record in enumerate(self._records):
            if predicate(record):
                return row
        return -1

    # ---- QAbstractTableModel overrides

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        """Override: a flat table."""
        return 0 if parent.isValid() else len(self._records)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        """Override."""
        return 0 if parent.isValid() else len(self._columns)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        """Override: rows the ``enabled`` predicate rejects are shown but cannot be selected."""
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        record = self.record(index.row())
        if self._enabled is not None and record is not None and not self._enabled(record):
            return Qt.ItemFlag.ItemNeverHasChildren
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Override: column headers from the declarations."""
        if (role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal
                and 0 <= section < len(self._columns)):
            return self._columns[section].header
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Override."""
        if not index.isValid() or not (0 <= index.row() < len(self._records)):
            return None
        if not (0 <= index.column() < len(self._columns)):
            return None
        record = self._records[index.row()]
        column = self._columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            value = column.text(record)
            return "" if value is None else str(value)
        if role == Qt.ItemDataRole.ToolTipRole and column.tooltip is not None:
            return column.tooltip(record)
        if role == Qt.ItemDataRole.DecorationRole and column.icon is not None:
            return column.icon(record)
        if role == Qt.ItemDataRole.ForegroundRole and column.foreground is not None:
            colour = column.foreground(record)
            return QBrush(colour) if colour is not None else None
        if role == ItemRole:
            return record
        if role == SortRole:
            return column.sort_key(record) if column.sort_key is not None else str(column.text(record))
        return None
