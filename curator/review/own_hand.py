"""The person's own hand on memory: remember this, add, pin, retire, merge, and decide in bulk.

Reflection proposes; here the person starts. Every action is one review action like approve
and discard: recorded in the intent log before it touches a file (a ``kill -9`` anywhere is
rolled back at the next start), written through the store with history, kept in the undo log
as one step of reversible operations, and announced on the bus (the activity log).

- ``remember``: words of a turn (a selection, or the whole turn) become a memory with that
  turn as evidence, worded by the same code as reflection ("I keep bees" -> "Maya keeps
  bees"; a sentence code cannot retell stays in the person's words, marked as theirs). It is
  staged for review, or approved at once when the person says so.
- ``add``: a memory typed by the person, trusted as approved; provenance ``person``.
- ``pin`` / ``unpin``: a pinned memory always sits in MEMORY.md's critical facts and the
  cycle never rewrites or prunes it; it never expires.
- ``retire``: "no longer true": the memory stays in the vault with its end date and reason
  (its history intact), out of search, out of MEMORY.md and out of what reflection knows.
- ``merge``: two or more proposals or memories become one (text editable, the evidence of all
  kept); staged ones go to the trash, approved ones are retired, each recorded as merged into it.
- ``approve_all`` / ``discard_all``: many staged items in one undoable step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from curator.clock import iso_utc
from curator.reflection.languages import detect
from curator.reflection.rephrase import GENERIC_SPEAKERS, as_memory, is_first_person
from curator.reflection.statements import in_their_words, title_of
from curator.review.actions import ReviewEngine
from curator.review.file_ops import Steps
from curator.review.items import find_knowledge, find_staged, require_flags_ok
from curator.review.lifecycle import LIFECYCLE_KINDS
from curator.review.records import ActionResult, FlaggedItemError, ReviewError
from curator.review.staging import StagedDraft, file_hash
from curator.vault.documents import Document
from curator.vault.paths import new_id

MAX_TEXT = 4000
# Kinds a bulk approval takes as they are; a correction or contradiction needs its own answer.
BULK_KINDS = frozenset({"fact", "question", "connection", "pattern", "concept"})


def worded(text: str, speaker: str) -> str:
    """A person's words as a memory, the way reflection words a statement."""
    text = " ".join(text.split()).strip()
    if is_first_person(text) and text.isascii():
        return as_memory(text, speaker)
    if detect(text) not in ("", "en"):
        return in_their_words(speaker, text)
    return text[:1].upper() + text[1:]


def is_retired(doc: Document) -> bool:
    """Whether a memory was retired as no longer true (kept, out of search and core memory)."""
    return bool(doc.get("retired_at"))


