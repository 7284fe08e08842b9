"""Applying an approved cycle: every file at once or none, recorded, undoable as one step.

:func:`plan` turns a record and the person's decision into whole-file changes (MEMORY.md,
graph and procedure files, archival moves, evolution.md and reflection-log.md with their
archives, decay-scores.json, the record itself, the rejected-operation fingerprints, the
sub-agents' proposals it processed (out of memory/pending-memories.md), and the removal of
pending-reflection.md). :func:`write_all` writes them behind an intent journal
(``Logs/cycles/apply-journal.json`` holds every file's previous bytes): a failure half-way
restores every file from it, and so does :func:`recover` after a crash. The returned undo
steps (``op: file``) restore the exact previous bytes; ``ReviewEngine.undo`` runs them.

If the vault is a git repository (or the setting ``cycle.git_commit`` makes it one), the
cycle is one commit by ``reflection:<cycle id>`` (dulwich; the git binary is not needed).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.reflection.cycle import graph, pending_memories
from curator.reflection.cycle.core_memory import CAP_TOKENS
from curator.reflection.cycle.decay import DecayState, iso
from curator.reflection.cycle.logs import EvolutionEntry, log_entry, update_evolution, update_log
from curator.reflection.cycle.operations import Operation, entity_slug
from curator.reflection.cycle.record import CycleRecord, record_rel
from curator.reflection.gates.fingerprints import fingerprint
from curator.vault.atomic import atomic_write_text
from curator.vault.paths import safe_child

log = logging.getLogger(__name__)

JOURNAL = "Logs/cycles/apply-journal.json"
REJECTED_FILE = "Logs/review_rejected.json"


@dataclass(frozen=True)
class Change:
    """A whole file's new text (None: the file is removed)."""

    rel: str
    text: str | None


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _read(root: Path, rel: str) -> str | None:
    try:
        return safe_child(root, rel).read_text("utf-8")
    except FileNotFoundError:
        return None


def reject_text(op: Operation) -> str:
    return f"{op.operation} {op.entity} {op.relation} {op.other} {op.content}"


def plan(
    root: Path,
    record: CycleRecord,
    approved: Sequence[Operation],
    rejected: Sequence[Operation],
    memory_text: str | None,
    status: str,
    now: float,
    count: Callable[[str], int],
    reason: str = "",
) -> list[Change]:
    """Every file change of answering ``record`` (see the module docstring)."""
    files: dict[str, str | None] = {}

    def current(rel: str) -> str:
        if rel in files:
            return files[rel] or ""
        return _read(root, rel) or ""

    if memory_text is not None:
        files["MEMORY.md"] = memory_text.rstrip("\n") + "\n"
    _operations(root, record, approved, files, current)
    _logs(root, record, approved, files, current, status, count, reason)
    _decay(root, record, approved, files, current, now, count)
    _rejected(rejected, files, current, record, now)
    if status != "rejected" and record.pending_memories:
        cited = {label for op in approved for label in op.evidence}
        results = pending_memories.outcome(record.pending_memories, cited)
        files[pending_memories.PENDING_FILE] = pending_memories.remaining(
            current(pending_memories.PENDING_FILE), list(results))
        files[pending_memories.PROCESSED_FILE] = pending_memories.processed_text(
            current(pending_memories.PROCESSED_FILE), record.number, record.created_at[:10], results)
    answered = CycleRecord.from_json(record.to_json())
    answered.status = status
    answered.decision = {"status": status, "approved": [o.op_id for o in approved],
                         "rejected": [o.op_id for o in rejected], "memory_rewrite": memory_text is not None,
                         "reason": reason, "answered_at": iso(now)}
    files[record_rel(record.cycle_id)] = answered.to_json()
    files["pending-reflection.md"] = None
    return [Change(rel, text) for rel, text in files.items()]


