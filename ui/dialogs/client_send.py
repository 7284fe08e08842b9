"""Settings > Sources: memory sent to the person's chat clients, one switch each (off by default).

Turning a switch on shows, first, the diff of what would be written to that client's own
memory place; only after the person says yes is it written, and from then on the app keeps
it in step. Turning it off shows what taking back would change. "Undo last write" puts the
client's files back as they were before the curator's last write. Every plan, write and
undo runs on the worker thread (``ClientSendBackend``); this widget only shows and asks.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ui.infra.interaction import Interaction
from ui.infra.resources import set_role
from ui.infra.workers import OpRunner

KEY_ROLE = Qt.ItemDataRole.UserRole


class ClientSendBackend(Protocol):
    """The engine's client memory, for this widget (every method runs on the worker thread)."""

    def rows(self) -> list[dict[str, Any]]: ...

    def plan(self, key: str, take_back: bool) -> Any: ...

    def switch(self, key: str, on: bool, plan: Any) -> list[dict[str, Any]]: ...

    def undo_plan(self, key: str) -> Any: ...

    def apply(self, plan: Any) -> list[dict[str, Any]]: ...

    def set_api_key(self, key: str, value: str) -> list[dict[str, Any]]: ...

    def writes(self, key: str) -> list[tuple[str, str]]: ...