class OwnHand:
    """The person's memory actions for one vault (the engine API behind the window and CLI).

    Args:
        review: The vault's review engine (its files, logs, intents and index are shared).
        person: What memories call the person when a turn names no one (``person.name``).
    """

    def __init__(self, review: ReviewEngine, person: str = "the user") -> None:
        self.review = review
        self.person = person

    # ---- Remember this, add by hand

    def remember(self, user_id: str, turn_number: int, text: str | None = None, *,
                 approve: bool = False) -> ActionResult:
        """Make ``text`` (words of turn ``turn_number``; the whole turn when None) a memory."""
        turns = self.review.turns
        turn = turns.get(user_id, int(turn_number)) if turns is not None else None
        if turn is None:
            raise ReviewError(f"no turn {turn_number}")
        words = " ".join((text if text is not None else turn.text).split())
        if not words:
            raise ReviewError("nothing selected to remember")
        if " ".join(turn.text.split()).find(words) < 0:
            raise ReviewError(f"the words are not in turn {turn_number}: select them from the turn itself")
        speaker = turn.speaker if turn.speaker.casefold() not in GENERIC_SPEAKERS else (
            self.person if turn.role == "user" else "the assistant")
        memory = worded(words, speaker)[:MAX_TEXT]
        draft = StagedDraft(kind="fact", title=title_of(memory, speaker), text=memory, category="Facts",
                            source_turns=[turn.number], confidence=0.75, batch_id=None, origin="person",
                            gates=["turn_existence", "evidence"],
                            provenance=_provenance("person", turn.source_id, turn.file, self._now()),
                            fields={"evidence": words, "reviewer_note": "remembered by you from a turn"})
        return self._create(user_id, "remember", draft, approve)

    def add(self, user_id: str, text: str, *, title: str = "", turns: Sequence[int] = (),
            category: str = "Facts") -> ActionResult:
        """A memory the person typed: approved at once, marked as their own."""
        body = text.strip()
        if not body:
            raise ReviewError("a memory needs words")
        if len(body) > MAX_TEXT:
            raise ReviewError(f"a memory is at most {MAX_TEXT} characters")
        source = self.review.turns
        cited = [int(n) for n in turns]
        missing = [n for n in cited if source is None or source.get(user_id, n) is None]
        if missing:
            raise ReviewError(f"no turn {', '.join(map(str, missing))}")
        draft = StagedDraft(kind="fact", title=title.strip()[:200] or title_of(body, self.person), text=body,
                            category=category, source_turns=cited, confidence=0.95, batch_id=None,
                            origin="person", provenance=_provenance("person", "", "", self._now()),
                            fields={"reviewer_note": "written by you"})
        return self._create(user_id, "add", draft, True, action="written")

    def _create(self, user_id: str, name: str, draft: StagedDraft, approve: bool,
                action: str = "approved") -> ActionResult:
        doc_id = new_id()
        with self.review.intents.action(user_id, name, [doc_id]):
            steps: Steps = []
            doc = self.review.staging.stage(user_id, draft, doc_id=doc_id)
            assert doc.path is not None
            rel = self.review.files.rel(user_id, doc.path)
            steps.append({"op": "created", "doc_id": doc.id, "rel": rel, "after_hash": file_hash(doc.path),
                          "area": "staging"})
            if approve:
                rel = self.review.files.move_to_knowledge(user_id, doc, action, None, steps)
            self.review.log.append(user_id, name, doc.id, steps)
            what = {"remember": "remembered", "add": "added by hand"}.get(name, name)
            self.review.log.emit(f"review.{name}", user_id, doc.id, path=rel, approved=approve,
                                 message=f"{what}: “{draft.title}”" + (" (approved)" if approve else " (for review)"))
        where = "approved into" if approve else "staged for review in"
        return ActionResult(name, doc.id, f"{where} {rel}", [rel], file_hash(self.review.files.abs(user_id, rel)))

    # ---- Pin, retire

    def pin(self, user_id: str, doc_id: str, pinned: bool = True) -> ActionResult:
        """Pin (or unpin) an approved memory."""
        name = "pin" if pinned else "unpin"
        with self.review.intents.action(user_id, name, [doc_id]):
            doc = self._knowledge(user_id, doc_id)
            if bool(doc.get("pinned")) == pinned:
                raise ReviewError(f"{doc_id} is {'already' if pinned else 'not'} pinned")
            meta: dict[str, Any] = {"pinned": pinned, "pinned_at": iso_utc(self._now()) if pinned else None}
            steps: Steps = []
            rel = self.review.files.update_knowledge(user_id, doc, steps, meta=meta, action=name)
            self.review.log.append(user_id, name, doc.id, steps)
            self.review.log.emit(f"review.{name}ned", user_id, doc.id, path=rel, message=f"{name}ned “{doc.title}”")
        return ActionResult(name, doc.id, f"{name}ned {doc.title}", [rel])

    def retire(self, user_id: str, doc_id: str, reason: str, *, merged_into: str = "") -> ActionResult:
        """Mark a memory as no longer true: kept with its end date and reason, out of search."""
        if not reason.strip():
            raise ReviewError("say why it is no longer true")
        with self.review.intents.action(user_id, "retire", [doc_id]):
            steps: Steps = []
            doc = self._retire(user_id, doc_id, reason, merged_into, steps)
            self.review.log.append(user_id, "retire", doc.id, steps)
            self.review.log.emit("review.retired", user_id, doc.id, reason=reason,
                                 message=f"no longer true: “{doc.title}” ({reason.strip()})")
        return ActionResult("retire", doc.id, f"retired {doc.title}: {reason}")

    def _retire(self, user_id: str, doc_id: str, reason: str, merged_into: str, steps: Steps) -> Document:
        doc = self._knowledge(user_id, doc_id)
        if is_retired(doc):
            raise ReviewError(f"{doc_id} is already retired")
        meta = {"retired_at": iso_utc(self._now()), "retired_reason": reason.strip()[:500], "pinned": False,
                "status": "retired", **({"merged_into": merged_into} if merged_into else {})}
        self.review.files.update_knowledge(user_id, doc, steps, meta=meta, action="retire")
        return doc

    # ---- Merge

    def merge(self, user_id: str, ids: Sequence[str], text: str, *, title: str = "") -> ActionResult:
        """Merge proposals and/or memories into one approved memory with the evidence of all."""
        ids = list(dict.fromkeys(i for i in ids if i))
        if len(ids) < 2:
            raise ReviewError("merge needs two or more items")
        body = text.strip()
        if not body:
            raise ReviewError("the merged memory needs words")
        new = new_id()
        with self.review.intents.action(user_id, "merge", [*ids, new]):
            parts = [self._merge_part(user_id, i) for i in ids]
            turns = sorted({n for doc in parts for n in doc.source_turns})
            draft = StagedDraft(kind="fact", title=title.strip()[:200] or title_of(body, self.person), text=body,
                                category=str(parts[0].get("category") or "Facts"), source_turns=turns,
                                confidence=max(float(d.confidence or 0.6) for d in parts), batch_id=None,
                                origin="person", provenance=_provenance("person", "", "", self._now()),
                                fields={"merged_from": ids, "reviewer_note": "merged by you"})
            steps: Steps = []
            doc = self.review.staging.stage(user_id, draft, doc_id=new)
            assert doc.path is not None
            steps.append({"op": "created", "doc_id": doc.id, "rel": self.review.files.rel(user_id, doc.path),
                          "after_hash": file_hash(doc.path), "area": "staging"})
            rel = self.review.files.move_to_knowledge(user_id, doc, "merged", None, steps)
            for part in parts:
                if part.path is not None and "Knowledge" in part.path.parts:  # approved: kept, retired
                    self._retire(user_id, part.id, f"merged into {doc.id}", doc.id, steps)
                else:
                    self.review.files.trash(user_id, part, f"merged into {doc.id}", steps)
            self.review.log.append(user_id, "merge", doc.id, steps)
            self.review.log.emit("review.merged", user_id, doc.id, path=rel, merged=ids,
                                 message=f"merged {len(ids)} into “{doc.title}”")
        return ActionResult("merge", doc.id, f"merged {len(ids)} into {rel}", [rel])

    def _merge_part(self, user_id: str, item_id: str) -> Document:
        doc = find_knowledge(self.review.store, user_id, item_id)
        if doc is not None:
            if is_retired(doc):
                raise ReviewError(f"{item_id} is retired; it cannot be merged")
            return doc
        staged = find_staged(self.review.store, user_id, item_id)
        if staged.kind in ("correction", "contradiction") or staged.kind in LIFECYCLE_KINDS:
            raise ReviewError(f"{item_id} is a {staged.kind}: answer it on its own")
        if staged.get("quarantine") or staged.get("flags"):
            raise FlaggedItemError(f"{item_id} is flagged: decide on it on its own")
        return staged

    # ---- Bulk

    def approve_all(self, user_id: str, ids: Sequence[str], *, accept_flags: bool = False) -> ActionResult:
        """Approve many staged items as one undoable step (as they stand)."""
        return self._bulk(user_id, "approve_all", ids, accept_flags=accept_flags)

    def discard_all(self, user_id: str, ids: Sequence[str], reason: str = "") -> ActionResult:
        """Discard many staged items as one undoable step."""
        return self._bulk(user_id, "discard_all", ids, reason=reason)

    def _bulk(self, user_id: str, name: str, ids: Sequence[str], *, accept_flags: bool = False,
              reason: str = "") -> ActionResult:
        ids = list(dict.fromkeys(i for i in ids if i))
        if not ids:
            raise ReviewError("no items chosen")
        done: list[str] = []
        skipped: list[str] = []
        with self.review.intents.action(user_id, name, ids):
            steps: Steps = []
            for item_id in ids:
                doc = find_staged(self.review.store, user_id, item_id)
                if name == "approve_all":
                    if doc.kind not in BULK_KINDS:
                        skipped.append(f"{item_id} ({doc.kind}: answer it on its own)")
                        continue
                    try:
                        require_flags_ok(doc, accept_flags)
                    except FlaggedItemError:
                        skipped.append(f"{item_id} (flagged)")
                        continue
                    self.review.files.move_to_knowledge(user_id, doc, "approved", None, steps)
                else:
                    self.review.files.reject_text(user_id, doc, reason or "discarded", steps)
                    self.review.files.trash(user_id, doc, f"discarded: {reason}" if reason else "discarded", steps)
                done.append(item_id)
            if not done:
                raise ReviewError("none of the chosen items can be taken in bulk: " + "; ".join(skipped))
            self.review.log.append(user_id, name, done[0], steps)
            verb = "approved" if name == "approve_all" else "discarded"
            self.review.log.emit(f"review.{name}", user_id, done[0], items=done, skipped=skipped,
                                 message=f"{verb} {len(done)} items in one step")
        verb = "approved" if name == "approve_all" else "discarded"
        note = f"; skipped {len(skipped)}: " + "; ".join(skipped) if skipped else ""
        return ActionResult(name, done[0], f"{verb} {len(done)} items in one step{note}")

    def staged_ids(self, user_id: str, *, kind: str | None = None, conversation: str | None = None) -> list[str]:
        """Staged items of one kind (a lane) and/or citing one conversation, queue order."""
        chosen = []
        for item in self.review.list_items(user_id).items:
            if kind is not None and item.kind != kind:
                continue
            if conversation is not None and conversation not in self.conversations_of(user_id, item.source_turns):
                continue
            chosen.append(item.doc_id)
        return chosen

    def conversations_of(self, user_id: str, numbers: Sequence[int]) -> list[str]:
        """The conversations the turns ``numbers`` belong to, first cited first."""
        source = self.review.turns
        found = [source.get(user_id, int(n)) for n in numbers] if source is not None else []
        return list(dict.fromkeys(t.conversation for t in found if t is not None))

    # ---- Internals

    def _knowledge(self, user_id: str, doc_id: str) -> Document:
        doc = find_knowledge(self.review.store, user_id, doc_id)
        if doc is None:
            raise ReviewError(f"no approved memory {doc_id}")
        return doc

    def _now(self) -> float:
        return self.review.clock.now()


def _provenance(origin: str, source_id: str, file: str, now: float) -> dict[str, Any]:
    return {"origin": origin, "written_by": "you", "at": iso_utc(now), "source_id": source_id,
            "source_files": [{"file": file}] if file else []}
