"""pending-reflection.md (seed 001 phase 5): seven sections and the footer."""

from __future__ import annotations

import difflib

from curator.reflection.cycle.budget import INPUT_BUDGET, OUTPUT_BUDGET
from curator.reflection.cycle.record import CycleRecord

SECTION_TITLES = (
    "🧠 New Knowledge Extracted",
    "🔗 New Connections",
    "📦 Proposed Archival (decay score < 0.05)",
    "⚠️ Contradictions Detected",
    "✏️ Core Memory Changes",
    "🌱 Philosophical Evolution",
    "❓ Questions for You",
)


def memory_diff(old: str, new: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), "MEMORY.md", "MEMORY.md (proposed)", lineterm="", n=1
    )
    return "\n".join(list(lines)[2:]) or "(no change)"


def render(record: CycleRecord) -> str:
    """The whole pending-reflection.md: heading, the seven sections, then the footer."""
    parts = [f"# Reflection Summary — {record.created_at[:10]}", ""]
    if record.milestone:
        parts += [f"> **Milestone reflection #{record.number}:** {record.milestone}", ""]
    parts += _operation_sections(record)
    parts += _memory_changes(record)
    parts += _evolution(record)
    parts += _questions(record)
    parts += _pending(record)
    parts += _footer(record)
    return "\n".join(parts) + "\n"


def _operation_sections(record: CycleRecord) -> list[str]:
    """Sections one to four: what the operations extract, connect, archive and flag."""
    def items(kind: str, fmt: str) -> list[str]:
        out = [fmt.format(o=o) for o in record.operations if o.operation == kind]
        return out or ["- none"]

    return [
        f"## {SECTION_TITLES[0]}", *items("EXTRACT", "- {o.content} → [[{o.entity}]] ({o.op_id})"), "",
        f"## {SECTION_TITLES[1]}", *items("CONNECT", "- {o.entity} → {o.relation} → {o.other} (NEW) ({o.op_id})"), "",
        f"## {SECTION_TITLES[2]}",
        *items("ARCHIVE", "- {o.entity}: {o.content} (score: {o.score:.2f}) ({o.op_id})"), "",
        f"## {SECTION_TITLES[3]}", *items("FLAG", "- {o.content} ({o.op_id})"), "",
    ]


def _pending(record: CycleRecord) -> list[str]:
    """Sub-agents' proposals this cycle read: which an operation takes up, which it leaves."""
    if not record.pending_memories:
        return []
    cited = {label for o in record.operations for label in o.evidence}
    lines = [f"- {'taken up' if label in cited else 'not taken up (rejected on approval)'}: {text} ({label})"
             for label, text in record.pending_memories.items()]
    return ["### Sub-agent proposals (memory/pending-memories.md)", *lines, ""]


def _memory_changes(record: CycleRecord) -> list[str]:
    parts = [f"## {SECTION_TITLES[4]}", "```diff", memory_diff(record.old_memory, record.new_memory), "```", ""]
    parts += [f"- promoted: {line}" for line in record.promoted]
    parts += [f"- demoted: {line}" for line in record.demoted]
    if record.promoted or record.demoted:
        parts.append("")
    return parts


def _evolution(record: CycleRecord) -> list[str]:
    r = record.reflective
    if r.get("written_by") == "none":
        parts = [f"## {SECTION_TITLES[5]}", "",
                 "Not written: the reflective part is left to a capable model (`reflection.writer: model`); "
                 "the model in use chooses and merges, it does not write prose.", ""]
        evolving = [op for op in record.operations if op.operation in ("EVOLVE", "PATTERN")]
        parts += [f"- {op.operation.lower()}: {op.content} ({op.op_id})" for op in evolving]
        return parts + ([""] if evolving else [])
    parts = [
        f"## {SECTION_TITLES[5]}",
        "",
        "### What I've Learned About Learning",
        r.get("learning") or "Nothing new yet.",
        "",
        "### Evolving Understanding",
        r.get("understanding") or "Nothing new yet.",
        "",
        "### Emergent Themes",
        r.get("themes") or "None visible yet.",
        "",
        "### Revised Assumptions",
        r.get("assumptions") or "None yet.",
        "",
    ]
    evolving = [op for op in record.operations if op.operation in ("EVOLVE", "PATTERN")]
    parts += [f"- {op.operation.lower()}: {op.content} ({op.op_id})" for op in evolving]
    if evolving:
        parts.append("")
    return parts


def _questions(record: CycleRecord) -> list[str]:
    questions = list(record.questions) + [f"Still true? \"{f['title']}\" (score {f['score']:.2f}, {f['memory_id']})"
                                          for f in record.fading]
    return [f"## {SECTION_TITLES[6]}", *([f"- {q}" for q in questions] or ["- none"]), ""]


def _footer(record: CycleRecord) -> list[str]:
    processed = record.processed
    return [
        "---",
        f"**Reflection #**: {record.number}",
        f"**Input tokens**: {record.input_tokens:,} / ~{INPUT_BUDGET:,} target",
        f"**Output tokens**: {record.output_tokens:,} / {OUTPUT_BUDGET:,} max",
        (
            f"**Memories processed**: {processed.get('episodes', 0)} episodes, "
            f"{processed.get('entities', 0)} entities, "
            f"{processed.get('procedures', 0)} procedures, {processed.get('memories', 0)} memories"
            + (f", {processed['pending_memories']} sub-agent proposals" if processed.get("pending_memories") else "")
        ),
        "**Reflections reviewed**: Last 5 entries",
        f"**Next scheduled reflection**: {record.next_scheduled or 'not scheduled'}",
        "",
        "> Reply with `approve`, `approve with changes`, `reject`, or `partial approve`.",
        f"> (`curator review cycle approve {record.cycle_id}` or the Cycle tab.)",
    ]
