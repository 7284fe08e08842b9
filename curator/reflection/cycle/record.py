"""A proposed cycle on disk: ``Users/<u>/Logs/cycles/<cycle id>.json``.

Status: ``pending`` until the person answers (never applied by itself), then ``applied``,
``partial`` or ``rejected``; an undo of the apply brings it back to ``pending``.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from curator.reflection.cycle.operations import Operation

CYCLES_DIR = "Logs/cycles"


@dataclass
class CycleRecord:
    cycle_id: str
    number: int
    user_id: str
    created_at: str
    trigger: str = "manual"
    session: str = ""  # the conversation reflected on: the git actor is reflection:<session>
    status: str = "pending"
    milestone: str = ""
    plan: list[dict[str, str]] = field(default_factory=list)
    insights: list[str] = field(default_factory=list)
    observations: list[str] = field(default_factory=list)
    guidance: str = ""
    operations: list[Operation] = field(default_factory=list)
    rejections: list[dict[str, str]] = field(default_factory=list)
    evidence: dict[str, str] = field(default_factory=dict)  # cited label -> the material shown
    old_memory: str = ""
    new_memory: str = ""
    memory_tokens: int = 0
    promoted: list[str] = field(default_factory=list)
    demoted: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    disputed: list[str] = field(default_factory=list)  # memory ids code found in dispute (kept out of MEMORY.md)
    reflective: dict[str, str] = field(default_factory=dict)
    questions: list[str] = field(default_factory=list)
    fading: list[dict[str, Any]] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    calls: list[dict[str, Any]] = field(default_factory=list)
    inputs: dict[str, Any] = field(default_factory=dict)
    processed: dict[str, int] = field(default_factory=dict)
    pending_memories: dict[str, str] = field(default_factory=dict)  # "pending N" -> the entry shown
    last_turn_read: int = 0
    last_episode_read: str | None = None
    next_scheduled: str = ""
    problems: list[str] = field(default_factory=list)
    decision: dict[str, Any] = field(default_factory=dict)

    def op(self, op_id: str) -> Operation | None:
        return next((o for o in self.operations if o.op_id == op_id), None)

    def to_json(self) -> str:
        data = asdict(self)
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> CycleRecord:
        data = json.loads(text)
        ops = [Operation.from_dict(o) for o in data.pop("operations", [])]
        names = set(cls.__dataclass_fields__)
        return cls(operations=ops, **{k: v for k, v in data.items() if k in names})


def actor(record: CycleRecord) -> str:
    """Seed 001's audit actor ``reflection:SESSION_ID``; the cycle id when no session was read.

    A conversation id is the client's (a file name, a UUID, a title): only characters a git
    identity and a log line can carry are kept.
    """
    session = re.sub(r"[^\w.\-/:]+", "-", record.session).strip("-")[:80]
    return f"reflection:{session or record.cycle_id}"


def record_rel(cycle_id: str) -> str:
    return f"{CYCLES_DIR}/{cycle_id}.json"


def load(root: Path, cycle_id: str) -> CycleRecord:
    """The record of ``cycle_id`` in the user folder ``root``; ValueError when absent or broken."""
    if not cycle_id.replace("-", "").isalnum():
        raise ValueError(f"invalid cycle id {cycle_id!r}")
    path = root / record_rel(cycle_id)
    try:
        return CycleRecord.from_json(path.read_text("utf-8"))
    except FileNotFoundError:
        raise ValueError(f"no cycle {cycle_id}") from None
    except (OSError, ValueError, TypeError) as exc:
        raise ValueError(f"cycle {cycle_id} cannot be read: {exc}") from exc


def all_records(root: Path) -> list[CycleRecord]:
    """Every readable record, oldest first (an unreadable one is skipped, not deleted)."""
    folder = root / CYCLES_DIR
    out: list[CycleRecord] = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            out.append(CycleRecord.from_json(path.read_text("utf-8")))
        except (OSError, ValueError, TypeError):
            continue
    return sorted(out, key=lambda r: (r.number, r.created_at))
