"""Session-end micro-reflection (seed 003).

On silence, session end or context pressure: a bounded excerpt of the conversation (at most
80 entries and 9,000 characters, each entry cut to 240 characters, newest kept), a guard
against conversations too small to learn from, the already-known facts listed so the model
does not repeat them, and at most ``micro.max_facts`` facts (temperature 0.2, 1,200 tokens).

Code checks every fact: its evidence quote must occur in the excerpt; an ``author`` fact must
name an author of the excerpt (mapped to that author's user id); a fact that ``supersedes``
an existing fact becomes a ``correction`` staged with both texts; a fact that contradicts one
becomes a ``contradiction``; then the usual dedup, rejected-before and untrusted-output
checks apply.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from curator.clock import Clock, SystemClock
from curator.events import EventBus
from curator.index.text import elide
from curator.reflection.batch_records import StagedRef, setting, top_keywords
from curator.reflection.choosing import (
    CHOOSER_DEFAULTS,
    CHOOSER_PROMPT,
    CHOSEN,
    FINDS,
    FOLDED,
    OFFER_PER_FACT,
    corrected,
    more_choices,
    select,
)
from curator.reflection.contradictions import ContradictionDetector, ModelConfirmer
from curator.reflection.corrected import corrected_memory
from curator.reflection.gates.chain import quote_key, reground
from curator.reflection.gates.fingerprints import RejectedMemory
from curator.reflection.gates.quality import (
    DEFAULT_KEYWORD_SUPPORT,
    Proposal,
    QualityGates,
    Rejection,
    confidence_for,
    keyword_support,
)
from curator.reflection.gates.similarity import similarity
from curator.reflection.knowledge import knowledge_doc
from curator.reflection.narrowing import NARROWING_KEY, MicroNarrowing, quote_options
from curator.reflection.pipeline import draft_for, flag, provenance, route_contradiction, stage_all
from curator.reflection.ports import (
    GenerationDefaults,
    KnowledgeDoc,
    KnowledgeIndex,
    ModelCancelled,
    ModelClient,
    ModelReply,
)
from curator.reflection.rephrase import as_memory, is_first_person, is_quotation
from curator.reflection.rewording import worded
from curator.reflection.schemas import (
    MICRO_SCHEMA,
    ItemRejection,
    MicroFact,
    MicroOutput,
    SchemaError,
    parse_micro_output,
    short,
)
from curator.reflection.statements import Statement, statements, title_of
from curator.review.staging import StagingArea
from curator.sources.turns import IndexedTurn
from curator.vault.paths import VaultPaths
from curator.vault.settings import Settings
from curator.vault.store import DocumentStore

log = logging.getLogger(__name__)

PROMPT_NAME = "micro_reflection"
DEFAULTS = GenerationDefaults(temperature=0.2, max_tokens=1200)
MAX_ENTRIES = 80
MAX_TOTAL_CHARS = 9_000
MAX_ENTRY_CHARS = 240
MIN_ENTRIES = 2
MIN_TOTAL_CHARS = 80
SUPERSEDES_MATCH = 0.8
EXISTING_FACTS = 20
TRIGGERS = ("silence", "session_end", "context_pressure", "manual")
# What the model reads instead of a trigger's code name (seed 003 writes "a text channel that
# just went quiet"): a code like "silence" tells a small model nothing.
TRIGGER_LABELS = {
    "silence": "a chat that just went quiet",
    "session_end": "a chat session that has ended",
    "context_pressure": "a chat nearing the end of the model's context window",
    "manual": "a chat the person asked you to reflect on",
}
# Seed 003 keeps facts about the bot itself only from voice sessions; every source this app
# reads is a text chat, where "the assistant is helpful" is its default behaviour, not a memory.
BOT_FACT_TRIGGERS: frozenset[str] = frozenset()


def trigger_label(trigger: str) -> str:
    """The words a prompt uses for ``trigger``."""
    return TRIGGER_LABELS.get(trigger, TRIGGER_LABELS["manual"])


def assistant_name(entries: Sequence[MicroEntry], default: str = "the assistant") -> str:
    """The name the client gave the assistant or character in ``entries``, else ``default``.

    SillyTavern, Open WebUI and others write the character's or model's name on each reply;
    the most frequent such name is the bot the excerpt talks with.
    """
    from curator.reflection.rephrase import GENERIC_SPEAKERS

    names = [inline(e.author, 80) for e in entries if e.is_bot and e.author.casefold() not in GENERIC_SPEAKERS]
    if not names:
        return default
    return max(dict.fromkeys(names), key=names.count)


@dataclass(frozen=True)
class MicroEntry:
    """One message of the excerpt."""

    author: str
    content: str
    is_bot: bool
    author_id: str | None = None
    turn: IndexedTurn | None = None


@dataclass(frozen=True)
class Excerpt:
    entries: tuple[MicroEntry, ...]
    text: str


@dataclass
class MicroResult:
    """Outcome of one micro-reflection."""

    status: str  # completed | skipped | aborted | cancelled
    reason: str = ""
    facts_proposed: int = 0
    staged: list[StagedRef] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    error: str = ""
    raw_response: str = ""


def inline(text: str, limit: int) -> str:
    """Whitespace collapsed to single spaces and cut to ``limit`` characters."""
    return " ".join(str(text or "").split())[:limit].strip()


def normalise_quote(text: str) -> str:
    """Case- and spacing-insensitive form used to find an evidence quote in the excerpt."""
    # Quote style folded: offered quotes carry typographic quotes (narrowing.grammar_safe).
    return quote_key(text)


def entries_from_turns(turns: Sequence[IndexedTurn]) -> list[MicroEntry]:
    """User and assistant turns as excerpt entries in time order (system and tool turns are left out).

    Seed 003 orders the excerpt by time: a client that appends late or a merge of several
    files can index a message after one written later. A turn without a time of its own
    carries the time before it, so it keeps its place.
    """
    out = []
    for turn in sorted(turns, key=lambda t: (t.timestamp, t.number)):
        if turn.status == "removed" or turn.role not in ("user", "assistant"):
            continue
        is_bot = turn.role == "assistant"
        author = turn.speaker or ("assistant" if is_bot else "user")
        out.append(MicroEntry(author, turn.text, is_bot, None if is_bot else turn.user_id, turn))
    return out


def bound_excerpt(
    entries: Sequence[MicroEntry],
    max_entries: int = MAX_ENTRIES,
    max_chars: int = MAX_TOTAL_CHARS,
    per_entry: int = MAX_ENTRY_CHARS,
) -> Excerpt:
    """The newest entries that fit the limits, in time order, rendered ``- author: text``."""
    kept: list[MicroEntry] = []
    lines: list[str] = []
    total = 0
    for entry in reversed(list(entries)):
        content = inline(entry.content, per_entry)
        if not content:
            continue
        author = inline(entry.author, 80) or "unknown"
        line = f"- {author}: {content}"
        next_total = total + len(line) + (1 if lines else 0)
        if len(kept) >= max_entries or next_total > max_chars:
            break
        kept.append(MicroEntry(author, content, entry.is_bot, entry.author_id, entry.turn))
        lines.append(line)
        total = next_total
    kept.reverse()
    lines.reverse()
    return Excerpt(tuple(kept), "\n".join(lines))


def too_small(entries: Sequence[MicroEntry]) -> str:
    """Why a conversation is too small to reflect on ("" when it is big enough)."""
    usable = [e for e in entries if inline(e.content, MAX_ENTRY_CHARS)]
    if len(usable) < MIN_ENTRIES:
        return f"conversation too small: {len(usable)} entries (need {MIN_ENTRIES})"
    if not any(not e.is_bot for e in usable):
        return "conversation too small: no message from a person"
    chars = sum(len(inline(e.content, MAX_ENTRY_CHARS)) for e in usable)
    if chars < MIN_TOTAL_CHARS:
        return f"conversation too small: {chars} characters (need {MIN_TOTAL_CHARS})"
    return ""


@dataclass
class _Reading:
    """What checking one reply's facts needs: the excerpt, its authors, the known facts."""

    user_id: str
    trigger: str
    excerpt: Excerpt
    excerpt_norm: str
    authors: list[str]
    name_to_id: dict[str, str]
    existing: list[KnowledgeDoc]
    gates: QualityGates
    threshold: float
    seen: set[str] = field(default_factory=set)  # facts and quotes of this reply already taken


