"""Quality (LoCoMo): evidence recall of (a) rank-bm25, (b) the curator's search, (c) the same
after reflecting with a model and approving every staged item.

Each conversation is converted to generic JSONL and imported through the real ingest path
into a vault of its own (questions are about one conversation). A search hit maps back to
dia_ids through the turn's message key; a knowledge document counts for the turns it cites.
Reflection is expensive with a local model, so (c) reflects over the first batches of each
conversation (how many is in the figure's note) and is also scored on the questions whose
evidence lies entirely inside the reflected turns, beside (b) on those same questions.
"""

from __future__ import annotations

import math
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curator.bench import reflect_glue
from curator.bench.context import BenchContext
from curator.bench.locomo import LocomoConversation, dia_id_of_key, write_jsonl
from curator.bench.recall import Bm25Baseline, TurnPairBaseline, mean, recall_at
from curator.bench.report import Figure, SuiteOutcome
from curator.engine import Engine
from curator.index.search import SearchFilters
from curator.index.text import content_words, stems

NAME = "quality"
KS = (5, 10)
EVENT_COVERAGE = 0.5  # share of an event's content stems one staged fact must contain


@dataclass
class Scores:
    """Recall@k values per question, for one method."""

    per_k: dict[int, list[float]] = field(default_factory=lambda: {k: [] for k in KS})

    def add(self, evidence: tuple[str, ...], retrieved: list[set[str]]) -> None:
        for k in KS:
            self.per_k[k].append(recall_at(evidence, retrieved, k))

    def mean(self, k: int) -> float:
        return mean(self.per_k[k])

    @property
    def count(self) -> int:
        return len(self.per_k[KS[0]])

    def extend(self, other: Scores) -> None:
        for k in KS:
            self.per_k[k] += other.per_k[k]

    def subset(self, mask: list[bool]) -> Scores:
        """The scores of the questions where ``mask`` is true (same order as scored)."""
        out = Scores()
        for k in KS:
            out.per_k[k] = [v for v, keep in zip(self.per_k[k], mask, strict=True) if keep]
        return out


def hit_dia_ids(engine: Engine, hit: Any) -> set[str]:
    """The dia_ids a search hit stands for (a turn: its own; a document: the turns it cites)."""
    if hit.item_type == "turn":
        dia = dia_id_of_key(str(hit.provenance.get("key", "")))
        return {dia} if dia else set()
    row = engine.index.get_document(hit.id)
    out: set[str] = set()
    for number in (row.source_turns if row else []):
        turn = engine.index.get_turn(hit.user_id, int(number))
        dia = dia_id_of_key(turn.key) if turn else None
        if dia:
            out.add(dia)
    return out


def curator_scores(engine: Engine, conv: LocomoConversation) -> Scores:
    """Recall of the unified search over the vault (turns, summaries, approved knowledge)."""
    scores = Scores()
    for q in conv.quality_questions():
        hits = engine.search(q.question, SearchFilters(user_id="default"), max(KS))
        scores.add(q.evidence, [hit_dia_ids(engine, h) for h in hits])
    return scores


def bm25_scores(conv: LocomoConversation) -> Scores:
    """Recall of rank-bm25 over the raw turn texts of the conversation."""
    baseline = Bm25Baseline([t.text for t in conv.turns])
    ids = [t.dia_id for t in conv.turns]
    scores = Scores()
    for q in conv.quality_questions():
        scores.add(q.evidence, [{ids[i]} for i in baseline.top(q.question, max(KS))])
    return scores


def pair_scores(conv: LocomoConversation) -> Scores:
    """Recall of the strongest plain baseline: stemmed BM25 over turn pairs with speakers."""
    baseline = TurnPairBaseline([t.speaker for t in conv.turns], [t.text for t in conv.turns])
    ids = [t.dia_id for t in conv.turns]
    scores = Scores()
    for q in conv.quality_questions():
        scores.add(q.evidence, [{ids[i]} for i in baseline.top(q.question, max(KS))])
    return scores


