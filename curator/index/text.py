"""Words: tokenising, stop words and a light stemmer shared by search, signals and gates.

The index's full-text engine stems with SQLite's Porter tokenizer; this module gives the same
idea in Python for code that compares texts directly (gates, dedup, topic overlap).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from curator.text_safety import visible

# The one word pattern: index, signals and gates all split text with it.
WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)

STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren't",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "can't",
        "cannot",
        "could",
        "couldn't",
        "did",
        "didn't",
        "do",
        "does",
        "doesn't",
        "doing",
        "don't",
        "down",
        "during",
        "each",
        "even",
        "ever",
        "every",
        "few",
        "for",
        "from",
        "further",
        "get",
        "gets",
        "got",
        "had",
        "hadn't",
        "has",
        "hasn't",
        "have",
        "haven't",
        "having",
        "he",
        "he'd",
        "he'll",
        "he's",
        "her",
        "here",
        "here's",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "how's",
        "however",
        "i",
        "i'd",
        "i'll",
        "i'm",
        "i've",
        "if",
        "in",
        "into",
        "is",
        "isn't",
        "it",
        "it's",
        "its",
        "itself",
        "just",
        "let's",
        "like",
        "made",
        "make",
        "many",
        "may",
        "me",
        "might",
        "more",
        "most",
        "much",
        "must",
        "mustn't",
        "my",
        "myself",
        "never",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "oh",
        "ok",
        "okay",
        "on",
        "once",
        "one",
        "only",
        "or",
        "other",
        "ought",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "really",
        "same",
        "say",
        "said",
        "says",
        "shan't",
        "she",
        "she'd",
        "she'll",
        "she's",
        "should",
        "shouldn't",
        "so",
        "some",
        "such",
        "than",
        "that",
        "that's",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "there's",
        "these",
        "they",
        "they'd",
        "they'll",
        "they're",
        "they've",
        "this",
        "those",
        "though",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "upon",
        "us",
        "very",
        "was",
        "wasn't",
        "we",
        "we'd",
        "we'll",
        "we're",
        "we've",
        "well",
        "were",
        "weren't",
        "what",
        "what's",
        "when",
        "when's",
        "where",
        "where's",
        "which",
        "while",
        "who",
        "who's",
        "whom",
        "why",
        "why's",
        "will",
        "with",
        "won't",
        "would",
        "wouldn't",
        "yeah",
        "yes",
        "yet",
        "you",
        "you'd",
        "you'll",
        "you're",
        "you've",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "thing",
        "things",
        "think",
        "know",
        "going",
        "want",
        "wants",
        "lot",
        "lots",
        "maybe",
        "sure",
        "thanks",
        "thank",
        "hey",
        "hi",
        "hello",
        "actually",
        "something",
        "anything",
    ]
)


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens, apostrophes kept inside words."""
    return [m.group(0).lower().replace("’", "'") for m in WORD_RE.finditer(text)]


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English suffix stripper (plural, -ing, -ed, -ly); stable and cheap.

    Cached: conversations repeat their words, and signals, gates and dedup stem every one.
    """
    w = word.lower()
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) <= 3:
        return w
    for suffix, replacement in (
        ("ies", "y"),
        ("sses", "ss"),
        ("ness", ""),
        ("ment", ""),
        ("ing", ""),
        ("edly", ""),
        ("ed", ""),
        ("ly", ""),
        ("es", ""),
        ("s", ""),
    ):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            if suffix == "s" and w.endswith(("ss", "us", "is")):
                return w
            w = w[: len(w) - len(suffix)] + replacement
            break
    if len(w) > 4 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]
    if w.endswith("e") and len(w) > 4:
        w = w[:-1]
    return w


def content_words(text: str) -> list[str]:
    """Tokens that carry meaning: no stop words, no numbers-only noise under 2 characters."""
    return [t for t in tokenize(text) if t not in STOP_WORDS and len(t) > 1]


def stems(words: Iterable[str]) -> set[str]:
    """The set of stems of ``words``."""
    return {stem(w) for w in words}


def overlap(a: str, b: str) -> float:
    """Share of ``a``'s content stems that also occur in ``b`` (0.0 when ``a`` has none)."""
    sa = stems(content_words(a))
    if not sa:
        return 0.0
    return len(sa & stems(content_words(b))) / len(sa)


def jaccard(a: str, b: str) -> float:
    """Jaccard similarity of the content stems of two texts."""
    sa, sb = stems(content_words(a)), stems(content_words(b))
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


def elide(text: str, limit: int = 80) -> str:
    """``text`` on one line, cut at a word boundary with an ellipsis when longer than ``limit``.

    Titles are read in lists, headers and file names; a word cut in half ("...all over th")
    reads as a bug, so the cut falls on the last whole word (or mid-word only when a single
    word is longer than the limit).
    """
    flat = " ".join(visible(str(text)).split())
    if len(flat) <= limit:
        return flat
    head = flat[: max(1, limit - 1)]
    if " " in head and flat[len(head)] != " ":
        head = head.rsplit(" ", 1)[0]
    return head.rstrip(" ,;:.-—") + "…"
