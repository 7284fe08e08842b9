"""Per-call narrowing of a prompt's output schema to what the model was actually shown.

The prompt file's ``output_schema`` stays the base contract. For one call, a reflector
knows more: which turn numbers it showed, which sentences those turns contain, which
existing ids it listed. A :class:`Narrowing` carries that knowledge to the model client,
which applies it to the prompt's schema before building the grammar
(``RuntimeModelClient.call``). Generation then cannot cite a turn that was not shown,
quote a sentence that is not there or name an id that was not listed.

This changes how we *ask*, never what passes: the reflectors parse and gate the output
exactly as before (turn existence, keyword support, evidence-in-excerpt, ids checked
against the vault, untrusted flags). A model that writes a made-up fact after copying a
real sentence is still rejected by the keyword gate.

Only sentences a *person* wrote are offered as quotes (the assistant's words are not
evidence of a lasting fact about the person), and a sentence that reads like an instruction
to an assistant is never offered: it is conversation, not a memory.

Transport: the reflector puts the narrowing into the call's variables under
:data:`NARROWING_KEY`. Prompt rendering only reads placeholders, so clients that do not know
about narrowing (scripted test models) ignore it.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from curator.reflection.gates.untrusted import instruction_reasons, invisible_characters

NARROWING_KEY = "_narrowing"
QUOTE_MAX = 240
MIN_QUOTE_WORDS = 3
MAX_QUOTES_PER_TURN = 6

# A sentence ends at . ! ? … followed by space and anything but a lower-case letter (any
# script: "¿", "Я", "Ö" start sentences too), or at 。！？ with or without space.
# A CJK stop needs no space after it; the quote mark that closes a quotation around it ('said:
# "我2020年入行的。"') is part of its sentence.
# A smiley after a space ends a sentence as a full stop does ("Teşekkürler :) Ayrıca ..."): the
# thanks before it and the news after it are two sentences.
# Scripts with stops of their own end sentences there too: the Arabic question mark, the
# Devanagari dandas, the Urdu full stop and the Greek question mark (often typed as ";" after a
# Greek letter). Thai writes no stops: a space between two Thai phrases ends one.
_SENTENCE_END_RE = re.compile(r"[.!?…]+[\"'”’»)]*\s+|[。！？]+[」』”’)）\"'»]*\s*|(?<=\s)[:;]-?[)(DP]\s+|"
                              r"[؟।॥۔\u037e]+[\"'”’»)]*\s*|(?<=[\u0370-\u03ff]);[\"'”’»)]*\s+|"
                              r"(?<=[\u0e00-\u0e7f])\s+(?=[\u0e00-\u0e7f])")


_ABBREVIATION_RE = re.compile(r"(?:^|\s)(?:St|Dr|Mr|Mrs|Ms|Mt|Jr|Sr|Prof|vs|etc|e\.g|i\.e|[A-Z])\.$")
# Chats are often typed in lower case ("it's going ok! my knees hurt a bit though. oh and I
# have type 1 diabetes"): a lower-case letter still starts a sentence after "!" or "?", and
# after a full stop (not an ellipsis) that ends a plain word of three letters or more that no
# abbreviation is.
_LOWER_START_AFTER = re.compile(r"(?:^|\s)[\"'“‘«(]?[^\W\d_]{3,}[\"'”’»)]*(?:\.|[!?]+)[\"'”’»)]*\s+$|"
                                r"[!?]+[\"'”’»)]*\s+$")
_SHORTENED = frozenset(["approx", "incl", "excl", "etc", "min", "max", "esp", "dept", "est", "misc", "appt",
                        "tel", "vol", "bzw", "usw", "ggf", "inkl", "evtl", "vgl", "ca", "aprox", "pág"])
# Two-letter words that end sentences; no abbreviation is one of them. Besides English, the "yes"
# (ja, si, da) and the particles (ya, na, oh, ah, eh, ha) chats in other languages end a sentence
# on ("lama banget ya. aku kerja ...").
_SHORT_WORDS = frozenset(["it", "me", "us", "up", "so", "go", "do", "ok", "on", "in", "to", "at", "be", "by",
                          "my", "we", "he", "of", "or", "is", "am",
                          "ya", "ja", "si", "da", "na", "oh", "ah", "eh", "ha"])
_SHORT_WORD_END = re.compile(r"(?:^|\s)([A-Za-z]{2})\.[\"'”’»)]*\s+$")
# "am 15. Januar": a German ordinal before a month is no sentence end.
_ORDINAL_DATE = re.compile(r"\b\d{1,2}\.\s+(?:jan|feb|mär|apr|mai|jun|jul|aug|sep|okt|nov|dez)", re.IGNORECASE)


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` as they are written (whitespace collapsed), in order.

    "St. Clair" or "J. Smith" does not end a sentence.
    """
    flat = " ".join(str(text or "").split())
    out: list[str] = []
    for piece in _split_at_ends(flat):
        piece = piece.strip()
        if not piece:
            continue
        if out and _ABBREVIATION_RE.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def _split_at_ends(flat: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END_RE.finditer(flat):
        end = match.end()
        following = flat[end:end + 1]
        if not following or (following.islower() and match.group(0).strip()[-1:] not in "。！？」』"
                             and not _lower_case_start(flat[start:end])):
            continue
        if _ORDINAL_DATE.search(flat, max(match.start() - 2, 0), end + 3):
            continue
        pieces.append(flat[start:end])
        start = end
    pieces.append(flat[start:])
    return pieces


def _lower_case_start(before: str) -> bool:
    """Whether a sentence may begin in lower case after ``before`` (which ends at a stop)."""
    short = _SHORT_WORD_END.search(before)
    if short is not None and short.group(1).casefold() in _SHORT_WORDS:
        return True  # "yeah love it. my girlfriend got me into it"
    found = _LOWER_START_AFTER.search(before)
    if found is None:
        return False
    word = found.group(0).strip().rstrip("\"'”’»)").rstrip(".!?").casefold()
    return word not in _SHORTENED


# llama-cpp-python's JSON-schema converter writes an ``enum`` value into the grammar without
# escaping a double quote, and the grammar then fails to build (any turn quoting a title did
# this, and stopped that person's batches for good). Offered quotes use typographic quotes
# instead; the gates compare quotes with quote style folded (chain.normalise) and
# :func:`restore_quote` gives back the person's own characters.
_OPEN_QUOTE = re.compile(r'(^|[\s(\[{])"')


def grammar_safe(text: str) -> str:
    """``text`` fit for a grammar literal: straight double quotes typographic, controls as spaces."""
    text = "".join(" " if (ord(c) < 32 or ord(c) == 127) else c for c in text)
    return _OPEN_QUOTE.sub(lambda m: f"{m.group(1)}“", text).replace('"', "”")


def restore_quote(quote: str, source: str) -> str:
    """The words of ``source`` that an offered (grammar-safe) ``quote`` stands for."""
    flat = " ".join(str(source or "").split())
    safe = grammar_safe(flat)
    at = safe.find(quote)
    return flat[at:at + len(quote)] if at >= 0 and len(safe) == len(flat) else quote


def quote_options(text: str, limit: int = QUOTE_MAX) -> list[str]:
    """Sentences of ``text`` a fact could be quoted from.

    Each option is a verbatim substring of the whitespace-collapsed text (cut at ``limit``
    characters), has at least :data:`MIN_QUOTE_WORDS` words and reads like conversation,
    not like an instruction to an assistant or a carrier of invisible characters.
    """
    out: list[str] = []
    parts = sentences(text)
    whole = " ".join(str(text or "").split())
    if len(parts) > 1 and len(whole) <= limit and len(whole.split()) >= MIN_QUOTE_WORDS \
            and not instruction_reasons(whole) and not invisible_characters(whole):
        out.append(grammar_safe(whole))  # a short turn whole: "He walks Pixel" needs the sentence before it
    for sentence in parts:
        quote = grammar_safe(sentence[:limit].strip())
        if len(quote.split()) < MIN_QUOTE_WORDS:
            continue
        if instruction_reasons(quote) or invisible_characters(quote):
            continue
        if quote not in out:
            out.append(quote)
        if len(out) >= MAX_QUOTES_PER_TURN:
            break
    return out


def _object_items(schema: Mapping[str, Any], section: str) -> dict[str, Any] | None:
    """The item schema of array property ``section`` of an object schema, or None."""
    prop = schema.get("properties", {}).get(section)
    if not isinstance(prop, dict) or not isinstance(prop.get("items"), dict):
        return None
    return prop


def _reorder(properties: Mapping[str, Any], first: Sequence[str]) -> dict[str, Any]:
    """``properties`` with the names in ``first`` moved to the front, in that order."""
    out = {name: properties[name] for name in first if name in properties}
    out.update({k: v for k, v in properties.items() if k not in out})
    return out


@dataclass(frozen=True)
class BatchNarrowing:
    """What a batch call showed: quotable sentences per turn number, and the listed ids.

    Applied to the ``batch_reflector`` schema: every item of ``new_facts`` and
    ``open_questions`` becomes "one of: a quote from turn N, then ``source_turns`` = [N]"
    (so the turn a fact cites is the turn its words were copied from); ids in
    ``related_existing``, ``existing_file``, ``file_a`` and ``file_b`` may only be listed ids,
    and sections that need an id are empty when none was listed.
    """

    quotes: Mapping[int, Sequence[str]]
    existing_ids: Sequence[str] = ()
    quote_key: str = "quote"
    evidence: Mapping[int, Sequence[str]] = field(default_factory=dict)  # every role's turns

    def apply(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        out = copy.deepcopy(dict(schema))
        turns = {n: list(q) for n, q in self.quotes.items() if q}
        ids = [i for i in dict.fromkeys(self.existing_ids) if i]
        for section, text_key in (("new_facts", "content"), ("open_questions", "question")):
            prop = _object_items(out, section)
            if prop is None:
                continue
            if not turns:
                prop["maxItems"] = 0
                continue
            item = prop["items"]
            props = dict(item.get("properties", {}))
            if "evidence" in props:
                prop["items"] = _evidence_item(self.evidence or self.quotes, item, props, ids)
                continue
            if "source_turns" not in props or text_key not in props:
                continue
            if "related_existing" in props:
                props["related_existing"] = _id_list(props["related_existing"], ids)
            alternatives = []
            for number, quotes in sorted(turns.items()):
                alt_props = dict(props)
                alt_props[self.quote_key] = {"type": "string", "enum": list(quotes)}
                alt_props["source_turns"] = {"type": "array", "minItems": 1, "maxItems": 1,
                                             "items": {"type": "integer", "enum": [number]}}
                alt_props = _reorder(alt_props, [self.quote_key, "source_turns", text_key])
                required = [k for k in alt_props if k in set(item.get("required", [])) | {self.quote_key}]
                alternatives.append({"type": "object", "additionalProperties": False,
                                     "required": required, "properties": alt_props})
            prop["items"] = alternatives[0] if len(alternatives) == 1 else {"anyOf": alternatives}
        for section, keys in (
            ("corrections", ("existing_file",)),
            ("connections", ("file_a", "file_b")),
        ):
            prop = _object_items(out, section)
            if prop is None:
                continue
            if not ids or (section == "connections" and len(ids) < 2) or not turns:
                prop["maxItems"] = 0
                continue
            props = prop["items"].get("properties", {})
            for key in keys:
                if key in props:
                    props[key] = {"type": "string", "enum": [grammar_safe(i) for i in ids]}
            if "source_turns" in props:
                props["source_turns"] = _turn_list(props["source_turns"], sorted(turns))
        return out


@dataclass(frozen=True)
class MicroNarrowing:
    """What a micro-reflection call showed: quotable sentences, author names, known facts.

    Applied to the ``micro_reflection`` schema: ``evidence`` comes first and is one of the
    quotable sentences; ``subjectName`` is one of the authors (or empty); ``supersedes`` is
    one of the known facts' texts (or empty).
    """

    quotes: Sequence[str]
    authors: Sequence[str] = ()
    known_facts: Sequence[str] = ()
    first: Sequence[str] = field(default=("evidence", "subject", "subjectName", "fact"))

    def apply(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        out = copy.deepcopy(dict(schema))
        prop = _object_items(out, "facts")
        if prop is None:
            return out
        quotes = list(dict.fromkeys(grammar_safe(q) for q in self.quotes if q))
        if not quotes:
            prop["maxItems"] = 0
            return out
        item = prop["items"]
        props = dict(item.get("properties", {}))
        if "evidence" in props:
            props["evidence"] = {"type": "string", "enum": quotes}
        if "subjectName" in props:
            props["subjectName"] = {
                "type": "string",
                "enum": [*dict.fromkeys(grammar_safe(a) for a in self.authors if a), ""],
            }
        if "supersedes" in props:
            known = [k for k in dict.fromkeys(grammar_safe(f) for f in self.known_facts) if k and len(k) <= 300]
            props["supersedes"] = {"type": "string", "enum": ["", *known]}
        item["properties"] = _reorder(props, list(self.first))
        if "required" in item:
            item["required"] = [k for k in item["properties"] if k in set(item["required"])]
        return out


@dataclass(frozen=True)
class ChoiceNarrowing:
    """What a choosing call listed: statements numbered 1..``count``; ``number`` is one of them,
    and at most ``most`` are chosen."""

    count: int
    most: int = 2

    def apply(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        out = copy.deepcopy(dict(schema))
        prop = _object_items(out, "keep")
        if prop is None:
            return out
        if self.count < 1:
            prop["maxItems"] = 0
            return out
        props = prop["items"].get("properties", {})
        if "number" in props:
            props["number"] = {"type": "integer", "enum": list(range(1, self.count + 1))}
        prop["maxItems"] = min(int(prop.get("maxItems", self.count)), self.count, max(1, self.most))
        # Code offered only statements it ranked as lasting: a small model asked "any?" answers
        # "none" every time, and given room for eight it stops at one. So it picks at least half
        # of what it may (the person still decides on each).
        prop["minItems"] = min(prop["maxItems"], max(1, self.most // 2))
        return out


def _evidence_item(evidence: Mapping[int, Sequence[str]], item: Mapping[str, Any], props: dict[str, Any],
                   ids: Sequence[str]) -> dict[str, Any]:
    """``evidence`` as 1-3 (turn, quote) pairs, each quote one of that turn's sentences."""
    turns = {n: list(q) for n, q in evidence.items() if q}
    pairs = [{"type": "object", "additionalProperties": False, "required": ["turn", "quote"],
              "properties": {"turn": {"type": "integer", "enum": [number]},
                             "quote": {"type": "string", "enum": quotes}}}
             for number, quotes in sorted(turns.items())]
    base = dict(props["evidence"])
    base["items"] = pairs[0] if len(pairs) == 1 else {"anyOf": pairs}
    props["evidence"] = base
    if "related_existing" in props:
        props["related_existing"] = _id_list(props["related_existing"], ids)
    out = dict(item)
    out["properties"] = _reorder(props, ["evidence"])
    return out


def _id_list(base: Mapping[str, Any], ids: Sequence[str]) -> dict[str, Any]:
    narrowed = dict(base)
    if not ids:
        narrowed["maxItems"] = 0
        narrowed["items"] = {"type": "string", "maxLength": 0}
    else:
        narrowed["items"] = {"type": "string", "enum": list(ids)}
    return narrowed


def _turn_list(base: Mapping[str, Any], numbers: Sequence[int]) -> dict[str, Any]:
    narrowed = dict(base)
    narrowed["items"] = {"type": "integer", "enum": list(numbers)}
    narrowed["maxItems"] = min(int(base.get("maxItems", len(numbers))), max(1, len(numbers)))
    return narrowed


def batch_narrowing(turns: Iterable[Any], existing_ids: Sequence[str]) -> BatchNarrowing:
    """Quotable sentences of the person's turns (role ``user``), by turn number."""
    quotes: dict[int, list[str]] = {}
    evidence: dict[int, list[str]] = {}
    for turn in turns:
        role = getattr(turn, "role", "")
        if role not in ("user", "assistant") or not isinstance(getattr(turn, "text", None), str):
            continue
        options = quote_options(turn.text)
        if options:
            # An assistant's words may support a fact the person confirmed (seed 000: several
            # turns, either side); only the person's own sentences stand alone as questions.
            evidence[int(turn.number)] = options
            if role == "user":
                quotes[int(turn.number)] = options
    return BatchNarrowing(quotes, tuple(existing_ids), evidence=evidence)


def narrow(schema: Mapping[str, Any] | None, variables: Mapping[str, Any]) -> dict[str, Any] | None:
    """``schema`` specialised by the call's narrowing (a copy), or ``schema`` itself."""
    if schema is None:
        return None
    narrowing = variables.get(NARROWING_KEY)
    if narrowing is None or not hasattr(narrowing, "apply"):
        return dict(schema)
    return narrowing.apply(schema)
