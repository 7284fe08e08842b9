"""The trust lifecycle of approved documents (seed 004 §10): promotion, demotion, TTL.

- **Usage**: every search hit and retrieval served to an agent is counted per document
  (``curator.mcp.usage``).
- **Promotion**: a document used ``lifecycle.promote_after_uses`` times since its scope last
  changed (a correction or contradiction changes it too) is proposed for the next scope,
  ``new -> user -> global``, as a ``promotion`` item in the review queue. Nothing is
  promoted until the person approves it.
- **Demotion**: an approved correction, or a contradiction resolved against a document,
  demotes it one step at once, inside the same review action (so it is undone with it).
- **Validation** (seed 004 §10): a turn folder that used a document (its context.md §2 cites
  the id) and was validated APPROVE counts as a use; RETRY or FAIL demotes a ``user`` or
  ``global`` document one step at the next pass (recorded in its ``scope_history``, visible
  in its history and undoable by a promotion); REVISE changes nothing.
- **TTL**: a document approved with scope ``new`` gets ``expires_at`` (``lifecycle.new_ttl_days``).
  Past it, by default (``lifecycle.new_expiry: ask``) a ``recheck`` item ("still true?") is put
  in the queue; approving it renews the date, discarding it leaves the document as it is.
  With ``expire`` the document goes to the trash instead, seed 004's TTL (restorable; a pinned
  one never expires).

``lifecycle_pass`` runs on the vault's writer (the app's watcher tick, ``curator lifecycle``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from curator.clock import Clock, SystemClock, iso_utc, parse_iso
from curator.mcp.usage import UsageLog
from curator.review.staging import StagedDraft, StagingArea
from curator.sources.adapters.turn_folder import split_sections
from curator.vault.documents import Document
from curator.vault.store import DocumentStore

log = logging.getLogger(__name__)

SCOPE_ORDER = ("new", "user", "global")
LIFECYCLE_KINDS = ("promotion", "recheck")
DEFAULT_PROMOTE_AFTER = 5
DEFAULT_TTL_DAYS = 90.0


def next_scope(scope: str) -> str | None:
    i = SCOPE_ORDER.index(scope) if scope in SCOPE_ORDER else 0
    return SCOPE_ORDER[i + 1] if i + 1 < len(SCOPE_ORDER) else None


def lower_scope(scope: str) -> str:
    i = SCOPE_ORDER.index(scope) if scope in SCOPE_ORDER else 0
    return SCOPE_ORDER[max(0, i - 1)]


def expiry_for(now: float, ttl_days: float) -> str:
    return iso_utc(now + ttl_days * 86400.0)


def demotion_meta(doc: Document, now: float, why: str) -> dict[str, Any]:
    """Frontmatter changes that demote ``doc`` one step (a correction or contradiction)."""
    old = doc.scope
    return {"scope": lower_scope(old), "scope_changed_at": iso_utc(now),
            "scope_history": [*_history(doc), {"from": old, "to": lower_scope(old), "at": iso_utc(now), "why": why}]}


def approval_meta(item: Document, target: Document, now: float) -> dict[str, Any]:
    """Frontmatter changes to ``target`` when the person approves a lifecycle ``item``."""
    if item.kind == "promotion":
        to = str(item.get("to_scope") or "")
        if to not in SCOPE_ORDER:
            raise ValueError(f"promotion item {item.id} names no valid scope")
        meta: dict[str, Any] = {"scope": to, "scope_changed_at": iso_utc(now), "expires_at": None,
                                "scope_history": [*_history(target), {"from": target.scope, "to": to,
                                                                     "at": iso_utc(now), "why": "promoted by you"}]}
        return meta
    ttl = float(item.get("ttl_days") or DEFAULT_TTL_DAYS)
    return {"expires_at": expiry_for(now, ttl), "confirmed_at": iso_utc(now)}


def _history(doc: Document) -> list[Any]:
    raw = doc.get("scope_history")
    return list(raw) if isinstance(raw, list) else []


def cited_documents(context: str) -> list[str]:
    """Document ids a turn's context.md §2 (what was gathered for it) cites, in order."""
    gathered = split_sections(context).get(2, "")
    return list(dict.fromkeys(_DOC_ID_IN_TEXT.findall(gathered)))


