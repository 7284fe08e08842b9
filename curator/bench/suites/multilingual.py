"""The multilingual part of reflection quality: chats in many languages and client shapes.

Twenty chats of our own (``curator/bench/data/multilingual.yaml``), each saved the way a real
client saves it (``curator.bench.client_shapes``), none naming the person, in eighteen languages;
most are a few turns, two are long and chatty (a Spanish Jan thread of 39 turns that corrects
itself, a lower-case English ChatGPT export of 26). Each is imported through the adapter the
person's files would go through and reflected with the model under test.

Per chat: a gold fact counts as proposed when a plain (unflagged) staged item cites its turn
and quotes its fragment; precision is the share of plain items that do; an item is made up
when a name, number or date in it is in none of its cited turns; a planted instruction is
caught when an item citing it is flagged and none citing it is plain. The code-only baseline
is every candidate statement code finds, with no model and no gates.
"""

from __future__ import annotations

import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from curator.bench import reflect_glue
from curator.bench.client_shapes import WRITERS
from curator.bench.observations import Candidate, Score, SourceMessage, made_up_words
from curator.reflection.languages import tables

USER = "default"
WINDOW = 10
DATA = Path(__file__).resolve().parents[1] / "data" / "multilingual.yaml"


@dataclass
class Chat:
    """One chat of the set: its turns, and which carry gold, a correction or a planted instruction."""

    ident: str
    language: str
    shape: str
    turns: list[tuple[str, str]]
    gold: dict[int, list[str]]  # turn index -> fragments
    planted: set[int]


@dataclass
class ChatResult:
    chat: Chat
    pipeline: Score = field(default_factory=Score)
    baseline: Score = field(default_factory=Score)
    planted: int = 0
    planted_caught: int = 0
    seconds: float = 0.0
    staged: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def load_chats(path: Path = DATA) -> list[Chat]:
    chats: list[Chat] = []
    for entry in yaml.safe_load(path.read_text(encoding="utf-8"))["conversations"]:
        turns: list[tuple[str, str]] = []
        gold: dict[int, list[str]] = {}
        planted: set[int] = set()
        for i, row in enumerate(entry["turns"]):
            turns.append((str(row[0]), str(row[1])))
            marks = row[2] if len(row) > 2 else {}
            if marks.get("gold"):
                gold[i] = [str(g) for g in marks["gold"]]
            if marks.get("planted"):
                planted.add(i)
        chats.append(Chat(str(entry["id"]), str(entry["language"]), str(entry["shape"]), turns, gold, planted))
    return chats


def _quotes(text: str, fragment: str) -> bool:
    return " ".join(fragment.casefold().split()) in " ".join(text.casefold().split())


def score_items(chat: Chat, items: list[tuple[str, tuple[int, ...]]], index_of: dict[int, int],
                messages: dict[str, SourceMessage]) -> Score:
    """Score plain items ``(text, cited turn numbers)`` against the chat's gold fragments."""
    out = Score(observations=sum(len(f) for f in chat.gold.values()))
    found: set[tuple[int, str]] = set()
    for text, cited in items:
        places = {index_of[n] for n in cited if n in index_of}
        hits = {(i, f) for i in places for f in chat.gold.get(i, []) if _quotes(text, f)}
        out.items += 1
        out.items_matched += 1 if hits else 0
        found |= hits
        wrong = made_up_words(Candidate(text, tuple(str(n) for n in cited)), messages)
        if wrong:
            out.items_made_up += 1
            out.made_up_examples.append(f"{text} (unsupported: {', '.join(wrong[:3])})")
    out.observations_matched = len(found)
    return out


def reflect_chat(chat: Chat, runtime: Any, work: Path, writer: str = "") -> ChatResult:
    """Write, import and reflect one chat; score what it staged and what code alone finds."""
    from curator.engine import Engine
    from curator.reflection.statements import statements

    shutil.rmtree(work, ignore_errors=True)
    source = work / "source"
    WRITERS[chat.shape](source, chat.ident, chat.turns)
    result = ChatResult(chat, planted=len(chat.planted))
    engine = Engine(work / "vault")
    try:
        if writer:
            engine.settings.set("reflection.writer", writer)
        engine.import_path(source)
        turns = engine.index.turns(USER)
        index_of: dict[int, int] = {}
        for turn in turns:
            for i, (role, text) in enumerate(chat.turns):
                if i not in index_of.values() and role == turn.role and text.strip() == turn.text.strip():
                    index_of[turn.number] = i
                    break
        # The person is "the user", and in a memory of their language what its table calls them
        # ("Die Person", "用户"): the made-up check takes either as their name, as it takes a
        # LoCoMo speaker's.
        label = tables()[chat.language].person if chat.language in tables() else ""
        person = f"the user {label}".strip()
        messages = {str(t.number): SourceMessage(str(t.number), t.speaker if t.role != "user" else person,
                                                 t.text, t.conversation) for t in turns}
        found = [s for s in statements(turns) if not s.instruction]
        result.baseline = score_items(chat, [(s.memory, (s.turn.number,)) for s in found], index_of, messages)
        service = reflect_glue.open_service(engine, None, runtime)
        started = time.perf_counter()
        try:
            numbers = [t.number for t in turns]
            for first in range(0, len(numbers), WINDOW):
                window = numbers[first:first + WINDOW]
                batch = reflect_glue.run_batch(service, USER, window[0] - 1, window[-1])
                if getattr(batch, "error", None):
                    result.errors.append(f"batch: {batch.error}")
            for conversation in sorted({t.conversation for t in turns}):
                micro = reflect_glue.run_micro(service, USER, conversation, numbers)
                if micro.get("error"):
                    result.errors.append(f"micro: {micro['error']}")
            items = reflect_glue.staged_items(service, USER)
        finally:
            service.close()
        result.seconds = time.perf_counter() - started
    finally:
        engine.close()
    # "Correction: ..." labels the kind in the queue; it is no claim to judge (as in the LoCoMo scoring).
    plain = [(f"{re.sub(r'^(?:Correction|Contradiction): ', '', str(i['title']))}. {i['text']}",
              tuple(i["source_turns"])) for i in items if not i["flagged"]]
    result.pipeline = score_items(chat, plain, index_of, messages)
    result.staged = items
    for planted in chat.planted:
        cites = {n for n, i in index_of.items() if i == planted}
        flagged = any(i["flagged"] and cites & set(i["source_turns"]) for i in items)
        leaked = any(not i["flagged"] and cites & set(i["source_turns"]) for i in items)
        result.planted_caught += 1 if flagged and not leaked else 0
    return result
