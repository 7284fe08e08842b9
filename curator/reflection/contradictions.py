"""Contradiction detection in code: same subject, different claim.

Two statements are about the same subject when their content words overlap strongly once
the "slots" that can differ are set aside: numbers, dates (years, month and day names),
names and places (capitalised words; a capitalised word after *in / at / from / to / near*
counts as a place). They disagree when one is negated and the other is not, or when both
fill the same kind of slot with different values. A proposed fact that contradicts a
Knowledge fact is staged as a ``contradiction`` linking both, never as a new fact.

An optional model check (:class:`ModelConfirmer`) may veto a detection; its failure never
blocks the code's verdict.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from curator.index.text import STOP_WORDS, stem
from curator.reflection.ports import GenerationDefaults, KnowledgeDoc, ModelCancelled, ModelClient
from curator.reflection.schemas import (
    CONTRADICTION_CHECK_SCHEMA,
    SchemaError,
    parse_contradiction_check,
)

log = logging.getLogger(__name__)

SAME_SUBJECT = 0.6  # overlap of non-slot content stems (over the smaller set)
SAME_SUBJECT_NEGATION = 0.75  # negation alone is a weaker signal: ask for more overlap
MIN_SHARED = 2

_TOKEN_RE = re.compile(r"\d+(?:[.,:]\d+)*|[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)
_NEGATIONS = frozenset(
    [
        "not",
        "no",
        "never",
        "none",
        "nobody",
        "nothing",
        "neither",
        "nor",
        "cannot",
        "can't",
        "don't",
        "doesn't",
        "didn't",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "won't",
        "wouldn't",
        "hasn't",
        "haven't",
        "hadn't",
        "shouldn't",
        "couldn't",
        "mustn't",
        "any_more",
        "anymore",
        "longer",
    ]
)
_MONTHS = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ]
)
_PLACE_PREPS = frozenset(["in", "at", "from", "to", "near", "into", "inside", "around", "outside"])


@dataclass(frozen=True)
class Slots:
    """The parts of a statement that can differ while the subject stays the same."""

    core: frozenset[str]
    numbers: frozenset[str]
    dates: frozenset[str]
    names: frozenset[str]
    places: frozenset[str]
    negated: bool


def slots(text: str) -> Slots:
    """Split ``text`` into its core content stems and its slot values."""
    core: set[str] = set()
    numbers: set[str] = set()
    dates: set[str] = set()
    names: set[str] = set()
    places: set[str] = set()
    negated = False
    previous = ""
    for match in _TOKEN_RE.finditer(text):
        word = match.group(0).replace("’", "'")
        lower = word.lower()
        before = text[: match.start()].rstrip(" \t\"'“‘(")
        sentence_start = not before or before[-1] in ".!?:;\n"
        if lower in _NEGATIONS or lower.endswith("n't"):
            negated = True
        elif word[0].isdigit():
            if len(word) == 4 and word.isdigit() and word[:2] in {"19", "20"}:
                dates.add(word)
            else:
                numbers.add(word.replace(",", ""))
        elif lower in _MONTHS and (word[0].isupper() or lower not in {"may", "march"}):
            dates.add(lower[:3])
        elif word[0].isupper() and not sentence_start and lower not in STOP_WORDS:
            (places if previous in _PLACE_PREPS else names).add(lower)
        elif lower not in STOP_WORDS and len(lower) > 1:
            core.add(stem(lower))
        previous = lower
    return Slots(frozenset(core), frozenset(numbers), frozenset(dates), frozenset(names), frozenset(places), negated)


@dataclass(frozen=True)
class Conflict:
    """A detected contradiction between a proposed text and an existing document."""

    existing: KnowledgeDoc
    kinds: tuple[str, ...]  # negation | number | date | name | place
    details: tuple[str, ...]
    overlap: float
    confirmed_by_model: bool | None = None
    model_reason: str = ""

    def reason(self) -> str:
        return f"disagrees with {self.existing.doc_id} ({'; '.join(self.details)})"

    def to_dict(self) -> dict[str, object]:
        return {
            "kinds": list(self.kinds),
            "details": list(self.details),
            "overlap": round(self.overlap, 3),
            "confirmed_by_model": self.confirmed_by_model,
            "model_reason": self.model_reason,
        }


def _differs(a: frozenset[str], b: frozenset[str]) -> bool:
    # Both sides name a value and each has one the other lacks: "Porto" vs "Braga". One side
    # adding detail ("a cat" -> "a cat named Tom") is not a disagreement.
    return bool(a) and bool(b) and bool(a - b) and bool(b - a)


def compare(proposed: str, existing: str) -> tuple[tuple[str, ...], tuple[str, ...], float] | None:
    """(kinds, details, overlap) when ``proposed`` contradicts ``existing``; else None."""
    p, e = slots(proposed), slots(existing)
    # A capitalised word that opens a sentence ("Maya ...") lands in the core; sharing only the
    # person's name never makes two statements one subject ("Maya goes to Lisbon" / "Maya used
    # to run races"), so capitalised words do not count towards the overlap.
    proper = {stem(w.lower()) for w in re.findall(r"\b[A-Z][a-z]+\b", f"{proposed} {existing}")}
    p_core, e_core = p.core - proper, e.core - proper
    shared = p_core & e_core
    smaller = min(len(p_core), len(e_core))
    if smaller == 0 or len(shared) < min(MIN_SHARED, smaller):
        return None
    overlap = len(shared) / smaller
    kinds: list[str] = []
    details: list[str] = []
    for kind, a, b in (("number", p.numbers, e.numbers), ("date", p.dates, e.dates),
                       ("name", p.names, e.names), ("place", p.places, e.places)):
        if _differs(a, b):
            kinds.append(kind)
            details.append(f"{kind}: {', '.join(sorted(b - a))} -> {', '.join(sorted(a - b))}")
    # A place named without a preposition on one side ("lives in Porto" / "Porto is home")
    # shows up as place vs name; treat the union as one slot.
    if not kinds and _differs(p.places | p.names, e.places | e.names) and (p.places or e.places):
        kinds.append("place")
        details.append(f"place: {', '.join(sorted((e.places | e.names) - (p.places | p.names)))} -> "
                       f"{', '.join(sorted((p.places | p.names) - (e.places | e.names)))}")
    if kinds and overlap >= SAME_SUBJECT:
        return tuple(kinds), tuple(details), overlap
    if p.negated != e.negated and overlap >= SAME_SUBJECT_NEGATION:
        side = "proposed" if p.negated else "existing"
        return ("negation",), (f"negation: the {side} statement is negated",), overlap
    return None


class ModelConfirmer:
    """Optional second opinion from the model on a detected contradiction (prompt
    ``contradiction_check``). The code's detection stands when the model fails."""

    def __init__(self, model: ModelClient) -> None:
        self.model = model

    def confirm(self, proposed: str, existing: str, subject: str = "") -> tuple[bool | None, str]:
        """(verdict or None when unavailable, reason)."""
        try:
            reply = self.model.call(
                "contradiction_check", {"subject": subject, "existing": existing, "proposed": proposed},
                CONTRADICTION_CHECK_SCHEMA, GenerationDefaults(temperature=0.0, max_tokens=120),
            )
            return parse_contradiction_check(reply.text)
        except ModelCancelled:
            raise
        except (SchemaError, Exception) as exc:  # model output and runtime are both untrusted
            log.info("contradiction check unavailable: %s", exc)
            return None, f"model check unavailable: {exc}"


@dataclass
class ContradictionDetector:
    """Finds the Knowledge fact a proposed text contradicts, if any."""

    confirmer: ModelConfirmer | None = None
    checked: list[str] = field(default_factory=list)

    def find(self, proposed: str, candidates: Sequence[KnowledgeDoc]) -> Conflict | None:
        """The first candidate ``proposed`` contradicts (best overlap first)."""
        found: list[Conflict] = []
        for candidate in candidates:
            result = compare(proposed, f"{candidate.text}")
            if result is not None:
                kinds, details, overlap = result
                found.append(Conflict(candidate, kinds, details, overlap))
        found.sort(key=lambda c: -c.overlap)
        for conflict in found:
            if self.confirmer is None:
                return conflict
            verdict, reason = self.confirmer.confirm(proposed, conflict.existing.text, conflict.existing.title)
            if verdict is False:
                continue  # the model disagrees: treat as not contradicting
            return Conflict(conflict.existing, conflict.kinds, conflict.details, conflict.overlap, verdict, reason)
        return None
