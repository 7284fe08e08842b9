"""Editors shared by the first-run assistant and the settings dialog: sources and the model.

``SourcesEditor`` lists watched sources and adds/removes them through a ``SourceBackend``
(the engine in the settings dialog, an in-memory list in the assistant). ``ModelPicker``
lists the GGUF models discovery finds, the bundled default first. Both run engine calls
(adapter detection, discovery, GGUF headers, vault writes) on the ``OpRunner`` worker and
ask for folders and files through the ``Interaction`` port, never a dialog of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import Qt, Signal
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

from curator.llm.discovery import SOURCE_DEFAULT, SOURCE_FILE
from curator.settings import SourceConfig
from ui.interaction import Interaction
from ui.models.records import Column, ItemRole, RecordTableModel
from ui.models.sources_model import SourcesModel
from ui.workers import OpRunner

# ---- Sources


class SourceBackend(Protocol):
    """Where sources live. ``add``/``remove`` run on the worker thread and return the new list."""

    def list(self) -> list[SourceConfig]: ...

    def add(self, path: str, adapter: str | None, user_id: str) -> list[SourceConfig]: ...

    def remove(self, source: SourceConfig) -> list[SourceConfig]: ...


def detect_source(path: Path, user_id: str) -> SourceConfig:
    """A source for ``path`` with its adapter detected by the engine (raises when none fits)."""
    from curator.adapters import detect_adapter

    adapter, _score = detect_adapter(path)
    return SourceConfig(path=str(path), adapter=adapter, user_id=user_id or "default")


def detect_folder(path: str) -> tuple[str, str, float]:
    """``(path, adapter, score)`` for a folder, or the engine's error (missing folder, no adapter)."""
    from curator.adapters import detect_adapter
    from curator.engine import SourceError

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

    def add(self, path: str, adapter: str | None, user_id: str) -> list[SourceConfig]:
        from curator.engine import SourceError
        from curator.vault_paths import validate_user_id

        root = Path(path).expanduser()
        if not root.exists():
            raise SourceError(f"{root} does not exist")
        user = validate_user_id(user_id or "default")
        if any(Path(s.path).expanduser().resolve() == root.resolve() for s in self._sources):
            raise SourceError(f"{root} is already a source")
        source = detect_source(root, user) if adapter is None else SourceConfig(str(root), adapter, user)
        self._sources.append(source)
        return self.list()

    def remove(self, source: SourceConfig) -> list[SourceConfig]:
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

    def __init__(self, runner: OpRunner | None, interaction: Interaction | None, backend: SourceBackend,
                 confirm_remove: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._runner = runner
        self._interaction = interaction
        self._backend = backend
        self._confirm_remove = confirm_remove
        self._detected: tuple[str, str] | None = None  # (path, adapter)

        self.model = SourcesModel(self)
        self.model.set_records(backend.list())
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
        self.message.setProperty("role", "error")

        buttons = QHBoxLayout()
        buttons.addWidget(self.add_folder_button)
        buttons.addWidget(self.remove_button)
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
        layout.addWidget(self.message)

        enabled = runner is not None
        for widget in (self.add_folder_button, self.path_edit, self.user_edit):
            widget.setEnabled(enabled)
        self.add_folder_button.clicked.connect(self._on_add_folder_button_clicked)
        self.add_button.clicked.connect(self._on_add_button_clicked)
        self.remove_button.clicked.connect(self._on_remove_button_clicked)
        self.path_edit.editingFinished.connect(self._on_path_edit_editing_finished)
        self.path_edit.textEdited.connect(self._on_path_edit_text_edited)
        self.view.selectionModel().selectionChanged.connect(self._on_view_selection_changed)

    # ---- Public API

    def sources(self) -> list[SourceConfig]:
        return self.model.records()

    def detect(self, path: str) -> None:
        """Detect the adapter of ``path`` in the background; ``detected`` or ``failed`` follows."""
        if self._runner is None or not path:
            return
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

    def _on_detect_failed(self, error: BaseException) -> None:
        self.adapter_label.setText("adapter: —")
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
        self.remove_button.setEnabled(False)
        self.sources_changed.emit(list(sources))

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

    def _on_add_button_clicked(self) -> None:
        path = self.path_edit.text().strip()
        adapter = self._detected[1] if self._detected and self._detected[0] == path else None
        self.add_source(path, self.user_edit.text(), adapter)

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


# ---- Model


@dataclass(frozen=True)
class ModelChoice:
    """One entry of the model picker; ``value`` is what ``model.path`` stores ("" = bundled default)."""

    value: str
    name: str
    path: str = ""
    size: int = 0
    quantization: str = ""
    context_length: int | None = None
    source: str = ""
    note: str = ""
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error

    @property
    def is_default(self) -> bool:
        return self.value == ""


def _choice(model: Any, value: str | None = None) -> ModelChoice:
    path = str(getattr(model, "path", "") or "")
    return ModelChoice(
        value=path if value is None else value, name=str(getattr(model, "name", "") or Path(path).name),
        path=path, size=int(getattr(model, "size", 0) or 0), quantization=str(getattr(model, "quantization", "") or ""),
        context_length=getattr(model, "context_length", None), source=str(getattr(model, "source", "") or ""),
        note=str(getattr(model, "recommended", "") or ""), error=str(getattr(model, "error", "") or ""))


DEFAULT_CHOICE = ModelChoice("", "Bundled default model", source=SOURCE_DEFAULT)


def model_choices(models: Sequence[Any], current: str = "", current_model: Any = None) -> list[ModelChoice]:
    """Picker entries: the bundled default first (value ""), usable models, then unusable ones.

    ``current`` (the ``model.path`` in use) is always listed: from ``models`` when found
    there, else from ``current_model`` (its described header) or as a bare path.
    """
    default = next((m for m in models if getattr(m, "source", "") == SOURCE_DEFAULT), None)
    entries = [_choice(default, "") if default is not None else DEFAULT_CHOICE]
    others = [_choice(m) for m in models if m is not default]
    entries += [c for c in others if c.ok] + [c for c in others if not c.ok]
    if current and not any(_same_file(c.value, current) for c in entries):
        entries.append(_choice(current_model, current) if current_model is not None
                       else ModelChoice(current, Path(current).name, path=current, source=SOURCE_FILE))
    return entries


def discover_choices(discover: Callable[[], Sequence[Any]], current: str = "") -> list[ModelChoice]:
    """Run discovery and build the picker's entries (worker thread: reads GGUF headers)."""
    models = list(discover())
    current_model = None
    if current and not any(_same_file(str(getattr(m, "path", "")), current) for m in models):
        current_model = describe_file(current)
    return model_choices(models, current, current_model)


def describe_file(path: str) -> Any:
    """The discovery record of one GGUF file the person chose (worker thread)."""
    from curator.llm.discovery import describe_model

    return describe_model(Path(path).expanduser(), SOURCE_FILE)


def _same_file(a: str, b: str) -> bool:
    if not a or not b:
        return a == b
    try:
        return Path(a).expanduser().resolve() == Path(b).expanduser().resolve()
    except OSError:
        return a == b


def _size(choice: ModelChoice) -> str:
    if not choice.size:
        return ""
    if choice.size >= 1e9:
        return f"{choice.size / 1e9:.2f} GB"
    return f"{choice.size / 1e6:.0f} MB" if choice.size >= 1e6 else f"{max(choice.size / 1e3, 1):.0f} kB"


def _note(choice: ModelChoice) -> str:
    if choice.error:
        return "cannot be read"
    return "recommended" if choice.note and not choice.is_default else ""


MODEL_COLUMNS: list[Column[ModelChoice]] = [
    Column("Model", lambda c: c.name + ("  (default)" if c.is_default else ""),
           tooltip=lambda c: c.error or c.path or "the bundled default model"),
    Column("Quant", lambda c: c.quantization, tooltip=lambda c: c.error),
    Column("Size", _size, tooltip=lambda c: c.error, sort_key=lambda c: c.size),
    Column("Context", lambda c: c.context_length or "", tooltip=lambda c: c.error),
    Column("Found in", lambda c: c.source, tooltip=lambda c: c.error),
    Column("Note", _note, tooltip=lambda c: c.error or (f"in the catalogue as {c.note}" if c.note else "")),
]


class ModelPicker(QWidget):
    """The discovered GGUF models, the one in use selected; "Other file…" adds any GGUF file.

    ``value()`` is the ``model.path`` to store. Models with an invalid header are listed,
    disabled, with their error as tooltip. Signals: ``models_loaded(int)`` when discovery is
    done, ``value_changed(str)``. Without a runner or ``discover`` no search is made.
    """

    models_loaded = Signal(int)
    value_changed = Signal(str)

    def __init__(self, runner: OpRunner | None, interaction: Interaction | None,
                 discover: Callable[[], Sequence[Any]] | None, current: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._runner = runner
        self._interaction = interaction
        self._discover = discover
        self._current = current
        self.model: RecordTableModel[ModelChoice] = RecordTableModel(MODEL_COLUMNS, self, enabled=lambda c: c.ok)
        self.view = QTableView()
        self.view.setObjectName("models_table")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.verticalHeader().hide()
        self.view.setMinimumHeight(160)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, len(MODEL_COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.status = QLabel("Looking for GGUF models…" if runner is not None and discover is not None else "")
        self.status.setProperty("role", "meta")
        self.other_button = QPushButton("Other file…")
        self.other_button.setObjectName("other_model")
        self.other_button.setEnabled(runner is not None and interaction is not None)
        row = QHBoxLayout()
        row.addWidget(self.status, 1)
        row.addWidget(self.other_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addLayout(row)
        self.other_button.clicked.connect(self._on_other_button_clicked)
        self.view.selectionModel().currentRowChanged.connect(self._on_view_current_row_changed)
        self._show(model_choices([], current))
        self.refresh()

    # ---- Public API

    def value(self) -> str:
        """The selected model's ``model.path`` value (the one in use while nothing is selected)."""
        choice = self.selected()
        return self._current if choice is None else choice.value

    def selected(self) -> ModelChoice | None:
        index = self.view.currentIndex()
        return index.siblingAtColumn(0).data(ItemRole) if index.isValid() else None

    def set_value(self, value: str) -> bool:
        """Select the entry storing ``value``; False when it is not listed or not usable."""
        row = self.model.row_of(lambda c: _same_file(c.value, value))
        choice = self.model.record(row)
        if choice is None or not choice.ok:
            return False
        self.view.selectRow(row)
        return True

    def refresh(self) -> None:
        """Search for models again (worker thread)."""
        if self._runner is None or self._discover is None:
            return
        discover, current = self._discover, self.value()
        self._runner.submit("discover models", lambda: discover_choices(discover, current), self._on_models_found,
                            lambda e: self.status.setText(f"Model search failed: {e}"), latest_only="discover-models")

    def add_file(self, path: str) -> None:
        """Describe a GGUF file the person chose (worker thread), list it and select it if usable."""
        if self._runner is None or not path:
            return
        self._runner.submit("read model header", lambda: _choice(describe_file(path)), self._on_file_described,
                            lambda e: self.status.setText(f"Cannot read {path}: {e}"))

    # ---- Results

    def _show(self, choices: list[ModelChoice], select: str | None = None) -> None:
        wanted = self.value() if select is None else select
        self.model.set_records(choices)
        if not self.set_value(wanted):
            self.view.setCurrentIndex(self.model.index(-1, -1))  # keep the value in use, unselected

    def _on_models_found(self, choices: list[ModelChoice]) -> None:
        self._show(choices)
        usable = sum(1 for c in choices if c.ok and (c.path or not c.is_default))
        self.status.setText(f"{usable} usable model(s) found." + (
            "" if all(c.ok for c in choices) else " Greyed-out files cannot be read (hover for why)."))
        self.models_loaded.emit(len(choices))

    def _on_file_described(self, choice: ModelChoice) -> None:
        choices = [c for c in self.model.records() if not _same_file(c.value, choice.value)] + [choice]
        if choice.ok:
            self._show(choices, choice.value)
            self.status.setText(f"Added {choice.path}.")
        else:
            self._show(choices)
            self.status.setText(f"{choice.name} cannot be used: {choice.error}")

    # ---- Controllers

    def _on_other_button_clicked(self) -> None:
        if self._interaction is None:
            return
        start = str(Path(self.value()).parent) if self.value() else str(Path.home())
        path = self._interaction.choose_file("GGUF model file", start, "GGUF models (*.gguf);;All files (*)")
        if path:
            self.add_file(path)

    def _on_view_current_row_changed(self, *_args: Any) -> None:
        self.value_changed.emit(self.value())


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
