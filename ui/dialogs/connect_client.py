"""Connect a chat client: the exact MCP configuration for it, a copy button, and, where the
client's configuration file is on this machine, adding the entry after showing the diff.

A thin view over ``curator.mcp.clients``: nothing is written until the person has seen the
change and confirmed it, and the file is backed up first.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from curator.mcp.clients import (
    CLIENTS,
    ConfigEditError,
    EditPlan,
    apply_edit,
    config_for,
    found_config,
    plan_edit,
)
from ui.infra.interaction import Interaction


class ConnectClientDialog(QDialog):
    """Shows the configuration for the chosen client; offers to add it to a found config file."""

    def __init__(self, vault: Path, interaction: Interaction, user_id: str = "default",
                 home: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Connect a chat client")
        self.vault = Path(vault)
        self.user_id = user_id
        self.interaction = interaction
        self.home = home
        self.plan: EditPlan | None = None

        self.client_box = QComboBox()
        for key, client in CLIENTS.items():
            self.client_box.addItem(client.name, key)
        self.where = QLabel()
        self.where.setWordWrap(True)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.copy_button = QPushButton("Copy")
        self.found = QLabel()
        self.found.setWordWrap(True)
        self.diff_button = QPushButton("Show the change to this file…")
        self.add_button = QPushButton("Add to this file")
        self.add_button.setEnabled(False)

        buttons = QHBoxLayout()
        buttons.addWidget(self.copy_button)
        buttons.addStretch(1)
        buttons.addWidget(self.diff_button)
        buttons.addWidget(self.add_button)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Give a chat client this vault's memory (memory_search, memory_retrieve, "
                                "memory_save). What an agent saves waits in your review queue."))
        layout.addWidget(self.client_box)
        layout.addWidget(self.where)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.found)
        layout.addLayout(buttons)
        layout.addWidget(close)

        self.client_box.currentIndexChanged.connect(self._on_client_changed)
        self.copy_button.clicked.connect(self._on_copy_clicked)
        self.diff_button.clicked.connect(self._on_diff_clicked)
        self.add_button.clicked.connect(self._on_add_clicked)
        self.resize(640, 460)
        self._on_client_changed()

    @property
    def client(self) -> str:
        return str(self.client_box.currentData())

    def _on_client_changed(self) -> None:
        self.plan = None
        self.add_button.setEnabled(False)
        self.where.setText(CLIENTS[self.client].how)
        self.text.setPlainText(config_for(self.client, self.vault, self.user_id))
        path = found_config(self.client, self.home) if CLIENTS[self.client].json_key else None
        self.config_path = path
        self.found.setText(f"Found its configuration file: {path}" if path else
                           "No configuration file of this client was found here: paste the text above.")
        self.diff_button.setVisible(path is not None)
        self.add_button.setVisible(path is not None)

    def _on_copy_clicked(self) -> None:
        QGuiApplication.clipboard().setText(self.text.toPlainText())

    def _on_diff_clicked(self) -> None:
        if self.config_path is None:
            return
        try:
            self.plan = plan_edit(self.client, self.config_path, self.vault, self.user_id)
        except (ConfigEditError, OSError) as exc:
            self.interaction.inform("Cannot add the entry", str(exc))
            return
        if not self.plan.changes:
            self.text.setPlainText(f"{self.config_path} already holds this entry; nothing to change.")
            return
        self.text.setPlainText(self.plan.diff)
        self.add_button.setEnabled(True)

    def _on_add_clicked(self) -> None:
        plan = self.plan
        if plan is None:
            return
        backup = plan.path.with_name(plan.path.name + ".memory-curator.bak")
        if not self.interaction.confirm(
            "Add Memory Curator",
            f"Write the change shown to {plan.path}?\nThe current file is kept as {backup}.",
        ):
            return
        try:
            kept = apply_edit(plan)
        except (ConfigEditError, OSError) as exc:
            self.interaction.inform("Nothing written", str(exc))
            return
        self.plan = None
        self.add_button.setEnabled(False)
        self.interaction.inform("Added", f"Memory Curator was added to {plan.path}"
                                + (f" (backup: {kept})" if kept else "") + ". Restart the client to use it.")
