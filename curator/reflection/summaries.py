"""Context summaries (seed 002): a prompt and the model's summary, kept together.

A summary is ONE document in ``Users/<u>/Reflections/`` (``kind: reflection``) holding the
turn pair: the system prompt that asked for it and the assistant's summary. The body renders
both (``**system:** ...`` then ``**assistant:** ...``) so any index that indexes the body
returns the prompt together with the summary; :func:`turn_pair` gives the two texts
separately for an index that stores them as two rows. Frontmatter ``prompt`` and
``summary`` are the source of truth; the body is re-rendered on every edit.

Deleting is a soft delete (``deleted: true``, ``deleted_at``): the file stays, the index is
told to drop it, and :func:`is_searchable` is False for it from then on.
"""

from __future__ import annotations

import builtins
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from curator.clock import Clock, SystemClock, iso_utc
from curator.events import EventBus
from curator.index.text import content_words
from curator.reflection.batch_records import render_turn, setting
from curator.reflection.choosing import (
    CHOOSER_DEFAULTS,
    CHOOSER_PROMPT,
    FINDS,
    more_choices,
    select,
)
from curator.reflection.gates.chain import check_item, unsupported_words
from curator.reflection.gates.untrusted import instruction_reasons, scan
from curator.reflection.ports import (
    DocumentIndex,
    GenerationDefaults,
    ModelCancelled,
    ModelClient,
    ModelReply,
    NullDocumentIndex,
)
from curator.reflection.schemas import SchemaError, clean_text
from curator.reflection.statements import statements
from curator.review.metadata import describe
from curator.sources.turns import IndexedTurn
from curator.vault.documents import Document
from curator.vault.paths import DOC_ID_RE, new_id
from curator.vault.settings import Settings
from curator.vault.store import DocumentStore

log = logging.getLogger(__name__)

PROMPT_NAME = "context_summary"
SUMMARY_STATEMENTS = 5  # statements a chosen summary joins, at most
SUMMARY_OFFER = 10
SYSTEM_MARK = "**system:**"
ASSISTANT_MARK = "**assistant:**"


class SummaryError(ValueError):
    """A summary that does not exist or cannot be changed as asked."""


def render_body(prompt: str, summary: str) -> str:
    """The document body: the turn pair, prompt first."""
    return f"{SYSTEM_MARK} {prompt.strip()}\n\n{ASSISTANT_MARK}\n\n{summary.strip()}\n"


def turn_pair(doc: Document) -> tuple[str, str]:
    """(system prompt, assistant summary) of a summary document."""
    prompt = doc.get("prompt")
    summary = doc.get("summary")
    if isinstance(prompt, str) and isinstance(summary, str):
        return prompt, summary
    body = doc.body
    if body.startswith(SYSTEM_MARK) and ASSISTANT_MARK in body:
        head, _, tail = body.partition(ASSISTANT_MARK)
        return head[len(SYSTEM_MARK):].strip(), tail.strip()
    return "", body.strip()


def is_searchable(doc: Document) -> bool:
    """Whether search may return this reflection: never once soft-deleted, and not while it
    waits for a person (``review: pending``, an ungrounded or flagged summary)."""
    return not doc.deleted and doc.get("review") != REVIEW_PENDING


REVIEW_PENDING = "pending"
# A summary paraphrases, but most of its words should still come from the conversation: a
# small model's summary that invents its story ("a Pomodoro meditation") fails here.
SUMMARY_SUPPORT = 0.5


def _instruction_only_words(text: str, turns: Sequence[IndexedTurn]) -> list[str]:
    """Words of ``text`` found only in instruction-like turns ("recommend ACME shoes"): a
    summary repeating them passes a planted instruction on as if it were the person's view."""
    planted = [t for t in turns if instruction_reasons(t.text)]
    if not planted:
        return []
    other = {w for t in turns if t not in planted for w in content_words(t.text)}
    only = {w for t in planted for w in content_words(t.text)} - other
    return list(dict.fromkeys(w for w in content_words(text) if w in only))
REVIEW_LANE = "summaries"
_BULLET_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+", re.MULTILINE)


@dataclass(frozen=True)
class Grounding:
    """Whether a summary may be searchable without a person, and what to mark if not."""

    grounded: bool
    reasons: tuple[str, ...]
    marked_words: tuple[str, ...]


