"""Start-up: what a person or a chat client waits for before the first answer, each as a
fresh process, against what they would run instead in the same run.

- ``curator search`` over the largest scale vault, against a Python process running the
  same FTS5 query on the same index file;
- ``curator --help``, against ``python -c 'import sqlite3'``;
- ``curator mcp``: from start until the answer to ``initialize`` is read, against a bare
  server on the official MCP SDK with one FTS5 tool (skipped when the SDK is not installed:
  it is a test dependency).

Each runs with the project's compiled modules cached (``installed_env``), after one start
that caches them.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from curator.bench.context import BenchContext, installed_env
from curator.bench.report import SuiteOutcome, figure_from
from curator.bench.vaults import scale_vault

NAME = "startup"
RUNS = 7
QUERY = "dog walk park morning"
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}) + "\n"

_BARE_FTS = """
import sqlite3, sys
conn = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
rows = conn.execute("SELECT rowid FROM items_fts WHERE items_fts MATCH ? ORDER BY rank LIMIT 10",
                    (" OR ".join(sys.argv[2].split()),)).fetchall()
print(len(rows))
"""

_BARE_MCP = """
import sqlite3, sys
from mcp.server.mcpserver import MCPServer
server = MCPServer("bare")
DB = sys.argv[1]

@server.tool()
def search(query: str) -> str:
    conn = sqlite3.connect(f"file:{DB}?mode=ro", uri=True)
    return str(conn.execute("SELECT rowid FROM items_fts WHERE items_fts MATCH ? LIMIT 10", (query,)).fetchall())

server.run("stdio")
"""


def _ms(samples: list[float]) -> list[float]:
    return [s * 1000.0 for s in samples]


def _timed_run(args: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                          env=installed_env())
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:4])}… failed: {done.stderr[-500:]}")
    return seconds


def _handshake(args: list[str]) -> float:
    """Seconds from start until the answer to ``initialize`` is read."""
    start = time.perf_counter()
    process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               env=installed_env())
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(INITIALIZE.encode())
        process.stdin.flush()
        line = process.stdout.readline()
        seconds = time.perf_counter() - start
        if b'"result"' not in line:
            raise RuntimeError(f"no answer to initialize: {line[:200]!r}")
        return seconds
    finally:
        process.kill()
        process.wait(timeout=30)


def run(ctx: BenchContext) -> SuiteOutcome:
    outcome = SuiteOutcome(NAME)
    turns = max(ctx.sizes.search_sizes)
    built, _ = scale_vault(ctx, turns)
    vault = built.vault
    index = vault / "index.sqlite"
    curator = [sys.executable, "-m", "curator.cli.main", "--vault", str(vault)]
    with tempfile.TemporaryDirectory() as tmp:
        bare_fts = Path(tmp) / "bare_fts.py"
        bare_fts.write_text(_BARE_FTS, "utf-8")
        bare_mcp = Path(tmp) / "bare_mcp.py"
        bare_mcp.write_text(_BARE_MCP, "utf-8")
        ctx.log(f"start-up: curator search over {turns:,} turns, --help, mcp handshake ({RUNS} runs each)")
        _timed_run([*curator, "--help"])  # a first start caches the compiled modules, as an install does
        search = [_timed_run([*curator, "search", QUERY]) for _ in range(RUNS)]
        plain = [_timed_run([sys.executable, str(bare_fts), str(index), QUERY]) for _ in range(RUNS)]
        outcome.figures.append(figure_from(NAME, f"curator search as a process, {turns:,} turns", "ms", _ms(search),
                                           baseline_samples=_ms(plain),
                                           baseline_name="python process running the same FTS5 query"))
        help_runs = [_timed_run([*curator, "--help"]) for _ in range(RUNS)]
        sqlite_runs = [_timed_run([sys.executable, "-c", "import sqlite3"]) for _ in range(RUNS)]
        outcome.figures.append(figure_from(NAME, "curator --help", "ms", _ms(help_runs),
                                           baseline_samples=_ms(sqlite_runs),
                                           baseline_name="python -c 'import sqlite3'"))
        mcp = [_handshake([*curator, "mcp"]) for _ in range(RUNS)]
        peer: list[float] | None = None
        peer_name = ""
        if importlib.util.find_spec("mcp") is not None:
            peer = [_handshake([sys.executable, str(bare_mcp), str(index)]) for _ in range(RUNS)]
            peer_name = "a bare server on the official MCP SDK with one FTS5 tool"
        outcome.figures.append(figure_from(NAME, "curator mcp: start to the answer to initialize", "ms", _ms(mcp),
                                           baseline_samples=_ms(peer) if peer else None, baseline_name=peer_name,
                                           note="target: 300 ms"))
    return outcome
