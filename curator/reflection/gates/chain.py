"""The one grounding gate chain every reflector runs: batch, micro, summary and the cycle.

:func:`check_item` judges one text against the turns it cites, in this order, and stops at
the first failure:

``form``
    broken words ("stayConn-a-"), stray JSON or markup ("expand. },", ``<b>``), control or
    invisible characters, and the placeholders prompts use (``<NAME>``) never pass.
``evidence``
    every evidence quote occurs verbatim (case and spacing aside) in the turn it names.
``names``
    every proper name, number and date of the item occurs in the cited turns. A capitalised
    word at the start of a sentence counts too (that is where "Rafael grows..." hid); only
    stop words and framing words ("The", "User") are exempt there.
``support``
    at least ``threshold`` of the item's content words occur in the cited turns.

Only code decides; nothing here calls a model. The caller owns what happens on failure
(reject, or for a summary: send it to review with :attr:`GateVerdict.failing_words` marked).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from curator.index.text import STOP_WORDS, WORD_RE, content_words, in_a_run, stem, stems, tokenize
from curator.reflection.languages import names_the_person, person_labels, without_person_labels
from curator.reflection.narrowing import sentences
from curator.reflection.rephrase import quoted_words
from curator.sources.turns import IndexedTurn

DEFAULT_SUPPORT = 0.6

# Words a model uses to frame any fact ("The user mentioned that they prefer ...") and that a
# conversation rarely contains literally. They carry no claim, so they are not required.
FRAMING_WORDS = frozenset(
    [
        "user",
        "users",
        "person",
        "people",
        "assistant",
        "bot",
        "ai",
        "human",
        "individual",
        "speaker",
        "author",
        "someone",
        "mention",
        "mentioned",
        "mentions",
        "state",
        "stated",
        "states",
        "say",
        "said",
        "tell",
        "told",
        "explain",
        "explained",
        "describe",
        "described",
        "discuss",
        "discussed",
        "talk",
        "talked",
        "ask",
        "asked",
        "note",
        "noted",
        "share",
        "shared",
        "express",
        "expressed",
        "indicate",
        "indicated",
        "conversation",
        "chat",
        "turn",
        "turns",
        "fact",
        "facts",
        "currently",
        "recently",
        "often",
        "usually",
        "prefer",
        "prefers",
        "preferred",
        "like",
        "likes",
        "liked",
        "love",
        "loves",
        "loved",
        "enjoy",
        "enjoys",
        "enjoyed",
        "want",
        "wants",
        "wanted",
        "need",
        "needs",
        "needed",
        "use",
        "uses",
        "used",
        "have",
        "has",
        "had",
        "own",
        "owns",
        "live",
        "lives",
        "lived",
        "work",
        "works",
        "worked",
        "their",
        "they",
        "them",
        "themselves",
        "he",
        "she",
        "his",
        "her",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "also",
    ]
)
FRAMING_STEMS = frozenset(stem(w) for w in FRAMING_WORDS)

# Spelled-out numbers are numbers: "twenty minutes" needs "twenty" in the turns.
NUMBER_WORDS = frozenset(
    [
        "zero",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "sixty",
        "seventy",
        "eighty",
        "ninety",
        "hundred",
        "thousand",
        "million",
        "billion",
        "dozen",
        "half",
        "twice",
    ]
)

# Markup and JSON debris a small model leaves behind: braces, brackets, tags, key-value
# fragments, escaped quotes, code fences.
_DEBRIS_RE = re.compile(r"[{}\[\]<>\\`|]|\"\s*:|\*\*|__|^\s*[-*#>]\s|https?://|\b\w+\(\)")
# "stayConn": a lower-case run followed by capitals inside one word (not "McDonald", "iPhone").
_CAMEL_RE = re.compile(r"\b[a-z]{3,}[A-Z][a-z]*\b")
# A word cut mid-way: a letter run ending in a hyphen that no word follows ("Conn-a-"). Two
# hyphens are a dash ("things are happening--I'm exploring ..."), not a cut.
_CUT_RE = re.compile(r"[^\W\d_]-(?:\s|$|[^\w\s-])|(?:^|\s)-[^\W\d_]|[^\W\d_]-[^\W\d_]-")


@dataclass(frozen=True)
class Evidence:
    """One cited turn and the words quoted from it."""

    turn: int
    quote: str


@dataclass(frozen=True)
class GateVerdict:
    """The chain's answer for one item."""

    passed: bool
    gate: str  # the failing gate, or "" when passed
    reason: str
    failing_words: tuple[str, ...] = ()
    support: float = 0.0
    gates: tuple[str, ...] = field(default_factory=tuple)  # the gates passed, in order


def normalise(text: str) -> str:
    """Case-, spacing- and quote-style-insensitive form for verbatim comparison."""
    text = unicodedata.normalize("NFKC", str(text or ""))
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    return " ".join(text.casefold().split())


