"""Gold observations, and how staged memories are scored against them.

The reflection-quality suite compares what reflection stages with a gold list of
observations, each tied to the message that supports it (LoCoMo's
``session_N_observation``, or ``resources/demo/gold.json``). Everything here is pure: the
suite feeds it turns, gold and candidates, and reads back the scores.

The made-up check is written apart from the product's gates on purpose: a benchmark that
reused the gate's code would call every gate bug "grounded".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from curator.index.text import STOP_WORDS, content_words, stem, stems, tokenize

MATCH_SHARE = 0.5  # share of an observation's content words a staged item must hold

_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+")
_NUMBER_RE = re.compile(r"\d+(?:[.,:]\d+)*")
_CAPITAL_RE = re.compile(r"\b[A-Z][\w'’-]*")
_OPENING_RE = re.compile(r"(?:^|[.!?]\s+)([A-Z][\w'’-]*)")
_FIRST_PERSON_RE = re.compile(r"\b(?:I|I'm|I’m|I've|I’ve|I'd|I'll|[Mm]y|[Mm]e|[Mm]yself|[Mm]ine)\b")
# Words that start a sentence in a capital without naming anything.
_PLAIN_CAPITALS = STOP_WORDS | frozenset(
    [
        "i",
        "she",
        "he",
        "they",
        "we",
        "it",
        "this",
        "that",
        "these",
        "those",
        "her",
        "his",
        "their",
        "our",
        "there",
        "here",
        "a",
        "an",
        "the",
    ]
)


@dataclass(frozen=True)
class Observation:
    """One gold fact and the message ids that support it."""

    speaker: str
    text: str
    evidence: tuple[str, ...]
    session: str = ""


@dataclass(frozen=True)
class SourceMessage:
    """A message of the conversation as the judge sees it."""

    msg_id: str
    speaker: str
    text: str
    session: str = ""


@dataclass(frozen=True)
class Candidate:
    """A staged memory (or a baseline's), with the message ids it cites."""

    text: str
    cited: tuple[str, ...]


@dataclass
class Score:
    """How one method did on one set of conversations."""

    observations: int = 0
    observations_matched: int = 0
    items: int = 0
    items_matched: int = 0
    items_made_up: int = 0
    made_up_examples: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.observations_matched / self.observations if self.observations else 0.0

    @property
    def precision(self) -> float:
        return self.items_matched / self.items if self.items else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def made_up_rate(self) -> float:
        return self.items_made_up / self.items if self.items else 0.0

    def add(self, other: Score) -> None:
        self.observations += other.observations
        self.observations_matched += other.observations_matched
        self.items += other.items
        self.items_matched += other.items_matched
        self.items_made_up += other.items_made_up
        self.made_up_examples += other.made_up_examples

    def to_dict(self) -> dict[str, float | int]:
        return {"observations": self.observations, "observations_matched": self.observations_matched,
                "items": self.items, "items_matched": self.items_matched, "items_made_up": self.items_made_up,
                "recall": round(self.recall, 4), "precision": round(self.precision, 4),
                "f1": round(self.f1, 4), "made_up_rate": round(self.made_up_rate, 4)}


def word_stems(text: str) -> frozenset[str]:
    """Stemmed content words, the unit of every overlap measured here."""
    return frozenset(stems(content_words(text)))


def matches(observation: Observation, candidate: Candidate) -> bool:
    """The candidate cites the observation's message and holds half of its content words."""
    if not set(observation.evidence) & set(candidate.cited):
        return False
    wanted = word_stems(observation.text)
    if not wanted:
        return False
    return len(wanted & word_stems(candidate.text)) / len(wanted) >= MATCH_SHARE


def specific_words(text: str) -> list[str]:
    """The names, numbers and dates of ``text``: the words a made-up memory gets wrong.

    A capitalised word counts wherever it stands (a made-up name at the start of a
    sentence is as made up as one in the middle); plain words that only start a sentence
    ("The", "She") do not.
    """
    found = [m.group(0) for m in _NUMBER_RE.finditer(text)]
    for match in _CAPITAL_RE.finditer(text):
        word = re.sub(r"['’]s$", "", match.group(0)).strip("'’-")
        if word and word.lower() not in _PLAIN_CAPITALS:
            found.append(word)
    return found


def made_up_words(candidate: Candidate, messages: Mapping[str, SourceMessage]) -> list[str]:
    """Specific words of the candidate that none of its cited messages holds."""
    cited = [messages[m] for m in candidate.cited if m in messages]
    if not cited:
        return specific_words(candidate.text) or ["<cites no message of the conversation>"]
    haystack = " ".join(f"{m.speaker} {m.text}" for m in cited)
    words = {_bare(w) for w in tokenize(haystack)}
    numbers = set(_NUMBER_RE.findall(haystack))
    # A word that opens a sentence is capitalised for that alone: "Loves all dances", the
    # title of "Jon loves all dances", retells the turn's "I love"; it is no name when the
    # turn holds the same word (its stem), as a name made up there would not.
    openers = {m.group(1) for m in _OPENING_RE.finditer(candidate.text)}
    said = {stem(w) for w in words}
    missing = []
    for word in specific_words(candidate.text):
        if _NUMBER_RE.fullmatch(word):
            if word not in numbers:
                missing.append(word)
        elif not {_bare(w) for w in tokenize(word)} <= words and not (word in openers and stem(word) in said):
            missing.append(word)
    return missing


def _bare(word: str) -> str:
    """A token without its possessive ending ("painting's" and "painting" are one word)."""
    return word[:-2] if word.endswith("'s") else word


def score(observations: Sequence[Observation], candidates: Sequence[Candidate],
          messages: Mapping[str, SourceMessage]) -> Score:
    """Recall, precision and made-up count of ``candidates`` against ``observations``."""
    out = Score(observations=len(observations), items=len(candidates))
    out.observations_matched = sum(1 for o in observations if any(matches(o, c) for c in candidates))
    for candidate in candidates:
        if any(matches(o, candidate) for o in observations):
            out.items_matched += 1
        missing = made_up_words(candidate, messages)
        if missing:
            out.items_made_up += 1
            if len(out.made_up_examples) < 20:
                out.made_up_examples.append(f"{candidate.text[:160]} [absent: {', '.join(missing[:5])}]")
    return out


def third_person(sentence: str, name: str) -> str:
    """A first-person sentence told about ``name`` ("I'm a nurse" -> "Maya is a nurse")."""
    rules = (
        (r"\bI(?:'m|’m| am)\b", f"{name} is"),
        (r"\bI(?:'ve|’ve)\b", f"{name} has"),
        (r"\bI(?:'d|’d)\b", f"{name} would"),
        (r"\bI(?:'ll|’ll)\b", f"{name} will"),
        (r"\bI have\b", f"{name} has"),
        (r"\bI\b", name),
        (r"\b[Mm]y\b", f"{name}'s"),
        (r"\b[Mm]ine\b", f"{name}'s"),
        (r"\b[Mm]yself\b", name),
        (r"\bme\b", name),
    )
    for pattern, replacement in rules:
        sentence = re.sub(pattern, replacement, sentence)
    return sentence


def first_person_baseline(messages: Iterable[SourceMessage], speakers: set[str]) -> list[Candidate]:
    """The code-only baseline: every first-person statement of the given speakers, retold
    with the speaker's name and citing its own message."""
    out: list[Candidate] = []
    for message in messages:
        if message.speaker not in speakers:
            continue
        for sentence in _SENTENCE_RE.split(message.text.strip()):
            sentence = sentence.strip()
            if not sentence or sentence.endswith("?") or not _FIRST_PERSON_RE.search(sentence):
                continue
            out.append(Candidate(third_person(sentence, message.speaker), (message.msg_id,)))
    return out
