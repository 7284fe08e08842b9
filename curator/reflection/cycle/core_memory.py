"""MEMORY.md (seed 001 phase 4): four sections, pinned entries verbatim, a 3,000-token cap.

The model proposes lines per section; code keeps only lines the cycle's inputs support (the
batch keyword gate), puts every pinned entry verbatim into Critical Facts, fits each section
into its share of the cap (whole lines only, weakest last) and explains each promotion and
demotion against the current file. Nothing leaves MEMORY.md without being listed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from curator.reflection.cycle.operations import supported
from curator.reflection.gates.chain import grounded_terms
from curator.reflection.gates.similarity import similarity

CAP_TOKENS = 3_000
SECTIONS: tuple[tuple[str, str, int], ...] = (
    ("identity", "Identity", 500),
    ("active_context", "Active Context", 1_000),
    ("persona", "Persona", 500),
    ("critical_facts", "Critical Facts", 1_000),
)
DUPLICATE = 0.8
SUPERSEDED = 0.6  # share of a line's words in a text a correction replaced (see Truth.outdated)
_NO_VALUE = re.compile(r":\s*(?:none|nothing|n/?a|unknown|-)?\s*\.?$", re.IGNORECASE)
PIN_MARKERS = ("📌", "(pinned)", "[pinned]")
_HEADING = re.compile(r"^##\s+(.+?)\s*$")


def is_pinned(line: str) -> bool:
    return any(marker in line for marker in PIN_MARKERS)


def parse_sections(text: str) -> dict[str, list[str]]:
    """Bullet lines of MEMORY.md by section key (unknown headings go to Active Context)."""
    titles = {title.casefold(): key for key, title, _ in SECTIONS}
    out: dict[str, list[str]] = {key: [] for key, _, _ in SECTIONS}
    current = "active_context"
    for raw in text.splitlines():
        heading = _HEADING.match(raw)
        if heading:
            current = titles.get(heading.group(1).casefold(), "active_context")
            continue
        line = raw.strip()
        if line.startswith(("- ", "* ")):
            out[current].append(line[2:].strip())
        elif line and not line.startswith("#") and not line.startswith(">"):
            out[current].append(line)
    return out


class Truth:
    """What the approved memories hold now, and the texts their corrections replaced."""

    def __init__(self, current: Sequence[str] = (), superseded: Sequence[str] = ()) -> None:
        # Term sets once per cycle, not once per proposed line.
        self.now: set[str] = set().union(*(_terms(t) for t in current))
        self.gone = [(text, _terms(text)) for text in superseded]

    def outdated(self, line: str) -> str | None:
        """The replaced text ``line`` repeats, or None.

        A line repeats a replaced text when most of its words are in that text and one of
        them (the value the correction took back: "Porto", "October") is in no memory now.
        """
        words = _terms(line)
        if not words:
            return None
        for text, gone in self.gone:
            shared = words & gone
            if len(shared) >= SUPERSEDED * len(words) and shared - self.now:
                return text
        return None


@dataclass
class Rewrite:
    """A proposed MEMORY.md and how it came about."""

    text: str
    tokens: int
    sections: dict[str, list[str]]
    promoted: list[str] = field(default_factory=list)
    demoted: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    pinned: list[str] = field(default_factory=list)


def render(sections: Mapping[str, Sequence[str]]) -> str:
    parts = ["# Core memory", ""]
    for key, title, _ in SECTIONS:
        parts.append(f"## {title}")
        parts.extend(f"- {line}" for line in sections.get(key, ()))
        parts.append("")
    return "\n".join(parts).rstrip() + "\n"


def build(current: str, proposed: Mapping[str, Sequence[str]], support: str, pinned_memories: Iterable[str],
          count: Callable[[str], int], cap: int = CAP_TOKENS, truth: Truth | None = None) -> Rewrite:
    """The new MEMORY.md from the model's section lines (see the module docstring).

    A line is kept only if it says something (two content words, or a name and a word: not
    "2.5", not "Persona"), the cycle's inputs support it, and it does not repeat a text an
    approved correction replaced ("Lisbon in October" after "September, not October").
    """
    truth = truth or Truth()
    old = parse_sections(current)
    old_lines = [line for lines in old.values() for line in lines]
    pinned = list(dict.fromkeys([line for line in old_lines if is_pinned(line)] +
                                [f"📌 {text}" for text in pinned_memories]))
    pinned_plain = {_plain(p) for p in pinned}
    unsupported: list[str] = []
    sections: dict[str, list[str]] = {}
    seen: set[str] = set(pinned_plain)
    for key, _title, _share in SECTIONS:
        kept: list[str] = []
        for line in proposed.get(key, ()):
            line = " ".join(str(line).split()).lstrip(",;:.- ")
            if not line or _plain(line) in seen or any(similarity(line, other) > DUPLICATE for other in seen):
                continue
            if not substantive(line) or not supported(line, support):
                unsupported.append(line)
                continue
            gone = truth.outdated(line)
            if gone is not None:
                unsupported.append(f"{line} (superseded by an approved correction of “{gone[:80]}”)")
                continue
            seen.add(_plain(line))
            kept.append(line)
        sections[key] = kept
    sections["critical_facts"] = pinned + sections["critical_facts"]
    over: list[str] = []
    for key, _title, share in SECTIONS:
        sections[key], dropped = _fit(sections[key], count, share, keep=len(pinned) if key == "critical_facts" else 0)
        over += dropped
    text = render(sections)
    while count(text) > cap:  # shares add up to the cap; headings may still tip it over
        key = max((k for k, _, _ in SECTIONS), key=lambda k: len(sections[k]))
        floor = len(pinned) if key == "critical_facts" else 0
        if len(sections[key]) <= floor:
            break
        over.append(sections[key].pop())
        text = render(sections)
    new_plain = {_plain(line) for lines in sections.values() for line in lines}
    old_plain = {_plain(line) for line in old_lines}
    promoted = [line for lines in sections.values() for line in lines if _plain(line) not in old_plain]
    demoted = [f"{line} (not kept by this cycle)" for line in old_lines if _plain(line) not in new_plain]
    demoted += [f"{line} (over the section's token share)" for line in over if _plain(line) in old_plain]
    return Rewrite(text, count(text), sections, promoted, demoted, unsupported, pinned)


def substantive(line: str) -> bool:
    """Whether a line says something: two words that count (not "2.5", not "Persona"), and no
    label left without a value ("Contradictions Detected: none")."""
    for marker in PIN_MARKERS:
        line = line.replace(marker, "")
    if _NO_VALUE.search(line.strip()):
        return False
    exact, content = grounded_terms(line)
    worded = content or any(ch.isalpha() for word in exact for ch in word)  # "2.5" is two numbers, no words
    return bool(worded) and len(exact) + len(content) >= 2


def _terms(text: str) -> set[str]:
    exact, content = grounded_terms(text)
    return {w.casefold() for w in exact} | content


def _fit(lines: list[str], count: Callable[[str], int], share: int, keep: int) -> tuple[list[str], list[str]]:
    kept: list[str] = []
    used = 0
    dropped: list[str] = []
    for index, line in enumerate(lines):
        cost = count(f"- {line}\n")
        if index < keep or used + cost <= share:
            kept.append(line)
            used += cost
        else:
            dropped.append(line)
    return kept, dropped


def _plain(line: str) -> str:
    for marker in PIN_MARKERS:
        line = line.replace(marker, "")
    return " ".join(line.casefold().split()).rstrip(".")


def fallback(current: str, extracted: Sequence[str]) -> dict[str, list[str]]:
    """Section lines when the model gave none: the current file plus the new facts."""
    sections = parse_sections(current)
    sections["active_context"] = sections["active_context"] + [e for e in extracted if e]
    return sections
