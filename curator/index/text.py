"""Words: tokenising, stop words and the stemmer shared by search, signals and gates.

The index's full-text engine stems with SQLite FTS5's porter tokenizer (``FTS_TOKENIZER``);
``stem`` gives the same stems in Python for code that compares texts directly (gates,
dedup, topic overlap), so a word the gates accept is one search finds.
"""

from __future__ import annotations

import re
import unicodedata
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


# The index's full-text tokenizer (SQLite FTS5): unicode61 splits and folds, porter stems.
# ``stem`` below gives the same stems in Python, so gates and search agree on what matches.
FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"

# FTS5's porter tokenizer passes tokens outside these byte lengths through unchanged.
_PORTER_MIN_BYTES, _PORTER_MAX_BYTES = 3, 64


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The stem FTS5's porter tokenizer gives ``word`` (Porter's 1980 algorithm).

    The word is folded as unicode61 folds it (lower case, Latin diacritics removed); a
    possessive ``'s`` is dropped, since unicode61 splits it off as its own token. Cached:
    conversations repeat their words, and signals, gates and dedup stem every one.
    """
    w = fold(word)
    if w.endswith(("'s", "’s")):
        w = w[:-2]
    raw = w.encode("utf-8")
    if not _PORTER_MIN_BYTES <= len(raw) <= _PORTER_MAX_BYTES:
        return w
    return _Porter(raw).stem().decode("utf-8", "ignore")


def fold(word: str) -> str:
    """``word`` in lower case without the diacritics of Latin letters (``Café`` -> ``cafe``)."""
    lower = word.lower()
    if lower.isascii():
        return lower
    out: list[str] = []
    for ch in unicodedata.normalize("NFD", lower):
        if unicodedata.combining(ch) and out and out[-1].isascii():
            continue  # a mark on a Latin base letter
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


_VOWELS = frozenset(b"aeiou")


class _Porter:
    """One word (UTF-8 bytes, as SQLite sees it) through Porter's steps 1a to 5b."""

    def __init__(self, word: bytes) -> None:
        self.b = bytearray(word)

    def stem(self) -> bytes:
        for step in (self._step1a, self._step1b, self._step1c, self._step2, self._step3, self._step4,
                     self._step5):
            step()
        return bytes(self.b)

    # ---- The letters of a word

    def _consonant(self, i: int) -> bool:
        ch = self.b[i]
        if ch in _VOWELS:
            return False
        if ch == ord("y"):
            return i == 0 or not self._consonant(i - 1)
        return True

    def _measure(self, end: int) -> int:
        """Porter's m: the number of vowel-consonant runs in ``b[:end]``."""
        m, i = 0, 0
        while i < end and self._consonant(i):
            i += 1
        while i < end:
            while i < end and not self._consonant(i):
                i += 1
            if i >= end:
                break
            while i < end and self._consonant(i):
                i += 1
            m += 1
        return m

    def _has_vowel(self, end: int) -> bool:
        return any(not self._consonant(i) for i in range(end))

    def _double_consonant(self, end: int) -> bool:
        return end >= 2 and self.b[end - 1] == self.b[end - 2] and self._consonant(end - 1)

    def _cvc(self, end: int) -> bool:
        """``b[:end]`` ends consonant-vowel-consonant, the last not w, x or y (as in hop, not how)."""
        if end < 3 or not self._consonant(end - 1) or self._consonant(end - 2) or not self._consonant(end - 3):
            return False
        return self.b[end - 1] not in b"wxy"

    def _ends(self, suffix: bytes) -> bool:
        return len(self.b) > len(suffix) and self.b.endswith(suffix)

    def _replace(self, suffix: bytes, replacement: bytes) -> None:
        self.b[len(self.b) - len(suffix):] = replacement

    def _first_rule(self, rules: tuple[tuple[bytes, bytes], ...], min_m: int) -> None:
        """Apply the first rule whose suffix the word ends with, when its stem's m > ``min_m``."""
        for suffix, replacement in rules:
            if self._ends(suffix):
                if self._measure(len(self.b) - len(suffix)) > min_m:
                    self._replace(suffix, replacement)
                return

    # ---- The steps

    def _step1a(self) -> None:
        if self._ends(b"sses"):
            self._replace(b"sses", b"ss")
        elif self._ends(b"ies"):
            self._replace(b"ies", b"i")
        elif self._ends(b"s") and not self._ends(b"ss"):
            self._replace(b"s", b"")

    def _step1b(self) -> None:
        if self._ends(b"eed"):
            if self._measure(len(self.b) - 3) > 0:
                self._replace(b"eed", b"ee")
            return
        for suffix in (b"ed", b"ing"):
            if self._ends(suffix) and self._has_vowel(len(self.b) - len(suffix)):
                self._replace(suffix, b"")
                self._step1b_tidy()
                return

    def _step1b_tidy(self) -> None:
        """After -ed/-ing: restore an e (hopp -> hop, hop -> hope) or add one (conflat -> conflate)."""
        for end, full in ((b"at", b"ate"), (b"bl", b"ble"), (b"iz", b"ize")):
            if self.b.endswith(end):
                self._replace(end, full)
                return
        n = len(self.b)
        if self._double_consonant(n):
            if self.b[-1] not in b"lsz":
                del self.b[-1]
        elif self._measure(n) == 1 and self._cvc(n):
            self.b += b"e"

    def _step1c(self) -> None:
        if self._ends(b"y") and self._has_vowel(len(self.b) - 1):
            self.b[-1] = ord("i")

    def _step2(self) -> None:
        self._first_rule(_STEP2, 0)

    def _step3(self) -> None:
        self._first_rule(_STEP3, 0)

    def _step4(self) -> None:
        for suffix in _STEP4:
            if self._ends(suffix):
                stem_end = len(self.b) - len(suffix)
                if suffix == b"ion" and self.b[stem_end - 1] not in b"st":
                    return
                if self._measure(stem_end) > 1:
                    del self.b[stem_end:]
                return

    def _step5(self) -> None:
        n = len(self.b)
        if self.b.endswith(b"e"):
            m = self._measure(n - 1)
            if m > 1 or (m == 1 and not self._cvc(n - 1)):
                del self.b[-1]
        n = len(self.b)
        if self.b.endswith(b"ll") and self._measure(n) > 1:
            del self.b[-1]


