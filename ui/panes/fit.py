"""Tables that fit: columns sized to their content, long text elided, the full text on hover.

``fit_table`` gives a view's short columns their content's width (capped, so one long value
cannot push the rest off screen), lets one text column take the remaining space, and shows
any cell's full text in a tooltip when it was cut. Sizes follow the data: they are measured
again whenever the model resets or gains rows (only visible rows are measured, so a long
activity log stays cheap).
"""

from __future__ import annotations

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
)
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QToolTip,
)

MAX_COLUMN = 260  # px: a short column never takes more than this


class FullTextDelegate(QStyledItemDelegate):
    """Shows a cell's whole text as its tooltip when the cell is too narrow for it."""

    def helpEvent(self, event: QHelpEvent, view: QAbstractItemView, option: QStyleOptionViewItem,
                  index: QModelIndex | QPersistentModelIndex) -> bool:
        """Override: the model's own tooltip wins; else the display text when it was elided."""
        if event.type() == QEvent.Type.ToolTip and index.isValid() and not index.data(Qt.ItemDataRole.ToolTipRole):
            text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
            width = view.visualRect(index).width() - 8
            if text and option.fontMetrics.horizontalAdvance(text) > width:
                QToolTip.showText(event.globalPos(), text, view)
                return True
        return super().helpEvent(event, view, option, index)


class _Refitter(QObject):
    def __init__(self, view: QTableView, stretch: int, max_width: int) -> None:
        super().__init__(view)
        self.view, self.stretch, self.max_width = view, stretch, max_width
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(50)
        self.timer.timeout.connect(self.refit)

    def refit(self) -> None:
        model = self.view.model()
        if model is None:
            return
        for column in range(model.columnCount()):
            if column == self.stretch:
                continue
            self.view.resizeColumnToContents(column)
            if self.view.columnWidth(column) > self.max_width:
                self.view.setColumnWidth(column, self.max_width)


def fit_table(view: QTableView, stretch: int, max_width: int = MAX_COLUMN, wrap: bool = False) -> None:
    """Size ``view``'s columns to their content; column ``stretch`` takes the rest.

    With ``wrap``, the stretch column's text wraps onto more lines instead of being elided
    (new rows grow to fit): for messages a person must read whole, like rejection reasons.
    """
    header = view.horizontalHeader()
    header.setStretchLastSection(False)
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    header.setMinimumSectionSize(40)
    view.setTextElideMode(Qt.TextElideMode.ElideRight)
    view.setWordWrap(wrap)
    view.setItemDelegate(FullTextDelegate(view))
    refitter = _Refitter(view, stretch, max_width)
    model: QAbstractItemModel | None = view.model()
    if model is not None and wrap:
        # Only the new rows are measured (a whole-table ResizeToContents would lay out every
        # row of a 1,000-line log on each append).
        def resize_new_rows(_parent: object, first: int, last: int) -> None:
            for row in range(first, last + 1):
                view.resizeRowToContents(row)

        model.rowsInserted.connect(resize_new_rows)
        model.modelReset.connect(view.resizeRowsToContents)
    if model is not None:
        model.modelReset.connect(refitter.timer.start)
        model.rowsInserted.connect(refitter.timer.start)
        model.dataChanged.connect(refitter.timer.start)
    refitter.refit()
