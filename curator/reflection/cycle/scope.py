"""What a cycle may read (seed 001 "Scope Rules"), mapped onto this vault.

MUST READ, per user folder: ``MEMORY.md``; ``memory/meta/evolution.md``;
``memory/meta/decay-scores.json``; the last 5 entries of ``memory/meta/reflection-log.md``;
``memory/graph/index.md``; ``memory/graph/entities/*.md`` and ``memory/procedures/*.md`` with a
decay score above 0.3 (all of them on the first cycle, to build the graph); episodes after
``last_reflection`` - here the indexed turns numbered above the last cycle's last turn and
daily logs ``memory/episodes/YYYY-MM-DD.md`` dated after ``last_reflection_episode`` (the
first cycle reads the last 7 days only); and the approved ``Knowledge/`` documents, which are
this app's long-term memories; and ``memory/pending-memories.md``, what sub-agents proposed
(:mod:`curator.reflection.cycle.pending_memories`).

NEVER READ: anything else. :func:`readable` is the single gate every file read goes through:
code and config files, JSON other than decay-scores.json, the chat client's transcripts
(turns come from the index, never from source files), SOUL.md, IDENTITY.md, USER.md,
TOOLS.md, and anything outside ``memory/`` except ``MEMORY.md`` and ``Knowledge/``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from curator.reflection.cycle import pending_memories
from curator.reflection.cycle.budget import Allotted, allot
from curator.reflection.cycle.decay import DAY, DecayState, parse_iso
from curator.sources.turns import IndexedTurn
from curator.vault.documents import Document, DocumentError

FIRST_CYCLE_DAYS = 7
LOG_ENTRIES_READ = 5
SYSTEM_FILES = frozenset({"soul.md", "identity.md", "user.md", "tools.md"})
NEVER_SUFFIXES = frozenset({".py", ".js", ".ts", ".sh", ".json", ".yaml", ".yml", ".toml", ".jsonl", ".sqlite"})
_DAY_FILE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$")
_ENTRY = re.compile(r"^## Reflection #\d+", re.MULTILINE)


def readable(rel: str) -> bool:
    """Whether a cycle may read the file at ``rel`` (relative to the user folder)."""
    path = PurePosixPath(rel)
    if path.is_absolute() or ".." in path.parts or not path.parts:
        return False
    name = path.name.casefold()
    if name in SYSTEM_FILES:
        return False
    if rel == "memory/meta/decay-scores.json":
        return True
    if path.suffix.casefold() in NEVER_SUFFIXES or path.suffix.casefold() != ".md":
        return False
    if rel == "MEMORY.md":
        return True
    return path.parts[0] in ("memory", "Knowledge") and len(path.parts) > 1


def read(root: Path, rel: str) -> str:
    """The text of an allowed file ("" when absent); refuses anything :func:`readable` refuses."""
    if not readable(rel):
        raise PermissionError(f"a cycle never reads {rel}")
    try:
        return (root / rel).read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


@dataclass(frozen=True)
class Memory:
    """An approved Knowledge document as a cycle sees it."""

    memory_id: str
    kind: str
    title: str
    text: str
    rel: str
    pinned: bool
    seen: float
    superseded: tuple[str, ...] = ()  # texts its approved corrections replaced

    @property
    def label(self) -> str:
        return f"memory {self.memory_id}"

    def line(self) -> str:
        return f"[{self.label}] ({self.kind}) {self.text}"


@dataclass
class CycleInputs:
    """Everything one cycle read, within its allocations."""

    core_memory: str = ""
    evolution: str = ""
    log_entries: list[str] = field(default_factory=list)
    graph_index: str = ""
    entities: dict[str, str] = field(default_factory=dict)
    procedures: dict[str, str] = field(default_factory=dict)
    turns: list[IndexedTurn] = field(default_factory=list)
    day_logs: dict[str, str] = field(default_factory=dict)
    memories: list[Memory] = field(default_factory=list)
    pending: dict[str, str] = field(default_factory=dict)  # "pending N" -> a sub-agent's proposal
    allotted: dict[str, Allotted] = field(default_factory=dict)
    first_cycle: bool = True
    last_turn_read: int = 0
    last_episode_read: str | None = None

    @property
    def input_tokens(self) -> int:
        return sum(a.tokens for a in self.allotted.values())

    def labels(self) -> dict[str, str]:
        """Evidence label -> the text it stands for (what an operation may cite)."""
        out: dict[str, str] = {}
        for turn in self.turns:
            out[f"turn {turn.number}"] = f"{turn.speaker or turn.role}: {turn.text}"
        for day, text in self.day_logs.items():
            out[f"episode {day}"] = text
        for memory in self.memories:
            out[memory.label] = f"{memory.title}. {memory.text}"
        for name, text in self.entities.items():
            out[f"entity {name}"] = text
        for name, text in self.procedures.items():
            out[f"procedure {name}"] = text
        out.update(self.pending)
        return out

    def episode_lines(self) -> list[str]:
        lines = [f"[turn {t.number}] {t.speaker or t.role}: {' '.join(t.text.split())}" for t in self.turns]
        lines += [f"[episode {day}] {' '.join(text.split())}" for day, text in self.day_logs.items()]
        return lines

    def material_lines(self) -> list[str]:
        """What the consolidation phase works over: episodes, memories, graph entities."""
        lines = self.episode_lines() + [m.line() for m in self.memories]
        lines += [f"[entity {n}] {' '.join(t.split())}" for n, t in self.entities.items()]
        lines += [f"[procedure {n}] {' '.join(t.split())}" for n, t in self.procedures.items()]
        lines += [f"[{label}] (proposed by a sub-agent) {text}" for label, text in self.pending.items()]
        return lines


class ScopeReader:
    """Reads one user's cycle inputs.

    Args:
        root: The user folder.
        turns_after: ``(after_number) -> turns`` from the index, oldest first.
        count: The model's token counter.
    """

    def __init__(self, root: Path, turns_after: Callable[[int], Sequence[IndexedTurn]],
                 count: Callable[[str], int]) -> None:
        self.root = root
        self.turns_after = turns_after
        self.count = count

    def gather(self, decay: DecayState, now: float) -> CycleInputs:
        inputs = CycleInputs(first_cycle=decay.last_reflection is None)
        put = self._put(inputs)
        inputs.core_memory = "\n".join(put("core_memory", [read(self.root, "MEMORY.md")]))
        inputs.evolution = "\n".join(put("evolution", [read(self.root, "memory/meta/evolution.md")]))
        put("decay_scores", [read(self.root, "memory/meta/decay-scores.json")])
        inputs.log_entries = put("reflection_log", last_entries(read(self.root, "memory/meta/reflection-log.md")))
        inputs.graph_index = "\n".join(put("graph_index", [read(self.root, "memory/graph/index.md")]))
        live = {m.rel: m.score for m in decay.live()}
        inputs.entities = self._folder(inputs, "entities", "memory/graph/entities", live)
        inputs.procedures = self._folder(inputs, "procedures", "memory/procedures", live)
        self._episodes(inputs, decay, now)
        self._memories(inputs)
        waiting = pending_memories.entries(read(self.root, pending_memories.PENDING_FILE))
        inputs.pending = pending_memories.labelled(put("pending_memories", waiting))
        return inputs

    def _put(self, inputs: CycleInputs) -> Callable[[str, list[str]], list[str]]:
        def put(source: str, items: list[str]) -> list[str]:
            items = [i for i in items if i.strip()]
            got = allot(source, items, self.count)
            inputs.allotted[source] = got
            return got.items
        return put

    def _folder(self, inputs: CycleInputs, source: str, rel_dir: str, live: dict[str, float]) -> dict[str, str]:
        folder = self.root / rel_dir
        texts: dict[str, str] = {}
        for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
            rel = f"{rel_dir}/{path.name}"
            score = live.get(rel)
            if not inputs.first_cycle and score is not None and score <= 0.3:
                continue  # faded: not read (it is still listed as fading)
            texts[path.stem] = read(self.root, rel)
        kept = allot(source, [f"{k}\n{v}" for k, v in texts.items()], self.count)
        inputs.allotted[source] = kept
        names = [k.split("\n", 1)[0] for k in kept.items]
        return {n: texts[n] for n in names}

    def _episodes(self, inputs: CycleInputs, decay: DecayState, now: float) -> None:
        since = now - FIRST_CYCLE_DAYS * DAY if inputs.first_cycle else None
        turns = [t for t in self.turns_after(decay.last_turn) if since is None or t.timestamp >= since]
        days: dict[str, str] = {}
        folder = self.root / "memory" / "episodes"
        cutoff = decay.last_reflection_episode or _day(since or 0.0)
        for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
            match = _DAY_FILE.match(path.name)
            if match and match.group(1) > cutoff:
                days[match.group(1)] = read(self.root, f"memory/episodes/{path.name}")
        lines = [f"turn {t.number}: {t.text}" for t in turns] + [f"episode {d}: {x}" for d, x in days.items()]
        kept = allot("episodes", lines, self.count)
        inputs.allotted["episodes"] = kept
        n_turns = min(len(turns), len(kept.items))
        inputs.turns = list(turns[:n_turns])
        inputs.day_logs = dict(list(days.items())[: max(0, len(kept.items) - len(turns))])
        inputs.last_turn_read = max([decay.last_turn, *(t.number for t in inputs.turns)])
        inputs.last_episode_read = max(list(inputs.day_logs) + ([decay.last_reflection_episode]
                                       if decay.last_reflection_episode else []), default=None)

    def _memories(self, inputs: CycleInputs) -> None:
        found: list[Memory] = []
        folder = self.root / "Knowledge"
        for path in sorted(folder.rglob("*.md")) if folder.is_dir() else []:
            rel = path.relative_to(self.root).as_posix()
            if not readable(rel):
                continue
            try:
                doc = Document.from_text(read(self.root, rel), path)
            except DocumentError:
                continue
            if doc.deleted or not doc.id or doc.get("retired_at"):
                continue  # a retired memory is no longer true: not core memory material
            seen = parse_iso(str(doc.get("approved_at") or doc.get("updated") or doc.get("created") or "")) or 0.0
            found.append(Memory(doc.id, doc.kind, doc.title, " ".join(doc.body.split()), rel,
                                bool(doc.get("pinned")), seen,
                                tuple(str(t) for t in doc.get("superseded") or [] if str(t).strip())))
        # Pinned first, then newest: what must be kept is never the part left out.
        found.sort(key=lambda m: (not m.pinned, -m.seen, m.memory_id))
        kept = allot("memories", [m.line() for m in found], self.count)
        inputs.allotted["memories"] = kept
        inputs.memories = found[: len(kept.items)]


def last_entries(log_text: str, count: int = LOG_ENTRIES_READ) -> list[str]:
    """The last ``count`` full entries of reflection-log.md (one-line summaries are skipped)."""
    starts = [m.start() for m in _ENTRY.finditer(log_text)]
    entries = [log_text[a:b].strip() for a, b in zip(starts, [*starts[1:], len(log_text)], strict=False)]
    full = [e for e in entries if "\n" in e]
    return full[-count:]


def _day(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d")


def as_plain(inputs: CycleInputs) -> dict[str, Any]:
    """Per-source token use and what was left for the next cycle (for the record)."""
    return {k: {"tokens": a.tokens, "items": len(a.items), "left_out": a.left_out} for k, a in inputs.allotted.items()}
