"""Source adapters and their detection. ``ADAPTERS`` maps a name to its adapter.

Detection is per file: ``detect_adapter`` names the one format a folder holds, or ``auto``
when it holds several, which reads each file with the format that claims it.
"""

from __future__ import annotations

from pathlib import Path

from curator.sources.adapters.anythingllm import AnythingLLMAdapter
from curator.sources.adapters.base import Adapter, ReadResult, ReadState, is_temp_name
from curator.sources.adapters.chatgpt import ChatGptAdapter
from curator.sources.adapters.claude_ai import ClaudeAiAdapter
from curator.sources.adapters.claude_code import ClaudeCodeAdapter
from curator.sources.adapters.episodes import EpisodesAdapter
from curator.sources.adapters.jan import JanAdapter, find_data_folder
from curator.sources.adapters.jsonl import JsonlAdapter
from curator.sources.adapters.koboldcpp import KoboldCppAdapter
from curator.sources.adapters.lmstudio import LmStudioAdapter
from curator.sources.adapters.mixed import MixedAdapter
from curator.sources.adapters.ollama_app import OllamaAppAdapter
from curator.sources.adapters.openclaw import OpenClawAdapter
from curator.sources.adapters.sillytavern import SillyTavernAdapter
from curator.sources.adapters.textgen_webui import TextGenWebuiAdapter
from curator.sources.adapters.turn_folder import TurnFolderAdapter
from curator.sources.adapters.webui import OpenWebUIAdapter

# Order matters only for ties: the more specific formats first, the catch-alls last.
_FORMATS: list[Adapter] = [
    SillyTavernAdapter(),
    JanAdapter(),
    ClaudeCodeAdapter(),
    OpenClawAdapter(),
    TextGenWebuiAdapter(),
    LmStudioAdapter(),
    ChatGptAdapter(),
    ClaudeAiAdapter(),
    KoboldCppAdapter(),
    TurnFolderAdapter(),
    OpenWebUIAdapter(),
    AnythingLLMAdapter(),
    OllamaAppAdapter(),
    EpisodesAdapter(),
    JsonlAdapter(),
]
MIXED = MixedAdapter(_FORMATS)

ADAPTERS: dict[str, Adapter] = {adapter.name: adapter for adapter in [*_FORMATS, MIXED]}

__all__ = [
    "ADAPTERS",
    "Adapter",
    "ReadResult",
    "ReadState",
    "UnknownAdapterError",
    "detect_adapter",
    "detect_formats",
    "get_adapter",
    "is_temp_name",
    "register",
    "resolve_source_root",
]


class UnknownAdapterError(ValueError):
    """No adapter of that name, or none recognises a folder."""


def register(adapter: Adapter) -> None:
    """Add a format (before the catch-alls), so detection and ``auto`` sources know it."""
    if adapter.name in ADAPTERS:
        raise ValueError(f"adapter {adapter.name!r} is registered already")
    _FORMATS.insert(max(0, len(_FORMATS) - 2), adapter)
    ADAPTERS[adapter.name] = adapter


def get_adapter(name: str) -> Adapter:
    """The adapter called ``name``; raises ``UnknownAdapterError`` listing the known ones."""
    try:
        return ADAPTERS[name]
    except KeyError:
        raise UnknownAdapterError(
            f"unknown adapter {name!r}; known: {', '.join(sorted(ADAPTERS))}"
        ) from None


def resolve_source_root(path: Path) -> Path:
    """Where a source given as ``path`` really keeps its chats.

    A client whose data folder can be moved says where in its settings: a Jan app folder
    (holding ``settings.json`` with ``data_folder``) resolves to that data folder.
    """
    path = Path(path)
    if path.is_dir() and (path / "settings.json").is_file() and not (path / "threads").is_dir():
        data = find_data_folder(path)
        if data != path and data.is_dir():
            return data
    return path


def detect_formats(root: Path) -> dict[str, int]:
    """How many units of each format a folder (or file) holds, detected file by file."""
    return MIXED.formats(Path(root))


def detect_adapter(root: Path) -> tuple[str, float]:
    """The adapter for a folder's contents and how sure detection is (0..1).

    One format found: that format. Several: ``auto``, which reads each file as its own.

    Raises:
        UnknownAdapterError: when no adapter recognises anything in ``root``.
    """
    root = Path(root)
    formats = detect_formats(root)
    if not formats:
        names = ", ".join(sorted(n for n in ADAPTERS if n != MIXED.name))
        raise UnknownAdapterError(
            f"no adapter recognises {root}: no file in it looks like any known chat format "
            f"({names}); name one with --adapter"
        )
    if len(formats) == 1:
        name = next(iter(formats))
        return name, max(0.5, min(1.0, ADAPTERS[name].detect(root)))
    return MIXED.name, 0.9
