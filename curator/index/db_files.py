"""The index file on disk: removing it, or setting a damaged one aside."""

from __future__ import annotations

import os
from pathlib import Path


def remove_database(path: Path) -> None:
    """Delete an SQLite file with its WAL and shared-memory files (missing ones are fine)."""
    for name in (path.name, path.name + "-wal", path.name + "-shm", path.name + "-journal"):
        try:
            os.unlink(path.with_name(name))
        except FileNotFoundError:
            pass


def set_aside_database(path: Path) -> Path:
    """Move a damaged index (and its WAL) aside as ``<name>.corrupt-N``; never deletes it."""
    n = 1
    while path.with_name(f"{path.name}.corrupt-{n}").exists():
        n += 1
    aside = path.with_name(f"{path.name}.corrupt-{n}")
    if path.exists():
        os.replace(path, aside)
    for suffix in ("-wal", "-shm", "-journal"):
        extra = path.with_name(path.name + suffix)
        if extra.exists():
            os.replace(extra, aside.with_name(aside.name + suffix))
    return aside

