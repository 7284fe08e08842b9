"""Reflections timeline: context summaries in time order with the prompts that produced them.

Edit a summary in place, delete it (soft: it stays on disk marked deleted and never comes
back in search) or restore it; "Reflect now" asks the engine for a summary at once, with an
optional custom prompt. The running reflection streams in the status pane.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from curator.index.text import elide
from ui.infra.interaction import Interaction
from ui.infra.resources import icon, set_role
from ui.infra.timefmt import short_time
from ui.infra.workers import OpRunner
from ui.models.records import Column, ItemRole, RecordTableModel
from ui.panes.fit import fit_table
from ui.services.facade import SummariesService

if TYPE_CHECKING:  # the engine's types; its modules load with the vault, not before the window shows
    from curator.reflection.summaries import SummaryRecord
    from curator.triggers.jobs import Job


def _gray_if_deleted(summary: SummaryRecord) -> QColor | None:
    return QColor("gray") if summary.deleted else None


REFLECTION_KINDS = (("Context summary", "summary"), ("Batch reflection", "batch"),
                    ("Micro-reflection", "micro"), ("Consolidation cycle", "cycle"))


def timeline_columns() -> list[Column[SummaryRecord]]:
    return [
        Column("When", lambda s: short_time(s.created_at), foreground=_gray_if_deleted),
        Column("Summary", lambda s: ("[deleted] " if s.deleted else "") + elide(s.summary, 200),
               tooltip=lambda s: s.summary, foreground=_gray_if_deleted),
        Column("Prompt", lambda s: elide(s.prompt, 80), tooltip=lambda s: s.prompt),
    ]


class ReflectionsPane(QWidget):
    """The timeline. Signals: ``reflection_requested(job)`` after "Reflect now" was accepted."""

    reflection_requested = Signal(object)
    summaries_loaded = Signal(int)

    def __init__(self, runner: OpRunner, interaction: Interaction, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._runner = runner
        self._interaction = interaction
        self._service: SummariesService | None = None

        self.custom_prompt = QLineEdit()
        self.custom_prompt.setObjectName("custom_prompt")
        self.custom_prompt.setPlaceholderText("Optional custom prompt, e.g. “Summarise only the travel plans”")
        # One menu, shared with the window's toolbar: the same choices wherever it is opened.
        self.reflect_menu = QMenu("Reflect now", self)
        self.reflect_menu.setObjectName("reflect_menu")
        for label, kind in REFLECTION_KINDS:
            action = QAction(label, self.reflect_menu)
            action.setData(kind)
            action.triggered.connect(lambda _checked=False, k=kind: self.reflect(k))
            self.reflect_menu.addAction(action)
        self.reflect_button = QToolButton()
        self.reflect_button.setObjectName("reflect_button")
        self.reflect_button.setIcon(icon("reflect"))
        self.reflect_button.setText("Reflect now")
        self.reflect_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.reflect_button.setToolTip("A context summary now (with the prompt, if any); the arrow offers the others")
        self.reflect_button.setMenu(self.reflect_menu)
        self.reflect_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        set_role(self.reflect_button, "primary")
        self.show_deleted = QCheckBox("Show deleted")
        top = QHBoxLayout()
        top.addWidget(self.custom_prompt, 1)
        top.addWidget(self.reflect_button)
        top.addWidget(self.show_deleted)

        self.model: RecordTableModel[SummaryRecord] = RecordTableModel(timeline_columns(), self)
        self.table = QTableView()
        self.table.setObjectName("reflections_table")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        fit_table(self.table, stretch=1)
        self.empty_label = QLabel("No context summaries yet. They appear after a pause in a conversation,"
                                  " or press “Reflect now”.")
        set_role(self.empty_label, "meta")
        self.empty_label.setWordWrap(True)

        self.prompt_label = QLabel("")
        set_role(self.prompt_label, "meta")
        self.prompt_label.setWordWrap(True)
        self.editor = QPlainTextEdit()
        self.editor.setObjectName("summary_editor")
        self.save_button = QPushButton(icon("approve"), "Save edit")
        self.delete_button = QPushButton(icon("trash"), "Delete")
        self.restore_button = QPushButton(icon("restore"), "Restore")
        buttons = QHBoxLayout()
        for button in (self.save_button, self.delete_button, self.restore_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        detail = QWidget()
        detail_layout = QVBoxLayout(detail)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        detail_layout.addWidget(self.prompt_label)
        detail_layout.addWidget(self.editor, 1)
        detail_layout.addLayout(buttons)

        upper = QWidget()
        upper_layout = QVBoxLayout(upper)
        upper_layout.setContentsMargins(0, 0, 0, 0)
        upper_layout.addWidget(self.table, 1)
        upper_layout.addWidget(self.empty_label)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(upper)
        splitter.addWidget(detail)
        splitter.setSizes([300, 300])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)

        self.reflect_button.clicked.connect(self._on_reflect_button_clicked)
        self.custom_prompt.returnPressed.connect(self._on_reflect_button_clicked)
        self.show_deleted.toggled.connect(lambda _checked: self.reload())
        self.table.selectionModel().selectionChanged.connect(self._on_table_selection_changed)
        self.save_button.clicked.connect(self._on_save_button_clicked)
        self.delete_button.clicked.connect(self._on_delete_button_clicked)
        self.restore_button.clicked.connect(self._on_restore_button_clicked)
        self._show(None)

    # ---- Public API

    def attach(self, service: SummariesService) -> None:
        self._service = service
        self.reload()

    def reload(self, select_id: str = "") -> None:
        if self._service is None:
            return
        service, include = self._service, self.show_deleted.isChecked()
        self._runner.submit("load summaries", lambda: service.list(include),
                            lambda items: self._on_loaded(items, select_id), latest_only="summaries")

    def current_summary(self) -> SummaryRecord | None:
        index = self.table.currentIndex()
        summary = index.siblingAtColumn(0).data(ItemRole) if index.isValid() else None
        from curator.reflection.summaries import SummaryRecord  # loaded with the engine by now
        return summary if isinstance(summary, SummaryRecord) else None

    # ---- Results

    def _on_loaded(self, items: list[SummaryRecord], select_id: str) -> None:
        current = self.current_summary()
        previous = select_id or (current.id if current is not None else "")
        self.model.set_records(items)
        self.empty_label.setVisible(not items)
        row = self.model.row_of(lambda s: s.id == previous) if previous else -1
        if row < 0 and items:
            row = len(items) - 1  # newest is last in time order
        if row >= 0:
            self.table.selectRow(row)
        else:
            self._show(None)
        self.summaries_loaded.emit(len(items))

    # ---- Controllers

    def _on_table_selection_changed(self, *_args: Any) -> None:
        self._show(self.current_summary())

    def reflect(self, kind: str) -> None:
        """Ask the engine for a reflection of ``kind`` now (the custom prompt goes with a summary)."""
        if self._service is None:
            return
        service, prompt = self._service, self.custom_prompt.text().strip()
        self._runner.submit("reflect now", lambda: service.reflect_now(prompt, kind), self._on_reflection_queued,
                            lambda e: self._interaction.inform("Reflect now", f"Could not start: {e}"))

    def _on_reflect_button_clicked(self) -> None:
        self.reflect("summary")

    def _on_reflection_queued(self, job: Job) -> None:
        self.custom_prompt.clear()
        self.reflection_requested.emit(job)

    def _on_save_button_clicked(self) -> None:
        summary = self.current_summary()
        if summary is None or self._service is None:
            return
        service, text = self._service, self.editor.toPlainText()
        sid = summary.id
        self._runner.submit("edit summary", lambda: service.edit(summary, text), lambda _r: self.reload(sid),
                            lambda e: self._interaction.inform("Edit summary", f"Not saved: {e}"))

    def _on_delete_button_clicked(self) -> None:
        summary = self.current_summary()
        if summary is None or self._service is None:
            return
        if not self._interaction.confirm("Delete summary", "Delete this summary? It will never be found by search"
                                         " again; you can restore it from “Show deleted”."):
            return
        service = self._service
        self._runner.submit("delete summary", lambda: service.delete(summary), lambda _r: self.reload())

    def _on_restore_button_clicked(self) -> None:
        summary = self.current_summary()
        if summary is None or self._service is None:
            return
        service = self._service
        sid = summary.id
        self._runner.submit("restore summary", lambda: service.restore(summary), lambda _r: self.reload(sid))

    # ---- Helpers

    def _show(self, summary: SummaryRecord | None) -> None:
        has = summary is not None
        deleted = summary is not None and summary.deleted
        self.editor.setEnabled(has and not deleted)
        self.save_button.setEnabled(has and not deleted)
        self.delete_button.setEnabled(has and not deleted)
        self.restore_button.setEnabled(deleted)
        if summary is None:
            self.prompt_label.setText("")
            self.editor.clear()
            return
        self.prompt_label.setText(f"Prompt: {summary.prompt or '(default)'} · {short_time(summary.created_at)}")
        self.editor.setPlainText(summary.summary)


if __name__ == "__main__":  # a preview of this pane alone, on the demo
    import sys

    from ui.panes.preview import main

    raise SystemExit(main(["reflections", *sys.argv[1:]]))
