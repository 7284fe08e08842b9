"""The one way the product writes files: temp file beside the target, fsync, rename, fsync dir.

Every write in the product goes through here, so a crash leaves either the old bytes or the
new bytes on disk, never a truncated mix. JSON state files additionally keep a backup copy
of the last good version, and a corrupt file is moved aside instead of being overwritten.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

TEMP_PREFIX = ".curator-tmp-"


def _fsync_dir(directory: Path) -> None:
    # Directory fsync makes the rename itself durable; not every platform supports it.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically, creating parent folders as needed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink():
        raise OSError(f"refusing to write through a symbolic link: {path}")
    fd, tmp_name = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` with UTF-8 ``text`` atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))


def write_json_state(path: Path, state: Any) -> None:
    """Write a JSON state file, keeping the previous good version as ``<name>.bak``."""
    path = Path(path)
    data = json.dumps(state, indent=2, sort_keys=True, ensure_ascii=False).encode("utf-8")
    if path.exists():
        try:
            previous = path.read_bytes()
            json.loads(previous)
        except (OSError, ValueError):
            pass  # never let a corrupt current file overwrite a good backup
        else:
            atomic_write_bytes(path.with_name(path.name + ".bak"), previous)
    atomic_write_bytes(path, data)


def read_json_state(path: Path, default: Any) -> tuple[Any, str | None]:
    """Read a JSON state file, recovering from corruption.

    Returns ``(state, warning)``. A missing file gives ``default`` and no warning. A corrupt
    file is moved aside to ``<name>.corrupt-<n>``, the backup copy is used if it is good,
    else ``default``; the warning says what happened.
    """
    path = Path(path)
    if not path.exists():
        return default, None
    try:
        return json.loads(path.read_bytes()), None
    except (OSError, ValueError) as exc:
        reason = f"{type(exc).__name__}: {exc}"
    aside = quarantine(path)
    backup = path.with_name(path.name + ".bak")
    try:
        state = json.loads(backup.read_bytes())
    except (OSError, ValueError):
        state = default
        restored = "defaults restored"
    else:
        restored = f"restored from {backup.name}"
    warning = f"state file {path} was unreadable ({reason}); kept aside as {aside.name}, {restored}"
    log.warning(warning)
    return state, warning


def quarantine(path: Path) -> Path:
    """Move a bad file aside (never delete it) and return where it went."""
    n = 1
    while True:
        aside = path.with_name(f"{path.name}.corrupt-{n}")
        if not aside.exists():
            break
        n += 1
    os.replace(path, aside)
    _fsync_dir(path.parent)
    return aside


def append_lines(path: Path, lines: list[str]) -> None:
    """Append whole lines to an append-only log, durably (write, then fsync).

    Used for logs that only ever grow (the turn ledger), where rewriting the whole file per
    change would cost O(size). A crash can leave at most a partial last line; if the file
    does not end with a newline, one is written first so that partial line stays on its own
    line and readers can skip it.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink():
        raise OSError(f"refusing to write through a symbolic link: {path}")
    payload = "".join(line.rstrip("\n") + "\n" for line in lines).encode("utf-8")
    created = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size:
            with open(path, "rb") as reader:
                reader.seek(size - 1)
                if reader.read(1) != b"\n":
                    payload = b"\n" + payload
        view = memoryview(payload)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        _fsync_dir(path.parent)
