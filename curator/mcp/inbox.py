"""The agent drop-box: how ``memory_save`` reaches the vault's single writer.

The MCP server runs beside the app, which holds the vault's one-writer lock, so it never
writes a staged item itself. ``memory_save`` writes the agent's proposal, already checked
for size, as one JSON file into ``Users/<u>/Inbox/agent/`` (atomically, a fresh name per
proposal: two processes can never collide). Whoever holds the writer lock drains the box:
the app's engine on every watcher tick, or the MCP server itself when no writer is running
(it takes the lock for the few milliseconds the drain lasts). Draining runs the same gates
as a reflection's output and stages survivors with ``origin: agent`` and an ``agent-origin``
flag, so they always wait in the flagged lane. A proposal that fails a gate is moved to
``Inbox/agent/rejected/`` with the reason, never silently dropped.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curator.clock import Clock, SystemClock, iso_utc
from curator.index.database import Index
from curator.mcp.tools import index_document_file
from curator.reflection.gates.fingerprints import RejectedMemory
from curator.reflection.gates.quality import Proposal, QualityGates, confidence_for
from curator.reflection.gates.untrusted import Flag, scan, source_flags
from curator.reflection.knowledge import IndexKnowledge
from curator.review.staging import StagedDraft, StagingArea
from curator.sources.turns import IndexedTurn
from curator.vault.atomic import atomic_write_text
from curator.vault.paths import CATEGORY_RE, VaultPaths, new_id
from curator.vault.store import DocumentStore

log = logging.getLogger(__name__)

AGENT_FLAG = "agent-origin"
AGENT_KINDS = ("fact", "preference", "procedure", "open_question")


@dataclass
class AgentProposal:
    """What an agent asked ``memory_save`` to remember (sizes already checked)."""

    proposal_id: str
    user_id: str
    title: str
    content: str
    kind: str = "fact"
    category: str = "Facts"
    topic: str = ""
    keywords: list[str] = field(default_factory=list)
    source_turns: list[int] = field(default_factory=list)
    client: str = ""
    received_at: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AgentProposal:
        return cls(
            proposal_id=str(data["proposal_id"]),
            user_id=str(data["user_id"]),
            title=str(data["title"]),
            content=str(data["content"]),
            kind=str(data.get("kind") or "fact"),
            category=str(data.get("category") or "Facts"),
            topic=str(data.get("topic") or ""),
            keywords=[str(k) for k in data.get("keywords") or []],
            source_turns=[int(n) for n in data.get("source_turns") or []],
            client=str(data.get("client") or ""),
            received_at=str(data.get("received_at") or ""),
        )


@dataclass
class DrainResult:
    """What became of one proposal: ``staged`` (with the item id) or ``rejected`` (with why)."""

    proposal_id: str
    status: str
    item_id: str = ""
    reason: str = ""
    flags: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def inbox_dir(paths: VaultPaths, user_id: str) -> Path:
    return paths.user(user_id).root / "Inbox" / "agent"


def drop(paths: VaultPaths, proposal: AgentProposal) -> Path:
    """Write one proposal into the drop-box (any process may; no lock needed)."""
    target = inbox_dir(paths, proposal.user_id) / f"{proposal.proposal_id}.json"
    atomic_write_text(target, json.dumps(proposal.to_dict(), ensure_ascii=False, indent=2))
    return target


def pending(paths: VaultPaths, user_id: str) -> list[Path]:
    """Proposals waiting in a user's drop-box, oldest name first."""
    folder = inbox_dir(paths, user_id)
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


class _IndexTurns:
    """The gates' turn lookup over the index (removed turns count as missing)."""

    def __init__(self, index: Index) -> None:
        self.index = index

    def get(self, user_id: str, number: int) -> IndexedTurn | None:
        turn = self.index.get_turn(user_id, number)
        return turn if turn is not None and turn.status != "removed" else None

    def turns_since(self, user_id: str, after_number: int, limit: int) -> Sequence[IndexedTurn]:
        return self.index.turns(user_id, after=after_number)[-limit:]


