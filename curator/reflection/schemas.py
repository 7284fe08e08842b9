"""Output schemas of the reflection jobs and strict parsers for what a model returns.

The batch schema has seed 000 §4's field names and only those (``existing_file``, ``file_a``,
``file_b``); their value is a document id, resolved by the gates, never a path.

Model output is untrusted input. The parsers never raise on bad content: the whole output is
either parsed (possibly with items dropped or cleaned, each with a reason) or refused with a
:class:`SchemaError` that says why. C0/C1 control characters are removed (with a note);
invisible *format* characters (zero-width, bidi, tags) are kept on purpose so that
:mod:`curator.reflection.gates.untrusted` can flag them for the person.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from curator.index.text import elide

# ---- Limits (generous: the caps in gates.py are far lower; these only stop abuse)

MAX_RAW_CHARS = 200_000
MAX_ARRAY = 50
MAX_TURN_REFS = 50
MAX_TEXT = 4000
MAX_TITLE = 200
MAX_REF = 300

FACT_CATEGORIES = ("Facts", "Concepts", "Patterns")
CONFIDENCE_HINTS = ("higher", "lower", "same")
MICRO_SUBJECTS = ("author", "bot", "lore")
MICRO_TYPES = ("preference", "profile", "relationship", "project", "other")

# ---- JSON Schemas (also given to the model runtime for grammar-constrained decoding)

_TURNS = {"type": "array", "items": {"type": "integer"}, "maxItems": MAX_TURN_REFS}
_REFS = {"type": "array", "items": {"type": "string"}, "maxItems": 10}

BATCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["new_facts", "corrections", "connections", "open_questions"],
    "properties": {
        "new_facts": {
            "type": "array",
            "maxItems": MAX_ARRAY,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["title", "content", "related_existing", "category"],
                "properties": {
                    "evidence": {"type": "array", "maxItems": MAX_TURN_REFS, "items": {
                        "type": "object", "required": ["turn", "quote"],
                        "properties": {"turn": {"type": "integer"}, "quote": {"type": "string"}}}},
                    "quote": {"type": "string"},
                    "title": {"type": "string"},
                    "content": {"type": "string"},
                    "source_turns": _TURNS,
                    "related_existing": _REFS,
                    "category": {"type": "string", "enum": list(FACT_CATEGORIES)},
                },
            },
        },
        "corrections": {
            "type": "array",
            "maxItems": MAX_ARRAY,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["existing_file", "what_changed", "source_turns", "new_confidence_hint"],
                "properties": {
                    "existing_file": {"type": "string"},
                    "what_changed": {"type": "string"},
                    "source_turns": _TURNS,
                    "new_confidence_hint": {"type": "string", "enum": list(CONFIDENCE_HINTS)},
                },
            },
        },
        "connections": {
            "type": "array",
            "maxItems": MAX_ARRAY,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["file_a", "file_b", "relationship", "source_turns"],
                "properties": {
                    "file_a": {"type": "string"},
                    "file_b": {"type": "string"},
                    "relationship": {"type": "string"},
                    "source_turns": _TURNS,
                },
            },
        },
        "open_questions": {
            "type": "array",
            "maxItems": MAX_ARRAY,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["question", "source_turns", "why_unresolved"],
                "properties": {
                    "question": {"type": "string"},
                    "source_turns": _TURNS,
                    "why_unresolved": {"type": "string"},
                },
            },
        },
    },
}

MICRO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["facts"],
    "properties": {
        "facts": {
            "type": "array",
            "maxItems": MAX_ARRAY,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["subject", "subjectName", "fact", "type", "confidence", "evidence", "supersedes"],
                "properties": {
                    "subject": {"type": "string", "enum": list(MICRO_SUBJECTS)},
                    "subjectName": {"type": "string"},
                    "fact": {"type": "string"},
                    "type": {"type": "string", "enum": list(MICRO_TYPES)},
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    "evidence": {"type": "string"},
                    "supersedes": {"type": "string"},
                },
            },
        }
    },
}

CONTRADICTION_CHECK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["contradicts", "reason"],
    "properties": {"contradicts": {"type": "boolean"}, "reason": {"type": "string"}},
}

# ---- Typed results


class SchemaError(ValueError):
    """The output as a whole cannot be used (not JSON, not an object, too large)."""


@dataclass
class ItemRejection:
    """An item dropped while parsing, with a short rendering of it and the reason."""

    section: str
    item: str
    reason: str
    gate: str = "schema"  # what dropped it: the parser, or a check of the model's wording


@dataclass
class NewFact:
    title: str
    content: str
    source_turns: list[int]
    related_existing: list[str]
    category: str
    notes: list[str] = field(default_factory=list)
    evidence: list[tuple[int, str]] = field(default_factory=list)  # (turn, verbatim quote)


@dataclass
class Correction:
    existing_file: str
    what_changed: str
    source_turns: list[int]
    new_confidence_hint: str
    notes: list[str] = field(default_factory=list)


@dataclass
class Connection:
    file_a: str
    file_b: str
    relationship: str
    source_turns: list[int]
    notes: list[str] = field(default_factory=list)


@dataclass
class OpenQuestion:
    question: str
    source_turns: list[int]
    why_unresolved: str
    notes: list[str] = field(default_factory=list)


@dataclass
class BatchOutput:
    """The four sections of a batch reflection, after parsing."""

    new_facts: list[NewFact] = field(default_factory=list)
    corrections: list[Correction] = field(default_factory=list)
    connections: list[Connection] = field(default_factory=list)
    open_questions: list[OpenQuestion] = field(default_factory=list)
    rejected: list[ItemRejection] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def item_count(self) -> int:
        return len(self.new_facts) + len(self.corrections) + len(self.connections) + len(self.open_questions)


@dataclass
class MicroFact:
    subject: str
    subject_name: str
    fact: str
    type: str
    confidence: float
    evidence: str
    supersedes: str
    notes: list[str] = field(default_factory=list)
    earlier: str = ""  # the quote of a fact this one corrects in the same chat: cited too
    title: str = ""  # code's title of the statement it was found in ("" : made from ``fact``)


@dataclass
class MicroOutput:
    facts: list[MicroFact] = field(default_factory=list)
    rejected: list[ItemRejection] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# ---- Cleaning helpers

_FENCE_RE = re.compile(r"^```(?:json|JSON)?\s*\n(.*)\n```\s*$", re.DOTALL)


def _is_control(ch: str) -> bool:
    # Cc = C0/C1 controls. Newline and tab are ordinary text.
    return ch not in "\n\t" and unicodedata.category(ch) == "Cc"


def clean_text(value: str) -> tuple[str, list[str]]:
    """Remove control characters and surrounding space; returns (text, notes)."""
    notes: list[str] = []
    if any(_is_control(ch) for ch in value):
        removed = sorted({f"U+{ord(ch):04X}" for ch in value if _is_control(ch)})
        value = "".join(ch for ch in value if not _is_control(ch))
        notes.append(f"removed control characters {', '.join(removed)}")
    return value.strip(), notes


def short(value: Any, limit: int = 80) -> str:
    """A one-line rendering of a value for rejection logs."""
    try:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)[:1000]
    except (TypeError, ValueError):
        text = repr(value)[:1000]
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def load_json_object(raw: str) -> dict[str, Any]:
    """Parse a model's raw reply into a JSON object, or raise :class:`SchemaError`."""
    if not isinstance(raw, str):
        raise SchemaError(f"reply is {type(raw).__name__}, not text")
    if len(raw) > MAX_RAW_CHARS:
        raise SchemaError(f"reply is {len(raw)} characters, more than {MAX_RAW_CHARS}")
    text = raw.strip()
    fenced = _FENCE_RE.match(text)
    if fenced:  # small models wrap JSON in a fence even when asked not to
        text = fenced.group(1).strip()
    if not text:
        raise SchemaError("reply is empty")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise SchemaError(f"reply is not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise SchemaError(f"reply is a JSON {type(data).__name__}, not an object")
    return data


class _ItemError(ValueError):
    pass


class _Reader:
    """Reads one item dict field by field, collecting cleaning notes; raises on hard errors."""

    def __init__(self, item: Any, allowed: tuple[str, ...]) -> None:
        if not isinstance(item, dict):
            raise _ItemError(f"item is a {type(item).__name__}, not an object")
        self.item = item
        self.notes: list[str] = []
        extra = sorted(str(k) for k in item if k not in allowed)
        if extra:
            self.notes.append(f"ignored unknown keys: {', '.join(short(k, 30) for k in extra[:5])}")

    def text(self, key: str, *, required: bool = True, limit: int = MAX_TEXT) -> str:
        value = self.item.get(key, None)
        if value is None:
            if required:
                raise _ItemError(f"missing {key!r}")
            return ""
        if not isinstance(value, str):
            raise _ItemError(f"{key!r} is a {type(value).__name__}, not a string")
        value, notes = clean_text(value)
        self.notes.extend(f"{key}: {n}" for n in notes)
        if required and not value:
            raise _ItemError(f"{key!r} is empty")
        if len(value) > limit:
            raise _ItemError(f"{key!r} is {len(value)} characters, more than {limit}")
        return value

    def turns(self, key: str = "source_turns") -> list[int]:
        value = self.item.get(key, None)
        if not isinstance(value, list):
            raise _ItemError(f"{key!r} is not a list of turn numbers")
        if len(value) > MAX_TURN_REFS:
            raise _ItemError(f"{key!r} cites {len(value)} turns, more than {MAX_TURN_REFS}")
        out: list[int] = []
        for entry in value:
            # bool is an int in Python; a model saying `true` is not citing turn 1
            if isinstance(entry, bool) or not isinstance(entry, (int, float)):
                raise _ItemError(f"{key!r} holds {short(entry, 20)}, not a turn number")
            if isinstance(entry, float) and not entry.is_integer():
                raise _ItemError(f"{key!r} holds {entry}, not a whole turn number")
            number = int(entry)
            if number not in out:
                out.append(number)
        if not out:
            raise _ItemError(f"{key!r} is empty: an item must cite its turns")
        return out

    def evidence(self, key: str = "evidence") -> list[tuple[int, str]]:
        """(turn, quote) pairs; a pair that is not one is an error, an empty list too."""
        value = self.item.get(key)
        if not isinstance(value, list) or not value:
            raise _ItemError(f"{key!r} is not a list of turn and quote pairs")
        if len(value) > MAX_TURN_REFS:
            raise _ItemError(f"{key!r} cites {len(value)} quotes, more than {MAX_TURN_REFS}")
        out: list[tuple[int, str]] = []
        for entry in value:
            turn = entry.get("turn") if isinstance(entry, dict) else None
            quote = entry.get("quote") if isinstance(entry, dict) else None
            if isinstance(turn, bool) or not isinstance(turn, int) or not isinstance(quote, str):
                raise _ItemError(f"{key!r} holds {short(entry, 30)}, not a turn and a quote")
            cleaned, _ = clean_text(quote)
            if not cleaned:
                raise _ItemError(f"{key!r} has an empty quote")
            if (turn, cleaned) not in out:
                out.append((turn, cleaned))
        return out

    def refs(self, key: str) -> list[str]:
        value = self.item.get(key, [])
        if value is None:
            return []
        if not isinstance(value, list):
            raise _ItemError(f"{key!r} is not a list")
        if len(value) > 10:
            raise _ItemError(f"{key!r} has {len(value)} entries, more than 10")
        out = []
        for entry in value:
            if not isinstance(entry, str):
                raise _ItemError(f"{key!r} holds {short(entry, 20)}, not a string")
            cleaned, _ = clean_text(entry)
            if len(cleaned) > MAX_REF:
                raise _ItemError(f"{key!r} entry is longer than {MAX_REF} characters")
            if cleaned:
                out.append(cleaned)
        return out

    def choice(self, key: str, choices: tuple[str, ...], default: str) -> str:
        value = self.item.get(key, None)
        if isinstance(value, str):
            for choice in choices:
                if value.strip().lower() == choice.lower():
                    return choice
        self.notes.append(f"{key}: {short(value, 30)} is not one of {'|'.join(choices)}; used {default!r}")
        return default


def _section(data: dict[str, Any], key: str, notes: list[str]) -> list[Any]:
    value = data.get(key, [])
    if value is None:
        return []
    if not isinstance(value, list):
        notes.append(f"{key!r} is a {type(value).__name__}, not a list; ignored")
        return []
    if len(value) > MAX_ARRAY:
        notes.append(f"{key!r} had {len(value)} items; only the first {MAX_ARRAY} were read")
        return value[:MAX_ARRAY]
    return value


def parse_batch_output(raw: str) -> BatchOutput:
    """Parse a batch reflector reply; raises :class:`SchemaError` only when nothing is usable."""
    data = load_json_object(raw)
    out = BatchOutput()
    known = ("new_facts", "corrections", "connections", "open_questions")
    extra = sorted(str(k) for k in data if k not in known)
    if extra:
        out.notes.append(f"ignored unknown top-level keys: {', '.join(short(k, 30) for k in extra[:5])}")
    if not any(k in data for k in known):
        raise SchemaError("reply has none of new_facts, corrections, connections, open_questions")

    for item in _section(data, "new_facts", out.notes):
        try:
            r = _Reader(item, ("evidence", "quote", "title", "content", "source_turns", "related_existing", "category"))
            content = r.text("content")
            title = r.text("title", required=False, limit=MAX_TITLE) or elide(content, 60)
            evidence = r.evidence() if "evidence" in item else []
            if not evidence and isinstance(item.get("quote"), str):
                evidence = [(n, item["quote"]) for n in r.turns()[:1]]
            turns = list(dict.fromkeys(n for n, _q in evidence)) if evidence else r.turns()
            out.new_facts.append(
                NewFact(title, content, turns, r.refs("related_existing"),
                        r.choice("category", FACT_CATEGORIES, "Facts"), r.notes, evidence)
            )
        except _ItemError as exc:
            out.rejected.append(ItemRejection("new_facts", short(item), str(exc)))
    for item in _section(data, "corrections", out.notes):
        try:
            r = _Reader(item, ("existing_file", "what_changed", "source_turns", "new_confidence_hint"))
            out.corrections.append(
                Correction(
                    r.text("existing_file", limit=MAX_REF),
                    r.text("what_changed"),
                    r.turns(),
                    r.choice("new_confidence_hint", CONFIDENCE_HINTS, "same"),
                    r.notes,
                )
            )
        except _ItemError as exc:
            out.rejected.append(ItemRejection("corrections", short(item), str(exc)))
    for item in _section(data, "connections", out.notes):
        try:
            r = _Reader(item, ("file_a", "file_b", "relationship", "source_turns"))
            out.connections.append(
                Connection(r.text("file_a", limit=MAX_REF), r.text("file_b", limit=MAX_REF),
                           r.text("relationship"), r.turns(), r.notes)
            )
        except _ItemError as exc:
            out.rejected.append(ItemRejection("connections", short(item), str(exc)))
    for item in _section(data, "open_questions", out.notes):
        try:
            r = _Reader(item, ("quote", "question", "source_turns", "why_unresolved"))
            out.open_questions.append(
                OpenQuestion(r.text("question"), r.turns(), r.text("why_unresolved", required=False), r.notes)
            )
        except _ItemError as exc:
            out.rejected.append(ItemRejection("open_questions", short(item), str(exc)))
    return out


def parse_micro_output(raw: str) -> MicroOutput:
    """Parse a micro-reflection reply; raises :class:`SchemaError` only when nothing is usable."""
    data = load_json_object(raw)
    out = MicroOutput()
    extra = sorted(str(k) for k in data if k != "facts")
    if extra:
        out.notes.append(f"ignored unknown top-level keys: {', '.join(short(k, 30) for k in extra[:5])}")
    if "facts" not in data:
        raise SchemaError("reply has no 'facts'")
    for item in _section(data, "facts", out.notes):
        try:
            r = _Reader(item, ("subject", "subjectName", "fact", "type", "confidence", "evidence", "supersedes"))
            subject = r.item.get("subject")
            if not isinstance(subject, str) or subject.strip().lower() not in MICRO_SUBJECTS:
                raise _ItemError(f"'subject' is {short(subject, 20)}, not author|bot|lore")
            confidence = r.item.get("confidence", 0.5)
            if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
                raise _ItemError(f"'confidence' is {short(confidence, 20)}, not a number")
            if not 0.0 <= float(confidence) <= 1.0:
                r.notes.append(f"confidence {confidence} clamped to 0..1")
            out.facts.append(
                MicroFact(
                    subject=subject.strip().lower(),
                    subject_name=r.text("subjectName", required=False, limit=MAX_TITLE),
                    fact=r.text("fact"),
                    type=r.choice("type", MICRO_TYPES, "other"),
                    confidence=min(1.0, max(0.0, float(confidence))),
                    evidence=r.text("evidence", required=False),
                    supersedes=r.text("supersedes", required=False),
                    notes=r.notes,
                )
            )
        except _ItemError as exc:
            out.rejected.append(ItemRejection("facts", short(item), str(exc)))
    return out


def parse_contradiction_check(raw: str) -> tuple[bool, str]:
    """Parse the optional model confirmation of a contradiction; raises :class:`SchemaError`."""
    data = load_json_object(raw)
    verdict = data.get("contradicts")
    if verdict is None and isinstance(data.get("verdict"), str):
        # The bundled prompt answers with a verdict word; only "contradict" confirms.
        word = data["verdict"].strip().lower()
        if word not in ("contradict", "compatible", "unrelated"):
            raise SchemaError(f"unknown verdict {word[:20]!r}")
        verdict = word == "contradict"
    if not isinstance(verdict, bool):
        raise SchemaError("neither 'verdict' nor 'contradicts' says whether the statements conflict")
    reason = data.get("reason", "")
    reason_text, _ = clean_text(reason if isinstance(reason, str) else "")
    return verdict, reason_text[:500]
