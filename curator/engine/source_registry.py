"""The vault's configured sources: add, find, remove, discover, describe and read them.

The list lives in ``curator.yaml`` (``Settings.sources``); every change is saved at once and
the watcher restarted through ``restart_watching``, because a watcher holds its own list.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from curator.index.database import Index
from curator.sources.adapters import (
    UnknownAdapterError,
    detect_adapter,
    get_adapter,
    resolve_source_root,
)
from curator.sources.discovery import (
    DiscoveredClient,
    SourceDetails,
    describe_source,
    discover_clients,
    find_nested,
)
from curator.sources.ingest import Ingestor, IngestReport, source_root
from curator.sources.watcher import SourceHealth
from curator.vault.paths import VaultPaths, slugify, validate_user_id
from curator.vault.settings import Settings, SourceConfig, save_settings

log = logging.getLogger(__name__)


class SourceError(ValueError):
    """A source that cannot be added, found or read (the message says why)."""


def make_source_id(path: Path) -> str:
    """A stable, readable id for a source path."""
    digest = hashlib.sha1(str(path).encode("utf-8")).hexdigest()[:6]
    return f"{slugify(path.stem or path.name, 24)}-{digest}"


class SourceRegistry:
    """The sources of one vault (the writer's: every change is saved to ``curator.yaml``).

    ``index`` is a getter because a reindex replaces the engine's index; ``live_health``
    is what the running watcher last saw (empty when nothing watches).
    """

    def __init__(self, paths: VaultPaths, settings: Settings, ingestor: Ingestor,
                 index: Callable[[], Index], live_health: Callable[[], Mapping[str, SourceHealth]],
                 restart_watching: Callable[[], None]) -> None:
        self.paths = paths
        self.settings = settings
        self.ingestor = ingestor
        self._index = index
        self._live_health = live_health
        self._restart_watching = restart_watching

    def add(self, path: Path, adapter: str | None = None, user_id: str = "default") -> SourceConfig:
        """Add a watched source (adapter detected from its contents when not named).

        Raises:
            SourceError: missing path, inside the vault, already added, or unrecognised.
        """
        root = resolve_source_root(Path(path).expanduser().resolve())
        validate_user_id(user_id)
        if not root.exists():
            raise SourceError(f"{root} does not exist")
        if root == self.paths.root or root.is_relative_to(self.paths.root):
            raise SourceError(f"{root} is inside the vault; the vault is never watched as a source")
        if any(source_root(s).resolve() == root for s in self.settings.sources):
            raise SourceError(f"{root} is already a source")
        if adapter is None:
            try:
                adapter, score = detect_adapter(root)
            except UnknownAdapterError:
                # A home folder, or an app's folder with its data a level or more down.
                nested = find_nested(root)
                if len(nested) != 1:
                    if nested:
                        where = "; ".join(f"{c.client} at {c.path}" for c in nested)
                        raise SourceError(f"{root} holds the chats of several clients ({where}): add each "
                                          "of those folders, or use `curator source discover --add`") from None
                    raise
                found = nested[0]
                log.info("source %s: %s found below it, at %s", root, found.client, found.path)
                root, adapter, score = Path(found.path).resolve(), found.adapter, 1.0
                if any(source_root(s).resolve() == root for s in self.settings.sources):
                    raise SourceError(f"{root} ({found.client}, found in the folder you named) is already "
                                      "a source") from None
            log.info("source %s: adapter %s detected (score %.2f)", root, adapter, score)
        else:
            get_adapter(adapter)
        source = SourceConfig(path=str(root), adapter=adapter, user_id=user_id, id=make_source_id(root))
        if self.paths.root.is_relative_to(root):
            log.warning("the vault %s is inside source %s; it is excluded from watching", self.paths.root, root)
        self.settings.sources.append(source)
        save_settings(self.paths.settings_file, self.settings)
        self.paths.user(user_id).ensure()
        self._restart_watching()
        return source

    def discover_clients(self, **where: Any) -> list[DiscoveredClient]:
        """Chat clients installed at their default places, each marked with the source that
        already reads it (``source_id``). ``where`` goes to ``discovery.discover_clients``
        (``home``, ``env``, ``platform``, ``system_paths``); it only reads."""
        clients = discover_clients(**where)
        roots = {source_root(s).resolve(): s.id for s in self.settings.sources}
        for client in clients:
            path = Path(client.path).resolve()
            client.source_id = next((sid for root, sid in roots.items()
                                     if path == root or path.is_relative_to(root)
                                     or (root.is_file() and root.parent == path)), "")
        return clients

    def add_discovered(self, clients: list[DiscoveredClient], user_id: str = "default") -> list[SourceConfig]:
        """Add every supported, not yet added client of ``clients`` as a source."""
        added = []
        for client in clients:
            if client.supported and client.adapter and not client.source_id:
                source = self.add(Path(client.path), client.adapter, user_id)
                client.source_id = source.id
                added.append(source)
        return added

    def details(self) -> dict[str, SourceDetails]:
        """Client, version and health of every source, by id (Settings → Sources)."""
        live = self._live_health()
        details = {}
        for source in self.settings.sources:
            info = describe_source(source.id, source_root(source), source.adapter)
            if not info.health:
                if source.id in live:
                    info.health, info.detail = live[source.id].status, live[source.id].detail
                else:
                    available = self.ingestor.availability(source)
                    info.health = "available" if available.available else "unavailable"
                    info.detail = available.reason
                problems = self._index().problems(source.id)
                if problems and info.health in ("available", "watching", "polling"):
                    info.detail = f"{len(problems)} parts skipped: {problems[0][2]}"
            details[source.id] = info
        return details

    def find(self, ref: str) -> SourceConfig:
        """A configured source by id or path."""
        for source in self.settings.sources:
            if source.id == ref:
                return source
        try:
            wanted = Path(ref).expanduser().resolve()
        except OSError:
            wanted = None
        for source in self.settings.sources:
            if wanted is not None and source_root(source).resolve() == wanted:
                return source
        raise SourceError(f"no source {ref!r} (see `curator source list`)")

    def remove(self, ref: str) -> SourceConfig:
        """Stop watching a source. Its turns and everything derived from them are kept."""
        source = self.find(ref)
        self.settings.sources = [s for s in self.settings.sources if s.id != source.id]
        save_settings(self.paths.settings_file, self.settings)
        self._restart_watching()
        self._index().forget_source(source.id)
        return source

    def import_path(self, path: Path, adapter: str | None = None, user_id: str = "default") -> IngestReport:
        """One-shot ingest of a folder or file (a configured source or any other path)."""
        root = Path(path).expanduser().resolve()
        if not root.exists():
            raise SourceError(f"{root} does not exist")
        if root == self.paths.root or root.is_relative_to(self.paths.root):
            raise SourceError(f"{root} is inside the vault")
        try:
            source = self.find(str(root))
        except SourceError:
            if adapter is None:
                adapter, _ = detect_adapter(root)
            source = SourceConfig(path=str(root), adapter=adapter, user_id=validate_user_id(user_id),
                                  id="import-" + make_source_id(root))
            self.paths.user(user_id).ensure()
        return self.ingestor.import_path(source)

    def scan_all(self) -> IngestReport:
        """Read every enabled source now (no stability wait)."""
        report = IngestReport()
        for source in self.settings.sources:
            if source.enabled:
                report.merge(self.ingestor.import_path(source))
        return report