def _operations(root: Path, record: CycleRecord, approved: Sequence[Operation], files: dict[str, str | None],
                current: Callable[[str], str]) -> None:
    """The approved operations' changes: entity pages and the graph index, procedures, flags, archive."""
    number = record.number
    entities, edges = graph.parse_index(current("memory/graph/index.md"))
    facts: dict[str, tuple[str, list[str], list[str]]] = {}
    for op in approved:
        if op.operation == "EXTRACT":
            facts.setdefault(entity_slug(op.entity), (op.entity, [], []))[1].append(op.content)
        elif op.operation == "CONNECT":
            a, b = entity_slug(op.entity), entity_slug(op.other)
            facts.setdefault(a, (op.entity, [], []))[2].append(f"{op.relation} → {graph.link(op.other)}")
            facts.setdefault(b, (op.other, [], []))[2].append(f"{op.relation} ← {graph.link(op.entity)}")
            edge = graph.Edge(a, op.relation, b, f"#{number}")
            if not any((e.source, e.relation, e.target) == (a, op.relation, b) for e in edges):
                edges.append(edge)
        elif op.operation == "PATTERN":
            rel = f"memory/procedures/{entity_slug(op.entity)}.md"
            files[rel] = graph.procedure_text(current(rel), op, number)
        elif op.operation == "FLAG":
            rel = "memory/meta/contradictions.md"
            text = current(rel) or "# Contradictions flagged by reflection\n\n"
            files[rel] = text.rstrip("\n") + f"\n- [#{number}] {op.content} (evidence: {', '.join(op.evidence)})\n"
        elif op.operation == "ARCHIVE" and op.target and _read(root, op.target) is not None:
            files[f"memory/archive/{op.target}"] = current(op.target)
            files[op.target] = None
    date = record.created_at[:10]
    for slug, (name, new_facts, links) in facts.items():
        rel = f"memory/graph/entities/{slug}.md"
        files[rel] = graph.entity_text(current(rel), name, new_facts, links, number)
        entities[slug] = date
    if facts or edges:
        files["memory/graph/index.md"] = graph.render_index(entities, edges)


def _logs(root: Path, record: CycleRecord, approved: Sequence[Operation], files: dict[str, str | None],
          current: Callable[[str], str], status: str, count: Callable[[str], int], reason: str) -> None:
    date = record.created_at[:10]
    evolve = [o.content for o in approved if o.operation == "EVOLVE"]
    insight = (evolve or record.insights or ["no new insight"])[0]
    if status != "rejected":
        entities, _ = graph.parse_index(files.get("memory/graph/index.md") or current("memory/graph/index.md"))
        procedures = len(list((root / "memory/procedures").glob("*.md"))) + sum(
            1 for rel in files if rel.startswith("memory/procedures/") and _read(root, rel) is None)
        memory = files.get("MEMORY.md") or current("MEMORY.md")
        previous = [
            line
            for line in current("memory/meta/evolution.md").splitlines()
            if line.startswith("## Reflection #")
        ]
        entry = EvolutionEntry(
            record.number, date, len(entities), procedures, round(100 * count(memory) / CAP_TOKENS) if memory else 0,
            insight, (record.insights[1:2] or evolve[1:2] or [""])[0],
            next((o.content for o in approved if o.operation == "PATTERN"), ""),
            record.reflective.get("assumptions", ""),
            previous[-1][3:] if previous else "", record.guidance, record.milestone)
        evo, archive = update_evolution(current("memory/meta/evolution.md"),
                                        current("memory/meta/evolution-archive.md"), entry, count)
        files["memory/meta/evolution.md"] = evo
        if archive != current("memory/meta/evolution-archive.md"):
            files["memory/meta/evolution-archive.md"] = archive
    body = [f"- Trigger: {record.trigger}; operations approved: {len(approved)} of {len(record.operations)}",
            f"- Tokens: {record.input_tokens} in, {record.output_tokens} out",
            *(f"- {o.operation}: {o.content}" for o in approved)]
    if reason:
        body.append(f"- Reason: {reason}")
    if record.milestone:
        body.append(f"- Milestone #{record.number}: {record.milestone}")
    text, archive = update_log(current("memory/meta/reflection-log.md"), current("memory/meta/reflection-archive.md"),
                               log_entry(record.number, date, status, insight, "\n".join(body)), record.number)
    files["memory/meta/reflection-log.md"] = text
    if archive != current("memory/meta/reflection-archive.md"):
        files["memory/meta/reflection-archive.md"] = archive


def _decay(root: Path, record: CycleRecord, approved: Sequence[Operation], files: dict[str, str | None],
           current: Callable[[str], str], now: float, count: Callable[[str], int]) -> None:
    rel = "memory/meta/decay-scores.json"
    decay = DecayState.load(root / rel)
    decay.last_reflection = iso(now)
    decay.last_turn = max(decay.last_turn, record.last_turn_read)
    decay.last_reflection_episode = record.last_episode_read or record.created_at[:10]
    decay.reflection_count = max(decay.reflection_count, record.number)
    for changed, text in files.items():
        for folder, kind in (("memory/graph/entities/", "entity"), ("memory/procedures/", "procedure")):
            if changed.startswith(folder) and text is not None:
                stem = Path(changed).stem
                decay.observe(f"{kind}-{stem}", kind, stem, changed, now)
    for op in approved:
        if op.operation == "ARCHIVE" and op.entity in decay.memories:
            decay.memories[op.entity].archived = True
    decay.rescore(now)
    files[rel] = decay.to_json()


