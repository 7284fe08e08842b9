"""Fault injection for the crash tests: ``CURATOR_FAULT=<point>`` kills the process there.

The fault suite (tests/faults) and ``curator bench --suite faults`` start a child with
``CURATOR_FAULT`` naming one point, e.g. ``approve.after_write``; when the child reaches it,
it sends itself SIGKILL (a real ``kill -9``: no cleanup, no flush, no ``finally``). A point
may name a count, ``approve.after_write@2``, to die on its second visit. Unset, a point
costs one dictionary lookup.
"""

from __future__ import annotations

import os
import signal

ENV = "CURATOR_FAULT"
_visits: dict[str, int] = {}


def fault_point(name: str) -> None:
    """Die here, by SIGKILL, when ``CURATOR_FAULT`` names this point (and visit count)."""
    wanted = os.environ.get(ENV)
    if not wanted:
        return
    point, _, nth = wanted.partition("@")
    if point != name:
        return
    _visits[name] = _visits.get(name, 0) + 1
    if _visits[name] >= int(nth or 1):
        os.kill(os.getpid(), signal.SIGKILL)
