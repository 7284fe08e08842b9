"""Which words of a cited turn support a staged item (pure; no Qt).

The evidence pane highlights these spans; the gates ask the same question through
``curator.index.text.overlap``. A word of the turn supports the item when its light stem is
one of the item's content stems (stop words and one-letter tokens never count). An
evidence quote, when the item has one, is located as a whole, tolerant of case, spacing
and punctuation differences.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from curator.index.text import STOP_WORDS, content_words, in_a_run, stem, stems
from curator.index.text import WORD_RE as _WORD_RE  # the one word pattern


@dataclass(frozen=True)
class Highlight:
    """A range ``[start, end)`` of a turn's text and why it is highlighted."""

    start: int
    end: int
    kind: Literal["word", "quote"]


@dataclass(frozen=True)
class Support:
    """How well a set of turns supports an item's text."""

    ratio: float  # share of the item's content stems found in the turns
    supported: tuple[str, ...]  # content words of the item found
    unsupported: tuple[str, ...]  # content words of the item not found


def claim_stems(claim: str) -> set[str]:
    """The content stems of an item's text."""
    return stems(content_words(claim))


def word_highlights(claim: str, text: str) -> list[Highlight]:
    """Spans of ``text`` whose words share a content stem with ``claim``."""
    wanted = claim_stems(claim)
    if not wanted:
        return []
    out: list[Highlight] = []
    for match in _WORD_RE.finditer(text):
        word = match.group(0).lower().replace("’", "'")
        if word in STOP_WORDS or len(word) < 2:
            continue
        if stem(word) in wanted:
            out.append(Highlight(match.start(), match.end(), "word"))
    return out


def quote_span(quote: str, text: str) -> Highlight | None:
    """Where ``quote`` occurs in ``text`` (case, spacing and punctuation tolerant), or None."""
    words = [m.group(0) for m in _WORD_RE.finditer(quote)]
    if not words:
        return None
    pattern = r"[\W_]+".join(re.escape(w) for w in words)
    match = re.search(pattern, text, re.IGNORECASE | re.UNICODE)
    if match is None:
        return None
    return Highlight(match.start(), match.end(), "quote")


def highlights(claim: str, text: str, quote: str = "") -> list[Highlight]:
    """Quote span (if found) plus word spans, sorted, word spans inside the quote kept."""
    spans = word_highlights(claim, text)
    found = quote_span(quote, text) if quote else None
    if found is not None:
        spans.append(found)
    return sorted(spans, key=lambda h: (h.start, h.kind != "quote"))


def support(claim: str, texts: Iterable[str]) -> Support:
    """Which content words of ``claim`` occur (by stem) in any of ``texts``.

    A memory in another language than English is held to its own language's grammar: its
    function words and the retelling's "sein", "su", "его" are not claims, and a verb retold in
    the third person ("arbeitet", "vive") is the turn's first-person one ("arbeite", "vivo") with
    another ending.
    """
    texts = list(texts)
    available: set[str] = set()
    for text in texts:
        available |= claim_stems(text)
    # Imported here: the window imports this module, and starts without the language tables.
    from curator.reflection.languages import names_the_person, table_for, without_person_labels

    table = table_for(claim)
    grammar: frozenset[str] = frozenset()
    if table is not None:
        grammar = frozenset((*table.lists["stop"], *table.lists["their"], *table.person.casefold().split()))
    turn_words = _turn_words(texts) if table is not None and table.spaced else frozenset()
    seen: set[str] = set()
    supported: list[str] = []
    unsupported: list[str] = []
    # What a memory calls a person whose chat names no one ("Die Person", "用户") is no claim of
    # the turns: the gates pass it as the person, so the card does not count it against them.
    for word in content_words(without_person_labels(claim)):
        folded = word.casefold()
        if names_the_person(folded) or folded in grammar:
            continue
        s = stem(word)
        if s in seen:
            continue
        seen.add(s)
        found = s in available or in_a_run(word, texts) or _inflected(folded, turn_words)
        (supported if found else unsupported).append(word)
    total = len(supported) + len(unsupported)
    return Support(len(supported) / total if total else 0.0, tuple(supported), tuple(unsupported))


def _turn_words(texts: Iterable[str]) -> frozenset[str]:
    return frozenset(m.group(0).casefold() for text in texts for m in _WORD_RE.finditer(text))


def _inflected(word: str, turn_words: frozenset[str]) -> bool:
    """Whether a word of the turns is ``word`` with another ending: it shares all of it but
    the last two letters, and at least three ("arbeitet"/"arbeite", "vive"/"vivo",
    "travaille"/"travaillent")."""
    if len(word) < 4:
        return False
    root = word[:max(3, len(word) - 2)]
    return any(w.startswith(root) and abs(len(w) - len(word)) <= 2 for w in turn_words)
