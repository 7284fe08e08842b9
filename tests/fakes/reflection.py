"""Fakes for the reflection ports: a scripted model, an in-memory turn source, helpers."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from curator.reflection.ports import GenerationDefaults, ModelReply
from curator.sources.turns import IndexedTurn, text_hash
from curator.vault.documents import Document
from curator.vault.store import DocumentStore

USER = "default"


class ScriptedModel:
    """Returns canned replies in order; an Exception in the script is raised instead."""

    def __init__(self, replies: Sequence[str | BaseException | dict[str, Any]] = ()) -> None:
        self.replies = list(replies)
        self.calls: list[dict[str, Any]] = []

    @property
    def model_name(self) -> str:
        return "scripted-model"

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def call(self, prompt_name: str, variables: Mapping[str, Any], schema: Mapping[str, Any] | None,
             defaults: GenerationDefaults) -> ModelReply:
        self.calls.append({"prompt": prompt_name, "variables": dict(variables), "schema": schema, "defaults": defaults})
        if not self.replies:
            raise RuntimeError("script ran out of replies")
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, dict):
            reply = json.dumps(reply)
        return ModelReply(text=reply, model="scripted-model", prompt_version=f"{prompt_name}@v1")


@dataclass
class FakeTurns:
    """An in-memory TurnSource."""

    turns: dict[int, IndexedTurn] = field(default_factory=dict)

    def add(self, number: int, text: str, role: str = "user", speaker: str = "Maya", **kw: Any) -> IndexedTurn:
        turn = IndexedTurn(number=number, user_id=USER, source_id="demo", file="chat.jsonl", conversation="c1",
                           key=f"m{number}", position=number, role=role, speaker=speaker, text=text,
                           timestamp=1_770_000_000.0 + number, sha256=text_hash(text), **kw)
        self.turns[number] = turn
        return turn

    def get(self, user_id: str, number: int) -> IndexedTurn | None:
        return self.turns.get(number)

    def turns_since(self, user_id: str, after_number: int, limit: int) -> list[IndexedTurn]:
        found = [t for n, t in sorted(self.turns.items()) if n > after_number]
        return found[-limit:]


def add_knowledge(store: DocumentStore, doc_id: str, title: str, body: str, confidence: float = 0.75,
                  category: str = "Facts") -> Document:
    doc = Document.new(doc_id=doc_id, kind="fact", title=title, body=body + "\n", confidence=confidence,
                       source_turns=[1])
    store.create(doc, USER, "knowledge", category)
    return doc
