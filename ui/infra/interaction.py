"""Questions the app asks a person, behind a port so that tests never open a modal dialog.

Panes receive an ``Interaction``; the app passes ``DialogInteraction`` (real dialogs),
tests pass ``ScriptedInteraction`` (canned answers, every question recorded).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Protocol

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)


class Interaction(Protocol):
    """What a pane may ask. All methods run on the GUI thread."""

    def confirm(self, title: str, text: str) -> bool: ...

    def confirm_change(self, title: str, text: str, diff: str) -> bool: ...

    def ask_secret(self, title: str, label: str) -> str | None: ...

    def ask_text(self, title: str, label: str, text: str = "", multiline: bool = False) -> str | None: ...

    def choose(self, title: str, label: str, options: list[str]) -> str | None: ...

    def inform(self, title: str, text: str) -> None: ...

    def choose_folder(self, title: str, start: str = "") -> str | None: ...

    def choose_file(self, title: str, start: str = "", filter: str = "") -> str | None: ...


class DialogInteraction:
    """Real modal dialogs parented to ``parent``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        self._parent = parent

    def confirm(self, title: str, text: str) -> bool:
        answer = QMessageBox.question(self._parent, title, text)
        return answer == QMessageBox.StandardButton.Yes

    def ask_secret(self, title: str, label: str) -> str | None:
        """A key or password, typed without being shown."""
        text, ok = QInputDialog.getText(self._parent, title, label, QLineEdit.EchoMode.Password)
        return text if ok else None

    def confirm_change(self, title: str, text: str, diff: str) -> bool:
        """Yes or no to a change of a file, with the whole diff in view (wide, monospace, scrollable)."""
        dialog = QDialog(self._parent)
        dialog.setWindowTitle(title)
        question = QLabel(text)
        question.setWordWrap(True)
        view = QPlainTextEdit(diff)
        view.setReadOnly(True)
        view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Yes | QDialogButtonBox.StandardButton.No)
        buttons.accepted.connect(dialog.accept)
        buttons.rejected.connect(dialog.reject)
        layout = QVBoxLayout(dialog)
        layout.addWidget(question)
        layout.addWidget(view, 1)
        layout.addWidget(buttons)
        dialog.resize(760, 520)
        return dialog.exec() == QDialog.DialogCode.Accepted

    def ask_text(self, title: str, label: str, text: str = "", multiline: bool = False) -> str | None:
        if multiline:  # a memory to edit: wide, wrapped, all of it in view
            dialog = QInputDialog(self._parent)
            dialog.setWindowTitle(title)
            dialog.setLabelText(label)
            dialog.setOption(QInputDialog.InputDialogOption.UsePlainTextEditForTextInput)
            dialog.setTextValue(text)
            editor = dialog.findChild(QPlainTextEdit)
            if editor is not None:
                editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
            dialog.resize(560, 260)
            ok = dialog.exec() == QInputDialog.DialogCode.Accepted
            value = dialog.textValue()
        else:
            value, ok = QInputDialog.getText(self._parent, title, label, QLineEdit.EchoMode.Normal, text)
        return value if ok else None

    def choose(self, title: str, label: str, options: list[str]) -> str | None:
        value, ok = QInputDialog.getItem(self._parent, title, label, options, 0, False)
        return value if ok else None

    def inform(self, title: str, text: str) -> None:
        QMessageBox.information(self._parent, title, text)

    def choose_folder(self, title: str, start: str = "") -> str | None:
        return QFileDialog.getExistingDirectory(self._parent, title, start) or None

    def choose_file(self, title: str, start: str = "", filter: str = "") -> str | None:
        path, _selected = QFileDialog.getOpenFileName(self._parent, title, start, filter)
        return path or None


class ScriptedInteraction:
    """Answers from a script, for tests and previews; records every question asked.

    ``answers`` is consumed in order; when it runs out, ``confirm`` says yes, ``ask_text``
    keeps the proposed text, ``choose`` picks the first option and ``choose_folder`` /
    ``choose_file`` answer None (cancelled).
    """

    def __init__(self, *answers: Any) -> None:
        self.answers: deque[Any] = deque(answers)
        self.asked: list[tuple[str, str]] = []
        self.diffs: list[str] = []  # every diff shown by confirm_change

    def _next(self, default: Any) -> Any:
        return self.answers.popleft() if self.answers else default

    def confirm(self, title: str, text: str) -> bool:
        self.asked.append(("confirm", text))
        return bool(self._next(True))

    def ask_secret(self, title: str, label: str) -> str | None:
        self.asked.append(("ask_secret", label))
        answer = self._next(None)
        return str(answer) if answer else None

    def confirm_change(self, title: str, text: str, diff: str) -> bool:
        self.asked.append(("confirm_change", text))
        self.diffs.append(diff)
        return bool(self._next(True))

    def ask_text(self, title: str, label: str, text: str = "", multiline: bool = False) -> str | None:
        self.asked.append(("ask_text", label))
        return self._next(text)

    def choose(self, title: str, label: str, options: list[str]) -> str | None:
        self.asked.append(("choose", label))
        return self._next(options[0] if options else None)

    def inform(self, title: str, text: str) -> None:
        self.asked.append(("inform", text))

    def choose_folder(self, title: str, start: str = "") -> str | None:
        self.asked.append(("choose_folder", title))
        answer = self._next(None)
        return str(answer) if answer else None

    def choose_file(self, title: str, start: str = "", filter: str = "") -> str | None:
        self.asked.append(("choose_file", title))
        answer = self._next(None)
        return str(answer) if answer else None
