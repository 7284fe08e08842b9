"""Diff pane: old and new side by side, word-level differences painted, the new side editable.

The differences come from ``curator.review.diffing``; this module only paints them. Editing the
new side re-paints after a short pause and emits ``edited(text)``; the review pane approves
exactly the text shown here.
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, QTimer, Signal
from PySide6.QtGui import QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from curator.review.diffing import Span, side_spans, similarity, word_diff
from ui.infra.resources import accents, set_role


def _selections(editor: QPlainTextEdit, spans: list[Span]) -> list[QTextEdit.ExtraSelection]:
    colours = accents(editor.palette())
    out: list[QTextEdit.ExtraSelection] = []
    for span in spans:
        selection = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        colour = {"delete": colours.deleted, "insert": colours.inserted}.get(span.op, colours.changed)
        fmt.setBackground(colour)
        if span.op == "delete":
            fmt.setFontStrikeOut(True)
        selection.format = fmt
        cursor = QTextCursor(editor.document())
        cursor.setPosition(span.start)
        cursor.setPosition(span.start + span.length, QTextCursor.MoveMode.KeepAnchor)
        selection.cursor = cursor
        out.append(selection)
    return out


class DiffView(QWidget):
    """Two texts side by side with their word differences highlighted.

    Signals: ``edited(str)`` when the person changes the new side (after a 250 ms pause).
    Threading: GUI thread only.
    """

    edited = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.old_title = QLabel("Known now")
        set_role(self.old_title, "heading")
        self.new_title = QLabel("Proposed")
        set_role(self.new_title, "heading")
        self.old_edit = QPlainTextEdit()
        self.old_edit.setReadOnly(True)
        self.old_edit.setObjectName("diff_old")
        self.new_edit = QPlainTextEdit()
        self.new_edit.setObjectName("diff_new")
        self.new_edit.setPlaceholderText("The proposed text; edit it here before approving.")
        self.summary = QLabel("")
        set_role(self.summary, "meta")
        self._repaint_timer = QTimer(self)
        self._repaint_timer.setSingleShot(True)
        self._repaint_timer.setInterval(250)
        self._repaint_timer.timeout.connect(self._on_repaint_timer_timeout)
        self.new_edit.textChanged.connect(self._on_new_edit_text_changed)

        left, right = QVBoxLayout(), QVBoxLayout()
        left.addWidget(self.old_title)
        left.addWidget(self.old_edit)
        right.addWidget(self.new_title)
        right.addWidget(self.new_edit)
        sides = QHBoxLayout()
        sides.addLayout(left)
        sides.addLayout(right)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(sides)
        layout.addWidget(self.summary)

    # ---- Public API

    def set_texts(self, old: str, new: str, *, old_title: str = "Known now", new_title: str = "Proposed") -> None:
        """Show ``old`` against ``new`` (replacing any edit in progress)."""
        self.old_title.setText(old_title)
        self.new_title.setText(new_title)
        with QSignalBlocker(self.new_edit):
            self.old_edit.setPlainText(old)
            self.new_edit.setPlainText(new)
        self.repaint_diff()

    def clear(self) -> None:
        self.set_texts("", "")
        self.summary.setText("")

    def new_text(self) -> str:
        """The new side as shown (including the person's edits)."""
        return self.new_edit.toPlainText()

    def repaint_diff(self) -> None:
        """Recompute and paint the differences now."""
        old_text = self.old_edit.toPlainText()
        hunks = word_diff(old_text, self.new_edit.toPlainText())
        old_spans, new_spans = side_spans(hunks) if old_text else ([], [])
        self.old_edit.setExtraSelections(_selections(self.old_edit, old_spans))
        self.new_edit.setExtraSelections(_selections(self.new_edit, new_spans))
        changed = sum(1 for h in hunks if h.op != "equal")
        self.summary.setText(
            f"{changed} change{'s' if changed != 1 else ''} · {similarity(hunks):.0%} unchanged"
            if self.old_edit.toPlainText() else ""
        )
        self.changed_spans = (old_spans, new_spans)

    # ---- Controllers

    def _on_new_edit_text_changed(self) -> None:
        self._repaint_timer.start()

    def _on_repaint_timer_timeout(self) -> None:
        self.repaint_diff()
        self.edited.emit(self.new_text())

