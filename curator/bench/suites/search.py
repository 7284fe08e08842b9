"""Search: latency of the unified search at growing index sizes, against rank-bm25."""

from __future__ import annotations

import random
import time

from curator.bench.context import BenchContext
from curator.bench.recall import Bm25Baseline, Bm25sBaseline, bm25s_available
from curator.bench.report import SuiteOutcome, figure_from
from curator.bench.stats import ms
from curator.bench.vaults import scale_vault
from curator.engine import Engine

NAME = "search"
LIMIT = 10
WARMUP = 10


def queries(ctx: BenchContext, count: int) -> list[str]:
    """Realistic queries: the LoCoMo questions, or word triples from the corpus texts."""
    rng = random.Random(11)
    found = [q.question for c in ctx.conversations for q in c.questions if q.question]
    if not found:
        words = [w for _, text in ctx.pool() for w in text.split() if len(w) > 4]
        found = [" ".join(rng.sample(words, 3)) for _ in range(count)]
    rng.shuffle(found)
    return [found[i % len(found)] for i in range(count)]


def run(ctx: BenchContext) -> SuiteOutcome:
    outcome = SuiteOutcome(NAME)
    qs = queries(ctx, ctx.sizes.search_queries + WARMUP)
    for size in ctx.sizes.search_sizes:
        built, _ = scale_vault(ctx, size)
        with Engine(built.vault, writer=False, triggers=False) as engine:
            for q in qs[:WARMUP]:
                engine.search(q, None, LIMIT)
            samples = []
            for q in qs[WARMUP:]:
                start = time.perf_counter()
                engine.search(q, None, LIMIT)
                samples.append(ms(time.perf_counter() - start))
        start = time.perf_counter()
        baseline = Bm25Baseline(built.texts)
        build_seconds = time.perf_counter() - start
        base_samples = []
        for q in qs[WARMUP:WARMUP + ctx.sizes.baseline_queries.get(size, 20)]:
            start = time.perf_counter()
            baseline.top(q, LIMIT)
            base_samples.append(ms(time.perf_counter() - start))
        del baseline
        if bm25s_available():
            start = time.perf_counter()
            peer = Bm25sBaseline(built.texts)
            peer_build = time.perf_counter() - start
            for q in qs[:WARMUP]:
                peer.top(q, LIMIT)
            peer_samples = []
            for q in qs[WARMUP:]:
                start = time.perf_counter()
                peer.top(q, LIMIT)
                peer_samples.append(ms(time.perf_counter() - start))
            del peer
            outcome.figures.append(figure_from(
                NAME, f"unified search against bm25s, {built.turns:,} turns (top {LIMIT})", "ms", samples,
                baseline_samples=peer_samples, baseline_name="bm25s retrieve (tokenising included)",
                note=f"the same {len(samples)} questions; bm25s's index built in {peer_build:.1f} s; "
                     "targets: p50 at or below bm25s, p95 <= 10 ms",
            ))
        else:
            outcome.details["bm25s"] = "bm25s is not installed (pip install -e '.[bench]'): its figure is left out"
        outcome.figures.append(figure_from(
            NAME, f"unified search, {built.turns:,} turns (top {LIMIT})", "ms", samples,
            baseline_samples=base_samples, baseline_name="BM25Okapi get_scores+top-k",
            note=f"{len(samples)} LoCoMo questions; baseline over {len(base_samples)} of them, "
                 f"its index built in {build_seconds:.1f} s",
        ))
        ctx.log(f"search: {built.turns:,} turns p50 {outcome.figures[-1].median:.2f} ms "
                f"vs rank-bm25 {outcome.figures[-1].baseline:.1f} ms")
    return outcome
