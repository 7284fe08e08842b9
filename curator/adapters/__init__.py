"""Source adapters and their detection. ``ADAPTERS`` maps a name to its adapter."""

from __future__ import annotations

from pathlib import Path

from curator.adapters.base import Adapter, ReadResult, ReadState, is_temp_name
from curator.adapters.episodes import EpisodesAdapter
from curator.adapters.jsonl import JsonlAdapter
from curator.adapters.turn_folder import TurnFolderAdapter

ADAPTERS: dict[str, Adapter] = {
    adapter.name: adapter for adapter in (JsonlAdapter(), TurnFolderAdapter(), EpisodesAdapter())
}

__all__ = [
    "ADAPTERS",
    "Adapter",
    "ReadResult",
    "ReadState",
    "UnknownAdapterError",
    "detect_adapter",
    "get_adapter",
    "is_temp_name",
]


class UnknownAdapterError(ValueError):
    """No adapter of that name, or none recognises a folder."""


def get_adapter(name: str) -> Adapter:
    """The adapter called ``name``; raises ``UnknownAdapterError`` listing the known ones."""
    try:
        return ADAPTERS[name]
    except KeyError:
        raise UnknownAdapterError(
            f"unknown adapter {name!r}; known: {', '.join(sorted(ADAPTERS))}"
        ) from None


def detect_adapter(root: Path) -> tuple[str, float]:
    """The best adapter for a folder's contents and its score.

    Raises:
        UnknownAdapterError: when no adapter recognises anything in ``root``.
    """
    scores = {name: adapter.detect(Path(root)) for name, adapter in ADAPTERS.items()}
    best = max(scores, key=lambda n: scores[n])
    if scores[best] <= 0.0:
        raise UnknownAdapterError(
            f"no adapter recognises {root}: expected *.jsonl files, turn_NNNNNN/ folders or "
            f"YYYY-MM-DD.md episode logs (name one with --adapter)"
        )
    return best, scores[best]
