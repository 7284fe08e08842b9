"""A turn: one message from a source, normalised with its provenance (DESIGN.md §2)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

ROLES = ("user", "assistant", "system", "tool")

# Keys of ``Turn.extra`` that adapters fill from the client's own fields. They live in
# ``extra`` (stored as JSON in the index and the ledger) so no table changes shape.
EXTRA_TITLE = "title"  # the conversation's title in the client
EXTRA_MESSAGE_ID = "message_id"  # the client's id for the message, when it has one
EXTRA_TIME_UNKNOWN = "time_unknown"  # true: the client gave no readable time (see below)
EXTRA_FORMAT = "format"  # which client format the turn was read from, e.g. "sillytavern"


class _Provenance:
    """Read-only views of the provenance keys in ``extra`` (shared by both turn classes)."""

    extra: dict[str, Any]
    timestamp: float

    @property
    def title(self) -> str:
        return str(self.extra.get(EXTRA_TITLE) or "")

    @property
    def message_id(self) -> str:
        return str(self.extra.get(EXTRA_MESSAGE_ID) or "")

    @property
    def time_known(self) -> bool:
        """False when the client wrote no readable time: ``timestamp`` is then only a
        stand-in for ordering (the previous known time in the file, else the moment it was
        read) and must not be shown as the message's time."""
        return not self.extra.get(EXTRA_TIME_UNKNOWN)


def text_hash(text: str) -> str:
    """sha256 of a message's text, the identity of its content."""
    # Imported here: loading OpenSSL is 3 ms that a reader of the index never needs.
    from hashlib import sha256

    return sha256(text.encode("utf-8")).hexdigest()


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
class Turn(_Provenance):
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
class IndexedTurn(_Provenance):
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


_Frozen = TypeVar("_Frozen", Turn, IndexedTurn)


def built(cls: type[_Frozen], fields: dict[str, Any]) -> _Frozen:
    """A ``Turn`` or ``IndexedTurn`` whose fields are ``fields``, made without ``__init__``.

    A frozen dataclass's ``__init__`` sets every field through ``object.__setattr__``; for
    each turn of a large import, twice, that was a visible cost. ``fields`` must hold every
    field of ``cls`` by name, of the types the class declares, and becomes the instance's
    own: pass a dict nobody else holds. Tests check the result equals what ``__init__``
    makes, field for field.
    """
    turn = object.__new__(cls)
    object.__setattr__(turn, "__dict__", fields)
    return turn
