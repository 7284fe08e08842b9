"""The model layer: GGUF headers, model discovery, and one worker that runs llama.cpp.

Importing this package never imports ``llama_cpp``; that happens inside the worker thread
the first time a model is loaded, so ``import curator`` stays fast and works without it.
The names below load with their module on first use: the window's status pane reads one
small module of this package before it shows.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "GGUFError": "curator.llm.gguf", "GGUFInfo": "curator.llm.gguf", "check_gguf": "curator.llm.gguf",
    "read_gguf": "curator.llm.gguf", "JobStatus": "curator.llm.request", "ModelRequest": "curator.llm.request",
    "ModelResult": "curator.llm.request", "Priority": "curator.llm.request", "Segment": "curator.llm.request",
}
__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'curator.llm' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
