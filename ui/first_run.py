"""First-run assistant: choose the vault, add watched sources (adapter detected), pick the model.

The wizard only collects answers; ``FirstRunResult`` is applied by the app through the
engine's settings API. Adapter detection and model discovery are engine functions
(``curator.adapters.detect_adapter``, ``curator.llm.discovery.discover_models``); discovery
reads GGUF headers, so it runs off the GUI thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWizard,
    QWizardPage,
)

from curator.llm.discovery import SOURCE_DEFAULT
from curator.settings import SourceConfig
from ui.models.records import Column, ItemRole, RecordTableModel
from ui.workers import OpRunner


@dataclass
class FirstRunResult:
    """What the person chose."""

    vault: Path
    sources: list[SourceConfig] = field(default_factory=list)
    model_path: str = ""


def detect_source(path: Path, user_id: str) -> SourceConfig:
    """A source for ``path`` with its adapter detected by the engine (raises when none fits)."""
    from curator.adapters import detect_adapter

    adapter, _score = detect_adapter(path)
    return SourceConfig(path=str(path), adapter=adapter, user_id=user_id or "default")


def _size(model: Any) -> str:
    size = float(getattr(model, "size", 0) or 0)
    return f"{size / 1e9:.2f} GB" if size >= 1e9 else f"{size / 1e6:.0f} MB"


class FirstRunWizard(QWizard):
    """Three pages: vault, sources, model. Signals: ``finished_with(FirstRunResult)``.

    Tests fill the widgets and call ``accept()``; the app opens it with ``open()``.
    """

    finished_with = Signal(object)

    def __init__(self, runner: OpRunner, default_vault: Path, parent: Any = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Welcome to Memory Curator")
        self.setWizardStyle(QWizard.WizardStyle.ClassicStyle)
        self.resize(720, 520)
        self._runner = runner

        # Page 1: vault
        vault_page = QWizardPage()
        vault_page.setTitle("Where should your memories live?")
        vault_page.setSubTitle("The vault is a folder of Markdown files you own. Approved memories, staged"
                               " proposals and summaries are written there, never into your chat client's files.")
        self.vault_edit = QLineEdit(str(default_vault))
        self.vault_edit.setObjectName("vault_path")
        browse = QPushButton("Choose…")
        browse.clicked.connect(self._on_browse_vault_clicked)
        row = QHBoxLayout()
        row.addWidget(self.vault_edit, 1)
        row.addWidget(browse)
        QVBoxLayout(vault_page).addLayout(row)

        # Page 2: sources
        sources_page = QWizardPage()
        sources_page.setTitle("Which conversations should be watched?")
        sources_page.setSubTitle("Add the folders where your chat client saves conversations. The format is"
                                 " detected from the folder's contents; each source belongs to a user id.")
        self.source_path = QLineEdit()
        self.source_path.setObjectName("source_path")
        self.source_path.setPlaceholderText("Folder with chat logs")
        self.source_user = QLineEdit("default")
        self.source_user.setObjectName("source_user")
        self.source_user.setMaximumWidth(140)
        pick = QPushButton("Choose…")
        pick.clicked.connect(self._on_browse_source_clicked)
        self.add_source_button = QPushButton("Add")
        self.add_source_button.clicked.connect(self._on_add_source_clicked)
        self.source_error = QLabel("")
        self.source_error.setWordWrap(True)
        self.sources_list = QListWidget()
        self.sources_list.setObjectName("sources_list")
        self.remove_source_button = QPushButton("Remove selected")
        self.remove_source_button.clicked.connect(self._on_remove_source_clicked)
        add_row = QHBoxLayout()
        add_row.addWidget(self.source_path, 1)
        add_row.addWidget(pick)
        add_row.addWidget(QLabel("user"))
        add_row.addWidget(self.source_user)
        add_row.addWidget(self.add_source_button)
        sources_layout = QVBoxLayout(sources_page)
        sources_layout.addLayout(add_row)
        sources_layout.addWidget(self.source_error)
        sources_layout.addWidget(self.sources_list, 1)
        sources_layout.addWidget(self.remove_source_button, alignment=Qt.AlignmentFlag.AlignLeft)
        self.sources: list[SourceConfig] = []

        # Page 3: model
        model_page = QWizardPage()
        model_page.setTitle("Which model should reflect?")
        model_page.setSubTitle("GGUF models found on this machine. The bundled default is small and weak but"
                               " works offline; a bigger model you already have will propose better memories.")
        self.models: RecordTableModel[Any] = RecordTableModel([
            Column("Model", lambda m: m.name + ("  (default)" if m.source == SOURCE_DEFAULT else ""),
                   tooltip=lambda m: str(m.path)),
            Column("Size", _size),
            Column("Quant", lambda m: m.quantization),
            Column("Context", lambda m: m.context_length or ""),
            Column("Found in", lambda m: m.source),
            Column("Note", lambda m: m.error or m.recommended),
        ], self)
        self.models_view = QTableView()
        self.models_view.setObjectName("models_table")
        self.models_view.setModel(self.models)
        self.models_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.models_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.models_view.verticalHeader().hide()
        self.models_view.horizontalHeader().setStretchLastSection(True)
        self.models_view.setColumnWidth(0, 260)
        self.models_status = QLabel("Looking for GGUF models…")
        model_layout = QVBoxLayout(model_page)
        model_layout.addWidget(self.models_status)
        model_layout.addWidget(self.models_view, 1)

        self.addPage(vault_page)
        self.addPage(sources_page)
        self.addPage(model_page)
        self.accepted.connect(self._on_accepted)
        self._discover()

    # ---- Public API

    def result_value(self) -> FirstRunResult:
        return FirstRunResult(Path(self.vault_edit.text().strip()).expanduser(), list(self.sources),
                              self.selected_model_path())

    def selected_model_path(self) -> str:
        index = self.models_view.currentIndex()
        model = index.siblingAtColumn(0).data(ItemRole) if index.isValid() else None
        if model is None or getattr(model, "source", "") == SOURCE_DEFAULT:
            return ""  # empty means "the bundled default" in settings
        return str(model.path)

    def add_source(self, path: str, user_id: str) -> None:
        """Detect the adapter of ``path`` (in the background) and add it to the list."""
        self._runner.submit("detect adapter", lambda: detect_source(Path(path).expanduser(), user_id),
                            self._on_source_detected, self._on_source_failed)

    # ---- Results

    def _discover(self) -> None:
        from curator.llm.discovery import discover_models  # reads GGUF headers: worker thread

        self._runner.submit("discover models", discover_models, self._on_models_found,
                            lambda e: self.models_status.setText(f"Model search failed: {e}"))

    def _on_models_found(self, models: list[Any]) -> None:
        usable = [m for m in models if m.ok] + [m for m in models if not m.ok]
        self.models.set_records(usable)
        self.models_status.setText(f"{sum(1 for m in models if m.ok)} usable model(s) found.")
        default_row = self.models.row_of(lambda m: m.source == SOURCE_DEFAULT)
        if default_row >= 0 or usable:
            self.models_view.selectRow(max(default_row, 0))

    def _on_source_detected(self, source: SourceConfig) -> None:
        self.source_error.setText("")
        self.sources.append(source)
        QListWidgetItem(f"{source.path}   —   {source.adapter}, user {source.user_id}", self.sources_list)
        self.source_path.clear()

    def _on_source_failed(self, error: BaseException) -> None:
        self.source_error.setText(str(error))

    # ---- Controllers

    def _on_add_source_clicked(self) -> None:
        path = self.source_path.text().strip()
        if path:
            self.add_source(path, self.source_user.text().strip())

    def _on_remove_source_clicked(self) -> None:
        row = self.sources_list.currentRow()
        if row >= 0:
            self.sources_list.takeItem(row)
            del self.sources[row]

    def _on_browse_vault_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Vault folder", self.vault_edit.text())
        if folder:
            self.vault_edit.setText(folder)

    def _on_browse_source_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Chat folder", str(Path.home()))
        if folder:
            self.source_path.setText(folder)

    def _on_accepted(self) -> None:
        self.finished_with.emit(self.result_value())
