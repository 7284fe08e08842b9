"""curator.model_jobs: cancel a model job by its event id."""

from __future__ import annotations

import threading
from pathlib import Path

from curator.events import EventBus
from curator.llm.request import ModelRequest, Segment
from curator.llm.scripted import ScriptedBackend
from curator.llm.runtime import ModelRuntime
from curator.model_jobs import cancel_model_job


def _runtime(backend: ScriptedBackend, bus: EventBus) -> ModelRuntime:
    return ModelRuntime(Path("scripted.gguf"), bus=bus, backend_factory=lambda *_a, **_k: backend, validate_file=False)


def test_cancel_a_running_job_by_id() -> None:
    bus = EventBus()
    started = threading.Event()
    ids: list[int] = []
    bus.subscribe(lambda e: (ids.append(e.data["job_id"]), started.set()), "job.started")
    backend = ScriptedBackend([" ".join(["word"] * 400)], token_delay=0.01)
    runtime = _runtime(backend, bus)
    try:
        handle = runtime.submit(ModelRequest(kind="summary", system="s", user=[Segment(text="u")], max_tokens=400))
        assert started.wait(10)
        assert cancel_model_job(runtime, str(ids[0]))
        result = handle.result(timeout=10)
        assert result.status.value == "cancelled"
        assert not cancel_model_job(runtime, ids[0])
        assert not cancel_model_job(runtime, "not-a-number")
    finally:
        runtime.shutdown()
