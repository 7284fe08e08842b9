"""Reflection quality: what reflection stages, judged against gold observations.

Each conversation (the bundled demo with ``resources/demo/gold.json``, and every LoCoMo
conversation in ``--data`` with its ``session_N_observation`` lists) is imported into a vault
of its own and reflected session by session, the way the app would see it: batch
reflections over 10-turn windows of the session, then a session-end micro-reflection.
Everything staged is then scored (``curator.bench.observations``):

- observation recall: gold observations matched by a staged item that cites the
  observation's message and holds half of its content words;
- precision: staged items that match a gold observation;
- made-up rate: staged items with a name, number or date none of their cited turns holds;
- flagged items (a planted instruction, a secret) are warnings shown to the person, not
  proposals: they are listed apart and not scored;
- seconds per session.

The baseline, measured in the same run, needs no model: every first-person statement of a
person, retold with the speaker's name and citing its own message. LoCoMo is two people
talking and its gold covers both, so both speakers are users there; in the demo only Maya
is (the assistant's sentences are not about anyone's life).
"""

from __future__ import annotations

import json
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curator.bench import reflect_glue
from curator.bench.context import BenchContext
from curator.bench.locomo import LocomoConversation, dia_id_of_key, write_jsonl
from curator.bench.observations import (
    Candidate,
    Observation,
    Score,
    SourceMessage,
    first_person_baseline,
    score,
)
from curator.bench.report import Figure, SuiteOutcome
from curator.bench.suites.multilingual import ChatResult, load_chats, reflect_chat
from curator.bench.wording import approvable_share
from curator.datafiles import demo_dir
from curator.engine import Engine

NAME = "reflection-quality"
USER = "default"
WINDOW = 10  # turns per batch, seed 000's batch size


@dataclass
class Case:
    """One conversation to reflect: where its source is, its sessions, its gold."""

    label: str
    source: Path
    sessions: list[tuple[str, list[str]]]  # (conversation id, message ids in order)
    messages: dict[str, SourceMessage]
    observations: list[Observation]
    people: set[str]


@dataclass
class CaseResult:
    """The pipeline's and the baseline's scores on one case."""

    label: str
    pipeline: Score
    baseline: Score
    session_seconds: list[float] = field(default_factory=list)
    staged: list[dict[str, Any]] = field(default_factory=list)
    flagged: list[dict[str, Any]] = field(default_factory=list)  # warnings, not proposals
    errors: list[str] = field(default_factory=list)


def demo_case(work: Path) -> Case:
    """The bundled demo conversation and the gold list kept beside it."""
    folder = demo_dir()
    gold = json.loads((folder / "gold.json").read_text(encoding="utf-8"))
    source = work / "demo-source"
    shutil.rmtree(source, ignore_errors=True)
    source.mkdir(parents=True)
    messages: dict[str, SourceMessage] = {}
    sessions: dict[str, list[str]] = {}
    judged = {str(o["conversation"]) for o in gold["observations"]}
    for path in sorted(folder.glob("*.jsonl")):
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        if not any(str(r.get("conversation")) in judged for r in records):
            continue  # the demo's Portuguese chat has no gold here: the multilingual set judges it
        shutil.copy2(path, source / path.name)
        for record in records:
            conv = str(record["conversation"])
            messages[str(record["id"])] = SourceMessage(str(record["id"]), str(record.get("speaker") or ""),
                                                        str(record.get("content") or ""), conv)
            sessions.setdefault(conv, []).append(str(record["id"]))
    observations = [Observation(o["speaker"], o["text"], (o["evidence"],), o["conversation"])
                    for o in gold["observations"]]
    people = {m.speaker for m in messages.values() if m.speaker != "Assistant"}
    return Case("demo", source, list(sessions.items()), messages, observations, people)


def locomo_case(conv: LocomoConversation, work: Path, max_sessions: int | None) -> Case:
    """A LoCoMo conversation, both speakers as people, one chat per session."""
    chosen = sorted({t.session for t in conv.turns})[:max_sessions] if max_sessions else None
    kept = [t for t in conv.turns if chosen is None or t.session in chosen]
    trimmed = LocomoConversation(conv.conv_id, conv.speaker_a, conv.speaker_b, kept, [], {}, {})
    source = work / f"locomo-{conv.conv_id}-source"
    shutil.rmtree(source, ignore_errors=True)
    write_jsonl(trimmed, source, two_people=True)
    messages = {t.dia_id: SourceMessage(t.dia_id, t.speaker, t.text, str(t.session)) for t in kept}
    sessions: dict[str, list[str]] = {}
    for t in kept:
        sessions.setdefault(f"{conv.conv_id}-s{t.session}", []).append(t.dia_id)
    observations = [Observation(speaker, text, evidence, str(session))
                    for session, items in sorted(conv.observations.items())
                    if chosen is None or session in chosen
                    for speaker, text, evidence in items]
    return Case(f"locomo {conv.conv_id}", source, list(sessions.items()), messages, observations,
                {conv.speaker_a, conv.speaker_b})