class InboxDrainer:
    """Stages the drop-box's proposals; only ever called by the holder of the writer lock."""

    def __init__(self, paths: VaultPaths, index: Index, store: DocumentStore, clock: Clock | None = None,
                 keyword_threshold: float = 0.6) -> None:
        self.paths = paths
        self.index = index
        self.store = store
        self.clock = clock or SystemClock()
        self.staging = StagingArea(store, self.clock)
        self.keyword_threshold = keyword_threshold

    def drain(self, user_id: str) -> list[DrainResult]:
        results = []
        for path in pending(self.paths, user_id):
            results.append(self._drain_one(user_id, path))
        return results

    def drain_all(self) -> list[DrainResult]:
        results: list[DrainResult] = []
        for user_id in self.paths.user_ids():
            results.extend(self.drain(user_id))
        return results

    def _drain_one(self, user_id: str, path: Path) -> DrainResult:
        try:
            proposal = AgentProposal.from_dict(json.loads(path.read_text("utf-8")))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            result = DrainResult(path.stem, "rejected", reason=f"unreadable proposal: {exc}")
            self._set_aside(path, result)
            return result
        if proposal.user_id != user_id:
            result = DrainResult(proposal.proposal_id, "rejected", reason="proposal filed under another user")
            self._set_aside(path, result)
            return result
        result = self.stage(proposal)
        if result.status == "staged":
            path.unlink(missing_ok=True)
        else:
            self._set_aside(path, result)
        return result

    def stage(self, proposal: AgentProposal) -> DrainResult:
        """Run the gates over one proposal and stage it when it passes."""
        gates = QualityGates(proposal.user_id, _IndexTurns(self.index), IndexKnowledge(lambda: self.index, self.store),
                             RejectedMemory(self.paths, self.clock), keyword_threshold=self.keyword_threshold)
        item = Proposal("fact" if proposal.kind == "preference" else proposal.kind, "agent", proposal.title,
                        proposal.content, proposal.category, list(proposal.source_turns))
        checks = [gates.rejected_before, gates.dedup]
        if proposal.source_turns:
            checks = [gates.turn_existence, gates.keyword, *checks]
        for check in checks:
            rejection = check(item)
            if rejection is not None:
                return DrainResult(proposal.proposal_id, "rejected", reason=f"{rejection.gate}: {rejection.reason}")
        flags = [Flag(AGENT_FLAG, f"proposed by an agent{' (' + proposal.client + ')' if proposal.client else ''} "
                                  "through memory_save; nothing an agent writes is trusted without you")]
        flags += scan([proposal.title, proposal.content, " ".join(proposal.keywords), proposal.topic])
        flags += source_flags((t.number, t.text) for t in item.cited)
        notes = [] if proposal.source_turns else ["cites no turns: the agent's own words are the only evidence"]
        draft = StagedDraft(
            kind=item.kind,
            title=proposal.title,
            text=proposal.content,
            category=proposal.category,
            source_turns=list(proposal.source_turns),
            confidence=confidence_for(item.cited) if item.cited else 0.3,
            batch_id=None,
            origin="agent",
            flags=flags,
            gates=[*list(item.gates), "size_limits", "untrusted"],
            provenance={"job": "agent", "client": proposal.client, "proposal_id": proposal.proposal_id,
                        "received_at": proposal.received_at, "staged_at": iso_utc(self.clock.now()),
                        "source_turns": list(proposal.source_turns)},
            fields={"primary_topic": proposal.topic, "keywords": list(proposal.keywords),
                    "content_types": [proposal.kind]},
            notes=notes,
        )
        doc = self.staging.stage(proposal.user_id, draft)
        if doc.path is not None:
            index_document_file(self.index, self.store, doc.path)
        log.info("agent proposal %s staged as %s (flagged)", proposal.proposal_id, doc.id)
        return DrainResult(proposal.proposal_id, "staged", item_id=doc.id, flags=[f.to_dict() for f in flags])

    def _set_aside(self, path: Path, result: DrainResult) -> None:
        # Kept, with the reason beside it: a refused proposal is never lost.
        target = path.parent / "rejected" / path.name
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            data = {"raw": path.read_text("utf-8", errors="replace")} if path.exists() else {}
        if isinstance(data, dict):
            data["rejected"] = {"reason": result.reason, "at": iso_utc(self.clock.now())}
        atomic_write_text(target, json.dumps(data, ensure_ascii=False, indent=2))
        path.unlink(missing_ok=True)


def new_proposal_id() -> str:
    return "agent-" + new_id()


def valid_category(category: str) -> str:
    return category if CATEGORY_RE.match(category) else "Facts"
