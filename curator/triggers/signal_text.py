"""The text signals of a user turn: its topic phrase and whether it corrects something said."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache

from curator.index.text import STOP_WORDS, WORD_RE, stems
from curator.triggers.keywords import folded, holds_any

# A topic is a short phrase, like the seed's "troll farms"; longer turns keep their first words.
TOPIC_MAX_WORDS = 6

CORRECTION_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(pattern, re.IGNORECASE))
    for label, pattern in (
        ("actually", r"\bactually\b"),
        # "No, ..." / "Nope. ..." at the start of the message or of a sentence.
        ("no,", r"(?:^|[.!?]\s+)(?:no|nope|nah)\b\s*[,.!;:\u2014-]"),
        ("I meant", r"\bI\s+(?:meant|mean\s+to\s+say)\b"),
        (
            "that's wrong",
            r"\bthat(?:'s|\s+is|\s+was)\s+"
            r"(?:wrong|incorrect|not\s+(?:right|true|correct|accurate|what\s+I))",
        ),
        (
            "you're wrong",
            r"\byou(?:'re|\s+are|\s+were|\s+got\s+(?:it|that))\s+(?:wrong|mistaken)\b",
        ),
        ("I was wrong", r"\bI\s+(?:was\s+wrong|misspoke|made\s+a\s+mistake)\b"),
        ("correction", r"\b(?:correction|to\s+correct\s+(?:that|myself|you))\b"),
        ("scratch that", r"\b(?:scratch\s+that|let\s+me\s+rephrase)\b"),
        # "not Paris but Lyon", but not "not only X but also Y".
        (
            "not X but Y",
            r"\bnot\s+(?!only\b|just\b|merely\b|simply\b|because\b)"
            r"[\w'-]+(?:\s+[\w'-]+){0,3}\s*,?\s+but\s+\w",
        ),
    )
)

# Words one of which every correction pattern needs (see ``curator.triggers.keywords``):
# a text without any of them is not searched with the patterns at all.
_CORRECTION_WORDS = ("actually", "mean", "wrong", "mistake", "misspoke", "correct", "scratch", "rephrase")
# "No, ..." needs no/nope/nah right before its punctuation; case-sensitive on folded text.
_NO_HINT = re.compile(r"n(?:o|ope|ah)\s*[,.!;:\u2014-]")


def _has(*words: str) -> Callable[[str], bool]:
    return lambda low: holds_any(low, words)


# What each correction pattern (same order) needs in the folded text to match at all. A
# text that passes the first check is searched only with the patterns it can satisfy:
# each search of a chat message costs microseconds, and most texts that pass need one.
_PATTERN_NEEDS: tuple[Callable[[str], bool], ...] = (
    _has("actually"),
    lambda low: _NO_HINT.search(low) is not None,
    _has("mean"),  # "meant", "mean to say"
    _has("that"),
    _has("wrong", "mistake"),  # "mistaken"
    _has("wrong", "misspoke", "mistake"),
    _has("correct"),  # "correction", "to correct"
    _has("scratch", "rephrase"),
    lambda low: "not" in low and "but" in low,
)

# Words of a message are tokenised up to the first white space past this many characters
# at a time: a topic needs only its first few words.
_TOPIC_CHUNK = 128
_SPACE_RE = re.compile(r"\s")


def _chunks(text: str) -> Iterator[str]:
    """``text`` a chunk at a time, each ending at white space, which no word contains or
    looks past, so no word is cut."""
    start, size = 0, len(text)
    while start < size:
        space = _SPACE_RE.search(text, min(start + _TOPIC_CHUNK, size))
        end = space.start() if space is not None else size
        yield text[start:end]
        start = end + 1


def leading_words(text: str) -> Iterator[str]:
    """The words of ``text`` in order, exactly as ``WORD_RE.finditer`` finds them, read a
    chunk at a time: ``findall`` on a chunk costs far less than a match object per word."""
    for chunk in _chunks(text):
        yield from WORD_RE.findall(chunk)


def turn_topic(text: str, max_words: int = TOPIC_MAX_WORDS) -> str:
    """A short topic phrase of a message: its first distinct content words, lower-case."""
    seen: list[str] = []
    # Only the first few words matter: tokenising a whole long message was most of the
    # cost of counting a turn. The words are taken a chunk at a time (a generator per word
    # was visible: this runs for every user turn of an import).
    for chunk in _chunks(text):
        if chunk.isascii():
            # Lower-casing ASCII maps letters to letters one for one, so the words of the
            # lowered chunk are the lowered words; one call instead of one per word.
            words = WORD_RE.findall(chunk.lower())
        else:
            words = [raw.lower().replace("’", "'") for raw in WORD_RE.findall(chunk)]
        for word in words:
            if word in STOP_WORDS or len(word) <= 1 or word.isdigit() or word in seen:
                continue
            seen.append(word)
            if len(seen) >= max_words:
                return " ".join(seen)
    return " ".join(seen)


@lru_cache(maxsize=4096)
def _topic_stems(topic: str) -> frozenset[str]:
    # The recent window holds the same few topics for many turns; stem each once.
    return frozenset(stems(topic.split()))


def same_topic(a: str, b: str, threshold: float) -> bool:
    """True when two topic phrases share at least ``threshold`` of the shorter one's stems."""
    sa, sb = _topic_stems(a), _topic_stems(b)
    if not sa or not sb:
        return False
    return len(sa & sb) / min(len(sa), len(sb)) >= threshold


def topic_repeats(topic: str, recent_topics: list[str], threshold: float) -> int:
    """How many of ``recent_topics`` are ``same_topic`` as ``topic`` (its stems looked up once)."""
    mine = _topic_stems(topic)
    if not mine:
        return 0
    size = len(mine)
    # Most pairs of topics share no stem: with a positive threshold they are told apart by
    # isdisjoint, which builds no intersection.
    skip_disjoint = threshold > 0
    count = 0
    for theirs in map(_topic_stems, recent_topics):
        if not theirs or (skip_disjoint and mine.isdisjoint(theirs)):
            continue
        if len(mine & theirs) / min(size, len(theirs)) >= threshold:
            count += 1
    return count


def _may_correct(text: str) -> bool:
    """False when no correction pattern can match ``text`` (a necessary-word check)."""
    return _may_correct_folded(folded(text))


def _may_correct_folded(low: str) -> bool:
    if holds_any(low, _CORRECTION_WORDS):
        return True
    if "not" in low and ("that" in low or "but" in low):  # "that's not right", "not X but Y"
        return True
    return _NO_HINT.search(low) is not None


def find_correction(text: str) -> str | None:
    """The label of the first correction pattern in ``text``, or ``None``."""
    normalised = text.replace("\u2019", "'").replace("\u2018", "'")
    low = folded(normalised)
    if not _may_correct_folded(low):
        return None
    for (label, pattern), needs in zip(CORRECTION_PATTERNS, _PATTERN_NEEDS, strict=True):
        if needs(low) and pattern.search(normalised):
            return label
    return None
