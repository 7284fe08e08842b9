"""evolution.md and reflection-log.md within the seed's caps (seed 001).

evolution.md is not append-only. After every approved cycle: the new entry is added, the
lists are held to the seed's pruning table (Active Threads 5, Confirmed Patterns 7, Revised
Assumptions 7, Open Questions 5, Overview counts only), individual entries older than the 10
most recent move to ``evolution-archive.md``, and while the file is over 2,000 tokens the
oldest entries, then the oldest list items, move there too.

reflection-log.md keeps every entry in full up to reflection 50; after that, entries older
than #(current-20) move in full to ``reflection-archive.md`` and stay in the log as one-line
summaries, and one-liners older than #(current-50) collapse into one "archived" range line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

EVOLUTION_CAP = 2_000
RECENT_ENTRIES = 10
# Seed 001's pruning table gives each list a range: it may grow to the top between pruning
# points, and is cut to the bottom at a milestone or when the file nears its token cap, so
# that a pruned evolution.md has room to grow again before the next pruning.
LIST_RANGES = {"Active Threads": (3, 5), "Confirmed Patterns": (5, 7), "Revised Assumptions": (5, 7),
               "Open Questions": (3, 5)}
LIST_CAPS = {name: high for name, (_low, high) in LIST_RANGES.items()}
NEAR_CAP = 0.8
LOG_FULL = 20
LOG_PRUNE_AFTER = 50
MILESTONES = {10: "First evolution summary: identify the initial patterns.",
              25: "Review and consolidate the evolution threads.",
              50: "Major synthesis: what has fundamentally changed?",
              100: "Deep retrospective: a state-of-understanding essay."}
_ENTRY = re.compile(r"^## Reflection #(\d+)", re.MULTILINE)
_RANGE = re.compile(r"^- #1-(\d+): archived", re.MULTILINE)


def milestone(number: int) -> str:
    """The milestone instruction of reflection ``number`` ("" when it is not one)."""
    return MILESTONES.get(number, "")


@dataclass
class Evolution:
    """evolution.md parsed into its parts."""

    first: str = ""
    total: int = 0
    milestones: list[int] = field(default_factory=list)
    lists: dict[str, list[str]] = field(default_factory=lambda: {k: [] for k in LIST_CAPS})
    entries: list[tuple[int, str]] = field(default_factory=list)

    @classmethod
    def parse(cls, text: str) -> Evolution:
        evo = cls()
        head, entries = _split_entries(text)
        evo.entries = entries
        section = ""
        for raw in head.splitlines():
            line = raw.strip()
            if line.startswith("## "):
                section = line[3:].strip()
                continue
            item = re.sub(r"^(?:[-*]|\d+\.)\s+", "", line)
            if not line or (item == line and not line.startswith(("-", "*")) and not line[:1].isdigit()):
                continue
            if section == "Overview":
                key, _, value = item.partition(":")
                if key.strip() == "First reflection":
                    evo.first = value.strip()
                elif key.strip() == "Total reflections":
                    evo.total = int(value.strip()) if value.strip().isdigit() else 0
                elif key.strip() == "Milestones reached":
                    evo.milestones = [int(n) for n in re.findall(r"#(\d+)", value)]
            elif section in evo.lists:
                evo.lists[section].append(item)
        return evo

    def render(self) -> str:
        parts = ["# Philosophical Evolution", "", "## Overview", f"- First reflection: {self.first}",
                 f"- Total reflections: {self.total}",
                 f"- Milestones reached: {', '.join(f'#{n}' for n in self.milestones) or 'none yet'}", ""]
        for name, items in self.lists.items():
            parts.append(f"## {name}")
            if name == "Active Threads":
                parts += [f"{i}. {item}" for i, item in enumerate(items, 1)]
            else:
                parts += [f"- {item}" for item in items]
            parts.append("")
        parts += ["## Recent Reflections", ""]
        parts += [text.rstrip() + "\n" for _, text in self.entries]
        return "\n".join(parts).rstrip() + "\n"


def _split_entries(text: str) -> tuple[str, list[tuple[int, str]]]:
    matches = list(_ENTRY.finditer(text))
    if not matches:
        return text, []
    head = text[: matches[0].start()]
    ends = [m.start() for m in matches[1:]] + [len(text)]
    entries = []
    for match, end in zip(matches, ends, strict=True):
        body = text[match.start():end]
        stray = body.find("\n## ")  # a section heading after an entry belongs to no entry
        entries.append((int(match.group(1)), (body[:stray] if stray >= 0 else body).strip()))
    return head, entries


@dataclass(frozen=True)
class EvolutionEntry:
    """The seed's per-cycle evolution entry."""

    number: int
    date: str
    entities: int
    procedures: int
    core_percent: int
    key_insight: str
    new_understanding: str
    confirmed_pattern: str
    revised_assumption: str
    continues: str
    opens: str
    milestone: str = ""

    def render(self) -> str:
        lines = [f"## Reflection #{self.number} — {self.date}", ""]
        if self.milestone:
            lines += [f"**Milestone #{self.number}:** {self.milestone}", ""]
        lines += ["### Cognitive State", f"- Total reflections: {self.number}",
                  f"- Entities in graph: {self.entities}", f"- Procedures learned: {self.procedures}",
                  f"- Core memory utilization: {self.core_percent}% of 3K cap", "",
                  "### Key Insight", self.key_insight or "No new insight this time.", "",
                  "### Evolution Delta", f"- New understanding: {self.new_understanding or 'none'}",
                  f"- Confirmed pattern: {self.confirmed_pattern or 'none'}",
                  f"- Revised assumption: {self.revised_assumption or 'none'}", "",
                  "### Thread Continuity", f"- Continues thread from {self.continues or 'no earlier reflection'}",
                  f"- Opens new thread: {self.opens or 'none'}"]
        return "\n".join(lines)


