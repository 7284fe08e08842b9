"""The batch reflector (seed 000 §3-§10) on top of the ports.

One run: assemble the turns since the last batch (at most ``batch.max_turns``, about
``batch.token_budget`` tokens, oldest dropped first), find existing knowledge with the batch's
top keywords, make ONE model call (prompt ``batch_reflector``; temperature 0.6 and 1500
tokens unless the prompt file says otherwise), parse strictly, cap, gate, route
contradictions, flag untrusted output, stage, run the promotion lifecycle and write
``Users/<u>/Logs/reflector/batch_NNN.json``.

Error handling (seed 000 §9): a failed call waits ``model.retry_wait_seconds`` and retries
once, then aborts; unparsable output is logged raw and aborts; a turn that cannot be read is
logged and skipped; an all-rejected batch is a success (``reset_counters`` is True). A run
never raises: failures come back as a :class:`BatchResult` with ``status="aborted"``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from curator.clock import Clock, SystemClock
from curator.events import EventBus
from curator.index.text import elide
from curator.reflection.batch_records import (
    AssembledBatch,
    BatchResult,
    StagedRef,
    next_batch_id,
    render_turn,
    setting,
    top_keywords,
    write_batch_log,
)
from curator.reflection.choosing import (
    BATCH_OFFER,
    CHOOSER_DEFAULTS,
    CHOOSER_PROMPT,
    CHOSEN,
    FINDS,
    WRITERS,
    more_choices,
    new_fact,
    select,
)
from curator.reflection.contradictions import ContradictionDetector, ModelConfirmer
from curator.reflection.gates.chain import Evidence, quote_key, reground, tidy
from curator.reflection.gates.fingerprints import RejectedMemory
from curator.reflection.gates.quality import (
    DEFAULT_KEYWORD_SUPPORT,
    Proposal,
    QualityGates,
    Rejection,
    apply_caps,
    confidence_for,
    proposals_from_batch,
)
from curator.reflection.gates.similarity import similarity
from curator.reflection.narrowing import (
    NARROWING_KEY,
    batch_narrowing,
    restore_quote,
)
from curator.reflection.pipeline import draft_for, flag, provenance, route_contradiction, stage_all
from curator.reflection.ports import (
    GenerationDefaults,
    KnowledgeDoc,
    KnowledgeIndex,
    ModelCancelled,
    ModelClient,
    ModelReply,
    TurnSource,
)
from curator.reflection.rephrase import as_memory, is_first_person, is_quotation
from curator.reflection.rewording import worded
from curator.reflection.schemas import (
    BATCH_SCHEMA,
    BatchOutput,
    SchemaError,
    parse_batch_output,
)
from curator.reflection.statements import statements
from curator.review.staging import RECURRENCE_SIMILARITY, StagingArea
from curator.sources.turns import IndexedTurn
from curator.vault.paths import VaultPaths
from curator.vault.settings import Settings
from curator.vault.store import DocumentStore

log = logging.getLogger(__name__)

PROMPT_NAME = "batch_reflector"
DEFAULTS = GenerationDefaults(temperature=0.6, max_tokens=1500)
KNOWLEDGE_LIMIT = 8
RAW_LOG_LIMIT = 100_000


def _content_problem(error: str) -> bool:
    """An error the turns' text can cause (grammar construction, parsing), not a model outage."""
    return "grammar" in error.lower() or "unparsable" in error.lower()


