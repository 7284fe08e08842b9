"""Applying an approved item to Knowledge: corrections, lifecycle changes, contradiction answers.

Each change goes through :class:`~curator.review.file_ops.UndoableFiles`, so the steps logged
at the end reverse it exactly.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from curator.clock import Clock, iso_utc
from curator.review.action_log import ActionLog
from curator.review.file_ops import Steps, UndoableFiles
from curator.review.items import find_knowledge, find_staged, require_flags_ok
from curator.review.lifecycle import approval_meta, demotion_meta
from curator.review.records import ActionResult, ChangedOnDiskError, ReviewError, unified
from curator.review.staging import file_hash
from curator.vault.documents import Document
from curator.vault.store import DocumentStore


class Applier:
    """Writes what an approved correction, lifecycle item or resolved contradiction means."""

    def __init__(self, store: DocumentStore, files: UndoableFiles, log: ActionLog, clock: Clock) -> None:
        self.store = store
        self.files = files
        self.log = log
        self.clock = clock

    def _finish(self, user_id: str, action: str, doc: Document, steps: Steps, target: str, message: str,
                rel: str) -> ActionResult:
        self.log.append(user_id, action, doc.id, steps)
        self.log.emit("review.approved", user_id, doc.id, path=rel, target=target)
        return ActionResult("approve", doc.id, message, [rel], file_hash(self.files.abs(user_id, rel)))

    # ---- Corrections

    def correction(self, user_id: str, doc: Document, text: str | None) -> ActionResult:
        target = find_knowledge(self.store, user_id, str(doc.get("target_id") or ""))
        if target is None and doc.get("target_staged"):
            return self.staged_correction(user_id, doc, text)
        if target is None or target.path is None:
            raise ReviewError(f"the corrected document {doc.get('target_id')} is no longer in Knowledge")
        expected = str(doc.get("target_hash") or "")
        old_text = str(doc.get("old_text") or "")
        # The words it corrects are what matter: approving, pinning or rating the memory since
        # changes its file but not what the correction replaces (a fact approved after its
        # correction was staged, "approve all facts" then the correction, is the common case).
        same_words = bool(old_text) and " ".join(target.body.split()) == " ".join(old_text.split())
        if expected and file_hash(target.path) != expected and not same_words:
            raise ChangedOnDiskError(f"{target.id} changed since the correction was staged",
                                     unified(old_text, target.body, "when staged", "now"))
        new_text = (text if text is not None else doc.body).strip()
        hint = str(doc.get("new_confidence_hint") or "same")
        confidence = target.confidence + {"higher": 0.1, "lower": -0.15}.get(hint, 0.0)
        steps: Steps = []
        rel = self.files.update_knowledge(user_id, target, steps, body=new_text, action="correction", meta={
            "confidence": round(max(0.0, min(0.95, confidence)), 2),
            "source_turns": sorted(set(target.source_turns) | set(doc.source_turns)),
            "corrected_by": doc.id,
            "corrected_at": iso_utc(self.clock.now()),
            "superseded": superseded(target, target.body),
            **swapped_labels(target, target.body, new_text),
            **demotion_meta(target, self.clock.now(), f"corrected by {doc.id}"),
        })
        self.files.trash(user_id, doc, f"correction applied to {target.id}", steps)
        return self._finish(user_id, "approve", doc, steps, target.id, f"correction applied to {rel}", rel)

    def staged_correction(self, user_id: str, doc: Document, text: str | None) -> ActionResult:
        """A correction of a fact still waiting for review: the fact is approved as corrected.

        Both were staged from the same chat before the person saw either ("Lisbon in
        October", then "actually September"); approving the correction keeps one memory with
        the corrected text, and the correction item leaves the queue.
        """
        target_id = str(doc.get("target_id") or "")
        try:
            target = find_staged(self.store, user_id, target_id)
        except ReviewError as exc:
            raise ReviewError(f"the corrected item {target_id} is no longer waiting for review") from exc
        assert target.path is not None
        # Its text, not its bytes: a staged item's sightings are counted in its frontmatter.
        old_text = str(doc.get("old_text") or "")
        if old_text and target.body.strip() != old_text.strip():
            raise ChangedOnDiskError(f"{target_id} changed since the correction was staged",
                                     unified(old_text, target.body, "when staged", "now"))
        new_text = (text if text is not None else doc.body).strip()
        target.meta["source_turns"] = sorted(set(target.source_turns) | set(doc.source_turns))
        target.meta["corrected_by"] = doc.id
        target.meta["superseded"] = superseded(target, target.body)
        target.meta.update(swapped_labels(target, target.body, new_text))
        steps: Steps = []
        rel = self.files.move_to_knowledge(user_id, target, "corrected", new_text, steps)
        self.files.trash(user_id, doc, f"correction applied to {target_id}", steps)
        return self._finish(user_id, "approve", doc, steps, target_id,
                            f"correction applied; approved into {rel}", rel)

    # ---- Lifecycle

    def lifecycle(self, user_id: str, doc: Document) -> ActionResult:
        """A confirmed promotion or "still true?": change the target's scope or renew its date."""
        target = find_knowledge(self.store, user_id, str(doc.get("target_id") or ""))
        if target is None or target.path is None:
            raise ReviewError(f"the document {doc.get('target_id')} is no longer in Knowledge")
        steps: Steps = []
        rel = self.files.update_knowledge(user_id, target, steps,
                                          meta=approval_meta(doc, target, self.clock.now()), action=doc.kind)
        self.files.trash(user_id, doc, f"{doc.kind} confirmed for {target.id}", steps)
        return self._finish(user_id, "approve", doc, steps, target.id, f"{doc.kind} applied to {rel}", rel)

    # ---- Contradictions

    def resolve(self, user_id: str, doc: Document, choice: str, note: str, accept_flags: bool) -> ActionResult:
        """Resolve a contradiction: keep_a (existing), keep_b (proposed), keep_both (note), keep_neither."""
        existing = self._checked_existing(user_id, doc, choice, note, accept_flags)
        steps: Steps = []
        paths = self._apply_choice(user_id, doc, existing, choice, note, steps)
        self.log.append(user_id, f"resolve:{choice}", doc.id, steps)
        self.log.emit("review.resolved", user_id, doc.id, choice=choice)
        return ActionResult("resolve", doc.id, f"resolved with {choice}", paths)

    def _checked_existing(self, user_id: str, doc: Document, choice: str, note: str,
                          accept_flags: bool) -> Document | None:
        """The existing fact a contradiction is about, once the answer is known to be possible."""
        if doc.kind != "contradiction":
            raise ReviewError(f"{doc.id} is a {doc.kind}, not a contradiction")
        if choice == "keep_both" and not note.strip():
            raise ReviewError("keep_both needs a note saying how both can be true (e.g. when or where each holds)")
        if choice in ("keep_b", "keep_both"):
            require_flags_ok(doc, accept_flags)
        existing = find_knowledge(self.store, user_id, str(doc.get("existing_id") or ""))
        expected = str(doc.get("existing_hash") or "")
        if existing is not None and expected and existing.path is not None and file_hash(existing.path) != expected:
            raise ChangedOnDiskError(f"{existing.id} changed since the contradiction was staged",
                                     unified(str(doc.get("existing_text") or ""), existing.body, "when staged", "now"))
        if existing is None and choice in ("keep_b", "keep_neither"):
            raise ReviewError(f"the existing document {doc.get('existing_id')} is no longer in Knowledge")
        return existing

    def _apply_choice(self, user_id: str, doc: Document, existing: Document | None, choice: str, note: str,
                      steps: Steps) -> list[str]:
        files = self.files
        paths: list[str] = []
        if choice == "keep_a":
            files.reject_text(user_id, doc, "contradiction resolved: kept the existing fact", steps)
            files.trash(user_id, doc, "contradiction resolved: kept the existing fact", steps)
        elif choice == "keep_b":
            assert existing is not None
            paths.append(files.update_knowledge(user_id, existing, steps, body=doc.body.strip(),
                                                meta={"superseded_text": existing.body.strip(), "corrected_by": doc.id,
                                                      **demotion_meta(existing, self.clock.now(),
                                                                      f"contradicted by {doc.id}")},
                                                action="contradiction: kept proposed"))
            files.trash(user_id, doc, "contradiction resolved: proposed fact replaced the existing one", steps)
        elif choice == "keep_both":
            if existing is not None:
                meta = {"contradiction_note": note,
                        **demotion_meta(existing, self.clock.now(), f"contradicted by {doc.id}")}
                paths.append(files.update_knowledge(user_id, existing, steps, meta=meta,
                                                    action="contradiction: kept both"))
            doc.meta["kind"] = "fact"
            doc.meta["contradiction_note"] = note
            doc.meta["category"] = str(doc.get("proposed_category") or "Facts")
            paths.append(files.move_to_knowledge(user_id, doc, "kept both", None, steps))
        else:
            assert existing is not None
            files.trash(user_id, existing, "contradiction resolved: kept neither", steps, area="knowledge")
            files.reject_text(user_id, doc, "contradiction resolved: kept neither", steps)
            files.trash(user_id, doc, "contradiction resolved: kept neither", steps)
        return paths


def swapped_labels(target: Document, old_text: str, new_text: str) -> dict[str, Any]:
    """The title and keywords with the value a correction swapped ("dienstags" -> "freitags").

    A correction that changes one word of the memory leaves its title and keywords naming the
    superseded value; they follow the body. Any other change leaves them to the person.
    """
    old_words, new_words = _TOKEN.findall(old_text), _TOKEN.findall(new_text)
    changes = [op for op in difflib.SequenceMatcher(a=old_words, b=new_words, autojunk=False).get_opcodes()
               if op[0] != "equal"]
    if len(changes) != 1 or changes[0][0] != "replace":
        return {}
    _, i1, i2, j1, j2 = changes[0]
    if i2 - i1 != 1 or j2 - j1 != 1:
        return {}
    gone, new = old_words[i1], new_words[j1]
    pattern = re.compile(rf"(?<![^\W_]){re.escape(gone)}(?![^\W_])", re.IGNORECASE)
    out: dict[str, Any] = {}
    if pattern.search(target.title):
        out["title"] = pattern.sub(new, target.title)
    keywords = [new.casefold() if k.casefold() == gone.casefold() else k for k in target.keywords]
    if keywords != target.keywords:
        out["keywords"] = keywords
    return out


_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)


def superseded(target: Document, old_text: str) -> list[str]:
    """The texts a corrected memory no longer holds, newest last: core memory must not keep them."""
    earlier = [str(t) for t in target.get("superseded") or [] if str(t).strip()]
    return [*earlier, " ".join(old_text.split())][-10:]
