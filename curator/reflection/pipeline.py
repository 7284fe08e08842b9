"""Steps shared by the batch reflector and micro-reflection after the gates.

Contradiction routing, untrusted-output flags, and turning a passing proposal into a staged
item (or into another sighting of an item already staged).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from curator.clock import iso_utc
from curator.reflection.contradictions import ContradictionDetector
from curator.reflection.corrected import corrected_memory
from curator.reflection.dated import moment_of
from curator.reflection.gates.chain import normalise
from curator.reflection.gates.quality import Proposal
from curator.reflection.gates.untrusted import echo_flags, scan, source_flags
from curator.reflection.ports import KnowledgeIndex
from curator.review.staging import StagedDraft, StagingArea
from curator.vault.documents import Document


def route_contradiction(
    item: Proposal, user_id: str, knowledge: KnowledgeIndex, detector: ContradictionDetector
) -> bool:
    """Turn a fact that contradicts a Knowledge fact into a ``contradiction`` item.

    Returns True when the item was rerouted.
    """
    if item.kind != "fact":
        return False
    candidates = list(knowledge.search(user_id, item.text, limit=8))
    for docs in item.resolved.values():
        candidates.extend(d for d in docs if d.doc_id not in {c.doc_id for c in candidates})
    conflict = detector.find(item.text, candidates)
    if conflict is None:
        return False
    existing = conflict.existing
    item.kind = "contradiction"
    item.fields.update({
        "existing_id": existing.doc_id,
        "existing_title": existing.title,
        "existing_text": existing.text,
        "existing_hash": existing.content_hash,
        "proposed_text": item.text,
        "proposed_category": item.category,
        "conflict": conflict.to_dict(),
    })
    item.title = f"Contradiction: {item.title}"[:200]
    item.gates.append("contradiction")
    item.notes.append(conflict.reason())
    return True


def flag(item: Proposal, extra_texts: list[str] | None = None,
         batch: Iterable[tuple[int, str]] = ()) -> None:
    """Attach untrusted-output flags from the item's own texts, its cited turns, and the batch.

    ``batch`` is every turn the model saw (number, text): an item that echoes an
    instruction-like or secret-looking turn it does not cite is flagged too.
    """
    texts = [item.title, item.text, *(extra_texts or [])]
    texts.extend(
        str(v)
        for k, v in item.fields.items()
        # Hashes and ids are the curator's own (a sha256 reads as a "base64 blob"); old texts
        # were scanned when they were staged.
        if isinstance(v, str) and k not in ("existing_text", "old_text") and not k.endswith(("_hash", "_id"))
    )
    flags = scan(texts)
    cited = [(t.number, t.text) for t in item.cited]
    flags.extend(source_flags(cited))
    flags.extend(echo_flags([item.title, item.text], cited, batch))
    item.flags = flags


def provenance(
    item: Proposal, job: str, batch_id: int | None, model: str, prompt_version: str, now: float
) -> dict[str, Any]:
    """Where a staged item came from (reliability.md §3.3 item 1)."""
    files = []
    for turn in item.cited:
        files.append({"turn": turn.number, "source": turn.source_id, "file": turn.file,
                      "conversation": turn.conversation, "sha256": turn.sha256})
    return {
        "job": job,
        "batch_id": batch_id,
        "model": model,
        "prompt_version": prompt_version,
        "extracted_at": iso_utc(now),
        "source_turns": list(item.source_turns),
        "source_files": files,
    }


# Kinds whose text states something about the person that a relative time can date.
_DATED_KINDS = frozenset({"fact", "correction", "pattern", "open_question"})


def draft_for(item: Proposal, batch_id: int | None, origin: str, prov: dict[str, Any]) -> StagedDraft:
    """The staged form of a proposal that passed its gates."""
    fields = dict(item.fields)
    # Seed 004 §4: a turn folder's first phase wrote the turn's purpose and data needs; a
    # memory drawn from that turn keeps them (code fills them in otherwise, at staging).
    for key in ("user_purpose", "data_requirements"):
        value = next((t.extra.get(key) for t in item.cited if t.extra.get(key)), None)
        if value and key not in fields:
            fields[key] = value if key == "user_purpose" else list(value) if isinstance(value, list) else [str(value)]
    if item.kind == "fact":
        fields["related"] = item.ref_ids("related_existing")
    elif item.kind == "connection":
        a = item.resolved.get("file_a", [])
        b = item.resolved.get("file_b", [])
        fields.update({"file_a": a[0].doc_id if a else "", "file_b": b[0].doc_id if b else "",
                       "text_a": a[0].text if a else "", "text_b": b[0].text if b else ""})
    elif item.kind == "correction" and "target_id" not in fields:
        targets = item.resolved.get("existing_file", [])
        if targets:
            target = targets[0]
            new_text = corrected_memory(target.text, item.text)  # the superseded value never survives
            fields.update({"target_id": target.doc_id, "target_title": target.title, "old_text": target.text,
                           "new_text": new_text, "target_hash": target.content_hash,
                           "target_confidence": target.confidence})
    text = item.text
    if item.kind == "correction" and fields.get("new_text"):
        text = str(fields["new_text"])
    said = [t.timestamp for t in item.cited if t.timestamp]
    moment = moment_of(text, max(said)) if said and item.kind in _DATED_KINDS else None
    if moment is not None:
        fields["dated"] = moment.as_fields()  # "next week", said on a day: the card says which week
    return StagedDraft(
        kind=item.kind, title=item.title, text=text, category=item.category,
        source_turns=list(item.source_turns), confidence=item.confidence, batch_id=batch_id,
        origin=origin, flags=list(item.flags), gates=list(item.gates), provenance=prov,
        fields=fields, notes=list(item.notes),
    )


@dataclass
class StageOutcome:
    """What happened to passing proposals: newly staged documents, and recurrences."""

    staged: list[Document] = field(default_factory=list)
    recurring: list[Document] = field(default_factory=list)


def same_words(docs: Iterable[Document], draft: StagedDraft) -> Document | None:
    """The staged fact that rests on the same words of the same turns as ``draft``.

    A statement a capable model words differently each time it is asked ("Gina did a
    contemporary piece called 'Finding Freedom' ..." in a batch, code's wording at the
    session's end) is still one statement: two cards for it would ask the person twice. So is
    a fact the same chat corrected: the card of the correction rests on its words too
    (``earlier_evidence``), and a second card would ask the person to approve what the chat
    itself took back ("... en un hospital de Zaragoza" beside "No es Zaragoza, es Huesca").
    """
    quote = normalise(str(draft.fields.get("evidence") or ""))
    if draft.kind != "fact" or not quote or not draft.source_turns:
        return None
    for doc in docs:
        held = (normalise(str(doc.get("evidence") or "")), normalise(str(doc.get("earlier_evidence") or "")))
        if doc.kind == "fact" and any(quote in words for words in held if words) \
                and set(draft.source_turns) <= set(doc.source_turns):
            return doc
    return None


def stage_all(staging: StagingArea, user_id: str, drafts: list[StagedDraft], batch_id: int | None) -> StageOutcome:
    """Stage each draft, or count it as another sighting of an earlier staged item."""
    outcome = StageOutcome()
    existing, _problems = staging.scan(user_id)
    for draft in drafts:
        match = staging.find_recurring(existing, draft.kind, draft.text, batch_id)
        # A batch finding what the session's end staged, in the very turns it rests on: the two
        # read the same turns, the person did not say it again, so it is no second sighting.
        read_again = (match is not None and match[0].get("batch_id") is None and bool(draft.source_turns)
                      and set(draft.source_turns) <= set(match[0].source_turns))
        if batch_id is None or match is None or read_again:
            # A micro-reflection repeating a staged item, or a batch finding again the words of
            # the same turns: the person has it already once.
            repeated = match[0] if match is not None else same_words(existing, draft)
            if repeated is not None:
                outcome.recurring.append(repeated)
                continue
        if match is not None:
            doc, _score = match
            if draft.flags:  # a flagged re-proposal quarantines the item it repeats
                known = list(doc.get("flags") or [])
                known.extend(f.to_dict() for f in draft.flags if f.to_dict() not in known)
                doc.meta["flags"] = known
                doc.meta["quarantine"] = True
            staging.mark_seen(doc, batch_id, draft.source_turns)
            outcome.recurring.append(doc)
            continue
        outcome.staged.append(staging.stage(user_id, draft))
    return outcome
