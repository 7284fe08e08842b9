"""Ingest: turns per second through the real ingest path, against a bare FTS5 insert."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from curator.bench.context import BenchContext
from curator.bench.report import Figure, SuiteOutcome
from curator.bench.stats import median
from curator.bench.vaults import (
    bare_fts_insert,
    import_files,
    locomo_source,
    one_message_files,
    scale_vault,
)

NAME = "ingest"
MB = 1024 * 1024


def _files_size(paths: list[Path]) -> int:
    return sum(p.stat().st_size for p in paths if p.is_file())


def _on_disk(vault: Path, bare: Path, turns: int) -> Figure:
    """The index and the turn ledgers after an import, beside a bare FTS5 database of the
    same texts (both with their WAL files, checkpointed by closing)."""
    index = _files_size([vault / f"index.sqlite{suffix}" for suffix in ("", "-wal")])
    logs = vault / "Users"
    ledgers = _files_size([*logs.glob("*/Logs/turns*.jsonl"), *logs.glob("*/Logs/turns*.jsonl.gz")])
    floor = _files_size([Path(f"{bare}{suffix}") for suffix in ("", "-wal")])
    return Figure(
        NAME, f"index and turn ledger on disk, {turns:,} turns", "MB", (index + ledgers) / MB, n=1,
        baseline_name="bare FTS5 database of the same texts", baseline=floor / MB, better="lower",
        note=f"index {index / MB:.1f} MB + ledger {ledgers / MB:.1f} MB; target <= 2.5x the bare database",
    )


def run(ctx: BenchContext) -> SuiteOutcome:
    outcome = SuiteOutcome(NAME)
    if ctx.conversations:
        folder = locomo_source(ctx, ctx.conversations)
        files = sorted(folder.glob("*.jsonl"))
        texts = [
            json.loads(line)["content"]
            for f in files
            for line in f.read_text(encoding="utf-8").splitlines()
            if line
        ]
        rates, base_rates = [], []
        for attempt in range(ctx.sizes.locomo_repeats):
            vault = ctx.workdir / f"ingest-locomo-{attempt}"
            shutil.rmtree(vault, ignore_errors=True)
            timings = import_files(vault, [folder])
            added, seconds = sum(n for n, _ in timings), sum(s for _, s in timings)
            if added != len(texts):
                raise RuntimeError(f"LoCoMo import added {added} turns, expected {len(texts)}")
            rates.append(added / seconds)
            base_rates.append(len(texts) / bare_fts_insert(texts, ctx.workdir / "bare-fts.sqlite"))
            shutil.rmtree(vault, ignore_errors=True)
        outcome.figures.append(Figure(
            NAME, f"LoCoMo conversations ({len(texts):,} turns)", "turns/s", median(rates), n=len(rates),
            baseline_name="bare FTS5 insert", baseline=median(base_rates), better="higher",
            note="Engine.import_path of the converted JSONL folder into a fresh vault",
        ))
        ctx.log(f"ingest: LoCoMo {median(rates):,.0f} turns/s")
    else:
        outcome.details["locomo"] = "no LoCoMo data: only the generated corpus is imported"
    size = ctx.sizes.ingest_corpus
    built, timings = scale_vault(ctx, size)
    total_turns, total_seconds = sum(n for n, _ in timings), sum(s for _, s in timings)
    if total_seconds > 0:
        bare = ctx.workdir / "bare-fts.sqlite"
        base = len(built.texts) / bare_fts_insert(built.texts, bare)
        outcome.figures.append(_on_disk(built.vault, bare, total_turns))
        bare.unlink(missing_ok=True)
        outcome.figures.append(Figure(
            NAME, f"first import of a {total_turns:,}-message history", "turns/s", total_turns / total_seconds,
            n=1, baseline_name="bare FTS5 insert", baseline=base, better="higher",
            note=f"Engine.import_path of the generated corpus folder ({ctx.sizes.ingest_files} files) into a "
                 f"fresh vault with triggers on, {total_seconds:.1f} s; target >= 5,000 turns/s",
        ))
        ctx.log(f"ingest: first import of {total_turns:,} turns at {total_turns / total_seconds:,.0f} turns/s")
    else:
        outcome.details["corpus"] = "the corpus vault was already built by another suite in this run"
    count = ctx.sizes.one_message_files
    folder = ctx.workdir / f"one-message-files-{count}"
    written = one_message_files(folder, count)
    vault = ctx.workdir / "ingest-one-message-files"
    shutil.rmtree(vault, ignore_errors=True)
    (added, seconds), = import_files(vault, [folder])
    if added != written:
        raise RuntimeError(f"{written:,} one-message files gave {added:,} turns")
    shutil.rmtree(vault, ignore_errors=True)
    files_base = written / bare_fts_insert([f"message {i}" for i in range(written)], ctx.workdir / "bare-fts.sqlite")
    (ctx.workdir / "bare-fts.sqlite").unlink(missing_ok=True)
    outcome.figures.append(Figure(
        NAME, f"{written:,} one-message files", "files/s", written / seconds, n=1,
        baseline_name="bare FTS5 insert of as many texts", baseline=files_base, better="higher",
        note=f"one import of the folder, triggers on: {seconds:.1f} s in all (target: under 60 s for 20,000)",
    ))
    outcome.details["one_message_files"] = {"files": written, "seconds": round(seconds, 2)}
    ctx.log(f"ingest: {written:,} one-message files in {seconds:.1f} s")
    return outcome
