"""What marks a statement about oneself, a request, small talk or a planted instruction, per language.

Code that picks candidate memories must know, in the person's own language, whether a
sentence speaks about the speaker ("ich", "mi", "我"), asks the assistant for something,
thanks, greets, corrects an earlier fact or tries to plant an instruction. Those words live in
one YAML table per language beside this module (``de.yaml``, ``zh.yaml`` ...), so a
contributor adds or improves a language by editing data only; the keys are documented in
``README.md`` here. English keeps its tuned patterns in :mod:`curator.reflection.statements`
and has no table.

Matching is deliberately plain: a word entry matches a token that starts with it (German
"arbeit" covers "arbeite", "arbeitet"), a phrase entry matches at the start of a sentence,
and in scripts written without spaces (Chinese, Japanese) every entry matches as a substring.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import yaml

_FOLDER = Path(__file__).parent
# libyaml's safe loader where PyYAML has it: the tables load in a tenth of the time (12 ms, not
# 105), which the review pane pays on the GUI thread when it first counts a card's support.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# Vowel signs and points are no letters to ``\w`` ("मैं" read as "म"): a word goes on through them.
_MARKS = ("\u0300-\u036f\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u0900-\u0903"
          "\u093a-\u094f\u0951-\u0957\u0962\u0963\u0981-\u0983\u09bc-\u09d7\u0e31\u0e34-\u0e3a\u0e47-\u0e4e"
          "\u200c\u200d")
_WORD_RE = re.compile(rf"[^\W\d_](?:[^\W\d_]|[{_MARKS}])*(?:['’][^\W\d_]+)?", re.UNICODE)
# Letters of Persian and Urdu that Arabic does not write.
_NOT_ARABIC = frozenset("پچژگڤٹڈڑںےھکی")
# Scripts one table reads though other languages write them too.
_SHARED_SCRIPTS = {"arabic": "ar", "devanagari": "hi"}
_LIST_KEYS = ("stop", "self", "listener", "request", "greeting", "thanks", "small_talk", "joining",
              "correction", "negation", "instruction", "lasting", "passing", "dates", "pointing", "moments",
              "loose", "tail", "vital", "so", "said_as_i", "their", "please", "hedge", "unsure", "suggests",
              "because", "wishes")


@dataclass(frozen=True)
class Table:
    """One language's word lists (see ``README.md``); every entry is folded to lower case."""

    code: str
    name: str
    spaced: bool  # words are separated by spaces (False: Chinese, Japanese)
    capital_nouns: bool  # every noun is capitalised (German): a capital is no sign of a name
    lists: dict[str, tuple[str, ...]]
    # A sentence about oneself names its subject ("ich", "je"): one with no word of ``self``
    # is about something else ("Die Funktion gibt immer None zurück").
    subject_required: bool = False
    # What a memory written in this language calls a person whose chat names no one ("Die
    # Person"), in place of "the user": a capable model then words it in the chat's language.
    person: str = ""
    # Requests come at the end of the sentence ("조언 좀 해주세요."), as in Japanese, though the
    # words are spaced: the request list is matched there as well as at the start.
    asks_at_end: bool = False

    def words(self, text: str) -> list[str]:
        return [w.casefold() for w in _WORD_RE.findall(text)]

    def count(self, key: str, text: str) -> int:
        """How many entries of list ``key`` occur in ``text`` (words and phrases)."""
        entries = self.lists.get(key, ())
        if not self.spaced:
            folded = text.casefold()
            return sum(folded.count(e) for e in entries)
        words = self.words(text)
        joined = f" {' '.join(words)} "
        return (sum(1 for w in words for e in entries if _word_match(w, e))
                + sum(joined.count(f" {e[:-1]}" if e.endswith("*") else f" {e} ")
                      for e in entries if " " in e))

    def matched(self, key: str, text: str) -> set[str]:
        """The entries of list ``key`` found in ``text`` (a prefix entry without its ``*``)."""
        entries = self.lists.get(key, ())
        if not self.spaced:
            folded = text.casefold()
            return {e.rstrip("*") for e in entries if e.rstrip("*") in folded}
        words = self.words(text)
        joined = f" {' '.join(words)} "
        found = {e.rstrip("*") for e in entries if " " not in e and any(_word_match(w, e) for w in words)}
        return found | {e.rstrip("*") for e in entries if " " in e and f" {e.rstrip('*')}" in joined}

    def has(self, key: str, text: str) -> bool:
        return self.count(key, text) > 0

    def starts(self, key: str, text: str) -> bool:
        """Whether ``text`` opens with an entry of list ``key`` (a phrase, whole words)."""
        folded = " ".join(_strip_leading(text).casefold().split())
        for entry in self.lists.get(key, ()):
            if folded.startswith(entry) and (not self.spaced or len(folded) == len(entry)
                                             or not folded[len(entry)].isalnum()):
                return True
        return False

    def strip_openers(self, text: str, *, detached: bool = False) -> str:
        """``text`` without greetings, thanks and small talk before the news ("Hallo! Also, ...").

        ``detached``: only an opener set off by punctuation ("Super, danke.", "Also, ich ..."),
        for a quote of the person's words. One that is part of the clause stays: "Übrigens
        laufe ich ..." without its first word misquotes them ("Laufe ich ...").
        """
        for _ in range(4):  # "Hola, bueno, vale, ..." peels one opener a round
            stripped = _strip_leading(text)
            folded = stripped.casefold()
            for entry in self._openers:
                cut = len(entry)
                if not folded.startswith(entry):
                    continue
                if (detached and self.spaced and folded[cut:].lstrip(" ")[:1].isalnum()
                        and entry not in self.lists["loose"]):
                    rest = stripped[cut:].lstrip(" ")
                    after = self.strip_joining(rest)
                    # "Aha i żona pracuje ...": an "and" after it sets the opener off as a comma would.
                    if after == rest and self.strip_openers(after, detached=True) == after:
                        continue  # part of the clause ("Übrigens laufe ich"): a quote keeps it
                    # else a run of openers set off together ("Pues mira, ...", "Ah et sinon,
                    # ..."): all of it goes
                if len(folded) == cut or not (folded[cut].isalnum() or folded[cut] == "-") or not self.spaced:
                    text = stripped[cut:].lstrip(" ,.!;:、，。！،؛-–—")
                    break
            else:
                return stripped
        return _strip_leading(text)

    @cached_property
    def _openers(self) -> tuple[str, ...]:
        # Longest first: "对了，" ("by the way") lost only its "对" ("right") and left "了，...".
        return tuple(sorted((*self.lists["greeting"], *self.lists["small_talk"], *self.lists["thanks"],
                             *self.lists["loose"]), key=len, reverse=True))

    def strip_tail(self, text: str) -> str:
        """``text`` without a last clause of chatter after a comma ("..., c'est nul.",
        "..., que preguiça.", "..., oui."): one made only of an entry of ``tail``."""
        cut = text.rfind(",")
        if cut <= 0:
            return text
        tail = " ".join(self.words(text[cut + 1:]))
        if not tail or tail not in self.lists["tail"]:
            return text
        end = text.rstrip()[-1:]
        return text[:cut].rstrip(" ,;") + (end if end in ".!?。！？" else ".")

    def strip_joining(self, text: str) -> str:
        """``text`` without an "and" or "but" that joins it to what was said before ("Et j'ai un
        chien" -> "J'ai un chien"): dropping one changes nothing else in the clause."""
        folded = text.casefold()
        for entry in self.lists.get("joining", ()):
            if not folded.startswith(entry):
                continue
            rest = text[len(entry):]
            if self.spaced and not rest[:1].isspace() and not self._attached(entry, rest):
                continue  # "Et" of "Etienne", "e" of "era"
            rest = rest.lstrip(" ,，、")
            return rest[:1].upper() + rest[1:] if rest else text
        return text

    def _attached(self, entry: str, rest: str) -> bool:
        """Whether a one-letter "and" is written onto the next word, as Arabic writes "و": "وعندي"
        is "and I have". Only before a word the speaker speaks of themselves with: "وقت" (time)
        is a word of its own."""
        if len(entry) != 1 or not rest.strip():
            return False
        return self.has("self", rest.split(maxsplit=1)[0])


