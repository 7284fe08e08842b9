"""Editors shared by the first-run assistant and the settings dialog: sources and the model.

``SourcesEditor`` lists watched sources and adds/removes them through a ``SourceBackend``
(the engine in the settings dialog, an in-memory list in the assistant). ``ModelPicker``
lists the GGUF models discovery finds, the bundled default first. Both run engine calls
(adapter detection, discovery, GGUF headers, vault writes) on the ``OpRunner`` worker and
ask for folders and files through the ``Interaction`` port, never a dialog of their own.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from curator.sources.discovery import SourceDetails
from curator.vault.settings import SourceConfig
from ui.dialogs.client_finder import add_installed_clients, describe_found, pending_details
from ui.infra.interaction import Interaction
from ui.infra.resources import set_role
from ui.infra.workers import OpRunner
from ui.models.records import ItemRole
from ui.models.sources_model import SourcesModel

# ---- Sources

TYPE_DETECT_MS = 400  # a pause in typing this long starts adapter detection


class SourceBackend(Protocol):
    """Where sources live. ``add``/``remove`` run on the worker thread and return the new list."""

    def list(self) -> list[SourceConfig]: ...

    def details(self) -> dict[str, SourceDetails]:
        """Client, version and health of each source, by id (or by path before it has one)."""
        ...

    def add(self, path: str, adapter: str | None, user_id: str) -> builtins.list[SourceConfig]: ...

    def remove(self, source: SourceConfig) -> builtins.list[SourceConfig]: ...


def detect_source(path: Path, user_id: str) -> SourceConfig:
    """A source for ``path`` with its adapter detected by the engine (raises when none fits)."""
    from curator.sources.adapters import detect_adapter

    adapter, _score = detect_adapter(path)
    return SourceConfig(path=str(path), adapter=adapter, user_id=user_id or "default")


def detect_folder(path: str) -> tuple[str, str, float]:
    """``(path, adapter, score)`` for a folder, or the engine's error (missing folder, no adapter)."""
    from curator.engine import SourceError
    from curator.sources.adapters import detect_adapter

    root = Path(path).expanduser()
    if not root.exists():
        raise SourceError(f"{root} does not exist")
    adapter, score = detect_adapter(root)
    return path, adapter, score


class PendingSources:
    """Sources collected before a vault exists (the first-run assistant); applied later."""

    def __init__(self, sources: Sequence[SourceConfig] = ()) -> None:
        self._sources = list(sources)

    def list(self) -> list[SourceConfig]:
        return list(self._sources)

    def details(self) -> dict[str, SourceDetails]:
        """Client and version of each pending source, by path (worker thread)."""
        return pending_details(self._sources)

    def add(self, path: str, adapter: str | None, user_id: str) -> builtins.list[SourceConfig]:
        from curator.engine import SourceError
        from curator.vault.paths import validate_user_id

        root = Path(path).expanduser()
        if not root.exists():
            raise SourceError(f"{root} does not exist")
        user = validate_user_id(user_id or "default")
        if any(Path(s.path).expanduser().resolve() == root.resolve() for s in self._sources):
            raise SourceError(f"{root} is already a source")
        source = detect_source(root, user) if adapter is None else SourceConfig(str(root), adapter, user)
        self._sources.append(source)
        return self.list()

    def remove(self, source: SourceConfig) -> builtins.list[SourceConfig]:
        self._sources = [s for s in self._sources if s is not source and s.path != source.path]
        return self.list()