_DOC_ID_IN_TEXT = re.compile(r"(?<![0-9a-z-])([0-9a-f]{12})(?![0-9a-z-])")


@dataclass
class LifecycleReport:
    promotions: list[str] = field(default_factory=list)  # staged item ids
    rechecks: list[str] = field(default_factory=list)
    demoted: list[str] = field(default_factory=list)  # document ids
    expired: list[str] = field(default_factory=list)  # document ids moved to the trash

    def to_dict(self) -> dict[str, Any]:
        return {"promotions": self.promotions, "rechecks": self.rechecks, "demoted": self.demoted,
                "expired": self.expired}


class Lifecycle:
    """Proposes promotions and "still true?" rechecks for one vault (run by the writer)."""

    def __init__(self, store: DocumentStore, usage: UsageLog, clock: Clock | None = None, *,
                 promote_after: int = DEFAULT_PROMOTE_AFTER, ttl_days: float = DEFAULT_TTL_DAYS,
                 expire: bool = False) -> None:
        """``expire``: a ``new`` document past its TTL goes to the trash (seed 004) instead of
        being asked about."""
        self.expire = expire
        self.store = store
        self.usage = usage
        self.clock = clock or SystemClock()
        self.staging = StagingArea(store, self.clock)
        self.promote_after = promote_after
        self.ttl_days = ttl_days

    def run(self, user_id: str) -> LifecycleReport:
        report = LifecycleReport()
        staged, _ = self.staging.scan(user_id)
        pending = {(d.kind, str(d.get("target_id") or "")) for d in staged if d.kind in LIFECYCLE_KINDS}
        now = self.clock.now()
        for _path, doc in self.store.iter_documents(user_id, "knowledge"):
            if not isinstance(doc, Document) or not doc.id or doc.get("retired_at"):
                continue
            if self._maybe_demote(doc, now):
                report.demoted.append(doc.id)
            if ("promotion", doc.id) not in pending:
                item = self._maybe_promote(user_id, doc, now)
                if item is not None:
                    report.promotions.append(item.id)
            if self.expire:
                due = self.expires_at(doc)
                if due is not None and now >= due and not doc.get("pinned"):
                    self.store.trash(doc, f"expired: 'new' for {self.ttl_days:g} days without being confirmed "
                                          "(lifecycle.new_expiry)")
                    report.expired.append(doc.id)
                    continue
            if ("recheck", doc.id) not in pending:
                item = self._maybe_recheck(user_id, doc, now)
                if item is not None:
                    report.rechecks.append(item.id)
        return report

    def countable_uses(self, doc: Document) -> int:
        """Uses since the scope last changed and since the last promotion was put to the person."""
        marks = [parse_iso(str(doc.get("scope_changed_at") or "")), self.usage.last_proposal(doc.id, "promotion")]
        since = max((m for m in marks if m is not None), default=None)
        return self.usage.uses_since(doc.id, since)

    def _maybe_demote(self, doc: Document, now: float) -> bool:
        """A failed validation of a turn that used ``doc`` since its scope last changed."""
        if doc.scope not in SCOPE_ORDER[1:]:
            return False
        failures = self.usage.failures_since(doc.id, parse_iso(str(doc.get("scope_changed_at") or "")))
        if not failures:
            return False
        doc.meta.update(demotion_meta(doc, now, f"{failures} turn(s) that used it failed validation"))
        self.store.update(doc, action="demote after failed validation")
        return True

    def _maybe_promote(self, user_id: str, doc: Document, now: float) -> Document | None:
        to = next_scope(doc.scope)
        if to is None:
            return None
        uses = self.countable_uses(doc)
        if uses < self.promote_after:
            return None
        item = self._stage(user_id, doc, "promotion", f"Promote to {to} (used {uses} times): {doc.title}",
                           {"from_scope": doc.scope, "to_scope": to, "uses": uses},
                           f"used {uses} times by agents since its scope last changed, with no correction "
                           f"or contradiction since; promote from {doc.scope} to {to}?")
        self.usage.record_proposal(doc.id, "promotion", now)
        return item

    def expires_at(self, doc: Document) -> float | None:
        """When a ``new`` document should be rechecked (its ``expires_at``, else created + TTL)."""
        if doc.scope != "new":
            return None
        explicit = parse_iso(str(doc.get("expires_at") or ""))
        if explicit is not None:
            return explicit
        start = parse_iso(str(doc.get("approved_at") or doc.get("created_at") or ""))
        return start + self.ttl_days * 86400.0 if start is not None else None

    def _maybe_recheck(self, user_id: str, doc: Document, now: float) -> Document | None:
        due = self.expires_at(doc)
        if due is None or now < due:
            return None
        asked = self.usage.last_proposal(doc.id, "recheck")
        if asked is not None and asked >= due:
            return None  # asked since it expired; the person chose to leave it
        item = self._stage(user_id, doc, "recheck", f"Still true? {doc.title}",
                           {"expires_at": iso_utc(due), "ttl_days": self.ttl_days},
                           f"unproven ('new') and past its expiry date {iso_utc(due)}: is it still true? "
                           "Approve to keep it another period; discard to leave it as it is.")
        self.usage.record_proposal(doc.id, "recheck", now)
        return item

    def _stage(self, user_id: str, doc: Document, kind: str, title: str, fields: dict[str, Any],
               note: str) -> Document:
        return stage_for(self.staging, user_id, doc, kind, title, fields, note)