def _windows(numbers: list[int], size: int) -> list[list[int]]:
    return [numbers[i:i + size] for i in range(0, len(numbers), size)]


def reflect_case(ctx: BenchContext, case: Case, runtime: Any, work: Path) -> CaseResult:
    """Import, reflect session by session, and score the staged items against the gold."""
    baseline = score(case.observations, first_person_baseline(case.messages.values(), case.people), case.messages)
    vault = work / "vault"
    shutil.rmtree(vault, ignore_errors=True)
    engine = Engine(vault)
    try:
        if ctx.shared.get("writer"):
            engine.settings.set("reflection.writer", ctx.shared["writer"])
        engine.import_path(case.source, adapter="jsonl")
        number_of: dict[str, int] = {}
        message_of: dict[int, str] = {}
        for turn in engine.index.turns(USER):
            dia = dia_id_of_key(turn.key)
            if dia:
                number_of[dia], message_of[turn.number] = turn.number, dia
        result = CaseResult(case.label, Score(), baseline)
        service = reflect_glue.open_service(engine, None, runtime)
        try:
            for conversation, ids in case.sessions:
                numbers = sorted(number_of[i] for i in ids if i in number_of)
                if not numbers:
                    continue
                started = time.perf_counter()
                for window in _windows(numbers, WINDOW):
                    batch = reflect_glue.run_batch(service, USER, window[0] - 1, window[-1])
                    if getattr(batch, "error", None):
                        result.errors.append(f"{conversation} batch {window[0]}-{window[-1]}: {batch.error}")
                micro = reflect_glue.run_micro(service, USER, conversation, numbers)
                if micro.get("error"):
                    result.errors.append(f"{conversation} micro: {micro['error']}")
                result.session_seconds.append(time.perf_counter() - started)
                ctx.log(f"reflection-quality: {case.label} {conversation}: {len(numbers)} turns in "
                        f"{result.session_seconds[-1]:.0f} s")
            items = reflect_glue.staged_items(service, USER)
        finally:
            service.close()
    finally:
        engine.close()
    candidates = []
    for item in items:
        if item["flagged"]:
            # Shown to the person as a warning (a planted instruction, a secret), never offered
            # as a memory: counted apart, not scored as a proposal.
            result.flagged.append({**item})
            continue
        cited = tuple(message_of[n] for n in item["source_turns"] if n in message_of)
        # "Correction: ..." labels the kind in the queue; it is no claim to judge.
        title = re.sub(r"^(?:Correction|Contradiction): ", "", str(item["title"]))
        candidates.append(Candidate(f"{title}. {item['text']}", cited))
        result.staged.append({**item, "cited": list(cited)})
    result.pipeline = score(case.observations, candidates, case.messages)
    return result


def _figures(outcome: SuiteOutcome, label: str, pipe: Score, base: Score, seconds: list[float],
             model: str) -> None:
    note = f"model {model}; baseline: first-person statements retold with the speaker's name"
    for name, value, base_value, better in (
        ("observation recall", pipe.recall, base.recall, "higher"),
        ("precision", pipe.precision, base.precision, "higher"),
        ("F1", pipe.f1, base.f1, "higher"),
        ("made-up rate", pipe.made_up_rate, base.made_up_rate, "lower"),
    ):
        outcome.figures.append(Figure(NAME, f"{name}, {label}", "share", value, n=pipe.items,
                                      baseline_name="code-only baseline", baseline=base_value,
                                      better=better, note=note))
    if seconds:
        ordered = sorted(seconds)
        outcome.figures.append(Figure(NAME, f"seconds per session, {label}", "s", ordered[len(ordered) // 2],
                                      p95=ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))],
                                      n=len(seconds), note=note))


