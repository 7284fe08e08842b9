"""Review of a consolidation cycle as one unit (seed 001 "User Approval Flow").

A cycle waits as ``pending`` until the person answers; it is never applied by itself. The
answers: approve (everything), approve with changes (edited operation texts or an edited
MEMORY.md), partial (chosen operations; the others count as rejected) and reject with a
reason. A rejected operation is remembered by fingerprint and not proposed again. Applying
is all or nothing (``curator.reflection.cycle.apply``), logged in the review undo log as one
action by ``reflection:<cycle id>``, so one ``undo`` takes the whole cycle back.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from curator.clock import Clock, SystemClock
from curator.reflection.cycle import apply as cycle_apply
from curator.reflection.cycle import record as records
from curator.reflection.cycle.operations import Operation
from curator.reflection.cycle.record import CycleRecord
from curator.review.actions import FlaggedItemError, ReviewEngine, ReviewError
from curator.vault.paths import VaultPaths


@dataclass
class CycleAnswer:
    """What answering a cycle did."""

    cycle_id: str
    status: str
    applied: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    commit: str = ""
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class CycleReview:
    """Answers pending cycles of one vault."""

    def __init__(self, paths: VaultPaths, review: ReviewEngine, count: Callable[[str], int], *,
                 clock: Clock | None = None, git_commit: bool = False) -> None:
        self.paths = paths
        self.review = review
        self.count = count
        self.clock = clock or SystemClock()
        self.git_commit = git_commit

    def records(self, user_id: str, status: str | None = None) -> list[CycleRecord]:
        root = self.paths.user(user_id).root
        cycle_apply.recover(root)
        return [r for r in records.all_records(root) if status is None or r.status == status]

    def show(self, user_id: str, cycle_id: str) -> CycleRecord:
        try:
            return records.load(self.paths.user(user_id).root, cycle_id)
        except ValueError as exc:
            raise ReviewError(str(exc)) from None

    def approve(self, user_id: str, cycle_id: str, *, ops: Sequence[str] | None = None, memory: bool = True,
                memory_text: str | None = None, edits: Mapping[str, str] | None = None,
                accept_flags: bool = False) -> CycleAnswer:
        """Apply the cycle: all operations, or only ``ops`` (partial); edits change texts first."""
        record = self._pending(user_id, cycle_id)
        chosen = set(ops) if ops is not None else {o.op_id for o in record.operations}
        unknown = chosen - {o.op_id for o in record.operations}
        if unknown:
            raise ReviewError(f"cycle {cycle_id} has no operation {', '.join(sorted(unknown))}")
        approved: builtins.list[Operation] = []
        for op in record.operations:
            if op.op_id not in chosen:
                continue
            if edits and op.op_id in edits:
                op.content = " ".join(edits[op.op_id].split())
            if op.flags and not accept_flags:
                reasons = "; ".join(f"{f.get('flag')}: {f.get('reason')}" for f in op.flags)
                raise FlaggedItemError(f"{op.op_id} is flagged ({reasons}); approving it needs accept_flags")
            approved.append(op)
        rejected = [o for o in record.operations if o.op_id not in chosen]
        text = memory_text if memory_text is not None else (record.new_memory if memory else None)
        edited = bool(edits) or memory_text is not None
        whole = not rejected and text is not None
        status = "applied" if whole else "partial"
        action = "approve with changes" if edited else ("approve" if whole else "partial approve")
        return self._answer(user_id, record, approved, rejected, text, status, action)

    def reject(self, user_id: str, cycle_id: str, reason: str) -> CycleAnswer:
        """Apply nothing; remember every operation as rejected, and why."""
        if not reason.strip():
            raise ReviewError("rejecting a cycle needs a reason")
        record = self._pending(user_id, cycle_id)
        return self._answer(user_id, record, [], list(record.operations), None, "rejected", "reject", reason)

    def undo(self, user_id: str) -> builtins.list[Any]:
        """Undo the last review action (a whole cycle when that was one) and commit it to git."""
        entries = self.review.undo_log(user_id)
        last = entries[-1] if entries else {}
        results = self.review.undo(user_id)
        if str(last.get("action", "")).startswith("cycle:"):
            rels = [str(s["rel"]) for s in last.get("steps", []) if s.get("op") == "file"]
            self._commit(user_id, rels, str(last.get("doc_id", "")), "undo", str(last.get("actor", "")))
        return results

    # ---- Internals

    def _pending(self, user_id: str, cycle_id: str) -> CycleRecord:
        record = self.show(user_id, cycle_id)
        if record.status != "pending":
            raise ReviewError(f"cycle {cycle_id} was already answered ({record.status})")
        return record

    def _answer(self, user_id: str, record: CycleRecord, approved: builtins.list[Operation],
                rejected: builtins.list[Operation], memory_text: str | None, status: str, action: str,
                reason: str = "") -> CycleAnswer:
        root = self.paths.user(user_id).root
        now = self.clock.now()
        changes = cycle_apply.plan(root, record, approved, rejected, memory_text, status, now, self.count, reason)
        steps = cycle_apply.write_all(root, changes)
        for op in approved:
            if op.operation == "ARCHIVE" and op.target.startswith("Knowledge/"):
                self.review.index.remove(op.entity)
        self.review.record_action(user_id, f"cycle:{action}", record.cycle_id, steps,
                                  actor=records.actor(record))
        rels = [c.rel for c in changes]
        commit = self._commit(user_id, rels, record.cycle_id, action, records.actor(record))
        self.review.emit("review.cycle", user_id, record.cycle_id, status=status)
        return CycleAnswer(record.cycle_id, status, [o.op_id for o in approved], [o.op_id for o in rejected], rels,
                           commit, f"cycle {record.cycle_id}: {action}, {len(approved)} operation(s) applied")

    def _commit(self, user_id: str, rels: Sequence[str], cycle_id: str, action: str, actor: str) -> str:
        root = self.paths.user(user_id).root
        if not (self.git_commit or (self.paths.root / ".git").exists()):
            return ""
        return cycle_apply.git_commit(self.paths.root, root, rels, actor or f"reflection:{cycle_id}",
                                      f"{action}: reflection cycle {cycle_id}", init=self.git_commit)
