"""Engine operations off the GUI thread, results back on it.

Every pane action (approve, search, restore...) is a plain engine call submitted here. One
background thread runs them in order, so vault writes never race each other; the model has
its own worker inside the engine. Results and errors are posted back to the GUI thread.
"""

from __future__ import annotations

import itertools
import logging
import traceback
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Signal

from ui.infra.bridge import MainThreadPoster

log = logging.getLogger(__name__)
T = TypeVar("T")


class OpRunner(QObject):
    """Runs engine operations on one worker thread.

    Signals (all emitted on the GUI thread): ``op_started(label)``, ``op_finished(label)``,
    ``op_failed(label, message)``, ``busy_changed(bool)``.

    Threading contract: ``submit`` must be called on the GUI thread; ``fn`` runs on the
    worker thread and must not touch widgets; ``on_done``/``on_error`` run on the GUI thread.
    """

    op_started = Signal(str)
    op_finished = Signal(str)
    op_failed = Signal(str, str)
    busy_changed = Signal(bool)

    def __init__(self, poster: MainThreadPoster, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._poster = poster
        self._executor: ThreadPoolExecutor | None = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="curator-ui-ops"
        )
        self._running = 0
        self._generations: dict[str, int] = {}
        # The callbacks of each submitted operation, by ticket. They stay on the GUI side so
        # the worker never holds the last reference to a widget: a QWidget freed on the
        # worker thread (a pane closed while its operation ran) crashes Qt.
        self._callbacks: dict[int, tuple[Callable[[Any], None] | None, Callable[[BaseException], None] | None]] = {}
        self._tickets = itertools.count(1)

    # ---- Public API

    def submit(
        self,
        label: str,
        fn: Callable[[], T],
        on_done: Callable[[T], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        latest_only: str = "",
    ) -> Future[T] | None:
        """Run ``fn`` in the background; call ``on_done(result)`` on the GUI thread.

        With ``latest_only`` set, a result is dropped when a newer submission with the same
        key was made meanwhile (search as you type). Errors go to ``on_error`` if given,
        and always to ``op_failed``.
        """
        if self._executor is None:
            return None
        generation = 0
        if latest_only:
            generation = self._generations.get(latest_only, 0) + 1
            self._generations[latest_only] = generation
        self._set_running(+1)
        self.op_started.emit(label)
        ticket = next(self._tickets)
        self._callbacks[ticket] = (on_done, on_error)
        future = self._executor.submit(fn)

        def finished(fut: Future[T]) -> None:
            self._poster.post(lambda: self._deliver(label, fut, ticket, latest_only, generation))

        future.add_done_callback(finished)
        return future

    def is_busy(self) -> bool:
        return self._running > 0

    def shutdown(self, wait: bool = True) -> None:
        """Stop accepting work and (by default) wait for the running operation."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=wait, cancel_futures=True)

    # ---- GUI-thread side

    def _deliver(
        self,
        label: str,
        fut: Future[Any],
        ticket: int,
        latest_only: str,
        generation: int,
    ) -> None:
        on_done, on_error = self._callbacks.pop(ticket, (None, None))
        self._set_running(-1)
        if fut.cancelled():
            return
        stale = bool(latest_only) and self._generations.get(latest_only) != generation
        error = fut.exception()
        if error is not None:
            log.warning("operation %s failed: %s", label, "".join(traceback.format_exception(error)))
            message = str(error) or type(error).__name__
            self.op_failed.emit(label, message)
            if on_error is not None and not stale:
                on_error(error)
            return
        self.op_finished.emit(label)
        if on_done is not None and not stale:
            on_done(fut.result())

    def _set_running(self, delta: int) -> None:
        before = self._running > 0
        self._running += delta
        if before != (self._running > 0):
            self.busy_changed.emit(self._running > 0)