def _word_match(word: str, entry: str) -> bool:
    if " " in entry:
        return False  # phrases are matched by :meth:`Table.phrase` / :meth:`Table.starts`
    if entry.endswith("*"):
        return word.startswith(entry[:-1])
    return word == entry


def _strip_leading(text: str) -> str:
    return text.lstrip(" \t\"'“‘„«»¿¡(*-–—")


@lru_cache(maxsize=1)
def tables() -> dict[str, Table]:
    """Every language table shipped beside this module, by language code."""
    out: dict[str, Table] = {}
    for path in sorted(_FOLDER.glob("*.yaml")):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER) or {}
        lists = {k: tuple(" ".join(str(e).casefold().split()) for e in data.get(k) or ())
                 for k in _LIST_KEYS}
        out[path.stem] = Table(path.stem, str(data.get("name", path.stem)), bool(data.get("spaced", True)),
                               bool(data.get("capital_nouns", False)), lists,
                               bool(data.get("subject_required", False)), str(data.get("person") or ""),
                               bool(data.get("asks_at_end", False)))
    return out


@lru_cache(maxsize=1)
def person_labels() -> frozenset[str]:
    """The words of every table's name for an unnamed person ("die", "person", "用户"), folded:
    they frame a memory as "the user" does, and name no one the turn must hold."""
    return frozenset(w.casefold() for t in tables().values() for w in t.person.split())