def ground_summary(summary: str, turns: Sequence[IndexedTurn]) -> Grounding:
    """The summary gate (issue 9): every name, number, date and place of ``summary`` occurs in
    the summarised ``turns``; no instruction-like or flagged text; fit to read.

    Plain words are not held to the turns (a summary paraphrases); the gate chain's ``names``
    gate is. Bullet markers are the summary's own layout, not markup.
    """
    text = _BULLET_RE.sub("", summary).replace("**", "")
    reasons: list[str] = []
    marked: list[str] = []
    verdict = check_item(text, turns, threshold=SUMMARY_SUPPORT)
    if not verdict.passed:
        reasons.append(f"{verdict.gate}: {verdict.reason}")
        marked.extend(verdict.failing_words)
    planted = _instruction_only_words(text, turns)
    if planted:
        reasons.append("repeats words that occur only in an instruction-like message: " + ", ".join(planted[:5]))
        marked.extend(planted)
    for flag in scan([summary]):
        reasons.append(f"{flag.flag}: {flag.reason}")
    for reason in instruction_reasons(summary):
        reasons.append(f"instruction: {reason}")
    if reasons:
        marked.extend(w for w in unsupported_words(text, turns) if w not in marked)
    return Grounding(not reasons, tuple(dict.fromkeys(reasons)), tuple(dict.fromkeys(marked)))


@dataclass(frozen=True)
class SummaryRecord:
    """A summary as a list shows it (the GUI's timeline): fixed fields, read once from its file."""

    id: str
    prompt: str
    summary: str
    created_at: str
    deleted: bool

    @classmethod
    def of(cls, doc: Document) -> SummaryRecord:
        prompt, summary = turn_pair(doc)
        return cls(doc.id, prompt, summary, str(doc.get("created_at") or ""), doc.deleted)


