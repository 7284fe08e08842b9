"""`curator search` and `curator mcp` load neither numpy, Qt nor llama.cpp (issue 22 item 1).

Each runs as its own process under ``python -X importtime``, which lists every module the
process imported; a heavy one creeping into either path fails here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from curator.engine import Engine

# The MCP SDK and pydantic too: importing them took a second before a client got its handshake.
HEAVY = ("numpy", "PySide6", "llama_cpp", "rank_bm25", "mcp", "pydantic", "jsonschema")


def imported(args: list[str], vault: Path) -> tuple[set[str], str]:
    run = subprocess.run([sys.executable, "-X", "importtime", "-m", "curator.cli.main", "--vault", str(vault), *args],
                         capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
                         env={**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", "")})
    assert run.returncode == 0, run.stderr[-2000:]
    names = {m.group(1).strip() for m in re.finditer(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", run.stderr, re.M)}
    return names, run.stdout


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lean")
    chats = root / "chats"
    chats.mkdir()
    line = '{"role": "user", "content": "My kayak is red.", "created_at": "2026-11-20T10:00:00Z"}\n'
    (chats / "c.jsonl").write_text(line, "utf-8")
    with Engine(root / "vault", triggers=False) as engine:
        engine.import_path(chats)
    return root / "vault"


@pytest.mark.parametrize("command", [["search", "kayak"], ["mcp"]], ids=["search", "mcp"])
def test_the_command_imports_nothing_heavy(command: list[str], vault: Path) -> None:
    names, out = imported(command, vault)
    assert "curator.cli.main" in names  # the listing is real
    heavy = sorted(n for n in names if n.split(".")[0] in HEAVY)
    assert heavy == [], f"curator {command[0]} imported {heavy[:5]}"
    if command[0] == "search":
        assert "kayak" in out.lower()
        assert "curator.review.actions" not in names and "curator.engine" not in names
