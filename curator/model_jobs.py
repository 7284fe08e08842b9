"""Cancel a model job by the id that ``job.*`` and ``model.token`` events carry.

The GUI only knows a running reflection by the ``job_id`` of the runtime's events; the
runtime hands out ``JobHandle`` objects to whoever submitted the job. Until
``ModelRuntime`` offers ``cancel(job_id)`` itself, this looks the job up among the
runtime's queued and running jobs and cancels it the same way its handle would (between
tokens; a cancelled reflection stages nothing).

Threading: safe to call from any thread (the runtime's own locks are taken).
"""

from __future__ import annotations

from typing import Any


def cancel_model_job(runtime: Any, job_id: int | str) -> bool:
    """Cancel job ``job_id`` of ``runtime``; False when no such job is queued or running."""
    try:
        wanted = int(job_id)
    except (TypeError, ValueError):
        return False
    own = getattr(runtime, "cancel", None)
    if callable(own):
        return bool(own(wanted))
    with runtime._lock:
        jobs = [job for job in (*runtime._pending, runtime._current) if job is not None and job.id == wanted]
    return any(runtime._cancel(job) for job in jobs)
