"""Status and activity: sources and their health, triggers, the model, a live reflection, the log.

Fed by engine events (relayed to the GUI thread by ``ui.infra.bridge.EventRelay``) and by a
periodic snapshot. A running reflection streams its tokens here and can be cancelled.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QTextCursor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from curator.index.text import elide
from curator.llm.stream_text import ReadableStream
from ui.infra.resources import icon
from ui.models.records import Column, RecordTableModel
from ui.panes.fit import fit_table
from ui.services.facade import StatusSnapshot

if TYPE_CHECKING:  # the engine loads on the worker when the vault opens
    from curator.engine import SourceStatus

MAX_STREAM_CHARS = 20_000
QUIET_KINDS = ("model.token", "job.token", "reflection.token", "model.progress", "job.progress", "job.queued")


@dataclass(frozen=True)
class ActivityEntry:
    """One line of the activity log."""

    at: float
    kind: str
    message: str
    level: str = "info"  # info | warning | error


def _fmt_clock(at: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(at))


def describe_event(kind: str, data: dict[str, Any]) -> list[ActivityEntry]:
    """Activity lines for an engine event (gate rejections get a line each, with their reason)."""
    now = time.time()
    if kind.startswith(QUIET_KINDS):
        return []
    level = "error" if ("error" in kind or "failed" in kind) else "info"
    for key in ("message", "reason", "text", "summary"):
        if isinstance(data.get(key), str) and data[key] and kind != "model.token":
            who = f"[{data['user_id']}] " if data.get("user_id") else ""
            head = [ActivityEntry(now, kind, who + data[key], level)]
            return head + _rejections(now, data)
    skip = {"rejections", "text", "token", "turns", "items", "staged_files", "timestamp", "at", "ts"}
    parts = [f"{k}={v}" for k, v in data.items() if k not in skip and not isinstance(v, (list, dict))]
    for key in ("staged_files", "items"):
        if isinstance(data.get(key), list):
            parts.append(f"{len(data[key])} {key.replace('_', ' ')}")
    return [ActivityEntry(now, kind, ", ".join(parts) or "—", level), *_rejections(now, data)]


def _rejections(now: float, data: dict[str, Any]) -> list[ActivityEntry]:
    out: list[ActivityEntry] = []
    rejections = data.get("rejections")
    if rejections is None and isinstance(data.get("quality_gate_results"), dict):
        rejections = data["quality_gate_results"].get("rejections")
    for rejection in rejections or []:
        if isinstance(rejection, dict):
            gate = rejection.get("gate", "gate")
            reason = rejection.get("reason", "")
            item = elide(str(rejection.get("item", "")), 90)
            out.append(ActivityEntry(now, "gate.rejected", f"{gate}: {reason} — “{item}”", "warning"))
    return out


def describe_batch(log: dict[str, Any]) -> list[ActivityEntry]:
    """Activity lines for a batch log: the batch, then each gate rejection with its reason."""
    from curator.clock import parse_iso

    at = parse_iso(str(log.get("timestamp") or "")) or time.time()
    gates_raw, staged_raw, turns_raw = (log.get("quality_gate_results"), log.get("staged_files"),
                                        log.get("turns_reviewed"))
    gates: dict[str, Any] = gates_raw if isinstance(gates_raw, dict) else {}
    staged: list[Any] = staged_raw if isinstance(staged_raw, list) else []
    turns: list[Any] = turns_raw if isinstance(turns_raw, list) else []
    message = (f"batch {log.get('batch_id')}: {len(turns)} turns ({log.get('trigger', '')}), "
               f"{gates.get('items_proposed', 0)} proposed, {gates.get('items_passed', 0)} passed, "
               f"{len(staged)} staged, {log.get('duration_ms', 0)} ms")
    if log.get("error"):
        message += f" — {log['error']}"
    entries = [ActivityEntry(at, "batch", message, "error" if log.get("error") else "info")]
    return entries + [
        ActivityEntry(at, e.kind, e.message, e.level)
        for e in _rejections(at, {"quality_gate_results": gates})
    ]


def _level_colour(entry: ActivityEntry) -> QColor | None:
    return {"error": QColor("#c8453b"), "warning": QColor("#c86a1a")}.get(entry.level)


class StatusPane(QWidget):
    """Sources, triggers, model state, live reflection and activity.

    Signals: ``cancel_requested(job_id)`` when the person cancels the running reflection,
    ``refresh_requested()`` when they ask for a fresh snapshot.
    """

    cancel_requested = Signal(str)
    refresh_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._job_id = ""
        self._seen_batches: set[Any] = set()

        self.sources: RecordTableModel[SourceStatus] = RecordTableModel(
            [
                Column("Source", lambda s: s.source.path),
                Column("Adapter", lambda s: s.source.adapter),
                Column("User", lambda s: s.source.user_id),
                Column(
                    "Health",
                    lambda s: s.status,
                    tooltip=lambda s: s.detail,
                    foreground=lambda s: (
                        None if s.status in {"ok", "watching", "available", ""} else QColor("#c8453b")
                    ),
                ),
                Column("Turns", lambda s: s.turns),
            ],
            self,
        )
        self.sources_view = QTableView()
        self.sources_view.setModel(self.sources)
        self.sources_view.verticalHeader().hide()
        fit_table(self.sources_view, stretch=0)
        self.refresh_button = QPushButton("Refresh")

        self.triggers_text = QPlainTextEdit()
        self.triggers_text.setReadOnly(True)
        self.triggers_text.setObjectName("triggers_text")
        self.triggers_text.setPlaceholderText("Trigger counters appear once the vault is open.")

        self.model_label = QLabel("Model: not loaded")
        self.model_label.setObjectName("model_label")
        self.model_label.setWordWrap(True)
        self.model_progress = QProgressBar()
        self.model_progress.setRange(0, 0)
        self.model_progress.setMaximumHeight(10)
        self.model_progress.setTextVisible(False)
        self.model_progress.hide()

        self.job_label = QLabel("No reflection running.")
        self.job_label.setObjectName("job_label")
        self.job_progress = QProgressBar()
        self.job_progress.setObjectName("job_progress")
        self.job_progress.setMaximumHeight(12)
        self.job_progress.hide()
        self.stream = QPlainTextEdit()
        self.stream.setObjectName("token_stream")
        self.stream.setReadOnly(True)
        self.stream.setPlaceholderText("What a running reflection writes appears here, item by item.")
        self.raw_toggle = QCheckBox("Show raw tokens")
        self.raw_toggle.setObjectName("raw_toggle")
        self.raw_stream = QPlainTextEdit()
        self.raw_stream.setObjectName("raw_stream")
        self.raw_stream.setReadOnly(True)
        self.raw_stream.hide()
        self._readable = ReadableStream()
        self.cancel_button = QPushButton(icon("cancel"), "Cancel reflection")
        self.cancel_button.setEnabled(False)

        self.activity: RecordTableModel[ActivityEntry] = RecordTableModel([
            Column("Time", lambda e: _fmt_clock(e.at)),
            Column("Event", lambda e: e.kind, foreground=_level_colour),
            Column("Details", lambda e: e.message, tooltip=lambda e: e.message, foreground=_level_colour),
        ], self, max_rows=1000)
        self.activity_view = QTableView()
        self.activity_view.setObjectName("activity_table")
        self.activity_view.setModel(self.activity)
        self.activity_view.verticalHeader().hide()
        self.activity_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        fit_table(self.activity_view, stretch=2, max_width=200, wrap=True)

        sources_box = QGroupBox("Watched sources")
        sources_layout = QVBoxLayout(sources_box)
        sources_layout.addWidget(self.sources_view)
        sources_layout.addWidget(self.refresh_button, alignment=Qt.AlignmentFlag.AlignLeft)
        triggers_box = QGroupBox("Triggers — what they count, what fires next")
        QVBoxLayout(triggers_box).addWidget(self.triggers_text)
        model_box = QGroupBox("Model and running reflection")
        model_layout = QVBoxLayout(model_box)
        model_layout.addWidget(self.model_label)
        model_layout.addWidget(self.model_progress)
        job_row = QHBoxLayout()
        job_row.addWidget(self.job_label, 1)
        job_row.addWidget(self.cancel_button)
        model_layout.addLayout(job_row)
        model_layout.addWidget(self.job_progress)
        model_layout.addWidget(self.stream, 2)
        model_layout.addWidget(self.raw_toggle)
        model_layout.addWidget(self.raw_stream, 1)
        activity_box = QGroupBox("Activity — batches, gate rejections, jobs")
        QVBoxLayout(activity_box).addWidget(self.activity_view)

        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(sources_box)
        left.addWidget(triggers_box)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(model_box)
        right.addWidget(activity_box)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([520, 580])
        layout = QVBoxLayout(self)
        layout.addWidget(split)

        self.cancel_button.clicked.connect(self._on_cancel_button_clicked)
        self.refresh_button.clicked.connect(self.refresh_requested)
        self.raw_toggle.toggled.connect(self.raw_stream.setVisible)

    # ---- Public API (GUI thread)

    def show_snapshot(self, snapshot: StatusSnapshot) -> None:
        self.sources.set_records(snapshot.sources)
        self.triggers_text.setPlainText(snapshot.triggers or "No trigger state yet.")
        if snapshot.model:
            self.model_label.setText(f"Model: {snapshot.model}")
        for log in snapshot.batches:
            key = log.get("batch_id")
            if key not in self._seen_batches:
                self._seen_batches.add(key)
                self.add_activity(describe_batch(log))

    def add_activity(self, entries: list[ActivityEntry]) -> None:
        for entry in entries:
            self.activity.append(entry)
        if entries:
            self.activity_view.scrollToBottom()

    def on_engine_event(self, kind: str, data: dict[str, Any]) -> None:
        """React to an engine event (called on the GUI thread by the main window)."""
        self.add_activity(describe_event(kind, data))
        if kind.startswith("model."):
            self._on_model_event(kind, data)
        elif kind.startswith("job."):
            self._on_job_event(kind, data)

    def on_tokens(self, job_id: str, text: str) -> None:
        """Show streamed tokens of ``job_id``: as readable items, and raw behind the toggle."""
        if job_id and not self._job_id:
            self._set_running(job_id, "reflection")
        self._readable.feed(text)
        self.stream.setPlainText(self._readable.render()[-MAX_STREAM_CHARS:])
        self.stream.moveCursor(QTextCursor.MoveOperation.End)
        self.stream.ensureCursorVisible()
        raw = self.raw_stream
        raw.moveCursor(QTextCursor.MoveOperation.End)
        raw.insertPlainText(text)
        if raw.document().characterCount() > MAX_STREAM_CHARS:
            cursor = QTextCursor(raw.document())
            cursor.movePosition(QTextCursor.MoveOperation.Start)
            cursor.movePosition(QTextCursor.MoveOperation.Right, QTextCursor.MoveMode.KeepAnchor,
                                raw.document().characterCount() - MAX_STREAM_CHARS)
            cursor.removeSelectedText()
        raw.ensureCursorVisible()

    def show_work(self, now: str, fraction: tuple[int, int] | None) -> None:
        """What runs now (from the window's work tracker), with a bar when it can be measured.

        Only while this pane follows a running job: the queue's own events trail the model's
        ``job.finished``, and must not write over the outcome the label shows by then.
        """
        if now and self._job_id:
            self.job_label.setText(now)
        if fraction is not None:
            self.job_progress.setRange(0, max(fraction[1], 1))
            self.job_progress.setValue(fraction[0])
        self.job_progress.setVisible(fraction is not None)

    def running_job(self) -> str:
        return self._job_id

    # ---- Event handling

    def _on_model_event(self, kind: str, data: dict[str, Any]) -> None:
        name = str(data.get("name") or data.get("model") or Path(str(data.get("path") or "")).name)
        if kind.endswith("loading"):
            self.model_label.setText(f"Model: loading {name}…")
            self.model_progress.show()
        elif kind.endswith("ready") or kind.endswith("loaded"):
            self.model_label.setText(f"Model: {name} — ready")
            self.model_progress.hide()
        elif kind.endswith("error") or kind.endswith("failed"):
            self.model_label.setText(f"Model: {name} — error: {data.get('error') or data.get('message') or ''}")
            self.model_progress.hide()

    def _on_job_event(self, kind: str, data: dict[str, Any]) -> None:
        job_id = str(data.get("job_id") or data.get("id") or "")
        job_kind = str(data.get("job_kind") or data.get("kind") or "reflection")
        if kind.endswith("started"):
            self._set_running(job_id, job_kind)
        elif kind.endswith(("finished", "failed", "cancelled", "done")) and (
            not self._job_id or job_id == self._job_id
        ):
            outcome = kind.rsplit(".", 1)[-1]
            extra = data.get("error") or data.get("status") or ""
            self.job_label.setText(f"Last reflection ({job_kind}) {outcome}{': ' + str(extra) if extra else ''}.")
            self._job_id = ""
            self.cancel_button.setEnabled(False)

    def _set_running(self, job_id: str, job_kind: str) -> None:
        self._job_id = job_id
        self.stream.clear()
        self.raw_stream.clear()
        self._readable = ReadableStream()
        self.job_label.setText(f"Running: {job_kind} reflection (job {job_id})")
        self.cancel_button.setEnabled(bool(job_id))

    # ---- Controllers

    def _on_cancel_button_clicked(self) -> None:
        if self._job_id:
            self.cancel_button.setEnabled(False)
            self.job_label.setText(f"Cancelling job {self._job_id}…")
            self.cancel_requested.emit(self._job_id)



if __name__ == "__main__":  # a preview of this pane alone, on the demo
    import sys

    from ui.panes.preview import main

    raise SystemExit(main(["status", *sys.argv[1:]]))
