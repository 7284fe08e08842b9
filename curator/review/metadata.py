"""The metadata every reflected document carries (seed 004 §4), worked out in code.

Keywords, a hierarchical ``primary_topic`` and ``content_types`` come from the memory's own
words, so they never say more than the memory does. ``quality`` is derived from what is
known about how trustworthy the memory is: its confidence tier (which comes from how many
turns support it), how much evidence it cites, whether it recurs, whether it was flagged,
and what the person did with it in review.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from curator.index.text import STOP_WORDS, stem, tokenize

MAX_KEYWORDS = 8

# Broad areas of a person's life, each with words that place a memory there. The first
# lexicon word found in the memory becomes the second level ("pets.collie"), so the topic
# filter can ask for "pets" or for "pets.collie".
_TOPICS: tuple[tuple[str, str], ...] = (
    ("health.diet", "vegetarian vegan allergy allergic allergies peanut peanuts gluten lactose diet food "
                    "meal meals recipe recipes eat eats eating cook cooking dinner lunch breakfast"),
    ("health.fitness", "run runs running runner race races marathon gym workout exercise yoga swim "
                       "swimming hike hiking bike cycling sport sports football basketball tennis"),
    ("health.sleep", "sleep sleeping insomnia nap tired rest"),
    ("health.medical", "doctor hospital medicine medication therapy therapist diagnosis illness sick "
                       "surgery injury pain anxiety depression"),
    ("work", "job jobs work works working career office shift shifts boss colleague colleagues "
             "promotion salary nurse engineer company interview business client clients"),
    ("education.language", "language languages portuguese spanish french german duolingo english "
                           "italian japanese chinese korean"),
    ("education", "school class classes course courses study studying learn learning degree "
                  "university college exam exams lesson lessons teacher"),
    ("family", "sister sisters brother brothers mother mom mum father dad parent parents kid kids "
               "child children son daughter family wife husband grandmother grandma grandfather"),
    ("relationships", "friend friends partner girlfriend boyfriend dating neighbour neighbor "
                      "neighbours neighbors"),
    ("pets", "dog dogs cat cats pet pets puppy kitten collie hamster bird horse"),
    ("travel", "trip trips travel travelling traveling flight flights train vacation holiday visit "
               "visiting hotel abroad"),
    ("home", "house home flat apartment move moved moving rent garden"),
    ("hobbies.arts", "paint painting paintings art artist draw drawing music guitar piano sing "
                     "singing song songs photography pottery dance dancing"),
    ("hobbies.reading", "book books read reading novel novels author library"),
    ("hobbies.games", "game games gaming videogame"),
    ("finance", "money budget save saving savings loan bank pay paid debt invest"),
    ("identity", "lgbtq transgender gender identity religion religious faith church"),
    ("events", "party wedding birthday concert festival conference anniversary"),
    ("technology", "computer software code coding programming app phone laptop"),
)

_PREFERENCE_WORDS = frozenset(
    [
        "like",
        "likes",
        "love",
        "loves",
        "prefer",
        "prefers",
        "preferred",
        "favourite",
        "favorite",
        "hate",
        "hates",
        "dislike",
        "dislikes",
        "enjoy",
        "enjoys",
        "allergic",
        "vegetarian",
        "vegan",
    ]
)
_KIND_TYPES: Mapping[str, tuple[str, ...]] = {
    "fact": ("fact",), "correction": ("fact", "correction"), "contradiction": ("fact", "contradiction"),
    "connection": ("connection",), "question": ("open_question",), "pattern": ("pattern",),
    "procedure": ("procedure",), "insight": ("insight",), "reflection": ("context",),
    "summary": ("context",),
}
_CATEGORY_TYPES: Mapping[str, str] = {"concepts": "concept", "patterns": "pattern", "facts": "fact"}


@lru_cache(maxsize=1)
def _topic_stems() -> tuple[tuple[str, dict[str, str]], ...]:
    return tuple((topic, {stem(w): w for w in words.split()}) for topic, words in _TOPICS)


def keywords(text: str, limit: int = MAX_KEYWORDS) -> list[str]:
    """The memory's most frequent content words, first-seen order breaking ties."""
    words = [w for w in tokenize(text) if w not in STOP_WORDS and len(w) > 2 and not w.isdigit()]
    counts = Counter(w.removesuffix("'s") for w in words)
    first = {w: i for i, w in reversed(list(enumerate(w.removesuffix("'s") for w in words)))}
    return sorted(counts, key=lambda w: (-counts[w], first[w]))[:limit]


