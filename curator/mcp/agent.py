"""What an agent may do with one user's memory: the tools ``curator mcp`` serves.

Everything an agent sends is untrusted: every string has a size limit, an id is matched
against the id pattern and looked up in the index (never joined into a path), a path is a
vault-relative one checked with ``safe_child`` and must name a searchable document of this
user. Staged items, soft-deleted summaries, trash and history are never returned. Each
document served (a search hit or a retrieval) is counted in the usage log (seed 004 §10).
A save is a proposal dropped into the agent inbox (``curator.mcp.inbox``); it is staged by
the vault's writer, never written to Knowledge/.
"""

from __future__ import annotations

import contextlib
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.clock import Clock, SystemClock, iso_utc, parse_iso
from curator.index.archive import archived_search
from curator.index.database import Index
from curator.index.search import SearchFilters, SearchHit, search
from curator.mcp.inbox import (
    AGENT_KINDS,
    AgentProposal,
    DrainResult,
    InboxDrainer,
    drop,
    new_proposal_id,
    valid_category,
)
from curator.mcp.served import served_flags
from curator.mcp.usage import UsageLog
from curator.vault.documents import Document, DocumentError
from curator.vault.lock import VaultLock, VaultLockedError
from curator.vault.paths import DOC_ID_RE, UnsafePathError, VaultPaths, safe_child
from curator.vault.scopes import SCOPES
from curator.vault.store import DocumentStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limits:
    """Size limits on what an agent sends."""

    query: int = 500
    title: int = 200
    content: int = 4000
    topic: int = 100
    keyword: int = 60
    keywords: int = 20
    source_turns: int = 50
    ref: int = 300
    results: int = 50


LIMITS = Limits()


TITLE_WORDS = 60  # characters of the content a missing title takes


def title_from(content: str) -> str:
    """A title from a memory's text: its first sentence, cut at a word within 60 characters."""
    first = re.split(r"(?<=[.!?。！？])\s", " ".join(content.split()), maxsplit=1)[0].rstrip(".!?。！？")
    if len(first) <= TITLE_WORDS:
        return first
    cut = first[:TITLE_WORDS].rsplit(" ", 1)[0] if " " in first[:TITLE_WORDS] else first[:TITLE_WORDS]
    return cut.rstrip(",;:") + "…"


def _marked(flags: list[Any]) -> dict[str, Any]:
    return {"flagged": bool(flags), "flags": flags}


class AgentInputError(ValueError):
    """An agent's request that is refused (the message says why; nothing was changed)."""


def _text(value: Any, name: str, limit: int, required: bool = False) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise AgentInputError(f"{name} must be text")
    if "\x00" in value:
        raise AgentInputError(f"{name} contains a NUL character")
    if len(value) > limit:
        raise AgentInputError(f"{name} is {len(value)} characters; the limit is {limit}")
    if required and not value.strip():
        raise AgentInputError(f"{name} is empty")
    return value.strip()