def _rejected(rejected: Sequence[Operation], files: dict[str, str | None], current: Callable[[str], str],
              record: CycleRecord, now: float) -> None:
    if not rejected:
        return
    try:
        data = json.loads(current(REJECTED_FILE) or '{"entries": []}')
    except ValueError:
        data = {"entries": []}
    entries = data.get("entries", []) if isinstance(data, dict) else []
    for op in rejected:
        text = reject_text(op)
        entries.append({"fingerprint": fingerprint(text), "text": text, "kind": f"cycle:{op.operation}",
                        "reason": f"rejected in cycle {record.cycle_id}", "rejected_at": iso(now),
                        "doc_id": f"{record.cycle_id}:{op.op_id}"})
    files[REJECTED_FILE] = json.dumps({"entries": entries}, indent=2, sort_keys=True, ensure_ascii=False)


def write_all(root: Path, changes: Sequence[Change]) -> list[dict[str, Any]]:
    """Write every change or none (see the module docstring); returns the undo steps."""
    recover(root)
    before = {c.rel: _read(root, c.rel) for c in changes}
    journal = safe_child(root, JOURNAL)
    journal.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(journal, json.dumps({"before": before}, ensure_ascii=False))
    try:
        for change in changes:
            _put(root, change.rel, change.text)
    except BaseException:
        _restore(root, before)
        journal.unlink(missing_ok=True)
        raise
    journal.unlink(missing_ok=True)
    return [{"op": "file", "rel": c.rel, "before_text": before[c.rel],
             "after_hash": sha(c.text) if c.text is not None else None} for c in changes]


def _put(root: Path, rel: str, text: str | None) -> None:
    path = safe_child(root, rel)
    if text is None:
        path.unlink(missing_ok=True)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text)


def _restore(root: Path, before: dict[str, str | None]) -> None:
    for rel, text in before.items():
        _put(root, rel, text)


def recover(root: Path) -> bool:
    """Finish an interrupted apply by restoring every file it touched; True if one was found."""
    journal = safe_child(root, JOURNAL)
    try:
        data = json.loads(journal.read_text("utf-8"))
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        log.error("unreadable cycle apply journal %s kept for inspection", journal)
        return False
    _restore(root, {str(k): v for k, v in dict(data.get("before", {})).items()})
    journal.unlink(missing_ok=True)
    return True


def check_undo(root: Path, step: dict[str, Any]) -> str | None:
    """Why a file step cannot be undone (changed since), or None."""
    text = _read(root, str(step["rel"]))
    after = step.get("after_hash")
    if (after is None and text is not None) or (after is not None and (text is None or sha(text) != after)):
        return f"{step['rel']} changed since the cycle was applied"
    return None


def undo_step(root: Path, step: dict[str, Any]) -> None:
    before = step.get("before_text")
    _put(root, str(step["rel"]), before if isinstance(before, str) else None)


def git_commit(vault: Path, user_root: Path, rels: Sequence[str], actor: str, message: str, init: bool) -> str:
    """Commit the changed files as ``actor``; returns the commit id ("" when the vault is no repo)."""
    from dulwich import porcelain
    from dulwich.repo import Repo

    if not (vault / ".git").exists():
        if not init:
            return ""
        Repo.init(str(vault))
    repo = Repo(str(vault))
    try:
        present = [str(user_root / r) for r in rels if (user_root / r).exists()]
        gone = [str(user_root / r) for r in rels if not (user_root / r).exists()]
        if present:
            porcelain.add(repo, paths=present)
        tracked = {p.decode() for p in repo.open_index()}
        for path in gone:
            if Path(path).relative_to(vault).as_posix() in tracked:
                porcelain.remove(repo, paths=[path], cached=True)
        who = f"{actor} <{actor.replace(':', '-')}@memory-curator.invalid>".encode()
        commit = porcelain.commit(repo, message=message.encode(), author=who, committer=who)
        return commit.decode() if isinstance(commit, bytes) else str(commit)
    finally:
        repo.close()
