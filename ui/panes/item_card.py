"""The header of the selected review item: title, badges, gate results and flags."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from curator.index.text import elide
from curator.text_safety import visible
from ui.infra.resources import set_role
from ui.infra.timefmt import short_time
from ui.models.queue_model import QueueEntry
from ui.services.facade import ReviewDetail

CONFIDENCE_TIP = ("Confidence (0–1): how well the conversation supports this item, set by the curator"
                  " from the turns it cites, never taken from the model: one turn 0.60, two turns"
                  " 0.75, three or more 0.75, or 0.85 when one of them backs an approved memory.")


class ItemCard(QWidget):
    """Title, badges, gate results and flags of the selected item."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel("Nothing selected")
        set_role(self.title, "heading")
        self.title.setWordWrap(True)
        self.badges = QLabel("")
        set_role(self.badges, "meta")
        self.gates = QLabel("")
        self.gates.setWordWrap(True)
        self.flags = QLabel("")
        self.flags.setWordWrap(True)
        set_role(self.flags, "flag")
        self.flags.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.title, self.badges, self.gates, self.flags):
            layout.addWidget(widget)

    def show_entry(self, entry: QueueEntry | None, detail: ReviewDetail | None = None) -> None:
        if entry is None:
            self.title.setText("Nothing selected")
            self.badges.setText("")
            self.gates.setText("")
            self.flags.hide()
            return
        self.title.setText(elide(entry.title or entry.text, 160))
        self.title.setToolTip(visible(entry.title or entry.text))
        self.badges.setToolTip(CONFIDENCE_TIP)
        parts = [entry.kind.replace("_", " "), f"confidence {entry.confidence:.2f}"]
        if entry.recurring > 1:
            parts.append(f"seen in {entry.recurring} batches")
        if entry.item.staged_at:
            parts.append(f"staged {short_time(entry.item.staged_at)}")
        self.badges.setText(" · ".join(parts))
        self.gates.setText("Gates passed: " + (", ".join(entry.gates) if entry.gates else "—"))
        if entry.flags:
            self.flags.setText("⚑ " + " · ".join(entry.flags))
            self.flags.show()
        else:
            self.flags.hide()