def names_the_person(word: str) -> bool:
    """Whether ``word`` (folded) is a word of a table's ``person``, inflected too: Russian says
    "сестра пользователя" of "Пользователь", Polish "kot użytkownika"."""
    if len(word) < 4:
        return False  # "die", "la", "a": articles, which open a sentence as often as they name anyone
    return word in person_labels() or any(len(label) >= 9 and word.startswith(label[:-2])
                                          and len(word) <= len(label) + 3 for label in person_labels())


def without_person_labels(text: str) -> str:
    """``text`` without the unnamed person's label of a script written without spaces ("用户对海鲜
    过敏" -> " 对海鲜过敏"): there it is glued to the words after it, which the checks compare."""
    glued = _glued_labels()
    return glued.sub(" ", text) if glued is not None else text


@lru_cache(maxsize=1)
def _glued_labels() -> re.Pattern[str] | None:
    """The labels of the unspaced tables, each with the particle or "is" that follows it
    ("ユーザーは毎朝" -> " 毎朝", "用户是" -> " "); None when no such table names the person."""
    labels = [re.escape(t.person) for t in tables().values() if t.person and not t.spaced]
    return re.compile(f"(?:{'|'.join(labels)})(?:には|は|が|の|も|的|是|也)?") if labels else None


# A run of two or more Han characters or katakana: a noun-like key of a Chinese or Japanese
# sentence (its words have no spaces between them), shared by choosing and wording checks.
HAN_KANA_RUN = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]{2,}|[\u30a1-\u30fa\u30fc]{2,}")


def _script(text: str) -> str:
    counts: dict[str, int] = {}
    for ch in text:
        if not ch.isalpha():
            continue
        if "\u3040" <= ch <= "\u30ff":
            kind = "kana"
        elif "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf":
            kind = "han"
        elif "\u0400" <= ch <= "\u04ff":
            kind = "cyrillic"
        elif ord(ch) < 0x250:
            kind = "latin"
        else:
            kind = unicodedata.name(ch, "other").split()[0].lower()
        counts[kind] = counts.get(kind, 0) + 1
    return max(counts, key=lambda k: counts[k]) if counts else ""


def latin(text: str) -> bool:
    """Whether ``text`` is written mostly in Latin letters (the scripts tables tell apart by words)."""
    return _script(text) == "latin"


