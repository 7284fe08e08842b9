"""The single-writer lock: a brief holder (an MCP inbox drain) is waited for, a writer is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from curator.engine import Engine
from curator.vault import lock as lock_module
from curator.vault.lock import VaultLock, VaultLockedError


def test_a_second_holder_is_refused_with_the_holder_named(tmp_path: Path) -> None:
    first = VaultLock(tmp_path / ".curator.lock")
    first.acquire()
    try:
        with pytest.raises(VaultLockedError, match="in use by process"):
            VaultLock(tmp_path / ".curator.lock").acquire(attempts=3, pause=0.0)
    finally:
        first.release()
    again = VaultLock(tmp_path / ".curator.lock")
    again.acquire()
    again.release()


def test_a_writer_starting_during_an_inbox_drain_waits_for_it(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # The drain holds the lock for the writer's first three tries, then lets go.
    drain = VaultLock(tmp_path / "vault" / ".curator.lock")
    drain.acquire()
    tries: list[int] = []
    real_sleep = lock_module.time.sleep

    def sleep(seconds: float) -> None:
        tries.append(1)
        if len(tries) == 3:
            drain.release()
        real_sleep(0)

    monkeypatch.setattr(lock_module.time, "sleep", sleep)
    engine = Engine(tmp_path / "vault", triggers=False)
    try:
        assert engine.lock is not None and engine.lock.held
        assert len(tries) == 3
    finally:
        engine.close()
