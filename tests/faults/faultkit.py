"""Shared pieces of the fault suite: small anonymous chat fixtures and vault invariants."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from curator.engine import Engine

ROOT = Path(__file__).resolve().parents[2]


def msg(role: str, content: Any, mid: str | None = None, ts: Any = "2026-11-20T18:00:00Z", **extra: Any) -> str:
    fields: dict[str, Any] = {"role": role, "content": content, "timestamp": ts, **extra}
    if mid:
        fields["id"] = mid
    return json.dumps(fields) + "\n"


def child_env(fault: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "tests"), env.get("PYTHONPATH", "")])
    env.pop("CURATOR_FAULT", None)
    if fault:
        env["CURATOR_FAULT"] = fault
    return env


def run_child(code: str, fault: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh Python; with ``fault`` it dies by SIGKILL at that point."""
    return subprocess.run([sys.executable, "-c", code], env=child_env(fault), capture_output=True, text=True,
                          timeout=timeout, check=False)


def cli(vault: Path, *args: str, fault: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "curator.cli.main", "--vault", str(vault), *args],
                          env=child_env(fault), capture_output=True, text=True, timeout=120, check=False)


def index_equals_rebuild(vault: Path) -> bool:
    with Engine(vault, triggers=False) as engine:
        report = engine.reindex()
    return report.equal