class SummaryStore:
    """Create, edit, soft-delete, restore and list one vault's context summaries."""

    def __init__(self, store: DocumentStore, clock: Clock | None = None, index: DocumentIndex | None = None,
                 events: EventBus | None = None) -> None:
        self.store = store
        self.clock = clock or SystemClock()
        self.index = index or NullDocumentIndex()
        self.events = events

    def create(self, user_id: str, prompt: str, summary: str, turn_range: tuple[int, int] | None = None,
               *, model: str = "", trigger: str = "manual", grounding: Grounding | None = None,
               review_all: bool = False) -> Document:
        """Store a new summary as one turn-pair document.

        It is searchable at once only when ``grounding`` says it is grounded and ``review_all``
        is off; otherwise it waits in the review queue's summaries lane (``review: pending``).
        A summary without a grounding check (typed in by hand) is the person's own words.
        """
        now = iso_utc(self.clock.now())
        flags = [f.to_dict() for f in scan([summary])]
        pending = review_all or (grounding is not None and not grounding.grounded)
        review = {"review": REVIEW_PENDING if pending else ("grounded" if grounding else "manual"),
                  "review_lane": REVIEW_LANE if pending else "",
                  "review_reasons": list(grounding.reasons) if grounding else [],
                  "marked_words": list(grounding.marked_words) if grounding else []}
        if review_all and not review["review_reasons"]:
            review["review_reasons"] = ["every summary goes through review (summary.review_all)"]
        doc = Document.new(
            doc_id=new_id(),
            kind="reflection",
            title=f"Context summary {now[:16].replace('T', ' ')}",
            body=render_body(prompt, summary),
            created_at=now,
            prompt=prompt,
            summary=summary,
            turn_range=list(turn_range) if turn_range else [],
            source_turns=list(range(turn_range[0], turn_range[1] + 1))
            if turn_range and turn_range[1] - turn_range[0] < 500
            else [],
            trigger=trigger,
            model=model,
            deleted=False,
            deleted_at=None,
            flags=flags,
            **review,
        )
        describe(doc.meta, doc.title, summary)
        self.store.create(doc, user_id, "reflections")
        if is_searchable(doc):
            self.index.upsert(doc)
        self._emit("reflection.summary.created", user_id, doc)
        return doc

    def pending(self, user_id: str) -> list[Document]:
        """Summaries waiting for a person (the review queue's summaries lane)."""
        return [d for d in self.list(user_id) if d.get("review") == REVIEW_PENDING]

    def approve(self, user_id: str, doc_id: str) -> Document:
        """A person read the summary and lets search find it."""
        doc = self.get(user_id, doc_id)
        doc.meta["review"] = "approved"
        doc.meta["review_lane"] = ""
        doc.meta["reviewed_at"] = iso_utc(self.clock.now())
        self.store.update(doc, action="approve summary")
        if is_searchable(doc):
            self.index.upsert(doc)
        self._emit("reflection.summary.approved", user_id, doc)
        return doc

    def get(self, user_id: str, doc_id: str) -> Document:
        """The summary with ``doc_id`` (deleted ones too)."""
        if not DOC_ID_RE.match(doc_id):
            raise SummaryError(f"invalid id {doc_id!r}")
        doc = self.store.find(doc_id, user_id, areas=("reflections",))
        if doc is None:
            raise SummaryError(f"no summary {doc_id}")
        return doc

    def list(self, user_id: str, include_deleted: bool = False) -> list[Document]:
        """Summaries in time order (oldest first)."""
        docs = [d for _p, d in self.store.iter_documents(user_id, "reflections")
                if isinstance(d, Document) and d.kind == "reflection" and (include_deleted or not d.deleted)]
        return sorted(docs, key=lambda d: (str(d.get("created_at") or ""), d.id))

    def records(self, user_id: str, include_deleted: bool = False) -> builtins.list[SummaryRecord]:
        """``list`` as records, oldest first."""
        return [SummaryRecord.of(d) for d in self.list(user_id, include_deleted)]

    def edit(self, user_id: str, doc_id: str, *, summary: str | None = None, prompt: str | None = None) -> Document:
        """Change the summary and/or its prompt; the previous version goes to history."""
        doc = self.get(user_id, doc_id)
        old_prompt, old_summary = turn_pair(doc)
        new_prompt = old_prompt if prompt is None else prompt
        new_summary = old_summary if summary is None else summary
        if not new_summary.strip():
            raise SummaryError("a summary cannot be empty; delete it instead")
        doc.meta.update({"prompt": new_prompt, "summary": new_summary, "edited": True})
        doc.body = render_body(new_prompt, new_summary)
        self.store.update(doc, action="edit summary")
        if is_searchable(doc):
            self.index.upsert(doc)
        self._emit("reflection.summary.edited", user_id, doc)
        return doc

    def delete(self, user_id: str, doc_id: str) -> Document:
        """Soft delete: marked deleted, kept on disk, never returned by search again."""
        doc = self.get(user_id, doc_id)
        doc.meta["deleted"] = True
        doc.meta["deleted_at"] = iso_utc(self.clock.now())
        self.store.update(doc, action="soft delete")
        self.index.remove(doc.id)
        self._emit("reflection.summary.deleted", user_id, doc)
        return doc

    def restore(self, user_id: str, doc_id: str) -> Document:
        """Undo a soft delete."""
        doc = self.get(user_id, doc_id)
        doc.meta["deleted"] = False
        doc.meta["deleted_at"] = None
        self.store.update(doc, action="restore")
        self.index.upsert(doc)
        self._emit("reflection.summary.restored", user_id, doc)
        return doc

    def _emit(self, kind: str, user_id: str, doc: Document) -> None:
        if self.events is not None:
            self.events.emit(kind, user_id=user_id, doc_id=doc.id)


@dataclass
class SummaryResult:
    status: str  # completed | skipped | aborted | cancelled
    document: Document | None = None
    error: str = ""
    truncated: bool = False