class ClientSendEditor(QWidget):
    """One row per client: its switch, where its memory place is, the diff, undo."""

    changed = Signal()

    def __init__(self, runner: OpRunner | None, interaction: Interaction | None, backend: ClientSendBackend | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._runner = runner
        self._interaction = interaction
        self._backend = backend
        self._rows: dict[str, dict[str, Any]] = {}
        self._updating = False
        self._detail_key: str | None = None  # the client whose diff is shown

        self.list = QListWidget()
        self.list.setObjectName("send_clients")
        self.detail = QLabel("")
        self.detail.setObjectName("send_detail")
        self.detail.setWordWrap(True)
        set_role(self.detail, "meta")
        self.diff = QPlainTextEdit()
        self.diff.setObjectName("send_diff")
        self.diff.setReadOnly(True)
        self.diff.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.diff.setPlaceholderText("The change to the client's file is shown here before anything is written.")
        self.preview_button = QPushButton("Show what would be written")
        self.preview_button.setObjectName("send_preview")
        self.writes_button = QPushButton("Recent writes")
        self.writes_button.setObjectName("send_writes")
        self.writes_button.setToolTip("What the curator wrote to this client, newest first, as diffs")
        self.undo_button = QPushButton("Undo last write")
        self.undo_button.setObjectName("send_undo")
        self.key_button = QPushButton("API key…")
        self.key_button.setObjectName("send_api_key")
        self.key_button.setToolTip("Open WebUI: Settings > Account > API keys. Kept in the vault, readable by "
                                   "you only.")
        self.key_button.setVisible(False)
        self.message = QLabel("")
        self.message.setObjectName("send_message")
        self.message.setWordWrap(True)

        # The clients on the left, the chosen one's place and diff on the right: both stay in
        # view on a short screen.
        self.list.setMinimumWidth(260)
        self.list.setMinimumHeight(150)
        self.diff.setMinimumHeight(60)
        buttons = QHBoxLayout()
        buttons.addWidget(self.preview_button)
        buttons.addWidget(self.writes_button)
        buttons.addWidget(self.undo_button)
        buttons.addWidget(self.key_button)
        buttons.addStretch(1)
        right = QVBoxLayout()
        right.addWidget(self.detail)
        right.addWidget(self.diff, 1)
        right.addLayout(buttons)
        row = QHBoxLayout()
        row.addWidget(self.list, 2)
        row.addLayout(right, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row, 1)
        layout.addWidget(self.message)

        usable = runner is not None and backend is not None
        for widget in (self.list, self.preview_button, self.writes_button, self.undo_button):
            widget.setEnabled(usable)
        self.list.itemChanged.connect(self._on_list_item_changed)
        self.list.currentItemChanged.connect(self._on_list_current_item_changed)
        self.preview_button.clicked.connect(self._on_preview_button_clicked)
        self.undo_button.clicked.connect(self._on_undo_button_clicked)
        self.writes_button.clicked.connect(self._on_writes_button_clicked)
        self.key_button.clicked.connect(self._on_key_button_clicked)
        if usable:
            self.reload()

    # ---- Public API

    def reload(self) -> None:
        """Read the clients and their switches again (worker thread)."""
        if self._runner is not None and self._backend is not None:
            self._runner.submit("clients", self._backend.rows, self._show_rows, self._on_failed)

    def current_key(self) -> str | None:
        item = self.list.currentItem()
        return str(item.data(KEY_ROLE)) if item is not None else None

    # ---- GUI-thread side

    def _show_rows(self, rows: list[dict[str, Any]]) -> None:
        current = self.current_key()
        self._updating = True
        self.list.clear()
        self._rows = {row["client"]: row for row in rows}
        home = str(Path.home())
        for row in rows:
            folder = row["folder"]
            if folder and (folder == home or folder.startswith(home + os.sep)):
                folder = "~" + folder[len(home):]
            state = folder or ("not found on this machine" if row.get("writable", True) else "not written")
            item = QListWidgetItem(f"{row['name']} — {state}")
            item.setData(KEY_ROLE, row["client"])
            if row.get("writable", True):
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Checked if row["on"] else Qt.CheckState.Unchecked)
            else:
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsUserCheckable)
            if row.get("problem"):
                item.setToolTip(row["problem"])
            self.list.addItem(item)
            if row["client"] == current:
                self.list.setCurrentItem(item)
        if self.list.currentItem() is None and self.list.count():
            self.list.setCurrentRow(0)
        self._updating = False

    def _say(self, text: str, error: bool = False) -> None:
        self.message.setText(text)
        set_role(self.message, "error" if error else "meta")

    def _on_failed(self, error: BaseException) -> None:
        self._say(str(error), error=True)
        self.reload()

    def _on_list_current_item_changed(self, *_args: Any) -> None:
        key = self.current_key()
        row = self._rows.get(key or "")
        if row is None:
            return
        text = row["what"]
        if row.get("problem"):
            text += f"\nLast attempt: {row['problem']}"
        self.detail.setText(text)
        self.undo_button.setEnabled(bool(row.get("writable", True)) and self._backend is not None)
        self.preview_button.setEnabled(bool(row.get("writable", True)) and self._backend is not None)
        self.key_button.setVisible("needs_key" in row)
        if key != self._detail_key:  # a list reloaded after a write keeps the diff just shown
            self.diff.clear()
            self._detail_key = key

    def _on_list_item_changed(self, item: QListWidgetItem) -> None:
        if self._updating or self._runner is None or self._backend is None:
            return
        key = str(item.data(KEY_ROLE))
        on = item.checkState() == Qt.CheckState.Checked
        self.list.setCurrentItem(item)
        backend = self._backend
        self._runner.submit(f"plan {key}", lambda: backend.plan(key, not on),
                            lambda plan: self._confirm_switch(key, on, plan), self._on_failed)

    def _confirm_switch(self, key: str, on: bool, plan: Any) -> None:
        name = self._rows.get(key, {}).get("name", key)
        self.diff.setPlainText(plan.diff() or "(nothing to change in the client's files)")
        if plan.problem:
            self._say(f"{name}: {plan.problem}", error=True)
            self.reload()
            return
        question = (f"Write this change to {name}, and keep it in step with what you approve from now on?"
                    if on else f"Take back what Memory Curator wrote to {name}, as shown?")
        if plan.left_out and on:
            question += f"\n{plan.left_out} approved memories do not fit the size set below and are left out."
        if self._interaction is None or not self._interaction.confirm_change(f"Send memory to {name}", question,
                                                                             plan.diff()):
            self._say("Nothing was written.")
            self.reload()
            return
        backend = self._backend
        assert backend is not None and self._runner is not None
        self._runner.submit(f"send {key}", lambda: backend.switch(key, on, plan),
                            lambda rows: self._done(rows, f"{name}: " + ("memory written; kept in step from now on."
                                                                         if on else "taken back; switched off.")),
                            self._on_failed)

    def _done(self, rows: list[dict[str, Any]], text: str) -> None:
        self._say(text)
        self._show_rows(rows)
        self.changed.emit()

    def _on_preview_button_clicked(self) -> None:
        key = self.current_key()
        if key is None or self._runner is None or self._backend is None:
            return
        backend = self._backend
        self._runner.submit(f"plan {key}", lambda: backend.plan(key, False), self._show_plan, self._on_failed)

    def _show_plan(self, plan: Any) -> None:
        if plan.problem:
            self.diff.setPlainText("")
            self._say(plan.problem, error=True)
            return
        self.diff.setPlainText(plan.diff() or f"{plan.name} is in step: nothing to write.")
        self._say(f"{plan.memories} lines of memory" + (f"; {plan.left_out} approved memories do not fit the size"
                                                          if plan.left_out else "") + ". Nothing was written.")

    def _on_writes_button_clicked(self) -> None:
        key = self.current_key()
        if key is None or self._runner is None or self._backend is None:
            return
        backend = self._backend
        self._runner.submit(f"writes {key}", lambda: backend.writes(key), self._show_writes, self._on_failed)

    def _show_writes(self, writes: list[tuple[str, str]]) -> None:
        if not writes:
            self.diff.setPlainText("Nothing was written to this client yet.")
            return
        self.diff.setPlainText("\n".join(f"== {when}\n{diff}" for when, diff in writes))
        self._say(f"{len(writes)} latest writes, newest first.")

    def _on_key_button_clicked(self) -> None:
        key = self.current_key()
        if key is None or self._runner is None or self._backend is None or self._interaction is None:
            return
        name = self._rows.get(key, {}).get("name", key)
        value = self._interaction.ask_secret(f"{name} API key", f"{name}'s API key (Settings > Account > API keys):")
        if not value or not value.strip():
            return
        backend = self._backend
        self._runner.submit(f"key {key}", lambda: backend.set_api_key(key, value),
                            lambda rows: self._done(rows, f"{name}: API key kept."), self._on_failed)

    def _on_undo_button_clicked(self) -> None:
        key = self.current_key()
        if key is None or self._runner is None or self._backend is None:
            return
        backend = self._backend
        self._runner.submit(f"undo {key}", lambda: backend.undo_plan(key), self._confirm_undo, self._on_failed)

    def _confirm_undo(self, plan: Any) -> None:
        if plan.problem:
            self._say(plan.problem, error=True)
            return
        self.diff.setPlainText(plan.diff())
        if self._interaction is None or not self._interaction.confirm_change(
                f"Undo the last write to {plan.name}", "Put the files back as shown? If its switch is on, the next "
                "change you approve writes it again; turn the switch off to keep it this way.", plan.diff()):
            self._say("Nothing was written.")
            return
        backend = self._backend
        assert backend is not None and self._runner is not None
        self._runner.submit(f"undo {plan.key}", lambda: backend.apply(plan),
                            lambda rows: self._done(rows, f"{plan.name}: the last write was undone."), self._on_failed)