def propose_fading(staging: StagingArea, store: DocumentStore, user_id: str,
                   fading: Sequence[tuple[str, float]]) -> list[Document]:
    """"Still true?" items for the memories the cycle's decay scores call fading (seed 001).

    ``fading`` holds (document id, decay score). Never twice while one waits: a fading memory is
    asked about, never dropped silently. The queue is read once for all of them.
    """
    waiting, _problems = staging.scan(user_id)
    asked = {str(d.get("target_id")) for d in waiting if d.kind == "recheck"}
    staged: list[Document] = []
    for doc_id, score in fading:
        doc = store.find(doc_id, user_id, areas=("knowledge",)) if doc_id not in asked else None
        if doc is None or doc.deleted or doc.path is None:
            continue
        asked.add(doc_id)
        staged.append(stage_for(
            staging, user_id, doc, "recheck", f"Still true? {doc.title}", {"decay_score": round(score, 3)},
            f"fading (decay score {score:.2f} < 0.5: not read or confirmed for a long time): is it still "
            "true? Approve to keep it; discard to leave it as it is."))
    return staged


def stage_for(staging: StagingArea, user_id: str, doc: Document, kind: str, title: str, fields: dict[str, Any],
              note: str) -> Document:
    """Stage a lifecycle item (``kind``: promotion or recheck) about Knowledge document ``doc``."""
    assert doc.path is not None
    draft = StagedDraft(
        kind=kind, title=title[:200], text=doc.body, category="Lifecycle",
        source_turns=list(doc.source_turns), confidence=doc.confidence, batch_id=None,
        origin="lifecycle", gates=[], provenance={"job": "lifecycle", "target": doc.id},
        fields={"target_id": doc.id, "target_title": doc.title, "target_scope": doc.scope, **fields},
        notes=[note],
    )
    item = staging.stage(user_id, draft)
    log.info("lifecycle: %s proposed for %s (%s)", kind, doc.id, note)
    return item
