"""Cheap word checks that tell when a case-insensitive pattern cannot match a text.

The correction and cycle-request patterns are searched in every new user turn. With
``re.IGNORECASE`` Python's regex engine steps through the text character by character for
each pattern (about 6 µs per pattern for a 200-character message), which made those
searches most of the cost of counting a turn. Every such pattern needs some plain word
("actually", "wrong", "reflect" ...) to appear in the text, and a substring test on
lower-cased text is a hundred times cheaper; only a text holding one of the words is
searched with the patterns themselves, so what matches, and with which label, is unchanged.
"""

from __future__ import annotations

# Characters that a case-insensitive ASCII letter also matches besides its two cases
# (dotted and dotless i, long s, the Kelvin sign): the regex engine folds them, while
# ``str.lower`` keeps some and turns dotted I into two characters.
_FOLDS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def folded(text: str) -> str:
    """``text`` lower-cased so that every ASCII word a case-insensitive pattern finds in it
    appears in the result spelled in lower case."""
    if not text.isascii():
        text = text.translate(_FOLDS)
    return text.lower()


def holds_any(folded_text: str, words: tuple[str, ...]) -> bool:
    """Whether any of the lower-case ``words`` occurs in an already ``folded`` text."""
    # map over the bound method: a generator's frame cost more than the substring tests.
    return any(map(folded_text.__contains__, words))


__all__ = ["folded", "holds_any"]
