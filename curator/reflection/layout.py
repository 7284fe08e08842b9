"""How a turn's text is laid out: paragraphs, list items and pasted letters.

A chat message is not always prose. People list what matters ("Te dejo lo importante:\n-
soy celíaca\n- trabajo de 9 a 6 ..."), and they paste letters they want corrected ("Sehr
geehrter Herr Wagner,\nhiermit teile ich Ihnen mit, dass die Heizung ... nicht mehr
funktioniert."). Flattened into one run of text, the list was one long sentence that gave
no memory, and the letter's "nicht mehr" was proposed as a correction of where the person
lives. Here each list item and paragraph is a stretch of its own, and a letter is not the
person talking to the assistant.
"""

from __future__ import annotations

import re

# "- soy celíaca", "* I work nights", "• 2 cats", "1. vegetarian", "2) no oven": an item of a list.
# A role-play emote ("*smiles*") has no space after its star.
_LIST_ITEM = re.compile(r"^\s*(?:[-*•·–]|\d{1,2}[.)])\s+")

# The opening line of a letter or formal message, in the languages with tables: a salutation
# and a name or title, ending in a comma, a colon or an exclamation mark, alone on its line.
_SALUTATION = re.compile(
    r"^\s*(?:dear|to whom it may concern|sehr geehrte[rs]?|liebe[rs]?\s+(?:frau|herr)|estimad[oa]s?|"
    r"querid[oa]s?|cher|chère|chers|madame|monsieur|gentile|gentili|egregi[oa]|spettabile|prezad[oa]s?|"
    r"geachte|szanown[yaie]|уважаем(?:ый|ая|ые)|sayın|拝啓|尊敬的|敬爱的)\b[^\n]{0,60}[,:!]\s*$",
    re.IGNORECASE)
# Its closing line: the formula before the signature.
_CLOSING = re.compile(
    r"^\s*(?:(?:best|kind|warm|warmest)?\s*regards|sincerely|yours\s+(?:truly|sincerely|faithfully)|"
    r"mit\s+freundlichen\s+grüßen|freundliche\s+grüße|viele\s+grüße|beste\s+grüße|cordialement|"
    r"bien\s+à\s+vous|atentamente|un\s+saludo|saludos(?:\s+cordiales)?|cordiali\s+saluti|distinti\s+saluti|"
    r"atenciosamente|met\s+vriendelijke\s+groet(?:en)?|z\s+poważaniem|с\s+уважением|saygılarımla|敬具|此致)"
    r"\b[^\n]{0,40}$",
    re.IGNORECASE)
SIGNATURE_WORDS = 3  # a name line after the closing formula belongs to the letter


def without_letters(text: str) -> str:
    """``text`` without the letters pasted into it, from the salutation line to the closing
    formula and the name under it (or to the end, where none closes it)."""
    if "\n" not in text:
        return text
    lines = text.split("\n")
    kept: list[str] = []
    inside = signature = False
    for line in lines:
        if signature:
            signature = False
            if 0 < len(line.split()) <= SIGNATURE_WORDS:
                continue
        if not inside and _SALUTATION.match(line):
            inside = True
            continue
        if inside:
            if _CLOSING.match(line):
                inside, signature = False, True
            continue
        kept.append(line)
    return "\n".join(kept)


def blocks(text: str) -> list[str]:
    """The paragraphs and list items of ``text``, in order, each read on its own.

    A blank line ends a paragraph, and a list item starts a block of its own (without its
    bullet or number, so its words open a sentence); other lines continue the block before.
    """
    if "\n" not in text:
        return [text] if text.strip() else []
    out: list[str] = []
    current: list[str] = []
    for line in text.split("\n"):
        item = _LIST_ITEM.match(line)
        if item is not None or not line.strip():
            if current:
                out.append("\n".join(current))
            current = [line[item.end():]] if item is not None else []
            continue
        current.append(line)
    if current:
        out.append("\n".join(current))
    return [block for block in out if block.strip()]