def primary_topic(text: str) -> str:
    """A dotted topic such as ``pets.collie``; ``general`` when no area fits."""
    found = [stem(w) for w in tokenize(text)]
    best, best_hits, best_word = "", 0, ""
    for topic, lexicon in _topic_stems():
        hits = [s for s in found if s in lexicon]
        if len(hits) > best_hits:
            best, best_hits, best_word = topic, len(hits), lexicon[hits[0]]
    return f"{best}.{best_word}" if best else "general"


def content_types(kind: str, category: str, text: str) -> list[str]:
    """What the document holds: its kind's types, plus ``preference`` when it states one."""
    types = list(_KIND_TYPES.get(kind, (kind,) if kind else ("fact",)))
    extra = _CATEGORY_TYPES.get(category.lower())
    if extra and extra not in types:
        types.append(extra)
    if _PREFERENCE_WORDS & set(tokenize(text)) and "preference" not in types:
        types.append("preference")
    return types


# Seed 004's ``user_purpose`` is the turn's purpose as its pipeline's first phase wrote it; a
# turn folder's metadata.json carries it and reflection copies it. A chat has no such phase, so
# code states what the memory is for, by kind, with its topic.
_PURPOSES: Mapping[str, str] = {
    "fact": "remember what the person said about themselves",
    "correction": "keep a remembered fact up to date",
    "contradiction": "settle two memories that disagree",
    "connection": "link two memories",
    "question": "keep a question the person left open",
    "pattern": "remember a habit or routine of the person",
    "procedure": "remember how something is done",
    "insight": "keep what a reflection learned",
    "reflection": "recall where a conversation stood",
    "summary": "recall where a conversation stood",
}
_DATED = frozenset({"today", "tomorrow", "tonight", "yesterday", "week", "weekend", "month", "year", "next",
                    "last", "soon", "until"})


def user_purpose(kind: str, topic: str) -> str:
    """What a memory of ``kind`` about ``topic`` is for, in words."""
    purpose = _PURPOSES.get(kind, "remember what was said")
    return f"{purpose} ({topic})" if topic and topic != "general" else purpose


def data_requirements(kind: str, types: list[str], text: str) -> list[str]:
    """Seed 004's data-need flags, for a memory: what a reader of it must bear in mind."""
    words = set(tokenize(text))
    flags = []
    if "preference" in types:
        flags.append("user_preference")
    if kind in ("fact", "correction", "pattern", "contradiction"):
        flags.append("personal_fact")
    if words & _DATED or any(w.isdigit() and len(w) == 4 for w in words):
        flags.append("time_sensitive")  # a date or "next week": it may not hold for long
    if kind in ("reflection", "summary"):
        flags.append("conversation_context")
    return flags


def _number(value: Any, default: float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def quality(meta: Mapping[str, Any]) -> float:
    """0..1 from the memory's evidence, flags and review history (higher is more trusted)."""
    score = _number(meta.get("confidence"), 0.5)
    cited = meta.get("source_turns") or []
    score += 0.03 * min(max(len(cited) - 1, 0), 3) if isinstance(cited, list) else 0.0
    if meta.get("recurring"):
        score += 0.05
    if meta.get("flags"):
        score -= 0.1 if meta.get("flags_accepted") else 0.2
    if meta.get("origin") == "agent":
        score -= 0.1
    action = str(meta.get("reviewer_action") or "")
    if action == "edited":  # a person wrote these words
        score += 0.15
    elif action:
        score += 0.1
    return round(min(max(score, 0.05), 0.99), 2)


def describe(meta: dict[str, Any], title: str, body: str) -> None:
    """Fill in the seed 004 §4 fields of a reflected document's frontmatter (in place).

    Fields the producer already set are kept: a cycle or a person may know better.
    """
    text = f"{title}\n{body}"
    kind = str(meta.get("kind") or "")
    if not meta.get("keywords"):
        meta["keywords"] = keywords(text)
    if not meta.get("primary_topic"):
        meta["primary_topic"] = primary_topic(text)
    if not meta.get("content_types"):
        meta["content_types"] = content_types(kind, str(meta.get("category") or ""), text)
    if not meta.get("user_purpose"):
        meta["user_purpose"] = user_purpose(kind, str(meta.get("primary_topic") or ""))
    if not meta.get("data_requirements"):
        types = meta["content_types"] if isinstance(meta.get("content_types"), list) else []
        meta["data_requirements"] = data_requirements(kind, [str(t) for t in types], text)
    meta["quality"] = quality(meta)
