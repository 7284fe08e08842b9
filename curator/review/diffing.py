"""Word-level differences between two texts, as typed hunks (pure; no Qt).

The diff pane paints what this module computes and never diffs anything itself
(house style §4.25). Texts are split into words, whitespace runs and punctuation, so a
hunk boundary never falls inside a word, and joining the ``old`` parts of all hunks gives
back the old text exactly (likewise ``new``).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any, Literal

Op = Literal["equal", "insert", "delete", "replace"]

_TOKEN_RE = re.compile(r"\s+|[^\W_]+(?:['’][^\W_]+)*|_+|[^\w\s]", re.UNICODE)


@dataclass(frozen=True)
class Hunk:
    """One run of the diff: ``op`` and the old and new text it covers."""

    op: Op
    old: str
    new: str


@dataclass(frozen=True)
class Span:
    """A highlighted range of one side's text: ``start`` offset, ``length``, and ``op``."""

    start: int
    length: int
    op: Op


@dataclass(frozen=True)
class FieldChange:
    """A frontmatter key whose value differs between the two versions."""

    key: str
    old: Any
    new: Any


def tokenize_keep_all(text: str) -> list[str]:
    """Split ``text`` into words, whitespace runs and single punctuation marks, losslessly."""
    tokens = _TOKEN_RE.findall(text)
    if "".join(tokens) != text:  # characters the pattern missed (should not happen): keep them
        out: list[str] = []
        pos = 0
        for match in _TOKEN_RE.finditer(text):
            if match.start() > pos:
                out.append(text[pos : match.start()])
            out.append(match.group(0))
            pos = match.end()
        if pos < len(text):
            out.append(text[pos:])
        return out
    return tokens


def word_diff(old: str, new: str) -> list[Hunk]:
    """Typed word-level hunks turning ``old`` into ``new``.

    Adjacent hunks never share an op; whitespace-only equal runs between two changes are
    folded into a single ``replace`` so that the result reads as phrases, not word soup.
    """
    a, b = tokenize_keep_all(old), tokenize_keep_all(new)
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    raw: list[Hunk] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        raw.append(Hunk(tag, "".join(a[i1:i2]), "".join(b[j1:j2])))
    return _merge(_fold_whitespace(raw))


def _fold_whitespace(hunks: list[Hunk]) -> list[Hunk]:
    out: list[Hunk] = []
    for i, hunk in enumerate(hunks):
        between_changes = (
            hunk.op == "equal"
            and hunk.old.strip() == ""
            and 0 < i < len(hunks) - 1
            and hunks[i - 1].op != "equal"
            and hunks[i + 1].op != "equal"
        )
        out.append(Hunk("replace", hunk.old, hunk.new) if between_changes else hunk)
    return out


def _merge(hunks: list[Hunk]) -> list[Hunk]:
    out: list[Hunk] = []
    for hunk in hunks:
        if not hunk.old and not hunk.new:
            continue
        if out and (out[-1].op != "equal") and (hunk.op != "equal"):
            prev = out.pop()
            old, new = prev.old + hunk.old, prev.new + hunk.new
            op: Op = "replace" if old and new else ("insert" if new else "delete")
            out.append(Hunk(op, old, new))
        elif out and out[-1].op == hunk.op == "equal":
            prev = out.pop()
            out.append(Hunk("equal", prev.old + hunk.old, prev.new + hunk.new))
        else:
            out.append(hunk)
    return out


def side_spans(hunks: list[Hunk]) -> tuple[list[Span], list[Span]]:
    """Changed ranges on the old side and on the new side, for painting side by side.

    Old-side spans carry ``delete`` or ``replace``; new-side spans ``insert`` or ``replace``.
    """
    old_spans: list[Span] = []
    new_spans: list[Span] = []
    old_pos = new_pos = 0
    for hunk in hunks:
        if hunk.op != "equal":
            if hunk.old:
                old_spans.append(Span(old_pos, len(hunk.old), "delete" if not hunk.new else "replace"))
            if hunk.new:
                new_spans.append(Span(new_pos, len(hunk.new), "insert" if not hunk.old else "replace"))
        old_pos += len(hunk.old)
        new_pos += len(hunk.new)
    return old_spans, new_spans


def similarity(hunks: list[Hunk]) -> float:
    """Share of characters unchanged (1.0 identical, 0.0 nothing in common)."""
    same = sum(len(h.old) for h in hunks if h.op == "equal")
    total = max(sum(len(h.old) for h in hunks), sum(len(h.new) for h in hunks))
    return 1.0 if total == 0 else same / total


def field_changes(old: dict[str, Any], new: dict[str, Any]) -> list[FieldChange]:
    """Frontmatter keys added, removed or changed, in the new mapping's order then removed ones."""
    changes: list[FieldChange] = []
    for key, value in new.items():
        if key not in old or old[key] != value:
            changes.append(FieldChange(key, old.get(key), value))
    for key, value in old.items():
        if key not in new:
            changes.append(FieldChange(key, value, None))
    return changes