def event_coverage(conv: LocomoConversation, facts: list[str], sessions: set[int] | None = None) -> tuple[int, int]:
    """(covered, total) gold events; an event is covered when one staged fact holds at least
    half of its content stems (the speakers' names left out)."""
    names = stems(content_words(f"{conv.speaker_a} {conv.speaker_b}"))
    fact_stems = [stems(content_words(f)) for f in facts]
    covered = total = 0
    for session, events in conv.events.items():
        if sessions is not None and session not in sessions:
            continue
        for event in events:
            wanted = stems(content_words(event)) - names
            if not wanted:
                continue
            total += 1
            if any(len(wanted & fs) / len(wanted) >= EVENT_COVERAGE for fs in fact_stems):
                covered += 1
    return covered, total


def _import(vault: Path, conv: LocomoConversation, workdir: Path) -> Engine:
    source = workdir / "source"
    shutil.rmtree(source, ignore_errors=True)
    write_jsonl(conv, source)
    engine = Engine(vault)
    try:
        report = engine.import_path(source, adapter="jsonl")
        if len(report.added) != len(conv.turns):
            raise RuntimeError(f"{conv.conv_id}: {len(report.added)} turns imported, {len(conv.turns)} expected")
    except BaseException:
        engine.close()
        raise
    return engine


def _recall_figures(outcome: SuiteOutcome, label: str, scores: Scores, base: Scores | None, base_name: str,
                    n: int, note: str = "") -> None:
    for k in KS:
        outcome.figures.append(Figure(
            NAME, f"recall@{k} {label}", "share", scores.mean(k), n=n,
            baseline_name=base_name if base else "", baseline=base.mean(k) if base else None,
            better="higher", note=note,
        ))


def run(ctx: BenchContext) -> SuiteOutcome:
    outcome = SuiteOutcome(NAME)
    if not ctx.conversations:
        outcome.skipped = ctx.data_note or "no LoCoMo conversations"
        return outcome
    convs = (
        ctx.conversations[: ctx.sizes.quality_conversations]
        if ctx.sizes.quality_conversations
        else ctx.conversations
    )
    a_all, p_all, b_all = Scores(), Scores(), Scores()
    per_conv: list[dict[str, Any]] = []
    vaults: list[tuple[LocomoConversation, Path, Scores]] = []
    for i, conv in enumerate(convs):
        work = ctx.workdir / f"quality-{i}"
        engine = _import(work / "vault", conv, work)
        try:
            b = curator_scores(engine, conv)
        finally:
            engine.close()
        a = bm25_scores(conv)
        a_all.extend(a)
        p_all.extend(pair_scores(conv))
        b_all.extend(b)
        per_conv.append({"conversation": conv.conv_id, "turns": len(conv.turns), "questions": len(a.per_k[5]),
                         **{f"bm25_r@{k}": round(a.mean(k), 4) for k in KS},
                         **{f"curator_r@{k}": round(b.mean(k), 4) for k in KS}})
        vaults.append((conv, work / "vault", b))
    n = a_all.count
    _recall_figures(outcome, "(a) BM25 raw turns", a_all, None, "", n, "rank_bm25 BM25Okapi, no stemming")
    _recall_figures(outcome, "(a2) BM25 turn pairs, stemmed", p_all, None, "", n,
                    "FTS5 porter bm25 over previous+current turn with speaker names, stop words removed")
    _recall_figures(outcome, "(b) curator search", b_all, p_all, "(a2) BM25 turn pairs", n,
                    "unified search over the imported turns")
    ctx.log(f"quality: (a) r@5 {a_all.mean(5):.3f}  (a2) r@5 {p_all.mean(5):.3f}  (b) r@5 {b_all.mean(5):.3f} "
            f"over {n} questions")
    outcome.details["conversations"] = per_conv
    reason = reflect_glue.glue_available()
    if reason:
        outcome.details["reflection"] = reason
        outcome.figures.append(Figure(NAME, "(c) after reflection + approval", "share", math.nan,
                                      note=f"not measured: {reason}"))
        return outcome
    _reflected(ctx, outcome, vaults)
    return outcome


