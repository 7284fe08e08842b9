"""A correction's new text: the old memory with the value it supersedes swapped for the new one.

Code cannot rewrite a sentence, but most corrections change one value: a month ("in
September, not October"), a place ("moved to Braga, she doesn't live in Porto any more"), a
number. When the correction puts exactly one value of the old memory under a negation and
names exactly one new value of the same kind, the old memory is kept with that value swapped,
so nothing else it said is lost. Otherwise the correction takes the old text's place as it
stands. Either way the superseded value does not survive into the approved memory; the old
text stays in the memory's history, and the person sees both sides before approving.

Negations and dates are the ``negation`` and ``dates`` lists of every language table, with
English's own (negations below, dates from ``statements``): a short sentence's language is
hard to tell, and a word only counts beside a value the old memory holds. Scripts written
without spaces get the correction alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from curator.reflection.languages import all_entries, table_for
from curator.reflection.rephrase import is_quotation
from curator.reflection.statements import DATE_WORDS

ENGLISH_NEGATION = ("not", "no", "never", "no longer", "any more", "anymore", "instead of", "rather than")
# English numbers in words: "three twelve-hour shifts now, not four".
NUMBER_WORDS = frozenset([
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty",
    "forty", "fifty",
])
# How often, in one word: "I climb three times a week now, not twice" swaps "twice" for "three times".
HOW_OFTEN = frozenset(["once", "twice", "thrice"])
LOOK_BACK = 4  # a negation this many words before a value denies it ("doesn't live in Porto")
LOOK_AHEAD = 2  # ... or one of these, this many after ("Porto any more", Turkish "değil")
TRAILING = ("any more", "anymore", "değil")

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
_SENTENCE_END = re.compile(r"[.!?;:]\s*$")


@dataclass(frozen=True)
class _Word:
    text: str
    folded: str
    opens_sentence: bool


def corrected_memory(old: str, correction: str) -> str:
    """The text a correction proposes in place of ``old``: :func:`corrected_text`, except that a
    quotation is never given a swapped value. 'The user said: "Meine Schwester Jana wohnt in
    Zürich, ..."' would be words the person never said; the correction's own words are."""
    if is_quotation(old):
        return correction.strip()
    return corrected_text(old, correction)


def corrected_text(old: str, correction: str) -> str:
    """The memory ``old`` as ``correction`` leaves it (see the module's docstring)."""
    correction = correction.strip()
    table = table_for(correction)
    if table is not None and not table.spaced:
        return correction
    negations, dates = _lists()
    old_values = {w.folded: w.text for w in _words(old) if _kind(w, dates, in_old=True)}
    words = _words(correction)
    superseded: set[tuple[str, str]] = set()
    new: dict[str, tuple[str, str]] = {}
    for i, word in enumerate(words):
        kind = _kind(word, dates, in_old=word.folded in old_values)
        if kind is None:
            continue
        if word.folded in old_values:
            if _denied(words, i, negations):
                superseded.add((word.folded, kind))
        else:
            times = i + 1 < len(words) and words[i + 1].folded == "times"
            new.setdefault(word.folded, (f"{word.text} {words[i + 1].text}" if times else word.text, kind))
    if len(superseded) != 1:
        return correction
    [(gone, kind)] = superseded
    same_kind = [text for text, k in new.values() if k == kind]
    if len(same_kind) != 1 or (gone in HOW_OFTEN) != same_kind[0].casefold().endswith(("times", *HOW_OFTEN)):
        return correction  # "twice" for "three" alone, or "four" for "three times": no clean swap
    pattern = re.compile(rf"(?<![^\W_]){re.escape(old_values[gone])}(?![^\W_])")
    return pattern.sub(same_kind[0], old.strip())


@lru_cache(maxsize=1)
def _lists() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Negations and dates of every language: telling the language of a short sentence is
    unreliable, and a word only counts beside a value the old memory holds."""
    negations = dict.fromkeys((*ENGLISH_NEGATION, *(e for _, e in all_entries("negation"))))
    dates = dict.fromkeys((*sorted(DATE_WORDS), *(e for _, e in all_entries("dates"))))
    return tuple(negations), tuple(dates)


def _words(text: str) -> list[_Word]:
    out = []
    for match in _TOKEN.finditer(text):
        before = text[:match.start()].rstrip(" \"'“‘„«(")
        out.append(_Word(match.group(), match.group().casefold(), not before or bool(_SENTENCE_END.search(before))))
    return out


def _kind(word: _Word, dates: tuple[str, ...], *, in_old: bool) -> str | None:
    """"number", "date" or "name" for a word that can be a fact's value; None for other words.

    A capitalised word counts as a name. In German every noun is capitalised, so there a
    "name" may be a noun ("nicht mehr als Krankenschwester, als Lehrerin"): swapping one
    noun the correction denies for the one it brings is still the right edit.
    """
    if word.text.isdigit() or word.folded in NUMBER_WORDS or word.folded in HOW_OFTEN:
        return "number"
    if any(word.folded == d or (d.endswith("*") and word.folded.startswith(d[:-1])) for d in dates):
        return "date"
    # A capital opening a sentence says nothing, unless the old memory has the word too.
    if word.text[:1].isupper() and (in_old or not word.opens_sentence):
        return "name"
    return None


def _denied(words: list[_Word], i: int, negations: tuple[str, ...]) -> bool:
    """Whether a negation stands just before word ``i`` (or a trailing one, "any more", after it)."""
    before = [w.folded for w in words[max(0, i - LOOK_BACK):i]]
    after = [w.folded for w in words[i + 1:i + 1 + LOOK_AHEAD]]
    if any(w.endswith(("n't", "n’t")) for w in before):
        return True
    joined_before, joined_after = f" {' '.join(before)} ", f" {' '.join(after)} "
    return any(f" {n} " in joined_before for n in negations) or any(f" {n} " in joined_after for n in TRAILING)

