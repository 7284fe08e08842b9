"""The one helper every printer of a title or text uses: invisible characters made visible.

A title can hide a right-to-left override (U+202E) or zero-width characters (U+200B) that
make it read differently from what it holds. Everything that prints a title or text for a
person (the CLI, every pane, the tray) passes it through ``visible`` (``elide`` does it for
every cut title) so each such character appears as a marker such as ``⟦U+202E⟧``.
"""

from __future__ import annotations

import unicodedata


def _is_invisible(ch: str) -> bool:
    cp = ord(ch)
    return (
        unicodedata.category(ch) == "Cf"  # zero-width, bidi controls, tags, soft hyphen...
        or 0xE0000 <= cp <= 0xE007F  # Unicode tag block ("ASCII smuggling")
        or 0xFE00 <= cp <= 0xFE0F  # variation selectors
        or 0xE0100 <= cp <= 0xE01EF
        or cp in (0x115F, 0x1160, 0x3164, 0xFFA0)  # Hangul fillers render as blanks
    )


def _pictograph(ch: str) -> bool:
    """An emoji or another pictographic symbol (a skin tone too), never an ASCII sign."""
    return ord(ch) > 0x2000 and unicodedata.category(ch) in ("So", "Sk")


# Scripts whose words hold a zero-width joiner or non-joiner: Arabic, Syriac and Thaana, the
# Indic scripts from Devanagari to Sinhala, Tibetan, Myanmar, Khmer, Mongolian. Nowhere else is
# one writing: between Cyrillic letters it would split "игнорируй" out of the instruction checks.
_JOINING_SCRIPTS = ((0x0600, 0x07BF), (0x0860, 0x0DFF), (0x0F00, 0x109F), (0x1780, 0x18AF))


def _letter(ch: str) -> bool:
    """A letter or vowel sign of a script that joins with them (Persian, Hindi, Bengali ...)."""
    cp = ord(ch)
    return any(low <= cp <= high for low, high in _JOINING_SCRIPTS) and unicodedata.category(ch)[0] in "LM"


def _hidden(text: str, i: int) -> bool:
    """Whether the character at ``i`` hides something, read with its neighbours.

    Three format characters are writing where they stand: a variation selector after an emoji
    or a keycap digit ("❤️"), a zero-width joiner between two emoji ("👩‍💻"), and either joiner
    between two letters of a script that needs it (Persian "می‌کنم", Hindi conjuncts). A chat
    full of them lost every sentence they were in; anywhere else they still count.
    """
    ch = text[i]
    if not _is_invisible(ch):
        return False
    before = text[i - 1] if i else ""
    after = text[i + 1] if i + 1 < len(text) else ""
    cp = ord(ch)
    if 0xFE0E <= cp <= 0xFE0F:
        return not (before and (_pictograph(before) or before.isdigit() or before in "#*"))
    if cp in (0x200C, 0x200D) and before and after and _letter(before) and _letter(after):
        return False
    if cp == 0x200D and before and after:
        emoji_before = _pictograph(before) or 0xFE0E <= ord(before) <= 0xFE0F
        return not (emoji_before and _pictograph(after))
    return True


def invisible_characters(text: str) -> list[str]:
    """Code points of invisible or direction-changing characters in ``text`` (``U+200B``...)."""
    found: list[str] = []
    for i, ch in enumerate(text):
        if _hidden(text, i):
            label = f"U+{ord(ch):04X}"
            if label not in found:
                found.append(label)
    return found


def visible(text: str) -> str:
    """``text`` with every invisible or direction-changing character shown as ``⟦U+200B⟧``."""
    if not text or text.isascii():
        return text
    return "".join(f"⟦U+{ord(ch):04X}⟧" if _hidden(text, i) else ch for i, ch in enumerate(text))


def reveal(text: str) -> str:
    """The name the gates and the review engine use for ``visible``."""
    return visible(text)
