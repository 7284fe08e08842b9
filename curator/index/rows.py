"""Rows of the index as Python values, and the packing of values into columns."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from curator.sources.turns import EXTRA_MESSAGE_ID, IndexedTurn, text_hash

# One encoder for every turn's extra: ``json.dumps`` with options builds a new one per call.
EXTRA_JSON = json.JSONEncoder(sort_keys=True)
# A stored extra that opens with this left out the client's message id: the key holds it.
_ID_IN_KEY = "="


def stored_extra(extra: dict[str, Any], key: str) -> str:
    """A turn's extra as its row keeps it.

    Most clients give each message an id, and the turn's key is made of it ("id:<id>"), so
    the id was stored twice: a tenth of a turn row beside its text. It is left out when the
    key holds it exactly, and :func:`extra_of` puts it back.
    """
    message_id = extra.get(EXTRA_MESSAGE_ID)
    if isinstance(message_id, str) and key == "id:" + message_id:
        rest = {k: v for k, v in extra.items() if k != EXTRA_MESSAGE_ID}
        return _ID_IN_KEY + (EXTRA_JSON.encode(rest) if rest else "")
    return EXTRA_JSON.encode(extra)


def stored_sha(sha256: str | None, text: str) -> str | None:
    """A digest as a turn row holds it: nothing when it is the hash of the text (reading the
    turn computes it again, :func:`turn_from_row`) or when a ledger record left it out for
    that reason, the digest itself otherwise."""
    return None if sha256 is None or sha256 == text_hash(text) else sha256


def extra_of(stored: str | None, key: str) -> dict[str, Any]:
    """The extra :func:`stored_extra` stored for a turn with ``key``."""
    if stored and stored.startswith(_ID_IN_KEY):
        extra: dict[str, Any] = json.loads(stored[1:] or "{}")
        extra[EXTRA_MESSAGE_ID] = key[3:]
        return extra
    return dict(json.loads(stored or "{}"))


@dataclass(frozen=True)
class DocumentRow:
    """A document as the index knows it."""

    path: str  # relative to the vault root
    id: str
    user_id: str
    kind: str
    area: str  # knowledge | staging | reflections
    title: str
    topic: str
    keywords: list[str]
    scope: str
    quality: float | None
    content_types: list[str]
    created_at: str
    deleted: bool
    source_turns: list[int]


def text_sha(text: str) -> str:
    """The SHA-256 of a turn's text, as ``curator.sources.turns.text_hash`` gives it.

    A turn row keeps no hash of its own text (``schema.turn_rows``); reading a turn computes
    it. Readers such as ``curator search`` hash a few turns: Python's own SHA-256 loads in
    under a millisecond where hashlib (OpenSSL) takes three, a tenth of that command's start.
    """
    global _SHA256
    if _SHA256 is None:
        # CPython's own module is _sha256 up to 3.11 and _sha2 from 3.12; hashlib always works.
        for name in ("_sha256", "_sha2", "hashlib"):
            try:
                _SHA256 = import_module(name).sha256
                break
            except (ImportError, AttributeError):
                continue
    return str(_SHA256(text.encode("utf-8")).hexdigest())


_SHA256: Any = None


def turn_from_row(row: sqlite3.Row) -> IndexedTurn:
    return IndexedTurn(
        number=row["number"],
        user_id=row["user_id"],
        source_id=row["source_id"],
        file=row["file"],
        conversation=row["conversation"],
        key=row["key"],
        position=row["position"],
        role=row["role"],
        speaker=row["speaker"],
        text=row["text"],
        timestamp=row["timestamp"],
        sha256=row["sha256"] or text_sha(row["text"]),
        status=row["status"],
        context=row["context"],
        extra=extra_of(row["extra"], row["key"]),
    )


def doc_from_row(row: sqlite3.Row) -> DocumentRow:
    return DocumentRow(
        path=row["path"],
        id=row["id"],
        user_id=row["user_id"],
        kind=row["kind"],
        area=row["area"],
        title=row["title"],
        topic=row["topic"],
        keywords=json.loads(row["keywords"]),
        scope=row["scope"],
        quality=row["quality"],
        content_types=json.loads(row["content_types"]),
        created_at=row["created_at"],
        deleted=bool(row["deleted"]),
        source_turns=json.loads(row["source_turns"]),
    )


def pack_types(types: Iterable[str]) -> str:
    # ",a,b," so one LIKE '%,x,%' tests membership
    cleaned = [t.strip().lower() for t in types if t and t.strip()]
    return "," + ",".join(cleaned) + "," if cleaned else ""

