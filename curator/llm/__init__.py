"""The model layer: GGUF headers, model discovery, and one worker that runs llama.cpp.

Importing this package never imports ``llama_cpp``; that happens inside the worker thread
the first time a model is loaded, so ``import curator`` stays fast and works without it.
"""

from curator.llm.gguf import GGUFError, GGUFInfo, check_gguf, read_gguf
from curator.llm.request import JobStatus, ModelRequest, ModelResult, Priority, Segment

__all__ = [
    "GGUFError",
    "GGUFInfo",
    "JobStatus",
    "ModelRequest",
    "ModelResult",
    "Priority",
    "Segment",
    "check_gguf",
    "read_gguf",
]
