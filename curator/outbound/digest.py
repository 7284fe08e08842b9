"""What is sent to a chat client's memory place: core memory first, then approved memories by
quality, within a size the person sets.

Only what the person approved goes out: MEMORY.md (which a cycle writes and the person
approves), then the Knowledge documents that search serves (not deleted, not retired, not
waiting for review). Open questions and contradictions are the person's to answer, not a
chat model's to read as facts, so they stay home. A memory whose words MEMORY.md already
holds is not sent twice.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from curator.reflection.cycle.core_memory import PIN_MARKERS, parse_sections
from curator.vault.documents import Document, DocumentError
from curator.vault.paths import VaultPaths

# Kinds a chat model may read as what is known about the person.
SENT_KINDS = frozenset({"fact", "preference", "procedure", "insight", "pattern", "concept", "connection",
                        "correction"})
ENTRY_CHARS = 400  # one memory, as sent: its first paragraph, cut at a word
MIN_ENTRY = 20  # below this much room left, no memory fits
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Entry:
    """One approved memory as a client receives it."""

    doc_id: str
    title: str
    text: str
    keywords: tuple[str, ...]
    quality: float


@dataclass(frozen=True)
class Digest:
    """Core memory lines and memories, best first, within the size budget."""

    core: tuple[str, ...]  # MEMORY.md's lines with something in them, section headings dropped
    entries: tuple[Entry, ...]
    left_out: int  # approved memories that did not fit

    @property
    def empty(self) -> bool:
        return not self.core and not self.entries

    def lines(self) -> list[str]:
        """Everything, one memory per line: core first."""
        return [*self.core, *(e.text for e in self.entries)]


def build_digest(paths: VaultPaths, user_id: str, candidates: Sequence[Path], max_chars: int) -> Digest:
    """The digest of ``user_id``'s approved memory, at most ``max_chars`` characters of text.

    ``candidates`` are the approved memories' files, best first (the index orders them by
    quality); only as many are read as fit, so a vault of 20,000 memories costs a few dozen reads.
    """
    budget = max(0, int(max_chars))
    core: list[str] = []
    for line in _core_lines(paths, user_id):
        if len(line) + 1 > budget:
            break
        core.append(line)
        budget -= len(line) + 1
    core_words = [_words(line) for line in core]
    entries: list[Entry] = []
    left_out = 0
    for position, path in enumerate(candidates):
        if budget < MIN_ENTRY:
            left_out += len(candidates) - position
            break
        entry = _entry(path)
        if entry is None:
            continue
        words = _words(entry.text)
        if any(words and words <= held for held in core_words):
            continue  # already said by core memory
        if len(entry.text) + 1 > budget:
            left_out += 1
            continue
        entries.append(entry)
        budget -= len(entry.text) + 1
    return Digest(tuple(core), tuple(entries), left_out)


def _core_lines(paths: VaultPaths, user_id: str) -> list[str]:
    try:
        text = paths.user(user_id).core_memory.read_text("utf-8")
    except OSError:
        return []
    lines: list[str] = []
    sections = parse_sections(text)
    # Critical facts (pinned ones among them) first: when the size is small, they are what must reach the chat.
    ordered = [sections.pop("critical_facts", []), *sections.values()]
    for section_lines in ordered:
        for raw in section_lines:
            line = raw.strip().lstrip("-*").strip()
            for marker in PIN_MARKERS:
                line = line.replace(marker, "")
            line = _SPACE.sub(" ", line).strip()
            if line:
                lines.append(line)
    return lines


def _entry(path: Path) -> Entry | None:
    try:
        doc = Document.load(path)
    except (DocumentError, OSError):
        return None  # gone or unreadable since the index listed it: the next refresh sees it
    if not _sendable(doc):
        return None
    text = _first_paragraph(doc.body)
    return Entry(doc.id, doc.title, text, tuple(doc.keywords), doc.quality) if text else None


def _sendable(doc: Document) -> bool:
    if doc.deleted or doc.get("retired_at") or doc.get("review") == "pending":
        return False
    return doc.kind.lower() in SENT_KINDS


def _first_paragraph(body: str) -> str:
    paragraph = next((p for p in re.split(r"\n\s*\n", body.strip()) if p.strip() and not p.lstrip().startswith("#")),
                     "")
    text = _SPACE.sub(" ", paragraph).strip()
    if len(text) > ENTRY_CHARS:
        text = text[:ENTRY_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return text


def _words(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in _WORD.findall(text))
