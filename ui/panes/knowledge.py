"""Knowledge browser: search as you type with filters, open a document, edit, trash, restore, history.

Search is the engine's unified search (``curator.index.search``); an empty query lists the
approved documents. Opening a result loads the document (or the turn) in the editor on the
right; saving, trashing and restoring are engine calls that keep history and the index.
The person's own hand: "Add memory…" (Ctrl+N) writes one, Pin keeps one in MEMORY.md,
"No longer true…" retires one (kept, out of search), and "Merge…" makes the selected
memories one; each is one undoable step (``action_answered`` offers the undo).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from curator.text_safety import visible
from curator.vault.scopes import SCOPES
from ui.infra.interaction import Interaction
from ui.infra.resources import icon, set_role
from ui.infra.timefmt import format_time
from ui.infra.workers import OpRunner
from ui.models.records import Column, ItemRole, RecordTableModel
from ui.panes.fit import fit_table
from ui.services.facade import KnowledgeService, SearchRequest

if TYPE_CHECKING:  # the engine's types; its modules load with the vault, not before the window shows
    from curator.index.search import SearchHit
    from curator.vault.documents import Document
    from curator.vault.store import HistoryEntry, TrashEntry

FRESHNESS = {"any time": None, "last day": 86400.0, "last week": 7 * 86400.0,
             "last month": 31 * 86400.0, "last year": 366 * 86400.0}
KIND_FILTERS = ["any kind", "fact", "preference", "procedure", "concept", "pattern", "entity",
                "reflection", "correction", "connection", "turn"]
EDITABLE_FIELDS = ("title", "kind", "primary_topic", "keywords", "scope", "quality")
QUALITY_TIP = ("Quality (0–1): your rating of how useful this memory is; 0.50 until someone sets it."
               " Search can leave out memories below a minimum quality (here, or"
               " `curator search --min-quality`).")


def _hit_title(hit: SearchHit) -> str:
    return visible(hit.title or hit.id)


class DocumentEditor(QWidget):
    """Fields and body of one document; ``save_requested`` / ``trash_requested`` signals."""

    save_requested = Signal()
    trash_requested = Signal()
    pin_requested = Signal()
    retire_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = QLabel("Open a result to read or edit it.")
        set_role(self.heading, "heading")
        self.heading.setWordWrap(True)
        self.meta = QLabel("")
        set_role(self.meta, "meta")
        self.meta.setWordWrap(True)
        self.fields: dict[str, QWidget] = {}
        form = QFormLayout()
        for name in EDITABLE_FIELDS:
            if name == "scope":
                combo = QComboBox()
                combo.addItems(list(SCOPES))
                widget: QWidget = combo
            elif name == "quality":
                spin = QDoubleSpinBox()
                spin.setRange(0.0, 1.0)
                spin.setSingleStep(0.05)
                spin.setToolTip(QUALITY_TIP)
                widget = spin
            else:
                widget = QLineEdit()
            widget.setObjectName(f"doc_{name}")
            self.fields[name] = widget
            form.addRow(name.replace("_", " ").capitalize(), widget)
        self.body = QPlainTextEdit()
        self.body.setObjectName("doc_body")
        self.save_button = QPushButton(icon("approve"), "Save")
        self.trash_button = QPushButton(icon("trash"), "Move to trash")
        self.pin_button = QPushButton("Pin")
        self.pin_button.setObjectName("doc_pin")
        self.pin_button.setToolTip("A pinned memory always stays in MEMORY.md's critical facts")
        self.retire_button = QPushButton("No longer true…")
        self.retire_button.setObjectName("doc_retire")
        self.retire_button.setToolTip("Keep it in history with today's date and your reason, out of search")
        buttons = QHBoxLayout()
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.pin_button)
        buttons.addWidget(self.retire_button)
        buttons.addWidget(self.trash_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.meta)
        layout.addLayout(form)
        layout.addWidget(self.body, 1)
        layout.addLayout(buttons)
        self.save_button.clicked.connect(self.save_requested)
        self.trash_button.clicked.connect(self.trash_requested)
        self.pin_button.clicked.connect(self.pin_requested)
        self.retire_button.clicked.connect(self.retire_requested)
        self.show_document(None)

    def show_document(self, doc: Document | None, read_only_text: str = "") -> None:
        editable = doc is not None
        for widget in self.fields.values():
            widget.setEnabled(editable)
        self.save_button.setEnabled(editable)
        self.trash_button.setEnabled(editable)
        # Only an approved memory (a file in Knowledge/) is pinned or retired; not a summary.
        approved = doc is not None and doc.path is not None and "Knowledge" in doc.path.parts
        approved = approved and doc is not None and doc.kind != "reflection"
        retired = doc is not None and bool(doc.get("retired_at"))
        self.pin_button.setEnabled(approved and not retired)
        self.pin_button.setText("Unpin" if doc is not None and doc.get("pinned") else "Pin")
        self.retire_button.setEnabled(approved and not retired)
        self.body.setReadOnly(not editable)
        if doc is None:
            self.body.setPlainText(read_only_text)
            if not read_only_text:
                self.heading.setText("Open a result to read or edit it.")
                self.meta.setText("")
            return
        self.heading.setText(visible(doc.title or doc.id))
        state = (f" · no longer true since {str(doc.get('retired_at'))[:10]}: {doc.get('retired_reason', '')}"
                 if doc.get("retired_at") else " · 📌 pinned" if doc.get("pinned") else "")
        self.meta.setText(f"id {doc.id} · {doc.get('user_id', '')} · created {doc.get('created_at', '')}"
                          f" · updated {doc.get('updated_at', '—')}{state}")
        for name, widget in self.fields.items():
            value = doc.meta.get(name)
            if isinstance(widget, QComboBox):
                widget.setCurrentText(str(value or "new"))
            elif isinstance(widget, QDoubleSpinBox):
                widget.setValue(float(value) if isinstance(value, (int, float)) else 0.5)
            elif isinstance(widget, QLineEdit):
                widget.setText(", ".join(map(str, value)) if isinstance(value, list) else str(value or ""))
        self.body.setPlainText(doc.body)

    def values(self) -> dict[str, Any]:
        """Fields as edited (keywords split on commas)."""
        out: dict[str, Any] = {}
        for name, widget in self.fields.items():
            if isinstance(widget, QComboBox):
                out[name] = widget.currentText()
            elif isinstance(widget, QDoubleSpinBox):
                out[name] = round(widget.value(), 3)
            elif isinstance(widget, QLineEdit):
                text = widget.text().strip()
                out[name] = [k.strip() for k in text.split(",") if k.strip()] if name == "keywords" else text
        return out


class KnowledgePane(QWidget):
    """Search, filters, results, the open document, its history and the trash.

    Signals (GUI thread): ``results_shown(count)``, ``document_shown(doc_id)``, ``trash_loaded(count)``.
    """

    results_shown = Signal(int)
    document_shown = Signal(str)
    trash_loaded = Signal(int)
    action_answered = Signal(str, bool)  # message, undoable

    def __init__(self, runner: OpRunner, interaction: Interaction, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._runner = runner
        self._interaction = interaction
        self._service: KnowledgeService | None = None
        self._doc: Document | None = None

        self.query = QLineEdit()
        self.query.setObjectName("search_query")
        self.query.setPlaceholderText("Search turns, summaries and knowledge…  (empty: all approved knowledge)")
        self.query.setClearButtonEnabled(True)
        self.kind = QComboBox()
        self.kind.addItems(KIND_FILTERS)
        self.topic = QLineEdit()
        self.topic.setPlaceholderText("topic")
        self.topic.setMaximumWidth(140)
        self.scope = QComboBox()
        self.scope.addItems(["any scope", *SCOPES])
        self.min_quality = QDoubleSpinBox()
        self.min_quality.setRange(0.0, 1.0)
        self.min_quality.setSingleStep(0.1)
        self.min_quality.setPrefix("quality ≥ ")
        self.min_quality.setToolTip("Leave out memories whose quality is below this. " + QUALITY_TIP)
        self.freshness = QComboBox()
        self.freshness.addItems(list(FRESHNESS))
        filters = QHBoxLayout()
        for widget in (self.kind, self.topic, self.scope, self.min_quality, self.freshness):
            filters.addWidget(widget)
        filters.addStretch(1)

        self.results: RecordTableModel[SearchHit] = RecordTableModel([
            Column("Result", _hit_title, tooltip=lambda h: h.snippet),
            Column("Kind", lambda h: h.kind),
            Column("Scope", lambda h: h.scope or ""),
            Column("Quality", lambda h: "" if h.quality is None else f"{h.quality:.2f}",
                   tooltip=lambda _h: QUALITY_TIP),
            Column("When", lambda h: format_time(h.timestamp)),
            Column("Snippet", lambda h: h.snippet.replace("\n", " ")),
        ], self)
        self.table = QTableView()
        self.table.setObjectName("search_results")
        self.table.setModel(self.results)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.verticalHeader().hide()
        fit_table(self.table, stretch=5)
        self.count_label = QLabel("")
        set_role(self.count_label, "meta")
        self.add_button = QPushButton(icon("edit"), "Add memory…")
        self.add_button.setObjectName("add_memory")
        self.add_button.setShortcut("Ctrl+N")
        self.add_button.setToolTip("Write a memory yourself (Ctrl+N)")
        self.merge_button = QPushButton("Merge…")
        self.merge_button.setObjectName("merge_memories")
        self.merge_button.setToolTip("Make the selected memories one (Ctrl or Shift to select several)")
        self.merge_button.setEnabled(False)

        self.editor = DocumentEditor()
        self.history: RecordTableModel[HistoryEntry] = RecordTableModel([
            Column("Saved", lambda e: e.saved_at),
            Column("Action", lambda e: e.action),
        ], self)
        self.history_view = QTableView()
        self.history_view.setModel(self.history)
        self.history_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        fit_table(self.history_view, stretch=1)
        self.history_view.verticalHeader().hide()
        self.history_text = QPlainTextEdit()
        self.history_text.setReadOnly(True)
        self.history_text.setPlaceholderText("Select an earlier version to read it.")
        history_page = QSplitter(Qt.Orientation.Vertical)
        history_page.addWidget(self.history_view)
        history_page.addWidget(self.history_text)

        self.trash: RecordTableModel[TrashEntry] = RecordTableModel([
            Column("Title", lambda e: visible(e.title or e.doc_id)),
            Column("Deleted", lambda e: e.deleted_at),
            Column("From", lambda e: e.original),
            Column("Reason", lambda e: e.reason),
        ], self)
        self.trash_view = QTableView()
        self.trash_view.setObjectName("trash_table")
        self.trash_view.setModel(self.trash)
        self.trash_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        fit_table(self.trash_view, stretch=3)
        self.trash_view.verticalHeader().hide()
        self.restore_button = QPushButton(icon("restore"), "Restore")
        trash_page = QWidget()
        trash_layout = QVBoxLayout(trash_page)
        trash_layout.addWidget(self.trash_view)
        trash_layout.addWidget(self.restore_button, alignment=Qt.AlignmentFlag.AlignLeft)

        self.side_tabs = QTabWidget()
        self.side_tabs.addTab(self.editor, "Document")
        self.side_tabs.addTab(history_page, icon("history"), "History")
        self.side_tabs.addTab(trash_page, icon("trash"), "Trash")

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.query)
        left_layout.addLayout(filters)
        left_layout.addWidget(self.table, 1)
        own = QHBoxLayout()
        own.addWidget(self.count_label, 1)
        own.addWidget(self.add_button)
        own.addWidget(self.merge_button)
        left_layout.addLayout(own)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.side_tabs)
        splitter.setSizes([620, 480])
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(180)
        self._search_timer.timeout.connect(self.run_search)
        self.query.textChanged.connect(self._on_filters_changed)
        self.topic.textChanged.connect(self._on_filters_changed)
        for combo in (self.kind, self.scope, self.freshness):
            combo.currentIndexChanged.connect(self._on_filters_changed)
        self.min_quality.valueChanged.connect(self._on_filters_changed)
        self.table.selectionModel().selectionChanged.connect(self._on_table_selection_changed)
        self.editor.save_requested.connect(self._on_editor_save_requested)
        self.editor.trash_requested.connect(self._on_editor_trash_requested)
        self.editor.pin_requested.connect(self._on_editor_pin_requested)
        self.editor.retire_requested.connect(self._on_editor_retire_requested)
        self.add_button.clicked.connect(self._on_add_button_clicked)
        self.merge_button.clicked.connect(self._on_merge_button_clicked)
        self.history_view.selectionModel().selectionChanged.connect(self._on_history_selection_changed)
        self.restore_button.clicked.connect(self._on_restore_button_clicked)

    # ---- Public API

    def attach(self, service: KnowledgeService) -> None:
        self._service = service
        self.run_search()
        self.reload_trash()

    def request(self) -> SearchRequest:
        """The search as the widgets describe it."""
        window = FRESHNESS[self.freshness.currentText()]
        return SearchRequest(
            query=self.query.text().strip(),
            kind="" if self.kind.currentIndex() == 0 else self.kind.currentText(),
            topic=self.topic.text().strip(),
            scope="" if self.scope.currentIndex() == 0 else self.scope.currentText(),
            min_quality=self.min_quality.value() or None,
            since=(time.time() - window) if window else None,
        )

    def run_search(self) -> None:
        if self._service is None:
            return
        service, request = self._service, self.request()
        self._runner.submit("search", lambda: service.search(request), self._on_search_done, latest_only="search")

    def _after_save(self, doc_id: str) -> None:
        self.open_document(doc_id)
        self.run_search()

    def _after_restore(self) -> None:
        self.reload_trash()
        self.run_search()

    def reload_trash(self) -> None:
        if self._service is None:
            return
        service = self._service
        self._runner.submit("load trash", service.list_trash, self._on_trash_loaded, latest_only="trash")

    def open_document(self, doc_id: str) -> None:
        """Load and show the document with this id."""
        if self._service is None:
            return
        service = self._service
        self._runner.submit("open document", lambda: service.open_document(doc_id), self._on_document_loaded,
                            latest_only="open")

    def current_document(self) -> Document | None:
        return self._doc

    # ---- Results

    def _on_search_done(self, hits: list[SearchHit]) -> None:
        self.results.set_records(hits)
        self.count_label.setText(f"{len(hits)} result{'s' if len(hits) != 1 else ''}")
        self.results_shown.emit(len(hits))

    def _on_trash_loaded(self, entries: list[TrashEntry]) -> None:
        self.trash.set_records(entries)
        self.trash_loaded.emit(len(entries))

    def _on_document_loaded(self, loaded: tuple[Document | None, list[HistoryEntry]]) -> None:
        doc, history = loaded
        self._doc = doc
        self.editor.show_document(doc)
        self.history.set_records(history)
        self.history_text.clear()
        self.side_tabs.setCurrentWidget(self.editor)
        self.document_shown.emit(doc.id if doc is not None else "")

    def _on_turn_loaded(self, text: str) -> None:
        self._doc = None
        self.editor.heading.setText("A turn (read only; turns belong to their chat client)")
        self.editor.show_document(None, text)
        self.history.set_records([])

    # ---- Controllers

    def _on_filters_changed(self, *_args: Any) -> None:
        self._search_timer.start()

    def selected_documents(self) -> list[SearchHit]:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        hits = [r.siblingAtColumn(0).data(ItemRole) for r in rows]
        from curator.index.search import SearchHit  # loaded with the engine by now
        return [h for h in hits if isinstance(h, SearchHit) and h.item_type == "document" and h.kind != "reflection"]

    def _on_table_selection_changed(self, *_args: Any) -> None:
        self.merge_button.setEnabled(len(self.selected_documents()) >= 2)
        index = self.table.currentIndex()
        hit = index.siblingAtColumn(0).data(ItemRole) if index.isValid() else None
        from curator.index.search import SearchHit  # loaded with the engine by now
        if not isinstance(hit, SearchHit) or self._service is None:
            return
        if hit.item_type == "turn":
            service = self._service
            self._runner.submit("open turn", lambda: service.turn_text(hit), self._on_turn_loaded, latest_only="open")
        else:
            self.open_document(hit.id)

    def _on_editor_save_requested(self) -> None:
        if self._doc is None or self._service is None:
            return
        service, doc = self._service, self._doc
        values, body = self.editor.values(), self.editor.body.toPlainText()
        self._runner.submit("save document", lambda: service.save_document(doc, values, body),
                            lambda _r: self._after_save(doc.id),
                            lambda e: self._interaction.inform("Save", f"Not saved: {e}"))

    def _on_editor_trash_requested(self) -> None:
        if self._doc is None or self._service is None:
            return
        if not self._interaction.confirm("Move to trash", f"Move “{self._doc.title or self._doc.id}” to the trash?"):
            return
        service, doc = self._service, self._doc
        self._runner.submit("trash document", lambda: service.trash_document(doc), self._on_trashed)

    def _on_trashed(self, _result: Any) -> None:
        self._doc = None
        self.editor.show_document(None)
        self.history.set_records([])
        self.run_search()
        self.reload_trash()

    def _on_history_selection_changed(self, *_args: Any) -> None:
        index = self.history_view.currentIndex()
        entry = index.siblingAtColumn(0).data(ItemRole) if index.isValid() else None
        if entry is None or self._service is None:
            return
        service = self._service
        self._runner.submit("read version", lambda: service.read_version(entry), self.history_text.setPlainText)

    def _on_restore_button_clicked(self) -> None:
        index = self.trash_view.currentIndex()
        entry = index.siblingAtColumn(0).data(ItemRole) if index.isValid() else None
        if entry is None or self._service is None:
            return
        service = self._service
        self._runner.submit("restore", lambda: service.restore(entry),
                            lambda _r: self._after_restore(),
                            lambda e: self._interaction.inform("Restore", f"Not restored: {e}"))


    # ---- The person's own hand

    def _own(self, label: str, call: Any, message: str, doc_id: str = "") -> None:
        def done(_result: Any) -> None:
            self.action_answered.emit(message, True)
            self.run_search()
            if doc_id:
                self.open_document(doc_id)

        self._runner.submit(label, call, done, lambda e: self._interaction.inform("Memory", f"Not done: {e}"))

    def _on_editor_pin_requested(self) -> None:
        doc, service = self._doc, self._service
        if doc is None or service is None:
            return
        pinned = not doc.get("pinned")
        self._own("pin", lambda: service.pin(doc, pinned),
                  f"{'Pinned' if pinned else 'Unpinned'} “{doc.title}”", doc.id)

    def _on_editor_retire_requested(self) -> None:
        doc, service = self._doc, self._service
        if doc is None or service is None:
            return
        reason = self._interaction.ask_text("No longer true", f"Why is “{doc.title}” no longer true?")
        if reason is None or not reason.strip():
            return
        self._own("retire", lambda: service.retire(doc, reason), f"“{doc.title}” kept as no longer true", doc.id)

    def _on_add_button_clicked(self) -> None:
        service = self._service
        if service is None:
            return
        from ui.dialogs.add_memory import AddMemoryDialog

        dialog = AddMemoryDialog(self._runner, service.matching_turns, self)
        if dialog.exec() != AddMemoryDialog.DialogCode.Accepted or not dialog.text():
            return
        text, turns = dialog.text(), dialog.turns()
        self._own("add memory", lambda: service.add(text, turns), "Added your memory")

    def _on_merge_button_clicked(self) -> None:
        hits, service = self.selected_documents(), self._service
        if len(hits) < 2 or service is None:
            return
        ids = [h.id for h in hits]
        self._runner.submit("read memories", lambda: service.bodies(ids), lambda texts: self._merge(ids, texts))

    def _merge(self, ids: list[str], texts: list[str]) -> None:
        service = self._service
        text = self._interaction.ask_text("Merge", f"One memory instead of {len(ids)} (edit it):", " ".join(texts),
                                          multiline=True)
        if service is None or text is None or not text.strip():
            return
        self._own("merge", lambda: service.merge(ids, text), f"Merged {len(ids)} memories into one")


if __name__ == "__main__":  # a preview of this pane alone, on the demo
    import sys

    from ui.panes.preview import main

    raise SystemExit(main(["knowledge", *sys.argv[1:]]))
