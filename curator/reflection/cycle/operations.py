"""The six consolidation operations (seed 001 phase 3), parsed and gated in code.

The model answers under a grammar; :func:`parse_operations` reads that answer strictly and
:class:`OperationGates` puts every operation through the gates a batch item goes through:

- evidence: every cited label (``turn 12``, ``memory <id>``, ``entity <name>``) was shown in
  this cycle (no invented ids); operations other than EVOLVE must cite at least one;
- form, names and support: the one gate chain of every reflector
  (``curator.reflection.gates.chain.check_item``) against the cited material; an EVOLVE
  insight must be supported by the meta-reflection it came from;
- ARCHIVE names a memory the decay scores know, with its score;
- rejected before: an operation the person rejected once is not proposed again;
- untrusted: instruction-like text, links and invisible characters are flagged.

TARGET paths are computed here from the operation and a slug of the entity name; nothing the
model writes is ever joined into a path.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from curator.reflection.cycle.decay import DecayState
from curator.reflection.gates.chain import DEFAULT_SUPPORT, check_item
from curator.reflection.gates.fingerprints import RejectedMemory, fingerprint
from curator.reflection.gates.untrusted import scan
from curator.sources.turns import IndexedTurn
from curator.vault.paths import slugify

KINDS = ("EXTRACT", "CONNECT", "FLAG", "ARCHIVE", "PATTERN", "EVOLVE")


@dataclass
class Operation:
    """One proposed operation, as shown to the person."""

    op_id: str
    operation: str
    content: str
    reason: str = ""
    entity: str = ""
    relation: str = ""
    other: str = ""
    evidence: list[str] = field(default_factory=list)
    evolution_context: str = ""
    target: str = ""
    score: float | None = None
    flags: list[dict[str, str]] = field(default_factory=list)
    gates: list[str] = field(default_factory=list)

    @property
    def fingerprint(self) -> str:
        return fingerprint(f"{self.operation} {self.entity} {self.relation} {self.other} {self.content}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Operation:
        names = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in names})

    def render(self) -> str:
        """The seed's fixed operation format."""
        lines = ["---", f"OPERATION: {self.operation}", f"TARGET: {self.target}",
                 f"CONTENT: {self.content}", f"REASON: {self.reason}"]
        if self.evolution_context:
            lines.append(f"EVOLUTION_CONTEXT: {self.evolution_context}")
        lines.append("---")
        return "\n".join(lines)


@dataclass(frozen=True)
class OpRejection:
    """An operation a gate refused, with the gate and why."""

    operation: str
    content: str
    gate: str
    reason: str


def entity_slug(name: str) -> str:
    """File stem of an entity or procedure ("Maya Lopez" -> "maya-lopez")."""
    return slugify(" ".join(name.split())[:60]) or "unnamed"


def target_for(op: Operation, decay: DecayState) -> str:
    """Where an operation writes, relative to the user folder (computed, never from the model)."""
    if op.operation == "EXTRACT":
        return f"memory/graph/entities/{entity_slug(op.entity)}.md"
    if op.operation == "CONNECT":
        return "memory/graph/index.md"
    if op.operation == "PATTERN":
        return f"memory/procedures/{entity_slug(op.entity)}.md"
    if op.operation == "EVOLVE":
        return "memory/meta/evolution.md"
    if op.operation == "FLAG":
        return "memory/meta/contradictions.md"
    entry = decay.memories.get(op.entity)
    return entry.rel if entry is not None else ""