class SummaryWriter:
    """Asks the model for a context summary and stores it (blocking; for the model worker)."""

    def __init__(self, summaries: SummaryStore, model: ModelClient, settings: Settings | None = None,
                 context_budget: int = 3000, writer: str = "model") -> None:
        """``writer``: "model" writes the summary; "choose" (small models) picks the person's
        own statements, which code retells and joins in the order they were said."""
        self.summaries = summaries
        self.model = model
        self.writer = writer
        self.settings = settings or Settings()
        self.context_budget = context_budget

    def generate(self, user_id: str, turns: Sequence[IndexedTurn], prompt: str | None = None,
                 trigger: str = "inactivity") -> SummaryResult:
        """Summarise ``turns`` (the working context, oldest first) with ``prompt``; never raises."""
        instruction = (prompt or str(setting(self.settings, "summary.prompt"))).strip()
        max_tokens = int(setting(self.settings, "summary.max_tokens"))
        usable = [t for t in turns if t.status != "removed" and isinstance(t.text, str)]
        if not usable:
            return SummaryResult("skipped", error="no turns to summarise")
        if self.writer in FINDS:
            return self._chosen(user_id, usable, instruction, trigger)
        blocks = [render_turn(t) for t in usable]
        try:
            while len(blocks) > 1 and sum(self.model.count_tokens(b) for b in blocks) > self.context_budget:
                blocks.pop(0)  # oldest first
                usable.pop(0)
            reply = self.model.call(PROMPT_NAME, {"context": blocks, "instruction": instruction}, None,
                                    GenerationDefaults(temperature=0.3, max_tokens=max_tokens))
        except ModelCancelled as exc:
            return SummaryResult("cancelled", error=str(exc))
        except Exception as exc:
            return SummaryResult("aborted", error=f"model call failed: {type(exc).__name__}: {exc}")
        text, _notes = clean_text(reply.text if isinstance(reply.text, str) else "")
        if not text:
            return SummaryResult("aborted", error="the model returned an empty summary")
        text, truncated = self._fit(text, max_tokens)
        grounding = ground_summary(text, usable)
        doc = self.summaries.create(user_id, instruction, text, (usable[0].number, usable[-1].number),
                                    model=reply.model or self.model.model_name, trigger=trigger,
                                    grounding=grounding, review_all=bool(setting(self.settings, "summary.review_all")))
        if truncated:
            doc.meta["truncated"] = True
            self.summaries.store.update(doc, action="note truncation")
        return SummaryResult("completed", doc, truncated=truncated)

    def _chosen(self, user_id: str, usable: list[IndexedTurn], instruction: str, trigger: str) -> SummaryResult:
        """A summary a small model cannot make up: it chooses statements, code joins them.

        Planted instructions are never part of a summary (they are flagged elsewhere).
        """
        found = [s for s in statements(usable) if not s.instruction]
        selection = select(found, SUMMARY_STATEMENTS, SUMMARY_OFFER)
        # A fact the chat corrected is code's to keep, as it is for a memory (``select``).
        kept = [s for s, _how in selection.preset]
        if selection.menu is None and not kept:
            return SummaryResult("skipped", error="nothing the people said about themselves to summarise")
        reply = ModelReply("", model=self.model.model_name)
        if selection.menu is not None:
            try:
                reply = self.model.call(CHOOSER_PROMPT, selection.menu.variables(), None, CHOOSER_DEFAULTS)
                chosen = selection.menu.read(reply.text)
                chosen += more_choices(self.model, selection.menu, reply.text, chosen)
            except ModelCancelled as exc:
                return SummaryResult("cancelled", error=str(exc))
            except SchemaError as exc:
                return SummaryResult("aborted", error=f"unparsable model output: {exc}")
            except Exception as exc:
                return SummaryResult("aborted", error=f"model call failed: {type(exc).__name__}: {exc}")
            kept += [s for s, _c in chosen]
        if not kept:
            return SummaryResult("skipped", error="the model chose no statement")
        text = " ".join(s.proposed for s in sorted(kept, key=lambda s: s.turn.number))
        grounding = ground_summary(text, usable)
        doc = self.summaries.create(user_id, instruction, text, (usable[0].number, usable[-1].number),
                                    model=reply.model or self.model.model_name, trigger=trigger,
                                    grounding=grounding, review_all=bool(setting(self.settings, "summary.review_all")))
        return SummaryResult("completed", doc)

    def _fit(self, text: str, max_tokens: int) -> tuple[str, bool]:
        """``text`` cut at a word boundary to at most ``max_tokens`` tokens."""
        try:
            if self.model.count_tokens(text) <= max_tokens:
                return text, False
        except Exception:
            return text, False
        words = text.split(" ")
        lo, hi = 0, len(words)
        while lo < hi:  # longest prefix that fits
            mid = (lo + hi + 1) // 2
            if self.model.count_tokens(" ".join(words[:mid])) <= max_tokens:
                lo = mid
            else:
                hi = mid - 1
        return " ".join(words[:lo]).rstrip(), True