class BatchReflector:
    """Runs batch reflections for the users of one vault.

    Threading contract: ``run`` is blocking and meant for the single model worker; it calls
    the model port once (twice on a retry) and emits events on the calling thread.
    """

    def __init__(
        self,
        paths: VaultPaths,
        store: DocumentStore,
        turns: TurnSource,
        knowledge: KnowledgeIndex,
        model: ModelClient,
        settings: Settings | None = None,
        *,
        clock: Clock | None = None,
        sleep: Callable[[float], None] = time.sleep,
        events: EventBus | None = None,
        rejected: RejectedMemory | None = None,
        confirm_contradictions: bool = False,
        writer: str = "model",
    ) -> None:
        """``writer``: "model" (the model writes each item), "choose" (it chooses among the
        person's own statements, worded by code: for models too small to write grounded text)
        or "reword" (it chooses among them and words each, checked: for capable models)."""
        if writer not in WRITERS:
            raise ValueError(f"writer must be one of {WRITERS}, not {writer!r}")
        self.writer = writer
        self.paths = paths
        self.store = store
        self.turns = turns
        self.knowledge = knowledge
        self.model = model
        self.settings = settings or Settings()
        self.clock = clock or SystemClock()
        self.sleep = sleep
        self.events = events
        self.rejected = rejected if rejected is not None else RejectedMemory(paths, self.clock)
        self.staging = StagingArea(store, self.clock)
        self.detector = ContradictionDetector(ModelConfirmer(model) if confirm_contradictions else None)

    # ---- Public API

    def run(self, user_id: str, after_turn: int, trigger: str = "manual", urgency_score: float = 0.0) -> BatchResult:
        """Run one batch over the turns numbered above ``after_turn``; never raises."""
        started = time.monotonic()
        folder = self.paths.user(user_id).reflector_logs
        batch_id = next_batch_id(folder)
        result = BatchResult(batch_id=batch_id, status="aborted", reset_counters=False)
        record: dict[str, Any] = {}
        try:
            self._run(user_id, after_turn, result, record)
        except ModelCancelled as exc:
            result.status, result.reset_counters, result.error = "cancelled", False, f"cancelled: {exc}"
        except Exception as exc:  # the reflector never takes the rest of the app down
            log.exception("batch %s failed", batch_id)
            result.status, result.reset_counters = "aborted", False
            result.error = result.error or f"{type(exc).__name__}: {exc}"
        result.duration_ms = int((time.monotonic() - started) * 1000)
        try:
            result.log_path = write_batch_log(self.clock.now(), folder, result, trigger, urgency_score, record)
        except OSError as exc:
            log.error("could not write batch log %s: %s", batch_id, exc)
        if self.events is not None:
            self.events.emit("reflection.batch.finished", user_id=user_id, batch_id=batch_id,
                             status=result.status, staged=len(result.staged), error=result.error)
        return result

    # ---- Steps

    def _run(self, user_id: str, after_turn: int, result: BatchResult, record: dict[str, Any]) -> None:
        batch = self.assemble(user_id, after_turn)
        record["read_errors"] = batch.read_errors
        record["budget"] = {"tokens": batch.tokens, "token_budget": setting(self.settings, "batch.token_budget"),
                            "dropped_turns": batch.dropped}
        result.turns_reviewed = [t.number for t in batch.turns]
        result.last_turn = max(batch.numbers, default=None)
        if not batch.turns:
            result.status, result.reset_counters = "nothing_to_do", True
            return

        knowledge = self.knowledge.search(user_id, " ".join(top_keywords(batch.turns)), limit=KNOWLEDGE_LIMIT)
        part = list(zip(batch.turns, batch.blocks, strict=True))
        record["writer"] = self.writer
        if self.writer in FINDS:
            output = self._choose(batch.turns, record, result)
        else:
            output = self._reflect(part, knowledge, record, result)
        if output is None:
            if _content_problem(result.error) and len(part) == 1:
                # One turn the model cannot be asked about or answer for: logged and passed over.
                self._skip(part, record, result)
                result.status, result.reset_counters = "skipped", True
            return
        record["parse_notes"] = output.notes

        result.items_proposed = output.item_count + len(output.rejected)
        passing = self._judge(output, batch.turns, user_id, result)
        self._stage(passing, user_id, result, record)
        self._lifecycle(user_id, result, record)
        result.status = "completed" if passing else "empty"
        result.reset_counters = True

    def _judge(self, output: BatchOutput, turns: Sequence[IndexedTurn], user_id: str,
               result: BatchResult) -> list[Proposal]:
        """Caps, then the gate chain per item (with a re-cited turn as the one second chance)."""
        rejections = [Rejection(f"{r.section}: {r.item}", r.gate, r.reason) for r in output.rejected]
        rejections.extend(apply_caps(output))
        passing: list[Proposal] = []
        threshold = float(setting(self.settings, "gates.keyword_support") or DEFAULT_KEYWORD_SUPPORT)
        gates = QualityGates(user_id, self.turns, self.knowledge, self.rejected, keyword_threshold=threshold)
        for item in proposals_from_batch(output):
            rejection = self._gate(item, gates, user_id)
            if rejection is not None and rejection.gate in ("keyword", "evidence") and item.kind == "fact":
                rejection = self._regrounded(item, gates, user_id, turns) or rejection
                rejection = None if rejection.gate == "" else rejection
            rejection = rejection or _repeats(item, passing)
            if rejection is not None:
                rejections.append(rejection)
                continue
            item.confidence = confidence_for(item.cited)
            flag(item, batch=[(t.number, t.text) for t in turns])
            passing.append(item)
        result.rejections = rejections
        result.items_passed = len(passing)
        return passing

    def _stage(self, passing: list[Proposal], user_id: str, result: BatchResult, record: dict[str, Any]) -> None:
        model, version = str(record.get("model", "")), str(record.get("prompt_version", ""))
        drafts = [draft_for(i, result.batch_id, "batch",
                            provenance(i, "batch", result.batch_id, model, version, self.clock.now()))
                  for i in passing]
        outcome = stage_all(self.staging, user_id, drafts, result.batch_id)
        root = self.paths.user(user_id).root
        for doc in outcome.staged:
            assert doc.path is not None
            result.staged.append(StagedRef(doc.id, doc.kind, doc.title, doc.path.relative_to(root).as_posix(),
                                           bool(doc.get("quarantine"))))
        result.recurring = [d.id for d in outcome.recurring]

    def _reflect(self, part: list[tuple[IndexedTurn, str]], knowledge: Sequence[KnowledgeDoc],
                 record: dict[str, Any], result: BatchResult) -> BatchOutput | None:
        """The parsed output for ``part``; on output that cannot be built or parsed, its halves.

        A turn whose text breaks grammar construction or parsing must not stop every later batch
        of that person (it did: the batch was retried forever). So the newer and older halves get
        one call each; turns of a half that fails too are logged as skipped, and the run still
        resets the counters. A model that cannot be called at all aborts as before.
        """
        reply = self._call(self._variables(part, knowledge), record)
        if reply is None:
            result.error = str(record.get("error", "model call failed"))
            if _content_problem(result.error) and len(part) > 1 and not record.get("split"):
                return self._halves(part, knowledge, record, result)
            return None
        record["model"] = reply.model or self.model.model_name
        record["prompt_version"] = reply.prompt_version
        record["finish_reason"] = reply.finish_reason
        try:
            if reply.problems:
                raise SchemaError("; ".join(reply.problems))
            return parse_batch_output(reply.text)
        except SchemaError as exc:
            record["raw_response"] = (
                reply.text[:RAW_LOG_LIMIT]
                if isinstance(reply.text, str)
                else repr(reply.text)[:RAW_LOG_LIMIT]
            )
            result.error = f"unparsable model output: {exc}"
            record["error"] = result.error
            if len(part) == 1 or record.get("split"):
                return None
            return self._halves(part, knowledge, record, result)

    def _choose(self, turns: Sequence[IndexedTurn], record: dict[str, Any],
                result: BatchResult) -> BatchOutput | None:
        """The model chooses among the person's statements; code words the memories (with
        writer "reword" the model words each chosen one, checked: curator.reflection.rewording).

        Instruction-like statements are never offered as a choice: each is staged on its own,
        flagged by the untrusted-output checks, so the person sees it and decides. They take
        places of the batch's two (seed 000's cap holds).
        """
        # A correction ("actually ... not October") waits for the session-end micro-reflection,
        # which knows the staged and approved facts it corrects; staged here it would be a
        # second, unlinked copy of the same news.
        selection = select([s for s in statements(turns) if not s.corrects], 2, BATCH_OFFER)
        out = BatchOutput(new_facts=[new_fact(s, "Facts", how) for s, how in selection.preset])
        menu = selection.menu
        if menu is None:
            return out
        record["offered"] = [{"turn": s.turn.number, "rank": s.rank, "memory": s.memory} for s in menu.offered]
        reply = self._call(menu.variables(), record, CHOOSER_PROMPT, CHOOSER_DEFAULTS)
        if reply is None:
            result.error = str(record.get("error", "model call failed"))
            return None
        record["model"] = reply.model or self.model.model_name
        record["prompt_version"] = reply.prompt_version
        record["finish_reason"] = reply.finish_reason
        try:
            picked = menu.read(reply.text)
            picked += more_choices(self.model, menu, reply.text, picked)
        except SchemaError as exc:
            record["raw_response"] = str(reply.text)[:RAW_LOG_LIMIT]
            result.error = record["error"] = f"unparsable model output: {exc}"
            return None
        if self.writer == "reword":
            chosen, out.rejected = worded(self.model, picked)
        else:
            chosen = [(s, category, "code") for s, category in picked]
        record["chosen"] = [s.turn.number for s, _c, _by in chosen]
        out.new_facts.extend(new_fact(s, category, CHOSEN, by) for s, category, by in chosen)
        return out

    def _halves(self, part: list[tuple[IndexedTurn, str]], knowledge: Sequence[KnowledgeDoc],
                record: dict[str, Any], result: BatchResult) -> BatchOutput | None:
        record["split"] = True
        middle = len(part) // 2
        merged = BatchOutput()
        answered = False
        for half in (part[:middle], part[middle:]):
            attempt: dict[str, Any] = {"split": True}
            out = self._reflect(half, knowledge, attempt, result)
            if out is None:
                if not _content_problem(str(attempt.get("error", ""))):
                    return None  # the model itself failed: abort, keep the counters
                record["error"] = attempt.get("error", "")
                self._skip(half, record, result)
                continue
            answered = True
            for section in ("new_facts", "corrections", "connections", "open_questions", "rejected", "notes"):
                getattr(merged, section).extend(getattr(out, section))
            for key in ("model", "prompt_version", "finish_reason"):
                if key in attempt:
                    record[key] = attempt[key]
        result.error = "" if answered else result.error
        return merged

    def _skip(self, part: list[tuple[IndexedTurn, str]], record: dict[str, Any], result: BatchResult) -> BatchOutput:
        numbers = [t.number for t, _b in part]
        log.warning("batch: skipped turns %s: %s", numbers, record.get("error", ""))
        record["skipped_turns"] = [*record.get("skipped_turns", []), *numbers]
        return BatchOutput(notes=[f"turns {numbers} skipped: {record.get('error', '')}"])

    def _variables(self, part: list[tuple[IndexedTurn, str]], knowledge: Sequence[KnowledgeDoc]) -> dict[str, Any]:
        turns = [t for t, _b in part]
        # Lists, not joined text: the runtime may trim them to fit (prompt file ``trim`` rules).
        existing = [f"[{d.doc_id}] ({d.category}) {d.title}: {' '.join(d.text.split())[:300]}" for d in knowledge]
        return {
            "turns": [b for _t, b in part],
            "turn_numbers": ", ".join(str(t.number) for t in turns),
            "existing_knowledge": existing,
            # Grammar narrowing: cite only shown turns, copy only their sentences, name only shown ids.
            NARROWING_KEY: batch_narrowing(turns, [d.doc_id for d in knowledge]),
        }

    def _regrounded(self, item: Proposal, gates: QualityGates, user_id: str,
                    turns: Sequence[IndexedTurn]) -> Rejection | None:
        """The item cited anew by code when another shown turn grounds it (same gates again)."""
        evidence = reground(item.text, turns, gates.keyword_threshold)
        if evidence is None:
            return None
        item.source_turns, item.evidence, item.gates = [evidence.turn], [evidence], []
        item.notes.append(f"evidence re-cited by code: turn {evidence.turn}")
        rejection = self._gate(item, gates, user_id)
        return rejection if rejection is not None else Rejection(item.label(), "", "")

    def _gate(self, item: Proposal, gates: QualityGates, user_id: str) -> Rejection | None:
        for step in (gates.turn_existence, _with_evidence, gates.keyword, gates.related_file, gates.rejected_before):
            rejection = step(item)
            if rejection is not None:
                return rejection
        # A contradiction often scores as a near-duplicate ("lives in Porto" / "lives in Braga"),
        # so it is routed before the dedup gate can throw it away.
        if route_contradiction(item, user_id, self.knowledge, self.detector):
            return None
        if item.kind in ("fact", "open_question"):
            rejection = gates.dedup(item)
            if rejection is not None:
                return rejection
        return gates.drift_guard(item)

    def assemble(self, user_id: str, after_turn: int) -> AssembledBatch:
        """Turns since ``after_turn`` rendered within the token budget (oldest dropped first)."""
        max_turns = int(setting(self.settings, "batch.max_turns"))
        budget = int(setting(self.settings, "batch.token_budget"))
        blocks: list[tuple[IndexedTurn, str, int]] = []
        read_errors: list[dict[str, Any]] = []
        numbers: list[int] = []
        for turn in self.turns.turns_since(user_id, after_turn, max_turns):
            try:
                numbers.append(int(turn.number))
                if turn.status == "removed":
                    raise OSError("its source file is gone or no longer has this message")
                block = render_turn(turn)
                blocks.append((turn, block, self._count(block)))
            except Exception as exc:  # one unreadable turn must not sink the batch
                number = getattr(turn, "number", None)
                log.warning("batch: skipped turn %s: %s", number, exc)
                read_errors.append({"turn": number, "error": f"{type(exc).__name__}: {exc}"})
        dropped: list[int] = []
        while len(blocks) > 1 and sum(b[2] for b in blocks) > budget:
            dropped.append(blocks.pop(0)[0].number)
        if blocks and blocks[0][2] > budget:
            # A single turn larger than the whole budget: keep its newest part, and say so.
            turn, block, tokens = blocks[0]
            keep = max(1, int(len(block) * budget / max(tokens, 1)))
            block = f"[turn {turn.number}: only the last part fits the budget]\n" + block[-keep:]
            blocks[0] = (turn, block, self._count(block))
        return AssembledBatch(
            turns=[b[0] for b in blocks],
            blocks=[b[1] for b in blocks],
            tokens=sum(b[2] for b in blocks),
            dropped=dropped,
            read_errors=read_errors,
            numbers=numbers,
        )

    def _count(self, text: str) -> int:
        try:
            return int(self.model.count_tokens(text))
        except ModelCancelled:
            raise
        except Exception:  # no tokenizer available: a conservative estimate
            return len(text) // 3 + 1

    def _call(self, variables: dict[str, Any], record: dict[str, Any], prompt: str = PROMPT_NAME,
              defaults: GenerationDefaults = DEFAULTS) -> ModelReply | None:
        attempts: list[dict[str, Any]] = []
        record["attempts"] = attempts
        wait = float(setting(self.settings, "model.retry_wait_seconds"))
        for attempt in (1, 2):
            try:
                schema = BATCH_SCHEMA if prompt == PROMPT_NAME else None
                reply = self.model.call(prompt, variables, schema, defaults)
                attempts.append({"attempt": attempt, "ok": True})
                return reply
            except ModelCancelled:
                raise
            except Exception as exc:
                attempts.append({"attempt": attempt, "ok": False, "error": f"{type(exc).__name__}: {exc}"})
                log.warning("batch model call failed (attempt %d): %s", attempt, exc)
                if attempt == 1:
                    self.sleep(wait)
        record["error"] = f"model call failed twice: {attempts[-1]['error']}"
        return None

    def _lifecycle(self, user_id: str, result: BatchResult, record: dict[str, Any]) -> None:
        docs, problems = self.staging.scan(user_id)
        record["staging_problems"] = [{"path": str(p.path), "reason": p.reason} for p in problems]
        root = self.paths.user(user_id).root
        if bool(setting(self.settings, "batch.auto_promote")):
            for path in self.staging.auto_promote(user_id, docs):
                result.promoted_files.append(path.relative_to(root).as_posix())
            docs, _ = self.staging.scan(user_id)
        for entry in self.staging.expire(user_id, docs, int(setting(self.settings, "batch.expiry_days"))):
            result.expired_files.append(entry.original)


