"""First-run assistant: choose the vault, add watched sources (adapter detected), pick the model.

The wizard only collects answers; ``FirstRunResult`` is applied by the app through the
engine's settings API. The source and model pages are the editors the settings dialog uses
too (``ui.dialogs.setup_widgets``): adapter detection and model discovery are engine functions run
off the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWizard,
    QWizardPage,
)

from curator.vault.person import FALLBACK, account_full_name
from curator.vault.settings import SourceConfig
from ui.dialogs.setup_widgets import ModelPicker, PendingSources, SourcesEditor, detect_source
from ui.infra.interaction import DialogInteraction, Interaction
from ui.infra.workers import OpRunner

__all__ = ["FirstRunResult", "FirstRunWizard", "detect_source", "find_clients"]

NO_SOURCE = "Finish without a source (add one later in Settings)"
ClientFinder = Callable[[], list[tuple[str, str]]]


def find_clients() -> list[tuple[str, str]]:
    """Chat clients found on this machine as (name, folder) pairs (worker thread).

    The engine's client discovery (``curator source discover``).
    """
    from curator.sources.discovery import discover_clients

    pairs = []
    for client in discover_clients():
        if not client.supported:
            continue  # found but not readable (GPT4All's binary chats, an unknown schema)
        if client.path:
            pairs.append((client.client or "chat client", client.path))
    return pairs


@dataclass
class FirstRunResult:
    """What the person chose."""

    vault: Path
    sources: list[SourceConfig] = field(default_factory=list)
    model_path: str = ""
    person_name: str = ""  # what memories call the person where a chat stores no name


class FirstRunWizard(QWizard):
    """Three pages: vault, sources, model. Signals: ``finished_with(FirstRunResult)``.

    Tests fill the widgets and call ``accept()``; the app opens it with ``open()``.
    """

    finished_with = Signal(object)

    def __init__(self, runner: OpRunner, default_vault: Path, parent: Any = None,
                 interaction: Interaction | None = None, clients: ClientFinder = find_clients) -> None:
        super().__init__(parent)
        self._clients: list[tuple[str, str]] = []
        self.setWindowTitle("Welcome to Memory Curator")
        self.setWizardStyle(QWizard.WizardStyle.ClassicStyle)
        self.resize(720, 520)
        self._runner = runner
        self._interaction: Interaction = interaction or DialogInteraction(self)

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
        vault_layout = QVBoxLayout(vault_page)
        vault_layout.addLayout(row)
        # Most chat clients save "user" and no name; memories need one ("Alex works nights").
        self.name_edit = QLineEdit(account_full_name())
        self.name_edit.setObjectName("person_name")
        self.name_edit.setPlaceholderText(f"empty: memories say “{FALLBACK}”")
        name_row = QHBoxLayout()
        name_row.addWidget(QLabel("What should memories call you?"))
        name_row.addWidget(self.name_edit, 1)
        vault_layout.addSpacing(12)
        vault_layout.addLayout(name_row)
        vault_layout.addStretch(1)

        # Page 2: sources (collected here, added to the vault by the app once it exists)
        sources_page = QWizardPage()
        sources_page.setTitle("Which conversations should be watched?")
        sources_page.setSubTitle("Add the folders where your chat client saves conversations. The format is"
                                 " detected from the folder's contents; each source belongs to a user id.")
        self.sources_editor = SourcesEditor(runner, self._interaction, PendingSources())
        self.source_user = self.sources_editor.user_edit
        self.source_error = self.sources_editor.message
        QVBoxLayout(sources_page).addWidget(self.sources_editor)

        # Page 3: model
        model_page = QWizardPage()
        model_page.setTitle("Which model should reflect?")
        model_page.setSubTitle("GGUF models found on this machine. The bundled default is small and weak but"
                               " works offline; a bigger model you already have will propose better memories.")
        from curator.llm.discovery import discover_models

        self.model_picker = ModelPicker(runner, self._interaction, discover_models, "", preselect_best=True)
        self.models = self.model_picker.model
        self.models_view = self.model_picker.view
        self.models_status = self.model_picker.status
        QVBoxLayout(model_page).addWidget(self.model_picker)

        self.addPage(vault_page)
        self.addPage(sources_page)
        self.addPage(model_page)
        self.sources_page = sources_page
        self.accepted.connect(self._on_accepted)
        runner.submit("find chat clients", clients, self._on_clients_found, lambda _e: None)

    # ---- Public API

    @property
    def sources(self) -> list[SourceConfig]:
        return self.sources_editor.sources()

    def result_value(self) -> FirstRunResult:
        return FirstRunResult(Path(self.vault_edit.text().strip()).expanduser(), self.sources,
                              self.selected_model_path(), " ".join(self.name_edit.text().split()))

    def selected_model_path(self) -> str:
        """The ``model.path`` to store ("" means the bundled default)."""
        return self.model_picker.value()

    def add_source(self, path: str, user_id: str) -> None:
        """Detect the adapter of ``path`` (in the background) and add it to the list."""
        self.sources_editor.add_source(path, user_id)

    # ---- Qt overrides

    def accept(self) -> None:
        """Override: finishing with no source asks first, and offers the clients found."""
        if not self.sources and not self._confirm_no_source():
            return
        super().accept()

    # ---- Controllers

    def _on_clients_found(self, clients: list[tuple[str, str]]) -> None:
        self._clients = list(clients)

    def _confirm_no_source(self) -> bool:
        """True to finish as is; False to stay (a client was added, or the person went back)."""
        text = ("No conversation folder is watched yet, so nothing will be proposed until you add one"
                " (Settings → Sources).")
        if not self._clients:
            return self._interaction.confirm("No source added", text + "\n\nFinish anyway?")
        options = [f"Watch {name}: {path}" for name, path in self._clients] + [NO_SOURCE]
        choice = self._interaction.choose("No source added", text + "\nThese chat clients were found:", options)
        if choice is None:
            return False
        if choice == NO_SOURCE:
            return True
        _name, path = self._clients[options.index(choice)]
        self.add_source(path, self.source_user.text() or "default")
        self.sources_editor.sources_changed.connect(self._on_client_added_then_finish)
        return False

    def _on_client_added_then_finish(self, _sources: list[Any]) -> None:
        self.sources_editor.sources_changed.disconnect(self._on_client_added_then_finish)
        if self.sources:
            self.accept()

    def _on_browse_vault_clicked(self) -> None:
        folder = self._interaction.choose_folder("Vault folder", self.vault_edit.text())
        if folder:
            self.vault_edit.setText(folder)

    def _on_accepted(self) -> None:
        self.finished_with.emit(self.result_value())
