"""One writer per vault: a lock file that a crashed owner cannot leave stuck.

On POSIX the lock is an ``fcntl.flock`` on ``<vault>/.curator.lock``; the kernel drops it
when the owning process dies (even by kill -9), so a stale lock never blocks. Elsewhere the
lock file's recorded pid is checked and a dead owner's lock is taken over. Who holds the
lock (pid, host, since) is written beside it, atomically, for error messages.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import time
from pathlib import Path
from typing import Any

from curator.vault.atomic import atomic_write_text

log = logging.getLogger(__name__)

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


class VaultLockedError(RuntimeError):
    """Another live process writes to this vault."""


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


class VaultLock:
    """The single-writer lock of one vault. Use as a context manager or acquire/release."""

    def __init__(self, lock_file: Path) -> None:
        self.path = Path(lock_file)
        self.info_path = self.path.with_name(self.path.name + ".json")
        self._fd: int | None = None

    def holder(self) -> dict[str, Any]:
        """Who holds (or last held) the lock, as recorded; {} when unknown."""
        try:
            data = json.loads(self.info_path.read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def acquire(self, attempts: int = 1, pause: float = 0.05) -> None:
        """Take the lock or raise ``VaultLockedError`` naming the holder.

        ``attempts`` > 1 tries again after ``pause`` seconds: the MCP server holds the lock
        for the few milliseconds an inbox drain lasts, and a writer starting in that moment
        should wait for it, not refuse to start.
        """
        for attempt in range(max(1, attempts)):
            try:
                self._try_acquire()
                return
            except VaultLockedError:
                if attempt + 1 >= max(1, attempts):
                    raise
                time.sleep(pause)

    def _try_acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise VaultLockedError(self._message()) from None
        else:
            holder = self.holder()
            pid = int(holder.get("pid", 0) or 0)
            if holder.get("held") and pid != os.getpid() and pid_alive(pid):
                os.close(fd)
                raise VaultLockedError(self._message())
            if holder.get("held"):
                log.warning("taking over a stale vault lock left by pid %s", pid)
        self._fd = fd
        atomic_write_text(
            self.info_path,
            json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "since": time.time(), "held": True}),
        )

    def release(self) -> None:
        """Give the lock back (safe to call twice)."""
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            atomic_write_text(self.info_path, json.dumps({**self.holder(), "held": False}))
        if fcntl is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def _message(self) -> str:
        holder = self.holder()
        who = f"process {holder.get('pid', '?')} on {holder.get('host', '?')}" if holder else "another process"
        return f"the vault is in use by {who} (for example `curator watch`); stop it first"

    def __enter__(self) -> VaultLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
