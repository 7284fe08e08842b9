"""Guards against a Qt binding that corrupts reference counts (seen with PySide6 6.12.0 on Python 3.11).

That release decrements ``None`` on every Python model override that returns None and
``True`` on every ``Signal(bool)`` delivered to a C++ slot; on Python 3.11 (where they are
not immortal) the window then aborts with "none_dealloc"/"bool_dealloc" after some minutes.
"""

from __future__ import annotations

import sys

import PySide6
from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, Qt, Signal
from PySide6.QtWidgets import QProgressBar

ADVICE = (f"PySide6 {PySide6.__version__} corrupts reference counts on this Python "
          f"({sys.version.split()[0]}); install another PySide6-Essentials (e.g. 6.11.3)")


class _Model(QAbstractListModel):
    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 3

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        return "x" if role == Qt.ItemDataRole.DisplayRole else None


class _Emitter(QObject):
    changed = Signal(bool)


def test_model_overrides_returning_none_keep_refcounts(qapp) -> None:
    model = _Model()
    index = model.index(1, 0)
    before = sys.getrefcount(None)
    for _ in range(2000):
        index.data(Qt.ItemDataRole.ToolTipRole)
    assert abs(sys.getrefcount(None) - before) < 100, ADVICE


def test_bool_signals_to_cpp_slots_keep_refcounts(qapp) -> None:
    emitter, bar = _Emitter(), QProgressBar()
    emitter.changed.connect(bar.setVisible)
    before = sys.getrefcount(True)
    for _ in range(2000):
        emitter.changed.emit(True)
    assert abs(sys.getrefcount(True) - before) < 100, ADVICE