def quote_key(text: str) -> str:
    """A quote without the edge punctuation a model adds or drops (Chinese and Japanese stops too: a
    quote that leaves out laughter before the stop, "…差点出事哈哈。", ends on a stop the turn has
    only after the laughter)."""
    return normalise(text).strip(" \"'.…,;:!?。！？，、；：")


def form_problems(text: str) -> list[str]:
    """What makes ``text`` unfit to read as a memory (empty when it is fine)."""
    problems: list[str] = []
    bad_chars = sorted({f"U+{ord(c):04X}" for c in text
                        if (unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs") and c not in "\n\t")})
    if bad_chars:
        problems.append(f"control or invisible characters {', '.join(bad_chars[:4])}")
    debris = _DEBRIS_RE.search(text)
    if debris:
        problems.append(f"markup or JSON debris {debris.group(0).strip()!r}")
    camel = _CAMEL_RE.search(text)
    if camel:
        problems.append(f"broken word {camel.group(0)!r}")
    cut = _CUT_RE.search(text)
    if cut:
        problems.append(f"word cut off at {cut.group(0).strip()!r}")
    seen: set[str] = set()
    for sentence in sentences(text):
        key = quote_key(sentence)
        if len(key.split()) >= 3 and key in seen:
            problems.append(f"repeats the sentence {sentence.strip()[:60]!r}")
            break
        seen.add(key)
    return problems


def tidy(text: str) -> str:
    """Code-side cleanup of a model's item text before the gates: a sentence said twice is said
    once, and a last sentence cut off by the length limit is dropped when a whole one precedes it."""
    parts = sentences(text)
    out: list[str] = []
    for part in parts:
        if quote_key(part) not in {quote_key(o) for o in out}:
            out.append(part)
    if len(out) > 1 and not out[-1].endswith((".", "!", "?", '"', "”", ")")):
        out.pop()
    if out == parts:
        # As written, but for runs of space: Chinese and Japanese sentences follow each other
        # with none, and joining them with one put a space inside the person's quoted words.
        return " ".join(text.split())
    return " ".join(out)


def _sentence_start(text: str, start: int) -> bool:
    before = text[:start].rstrip(" \t\"'“‘(*_")
    return not before or before[-1] in ".!?:;\n"


def _framing(lower: str) -> bool:
    """Whether a folded word frames a memory ("user", "said", "Die Person") rather than holding its news."""
    return stem(lower) in FRAMING_STEMS or names_the_person(lower)


def grounded_terms(text: str) -> tuple[list[str], set[str]]:
    """(names/numbers/dates that must all be supported, content stems to support by share)."""
    exact: list[str] = []
    content: set[str] = set()
    text = without_person_labels(text)
    for match in WORD_RE.finditer(text):
        word = match.group(0)
        lower = word.lower().replace("’", "'")
        if any(ch.isdigit() for ch in word) or lower in NUMBER_WORDS:
            exact.append(word)
            continue
        if lower in STOP_WORDS or len(lower) < 2:
            continue
        # At a sentence start a capital proves nothing, so the word is held to the name standard
        # unless it is a framing word: rejecting a real word is safe, a made-up name is not.
        capital = word[0].isupper() or (len(word) > 1 and word.isupper())
        at_start = _sentence_start(text, match.start())
        if capital and not ((at_start and (_framing(lower) or lower in person_labels())) or names_the_person(lower)):
            exact.append(word)
            continue
        s = stem(lower)
        if not _framing(lower):
            content.add(s)
    return list(dict.fromkeys(exact)), content


def _vocabulary(turns: Sequence[IndexedTurn], extra_names: Iterable[str]) -> tuple[set[str], str]:
    cited = "\n".join(f"{t.speaker}\n{t.text}\n{t.context}" for t in turns)
    cited += "\n" + "\n".join(extra_names)
    words = tokenize(cited)
    return {stem(w) for w in words} | set(words), normalise(cited)


def _number_supported(word: str, words: set[str], flat: str) -> bool:
    lower = word.lower()
    if lower in words:
        return True
    digits = re.sub(r"[^\d]", "", lower)
    return bool(digits) and re.search(rf"(?<!\d){re.escape(digits)}(?!\d)", re.sub(r"[,.](?=\d)", "", flat)) is not None


def check_item(
    text: str,
    turns: Sequence[IndexedTurn],
    evidence: Sequence[Evidence] = (),
    *,
    threshold: float = DEFAULT_SUPPORT,
    names: Iterable[str] = (),
) -> GateVerdict:
    """Whether ``text`` is grounded in ``turns`` (the turns it cites) and fit to read.

    ``evidence`` quotes are each checked in their own turn (matched by number among
    ``turns``). ``names`` are extra words known to be grounded (speaker names from the source
    metadata). ``threshold`` 0 skips the content-share test (summaries paraphrase; their names,
    numbers and dates are still checked).
    """
    passed: list[str] = []
    problems = form_problems(text)
    if problems:
        return GateVerdict(False, "form", "; ".join(problems), gates=tuple(passed))
    passed.append("form")
    refused = _evidence_refusal(turns, evidence, passed)
    if refused is not None:
        return refused
    if evidence:
        passed.append("evidence")
    if not turns:
        return GateVerdict(False, "names", "cites no turns", gates=tuple(passed))
    quoted = quoted_words(text)
    if quoted is not None:
        # 'The user said: "..."' claims the person's exact words: they must be in a cited turn
        # (one was staged with "me mudo" retold as "the user mudo" inside the quotation).
        for said in quoted:
            key = quote_key(said)
            if not key or not any(key in normalise(t.text) for t in turns):
                return GateVerdict(False, "quoted", f"the quoted words are not in the cited turns: {said[:60]!r}",
                                   (said,), gates=tuple(passed))
        passed.append("quoted")
    words, flat = _vocabulary(turns, names)
    exact, content = grounded_terms(text)
    missing = [w for w in exact if not (_number_supported(w, words, flat) if any(c.isdigit() for c in w)
                                        else stem(w.lower()) in words or w.lower() in words)]
    if missing:
        return GateVerdict(False, "names", f"names, numbers or dates not in the cited turns: {', '.join(missing[:6])}",
                           tuple(missing), gates=tuple(passed))
    passed.append("names")
    if threshold <= 0:
        return GateVerdict(True, "", "names, numbers and dates grounded", gates=tuple(passed))
    return _support_verdict(text, content or {stem(w.lower()) for w in exact}, words, threshold, passed, flat)


def _evidence_refusal(turns: Sequence[IndexedTurn], evidence: Sequence[Evidence],
                      passed: list[str]) -> GateVerdict | None:
    """The refusal for the first quote not found in the turn it cites; None when all are found."""
    by_number = {t.number: t for t in turns}
    for ev in evidence:
        turn = by_number.get(ev.turn)
        key = quote_key(ev.quote)
        if turn is None:
            return GateVerdict(
                False,
                "evidence",
                f"quote cites turn {ev.turn}, which is not cited",
                gates=tuple(passed),
            )
        if not key or key not in normalise(turn.text):
            return GateVerdict(False, "evidence", f"quote {ev.quote[:60]!r} is not in turn {ev.turn}",
                               (ev.quote,), gates=tuple(passed))
    return None


def _support_verdict(text: str, required: set[str], words: set[str], threshold: float,
                     passed: list[str], flat: str = "") -> GateVerdict:
    """The content-share test: enough of the ``required`` stems occur in the cited turns."""
    if not required:
        return GateVerdict(False, "support", "no content words to check against the cited turns", gates=tuple(passed))
    supported = {w for w in required if w in words or in_a_run(w, (flat,))}
    ratio = len(supported) / len(required)
    if ratio < threshold:
        gaps = required - words
        unsupported = tuple(dict.fromkeys(w for w in tokenize(text) if stem(w) in gaps))
        return GateVerdict(False, "support",
                           f"only {len(supported)}/{len(required)} content words ({ratio:.0%}) occur in the cited "
                           f"turns (need {threshold:.0%}); unsupported: {', '.join(unsupported[:6])}",
                           unsupported, ratio, gates=tuple(passed))
    passed.append("support")
    return GateVerdict(True, "", f"{len(supported)}/{len(required)} content words supported", (), ratio, tuple(passed))


def unsupported_words(text: str, turns: Sequence[IndexedTurn], names: Iterable[str] = ()) -> list[str]:
    """Every name, number, date and content word of ``text`` the turns do not contain (for marking)."""
    words, flat = _vocabulary(turns, names)
    out: list[str] = []
    for match in WORD_RE.finditer(text):
        word = match.group(0)
        lower = word.lower()
        if lower in STOP_WORDS or len(lower) < 2 or _framing(lower):
            continue
        ok = _number_supported(word, words, flat) if any(c.isdigit() for c in word) else \
            (lower in words or stem(lower) in words or in_a_run(lower, (flat,)))
        if not ok and word not in out:
            out.append(word)
    return out


def reground(text: str, turns: Sequence[IndexedTurn], threshold: float = DEFAULT_SUPPORT) -> Evidence | None:
    """The one turn (and its sentence) that grounds ``text`` best, when the model cited the
    wrong one: a small model often copies one sentence and names another. The result is held
    to the same chain, with a verbatim quote, so nothing is gained by a lie."""
    best: tuple[float, Evidence] | None = None
    for turn in turns:
        if turn.role != "user" or not isinstance(turn.text, str):
            continue
        verdict = check_item(text, [turn], threshold=threshold)
        if not verdict.passed:
            continue
        wanted = set(content_words(text))
        sentence = max(sentences(turn.text) or [turn.text], key=lambda q: len(wanted & set(content_words(q))))
        if best is None or verdict.support > best[0]:
            best = (verdict.support, Evidence(turn.number, sentence))
    return best[1] if best else None


def same_quote(a: str, b: str) -> bool:
    """Two items that rest on the same quote are one item."""
    return bool(quote_key(a)) and quote_key(a) == quote_key(b)


__all__ = ["Evidence", "GateVerdict", "check_item", "content_words", "form_problems", "grounded_terms",
           "normalise", "quote_key", "same_quote", "stems", "unsupported_words"]
