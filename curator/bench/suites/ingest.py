"""Ingest: turns per second through the real ingest path, against a bare FTS5 insert."""

from __future__ import annotations

import json
import shutil

from curator.bench.context import BenchContext
from curator.bench.report import Figure, SuiteOutcome
from curator.bench.stats import median
from curator.bench.vaults import bare_fts_insert, import_files, locomo_source, scale_vault

NAME = "ingest"


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
    per_file = [n / s for n, s in timings if s > 0]
    total_turns, total_seconds = sum(n for n, _ in timings), sum(s for _, s in timings)
    base = [len(built.texts) / bare_fts_insert(built.texts, ctx.workdir / "bare-fts.sqlite")]
    (ctx.workdir / "bare-fts.sqlite").unlink(missing_ok=True)
    outcome.figures.append(Figure(
        NAME, f"generated corpus ({total_turns:,} turns, {len(timings)} files)", "turns/s", median(per_file),
        n=len(per_file), baseline_name="bare FTS5 insert", baseline=median(base), better="higher",
        note=f"median over files imported one after another into one growing vault; overall "
             f"{total_turns / total_seconds:,.0f} turns/s in {total_seconds:.1f} s",
    ))
    outcome.details["corpus_files"] = [{"turns": n, "seconds": round(s, 3)} for n, s in timings]
    ctx.log(f"ingest: corpus {total_turns:,} turns at {total_turns / total_seconds:,.0f} turns/s")
    return outcome