def update_evolution(current: str, archive: str, entry: EvolutionEntry, count: Callable[[str], int],
                     cap: int = EVOLUTION_CAP) -> tuple[str, str]:
    """(new evolution.md, new evolution-archive.md) after adding ``entry`` and pruning."""
    evo = Evolution.parse(current)
    evo.first = evo.first or entry.date
    evo.total = max(evo.total, entry.number)
    if entry.milestone and entry.number not in evo.milestones:
        evo.milestones.append(entry.number)
    _add(evo.lists["Active Threads"], entry.opens)
    _add(evo.lists["Confirmed Patterns"], entry.confirmed_pattern)
    _add(
        evo.lists["Revised Assumptions"],
        f"[#{entry.number}] {entry.revised_assumption}" if entry.revised_assumption else "",
    )
    evo.entries = [e for e in evo.entries if e[0] != entry.number] + [(entry.number, entry.render())]
    moved: list[str] = []
    prune = bool(entry.milestone) or count(evo.render()) > cap * NEAR_CAP
    for name, (low, high) in LIST_RANGES.items():
        items = evo.lists[name]
        limit = low if prune else high
        while len(items) > limit:
            moved.append(f"- ({name}) {items.pop(0)}")
    while len(evo.entries) > RECENT_ENTRIES:
        moved.append(evo.entries.pop(0)[1])
    text = evo.render()
    while count(text) > cap:
        if len(evo.entries) > 1:
            moved.append(evo.entries.pop(0)[1])
        else:
            name = max(evo.lists, key=lambda k: len(evo.lists[k]))
            if not evo.lists[name]:
                break
            moved.append(f"- ({name}) {evo.lists[name].pop(0)}")
        text = evo.render()
    if moved:
        archive = (
            (archive.rstrip() + "\n\n" if archive.strip() else "# Evolution archive\n\n")
            + "\n\n".join(moved)
            + "\n"
        )
    return text, archive


def _add(items: list[str], value: str) -> None:
    value = " ".join(value.split())
    if value and value.lower() not in ("none", "none yet") and value not in items:
        items.append(value)


def log_entry(number: int, date: str, status: str, insight: str, body: str) -> str:
    """A full reflection-log entry; its first line is also its one-line summary."""
    return f"## Reflection #{number} — {date} | {status} | Insight: \"{insight[:100]}\"\n\n{body.strip()}\n"


def update_log(current: str, archive: str, entry: str, number: int) -> tuple[str, str]:
    """(new reflection-log.md, new reflection-archive.md) after adding ``entry``."""
    head, entries = _split_entries(current)
    ranged = _RANGE.search(head)
    archived_upto = int(ranged.group(1)) if ranged else 0
    entries = [e for e in entries if e[0] != number] + [(number, entry.strip())]
    if number > LOG_PRUNE_AFTER:
        oldest_full = number - LOG_FULL + 1
        oldest_line = number - LOG_PRUNE_AFTER + 1
        kept: list[tuple[int, str]] = []
        moved: list[str] = []
        for n, text in entries:
            if n < oldest_full and "\n" in text:
                moved.append(text)
                text = text.splitlines()[0]
            if n < oldest_line:
                archived_upto = max(archived_upto, n)
                continue
            kept.append((n, text))
        entries = kept
        if moved:
            archive = (
                (archive.rstrip() + "\n\n" if archive.strip() else "# Reflection archive\n\n")
                + "\n\n".join(moved)
                + "\n"
            )
    parts = ["# Reflection Log", ""]
    if archived_upto:
        parts += ["## Archived Reflections (see reflection-archive.md)", f"- #1-{archived_upto}: archived", ""]
    lines = [t for _, t in entries if "\n" not in t]
    full = [t for _, t in entries if "\n" in t]
    if lines:
        parts += ["## Summary Lines", *lines, ""]
    parts += ["## Full Entries", ""] + [t.rstrip() + "\n" for t in full]
    return "\n".join(parts).rstrip() + "\n", archive


def full_entries(log_text: str) -> int:
    """How many full entries reflection-log.md holds."""
    return sum(1 for _, text in _split_entries(log_text)[1] if "\n" in text)
