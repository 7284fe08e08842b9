"""One consolidation cycle end to end (seed 001): read, five phases, a pending proposal.

The runner reads within the scope rules, runs SURVEY, META-REFLECTION, CONSOLIDATE, REWRITE
and SUMMARIZE (each a prompt file, generated under its schema, parsed in code; a phase whose
input does not fit the model's window runs over chunks and is merged here), gates every
operation and writes the proposal: ``Logs/cycles/<id>.json`` and ``pending-reflection.md``.
It changes no memory: that happens only when the person approves (``apply``).

A cycle does not start while another awaits review; it says so instead (``blocked``).
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from curator.clock import Clock, SystemClock
from curator.reflection.cycle import core_memory, disagreements, summary
from curator.reflection.cycle.budget import RESERVE, OutputBudget, chunk
from curator.reflection.cycle.decay import DecayState, iso
from curator.reflection.cycle.logs import milestone
from curator.reflection.cycle.operations import (
    Operation,
    OperationGates,
    OpRejection,
    parse_operations,
    supported,
    target_for,
)
from curator.reflection.cycle.record import CycleRecord, all_records, record_rel
from curator.reflection.cycle.scope import CycleInputs, ScopeReader, as_plain
from curator.reflection.gates.fingerprints import RejectedMemory
from curator.reflection.gates.similarity import similarity
from curator.reflection.gates.untrusted import scan
from curator.reflection.ports import GenerationDefaults, ModelCallError, ModelCancelled, ModelClient
from curator.reflection.prompts import load_prompt
from curator.sources.turns import IndexedTurn
from curator.vault.atomic import atomic_write_text
from curator.vault.paths import VaultPaths

log = logging.getLogger(__name__)

MAX_TOKENS_KEY = "_max_tokens"  # transport to the model client, like the narrowing
TASK_ORDER = ("extract", "connect", "flag", "archive", "pattern", "update_core")
PLAN_LIMIT = 12
FADING_QUESTIONS = 5
META_SUPPORT = 0.5  # reflective text may generalise a little more than a fact
PROMPT_LABELS = ("current core memory", "core memory", "consolidation results", "insights", "recent themes", "known")
RAW_KEEP = 4000  # raw model output kept in the record, for the person and for debugging


@dataclass(frozen=True)
class EvidenceNarrowing:
    """Narrows ``operations[].evidence`` to the labels shown in one consolidate call."""

    labels: Sequence[str]

    def apply(self, schema: dict[str, Any]) -> dict[str, Any]:
        out = json.loads(json.dumps(schema))
        items = out["properties"]["operations"]["items"]["properties"]
        items["evidence"]["items"] = (
            {"type": "string", "enum": list(self.labels)}
            if self.labels
            else {"type": "string", "maxLength": 0}
        )
        return dict(out)


@dataclass
class CycleOutcome:
    status: str  # proposed | blocked | cancelled | aborted
    cycle_id: str = ""
    reason: str = ""
    operations: int = 0
    rejected: int = 0
    output_tokens: int = 0
    input_tokens: int = 0
    pending_file: str = ""
    problems: list[str] = field(default_factory=list)
    fading: list[dict[str, Any]] = field(default_factory=list)  # memory_id, title, score


class CycleRunner:
    """Runs cycles for one vault with one model (blocking; meant for the model worker)."""

    def __init__(self, paths: VaultPaths, model: ModelClient, turns_after: Callable[[str, int], Sequence[IndexedTurn]],
                 *, n_ctx: int, clock: Clock | None = None, schedule: str = "03:00",
                 rejected: RejectedMemory | None = None, prompts_vault: Path | None = None,
                 prose: bool = True) -> None:
        self.paths = paths
        # The reflective prose (phase 5) is asked of capable models only: the bundled one's
        # passed the support gate while inventing ("They've changed their name to Sintra").
        self.prose = prose
        self.model = model
        self.turns_after = turns_after
        self.n_ctx = n_ctx
        self.clock = clock or SystemClock()
        self.schedule = schedule
        self.rejected = rejected if rejected is not None else RejectedMemory(paths, self.clock)
        self.prompts_vault = prompts_vault

    def run(self, user_id: str, trigger: str = "manual", session: str = "") -> CycleOutcome:
        """Propose one cycle. ``session`` is the conversation it reflects (a session that ended);
        when none is given, the conversation of the newest turn it reads."""
        root = self.paths.user(user_id).root
        waiting = [r for r in all_records(root) if r.status == "pending"]
        if waiting:
            return CycleOutcome("blocked", waiting[-1].cycle_id,
                                f"cycle {waiting[-1].cycle_id} still awaits review; answer it first")
        try:
            record = self._run(user_id, root, trigger, session)
        except ModelCancelled as exc:
            return CycleOutcome("cancelled", reason=str(exc))
        record_path = root / record_rel(record.cycle_id)
        record_path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(record_path, record.to_json())
        atomic_write_text(self.paths.user(user_id).pending_reflection, summary.render(record))
        return CycleOutcome("proposed", record.cycle_id, "awaits review", len(record.operations),
                            len(record.rejections), record.output_tokens, record.input_tokens,
                            "pending-reflection.md", record.problems, list(record.fading))

    # ---- The phases

    def _run(self, user_id: str, root: Path, trigger: str, session: str = "") -> CycleRecord:
        now = self.clock.now()
        decay = DecayState.load(root / "memory/meta/decay-scores.json")
        reader = ScopeReader(root, lambda after: self.turns_after(user_id, after), self.model.count_tokens)
        inputs = reader.gather(decay, now)
        observe(decay, inputs, root, now)
        number = max([decay.reflection_count, *(r.number for r in all_records(root))]) + 1
        stamp = datetime.fromtimestamp(now).strftime("%Y%m%d-%H%M%S")
        record = CycleRecord(f"{stamp}-{number:04d}", number, user_id, iso(now), trigger=trigger,
                             milestone=milestone(number), old_memory=inputs.core_memory,
                             session=session or (inputs.turns[-1].conversation if inputs.turns else ""))
        budget = OutputBudget()
        self._survey(record, inputs, decay, budget)
        self._meta(record, inputs, budget)
        self._consolidate(record, inputs, decay, budget, user_id)
        self._rewrite(record, inputs, budget)
        self._summarize(record, budget, "\n".join([*inputs.labels().values(), record.new_memory, *record.insights,
                                                  *record.observations, *inputs.log_entries, inputs.evolution]))
        record.fading = [{"memory_id": m.memory_id, "title": m.title, "score": m.score}
                         for m in decay.fading()[:FADING_QUESTIONS]]
        record.output_tokens = budget.used
        record.input_tokens = sum(int(c.get("prompt_tokens", 0)) for c in record.calls) or inputs.input_tokens
        record.inputs = as_plain(inputs)
        record.processed = {"episodes": len(inputs.turns) + len(inputs.day_logs), "entities": len(inputs.entities),
                            "procedures": len(inputs.procedures), "memories": len(inputs.memories)}
        record.pending_memories = dict(inputs.pending)
        record.processed["pending_memories"] = len(inputs.pending)
        record.last_turn_read = inputs.last_turn_read
        record.last_episode_read = inputs.last_episode_read
        record.next_scheduled = next_run(self.schedule, now)
        left = {k: v["left_out"] for k, v in record.inputs.items() if v["left_out"]}
        if left:
            record.problems.append(f"over allocation, left for the next cycle: {left}")
        return record

    def _survey(self, record: CycleRecord, inputs: CycleInputs, decay: DecayState, budget: OutputBudget) -> None:
        fading = [f"[fading {m.memory_id}] {m.title} (score {m.score:.2f})" for m in decay.fading()]
        blocks = ([f"[core] {line}" for line in inputs.core_memory.splitlines() if line.strip()]
                  + inputs.episode_lines() + [m.line() for m in inputs.memories]
                  + [f"[graph] {line}" for line in inputs.graph_index.splitlines() if line.startswith("|")] + fading)
        fixed = {"reflection_number": str(record.number),
                 "last_reflection": decay.last_reflection or "never (first reflection: last 7 days)"}
        counts: Counter[tuple[str, str]] = Counter()
        for shown, data in self._chunked_with("cycle_survey", fixed, "memory_state", blocks or ["(empty)"], budget,
                                              record):
            for task in data.get("tasks", []):
                text = _one_line(task.get("task", ""))
                if not supported(text, "\n".join(shown)):  # a plan only about what was shown
                    record.rejections.append({"operation": "plan", "content": text, "gate": "support",
                                              "reason": "the task is not about anything in the memory state"})
                    continue
                counts[(str(task.get("kind")), text)] += 1
        ordered = sorted(counts, key=lambda k: (TASK_ORDER.index(k[0]) if k[0] in TASK_ORDER else 9, -counts[k]))
        record.plan = [{"kind": k, "task": t} for k, t in ordered if t][:PLAN_LIMIT]

    def _meta(self, record: CycleRecord, inputs: CycleInputs, budget: OutputBudget) -> None:
        history = list(inputs.log_entries) + [line for line in inputs.evolution.splitlines() if line.strip()]
        if not history:
            # Nothing to look back on: asking would only invite invented history.
            record.guidance = "First reflection: no history to review yet; build the baseline."
            return
        note = f"Milestone: {record.milestone}" if record.milestone else ""
        fixed = {"reflection_number": str(record.number), "milestone": note}
        support = "\n".join(history + inputs.episode_lines() + [m.text for m in inputs.memories])
        for data in self._chunked("cycle_meta", fixed, "history", history, budget, record):
            for key, target in (("insights", record.insights), ("observations", record.observations)):
                for text in map(_one_line, data.get(key, [])):
                    if text and supported(text, support, META_SUPPORT):
                        target.append(text)
                    elif text:
                        record.rejections.append({"operation": key, "content": text, "gate": "support",
                                                  "reason": "not grounded in the reflection history"})
            guidance = _one_line(data.get("guidance", ""))
            if not record.guidance and guidance and supported(guidance, support, META_SUPPORT):
                record.guidance = guidance
        record.insights = list(dict.fromkeys(record.insights))[:3]
        record.observations = list(dict.fromkeys(record.observations))[:2]

    def _consolidate(self, record: CycleRecord, inputs: CycleInputs, decay: DecayState, budget: OutputBudget,
                     user_id: str) -> None:
        labels = inputs.labels()
        plan = [f"{i}. {p['kind']}: {p['task']}" for i, p in enumerate(record.plan, 1)] or ["(no plan)"]
        fixed = {"plan": "\n".join(plan), "guidance": record.guidance or "none"}
        fading = decay.fading()
        labels.update({f"fading {m.memory_id}": f"{m.memory_id} {m.title}" for m in fading})
        material = inputs.material_lines() + [f"[fading {m.memory_id}] {m.title} (score {m.score:.2f})"
                                              for m in fading]
        proposed: list[Operation] = []
        rejections: list[OpRejection] = []
        for _chunk_lines, data in self._chunked_with("cycle_consolidate", fixed, "material", material or ["(empty)"],
                                                    budget, record, narrowing=True):
            ops, bad = parse_operations(json.dumps(data), start=len(proposed) + 1)
            proposed += ops
            rejections += bad
        meta_text = "\n".join([*record.insights, *record.observations, record.guidance, *inputs.log_entries,
                               inputs.evolution])
        gates = OperationGates(labels, decay, meta_text, self.rejected, user_id)
        passed, refused = gates.check(proposed)
        # What code finds in dispute is flagged whatever the model said (see disagreements).
        found = disagreements.find(self.paths.user(user_id).staging, inputs.memories)
        record.disputed = sorted(disagreements.disputed(found))
        seen = {op.fingerprint for op in passed}
        for op in disagreements.flags(found):
            if op.fingerprint not in seen:
                op.target = target_for(op, decay)
                passed.append(op)
        for index, op in enumerate(passed, 1):
            op.op_id = f"op-{index}"
        record.operations = passed
        record.evidence = {label: labels[label] for op in passed for label in op.evidence if label in labels}
        record.rejections = [r.__dict__ for r in rejections + refused]

    def _rewrite(self, record: CycleRecord, inputs: CycleInputs, budget: OutputBudget) -> None:
        results = [f"{o.operation}: {o.entity} {o.content}".strip() for o in record.operations
                   if o.operation in ("EXTRACT", "CONNECT", "PATTERN")]
        current = [line for line in inputs.core_memory.splitlines() if line.strip()] or ["(empty: first rewrite)"]
        facts = [m.text for m in inputs.memories]
        themes = ", ".join(_themes(inputs))
        fixed = {"results": "\n".join(results + [f"known: {f}" for f in facts]) or "none",
                 "insights": "; ".join(record.insights) or "none", "themes": themes or "none"}
        merged: dict[str, list[str]] = {k: [] for k, _, _ in core_memory.SECTIONS}
        got = False
        for data in self._chunked("cycle_rewrite", fixed, "current_memory", current, budget, record):
            got = True
            for key in merged:
                merged[key] += [_unlabel(str(x)) for x in data.get(key, [])]
        if not got:
            merged = core_memory.fallback(inputs.core_memory, [o.content for o in record.operations
                                                               if o.operation == "EXTRACT"])
            record.problems.append("MEMORY.md: the model gave no rewrite; the current file plus new facts is proposed")
        support = "\n".join([inputs.core_memory, *facts, *(o.content for o in record.operations),
                             *(o.entity for o in record.operations), *record.insights, *inputs.episode_lines()])
        pinned = [m.text for m in inputs.memories if m.pinned]
        # Promote the most recently seen memories the model left out (newest first), so the
        # core file reflects what was approved lately; the section shares still cap it.
        shown = [line for lines in merged.values() for line in lines]
        disputed = set(record.disputed)
        merged["active_context"] += [m.text for m in inputs.memories if not m.pinned and not similar_in(m.text, shown)
                                     and m.memory_id not in disputed]
        # Memories in dispute stay out until the person answers; what corrections replaced, for good.
        current = [m.text for m in inputs.memories if m.memory_id not in disputed]
        gone = [t for m in inputs.memories for t in m.superseded]
        gone += [m.text for m in inputs.memories if m.memory_id in disputed and not m.pinned]
        rewrite = core_memory.build(inputs.core_memory, merged, support, pinned, self.model.count_tokens,
                                    truth=core_memory.Truth(current, gone))
        record.new_memory = rewrite.text
        record.memory_tokens = rewrite.tokens
        record.promoted, record.demoted, record.unsupported = rewrite.promoted, rewrite.demoted, rewrite.unsupported

    def _summarize(self, record: CycleRecord, budget: OutputBudget, support: str) -> None:
        if not self.prose:
            record.reflective = {"written_by": "none"}
            return
        ops = [o.render().replace("\n", " ") for o in record.operations] or ["(no operations)"]
        # The MEMORY.md diff travels with the operations, so a long one is chunked, not cut.
        diff = [line for line in summary.memory_diff(record.old_memory, record.new_memory).splitlines()
                if line[:1] in "+-" and line[1:].strip()]
        ops += [f"MEMORY.md change: {line}" for line in diff]
        fixed = {"insights": "; ".join(record.insights + record.observations) or "none",
                 "changes": f"{sum(1 for x in diff if x[0] == '+')} lines added, "
                            f"{sum(1 for x in diff if x[0] == '-')} removed (listed with the operations)"}
        texts: dict[str, list[str]] = {k: [] for k in ("learning", "understanding", "themes", "assumptions")}
        for data in self._chunked("cycle_summary", fixed, "operations", ops, budget, record):
            for key, kept in texts.items():
                value = _one_line(data.get(key, ""))
                if value and not scan([value]) and supported(value, support, META_SUPPORT):
                    kept.append(value)
                elif value:
                    record.rejections.append({"operation": key, "content": value, "gate": "support",
                                              "reason": "not grounded in this cycle's material"})
            record.questions += [q for q in map(_one_line, data.get("questions", []))
                                 if q and not scan([q]) and supported(q, support, META_SUPPORT)]
        record.reflective = {k: " ".join(dict.fromkeys(v)) for k, v in texts.items()}
        record.questions = list(dict.fromkeys(record.questions))[:3]

    # ---- Calls

    def _chunked(self, prompt: str, fixed: dict[str, str], list_key: str, blocks: list[str], budget: OutputBudget,
                 record: CycleRecord) -> list[dict[str, Any]]:
        return [data for _, data in self._chunked_with(prompt, fixed, list_key, blocks, budget, record)]

    def _chunked_with(self, prompt: str, fixed: dict[str, str], list_key: str, blocks: list[str],
                      budget: OutputBudget, record: CycleRecord, narrowing: bool = False
                      ) -> list[tuple[list[str], dict[str, Any]]]:
        template = load_prompt(prompt, vault=self.prompts_vault)
        system, user = template.render({**fixed, list_key: ""})
        room = self.n_ctx - template.max_tokens - self.model.count_tokens(system + user) - RESERVE
        out: list[tuple[list[str], dict[str, Any]]] = []
        for part in chunk(blocks, self.model.count_tokens, room):
            grant = budget.grant(template.max_tokens)
            if grant < 32:
                record.problems.append(f"{prompt}: output budget spent; {len(part)} lines not processed")
                continue
            variables: dict[str, Any] = {**fixed, list_key: part, MAX_TOKENS_KEY: grant}
            if narrowing:
                from curator.reflection.narrowing import NARROWING_KEY

                labels = [label for label in _labels_in(part)]
                variables[NARROWING_KEY] = EvidenceNarrowing(labels)
            data = self._call(prompt, variables, budget, record, template.temperature, grant)
            if data is not None:
                out.append((part, data))
        return out

    def _call(self, prompt: str, variables: dict[str, Any], budget: OutputBudget, record: CycleRecord,
              temperature: float, grant: int) -> dict[str, Any] | None:
        try:
            reply = self.model.call(prompt, variables, None, GenerationDefaults(temperature, grant))
        except ModelCancelled:
            raise
        except ModelCallError as exc:
            record.problems.append(f"{prompt}: model call failed: {exc}")
            return None
        spent = int(reply.settings.get("completion_tokens", 0) or self.model.count_tokens(reply.text))
        budget.spend(prompt, spent)
        record.calls.append({"phase": prompt, "prompt_tokens": int(reply.settings.get("prompt_tokens", 0) or 0),
                             "completion_tokens": spent, "finish_reason": reply.finish_reason,
                             "problems": list(reply.problems), "text": reply.text[:RAW_KEEP]})
        try:
            data = json.loads(reply.text, strict=False)  # the grammar lets raw newlines into strings
        except ValueError:
            record.problems.append(f"{prompt}: output is not JSON; ignored")
            log.info("cycle phase %s: unparsable output %r", prompt, reply.text[:200])
            return None
        if not isinstance(data, dict):
            record.problems.append(f"{prompt}: output is not an object; ignored")
            return None
        return data


def observe(decay: DecayState, inputs: CycleInputs, root: Path, now: float) -> None:
    """Register every memory the cycle knows and refresh what this cycle's turns mention."""
    for memory in inputs.memories:
        decay.observe(memory.memory_id, memory.kind, memory.title, memory.rel, memory.seen or now)
    for folder, kind in (("memory/graph/entities", "entity"), ("memory/procedures", "procedure")):
        for path in sorted((root / folder).glob("*.md")) if (root / folder).is_dir() else []:
            rel = f"{folder}/{path.name}"
            known = decay.memories.get(f"{kind}-{path.stem}")
            decay.observe(f"{kind}-{path.stem}", kind, path.stem, rel, known.last_seen if known else now)
    decay.rescore(now)


