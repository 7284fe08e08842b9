"""The operations of one cycle as a checkable, editable table (partial approval, edits).

Column 0 carries the check box (approve this operation) and the operation's kind; column 1
is the content, editable in place (approve with changes); column 2 the target file; column 3
the evidence labels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from curator.text_safety import visible

if TYPE_CHECKING:  # the engine's gates load on first use, not before the window shows
    from curator.reflection.cycle.operations import Operation

_Index = QModelIndex | QPersistentModelIndex
HEADERS = ("Operation", "Content", "Target", "Evidence")


class CycleOperationsModel(QAbstractTableModel):
    """Rows are operations; the person's choices and edits stay here until answered.

    Threading: GUI thread only.
    """

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._ops: list[Operation] = []
        self._checked: set[str] = set()
        self._edits: dict[str, str] = {}

    def set_operations(self, ops: list[Operation]) -> None:
        self.beginResetModel()
        self._ops = list(ops)
        self._checked = {o.op_id for o in ops}
        self._edits = {}
        self.endResetModel()

    def operation(self, row: int) -> Operation:
        return self._ops[row]

    def chosen(self) -> list[str]:
        return [o.op_id for o in self._ops if o.op_id in self._checked]

    def all_chosen(self) -> bool:
        return len(self._checked) == len(self._ops)

    def edits(self) -> dict[str, str]:
        return {k: v for k, v in self._edits.items() if k in self._checked}

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._ops)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() == 0:
            return base | Qt.ItemFlag.ItemIsUserCheckable
        if index.column() == 1:
            return base | Qt.ItemFlag.ItemIsEditable
        return base

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        op = self._ops[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.CheckStateRole and column == 0:
            return Qt.CheckState.Checked if op.op_id in self._checked else Qt.CheckState.Unchecked
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            content = self._edits.get(op.op_id, op.content)
            values = (f"{op.operation}" + (" ⚑" if op.flags else ""), visible(content), op.target,
                      ", ".join(op.evidence) or "meta-reflection")
            return content if role == Qt.ItemDataRole.EditRole and column == 1 else values[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            flags = "; ".join(f"{f.get('flag')}: {f.get('reason')}" for f in op.flags)
            return f"{op.reason}\n{flags}".strip()
        return None

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid():
            return False
        op = self._ops[index.row()]
        if role == Qt.ItemDataRole.CheckStateRole and index.column() == 0:
            if Qt.CheckState(value) == Qt.CheckState.Checked:
                self._checked.add(op.op_id)
            else:
                self._checked.discard(op.op_id)
        elif role == Qt.ItemDataRole.EditRole and index.column() == 1:
            text = " ".join(str(value).split())
            if not text:
                return False
            if text == op.content:
                self._edits.pop(op.op_id, None)
            else:
                self._edits[op.op_id] = text
        else:
            return False
        self.dataChanged.emit(index, index)
        return True