def _reflected(ctx: BenchContext, outcome: SuiteOutcome, convs: list[tuple[LocomoConversation, Path, Scores]]) -> None:
    """Suite (c): batch reflections over each conversation's first turns, approve all, re-score."""
    from curator.bench.suites.reflection import make_runtime

    max_batches = ctx.sizes.quality_batches
    limit = ctx.sizes.quality_reflect_conversations
    c_all, c_in, b_same, b_in = Scores(), Scores(), Scores(), Scores()
    details: list[dict[str, Any]] = []
    runtime = make_runtime(ctx)
    try:
        for conv, vault, b in convs[:limit] if limit else convs:
            engine = Engine(vault)
            try:
                reflect_glue.limit_output_tokens(engine.paths.root, ctx.sizes.reflect_max_tokens)
                service = reflect_glue.open_service(engine, None, runtime)
                try:
                    run = reflect_glue.reflect_vault(service, "default", len(conv.turns), max_batches=max_batches)
                finally:
                    service.close()  # the shared runtime is not the service's to shut down
                upto = max((r.last_turn or 0) for r in run.batches) if run.batches else 0
                reflected = {t.dia_id for t in conv.turns[:upto]}
                inside = [set(q.evidence) <= reflected for q in conv.quality_questions()]
                c = curator_scores(engine, conv)
            finally:
                engine.close()
            c_all.extend(c)
            b_same.extend(b)
            c_in.extend(c.subset(inside))
            b_in.extend(b.subset(inside))
            sessions = {t.session for t in conv.turns[:upto]}
            covered, total = event_coverage(conv, run.staged_texts, sessions)
            details.append(
                {
                    "conversation": conv.conv_id,
                    "batches": len(run.batches),
                    "turns_reflected": upto,
                    "batch_status": [r.status for r in run.batches],
                    "batch_errors": [r.error for r in run.batches if r.error][:3],
                    "proposed": run.proposed,
                    "passed_gates": run.passed,
                    "staged": len(run.staged_texts),
                    "approved": run.approved,
                    "approve_errors": run.approve_errors[:5],
                    "gate_pass_share": (run.passed / run.proposed) if run.proposed else None,
                    "events_covered": covered,
                    "events_total": total,
                    "event_coverage": (covered / total) if total else None,
                    "seconds": round(run.seconds, 1),
                    "questions_inside": sum(inside),
                }
            )
            ctx.log(f"quality (c): {conv.conv_id}: {len(run.batches)} batches in {run.seconds:.0f} s, "
                    f"{run.passed}/{run.proposed} passed, {run.approved} approved, events {covered}/{total}")
    finally:
        runtime.shutdown()
    outcome.details["reflection"] = details
    scope = f"first {max_batches} batch(es)" if max_batches else "every batch (whole conversations)"
    note = (f"{scope} of 10 turns per conversation, model "
            f"{runtime.model_path.name if runtime.model_path else '?'}, every staged item approved")
    if ctx.sizes.reflect_max_tokens:
        note += f"; output limited to {ctx.sizes.reflect_max_tokens} tokens (quick)"
    _recall_figures(outcome, "(c) after reflection, questions of reflected conversations", c_all, b_same,
                    "(b) same questions",
                    c_all.count, note)
    _recall_figures(outcome, "(c) after reflection, questions inside reflected turns", c_in, b_in,
                    "(b) same questions", c_in.count, note)
    for d in details:
        outcome.figures.append(Figure(NAME, f"gate pass share, conversation {d['conversation']}", "share",
                                      d["gate_pass_share"] if d["gate_pass_share"] is not None else math.nan,
                                      n=d["proposed"], better="higher",
                                      note=f"{d['passed_gates']} of {d['proposed']} proposed items passed all gates"))
        outcome.figures.append(Figure(NAME, f"gold events covered, conversation {d['conversation']}", "share",
                                      d["event_coverage"] if d["event_coverage"] is not None else math.nan,
                                      n=d["events_total"], better="higher",
                                      note=f"events of the reflected sessions; {d['staged']} staged items"))