_ENGLISH_STOP = frozenset([
    "i", "my", "me", "the", "a", "an", "and", "is", "am", "are", "was", "were", "to", "of",
    "in", "on", "at", "it", "that", "this", "with", "for", "from", "as", "by", "be", "been",
    "he", "she", "his", "her", "him", "they", "them", "their", "there", "have", "has", "had",
    "you", "your", "we", "our", "but", "not", "so", "just", "do", "don't", "i'm", "i've",
    "what", "all", "about", "will", "can", "would", "like", "got", "very", "really", "one",
    # Spanish, Italian and Portuguese list it too: "long time no see!" is not Spanish.
    "no",
])


def detect(text: str) -> str:
    """The language of ``text``: a table's code, ``"en"``, or ``""`` when none fits.

    Script first (kana: Japanese; Han alone: Chinese; Cyrillic: Russian; Hangul: Korean; Thai; Arabic and
    Devanagari: Arabic and Hindi when their stop words are there), then, for Latin
    text, the table whose stop words occur most (English's own short list included).
    """
    script = _script(text)
    if script == "kana" or (script == "han" and any("\u3040" <= c <= "\u30ff" for c in text)):
        return "ja" if "ja" in tables() else ""
    if script == "han":
        return "zh" if "zh" in tables() else ""
    if script == "cyrillic":
        return "ru" if "ru" in tables() else ""
    if script == "hangul":
        return "ko" if "ko" in tables() else ""
    if script == "thai":
        return "th" if "th" in tables() else ""
    # Persian and Urdu share Arabic's script, Marathi and Nepali Hindi's: the table only where
    # its own words are in the text, or a sentence in them would be judged by the wrong lists.
    reader = _SHARED_SCRIPTS.get(script)
    if reader is not None:
        if reader not in tables() or (reader == "ar" and not _NOT_ARABIC.isdisjoint(text)):
            return ""
        found = {w.casefold() for w in _WORD_RE.findall(text)}
        return reader if found & set(tables()[reader].lists["stop"]) else ""
    if script != "latin":
        return ""
    words = [w.casefold() for w in _WORD_RE.findall(text)]
    if not words:
        return ""
    # A stop word of several languages ("in": English, Italian, Dutch) says less than one of a
    # single language: each counts 1/k. "Korrektur: Jana wohnt inzwischen in Zürich, nicht
    # mehr in Basel." was Italian by its two "in" against German's one "nicht".
    shared = _stop_word_languages()
    best, score = "", 0.0
    english = sum(1 / shared[w] for w in words if w in _ENGLISH_STOP)
    if english:
        best, score = "en", english
    # English has no accented letters: on a tie with English, one of them tips it
    # ("Lavoro come bibliotecaria in centro ogni martedì": "in" is both languages' stop word).
    accented = any(ord(ch) > 0x7f for w in words for ch in w)
    for code, table in tables().items():
        if not table.spaced:
            continue
        hits = sum(1 / shared[w] for w in words if w in table.lists["stop"])
        if hits > score + 1e-9 or (hits and abs(hits - score) <= 1e-9 and best == "en" and accented):
            best, score = code, hits
    return best


@lru_cache(maxsize=1)
def _stop_word_languages() -> dict[str, int]:
    """{stop word: how many languages (English and each spaced table) list it}."""
    count: dict[str, int] = dict.fromkeys(_ENGLISH_STOP, 1)
    for table in tables().values():
        if table.spaced:
            for word in set(table.lists["stop"]):
                count[word] = count.get(word, 0) + 1
    return count


def table_for(text: str) -> Table | None:
    """The table of ``text``'s language; None for English and for languages with no table."""
    return tables().get(detect(text))


def all_entries(key: str) -> Iterable[tuple[Table, str]]:
    """Every entry of list ``key`` across all tables (for language-free scans)."""
    for table in tables().values():
        for entry in table.lists.get(key, ()):
            yield table, entry