class SourcesEditor(QWidget):
    """A table of sources with "Add folder…" (adapter detected first) and "Remove".

    Signals (GUI thread): ``sources_changed(list)`` after an add or remove succeeded,
    ``detected(str)`` with the adapter found for the chosen folder, ``failed(str)`` with the
    engine's message (``SourceError``, unknown adapter); the same text is shown in ``message``.
    """

    sources_changed = Signal(list)
    detected = Signal(str)
    failed = Signal(str)
    clients_found = Signal(list)  # DiscoveredClient records, after "Find installed clients"

    def __init__(self, runner: OpRunner | None, interaction: Interaction | None, backend: SourceBackend,
                 confirm_remove: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._runner = runner
        self._interaction = interaction
        self._backend = backend
        self._confirm_remove = confirm_remove
        self._detected: tuple[str, str] | None = None  # (path, adapter)
        self._add_when_detected = False  # Enter was pressed before detection answered
        self._quiet_detect = False  # detecting a path still being typed: no error text
        self._type_timer = QTimer(self)
        self._type_timer.setSingleShot(True)
        self._type_timer.setInterval(TYPE_DETECT_MS)

        self.model = SourcesModel(self)
        self.model.set_records(backend.list())
        self.refresh_details()
        self.view = QTableView()
        self.view.setObjectName("sources_table")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.verticalHeader().hide()
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.add_folder_button = QPushButton("Add folder…")
        self.add_folder_button.setObjectName("add_folder")
        self.remove_button = QPushButton("Remove")
        self.remove_button.setObjectName("remove_source")
        self.remove_button.setEnabled(False)
        self.find_button = QPushButton("Find installed clients")
        self.find_button.setObjectName("find_clients")
        self.find_button.setToolTip("Look for Open WebUI, AnythingLLM, the Ollama app, Jan, LM Studio, Claude Code… "
                                    "at their usual places and add the ones found")
        self.found_label = QLabel("")
        self.found_label.setObjectName("clients_found")
        self.found_label.setWordWrap(True)

        self.path_edit = QLineEdit()
        self.path_edit.setObjectName("source_path")
        self.path_edit.setPlaceholderText("Folder with chat logs (Add folder… or type a path)")
        self.adapter_label = QLabel("adapter: —")
        self.adapter_label.setObjectName("source_adapter")
        self.adapter_label.setMinimumWidth(130)
        self.user_edit = QLineEdit("default")
        self.user_edit.setObjectName("source_user")
        self.user_edit.setMaximumWidth(140)
        self.user_edit.setToolTip("Whose conversations these are (a user id; default: \"default\")")
        self.add_button = QPushButton("Add")
        self.add_button.setObjectName("add_source")
        self.add_button.setEnabled(False)
        self.message = QLabel("")
        self.message.setObjectName("source_message")
        self.message.setWordWrap(True)
        set_role(self.message, "error")

        buttons = QHBoxLayout()
        buttons.addWidget(self.add_folder_button)
        buttons.addWidget(self.remove_button)
        buttons.addWidget(self.find_button)
        buttons.addStretch(1)
        new_row = QHBoxLayout()
        new_row.addWidget(self.path_edit, 1)
        new_row.addWidget(self.adapter_label)
        new_row.addWidget(QLabel("user"))
        new_row.addWidget(self.user_edit)
        new_row.addWidget(self.add_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addLayout(buttons)
        layout.addLayout(new_row)
        layout.addWidget(self.found_label)
        layout.addWidget(self.message)

        enabled = runner is not None
        for widget in (self.add_folder_button, self.path_edit, self.user_edit, self.find_button):
            widget.setEnabled(enabled)
        self.find_button.clicked.connect(self._on_find_button_clicked)
        self.add_folder_button.clicked.connect(self._on_add_folder_button_clicked)
        self.add_button.clicked.connect(self._on_add_button_clicked)
        self.remove_button.clicked.connect(self._on_remove_button_clicked)
        self.path_edit.editingFinished.connect(self._on_path_edit_editing_finished)
        self.path_edit.textEdited.connect(self._on_path_edit_text_edited)
        self.path_edit.installEventFilter(self)
        self._type_timer.timeout.connect(self._on_type_timer_timeout)
        self.view.selectionModel().selectionChanged.connect(self._on_view_selection_changed)

    # ---- Qt overrides

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Override: Enter in the path field adds the folder (and is not the dialog's Next/OK)."""
        if watched is self.path_edit and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.path_edit.text().strip():
                self._on_path_edit_return()
                return True
        return super().eventFilter(watched, event)

    # ---- Public API

    def sources(self) -> list[SourceConfig]:
        return self.model.records()

    def refresh_details(self) -> None:
        """Ask the backend (when it can tell) for each source's client, version and health."""
        if self._runner is None or not self.model.rowCount():
            return  # nothing to describe: no background job (callers wait on the runner's)
        self._runner.submit("source details", self._backend.details, self._on_details, lambda _error: None,
                            latest_only="source-details")

    def detect(self, path: str, quiet: bool = False) -> None:
        """Detect the adapter of ``path`` in the background; ``detected`` or ``failed`` follows.

        ``quiet``: the path is still being typed, so "not found" is no error worth a message.
        """
        if self._runner is None or not path:
            return
        self._quiet_detect = quiet
        self._detected = None
        self.add_button.setEnabled(False)
        self.adapter_label.setText("adapter: detecting…")
        self._runner.submit("detect adapter", lambda: detect_folder(path), self._on_folder_detected,
                            self._on_detect_failed, latest_only="detect-adapter")

    def add_source(self, path: str, user_id: str = "default", adapter: str | None = None) -> None:
        """Add ``path`` through the backend in the background (adapter detected when None)."""
        if self._runner is None or not path:
            return
        backend, user = self._backend, user_id.strip() or "default"
        self._runner.submit("add source", lambda: backend.add(path, adapter, user), self._on_source_added,
                            self._on_failed)

    def find_clients(self) -> None:
        """Find installed chat clients and add the readable ones, in the background."""
        if self._runner is None:
            return
        backend, user = self._backend, self.user_edit.text().strip() or "default"
        self.found_label.setText("Looking for chat clients…")
        self._runner.submit("find chat clients", lambda: add_installed_clients(backend, user),
                            self._on_clients_added, self._on_failed)

    def remove_source(self, source: SourceConfig) -> None:
        if self._runner is None:
            return
        backend = self._backend
        self._runner.submit("remove source", lambda: backend.remove(source), self._on_sources_returned,
                            self._on_failed)

    def selected_source(self) -> SourceConfig | None:
        index = self.view.currentIndex()
        return index.siblingAtColumn(0).data(ItemRole) if index.isValid() else None

    # ---- Results

    def _on_folder_detected(self, result: tuple[str, str, float]) -> None:
        path, adapter, _score = result
        if path != self.path_edit.text().strip():
            return  # the person typed another path meanwhile
        self._detected = (path, adapter)
        self.adapter_label.setText(f"adapter: {adapter}")
        self.message.setText("")
        self.add_button.setEnabled(True)
        self.detected.emit(adapter)
        if self._add_when_detected:
            self._add_when_detected = False
            self._on_add_button_clicked()

    def _on_detect_failed(self, error: BaseException) -> None:
        self.adapter_label.setText("adapter: —")
        self._add_when_detected = False
        if self._quiet_detect:
            return
        self._on_failed(error)

    def _on_source_added(self, sources: list[SourceConfig]) -> None:
        self.path_edit.clear()
        self.adapter_label.setText("adapter: —")
        self.add_button.setEnabled(False)
        self._detected = None
        self._on_sources_returned(sources)

    def _on_sources_returned(self, sources: list[SourceConfig]) -> None:
        self.message.setText("")
        self.model.set_records(sources)
        self.refresh_details()
        self.remove_button.setEnabled(False)
        self.sources_changed.emit(list(sources))

    def _on_details(self, details: dict[str, SourceDetails]) -> None:
        # The dialog may have been closed while the engine was asked.
        if shiboken6.isValid(self) and shiboken6.isValid(self.model):
            self.model.set_details(details)

    def _on_clients_added(self, result: tuple[list[SourceConfig], list[Any]]) -> None:
        sources, clients = result
        self.found_label.setText(describe_found(clients))
        self._on_sources_returned(sources)
        self.clients_found.emit(list(clients))

    def _on_failed(self, error: BaseException) -> None:
        text = str(error) or type(error).__name__
        self.message.setText(text)
        self.failed.emit(text)

    # ---- Controllers

    def _on_add_folder_button_clicked(self) -> None:
        if self._interaction is None:
            return
        folder = self._interaction.choose_folder("Folder with chat logs", self.path_edit.text() or str(Path.home()))
        if folder:
            self.path_edit.setText(folder)
            self.detect(folder)

    def _on_path_edit_editing_finished(self) -> None:
        path = self.path_edit.text().strip()
        if path and (self._detected is None or self._detected[0] != path):
            self.detect(path)

    def _on_path_edit_text_edited(self, _text: str) -> None:
        self._detected = None
        self.add_button.setEnabled(False)
        self.adapter_label.setText("adapter: —")
        self._type_timer.start()  # detect as the person types, once they pause

    def _on_type_timer_timeout(self) -> None:
        path = self.path_edit.text().strip()
        if path and (self._detected is None or self._detected[0] != path):
            self.detect(path, quiet=True)

    def _on_path_edit_return(self) -> None:
        path = self.path_edit.text().strip()
        if self._detected is not None and self._detected[0] == path:
            self._on_add_button_clicked()
            return
        self._add_when_detected = True
        self._type_timer.stop()
        self.detect(path)

    def _on_add_button_clicked(self) -> None:
        path = self.path_edit.text().strip()
        adapter = self._detected[1] if self._detected and self._detected[0] == path else None
        self.add_source(path, self.user_edit.text(), adapter)

    def _on_find_button_clicked(self) -> None:
        self.find_clients()

    def _on_remove_button_clicked(self) -> None:
        source = self.selected_source()
        if source is None:
            return
        if self._confirm_remove and self._interaction is not None and not self._interaction.confirm(
                "Remove source", f"Stop watching {source.path}?\n\nIts conversations and the memories made from "
                                 "them stay in the vault."):
            return
        self.remove_source(source)

    def _on_view_selection_changed(self, *_args: Any) -> None:
        self.remove_button.setEnabled(self._runner is not None and self.selected_source() is not None)


# The model picker lives in its own module; re-exported here for existing imports.
from ui.dialogs.model_picker import (  # noqa: E402
    DEFAULT_CHOICE,
    ModelChoice,
    ModelPicker,
    discover_choices,
    model_choices,
)

__all__ = [
    "DEFAULT_CHOICE",
    "ModelChoice",
    "ModelPicker",
    "PendingSources",
    "SourceBackend",
    "SourcesEditor",
    "detect_folder",
    "detect_source",
    "discover_choices",
    "model_choices",
]
