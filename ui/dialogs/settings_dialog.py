"""The settings dialog, generated from ``curator.vault.settings.OPTIONS`` (one tab per option group).

No option is declared here: each row's editor, range, default and tooltip come from its
``Option``; ``model.path`` gets the model picker (discovered GGUF models). The dialog only
collects option values; the caller applies them through the engine when it is accepted.

The first tab manages the watched sources (``settings.sources``). Sources are not options:
adding or removing one is applied at once through the engine (on the worker thread), so its
error (a missing folder, no adapter recognised, already a source, inside the vault) shows
in the tab while the folder is still in view. OK / Cancel concern the options only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from curator.llm.discovery import DiscoveredModel
from curator.vault.settings import OPTIONS, Option, Settings
from ui.dialogs.client_send import ClientSendBackend, ClientSendEditor
from ui.dialogs.setup_widgets import ModelPicker, PendingSources, SourceBackend, SourcesEditor
from ui.infra.interaction import Interaction
from ui.infra.resources import set_role
from ui.infra.workers import OpRunner

SOURCES_TITLE = "Sources"
MODEL_PICKER_KEY = "model.path"
GROUP_TITLES = {
    "triggers": "Triggers",
    "reflection": "Reflection",
    "model": "Model",
    "watching": "Watching",
    "general": "General",
}
_BIG = 1_000_000_000
SEND_GROUP = "sources"  # options shown in the Sources tab, under the clients memory is sent to


def _label(option: Option) -> str:
    section, _, name = option.key.partition(".")
    return f"{section} · {name.replace('_', ' ')}"


def editor_for(option: Option, value: Any) -> QWidget:
    """A widget that edits ``option``, showing ``value``."""
    if option.type is bool:
        box = QCheckBox()
        box.setChecked(bool(value))
        return box
    if option.type is int:
        spin = QSpinBox()
        spin.setRange(int(option.minimum if option.minimum is not None else -_BIG),
                      int(option.maximum if option.maximum is not None else _BIG))
        spin.setValue(int(value))
        return spin
    if option.type is float:
        dspin = QDoubleSpinBox()
        dspin.setDecimals(2)
        dspin.setRange(float(option.minimum if option.minimum is not None else -_BIG),
                       float(option.maximum if option.maximum is not None else _BIG))
        dspin.setValue(float(value))
        return dspin
    if option.choices:
        combo = QComboBox()
        combo.addItems(list(option.choices))
        combo.setCurrentText(str(value))
        return combo
    line = QLineEdit(str(value))
    line.setPlaceholderText(f"default: {option.default!r}" if option.default != "" else "(empty)")
    return line


def editor_value(option: Option, widget: QWidget) -> Any:
    """The value currently shown by an editor made by ``editor_for`` (or the model picker)."""
    if isinstance(widget, ModelPicker):
        return widget.value()
    if isinstance(widget, QCheckBox):
        return widget.isChecked()
    if isinstance(widget, QSpinBox):
        return widget.value()
    if isinstance(widget, QDoubleSpinBox):
        return round(widget.value(), 6)
    if isinstance(widget, QComboBox):
        return widget.currentText()
    if isinstance(widget, QLineEdit):
        return widget.text()
    raise TypeError(f"no editor value for {type(widget).__name__}")


class SettingsDialog(QDialog):
    """A Sources tab, then every option of ``OPTIONS`` grouped by ``Option.group``.

    The caller shows it (``open()``), and on ``accepted`` applies ``changed_values()`` with
    the engine; tests set editors through ``editors`` and call ``accept()``. ``sources`` is
    where sources are added/removed at once (``ui.services.facade.SourcesService`` for the engine);
    ``discover`` lists GGUF models for the model picker (run on ``runner``). Without a
    runner the dialog is read-only for sources and makes no model search.
    Signal: ``sources_changed(list)`` after a source was added or removed.
    """

    sources_changed = Signal(list)

    def __init__(self, settings: Settings, parent: QWidget | None = None, *, runner: OpRunner | None = None,
                 interaction: Interaction | None = None, sources: SourceBackend | None = None,
                 discover: Callable[[], Sequence[DiscoveredModel]] | None = None,
                 send: ClientSendBackend | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.resize(820, 720)
        self._settings = settings
        self.editors: dict[str, QWidget] = {}
        self.tabs = QTabWidget()

        self.sources_editor = SourcesEditor(runner, interaction, sources or PendingSources(settings.sources),
                                            confirm_remove=True)
        self.sources_editor.sources_changed.connect(self.sources_changed)
        sources_page = QWidget()
        sources_layout = QVBoxLayout(sources_page)
        intro = QLabel("Folders whose conversations are read. The format (adapter) is detected from the folder's"
                       " contents; each source belongs to a user id. Adding or removing a source takes effect at"
                       " once; removing one keeps its conversations and memories in the vault.")
        intro.setWordWrap(True)
        set_role(intro, "meta")
        read_box = QGroupBox("Chats read")
        read_layout = QVBoxLayout(read_box)
        read_layout.addWidget(intro)
        read_layout.addWidget(self.sources_editor, 1)
        self.sources_editor.view.setMinimumHeight(70)
        sources_layout.addWidget(read_box, 1)

        self.send_editor = ClientSendEditor(runner, interaction, send)
        send_box = QGroupBox("Memory sent to your chat clients")
        send_layout = QVBoxLayout(send_box)
        send_intro = QLabel("Tick a client to keep its own memory place in step with what you approve: core memory "
                            "first, then your approved memories by quality. The curator writes only a file of its "
                            "own there, shows the change first, and can undo it. All off until you turn one on.")
        send_intro.setWordWrap(True)
        set_role(send_intro, "meta")
        send_layout.addWidget(send_intro)
        send_layout.addWidget(self.send_editor, 1)
        send_form = QGridLayout()  # two columns: the sizes and folders fit under the clients
        send_layout.addLayout(send_form)
        sources_layout.addWidget(send_box, 2)
        self.tabs.addTab(sources_page, SOURCES_TITLE)

        self.model_picker = ModelPicker(runner, interaction, discover, str(settings[MODEL_PICKER_KEY]))
        groups: dict[str, list[Option]] = {}
        send_cells = 0
        for option in OPTIONS:
            if option.group == SEND_GROUP:
                # The switches act at once, after the diff (ClientSendEditor); the sizes and folders
                # are options like any other, applied with OK.
                if option.type is not bool:
                    editor = editor_for(option, settings[option.key])
                    editor.setToolTip(f"{option.help}\n\nkey: {option.key} · default: {option.default!r}")
                    editor.setObjectName(option.key)
                    self.editors[option.key] = editor
                    label = QLabel(_label(option))
                    label.setToolTip(option.help)
                    send_form.addWidget(label, send_cells // 2, (send_cells % 2) * 2)
                    send_form.addWidget(editor, send_cells // 2, (send_cells % 2) * 2 + 1)
                    send_cells += 1
                continue
            groups.setdefault(option.group, []).append(option)
        for group, options in groups.items():
            page = QWidget()
            form = QFormLayout(page)
            form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
            for option in options:
                editor = (self.model_picker if option.key == MODEL_PICKER_KEY
                          else editor_for(option, settings[option.key]))
                editor.setToolTip(f"{option.help}\n\nkey: {option.key} · default: {option.default!r}")
                editor.setObjectName(option.key)
                self.editors[option.key] = editor
                label = QLabel(_label(option))
                label.setToolTip(option.help)
                form.addRow(label, editor)
                hint = QLabel(option.help)
                hint.setWordWrap(True)
                set_role(hint, "meta")
                form.addRow("", hint)
            scroll = QScrollArea()
            scroll.setWidgetResizable(True)
            scroll.setWidget(page)
            self.tabs.addTab(scroll, GROUP_TITLES.get(group, group.title()))
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.RestoreDefaults
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        restore = self.buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults)
        restore.clicked.connect(self._on_restore_clicked)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(self.buttons, alignment=Qt.AlignmentFlag.AlignRight)

    # ---- Public API

    def values(self) -> dict[str, Any]:
        """Every option's value as shown."""
        by_key = {o.key: o for o in OPTIONS}
        return {key: editor_value(by_key[key], widget) for key, widget in self.editors.items()}

    def changed_values(self) -> dict[str, Any]:
        """Only the options whose shown value differs from the settings it was opened with."""
        return {k: v for k, v in self.values().items() if v != self._settings[k]}

    # ---- Controllers

    def _on_restore_clicked(self) -> None:
        for option in (o for o in OPTIONS if o.key in self.editors):
            old = self.editors[option.key]
            if isinstance(old, ModelPicker):
                old.set_value(str(option.default))
                continue
            new = editor_for(option, option.default)
            if isinstance(old, QCheckBox) and isinstance(new, QCheckBox):
                old.setChecked(new.isChecked())
            elif isinstance(old, (QSpinBox, QDoubleSpinBox)):
                old.setValue(option.default)
            elif isinstance(old, QComboBox):
                old.setCurrentText(str(option.default))
            elif isinstance(old, QLineEdit):
                old.setText(str(option.default))
            new.deleteLater()