def _repeats(item: Proposal, passing: Sequence[Proposal]) -> Rejection | None:
    """A small model often proposes the same item twice in one reply: keep the first."""
    quotes = {quote_key(e.quote) for e in item.evidence}
    for earlier in passing:
        if earlier.kind == item.kind and similarity(item.text, earlier.text) > RECURRENCE_SIMILARITY:
            return Rejection(item.label(), "dedup", "repeats an earlier item of the same batch")
        if quotes and quotes == {quote_key(e.quote) for e in earlier.evidence}:
            return Rejection(item.label(), "dedup", "rests on the same quote as an earlier item of the same batch")
    return None


def _with_evidence(item: Proposal) -> Rejection | None:
    """The person's own characters back in each quote, and the quotes kept as evidence.

    Quotes were offered in grammar-safe form (narrowing.grammar_safe); the chain checks each
    one in its own turn right after this.
    """
    by_number = {t.number: t for t in item.cited}
    item.evidence = [
        Evidence(
            e.turn,
            restore_quote(e.quote, by_number[e.turn].text) if e.turn in by_number else e.quote,
        )
        for e in item.evidence
    ]
    if item.evidence:
        item.fields["evidence"] = " … ".join(e.quote for e in item.evidence)
        item.fields["evidence_quotes"] = [{"turn": e.turn, "quote": e.quote} for e in item.evidence]
    item.text = tidy(item.text)
    speaker = next((t.speaker for t in item.cited if t.role == "user" and t.speaker), "")
    if item.kind == "fact" and speaker and is_first_person(item.text) and not is_quotation(item.text):
        # Not a quotation ('The user said: "... me mudo a Múnich"'): its words and the title made of
        # them are the person's own, in a language the English rules would garble ("the user mudo").
        # A copied "I ..." sentence reads as a memory about the speaker; the gates judge the result.
        item.notes.append("rephrased from the first person by code")
        item.text = as_memory(item.text, speaker)
        if is_first_person(item.title):
            item.title = elide(as_memory(item.title, speaker), 60)
    return None
