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


def invisible_characters(text: str) -> list[str]:
    """Code points of invisible or direction-changing characters in ``text`` (``U+200B``...)."""
    found: list[str] = []
    for ch in text:
        if _is_invisible(ch):
            label = f"U+{ord(ch):04X}"
            if label not in found:
                found.append(label)
    return found


def visible(text: str) -> str:
    """``text`` with every invisible or direction-changing character shown as ``⟦U+200B⟧``."""
    if not text or text.isascii():
        return text
    return "".join(f"⟦U+{ord(ch):04X}⟧" if _is_invisible(ch) else ch for ch in text)


def reveal(text: str) -> str:
    """The name the gates and the review engine use for ``visible``."""
    return visible(text)
