"""Garbage collection paced for reading many units at once (an import, a rescan).

A batch of units keeps every new turn until its end, when the triggers count them, so the
objects that survive grow by hundreds of thousands. With CPython's default thresholds each
of them is scanned again in every full collection the growth sets off: about a twentieth
of a 100,000-turn import went to re-scanning turns that were never garbage. Inside a
batch the youngest generation is collected after ``BULK_THRESHOLD`` allocations instead
of 700, which sets off full collections correspondingly less often. Nothing is switched
off (cyclic garbage is still found, a little later), and the thresholds that were in force
come back when the last batch ends.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# Young objects allowed between collections inside a batch: a few megabytes at most.
BULK_THRESHOLD = 50_000


class _Pacing:
    """Nested and concurrent batches share one change of the thresholds."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.saved: tuple[int, int, int] | None = None
        self.bulk: tuple[int, int, int] | None = None

    def enter(self) -> None:
        with self.lock:
            self.depth += 1
            if self.depth > 1:
                return
            first, second, third = gc.get_threshold()
            # 0 means the process switched automatic collection off; a higher one was
            # chosen on purpose. Either way it is left alone.
            if 0 < first < BULK_THRESHOLD:
                self.saved = (first, second, third)
                self.bulk = (BULK_THRESHOLD, second, third)
                gc.set_threshold(*self.bulk)

    def leave(self) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth or self.saved is None:
                return
            # Someone else changed the thresholds meanwhile: theirs stay.
            if gc.get_threshold() == self.bulk:
                gc.set_threshold(*self.saved)
            self.saved = self.bulk = None


_PACING = _Pacing()


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect garbage less often until the block (and any block around it) ends."""
    _PACING.enter()
    try:
        yield
    finally:
        _PACING.leave()