class MicroReflector:
    """Runs micro-reflections for the users of one vault (blocking; for the model worker)."""

    def __init__(
        self,
        paths: VaultPaths,
        store: DocumentStore,
        knowledge: KnowledgeIndex,
        model: ModelClient,
        settings: Settings | None = None,
        *,
        clock: Clock | None = None,
        events: EventBus | None = None,
        rejected: RejectedMemory | None = None,
        bot_name: str = "the assistant",
        confirm_contradictions: bool = False,
        writer: str = "model",
    ) -> None:
        """``writer``: "model", "choose" or "reword" (see :class:`~curator.reflection.batch.BatchReflector`)."""
        self.writer = writer
        self.paths = paths
        self.store = store
        self.knowledge = knowledge
        self.model = model
        self.settings = settings or Settings()
        self.clock = clock or SystemClock()
        self.events = events
        self.rejected = rejected if rejected is not None else RejectedMemory(paths, self.clock)
        self.staging = StagingArea(store, self.clock)
        self.bot_name = bot_name
        self.detector = ContradictionDetector(ModelConfirmer(model) if confirm_contradictions else None)

    def run(
        self,
        user_id: str,
        entries: Sequence[MicroEntry],
        trigger: str = "silence",
        existing_facts: Sequence[KnowledgeDoc] | None = None,
    ) -> MicroResult:
        """Reflect on ``entries`` (oldest first); never raises."""
        try:
            result = self._run(user_id, entries, trigger, existing_facts)
        except ModelCancelled as exc:
            result = MicroResult("cancelled", error=f"cancelled: {exc}")
        except Exception as exc:
            log.exception("micro-reflection failed")
            result = MicroResult("aborted", error=f"{type(exc).__name__}: {exc}")
        if self.events is not None:
            self.events.emit("reflection.micro.finished", user_id=user_id, status=result.status,
                             staged=len(result.staged), reason=result.reason, error=result.error)
        return result

    def _run(self, user_id: str, entries: Sequence[MicroEntry], trigger: str,
             existing_facts: Sequence[KnowledgeDoc] | None) -> MicroResult:
        reason = too_small(entries)
        if reason:
            return MicroResult("skipped", reason=reason)
        excerpt = bound_excerpt(entries)
        if not excerpt.entries:
            return MicroResult("skipped", reason="conversation empty after bounding")
        authors = list(dict.fromkeys(e.author for e in excerpt.entries if not e.is_bot))
        name_to_id = {e.author.casefold(): e.author_id for e in excerpt.entries if not e.is_bot and e.author_id}
        if existing_facts is None:
            # Seed 003 lists the facts already held about the excerpt's subjects (its authors,
            # the assistant, lore); the excerpt's keywords only order them.
            turns = [e.turn for e in excerpt.entries if e.turn is not None]
            query = " ".join(top_keywords(turns)) if turns else " ".join(e.content for e in excerpt.entries[-5:])
            subjects = list(dict.fromkeys(e.author_id for e in excerpt.entries if not e.is_bot and e.author_id))
            existing_facts = self.knowledge.about(user_id, subjects or [user_id], query, limit=EXISTING_FACTS)
        existing = list(existing_facts)
        max_facts = int(setting(self.settings, "micro.max_facts"))
        bot_name = assistant_name(excerpt.entries, self.bot_name)
        variables: dict[str, Any] = {
            "trigger": trigger_label(trigger),
            "bot_name": bot_name,
            "author_names": ", ".join(authors),
            "max_facts": str(max_facts),
            "existing_facts": [f'[{d.doc_id}] "{" ".join(d.text.split())[:300]}"' for d in existing],
            "excerpt": excerpt.text,
            # Grammar narrowing: evidence is one of the people's sentences, names are authors.
            NARROWING_KEY: MicroNarrowing(
                [q for e in excerpt.entries if not e.is_bot for q in quote_options(e.content)],
                authors, [" ".join(d.text.split())[:300] for d in existing]),
        }
        if self.writer in FINDS:
            # Facts staged from earlier in the chat can be corrected before anyone reviewed them.
            existing += self._staged_facts(user_id)
            asked = self._choose(excerpt, max_facts, existing)
        else:
            asked = self._ask(variables)
        if isinstance(asked, MicroResult):
            return asked
        reply, output = asked

        result = MicroResult("completed")
        result.rejections = [Rejection(f"facts: {r.item}", r.gate, r.reason) for r in output.rejected]
        result.facts_proposed = len(output.facts) + len(output.rejected)
        for extra in output.facts[max_facts:]:
            result.rejections.append(
                Rejection(f"facts: {short(extra.fact, 70)}", "cap", f"more than {max_facts} facts")
            )
        reading = _Reading(
            user_id=user_id, trigger=trigger, excerpt=excerpt, excerpt_norm=normalise_quote(excerpt.text),
            authors=authors, name_to_id=name_to_id, existing=existing,
            gates=QualityGates(user_id, _NoTurns(), self.knowledge, self.rejected),
            threshold=float(setting(self.settings, "gates.keyword_support") or DEFAULT_KEYWORD_SUPPORT),
        )
        passing: list[Proposal] = []
        for fact in output.facts[:max_facts]:
            verdict = self._judge(reading, fact)
            if isinstance(verdict, Rejection):
                result.rejections.append(verdict)
            else:
                passing.append(verdict)
        self._stage(user_id, passing, reply, result)
        return result

    def _judge(self, reading: _Reading, fact: MicroFact) -> Proposal | Rejection:
        """``fact`` as a proposal that passed every check, or why it was rejected."""
        authors = reading.authors
        speaker = fact.subject_name.strip() or (authors[0] if len(authors) == 1 else "")
        if fact.subject == "author" and speaker and is_first_person(fact.fact) and not is_quotation(fact.fact):
            # A copied "I ..." sentence reads as a memory about its author; gates judge the result.
            fact.fact = as_memory(fact.fact, speaker)
        # Code's title of the statement: a title made from a model's wording held its own
        # capitalised words ("Cause her face to get puffy") that the turn does not.
        title = fact.title or (title_of(fact.fact, speaker) if self.writer in FINDS else elide(fact.fact, 80))
        item = Proposal("fact", "facts", title, fact.fact, "Facts", notes=list(fact.notes))
        # A small model repeats itself: the same fact twice in one reply is one proposal.
        # Two facts resting on the same quote are one item too.
        keys = {normalise_quote(fact.fact), "quote:" + normalise_quote(fact.evidence)} - {"quote:"}
        if keys & reading.seen:
            return Rejection(item.label(), "dedup", "repeats an earlier fact of the same reply")
        if fact.subject == "bot" and reading.trigger not in BOT_FACT_TRIGGERS:
            return Rejection(item.label(), "subject",
                             "a fact about the assistant itself is kept from voice sessions only (seed 003)")
        grounded = self._ground(reading, fact, item)
        if isinstance(grounded, Rejection):
            return grounded
        item.fields.update({"subject": fact.subject, "subject_name": fact.subject_name, "subject_id": grounded,
                            "fact_type": fact.type, "evidence": fact.evidence,
                            "model_confidence": round(fact.confidence, 2), "trigger": reading.trigger})
        if fact.earlier:
            # The fact it corrects in the same chat: a batch that finds that sentence later must
            # see the card already holds it (see pipeline.same_words).
            item.fields["earlier_evidence"] = fact.earlier
        rejection = reading.gates.rejected_before(item) or self._route(reading, fact, item)
        if rejection is not None:
            return rejection
        item.confidence = confidence_for(item.cited) if item.cited else 0.60
        flag(item, [fact.evidence, fact.subject_name],
             batch=[(e.turn.number, e.turn.text) for e in reading.excerpt.entries if e.turn is not None])
        reading.seen.update(keys)
        return item

    def _ground(self, reading: _Reading, fact: MicroFact, item: Proposal) -> str | Rejection:
        """Check the evidence quote, the subject and the keywords; the subject's user id ('' when
        the fact is not about an author), or why the fact is not grounded in the excerpt."""
        quote = normalise_quote(fact.evidence)
        if not quote or quote not in reading.excerpt_norm:
            return Rejection(item.label(), "evidence",
                             "evidence quote does not occur in the excerpt" if quote else "no evidence quote")
        item.gates.append("evidence")
        subject_id = ""
        if fact.subject == "author":
            # A name that is not an author of the excerpt falls back to the only author (seed
            # 003), when the evidence is that author's own words: with several authors, or a
            # quote from the assistant, it would pin someone else's words on them.
            name = fact.subject_name.strip().casefold()
            authors = reading.authors
            single_author = reading.name_to_id.get(authors[0].casefold()) if len(authors) == 1 else None
            theirs = any(not e.is_bot and quote in normalise_quote(e.content) for e in reading.excerpt.entries)
            subject_id = reading.name_to_id.get(name, "") or (single_author if theirs else "") or ""
            if subject_id and name and name not in reading.name_to_id:
                item.notes.append(f"author {short(fact.subject_name, 30)!r} is not in the excerpt; "
                                  f"the only author, {authors[0]}, said it")
                fact.subject_name = authors[0]
            if not subject_id:
                return Rejection(item.label(), "subject",
                                 f"author {short(fact.subject_name, 30)!r} is not in the excerpt")
        entries = reading.excerpt.entries
        item.cited = [e.turn for e in entries if e.turn is not None and quote in normalise_quote(e.content)]
        earlier = normalise_quote(fact.earlier)
        if earlier:  # a fact corrected in the same chat rests on both turns
            item.cited = [e.turn for e in entries if e.turn is not None and e.turn not in item.cited
                          and earlier in normalise_quote(e.content)] + item.cited
        item.source_turns = [t.number for t in item.cited]
        # A real quote does not make the fact true: the fact's own words must be in the
        # turns the quote came from, as the batch keyword gate demands of batch items.
        support = keyword_support(fact.fact, item.cited, reading.threshold)
        if item.cited and not support.passed:
            # The model copied one sentence and cited another: code may cite the right one.
            people = [e.turn for e in entries if e.turn is not None and not e.is_bot]
            moved = reground(fact.fact, people, reading.threshold)
            if moved is not None:
                item.cited = [t for t in people if t.number == moved.turn]
                item.source_turns = [moved.turn]
                fact.evidence = moved.quote
                item.notes.append(f"evidence re-cited by code: turn {moved.turn}")
                support = keyword_support(fact.fact, item.cited, reading.threshold)
        if item.cited and not support.passed:
            return Rejection(item.label(), support.gate, support.reason)
        if item.cited:
            item.gates.append("keyword")
        return subject_id

    def _route(self, reading: _Reading, fact: MicroFact, item: Proposal) -> Rejection | None:
        """Make ``item`` a correction of the fact it supersedes, or a contradiction; else dedup it."""
        target = self._superseded(fact.supersedes, reading.existing)
        if target is None and fact.supersedes.strip():
            target = self._superseded(fact.supersedes,
                                      self.knowledge.search(reading.user_id, fact.supersedes, limit=5))
        if target is not None:
            item.kind, item.section, item.category = "correction", "facts", "Corrections"
            item.title = f"Correction: {short(target.title, 60)}"
            new_text = fact.fact
            if self.writer in FINDS:
                # Code cannot merge two sentences, but it can swap the one value a correction
                # denies ("September, not October"); else the correction replaces the old text.
                # Either way the superseded value is gone; both texts' turns are cited.
                new_text = corrected_memory(target.text, fact.fact)
                item.text = new_text
                item.source_turns = sorted(set(item.source_turns) | set(target.source_turns))
            item.fields.update({"target_id": target.doc_id, "target_title": target.title, "old_text": target.text,
                                "new_text": new_text, "target_hash": target.content_hash,
                                "target_confidence": target.confidence, "supersedes": fact.supersedes,
                                "target_staged": target.kind == "staged-fact"})
            return None
        if route_contradiction(item, reading.user_id, self.knowledge, self.detector):
            return None
        if fact.supersedes:
            item.notes.append("supersedes did not match any existing fact")
        return reading.gates.dedup(item)

    def _stage(self, user_id: str, passing: list[Proposal], reply: ModelReply, result: MicroResult) -> None:
        """Stage the passing proposals; ``result.staged`` lists them."""
        model_name = reply.model or self.model.model_name
        drafts = [
            draft_for(
                i,
                None,
                "micro",
                provenance(i, "micro", None, model_name, reply.prompt_version, self.clock.now()),
            )
            for i in passing
        ]
        outcome = stage_all(self.staging, user_id, drafts, None)
        root = self.paths.user(user_id).root
        for doc in outcome.staged:
            assert doc.path is not None
            result.staged.append(StagedRef(doc.id, doc.kind, doc.title, doc.path.relative_to(root).as_posix(),
                                           bool(doc.get("quarantine"))))

    def _staged_facts(self, user_id: str) -> list[KnowledgeDoc]:
        """Facts waiting for review, as correction targets (kind ``staged-fact``)."""
        docs, _problems = self.staging.scan(user_id)
        return [replace(knowledge_doc(d), kind="staged-fact") for d in docs if d.kind == "fact" and not d.deleted]

    def _ask(self, variables: dict[str, Any]) -> tuple[ModelReply, MicroOutput] | MicroResult:
        """The model writes the facts; its reply parsed, or the aborted result."""
        try:
            reply = self.model.call(PROMPT_NAME, variables, MICRO_SCHEMA, DEFAULTS)
        except ModelCancelled:
            raise
        except Exception as exc:
            return MicroResult("aborted", error=f"model call failed: {type(exc).__name__}: {exc}")
        try:
            if reply.problems:
                raise SchemaError("; ".join(reply.problems))
            return reply, parse_micro_output(reply.text)
        except SchemaError as exc:
            return MicroResult("aborted", error=f"unparsable model output: {exc}",
                               raw_response=str(reply.text)[:100_000])

    def _choose(self, excerpt: Excerpt, max_facts: int,
                existing: Sequence[KnowledgeDoc]) -> tuple[ModelReply, MicroOutput] | MicroResult:
        """The model chooses among the people's statements in the excerpt; code words the facts.

        A correction of something known or waiting for review is always shown (a stale memory
        left standing is worse than one more item to read), and so is a planted instruction.
        """
        in_excerpt = normalise_quote(excerpt.text)
        turns = [e.turn for e in excerpt.entries if e.turn is not None and not e.is_bot]
        # The turns here are the people's own: the one before a statement need not be the turn
        # before it in the chat, so a model wording it is not shown one.
        found = [replace(s, previous=None) for s in statements(turns) if normalise_quote(s.evidence) in in_excerpt]
        selection = select(found, max_facts, OFFER_PER_FACT * max_facts, existing)
        picked: list[tuple[Statement, str, str]] = []
        not_worded: list[ItemRejection] = []
        for s, how in selection.preset:
            by = "code"
            if how == FOLDED and self.writer == "reword":
                # A capable model words the fact as corrected; when its wording does not stand,
                # or it finds nothing lasting, code's quote of both sentences is proposed.
                kept, refused = worded(self.model, [(s, "Facts")])
                if kept:
                    s, by = kept[0][0], kept[0][2]
                    not_worded += refused
            picked.append((s, how, by))
        reply = ModelReply("", model=self.model.model_name)
        if selection.menu is not None:
            try:
                reply = self.model.call(CHOOSER_PROMPT, selection.menu.variables(), None, CHOOSER_DEFAULTS)
            except ModelCancelled:
                raise
            except Exception as exc:
                return MicroResult("aborted", error=f"model call failed: {type(exc).__name__}: {exc}")
            try:
                chosen = selection.menu.read(reply.text)
                chosen += more_choices(self.model, selection.menu, reply.text, chosen)
            except SchemaError as exc:
                return MicroResult("aborted", error=f"unparsable model output: {exc}",
                                   raw_response=str(reply.text)[:100_000])
            if self.writer == "reword":
                kept, not_worded = worded(self.model, chosen)
                picked += [(s, CHOSEN, by) for s, _category, by in kept]
            else:
                picked += [(s, CHOSEN, "code") for s, _category in chosen]
        people = sorted({s.turn.speaker for s in found if s.turn.speaker})
        facts = [MicroFact("author", s.turn.speaker, s.proposed, "other", 0.75, s.evidence,
                           corrected(s, existing, people),
                           [f"{how}; worded by {by}"],
                           s.earlier.evidence if s.earlier else (s.previous_evidence or s.named_by_evidence), s.title)
                 for s, how, by in picked]
        return reply, MicroOutput(facts=facts, rejected=not_worded)

    @staticmethod
    def _superseded(text: str, existing: Sequence[KnowledgeDoc]) -> KnowledgeDoc | None:
        """The existing fact ``supersedes`` names: exact (normalised) text, else very similar."""
        if not text.strip():
            return None
        wanted = normalise_quote(text)
        for doc in existing:
            if normalise_quote(doc.text) == wanted:
                return doc
        scored = [(similarity(text, doc.text), doc) for doc in existing]
        scored = [s for s in scored if s[0] >= SUPERSEDES_MATCH]
        return max(scored, key=lambda s: s[0])[1] if scored else None


class _NoTurns:
    """Micro-reflection cites excerpt entries, not index lookups; the turn gate is not used."""

    def get(self, user_id: str, number: int) -> IndexedTurn | None:
        return None

    def turns_since(self, user_id: str, after_number: int, limit: int) -> list[IndexedTurn]:
        return []


