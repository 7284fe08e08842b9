"""Consolidation cycles (seed 001): one pending cycle reviewed as a unit.

Shows the MEMORY.md rewrite side by side (the new side editable), each operation with its
evidence (tick to approve, edit the content in place) and the pending-reflection summary.
Approve applies the ticked operations (and the MEMORY.md rewrite when "Rewrite MEMORY.md"
is ticked) all at once; Reject asks for a reason. A thin view over ``CycleOperationsModel``
and ``CycleService``; the work runs on the ``OpRunner``.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QItemSelection, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from curator.text_safety import visible
from ui.infra.interaction import Interaction
from ui.infra.resources import set_role
from ui.infra.workers import OpRunner
from ui.models.cycle_model import CycleOperationsModel
from ui.panes.diff import DiffView

if TYPE_CHECKING:  # the engine's cycle modules load with the engine, not before the window shows
    from curator.reflection.cycle.record import CycleRecord
    from ui.services.cycles import CycleService


class CyclePane(QWidget):
    """Signals: ``answered(message, undoable)`` after an approve or reject; ``count_changed(n)``."""

    answered = Signal(str, bool)
    count_changed = Signal(int)

    def __init__(self, runner: OpRunner, interaction: Interaction, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._runner = runner
        self._interaction = interaction
        self._service: CycleService | None = None
        self._records: list[CycleRecord] = []
        self.picker = QComboBox()
        self.picker.setObjectName("cycle_picker")
        self.header = QLabel("No consolidation cycle waits for review.")
        set_role(self.header, "meta")
        self.header.setWordWrap(True)
        self.memory = DiffView()
        self.memory.setObjectName("cycle_memory_diff")
        self.include_memory = QCheckBox("Rewrite MEMORY.md")
        self.include_memory.setChecked(True)
        self.model = CycleOperationsModel(self)
        self.table = QTableView()
        self.table.setObjectName("cycle_operations")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().hide()
        self.evidence = QTextBrowser()
        self.evidence.setObjectName("cycle_evidence")
        self.summary = QTextBrowser()
        self.summary.setObjectName("cycle_summary")
        self.approve_button = QPushButton("Approve")
        self.approve_button.setObjectName("cycle_approve")
        self.reject_button = QPushButton("Reject…")
        self.reject_button.setObjectName("cycle_reject")

        ops = QSplitter(Qt.Orientation.Vertical)
        ops.addWidget(self.table)
        ops.addWidget(self.evidence)
        self.views = QTabWidget()
        self.views.addTab(self.memory, "MEMORY.md")
        self.views.addTab(ops, "Operations")
        self.views.addTab(self.summary, "Summary")
        top = QHBoxLayout()
        top.addWidget(QLabel("Cycle:"))
        top.addWidget(self.picker, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.include_memory)
        buttons.addStretch(1)
        buttons.addWidget(self.reject_button)
        buttons.addWidget(self.approve_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.header)
        layout.addWidget(self.views, 1)
        layout.addLayout(buttons)

        self.picker.currentIndexChanged.connect(self._on_picker_changed)
        self.table.selectionModel().selectionChanged.connect(self._on_selection_changed)
        self.approve_button.clicked.connect(self._on_approve_clicked)
        self.reject_button.clicked.connect(self._on_reject_clicked)
        self._show(None)

    # ---- Public API

    def attach(self, service: CycleService) -> None:
        self._service = service
        self.reload()

    def reload(self) -> None:
        service = self._service
        if service is not None:
            self._runner.submit("load cycles", service.pending, self._on_loaded, latest_only="cycles")

    def current(self) -> CycleRecord | None:
        index = self.picker.currentIndex()
        return self._records[index] if 0 <= index < len(self._records) else None

    # ---- Controllers

    def _on_loaded(self, records: list[CycleRecord]) -> None:
        shown = self.current()
        chosen = shown.cycle_id if shown is not None else ""
        self._records = records
        self.picker.blockSignals(True)
        self.picker.clear()
        for record in records:
            self.picker.addItem(f"Reflection #{record.number} — {record.created_at[:16].replace('T', ' ')} "
                                f"({len(record.operations)} operations, {record.trigger})")
        ids = [r.cycle_id for r in records]
        self.picker.setCurrentIndex(ids.index(chosen) if chosen in ids else (0 if records else -1))
        self.picker.blockSignals(False)
        self._show(self.current())
        self.count_changed.emit(len(records))

    def _on_picker_changed(self, _index: int) -> None:
        self._show(self.current())

    def _show(self, record: CycleRecord | None) -> None:
        enabled = record is not None
        for widget in (self.approve_button, self.reject_button, self.include_memory, self.views):
            widget.setEnabled(enabled)
        if record is None:
            self.header.setText("No consolidation cycle waits for review.")
            self.memory.clear()
            self.model.set_operations([])
            self.evidence.clear()
            self.summary.clear()
            return
        milestone = f" · milestone: {record.milestone}" if record.milestone else ""
        self.header.setText(
            f"Reflection #{record.number} · {len(record.operations)} operations, {len(record.rejections)} "
            f"refused by the gates · MEMORY.md {record.memory_tokens:,} / 3,000 tokens · "
            f"{record.input_tokens:,} tokens in, {record.output_tokens:,} out{milestone}")
        self.memory.set_texts(record.old_memory, record.new_memory, old_title="MEMORY.md now",
                              new_title="Proposed MEMORY.md (editable)")
        self.model.set_operations(record.operations)
        self.evidence.setHtml("<p>Select an operation to see the material it cites.</p>")
        from curator.reflection.cycle.summary import render

        self.summary.setMarkdown(render(record))

    def _on_selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        record = self.current()
        rows = selected.indexes()
        if record is None or not rows:
            return
        op = self.model.operation(rows[0].row())
        parts = [(f"<p><b>{html.escape(op.operation)}</b> → {html.escape(op.target)}<br>"
                 f"<i>{html.escape(op.reason)}</i></p>")]
        for label in op.evidence:
            text = record.evidence.get(label, "(not recorded)")
            parts.append(f"<p><b>[{html.escape(label)}]</b> {html.escape(visible(text))}</p>")
        if not op.evidence:
            parts.append(f"<p>From the meta-reflection: {html.escape('; '.join(record.insights))}</p>")
        for flag in op.flags:
            parts.append(f"<p style='color:#b00'>⚑ {html.escape(str(flag.get('flag')))}: "
                         f"{html.escape(str(flag.get('reason')))}</p>")
        self.evidence.setHtml("".join(parts))

    def _on_approve_clicked(self) -> None:
        record, service = self.current(), self._service
        if record is None or service is None:
            return
        memory = self.include_memory.isChecked()
        edited = self.memory.new_text()
        memory_text = edited if memory and edited.strip() != record.new_memory.strip() else None
        ops = None if self.model.all_chosen() else self.model.chosen()
        edits = self.model.edits() or None
        flagged = [o.op_id for o in record.operations if o.flags and (ops is None or o.op_id in ops)]
        accept = bool(flagged) and self._interaction.confirm(
            "Flagged operations", f"{', '.join(flagged)} carry flags (see Operations). Apply them anyway?")
        if flagged and not accept:
            return
        self._runner.submit("approve cycle",
                            lambda: service.approve(record.cycle_id, ops, memory, memory_text, edits, accept),
                            self._on_answered)

    def _on_reject_clicked(self) -> None:
        record, service = self.current(), self._service
        if record is None or service is None:
            return
        reason = self._interaction.ask_text("Reject cycle", "Why? (the operations are not proposed again)")
        if not reason or not reason.strip():
            return
        self._runner.submit("reject cycle", lambda: service.reject(record.cycle_id, reason), self._on_answered)

    def _on_answered(self, answer: Any) -> None:
        self.answered.emit(str(answer.message), True)
        self.reload()