class AgentMemory:
    """memory_search / memory_retrieve / memory_save for one vault and one user."""

    def __init__(self, paths: VaultPaths, index: Index, store: DocumentStore, usage: UsageLog, *,
                 user_id: str = "default", clock: Clock | None = None, client: str = "") -> None:
        self.paths = paths
        self.index = index
        self.store = store
        self.usage = usage
        self.user_id = user_id
        self.clock = clock or SystemClock()
        self.client = client

    # ---- search

    def search(self, query: str, *, types: list[str] | None = None, topic: str | None = None,
               scope: str | None = None, min_quality: float | None = None, freshness_days: float | None = None,
               limit: int = 10, include_archived: bool = False, include_flagged: bool = False
               ) -> list[dict[str, Any]]:
        """Ranked results (turns, summaries, approved knowledge) with their provenance and status.

        Every result says whether the curator flagged it (``flagged``, ``flags``). A flagged turn
        (instruction-like, invisible characters, hidden markup) is left out unless
        ``include_flagged``; then it comes with its flags.
        """
        query = _text(query, "query", LIMITS.query, required=True)
        kinds = tuple(_text(t, "type", LIMITS.keyword) for t in (types or [])[: LIMITS.keywords] if t)
        topic = _text(topic, "topic", LIMITS.topic) or None
        if scope is not None and scope not in SCOPES:
            raise AgentInputError(f"scope must be one of {', '.join(SCOPES)}")
        if min_quality is not None and not 0.0 <= float(min_quality) <= 1.0:
            raise AgentInputError("quality must be between 0 and 1")
        if freshness_days is not None and float(freshness_days) <= 0:
            raise AgentInputError("freshness_days must be positive")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= LIMITS.results:
            raise AgentInputError(f"limit must be a whole number from 1 to {LIMITS.results}")
        since = self.clock.now() - float(freshness_days) * 86400.0 if freshness_days is not None else None
        filters = SearchFilters(user_id=self.user_id, kinds=kinds, topic=topic, scope=scope,
                                min_quality=min_quality, since=since)
        # Over-fetch: flagged turns left out must not leave the agent with fewer results.
        hits = search(self.index, query, filters, limit if include_flagged else limit * 2 + 5)
        results = [r for r in (self._result(h) for h in hits) if include_flagged or not r["flagged"]][:limit]
        if include_archived:
            results += [dict(r, archived=True) for r in archived_search(self.index, query, filters, limit)]
            results.sort(key=lambda r: -float(r.get("score") or 0.0))
            results = results[:limit]
        served = [r["id"] for r in results if r["type"] not in ("turn", "archive")]
        self.usage.record_uses(self.user_id, served, "search", self.clock.now())
        return results

    def _result(self, hit: SearchHit) -> dict[str, Any]:
        if hit.item_type == "turn":
            return {
                "id": f"turn:{hit.id}", "type": "turn", "title": hit.title, "snippet": hit.snippet,
                "scope": None, "confidence": None, "quality": hit.quality,
                "created": iso_utc(hit.timestamp) if hit.timestamp is not None else None,
                "source_turns": [hit.number], "score": round(hit.score, 4), "role": hit.role,
                "conversation": hit.provenance.get("conversation"), **self._turn_flags(hit.number),
            }
        if hit.item_type == "archive":
            return {
                "id": hit.id, "type": "archive", "title": hit.title, "snippet": hit.snippet, "scope": None,
                "confidence": None, "quality": None,
                "created": iso_utc(hit.timestamp) if hit.timestamp is not None else None,
                "source_turns": list(hit.provenance.get("turns") or []), "score": round(hit.score, 4),
                **_marked(served_flags(hit.snippet)),
            }
        doc = self._load(hit.path)
        return {
            "id": hit.id, "type": hit.kind, "title": hit.title, "snippet": hit.snippet, "scope": hit.scope,
            "confidence": doc.confidence if doc else None, "quality": hit.quality,
            "created": str(doc.get("created_at") or "") if doc else None,
            "source_turns": list(doc.source_turns) if doc else [], "score": round(hit.score, 4),
            "path": hit.path, "topic": hit.topic,
            # An approved memory's flags were accepted by the person; they are still shown.
            **_marked(list(doc.get("flags") or []) if doc else []),
        }

    def _turn_flags(self, number: int | None) -> dict[str, Any]:
        turn = self.index.get_turn(self.user_id, number) if number is not None else None
        return _marked(served_flags(turn.text) if turn is not None else [])

    def _load(self, rel: str | None) -> Document | None:
        if not rel:
            return None
        try:
            return Document.load(safe_child(self.paths.root, rel))
        except (DocumentError, OSError, UnsafePathError):
            return None

    # ---- retrieve

    def retrieve(self, ref: str) -> dict[str, Any] | None:
        """One document by id or vault-relative path, or a turn (``turn:N``); None when not found.

        Raises:
            AgentInputError: a path outside the vault, or not a document an agent may read.
        """
        ref = _text(ref, "id", LIMITS.ref, required=True)
        # A bare number is a turn, unless a document has it for its id (see ``new_id``).
        if ref.startswith("turn:") or (ref.isdigit() and self.index.get_document(ref) is None):
            return self._turn(ref)
        if ref.startswith("archive:"):
            return self._archived_day(ref)
        if DOC_ID_RE.match(ref):
            row = self.index.get_document(ref)
            if row is None or row.user_id != self.user_id or row.area == "staging" or row.deleted:
                return None
            path = safe_child(self.paths.root, row.path)
        else:
            path = self._checked_path(ref)
            if path == self.paths.user(self.user_id).core_memory.resolve():
                return self._core_memory()
        if not path.is_file():
            return None
        located = self.store.area_of(path)
        if located is None or located[0] != self.user_id:
            raise AgentInputError(f"{ref} is not a memory document of this vault")
        if located[1] not in ("knowledge", "reflections"):
            return None  # staged items are never shown to an agent
        try:
            doc = Document.load(path)
        except DocumentError as exc:
            raise AgentInputError(f"{ref} cannot be read: {exc}") from None
        if doc.deleted:
            return None
        rel = path.relative_to(self.paths.root.resolve()).as_posix()
        self.usage.record_uses(self.user_id, [doc.id], "retrieve", self.clock.now())
        meta = {k: v for k, v in doc.meta.items() if k not in ("staging", "flags", "gates", "provenance")}
        return {"id": doc.id, "type": doc.kind, "title": doc.title, "path": rel, "area": located[1],
                "scope": doc.scope, "confidence": doc.confidence, "quality": doc.get("quality"),
                "created": str(doc.get("created_at") or ""), "source_turns": list(doc.source_turns),
                "meta": meta, "text": doc.body}

    def _checked_path(self, ref: str) -> Path:
        if ref.startswith(("/", "\\", "~")) or (len(ref) > 1 and ref[1] == ":"):
            raise AgentInputError(f"{ref!r} is not a vault-relative path")
        try:
            path = safe_child(self.paths.root, ref)
        except UnsafePathError as exc:
            raise AgentInputError(f"{ref!r} is outside the vault: {exc}") from None
        return path.resolve()

    def _turn(self, ref: str) -> dict[str, Any] | None:
        try:
            number = int(ref.split(":", 1)[-1])
        except ValueError:
            raise AgentInputError(f"{ref!r} is not a turn number") from None
        turn = self.index.get_turn(self.user_id, number)
        if turn is None or turn.status == "removed":
            return None
        return {"id": f"turn:{turn.number}", "type": "turn", "role": turn.role, "speaker": turn.speaker,
                "text": turn.text, "created": iso_utc(turn.timestamp), "status": turn.status,
                "conversation": turn.conversation, "source_turns": [turn.number], **_marked(served_flags(turn.text))}

    def _archived_day(self, ref: str) -> dict[str, Any] | None:
        """The full turns behind an archive summary (``archive:<conversation>:<YYYY-MM-DD>``)."""
        _, _, rest = ref.partition(":")
        conversation, _, day = rest.rpartition(":")
        start = parse_iso(day)
        if not conversation or start is None or len(day) != 10:
            raise AgentInputError(f"{ref!r} is not an archive id (archive:<conversation>:<YYYY-MM-DD>)")
        rows = self.index.reader().execute(
            "SELECT number FROM turns WHERE user_id = ? AND conversation = ? AND timestamp >= ? AND timestamp < ? "
            "AND status = 'active' ORDER BY number LIMIT ?",
            (self.user_id, conversation, start, start + 86400.0, LIMITS.results),
        ).fetchall()
        turns = [t for t in (self._turn(f"turn:{r[0]}") for r in rows) if t is not None]
        if not turns:
            return None
        return {"id": ref, "type": "archive", "conversation": conversation, "day": day, "turns": turns}

    def core_memory(self) -> str:
        """The user's MEMORY.md (empty when there is none yet)."""
        path = self.paths.user(self.user_id).core_memory
        try:
            return path.read_text("utf-8")
        except FileNotFoundError:
            return ""

    def _core_memory(self) -> dict[str, Any]:
        return {"id": "MEMORY.md", "type": "core_memory", "path": f"Users/{self.user_id}/MEMORY.md",
                "text": self.core_memory()}

    # ---- save

    def save(self, title: str | None, content: str, *, kind: str = "fact", topic: str = "",
             keywords: list[str] | None = None, source_turns: list[int] | None = None,
             category: str = "Facts") -> dict[str, Any]:
        """Propose a memory: it is staged for the person's review, flagged as an agent's.

        Without a title, the title is the content's opening words.
        """
        content = _text(content, "content", LIMITS.content, required=True)
        title = _text(title, "title", LIMITS.title) or title_from(content)
        if kind not in AGENT_KINDS:
            raise AgentInputError(f"type must be one of {', '.join(AGENT_KINDS)}")
        topic = _text(topic, "topic", LIMITS.topic).lower()
        words = [_text(k, "keyword", LIMITS.keyword) for k in (keywords or [])]
        if len(words) > LIMITS.keywords:
            raise AgentInputError(f"at most {LIMITS.keywords} keywords")
        turns = list(source_turns or [])
        if len(turns) > LIMITS.source_turns or not all(isinstance(n, int) and n > 0 for n in turns):
            raise AgentInputError(f"source_turns must be at most {LIMITS.source_turns} positive turn numbers")
        proposal = AgentProposal(
            proposal_id=new_proposal_id(), user_id=self.user_id, title=title, content=content, kind=kind,
            category=valid_category(_text(category, "category", 32) or "Facts"), topic=topic,
            keywords=[w for w in words if w], source_turns=turns, client=self.client[:80],
            received_at=iso_utc(self.clock.now()),
        )
        drop(self.paths, proposal)
        result = self._drain_if_free(proposal.proposal_id)
        if result is None:
            return {"status": "queued", "proposal_id": proposal.proposal_id, "lane": "flagged",
                    "message": "the curator app is running; it stages the proposal for review within seconds"}
        data: dict[str, Any] = {"status": result.status, "proposal_id": proposal.proposal_id}
        if result.status == "staged":
            data.update(id=result.item_id, lane="flagged",
                        message="staged for the person's review; it is not memory until they approve it")
        else:
            data.update(reason=result.reason, message=f"not staged: {result.reason}")
        return data

    def _drain_if_free(self, proposal_id: str) -> DrainResult | None:
        """Stage our own proposal when no writer runs (a lock held for the drain only)."""
        lock = VaultLock(self.paths.lock_file)
        try:
            lock.acquire()
        except VaultLockedError:
            return None
        try:
            results = InboxDrainer(self.paths, self.index, self.store, self.clock).drain(self.user_id)
        finally:
            with contextlib.suppress(OSError):
                lock.release()
        return next((r for r in results if r.proposal_id == proposal_id), None)
