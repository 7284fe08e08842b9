"""What the CLI prints while a person waits: the same progress the window shows.

On a terminal one line is redrawn in place (a bar, tokens or files done of total and an
estimate); when the output is piped, plain lines are printed at each step that matters
(a phase starts, a quarter more is done, an item has been written), so logs stay short and
readable. Everything goes to stderr: stdout keeps the command's result (and ``--json``).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, TextIO

from curator.events import Event, EventBus
from curator.index.text import elide
from curator.llm.stream_text import ReadableStream

BAR_WIDTH = 24


def bar(done: int, total: int, width: int = BAR_WIDTH) -> str:
    """``[#######.........]`` for ``done`` of ``total``."""
    filled = int(width * done / total) if total > 0 else 0
    filled = max(0, min(width, filled))
    return "[" + "#" * filled + "." * (width - filled) + "]"


def progress_line(kind: str, data: dict[str, Any]) -> str:
    """The words for one progress event ("" when it says nothing worth a line)."""
    if kind == "source.progress":
        return (f"import {data.get('source_id', '')}: {data.get('files_done', 0)} of "
                f"{data.get('files_total', 0)} files, {data.get('turns_added', 0)} new turns")
    if kind == "job.progress" and data.get("phase") == "prompt":
        total = int(data.get("prompt_tokens") or 0)
        done = int(data.get("prompt_done") or 0)
        eta = data.get("eta_seconds")
        left = f", about {eta:.0f} s left" if isinstance(eta, (int, float)) and done < total else ""
        return f"{data.get('job_kind', 'job')}: reading the prompt, {done} of {total} tokens{left}"
    if kind == "job.progress" and data.get("phase") == "generate":
        return f"{data.get('job_kind', 'job')}: writing"
    if kind == "job.started":
        return f"{data.get('job_kind', 'job')}: started"
    if kind == "job.finished":
        return f"{data.get('job_kind', 'job')}: {data.get('status', 'finished')}"
    return ""


class ProgressPrinter:
    """Subscribes to an engine bus and prints progress to ``out`` (stderr by default).

    Threading contract: events may come from any thread; printing is serialised by a lock.
    Use as a context manager so the subscription ends with the command.
    """

    def __init__(self, bus: EventBus, out: TextIO | None = None, tty: bool | None = None) -> None:
        self.bus = bus
        self.out = out if out is not None else sys.stderr
        self.tty = bool(tty if tty is not None else getattr(self.out, "isatty", lambda: False)())
        self._lock = threading.Lock()
        self._unsubscribe: Callable[[], None] | None = None
        self._last_quarter: dict[str, int] = {}
        self._stream = ReadableStream()
        self._shown_items = 0
        self._drawn = False

    def __enter__(self) -> ProgressPrinter:
        self._unsubscribe = self.bus.subscribe(self.on_event)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        with self._lock:
            self._end_line()

    def on_event(self, event: Event) -> None:
        data = dict(event.data)
        with self._lock:
            if event.kind == "model.token":
                self._on_token(str(data.get("text", "")))
                return
            if event.kind == "job.started":
                self._stream = ReadableStream()
                self._shown_items = 0
            line = progress_line(event.kind, data)
            if not line:
                return
            done, total = self._fraction(event.kind, data)
            if self.tty:
                self._draw(f"{bar(done, total)} {line}" if total else line)
                if event.kind == "job.finished":
                    self._end_line()
            elif self._worth_a_line(event.kind, data, done, total):
                self._print(line)

    # ---- Helpers (called under the lock)

    def _on_token(self, text: str) -> None:
        self._stream.feed(text)
        finished = [item for item in self._stream.items if item.done]
        for item in finished[self._shown_items:]:
            self._print(f"  wrote {item.label}: {elide(item.text, 100)}")
        self._shown_items = len(finished)
        if self.tty:
            current = self._stream.current()
            if current:
                self._draw("  writing " + elide(current, 100))

    @staticmethod
    def _fraction(kind: str, data: dict[str, Any]) -> tuple[int, int]:
        if kind == "source.progress":
            return int(data.get("files_done") or 0), int(data.get("files_total") or 0)
        if kind == "job.progress" and data.get("phase") == "prompt":
            return int(data.get("prompt_done") or 0), int(data.get("prompt_tokens") or 0)
        return 0, 0

    def _worth_a_line(self, kind: str, data: dict[str, Any], done: int, total: int) -> bool:
        if not total:
            return True
        key = f"{kind}:{data.get('source_id') or data.get('job_id')}"
        quarter = 4 * done // total
        if self._last_quarter.get(key) == quarter:
            return False
        self._last_quarter[key] = quarter
        return True

    def _draw(self, text: str) -> None:
        self.out.write("\r\x1b[2K" + text)
        self.out.flush()
        self._drawn = True

    def _end_line(self) -> None:
        if self._drawn:
            self.out.write("\n")
            self.out.flush()
            self._drawn = False

    def _print(self, text: str) -> None:
        self._end_line()
        self.out.write(text + "\n")
        self.out.flush()
