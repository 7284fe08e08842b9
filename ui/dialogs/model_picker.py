"""The model picker: GGUF models found on this machine, ranked for reflection, best fit marked.

Discovery and ranking are engine functions (``curator.llm.discovery``, ``curator.llm.fitness``)
run on the ``OpRunner`` worker; this widget only shows their answer and the person's choice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from curator.llm.discovery import SOURCE_DEFAULT, SOURCE_FILE, DiscoveredModel, describe_model
from curator.llm.fitness import LARGER_MODEL_NOTE
from ui.infra.interaction import Interaction
from ui.infra.resources import set_role
from ui.infra.workers import OpRunner
from ui.models.records import Column, ItemRole, RecordTableModel

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
    # From curator.llm.fitness: rank order, whether it fits free memory, the expected
    # seconds per batch and the reasons; ``best`` marks the one to preselect.
    rank: int = 0
    fits: bool = True
    seconds_per_batch: float | None = None
    fitness: str = ""
    best: bool = False

    @property
    def ok(self) -> bool:
        return not self.error

    @property
    def is_default(self) -> bool:
        return self.value == ""


def _choice(model: DiscoveredModel, value: str | None = None) -> ModelChoice:
    path = str(model.path)
    return ModelChoice(
        value=path if value is None else value, name=model.name or Path(path).name, path=path,
        size=model.size, quantization=model.quantization, context_length=model.context_length,
        source=model.source, note=model.recommended, error=model.error)


DEFAULT_CHOICE = ModelChoice("", "Bundled default model", source=SOURCE_DEFAULT)


def model_choices(models: Sequence[DiscoveredModel], current: str = "",
                  current_model: DiscoveredModel | None = None) -> list[ModelChoice]:
    """Picker entries: the bundled default first (value ""), usable models, then unusable ones.

    ``current`` (the ``model.path`` in use) is always listed: from ``models`` when found
    there, else from ``current_model`` (its described header) or as a bare path.
    """
    default = next((m for m in models if m.source == SOURCE_DEFAULT), None)
    entries = [_choice(default, "") if default is not None else DEFAULT_CHOICE]
    others = [_choice(m) for m in models if m is not default]
    entries += [c for c in others if c.ok] + [c for c in others if not c.ok]
    if current and not any(_same_file(c.value, current) for c in entries):
        entries.append(_choice(current_model, current) if current_model is not None
                       else ModelChoice(current, Path(current).name, path=current, source=SOURCE_FILE))
    return entries


def discover_choices(discover: Callable[[], Sequence[DiscoveredModel]], current: str = "") -> list[ModelChoice]:
    """Run discovery, rank by fitness and build the picker's entries (worker thread: reads headers).

    Entries come best first (the engine's ranking, ``curator.llm.fitness``); files that
    cannot be read come last.
    """
    from curator.llm.fitness import best_fit, rank

    models = list(discover())
    current_model = None
    if current and not any(_same_file(str(m.path), current) for m in models):
        current_model = describe_file(current)
    choices = model_choices(models, current, current_model)
    ranked = rank([m for m in models] + ([current_model] if current_model is not None else []))
    best = best_fit(ranked)
    by_path = {str(f.model.path): (position, f) for position, f in enumerate(ranked)}
    out = []
    for choice in choices:
        found = by_path.get(choice.path)
        if found is None:
            out.append(replace(choice, rank=len(ranked)))
            continue
        position, fitness = found
        out.append(replace(choice, rank=position, fits=fitness.fits, seconds_per_batch=fitness.seconds_per_batch,
                           fitness=fitness.summary(), best=best is not None and fitness is best))
    return sorted(out, key=lambda c: (not c.ok, c.rank))


def describe_file(path: str) -> DiscoveredModel:
    """The discovery record of one GGUF file the person chose (worker thread)."""
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
    if choice.best:
        return "★ best fit here"
    if not choice.fits:
        return "too large for free memory"
    return "recommended" if choice.note and not choice.is_default else ""


def _per_batch(choice: ModelChoice) -> str:
    return f"~{choice.seconds_per_batch:.0f} s" if choice.seconds_per_batch is not None else ""


MODEL_COLUMNS: list[Column[ModelChoice]] = [
    Column(
        "Model",
        lambda c: c.name + ("  (default)" if c.is_default else ""),
        tooltip=lambda c: c.error or c.path or "the bundled default model",
    ),
    Column("Quant", lambda c: c.quantization, tooltip=lambda c: c.error),
    Column("Size", _size, tooltip=lambda c: c.error, sort_key=lambda c: c.size),
    Column("Context", lambda c: c.context_length or "", tooltip=lambda c: c.error),
    Column(
        "Per batch",
        _per_batch,
        tooltip=lambda c: (
            "Expected time per batch reflection on this machine"
            " (an estimate scaled from a measured 34 s for a 1.5B Q4_K_M model on 2 cores)"
        ),
    ),
    Column("Found in", lambda c: c.source, tooltip=lambda c: c.error),
    Column(
        "Note",
        _note,
        tooltip=lambda c: (
            c.error or c.fitness or (f"in the catalogue as {c.note}" if c.note else "")
        ),
    ),
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
                 discover: Callable[[], Sequence[DiscoveredModel]] | None, current: str = "",
                 parent: QWidget | None = None, preselect_best: bool = False) -> None:
        super().__init__(parent)
        self._preselect_best = preselect_best
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
        set_role(self.status, "meta")
        self.other_button = QPushButton("Other file…")
        self.other_button.setObjectName("other_model")
        self.other_button.setEnabled(runner is not None and interaction is not None)
        self.larger_note = QLabel(LARGER_MODEL_NOTE)
        self.larger_note.setObjectName("larger_model_note")
        set_role(self.larger_note, "meta")
        self.larger_note.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.status, 1)
        row.addWidget(self.other_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addLayout(row)
        layout.addWidget(self.larger_note)
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
        best = next((c for c in choices if c.best), None)
        self._show(choices, best.value if best is not None and self._preselect_best else None)
        usable = sum(1 for c in choices if c.ok and (c.path or not c.is_default))
        text = f"{usable} usable model(s) found, best suited first."
        if best is not None:
            text += f" Best fit here: {best.name}" + (f" (~{best.seconds_per_batch:.0f} s per batch)."
                                                     if best.seconds_per_batch is not None else ".")
        if not all(c.ok for c in choices):
            text += " Greyed-out files cannot be read (hover for why)."
        self.status.setText(text)
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


