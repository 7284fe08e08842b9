"""The thread hop: engine callbacks and events arrive on worker threads, widgets live on the GUI thread.

``MainThreadPoster.post`` is what the engine receives as its injected ``post`` callable
(house style §4.4). ``EventRelay`` subscribes to the engine's ``EventBus`` and re-emits every
event as a Qt signal on the GUI thread; bursts of token events are coalesced so a fast model
cannot flood the event loop.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal, Slot

from curator.events import Event, EventBus

COALESCED_KINDS = frozenset({"model.token"})
# The reflection service re-emits every model token as ``reflection.token``; relaying both
# showed each token twice ("newnew__factsfacts"). The model's own event is the one kept.
DUPLICATE_KINDS = frozenset({"reflection.token", "job.token"})


class MainThreadPoster(QObject):
    """Runs callables on the thread that owns this object (create it on the GUI thread).

    Threading contract: ``post`` may be called from any thread; the callable runs later on
    the GUI thread, in the order posted.
    """

    _posted = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._posted.connect(self._run, Qt.ConnectionType.QueuedConnection)

    def post(self, fn: Callable[[], None]) -> None:
        """Queue ``fn`` to run on the GUI thread."""
        self._posted.emit(fn)

    @Slot(object)
    def _run(self, fn: Callable[[], None]) -> None:
        fn()


class EventRelay(QObject):
    """Engine events as Qt signals on the GUI thread.

    ``event_received(kind, data)`` fires for every event; ``tokens_received(job_id, text)``
    fires for coalesced token events (``data["token"]`` or ``data["text"]`` concatenated per job).

    Threading contract: the bus may emit from any thread; both signals are emitted on the
    thread of the poster (the GUI thread).
    """

    event_received = Signal(str, object)
    tokens_received = Signal(str, str)

    def __init__(self, poster: MainThreadPoster, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._poster = poster
        self._unsubscribe: list[Callable[[], None]] = []
        self._lock = threading.Lock()
        self._pending_tokens: dict[str, list[str]] = {}
        self._flush_scheduled = False

    # ---- Public API

    def attach(self, bus: EventBus, prefix: str = "") -> None:
        """Start relaying the events of ``bus`` whose kind starts with ``prefix``."""
        self._unsubscribe.append(bus.subscribe(self._on_bus_event, prefix))

    def detach(self) -> None:
        """Stop relaying (safe to call twice)."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()

    # ---- Worker-thread side

    def _on_bus_event(self, event: Event) -> None:
        if event.kind in DUPLICATE_KINDS:
            return
        if event.kind in COALESCED_KINDS:
            text = str(event.data.get("token", event.data.get("text", "")))
            job = str(event.data.get("job_id", event.data.get("job", "")))
            with self._lock:
                self._pending_tokens.setdefault(job, []).append(text)
                if self._flush_scheduled:
                    return
                self._flush_scheduled = True
            self._poster.post(self._flush_tokens)
            return
        kind, data = event.kind, dict(event.data)
        self._poster.post(lambda: self.event_received.emit(kind, data))

    # ---- GUI-thread side

    def _flush_tokens(self) -> None:
        with self._lock:
            pending, self._pending_tokens = self._pending_tokens, {}
            self._flush_scheduled = False
        for job, parts in pending.items():
            self.tokens_received.emit(job, "".join(parts))


def relay_data(data: Any) -> dict[str, Any]:
    """``data`` of an ``event_received`` signal as a dict (it always is one)."""
    return data if isinstance(data, dict) else {}
