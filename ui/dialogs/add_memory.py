"""Add a memory by hand: the person types it; turns that match are offered as its evidence.

The turn search runs on the worker (``OpRunner``) a moment after typing stops; ticking a turn
makes it evidence. The dialog only collects: the engine writes the memory (approved, marked
as the person's own) when the pane submits ``text()`` and ``turns()``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from curator.index.text import elide
from curator.sources.turns import IndexedTurn
from ui.infra.resources import set_role
from ui.infra.workers import OpRunner

SEARCH_DELAY_MS = 300


class AddMemoryDialog(QDialog):
    """The memory's words and the turns ticked as its evidence.

    Args:
        runner: Runs ``find_turns`` off the GUI thread.
        find_turns: Turns matching a text (``KnowledgeService.matching_turns``).
    """

    def __init__(self, runner: OpRunner, find_turns: Callable[[str], Sequence[IndexedTurn]],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add a memory")
        self._runner = runner
        self._find = find_turns
        self.editor = QPlainTextEdit()
        self.editor.setObjectName("add_memory_text")
        self.editor.setPlaceholderText("What should be remembered, e.g. “Alex's allotment is plot 14.”")
        self.turn_list = QListWidget()
        self.turn_list.setObjectName("add_memory_turns")
        hint = QLabel("Turns that match (tick the ones that show it; optional):")
        set_role(hint, "meta")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Add (approved, as yours)")
        self.ok_button.setEnabled(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.editor, 2)
        layout.addWidget(hint)
        layout.addWidget(self.turn_list, 1)
        layout.addWidget(buttons)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_DELAY_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self.editor.textChanged.connect(self._on_editor_text_changed)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.resize(560, 420)

    def text(self) -> str:
        return self.editor.toPlainText().strip()

    def turns(self) -> list[int]:
        """The ticked turns' numbers."""
        out = []
        for row in range(self.turn_list.count()):
            item = self.turn_list.item(row)
            if item.checkState() == Qt.CheckState.Checked:
                out.append(int(item.data(Qt.ItemDataRole.UserRole)))
        return out

    def show_turns(self, turns: Sequence[IndexedTurn]) -> None:
        """List ``turns`` (the ones already ticked stay, ticked)."""
        ticked = set(self.turns())
        self.turn_list.clear()
        for turn in turns:
            item = QListWidgetItem(f"#{turn.number} {turn.speaker or turn.role}: {elide(turn.text, 110)}")
            item.setData(Qt.ItemDataRole.UserRole, turn.number)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if turn.number in ticked else Qt.CheckState.Unchecked)
            self.turn_list.addItem(item)

    def _on_editor_text_changed(self) -> None:
        self.ok_button.setEnabled(bool(self.text()))
        self._timer.start()

    def _on_timer_timeout(self) -> None:
        text = self.text()
        find = self._find
        self._runner.submit("find turns", lambda: find(text), self.show_turns, latest_only="add-memory-turns")
