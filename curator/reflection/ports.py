"""The Protocols reflection depends on, so it can be tested now and wired to real objects later.

Ports (and what should satisfy each once the engine wires them):

- :class:`TurnSource` - the SQLite index of turns (``curator.index.database``): look up a turn by its
  per-user number, list the turns after a number.
- :class:`KnowledgeIndex` - search over approved ``Knowledge/`` documents only (staged items are
  never searched). The app passes :class:`curator.reflection.knowledge.IndexKnowledge`, over the
  vault's one search index; ``VaultKnowledgeIndex`` scans files, for tests without an index.
- :class:`DocumentIndex` - keeps the search index in step with review actions
  (``upsert`` after an approval, ``remove`` after a discard or an undo).
- :class:`ModelClient` - the model runtime (``curator.llm``): one structured call by prompt
  name, plus the model's own token counter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from curator.sources.turns import IndexedTurn
from curator.vault.documents import Document

# ---- Turns


@runtime_checkable
class TurnSource(Protocol):
    """Read access to indexed turns of one vault."""

    def get(self, user_id: str, number: int) -> IndexedTurn | None:
        """The turn with per-user ``number``, or None if there is no such turn."""
        ...

    def turns_since(self, user_id: str, after_number: int, limit: int) -> Sequence[IndexedTurn]:
        """The newest ``limit`` turns numbered above ``after_number``, oldest first."""
        ...


# ---- Knowledge


@dataclass(frozen=True)
class KnowledgeDoc:
    """An approved Knowledge document as reflection sees it (found by id, never by path)."""

    doc_id: str
    title: str
    text: str
    category: str = "Facts"
    kind: str = "fact"
    confidence: float = 0.0
    source_turns: tuple[int, ...] = ()
    content_hash: str = ""
    score: float = 0.0


@runtime_checkable
class KnowledgeIndex(Protocol):
    """Search and lookup over one user's approved ``Knowledge/`` documents."""

    def search(self, user_id: str, query: str, limit: int = 10) -> list[KnowledgeDoc]:
        """Best matches for ``query``, best first (scores are the index's own scale)."""
        ...

    def get(self, user_id: str, doc_id: str) -> KnowledgeDoc | None:
        """The Knowledge document with this id, or None (the only way an id is resolved)."""
        ...

    def about(self, user_id: str, subject_ids: Sequence[str], query: str, limit: int = 20) -> list[KnowledgeDoc]:
        """Facts whose subject is one of ``subject_ids`` (or the assistant, lore, or none),
        most relevant to ``query`` first (seed 003's existing facts)."""
        ...


@runtime_checkable
class DocumentIndex(Protocol):
    """Write side of the search index, called by review actions so search reflects them."""

    def upsert(self, doc: Document) -> None:
        """Index (or re-index) ``doc``."""
        ...

    def remove(self, doc_id: str) -> None:
        """Drop the document with ``doc_id`` from the index."""
        ...


class NullDocumentIndex:
    """A :class:`DocumentIndex` that does nothing (no index wired)."""

    def upsert(self, doc: Document) -> None:
        """Ignore."""

    def remove(self, doc_id: str) -> None:
        """Ignore."""


# ---- Model


class ModelCallError(RuntimeError):
    """The model call failed (timeout, crash, load error); a retry may succeed."""


class ModelCancelled(ModelCallError):
    """The job was cancelled; never retried, nothing is staged."""


@dataclass(frozen=True)
class GenerationDefaults:
    """Generation settings a job expects; the prompt file's own settings take precedence."""

    temperature: float
    max_tokens: int


@dataclass(frozen=True)
class ModelReply:
    """What came back from one model call: the raw text (untrusted) and its provenance."""

    text: str
    model: str = ""
    prompt_version: str = ""
    finish_reason: str = "stop"
    settings: Mapping[str, Any] = field(default_factory=dict)
    problems: tuple[str, ...] = ()  # the runtime found the output invalid (schema, truncation)


@runtime_checkable
class ModelClient(Protocol):
    """One model, called by prompt name; satisfied by an adapter over ``curator.llm``."""

    @property
    def model_name(self) -> str:
        """Name (or file name) of the loaded model, recorded as provenance."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens ``text`` takes with this model's tokenizer."""
        ...

    def call(
        self,
        prompt_name: str,
        variables: Mapping[str, Any],
        schema: Mapping[str, Any] | None,
        defaults: GenerationDefaults,
    ) -> ModelReply:
        """Render prompt ``prompt_name`` with ``variables`` and generate.

        A list value is a list of items (turns, facts) the runtime may trim from one end to
        fit the model's context, as the prompt file's ``trim`` rules say.

        ``schema`` (a JSON Schema) asks for grammar-constrained JSON; None means free text.
        Raises :class:`ModelCallError` on failure and :class:`ModelCancelled` on cancel.
        """
        ...
