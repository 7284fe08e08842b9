"""Sub-agents' memory proposals waiting for a cycle: ``memory/pending-memories.md`` (seed 001).

An agent that may not write memory itself appends what it would keep to this file, one entry
a top-level bullet (``- ...``) or a ``## `` block. Each cycle reads the entries as material
(labelled ``pending N``), so its operations can take them up with the rest; when the person
answers the cycle, every entry it showed is marked processed: *committed* when an approved
operation cites it, *rejected* otherwise. Processed entries leave the file for
``memory/meta/pending-memories-processed.md`` with the cycle's number, so the file holds only
what still waits, and entries an agent appended after the cycle was proposed stay where they are.
A rejected cycle applies nothing, so its entries wait for the next one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

PENDING_FILE = "memory/pending-memories.md"
PROCESSED_FILE = "memory/meta/pending-memories-processed.md"
MAX_ENTRY_CHARS = 600
_START = re.compile(r"^(?:[-*+] |#{2,3} )")


def entries(text: str) -> list[str]:
    """The waiting entries of a pending-memories.md, each as one line of text."""
    found: list[list[str]] = []
    for line in text.splitlines():
        if _START.match(line):
            found.append([_START.sub("", line, count=1)])
        elif line.strip() and found and (line.startswith((" ", "\t")) or not line.startswith("#")):
            found[-1].append(line)
    out = []
    for lines in found:
        entry = " ".join(" ".join(lines).split())
        if entry:
            out.append(entry[:MAX_ENTRY_CHARS])
    return list(dict.fromkeys(out))


def labelled(texts: Sequence[str]) -> dict[str, str]:
    """``pending N`` -> entry, numbered from 1 in file order."""
    return {f"pending {i}": text for i, text in enumerate(texts, 1)}


def remaining(current: str, processed: Sequence[str]) -> str:
    """``current`` without the entries in ``processed`` (each a whole bullet or block)."""
    gone = set(processed)
    kept: list[str] = []
    block: list[str] = []

    def flush() -> None:
        if not block:
            return
        if not _START.match(block[0]) or " ".join(" ".join(
                [_START.sub("", block[0], count=1), *block[1:]]).split())[:MAX_ENTRY_CHARS] not in gone:
            kept.extend(block)
        block.clear()

    for line in current.splitlines():
        if _START.match(line) or (line.startswith("#") and not line.startswith("####")):
            flush()
        block.append(line)
    flush()
    text = "\n".join(kept).rstrip()
    return text + "\n" if text else ""


def outcome(shown: Mapping[str, str], cited: set[str]) -> dict[str, str]:
    """entry -> ``committed`` (cited by an approved operation) or ``rejected``."""
    return {text: ("committed" if label in cited else "rejected") for label, text in shown.items()}


def processed_text(current: str, number: int, date: str, results: Mapping[str, str]) -> str:
    """The processed log with this cycle's results added."""
    head = current.rstrip() + "\n\n" if current.strip() else "# Processed sub-agent proposals\n\n"
    lines = [f"## Reflection #{number} — {date}"]
    lines += [f"- {status}: {text}" for text, status in results.items()]
    return head + "\n".join(lines) + "\n"
