"""Building benchmark vaults through the real ingest path (``Engine.import_path``)."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from curator.bench.context import BenchContext, ScaleVault
from curator.bench.corpus import corpus_texts
from curator.bench.locomo import LocomoConversation, write_jsonl
from curator.engine import Engine


def import_files(vault: Path, files: list[Path], *, triggers: bool = True) -> list[tuple[int, float]]:
    """Import each file (or folder) into ``vault`` one after the other; (turns added, seconds) each."""
    timings: list[tuple[int, float]] = []
    with Engine(vault, triggers=triggers) as engine:
        for path in files:
            start = time.perf_counter()
            report = engine.import_path(path, adapter="jsonl")
            timings.append((len(report.added), time.perf_counter() - start))
            if report.problems:
                raise RuntimeError(f"import of {path.name} reported problems: {report.problems[:3]}")
    return timings


def scale_vault(ctx: BenchContext, turns: int) -> tuple[ScaleVault, list[tuple[int, float]]]:
    """A vault of ``turns`` generated turns (built once per run); per-file import timings."""
    existing = ctx.scale_vaults.get(turns)
    if existing is not None:
        return existing, []
    files = max(1, min(ctx.sizes.ingest_files, turns // 1000))
    folder = ctx.corpus_folder(turns, files)
    paths = sorted(folder.glob("*.jsonl"))
    vault = ctx.workdir / f"vault-{turns}"
    ctx.log(f"importing {turns:,} generated turns into a vault ({len(paths)} files)")
    # A first import: the whole history folder in one go, triggers on, as a new user's is.
    timings = import_files(vault, [folder])
    built = ScaleVault(vault, sum(n for n, _ in timings), corpus_texts(paths))
    ctx.scale_vaults[turns] = built
    return built, timings


def locomo_source(ctx: BenchContext, conversations: list[LocomoConversation], name: str = "locomo-jsonl") -> Path:
    """The conversations converted to generic JSONL files in one folder (written once)."""
    folder = ctx.workdir / name
    if not folder.is_dir():
        for conv in conversations:
            write_jsonl(conv, folder)
    return folder


def bare_fts_insert(texts: list[str], path: Path) -> float:
    """Seconds to put ``texts`` into a bare SQLite FTS5 table in one transaction.

    The floor of any SQLite full-text index: no provenance, no ledger, no turn pairs.
    """
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    start = time.perf_counter()
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2')")
        with conn:
            conn.executemany("INSERT INTO t(body) VALUES (?)", ((t,) for t in texts))
    finally:
        conn.close()
    return time.perf_counter() - start


def one_message_files(folder: Path, count: int, conversations: int = 300) -> int:
    """Write ``count`` JSONL files of one message each (a client that writes a file per
    message), spread over ``conversations``; returns how many messages were written."""
    if folder.is_dir() and sum(1 for _ in folder.iterdir()) == count:
        return count
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        line = json.dumps({"id": f"m{i}", "conversation": f"c{i % conversations}",
                           "role": "user" if i % 2 == 0 else "assistant",
                           "content": f"message {i}: a note about the kettle and the teapot",
                           "timestamp": 1_790_000_000 + i})
        (folder / f"msg-{i:06d}.jsonl").write_text(line + "\n", encoding="utf-8")
    return count