# Longer suffixes first where one ends another (ization before ation): the first match wins.
_STEP2: tuple[tuple[bytes, bytes], ...] = (
    (b"ational", b"ate"), (b"tional", b"tion"), (b"enci", b"ence"), (b"anci", b"ance"),
    (b"izer", b"ize"), (b"logi", b"log"), (b"bli", b"ble"), (b"alli", b"al"), (b"entli", b"ent"),
    (b"eli", b"e"), (b"ousli", b"ous"), (b"ization", b"ize"), (b"ation", b"ate"), (b"ator", b"ate"),
    (b"alism", b"al"), (b"iveness", b"ive"), (b"fulness", b"ful"), (b"ousness", b"ous"),
    (b"aliti", b"al"), (b"iviti", b"ive"), (b"biliti", b"ble"),
)
_STEP3: tuple[tuple[bytes, bytes], ...] = (
    (b"icate", b"ic"), (b"ative", b""), (b"alize", b"al"), (b"iciti", b"ic"), (b"ical", b"ic"),
    (b"ful", b""), (b"ness", b""),
)
_STEP4: tuple[bytes, ...] = (
    b"al", b"ance", b"ence", b"er", b"ic", b"able", b"ible", b"ant", b"ement", b"ment", b"ent",
    b"ion", b"ou", b"ism", b"ate", b"iti", b"ous", b"ive", b"ize",
)


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


# FTS5's unicode61 tokenizer keeps a run of Chinese or Japanese characters as one token, so
# "护士" never matched "我是一名护士". The index stores such characters one token each
# (spaced), and a query's run becomes a phrase of its characters: adjacent, in order.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK_FIRST = "\u3040"  # no CJK character sorts below it


@lru_cache(maxsize=1)
def _cjk_char_re() -> re.Pattern[str]:
    return re.compile(f"[{_CJK}]")


def _holds_cjk(text: str) -> bool:
    # ASCII (most texts) is settled without the CJK class, whose compiling alone took 4 ms of
    # the search process's start; a short text (a query, a snippet) by its largest character.
    if text.isascii():
        return False
    if len(text) <= 512 and max(text) < _CJK_FIRST:
        return False
    return _cjk_char_re().search(text) is not None


def in_a_run(word: str, texts: Iterable[str]) -> bool:
    """Whether ``word``, holding Chinese, Japanese or Korean characters, occurs inside one of
    ``texts``. Those scripts run their words together, so a memory's run ("上次同事请吃点心差点出事")
    is a part of the turn's longer one ("…差点出事哈哈"), never equal to it as a word."""
    return _holds_cjk(word) and any(word in text for text in texts)


# Compiled on first use: each costs milliseconds, and most texts hold no CJK character.
@lru_cache(maxsize=1)
def _cjk_gap_re() -> re.Pattern[str]:
    return re.compile(f"(?<=[{_CJK}])(?=\\S)|(?<=\\S)(?=[{_CJK}])")


@lru_cache(maxsize=1)
def _spaced_re() -> re.Pattern[str]:
    """The index's spaces, also around the [ ] a snippet puts round a matched character."""
    return re.compile(f"(?<=[{_CJK}]) (?=\\S)|(?<=\\S) (?=[{_CJK}])|(?<=[{_CJK}]\\]) (?=\\S)"
                      f"|(?<=\\S) (?=\\[[{_CJK}])")


def fts_text(text: str) -> str:
    """``text`` as the full-text index stores it: each CJK character its own token."""
    return _cjk_gap_re().sub(" ", text) if _holds_cjk(text) else text


def readable_snippet(snippet: str) -> str:
    """A snippet of :func:`fts_text` as the person wrote it (the index's spacing taken out)."""
    return _spaced_re().sub("", snippet) if _holds_cjk(snippet) else snippet


def cjk_phrases(term: str) -> list[str]:
    """The FTS phrases for one query term: a CJK run of up to four characters as one phrase,
    a longer one as overlapping two-character phrases (a sentence typed as the query)."""
    if not _holds_cjk(term):
        return [term]
    chars = [c for c in term if not c.isspace()]
    if len(chars) <= 4:
        return [" ".join(chars)]
    return list(dict.fromkeys(" ".join(chars[i:i + 2]) for i in range(len(chars) - 1)))
