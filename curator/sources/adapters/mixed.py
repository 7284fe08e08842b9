"""Per-file detection: one source that holds several formats reads each file with its own.

A folder may hold OpenClaw session JSONL beside ``memory/*.md`` daily logs, or a Jan data
folder beside a SillyTavern one. The ``auto`` adapter walks the folder once, offers every
file to each format (``Adapter.unit_for`` says whether the path could be one of its units,
``Adapter.claim`` how strongly the file's first bytes look like it) and hands each unit to
the format that claims it most. What a file was read as is remembered per file and inode,
so a rescan peeks at new files only.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path

from curator.sources.adapters.base import (
    Adapter,
    ReadResult,
    ReadState,
    is_temp_name,
    read_head,
)

log = logging.getLogger(__name__)

# A file only a folder-level or catch-all adapter accepts still counts, below any claim.
_ACCEPTED = 0.01
# Folders no client keeps conversations in, never walked.
_SKIP_DIRS = {"node_modules", "__pycache__", ".git", "backups"}
MAX_WALK = 200_000
# A claim this sure is kept for the file's life: a format's own header or path pattern.
STRONG_CLAIM = 0.5


def walk_files(root: Path) -> Iterator[Path]:
    """Every regular file under ``root`` (itself when a file), hidden and skipped folders left out."""
    if root.is_file():
        yield root
        return
    seen = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        for name in sorted(files):
            if name.startswith(".") or is_temp_name(name):
                continue
            seen += 1
            if seen > MAX_WALK:
                return
            yield Path(folder) / name


def _safe_claim(adapter: Adapter, path: Path, head: bytes) -> float:
    # A claim reads untrusted bytes; a bug in one format must not hide the others' files.
    try:
        return float(adapter.claim(path, head))
    except Exception:
        log.exception("format %s failed to look at %s", adapter.name, path)
        return 0.0


class MixedAdapter(Adapter):
    """Dispatches each unit of a source to the format that claims it."""

    name = "auto"
    description = "several formats in one folder, detected file by file"

    def __init__(self, adapters: list[Adapter]) -> None:
        self.adapters = adapters
        self._owners: dict[tuple[str, int, int, int], str] = {}
        self._sticky: dict[tuple[str, int], str] = {}
        self._unit_owner: dict[str, Adapter] = {}
        self._lock = threading.Lock()

    def owner(self, root: Path, path: Path) -> tuple[Adapter, Path] | None:
        """The adapter that reads ``path`` and the unit it belongs to, or None.

        Formats that read single files must claim the file's first bytes; folder formats
        (turn folders) only need to accept the path.
        """
        offers = [(a, u) for a in self.adapters if (u := a.unit_for(root, path)) is not None]
        if not offers:
            return None
        claimers = [o for o in offers if type(o[0]).claim is not Adapter.claim]
        if len(offers) == 1 and not claimers:
            return self._remember(offers[0])
        try:
            st = os.stat(path)
        except OSError:
            return None
        # A strong claim sticks to the file for its life (the same inode); anything weaker
        # is asked again only when the file changes. Reading the head opens the file, which
        # the watcher sees as an event: without this memory, every look would cause another.
        sticky = (str(path), st.st_ino)
        key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns)
        with self._lock:
            known = self._sticky.get(sticky, self._owners.get(key))
        if known is not None:
            return next((self._remember(o) for o in offers if o[0].name == known), None)
        head = read_head(path) if path.is_file() else b""
        scored = []
        for adapter, unit in offers:
            score = _safe_claim(adapter, path, head) if (adapter, unit) in claimers else _ACCEPTED
            if score > 0:
                scored.append((score, adapter, unit))
        best = max(scored, key=lambda s: s[0]) if scored else None
        with self._lock:
            if len(self._owners) > 100_000:
                self._owners.clear()
                self._sticky.clear()
            self._owners[key] = best[1].name if best is not None else ""
            if best is not None and best[0] >= STRONG_CLAIM:
                self._sticky[sticky] = best[1].name
        return self._remember((best[1], best[2])) if best is not None else None

    def _remember(self, found: tuple[Adapter, Path]) -> tuple[Adapter, Path]:
        with self._lock:
            if len(self._unit_owner) > 100_000:
                self._unit_owner.clear()
            self._unit_owner[str(found[1])] = found[0]
        return found

    def formats(self, root: Path) -> dict[str, int]:
        """How many units of each format ``root`` holds."""
        counts: dict[str, set[Path]] = {}
        for path in walk_files(root):
            found = self.owner(root, path)
            if found is not None:
                counts.setdefault(found[0].name, set()).add(found[1])
        return {name: len(units) for name, units in counts.items()}

    def detect(self, root: Path) -> float:
        return 0.5 if len(self.formats(root)) > 1 else 0.0

    def list_units(self, root: Path) -> list[Path]:
        units: set[Path] = set()
        for path in walk_files(root):
            found = self.owner(root, path)
            if found is not None:
                units.add(found[1])
        return sorted(units)

    def unit_for(self, root: Path, path: Path) -> Path | None:
        found = self.owner(root, path)
        return found[1] if found is not None else None

    def _adapter(self, unit: Path) -> Adapter | None:
        # A unit is a file (its own owner) or a folder unit such as turn_NNNNNN/.
        with self._lock:
            known = self._unit_owner.get(str(unit))
        if known is not None:
            return known
        for adapter in self.adapters:
            if unit.is_dir() and adapter.unit_for(unit.parent, unit / "response.md") == unit:
                return adapter
        found = self.owner(unit.parent, unit) if unit.is_file() else None
        return found[0] if found is not None else None

    def is_complete(self, unit: Path) -> bool:
        adapter = self._adapter(unit)
        return adapter.is_complete(unit) if adapter is not None else False

    def fingerprint(self, unit: Path) -> str:
        adapter = self._adapter(unit)
        return adapter.fingerprint(unit) if adapter is not None else ""

    def read(self, root: Path, unit: Path, source_id: str, state: ReadState | None) -> ReadResult:
        found = self.owner(root, unit) if unit.is_file() else None
        adapter = found[0] if found is not None and found[1] == unit else self._adapter(unit)
        if adapter is None:
            result = ReadResult(ready=False)
            result.problem(f"{unit.name}: no format recognises this file any more; skipped")
            return result
        return adapter.read(root, unit, source_id, state)
