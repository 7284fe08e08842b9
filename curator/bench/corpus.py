"""Corpora for the scale suites, generated from real turns when there are any.

A large corpus is made by re-combining the LoCoMo turns (a turn's text, sometimes with a
sentence of another turn appended) into conversations of a few hundred turns, so the
vocabulary and lengths stay those of real chat. Without LoCoMo data a small built-in word
list stands in, which is enough for timings (not for quality).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from curator.bench.locomo import LocomoConversation

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
TURNS_PER_CONVERSATION = 300

_WORDS = [
    "garden",
    "hiking",
    "pottery",
    "violin",
    "adoption",
    "camping",
    "marathon",
    "painting",
    "museum",
    "concert",
    "kids",
    "dog",
    "cat",
    "guitar",
    "novel",
    "recipe",
    "bakery",
    "job",
    "interview",
    "promotion",
    "school",
    "teacher",
    "nurse",
    "engineer",
    "beach",
    "mountain",
    "lake",
    "city",
    "trip",
    "flight",
    "train",
    "car",
    "accident",
    "birthday",
    "wedding",
    "friend",
    "sister",
    "brother",
    "mother",
    "father",
    "grandmother",
    "support",
    "group",
    "counseling",
    "volunteer",
    "shelter",
    "charity",
    "race",
    "photo",
    "sunset",
    "coffee",
    "tea",
    "book",
    "library",
    "movie",
    "series",
    "game",
    "football",
    "tennis",
    "yoga",
    "meditation",
    "project",
    "deadline",
    "meeting",
    "client",
    "startup",
    "bakery",
    "sculpture",
    "workshop",
    "class",
    "lesson",
    "exam",
]


def text_pool(conversations: Sequence[LocomoConversation]) -> list[tuple[str, str]]:
    """(speaker, text) of every turn, or generated sentences when there is no data."""
    pool = [(t.speaker, t.text) for c in conversations for t in c.turns]
    if pool:
        return pool
    rng = random.Random(7)
    speakers = ("Alex", "Sam")
    out = []
    for i in range(3000):
        words = [rng.choice(_WORDS) for _ in range(rng.randint(6, 30))]
        out.append((speakers[i % 2], "I " + " ".join(words) + "."))
    return out


def synthetic_lines(pool: Sequence[tuple[str, str]], count: int, seed: int = 1, prefix: str = "synth") -> list[str]:
    """``count`` generic-JSONL lines re-combined from ``pool``, in conversations of 300 turns."""
    rng = random.Random(seed)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    lines = []
    for i in range(count):
        speaker, text = pool[rng.randrange(len(pool))]
        if rng.random() < 0.5:
            other = _SENTENCE.split(pool[rng.randrange(len(pool))][1])
            text = f"{text} {rng.choice(other)}"
        conv = i // TURNS_PER_CONVERSATION
        lines.append(json.dumps({
            "id": f"{prefix}-{i}",
            "conversation": f"{prefix}-c{conv}",
            "role": "user" if i % 2 == 0 else "assistant",
            "speaker": speaker,
            "content": text,
            "timestamp": (start + timedelta(seconds=20 * i)).isoformat().replace("+00:00", "Z"),
        }, ensure_ascii=False))
    return lines


def write_corpus(folder: Path, pool: Sequence[tuple[str, str]], count: int, files: int, seed: int = 1) -> list[Path]:
    """Write ``count`` turns into ``files`` JSONL files (whole conversations per file)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = synthetic_lines(pool, count, seed)
    per_file = max(TURNS_PER_CONVERSATION, -(-count // max(files, 1)))
    per_file -= per_file % TURNS_PER_CONVERSATION or 0
    per_file = max(per_file, TURNS_PER_CONVERSATION)
    paths = []
    for n, begin in enumerate(range(0, count, per_file)):
        path = folder / f"corpus-{n:03d}.jsonl"
        path.write_text("\n".join(lines[begin:begin + per_file]) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def corpus_texts(paths: Sequence[Path]) -> list[str]:
    """The message texts of generated corpus files, in order (for the BM25 baseline)."""
    texts: list[str] = []
    for path in paths:
        with path.open(encoding="utf-8") as handle:
            texts.extend(json.loads(line)["content"] for line in handle if line.strip())
    return texts
