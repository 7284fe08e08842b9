"""Building an index from the vault: healing a damaged one, and ``curator reindex``.

The turn ledger and the vault's documents are the truth; the index is derived from them
(and from the sources, for what the ledger has not seen yet). A rebuild writes a fresh index
file beside the live one so the two can be compared before the swap.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curator.clock import Clock
from curator.events import EventBus
from curator.index.database import Index
from curator.mcp.tools import sync_documents
from curator.sources.ingest import Ingestor
from curator.sources.ledger import TurnLedger
from curator.vault.paths import VaultPaths
from curator.vault.settings import SourceConfig
from curator.vault.store import DocumentStore

log = logging.getLogger(__name__)


@dataclass
class ReindexReport:
    """Outcome of ``Engine.reindex``."""

    equal: bool
    turns: int
    documents: int
    differences: list[str] = field(default_factory=list)
    catch_up: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "equal": self.equal,
            "turns": self.turns,
            "documents": self.documents,
            "differences": self.differences,
            "catch_up": self.catch_up,
        }


def fill_from_ledger(index: Index, ledger: TurnLedger, store: DocumentStore, bus: EventBus, clock: Clock,
                     vault: Path) -> None:
    """Fill an empty (healed) index from the turn ledger and the documents, with progress events."""
    users = ledger.users()
    total = len(users) + 1
    bus.emit("index.rebuild", stage="started", done=0, total=total, message=index.healed)
    rebuild = Ingestor(index, ledger, EventBus(), clock, exclude=(vault,))
    for done, user_id in enumerate(users, start=1):
        rebuild.replay_user(user_id, logging.INFO)
        bus.emit("index.rebuild", stage="turns", done=done, total=total, message=f"turns of {user_id}")
    counts = sync_documents(index, store)
    bus.emit("index.rebuild", stage="done", done=total, total=total,
             message=f"index rebuilt: {sum(index.turn_counts().get(u, {}).get('active', 0) for u in users)} "
                     f"active turns, {counts['indexed']} documents")


def build_beside(live: Index, paths: VaultPaths, ledger: TurnLedger, store: DocumentStore, clock: Clock,
                 sources: list[SourceConfig]) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    """A fresh index file beside ``live``, built from the vault and ``sources``.

    Returns its path and the snapshots of the live and the fresh index, for comparison.
    """
    from curator.index.archive import Archiver

    target = paths.root / f".index-rebuild-{os.getpid()}.sqlite"
    remove_sqlite(target)
    fresh = Index(target)
    try:
        rebuild = Ingestor(fresh, ledger, EventBus(), clock, exclude=(paths.root,))
        rebuild.replay_ledgers(logging.INFO)
        sync_documents(fresh, store)
        for source in sources:
            if source.enabled:
                rebuild.import_path(source)
        # Archival is part of what the index derives: the same boundary, the same rows.
        Archiver(live, paths).reapply()
        Archiver(fresh, paths).reapply()
        return target, live.snapshot(), fresh.snapshot()
    finally:
        fresh.close()


def remove_stale_rebuilds(root: Path) -> None:
    """Delete rebuild files a dead writer left (only the writer, holding the lock, calls this)."""
    for path in root.glob(".index-rebuild-*.sqlite"):
        log.info("removing %s, left by an interrupted reindex", path.name)
        remove_sqlite(path)
    for path in root.glob(".index-rebuild-*.sqlite-*"):
        if not path.with_name(path.name.rsplit("-", 1)[0]).exists():
            path.unlink(missing_ok=True)


def remove_sqlite(path: Path, keep_main: bool = False) -> None:
    """A SQLite database's files: its WAL and shared memory, and the database unless ``keep_main``."""
    names = [path.name + "-wal", path.name + "-shm"] + ([] if keep_main else [path.name])
    for name in names:
        try:
            os.unlink(path.with_name(name))
        except FileNotFoundError:
            pass


def differences(old: dict[str, Any], new: dict[str, Any], limit: int = 20) -> list[str]:
    """Rows only one of two index snapshots holds, at most ``limit`` lines."""
    out: list[str] = []
    for table in ("turns", "documents", "items", "archive"):
        a, b = set(old[table]), set(new[table])
        for row in sorted(a - b, key=repr)[:limit]:
            out.append(f"{table}: only in the live index: {str(row)[:200]}")
        for row in sorted(b - a, key=repr)[:limit]:
            out.append(f"{table}: only in the rebuilt index: {str(row)[:200]}")
    return out[:limit]
