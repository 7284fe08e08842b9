"""A turn: one message from a source, normalised with its provenance (DESIGN.md §2)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

ROLES = ("user", "assistant", "system", "tool")


def text_hash(text: str) -> str:
    """sha256 of a message's text, the identity of its content."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def normalise_role(value: Any) -> str:
    """Map the many spellings clients use onto user / assistant / system / tool."""
    role = str(value or "").strip().lower()
    if role in {"user", "human", "you", "me"}:
        return "user"
    if role in {"assistant", "ai", "bot", "model", "char", "character", "gpt"}:
        return "assistant"
    if role in {"system", "developer"}:
        return "system"
    if role in {"tool", "function", "ipython"}:
        return "tool"
    return ""


@dataclass(frozen=True)
class Turn:
    """One message as parsed from a source, before the index gives it a turn number.

    ``key`` identifies the message inside its source file across re-reads: the client's
    message id when it has one, else its position. ``sha256`` identifies its content, so an
    edit is seen as the same key with a new hash.
    """

    source_id: str
    file: str
    conversation: str
    key: str
    position: int
    role: str
    speaker: str
    text: str
    timestamp: float
    context: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def sha256(self) -> str:
        return text_hash(self.text)


@dataclass(frozen=True)
class IndexedTurn:
    """A turn as stored in the index, with its per-user number (seed 004 §8)."""

    number: int
    user_id: str
    source_id: str
    file: str
    conversation: str
    key: str
    position: int
    role: str
    speaker: str
    text: str
    timestamp: float
    sha256: str
    status: str = "active"  # active | edited | removed
    context: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