def run(ctx: BenchContext) -> SuiteOutcome:
    outcome = SuiteOutcome(NAME)
    reason = reflect_glue.glue_available()
    if reason:
        outcome.skipped = reason
        return outcome
    from curator.bench.suites.reflection import make_runtime

    work = ctx.workdir / "reflection-quality"
    work.mkdir(parents=True, exist_ok=True)
    cases = [demo_case(work)]
    convs = ctx.conversations[: ctx.sizes.rq_conversations] if ctx.sizes.rq_conversations else ctx.conversations
    cases += [locomo_case(c, work, ctx.sizes.rq_sessions) for c in convs if c.observations]
    runtime = make_runtime(ctx)
    model = runtime.model_path.name if runtime.model_path else "?"
    if ctx.shared.get("writer"):
        model += f", writer {ctx.shared['writer']}"
    results: list[CaseResult] = []
    chats: list[ChatResult] = []
    try:
        for i, case in enumerate(cases):
            results.append(reflect_case(ctx, case, runtime, work / f"case-{i}"))
        for chat in load_chats():
            chats.append(reflect_chat(chat, runtime, work / f"chat-{chat.ident}",
                                      str(ctx.shared.get("writer") or "")))
            ctx.log(f"reflection-quality: {chat.language} {chat.shape} {chat.ident}: "
                    f"{len(chat.turns)} turns in {chats[-1].seconds:.0f} s")
    finally:
        runtime.shutdown()
    _multilingual_figures(outcome, chats, model)
    locomo_pipe, locomo_base, locomo_seconds = Score(), Score(), []
    for r in results:
        _figures(outcome, r.label, r.pipeline, r.baseline, r.session_seconds, model)
        if r.label != "demo":
            locomo_pipe.add(r.pipeline)
            locomo_base.add(r.baseline)
            locomo_seconds += r.session_seconds
    if len(results) > 2:
        _figures(outcome, "all LoCoMo", locomo_pipe, locomo_base, locomo_seconds, model)
    _wording_figures(outcome, results, chats, model)
    outcome.details["cases"] = [{
        "case": r.label, "pipeline": r.pipeline.to_dict(), "baseline": r.baseline.to_dict(),
        "sessions": len(r.session_seconds), "made_up_examples": r.pipeline.made_up_examples,
        "errors": r.errors[:10], "staged": r.staged, "flagged": r.flagged,
    } for r in results]
    outcome.details["sessions_per_conversation"] = ctx.sizes.rq_sessions or "all"
    outcome.details["writer"] = ctx.shared.get("writer") or "auto"
    return outcome


def _wording_figures(outcome: SuiteOutcome, results: list[CaseResult], chats: list[ChatResult], model: str) -> None:
    """Issue 20's wording figure: the share of proposals approvable as they stand (curator.bench.wording)."""
    groups: dict[str, list[str]] = {"demo": [], "all LoCoMo": []}
    for r in results:
        groups["demo" if r.label == "demo" else "all LoCoMo"] += [str(i["text"]) for i in r.staged]
    for chat in chats:
        groups.setdefault(f"multilingual {chat.chat.language}", []).extend(
            str(i["text"]) for i in chat.staged if not i.get("flagged"))
    for label, texts in groups.items():
        if not texts:
            continue
        share, count, kinds = approvable_share(texts)
        common = ", ".join(f"{k} {n}" for k, n in kinds.most_common(4)) or "none"
        outcome.figures.append(Figure(NAME, f"approvable as proposed, {label}", "share", share, n=count,
                                      better="higher", note=f"model {model}; edits needed: {common}"))


def _multilingual_figures(outcome: SuiteOutcome, chats: list[ChatResult], model: str) -> None:
    """Recall, precision and made-up rate per language and per client shape, and planted caught."""
    groups: dict[str, list[ChatResult]] = {}
    for chat in chats:
        groups.setdefault(f"language {chat.chat.language}", []).append(chat)
        groups.setdefault(f"shape {chat.chat.shape}", []).append(chat)
    if chats:
        groups["all multilingual"] = chats
    for label, members in groups.items():
        pipe, base = Score(), Score()
        for member in members:
            pipe.add(member.pipeline)
            base.add(member.baseline)
        _figures(outcome, label, pipe, base, [m.seconds for m in members], model)
    if chats:
        planted = sum(c.planted for c in chats)
        caught = sum(c.planted_caught for c in chats)
        outcome.figures.append(Figure(NAME, "planted instructions flagged, multilingual", "share",
                                      caught / planted if planted else 0.0, n=planted, better="higher",
                                      note="flagged and never staged plain"))
    outcome.details["multilingual"] = [{
        "chat": c.chat.ident, "language": c.chat.language, "shape": c.chat.shape,
        "pipeline": c.pipeline.to_dict(), "baseline": c.baseline.to_dict(), "planted": c.planted,
        "planted_caught": c.planted_caught, "errors": c.errors[:10],
        "staged": [{"title": i["title"], "text": i["text"], "flagged": i["flagged"]} for i in c.staged],
    } for c in chats]
