"""Contradictions: the two conflicting statements side by side, with sources and dates.

Resolve by keeping the left one, the right one, both (with a note saying how they can both
hold, e.g. at different times) or neither. The pane lists only contradictions; the review
pane embeds the same ``ContradictionView`` when a contradiction is selected in the queue.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from curator.review.records import ReviewItem
from curator.text_safety import visible
from ui.infra.interaction import Interaction
from ui.infra.resources import set_role
from ui.infra.timefmt import short_time
from ui.infra.workers import OpRunner
from ui.models.records import Column, ItemRole, RecordTableModel
from ui.services.facade import ReviewDetail, ReviewService, Statement

KEEP_LEFT, KEEP_RIGHT, KEEP_BOTH, KEEP_NEITHER = "keep_a", "keep_b", "keep_both", "keep_neither"


class StatementCard(QFrame):
    """One side of a contradiction."""

    def __init__(self, heading: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        set_role(self, "card")
        self.heading = QLabel(heading)
        set_role(self.heading, "heading")
        self.body = QTextBrowser()
        self.body.setFrameShape(QFrame.Shape.NoFrame)
        self.source = QLabel("")
        set_role(self.source, "meta")
        self.source.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.body, 1)
        layout.addWidget(self.source)

    def show_statement(self, statement: Statement | None) -> None:
        if statement is None:
            self.body.clear()
            self.source.setText("")
            return
        self.body.setHtml(f"<p style='font-size:11pt'>{html.escape(statement.text)}</p>")
        bits = [b for b in (statement.origin, short_time(statement.date)) if b]
        if statement.turns:
            bits.append("turns " + ", ".join(f"#{n}" for n in statement.turns))
        self.source.setText(" · ".join(bits) or "source unknown")


class ContradictionView(QWidget):
    """Two statements side by side and the four ways to resolve them.

    Signals: ``resolved(choice, note)`` with one of the ``KEEP_*`` choices.
    """

    resolved = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.left = StatementCard("Known statement")
        self.right = StatementCard("New statement")
        self.note = QLineEdit()
        self.note.setObjectName("contradiction_note")
        self.note.setPlaceholderText("Note for 'keep both' (e.g. 'moved from Porto to Braga in 2026')")
        self.keep_left_button = QPushButton("Keep known")
        self.keep_right_button = QPushButton("Keep new")
        self.keep_both_button = QPushButton("Keep both, with note")
        self.keep_neither_button = QPushButton("Keep neither")
        sides = QHBoxLayout()
        sides.addWidget(self.left)
        sides.addWidget(self.right)
        buttons = QHBoxLayout()
        for button in (self.keep_left_button, self.keep_right_button, self.keep_both_button, self.keep_neither_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(sides, 1)
        layout.addWidget(self.note)
        layout.addLayout(buttons)
        self.keep_left_button.clicked.connect(lambda: self.resolved.emit(KEEP_LEFT, self.note.text()))
        self.keep_right_button.clicked.connect(lambda: self.resolved.emit(KEEP_RIGHT, self.note.text()))
        self.keep_both_button.clicked.connect(self._on_keep_both_button_clicked)
        self.keep_neither_button.clicked.connect(lambda: self.resolved.emit(KEEP_NEITHER, self.note.text()))
        self.note.textChanged.connect(self._on_note_text_changed)
        self._on_note_text_changed("")

    def show_pair(self, left: Statement | None, right: Statement | None) -> None:
        self.left.show_statement(left)
        self.right.show_statement(right)
        self.note.clear()

    def _on_note_text_changed(self, text: str) -> None:
        self.keep_both_button.setEnabled(bool(text.strip()))

    def _on_keep_both_button_clicked(self) -> None:
        if self.note.text().strip():
            self.resolved.emit(KEEP_BOTH, self.note.text().strip())


class ContradictionsPane(QWidget):
    """Every open contradiction in a list, the selected one side by side below.

    Signals: ``contradictions_loaded(count)``, ``pair_shown()`` (GUI thread).
    """

    contradictions_loaded = Signal(int)
    pair_shown = Signal()

    def __init__(self, runner: OpRunner, interaction: Interaction, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._runner = runner
        self._interaction = interaction
        self._service: ReviewService | None = None
        self.model: RecordTableModel[ReviewItem] = RecordTableModel([
            Column("Contradiction", lambda i: visible(i.title or i.text.strip()[:100])),
            Column("Staged", lambda i: short_time(i.staged_at)),
        ], self)
        self.table = QTableView()
        self.table.setObjectName("contradictions_table")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setStretchLastSection(False)
        self.table.horizontalHeader().setSectionResizeMode(0, self.table.horizontalHeader().ResizeMode.Stretch)
        self.table.setColumnWidth(1, 170)
        self.table.verticalHeader().hide()
        self.empty_label = QLabel("No open contradictions.")
        set_role(self.empty_label, "meta")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.view = ContradictionView()
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.table)
        top_layout.addWidget(self.empty_label)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(top)
        splitter.addWidget(self.view)
        splitter.setSizes([140, 460])
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        self.table.selectionModel().selectionChanged.connect(self._on_table_selection_changed)
        self.view.resolved.connect(self._on_view_resolved)
        self.view.setEnabled(False)

    # ---- Public API

    def attach(self, service: ReviewService) -> None:
        self._service = service
        self.reload()

    def reload(self) -> None:
        if self._service is None:
            return
        service = self._service
        self._runner.submit("load contradictions", service.list_contradictions, self._on_loaded,
                            latest_only="contradictions")

    def current_item(self) -> ReviewItem | None:
        index = self.table.currentIndex()
        item = index.siblingAtColumn(0).data(ItemRole) if index.isValid() else None
        return item if isinstance(item, ReviewItem) else None

    # ---- Results

    def _on_loaded(self, items: list[ReviewItem]) -> None:
        self.model.set_records(items)
        self.empty_label.setVisible(not items)
        if items:
            self.table.selectRow(0)
        else:
            self.view.show_pair(None, None)
            self.view.setEnabled(False)
        self.contradictions_loaded.emit(len(items))

    def _on_detail_loaded(self, detail: ReviewDetail) -> None:
        self.view.setEnabled(True)
        self.view.show_pair(detail.left, detail.right)
        self.pair_shown.emit()

    # ---- Controllers

    def _on_table_selection_changed(self, *_args: Any) -> None:
        item = self.current_item()
        if item is None or self._service is None:
            return
        service = self._service
        self._runner.submit("show contradiction", lambda: service.detail(item), self._on_detail_loaded,
                            latest_only="contradiction-detail")

    def _on_view_resolved(self, choice: str, note: str) -> None:
        item = self.current_item()
        if item is None or self._service is None:
            return
        service = self._service
        self._runner.submit("resolve", lambda: service.resolve(item, choice, note),
                            lambda _r: self.reload(), lambda e: self._interaction.inform("Resolve", str(e)))


if __name__ == "__main__":  # a preview of this pane alone, on the demo
    import sys

    from ui.panes.preview import main

    raise SystemExit(main(["contradictions", *sys.argv[1:]]))
