"""Finding the chat clients installed here for the Sources editor, and describing sources.

The work runs on the worker thread (``OpRunner``); the editor only shows the outcome.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from curator.sources.discovery import SourceDetails
from curator.vault.settings import SourceConfig


class _Backend(Protocol):
    def list(self) -> builtins.list[SourceConfig]: ...

    def add(self, path: str, adapter: str | None, user_id: str) -> builtins.list[SourceConfig]: ...


def pending_details(sources: Sequence[SourceConfig]) -> dict[str, SourceDetails]:
    """Client and version of sources not added to a vault yet, by id or path."""
    from curator.sources.discovery import describe_source

    found = {}
    for source in sources:
        info = describe_source(source.id or source.path, Path(source.path).expanduser(), source.adapter)
        info.health = info.health or "not added yet"
        found[source.id or source.path] = info
    return found


def add_installed_clients(backend: _Backend, user_id: str) -> tuple[list[SourceConfig], list[Any]]:
    """Discover installed clients and add each readable one not yet a source (worker thread).

    Returns the backend's sources afterwards and every client found (``source_id`` is
    "added" for the ones added now, "already" for those a source already reads).
    """
    from curator.engine import SourceError
    from curator.sources.discovery import discover_clients

    clients = discover_clients()
    sources = backend.list()
    for client in clients:
        if not (client.supported and client.adapter):
            continue
        path = Path(client.path).resolve()
        if any(path == Path(s.path).expanduser().resolve() for s in sources):
            client.source_id = "already"
            continue
        try:
            sources = backend.add(client.path, client.adapter, user_id)
            client.source_id = "added"
        except SourceError as exc:
            client.detail = str(exc)
    return sources, clients


def describe_found(clients: Sequence[Any]) -> str:
    """One line per client found: what it is, how many conversations, what was done."""
    if not clients:
        return "No chat clients found at their usual places."
    lines = []
    for c in clients:
        if not c.supported:
            lines.append(f"{c.client}: not readable ({c.detail})")
            continue
        done = {"added": "added", "already": "already a source"}.get(c.source_id, c.detail or "not added")
        lines.append(f"{c.client} {c.version}: {c.conversations} conversations, {done}".replace("  ", " "))
    return "\n".join(lines)
