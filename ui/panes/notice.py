"""A transient notice under the panes: what just happened, with Undo when it can be undone.

Every review action is answered here ("Approved “Maya works night shifts”"), so a person
who presses A and sees the next item knows the first one went where they meant it to.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from ui.infra.resources import NOTICE_STYLE

NOTICE_MS = 8000


class Notice(QWidget):
    """Signals: ``undo_requested()`` when its Undo button is pressed."""

    undo_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel("")
        self.label.setObjectName("notice_text")
        self.undo_button = QPushButton("Undo")
        self.undo_button.setObjectName("notice_undo")
        self.undo_button.setToolTip("Undo it (U or Ctrl+Z in the review queue)")
        self.undo_button.setFlat(True)
        self.setObjectName("notice")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)  # paint the style sheet's background
        self.setProperty("role", "notice")
        self.setStyleSheet(NOTICE_STYLE)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 4, 10, 4)
        layout.addWidget(self.label)
        layout.addWidget(self.undo_button)
        layout.addStretch(1)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(NOTICE_MS)
        self._timer.timeout.connect(self.hide)
        self.undo_button.clicked.connect(self._on_undo_button_clicked)
        self.hide()

    def show_message(self, text: str, undoable: bool = False) -> None:
        self.label.setText(text)
        self.undo_button.setVisible(undoable)
        self.show()
        self._timer.start()

    def text(self) -> str:
        return self.label.text() if self.isVisibleTo(self.parentWidget() or self) else ""

    def _on_undo_button_clicked(self) -> None:
        self.hide()
        self.undo_requested.emit()
