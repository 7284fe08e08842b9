"""The kill -9 cycle shared by the fault suite (tests/faults) and ``curator bench --suite faults``.

One cycle: note what the vault holds, run one operation (import, approve, discard, edit,
undo, reindex) in a child ``curator`` process that is killed by SIGKILL at an injected
point (``CURATOR_FAULT``), then open the vault again (the start-up recovery runs) and check
the invariants:

- nothing lost: every document id is still in staging, Knowledge or the trash, and every
  message of the chat files is an active turn once the files are read again;
- nothing duplicated: no id in two places, no message indexed twice;
- all or nothing: the item the operation acted on is where it was before or where the
  finished operation puts it, never in between;
- the undo history still works (its newest entry can be undone);
- the index equals one rebuilt from the vault (checked every ``reindex_every`` cycles).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curator.clock import iso_utc
from curator.engine import Engine
from curator.faults import ENV
from curator.review.staging import StagedDraft, StagingArea
from curator.vault.documents import Document
from curator.vault.paths import new_id

USER = "default"
AREAS = ("staging", "knowledge", "trash")

# Where each operation can be killed (None: it runs to the end).
FAULT_POINTS: dict[str, tuple[str | None, ...]] = {
    "ingest": ("ingest.after_ledger", "ingest.after_ledger@2", None),
    "approve": ("review.approve.after_intent", "store.move.after_write", "review.approve.before_log",
                "review.approve.before_done", None),
    "discard": ("review.discard.after_intent", "store.trash.after_note", "review.discard.before_log",
                "review.discard.before_done", None),
    "edit": ("review.edit.after_intent", "review.edit.before_log", "review.edit.before_done", None),
    "undo": ("review.undo.after_intent", "store.move.after_write", "store.restore.after_move",
             "review.undo.after_step", "review.undo.before_log", "review.undo.before_done", None),
    "reindex": ("reindex.before_swap", "reindex.mid_swap", None),
    # The person's own hand (issue 23): each is one intent-logged action like the above.
    "remember": ("review.remember.after_intent", "store.move.after_write", "review.remember.before_log",
                 "review.remember.before_done", None),
    "add": ("review.add.after_intent", "store.move.after_write", "review.add.before_log",
            "review.add.before_done", None),
    "pin": ("review.pin.after_intent", "review.pin.before_log", "review.pin.before_done", None),
    "retire": ("review.retire.after_intent", "review.retire.before_log", "review.retire.before_done", None),
    "merge": ("review.merge.after_intent", "store.move.after_write", "store.trash.after_note",
              "review.merge.before_log", "review.merge.before_done", None),
    "approve_all": ("review.approve_all.after_intent", "store.move.after_write@2", "review.approve_all.before_log",
                    "review.approve_all.before_done", None),
    "discard_all": ("review.discard_all.after_intent", "store.trash.after_note@2", "review.discard_all.before_log",
                    "review.discard_all.before_done", None),
}
OWN_HAND = ("remember", "add", "pin", "retire", "merge", "approve_all", "discard_all")
CASES: tuple[tuple[str, str | None], ...] = tuple((op, p) for op, points in FAULT_POINTS.items() for p in points)


@dataclass
class CycleResult:
    """What one cycle found (all zero / True when the invariants held)."""

    op: str
    fault: str | None
    killed: bool
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    half_done: list[str] = field(default_factory=list)
    undo_broken: str = ""
    index_equal: bool | None = None
    error: str = ""

    @property
    def ok(self) -> bool:
        return not (self.lost or self.duplicated or self.half_done or self.undo_broken or self.error) \
            and self.index_equal is not False


def _cli(vault: Path, args: list[str], fault: str | None, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop(ENV, None)
    if fault:
        env[ENV] = fault
    project = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (project, env.get("PYTHONPATH", "")) if p)
    return subprocess.run([sys.executable, "-m", "curator.cli.main", "--vault", str(vault), *args], env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)


class CrashBench:
    """A small vault and a chat folder, and the operations and checks of the cycle."""

    def __init__(self, root: Path, seed: int = 7) -> None:
        self.vault = root / "vault"
        self.chats = root / "chats"
        self.chats.mkdir(parents=True, exist_ok=True)
        self.rng = random.Random(seed)
        self.lines = 0
        self._append_messages(6)
        with Engine(self.vault, triggers=False) as engine:
            engine.add_source(self.chats)
            engine.scan_all()
            self.target = self._knowledge(engine)
            self.restock(engine)

    # ---- Building

    def _append_messages(self, count: int) -> None:
        path = self.chats / f"chat-{self.lines // 40}.jsonl"
        with path.open("a", encoding="utf-8") as handle:
            for _ in range(count):
                self.lines += 1
                role = "user" if self.lines % 2 else "assistant"
                colour = self.rng.choice(["red", "blue", "green"])
                text = f"message {self.lines}: the {colour} kettle number {self.lines}"
                handle.write(json.dumps({"role": role, "content": text, "id": f"m{self.lines}",
                                         "timestamp": iso_utc(1_790_000_000 + self.lines)}) + "\n")

    def _knowledge(self, engine: Engine) -> str:
        doc = Document.new(doc_id=new_id(), kind="fact", title="The kettle is red", body="The kettle is red.\n",
                           source_turns=[1], confidence=0.7, created_at="2026-11-20T18:30:00Z", scope="user")
        engine.document_changed(engine.store.create(doc, USER, "knowledge", "Facts"))
        return doc.id

    def restock(self, engine: Engine, at_least: int = 4) -> None:
        """Stage facts (and a correction) until at least ``at_least`` items wait."""
        staging = StagingArea(engine.store, engine.clock)
        staged = self.places(engine)
        waiting = sum(1 for areas in staged.values() if areas == ["staging"])
        for i in range(max(0, at_least - waiting)):
            n = self.rng.randrange(1_000_000)
            if i == 0 and not any(self._kind(engine, d) == "correction" for d, a in staged.items() if a == ["staging"]):
                draft = StagedDraft(kind="correction", title=f"Kettle colour {n}", text=f"The kettle is blue {n}.",
                                    category="Facts", source_turns=[2], confidence=0.7, batch_id=1, origin="batch",
                                    gates=["caps"], fields={"target_id": self.target, "old_text": "The kettle is red.",
                                                            "new_text": f"The kettle is blue {n}."})
            else:
                draft = _fact_draft(n)
            doc = staging.stage(USER, draft)
            if doc.path is not None:
                engine.document_changed(doc.path)

    @staticmethod
    def _kind(engine: Engine, doc_id: str) -> str:
        doc = engine.store.find(doc_id, USER, areas=("staging",))
        return doc.kind if doc is not None else ""

    # ---- Observing

    def places(self, engine: Engine) -> dict[str, list[str]]:
        """{document id: the areas (staging, knowledge, trash) that hold a copy}."""
        found: dict[str, list[str]] = {}
        for area in ("staging", "knowledge"):
            for path in engine.store.iter_paths(USER, area):
                doc_id = path.stem.rsplit("--", 1)[-1]
                found.setdefault(doc_id, []).append(area)
        trash = engine.paths.user(USER).trash
        if trash.is_dir():
            for path in trash.glob("*.md"):
                found.setdefault(path.stem.rsplit("--", 1)[-1], []).append("trash")
        return found

    def pick(self, engine: Engine, op: str) -> list[str]:
        """The arguments of ``curator`` for one run of ``op`` (restocking as needed)."""
        if op == "ingest":
            self._append_messages(self.rng.randint(1, 5))
            return ["import", str(self.chats)]
        if op == "reindex":
            return ["reindex"]
        if op == "undo":
            return ["review", "undo"]
        self.restock(engine)
        waiting = sorted(d for d, a in self.places(engine).items() if a == ["staging"])
        if op in OWN_HAND:
            return self._own_hand_args(engine, op, waiting)
        if op == "approve":
            corrections = [d for d in waiting if self._kind(engine, d) == "correction"]
            item = corrections[0] if corrections and self.rng.random() < 0.3 else self.rng.choice(waiting)
            return ["review", "approve", item, "--accept-flags"]
        item = self.rng.choice(waiting)
        if op == "discard":
            return ["review", "discard", item, "--reason", "soak"]
        return ["review", "edit", item, "--text", f"Edited text {self.rng.randrange(10**6)}."]

    def _own_hand_args(self, engine: Engine, op: str, waiting: list[str]) -> list[str]:
        n = self.rng.randrange(10**6)
        facts = [d for d in waiting if self._kind(engine, d) == "fact"]
        while len(facts) < 2:  # corrections pile up after undos; merges and bulks want facts
            doc = StagingArea(engine.store, engine.clock).stage(USER, _fact_draft(n + len(facts)))
            if doc.path is not None:
                engine.document_changed(doc.path)
            facts.append(doc.id)
        if op == "remember":
            turn = self.rng.choice(engine.index.turns(USER, limit=None))
            return ["remember", str(turn.number), "--text", turn.text.split(":", 1)[0], "--approve"]
        if op == "add":
            return ["add", f"The person painted kettle {n}.", "--turn", "1"]
        if op in ("pin", "retire"):
            live = self._live_knowledge(engine)
            if op == "pin":
                return ["pin" if not live[0][1] else "unpin", live[0][0]]
            return ["retire", live[-1][0], "--reason", f"no longer true {n}"]
        if op == "merge":
            parts = [*self.rng.sample(facts, 2), self._live_knowledge(engine)[-1][0]]
            return ["merge", *parts, "--text", f"The person owns kettles {n}."]
        chosen = self.rng.sample(facts, 2)
        return ["approve-all", *chosen] if op == "approve_all" else ["discard-all", *chosen, "--reason", "soak"]

    def _live_knowledge(self, engine: Engine) -> list[tuple[str, bool]]:
        """(id, pinned) of approved memories not retired, by id (two added when fewer are left)."""
        live = [(d.id, bool(d.get("pinned"))) for _, d in engine.store.iter_documents(USER, "knowledge")
                if isinstance(d, Document) and not d.get("retired_at")]
        while len(live) < 2:
            live.append((self._knowledge(engine), False))
        return sorted(live)

    # ---- One cycle

    def cycle(self, op: str, fault: str | None, check_index: bool = True) -> CycleResult:
        """Run ``op`` killed at ``fault``, restart, and check every invariant."""
        with Engine(self.vault, triggers=False) as engine:
            if op == "undo" and not self._undo_entries(engine):
                self._approve_one(engine)
            args = self.pick(engine, op)
            before = self.places(engine)
            undo_before = len(self._undo_entries(engine))
        item = args[2] if len(args) > 2 and args[0] == "review" else ""
        if op in ("merge", "approve_all", "discard_all"):
            item = ",".join(a for a in args[1:] if not a.startswith("-") and a in before)
        meta_before = self._knowledge_meta(op, args)
        done = _cli(self.vault, args, fault)
        result = CycleResult(op, fault, killed=done.returncode == -9)
        if done.returncode not in (0, -9):
            result.error = f"{' '.join(args)} exited {done.returncode}: {done.stderr.strip()[-300:]}"
        try:
            with Engine(self.vault, triggers=False) as engine:  # the restart: recovery runs here
                if op in OWN_HAND:  # before _check, which may undo the newest action
                    self._check_own_hand(engine, result, before, item, meta_before)
                self._check(engine, result, before, item, undo_before)
                if check_index:
                    result.index_equal = engine.reindex().equal
        except Exception as exc:
            result.error = result.error or f"restart failed: {type(exc).__name__}: {exc}"
        return result

    @staticmethod
    def _undo_entries(engine: Engine) -> list[Any]:
        from curator.review.actions import ReviewEngine

        return ReviewEngine(engine.paths, engine.store, clock=engine.clock).undo_log(USER)

    def _check(self, engine: Engine, result: CycleResult, before: dict[str, list[str]], item: str,
               undo_before: int) -> None:
        after = self.places(engine)
        for doc_id, areas in before.items():
            now = after.get(doc_id, [])
            if not now:
                result.lost.append(f"document {doc_id} (was in {'+'.join(areas)})")
            elif len(now) > 1:
                result.duplicated.append(f"document {doc_id} in {'+'.join(now)}")
            elif doc_id == item and result.op in ("approve", "discard"):
                allowed = {"approve": {"staging", "knowledge", "trash"}, "discard": {"staging", "trash"}}[result.op]
                if now[0] not in allowed:
                    result.half_done.append(f"{doc_id} in {now[0]} after {result.op}")
        for doc_id, now in after.items():
            if doc_id not in before and len(now) > 1:
                result.duplicated.append(f"document {doc_id} in {'+'.join(now)}")
        report = engine.scan_all()  # nothing of the chat files lost, nothing indexed twice
        if report.problems:
            result.error = "; ".join(report.problems)[:300]
        active = engine.index.turns(USER, limit=None)
        texts = [t.text for t in active]
        if len(texts) != len(set(texts)):
            result.duplicated.append(f"{len(texts) - len(set(texts))} turns indexed twice")
        wanted = {f"message {n}:" for n in range(1, self.lines + 1)}
        missing = wanted - {t.split(" the ", 1)[0] for t in texts}
        if missing:
            result.lost.append(f"{len(missing)} messages not indexed (e.g. {min(missing)})")
        entries = self._undo_entries(engine)
        if len(entries) not in (undo_before - 1, undo_before, undo_before + 1):
            result.undo_broken = f"undo history went from {undo_before} to {len(entries)} entries"
        if entries and self.rng.random() < 0.25:
            self._probe_undo(engine, result)

    def _knowledge_meta(self, op: str, args: list[str]) -> dict[str, Any]:
        if op not in ("pin", "retire"):
            return {}
        with Engine(self.vault, triggers=False) as engine:
            doc = engine.store.find(args[1], USER, areas=("knowledge",))
            return {**doc.meta, "id": args[1]} if doc is not None else {"id": args[1]}

    def _check_own_hand(self, engine: Engine, result: CycleResult, before: dict[str, list[str]], item: str,
                        meta_before: dict[str, Any]) -> None:
        """All or nothing for the person's own actions: every part moved, or none."""
        after = self.places(engine)
        new = [d for d in after if d not in before]
        if result.op in ("remember", "add"):
            if len(new) > 1 or any(after[d] != ["knowledge"] for d in new):
                result.half_done.append(f"{result.op} left {[(d, after[d]) for d in new]}")
        elif result.op == "merge":
            parts = [p for p in item.split(",") if p]
            merged = [d for d in new if after[d] == ["knowledge"]]
            staged_parts = [p for p in parts if before.get(p) == ["staging"]]
            moved = {p: after.get(p, []) for p in staged_parts}
            known = [engine.store.find(p, USER, areas=("knowledge",)) for p in parts if before.get(p) == ["knowledge"]]
            retired = [bool(d is not None and d.get("merged_into")) for d in known]
            if merged:
                if any(m != ["trash"] for m in moved.values()) or not all(retired):
                    result.half_done.append(f"merged, but parts left: {moved} retired {retired}")
            elif any(m != ["staging"] for m in moved.values()) or any(retired) or new:
                result.half_done.append(f"merge not done, but parts moved: {moved} retired {retired} new {new}")
        elif result.op in ("approve_all", "discard_all"):
            parts = [p for p in item.split(",") if p]
            target = "knowledge" if result.op == "approve_all" else "trash"
            states = {tuple(after.get(p, [])) for p in parts}
            if states not in ({("staging",)}, {(target,)}):
                result.half_done.append(f"{result.op} moved some: {[(p, after.get(p)) for p in parts]}")
        else:  # pin/unpin/retire: the memory as it was, or as the finished action leaves it
            doc = engine.store.find(meta_before.get("id", ""), USER, areas=("knowledge",))
            if doc is None:
                result.lost.append(f"{result.op}: memory {meta_before.get('id')} left Knowledge")
                return
            was_pinned, is_pinned = bool(meta_before.get("pinned")), bool(doc.get("pinned"))
            was_retired, now_retired = bool(meta_before.get("retired_at")), bool(doc.get("retired_at"))
            if result.op == "retire":
                if now_retired and not (doc.get("retired_reason") and not is_pinned):
                    result.half_done.append(f"{doc.id} retired without its reason or still pinned")
                if not now_retired and (is_pinned != was_pinned or was_retired):
                    result.half_done.append(f"{doc.id} changed but not retired")
            elif now_retired != was_retired:
                result.half_done.append(f"{doc.id}: a pin changed whether it is retired")

    def _approve_one(self, engine: Engine) -> None:
        from curator.review.actions import ReviewEngine

        review = ReviewEngine(engine.paths, engine.store, clock=engine.clock)
        item = self.pick(engine, "approve")[2]
        review.approve(USER, item, review.show(USER, item).item.content_hash, accept_flags=True)

    def _probe_undo(self, engine: Engine, result: CycleResult) -> None:
        # The history stays usable after the crash: its newest entry can be undone.
        from curator.review.actions import ReviewEngine, ReviewError

        try:
            ReviewEngine(engine.paths, engine.store, clock=engine.clock).undo(USER)
        except ReviewError as exc:
            result.undo_broken = f"undo refused after the crash: {exc}"


def _fact_draft(n: int) -> StagedDraft:
    return StagedDraft(kind="fact", title=f"Fact number {n}", text=f"The person owns kettle {n}.", category="Facts",
                       source_turns=[1], confidence=0.6, batch_id=1, origin="batch", gates=["caps"])


def soak(root: Path, cycles: int, *, seed: int = 7, reindex_every: int = 10,
         log: Callable[[str], None] | None = None) -> list[CycleResult]:
    """Run ``cycles`` kill -9 cycles over every case in turn; returns every result."""
    bench = CrashBench(root, seed)
    results = []
    for i in range(cycles):
        op, fault = CASES[i % len(CASES)]
        result = bench.cycle(op, fault, check_index=(i % reindex_every == reindex_every - 1) or op == "reindex")
        results.append(result)
        if log is not None and (not result.ok or (i + 1) % 50 == 0):
            status = "ok" if result.ok else f"FAILED {result}"
            log(f"cycle {i + 1}/{cycles}: {op} @ {fault or 'no fault'}: {status}")
    return results