def _labels_in(lines: Sequence[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        if line.startswith("[") and "]" in line:
            label = line[1:line.index("]")]
            if label.split(" ", 1)[0] in ("turn", "memory", "entity", "procedure", "episode", "fading"):
                out.append(label)
    return list(dict.fromkeys(out))


def _themes(inputs: CycleInputs, limit: int = 8) -> list[str]:
    from curator.index.text import content_words

    counts: Counter[str] = Counter()
    for turn in inputs.turns:
        counts.update(w for w in content_words(turn.text) if len(w) > 3 and not w.isdigit())
    return [w for w, _ in counts.most_common(limit)]


def _unlabel(line: str) -> str:
    """A line without a prompt heading the model copied in front of it ("Insights: ...")."""
    head, sep, rest = line.partition(":")
    return rest.strip() if sep and head.strip().casefold() in PROMPT_LABELS else line


def similar_in(text: str, lines: Sequence[str]) -> bool:
    """Whether ``text`` (nearly) repeats one of ``lines``."""
    return any(similarity(text, line) > core_memory.DUPLICATE for line in lines)


def _one_line(value: Any) -> str:
    return " ".join(str(value or "").split())


def next_run(schedule: str, now: float) -> str:
    """The next scheduled cycle as local ``YYYY-MM-DD HH:MM`` ("" when unscheduled)."""
    try:
        hour, minute = (int(x) for x in schedule.split(":"))
    except ValueError:
        return ""
    here = datetime.fromtimestamp(now)
    at = here.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if at <= here:
        at += timedelta(days=1)
    return at.strftime("%Y-%m-%d %H:%M")