def parse_operations(text: str, start: int = 1) -> tuple[list[Operation], list[OpRejection]]:
    """Operations of one consolidate answer; a malformed item is rejected, not fatal."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        return [], [OpRejection("?", text[:80], "parse", f"not JSON: {exc}")]
    raw = data.get("operations") if isinstance(data, dict) else None
    if not isinstance(raw, list):
        return [], [OpRejection("?", text[:80], "parse", "no operations list")]
    ops: list[Operation] = []
    problems: list[OpRejection] = []
    for item in raw:
        if not isinstance(item, dict) or item.get("operation") not in KINDS:
            problems.append(OpRejection("?", str(item)[:80], "parse", "not an operation of the six kinds"))
            continue
        content = " ".join(str(item.get("content") or "").split())
        if len(content) < 5:
            problems.append(OpRejection(str(item["operation"]), content, "parse", "no content"))
            continue
        evidence = [str(e).strip() for e in item.get("evidence") or [] if str(e).strip()]
        ops.append(Operation(
            op_id=f"op-{start + len(ops)}", operation=str(item["operation"]), content=content,
            reason=_clean(item.get("reason")), entity=_clean(item.get("entity")),
            relation=_clean(item.get("relation")), other=_clean(item.get("other")),
            evidence=list(dict.fromkeys(evidence)), evolution_context=_clean(item.get("evolution_context"))))
    return ops, problems


def _clean(value: Any) -> str:
    return " ".join(str(value or "").split())


def _as_turns(texts: Sequence[str]) -> list[IndexedTurn]:
    """Cited material as turn records, so the gate chain judges it unchanged."""
    return [IndexedTurn(number=i, user_id="", source_id="", file="", conversation="", key="", position=i,
                        role="user", speaker="", text=t, timestamp=0.0, sha256="") for i, t in enumerate(texts, 1)]


def supported(text: str, support: str, threshold: float = DEFAULT_SUPPORT) -> bool:
    """Whether ``support`` carries ``text``'s content words and names (the gate chain)."""
    return check_item(text, _as_turns([support]), threshold=threshold).passed


class OperationGates:
    """Gates for one cycle's operations (see the module docstring)."""

    def __init__(self, labels: Mapping[str, str], decay: DecayState, meta_text: str,
                 rejected: RejectedMemory | None = None, user_id: str = "default",
                 threshold: float = DEFAULT_SUPPORT) -> None:
        self.labels = labels
        self.decay = decay
        self.meta_text = meta_text
        self.rejected = rejected
        self.user_id = user_id
        self.threshold = threshold

    def check(self, ops: Sequence[Operation]) -> tuple[list[Operation], list[OpRejection]]:
        passed: list[Operation] = []
        rejected: list[OpRejection] = []
        seen: set[str] = set()
        for op in ops:
            problem = self._problem(op)
            if problem is None and op.fingerprint in seen:
                problem = ("dedup", "repeats an earlier operation of this cycle")
            if problem is not None:
                rejected.append(OpRejection(op.operation, op.content, *problem))
                continue
            seen.add(op.fingerprint)
            op.target = target_for(op, self.decay)
            op.flags = [f.to_dict() for f in scan([op.content, op.entity, op.other, op.reason])]
            passed.append(op)
        return passed, rejected

    def _problem(self, op: Operation) -> tuple[str, str] | None:
        unknown = [e for e in op.evidence if e not in self.labels]
        if unknown:
            return "evidence", f"cites material that was not shown: {', '.join(unknown[:3])}"
        if op.operation != "EVOLVE" and not op.evidence:
            return "evidence", "cites no material"
        if op.operation in ("EXTRACT", "PATTERN") and not op.entity:
            return "names", f"{op.operation} needs an entity name"
        if op.operation == "CONNECT" and not (op.entity and op.other and op.relation):
            return "names", "CONNECT needs two entities and a relation"
        if op.operation == "ARCHIVE":
            entry = self.decay.memories.get(op.entity)
            if entry is None or entry.archived:
                return "ids", f"ARCHIVE names no known memory ({op.entity or 'none'})"
            op.score = entry.score
        if self.rejected is not None and self.rejected.match(
            self.user_id, f"{op.operation} {op.entity} {op.relation} {op.other} {op.content}"
        ):
            return "rejected_before", "the person rejected this operation in an earlier cycle"
        support = self.meta_text if op.operation == "EVOLVE" else "\n".join(self.labels[e] for e in op.evidence)
        subject = " ".join(x for x in (op.entity if op.operation in ("EXTRACT", "CONNECT") else "",
                                       op.other, op.content) if x)
        if op.operation != "ARCHIVE":
            verdict = check_item(subject, _as_turns([support]), threshold=self.threshold)
            if not verdict.passed:
                return verdict.gate, verdict.reason
            op.gates = ["evidence", *verdict.gates, "rejected_before"]
        else:
            op.gates = ["evidence", "ids", "rejected_before"]
        return None
