"""What runs now and what waits: one tracker fed by engine events, shown in the status bar.

``WorkTracker`` (no widgets) follows the reflection queue (``jobs.*``), the model worker
(``model.*``, ``job.*``: prompt tokens evaluated of total with an estimate, the item being
written) and imports (``source.progress``). ``WorkIndicator`` shows it in the status bar
with a determinate bar and a Cancel button; the review pane's empty state reads the same
tracker, so the first minute after start-up shows the queue filling instead of nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget

from curator.index.text import elide
from curator.llm.stream_text import ReadableStream
from ui.infra.resources import icon, set_role

JOB_NAMES = {
    "batch": "batch reflection", "micro": "micro-reflection", "summary": "context summary",
    "cycle": "consolidation cycle", "batch_reflection": "batch reflection",
    "micro_reflection": "micro-reflection", "context_summary": "context summary",
}


def job_name(kind: str) -> str:
    return JOB_NAMES.get(kind, kind.replace("_", " ") or "reflection")


@dataclass
class ImportProgress:
    files_done: int
    files_total: int
    turns: int


@dataclass
class WorkTracker:
    """The state behind the status bar; ``on_event`` returns True when something changed."""

    jobs: dict[str, dict[str, Any]] = field(default_factory=dict)  # reflection jobs queued or running
    model_state: str = ""  # "" | loading | ready | error
    phase: str = ""  # "" | prompt | generate
    prompt_done: int = 0
    prompt_total: int = 0
    eta_seconds: float | None = None
    tokens: int = 0
    stream: ReadableStream = field(default_factory=ReadableStream)
    imports: dict[str, ImportProgress] = field(default_factory=dict)

    def on_event(self, kind: str, data: dict[str, Any]) -> bool:
        if kind.startswith("jobs."):
            return self._on_queue_event(data)
        if kind == "source.progress":
            source = str(data.get("source_id", ""))
            done, total = int(data.get("files_done") or 0), int(data.get("files_total") or 0)
            if done >= total:
                self.imports.pop(source, None)
            else:
                self.imports[source] = ImportProgress(done, total, int(data.get("turns_added") or 0))
            return True
        if kind in ("model.loading", "model.ready", "model.error"):
            self.model_state = kind.split(".", 1)[1]
            return True
        if kind == "job.started":
            self.phase, self.prompt_done, self.prompt_total, self.tokens = "prompt", 0, 0, 0
            self.eta_seconds, self.stream = None, ReadableStream()
            return True
        if kind == "job.progress":
            self.phase = str(data.get("phase") or self.phase)
            self.prompt_total = int(data.get("prompt_tokens") or self.prompt_total)
            if "prompt_done" in data:
                self.prompt_done = int(data.get("prompt_done") or 0)
            eta = data.get("eta_seconds")
            self.eta_seconds = float(eta) if isinstance(eta, (int, float)) else None
            return True
        if kind == "job.finished":
            self.phase = ""
            return True
        return False

    def on_tokens(self, text: str) -> None:
        self.phase = "generate"
        self.tokens += len(text.split()) or 1
        self.stream.feed(text)

    # ---- What to say

    def running_job(self) -> dict[str, Any] | None:
        running = [j for j in self.jobs.values() if j.get("status") == "running"]
        return running[0] if running else None

    def waiting(self) -> list[dict[str, Any]]:
        return [j for j in self.jobs.values() if j.get("status") == "queued"]

    def fraction(self) -> tuple[int, int] | None:
        """(done, total) for a determinate bar, or None when there is nothing to measure."""
        if self.imports:
            first = next(iter(self.imports.values()))
            return first.files_done, first.files_total
        if self.phase == "prompt" and self.prompt_total and self.prompt_done:
            return self.prompt_done, self.prompt_total
        return None

    def now_text(self) -> str:
        """One line: what runs now (empty when nothing does)."""
        parts: list[str] = []
        for source, progress in self.imports.items():
            parts.append(f"Importing {source}: {progress.files_done} of {progress.files_total} files,"
                         f" {progress.turns} turns")
        if self.model_state == "loading":
            parts.append("Loading the model…")
        job = self.running_job()
        if job is not None:
            name = job_name(str(job.get("kind", "")))
            if self.phase == "prompt" and self.prompt_total and self.prompt_done:
                eta = f", ~{self.eta_seconds:.0f} s left" if self.eta_seconds else ""
                parts.append(f"{name.capitalize()}: prompt {self.prompt_done}/{self.prompt_total} tokens{eta}")
            elif self.phase == "prompt" and self.prompt_total:
                # Free-text jobs (summaries) are evaluated in one call: no steps to count.
                parts.append(f"{name.capitalize()}: reading the prompt ({self.prompt_total} tokens)…")
            elif self.phase == "generate":
                current = self.stream.current()
                parts.append(f"{name.capitalize()}: writing " + (f"“{elide(current, 70)}”" if current else "…"))
            else:
                parts.append(f"{name.capitalize()}: starting…")
        return " · ".join(parts)

    def waiting_text(self) -> str:
        waiting = self.waiting()
        if not waiting:
            return ""
        return f"{len(waiting)} waiting"

    def waiting_detail(self) -> str:
        names = sorted({job_name(str(j.get("kind", ""))) for j in self.waiting()})
        return "Waiting: " + ", ".join(names) if names else ""

    def summary(self) -> str:
        """For an empty review queue: what is happening that will fill it."""
        now, waiting = self.now_text(), self.waiting_detail()
        if not now and not waiting:
            return ""
        return "\n".join(x for x in (now, waiting) if x)

    def _on_queue_event(self, data: dict[str, Any]) -> bool:
        job = data.get("job")
        if not isinstance(job, dict) or not job.get("id"):
            return False
        job_id = str(job["id"])
        if job.get("status") in ("queued", "running"):
            self.jobs[job_id] = job
        else:
            self.jobs.pop(job_id, None)
        return True


class WorkIndicator(QWidget):
    """Status-bar widget: what runs, a bar with what is done of what, what waits, Cancel.

    Signals: ``cancel_requested(job_id)`` for the running reflection job.
    """

    cancel_requested = Signal(str)

    def __init__(self, tracker: WorkTracker, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tracker = tracker
        self.now_label = QLabel("")
        self.now_label.setObjectName("work_now")
        self.waiting_label = QLabel("")
        self.waiting_label.setObjectName("work_waiting")
        set_role(self.waiting_label, "meta")
        self.bar = QProgressBar()
        self.bar.setObjectName("work_bar")
        self.bar.setMaximumWidth(120)
        self.bar.setMaximumHeight(14)
        self.bar.setTextVisible(False)
        self.cancel_button = QToolButton()
        self.cancel_button.setObjectName("work_cancel")
        self.cancel_button.setIcon(icon("cancel"))
        self.cancel_button.setText("Cancel")
        self.cancel_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.cancel_button.setToolTip("Cancel the running reflection (nothing of it is staged)")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.now_label, 1)  # the widest text gets the room
        for widget in (self.bar, self.cancel_button, self.waiting_label):
            layout.addWidget(widget)
        self.cancel_button.clicked.connect(self._on_cancel_button_clicked)
        self.refresh()

    def refresh(self) -> None:
        tracker = self.tracker
        now = tracker.now_text()
        self.now_label.setText(elide(now, 100))
        self.now_label.setToolTip(now)
        self.waiting_label.setText(tracker.waiting_text())
        self.waiting_label.setToolTip(tracker.waiting_detail())
        fraction = tracker.fraction()
        if fraction is not None:
            self.bar.setRange(0, max(fraction[1], 1))
            self.bar.setValue(fraction[0])
        else:
            self.bar.setRange(0, 0)  # busy, nothing to measure (e.g. writing)
        self.bar.setVisible(bool(now))
        job = tracker.running_job()
        self.cancel_button.setVisible(job is not None)

    def _on_cancel_button_clicked(self) -> None:
        job = self.tracker.running_job()
        if job is not None:
            self.cancel_button.setEnabled(False)
            self.cancel_requested.emit(str(job.get("id", "")))
            self.cancel_button.setEnabled(True)
