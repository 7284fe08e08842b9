"""Plain-Python events from the engine; the GUI adapts them to Qt signals (no Qt here).

Threading contract: ``emit`` calls listeners on the emitting thread (often a worker). A
listener that touches a GUI must hop to its own thread itself (``ui/bridge.py`` does).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Event:
    """Something that happened: a dotted ``kind`` (``turns.added``) and plain data."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)


Listener = Callable[[Event], None]


class EventBus:
    """Synchronous publish/subscribe; a failing listener is logged, never propagated."""

    def __init__(self) -> None:
        self._listeners: list[tuple[str, Listener]] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener, prefix: str = "") -> Callable[[], None]:
        """Call ``listener`` for every event whose kind starts with ``prefix``.

        Returns a function that unsubscribes.
        """
        entry = (prefix, listener)
        with self._lock:
            self._listeners.append(entry)

        def unsubscribe() -> None:
            with self._lock:
                if entry in self._listeners:
                    self._listeners.remove(entry)

        return unsubscribe

    def emit(self, kind: str, **data: Any) -> None:
        event = Event(kind, data)
        with self._lock:
            listeners = [fn for prefix, fn in self._listeners if kind.startswith(prefix)]
        for listener in listeners:
            try:
                listener(event)
            except Exception:
                log.exception("event listener failed on %s", kind)
