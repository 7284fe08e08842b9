"""A whole cycle with the scripted model: proposal, review, atomic apply, undo."""

from __future__ import annotations

import json
from pathlib import Path

from fakes.cycle import phase_answers
from fakes.scripted import ScriptedModel

from curator.engine import Engine
from curator.reflection.cycle.decay import DecayState
from curator.reflection.cycle.record import CycleRecord
from curator.reflection.cycle.summary import SECTION_TITLES
from curator.reflection.service import ReflectionService
from curator.review.staging import StagedDraft, StagingArea
from curator.vault.documents import Document


def user_root(engine: Engine) -> Path:
    return engine.paths.user("default").root


def test_cycle_proposes_then_applies_and_undoes(engine: Engine, service: ReflectionService) -> None:
    outcome = service.run_cycle("default", "manual")
    assert outcome["status"] == "proposed", outcome
    root = user_root(engine)
    pending = (root / "pending-reflection.md").read_text("utf-8")
    for title in SECTION_TITLES:
        assert f"## {title}" in pending
    assert "**Reflection #**: 1" in pending and "**Next scheduled reflection**: " in pending
    assert not (root / "MEMORY.md").exists()  # nothing applied before the person answers

    review = service.cycle_review()
    record = review.show("default", outcome["cycle_id"])
    kinds = [o.operation for o in record.operations]
    assert kinds == ["EXTRACT", "CONNECT"]
    assert any("helicopters" in r["content"] and r["gate"] in ("names", "support") for r in record.rejections)
    # A first cycle has no history: no meta-reflection call, so an EVOLVE has nothing to stand on.
    assert any(r["operation"] == "EVOLVE" and r["gate"] in ("names", "support") for r in record.rejections)
    assert record.insights == [] and record.guidance.startswith("First reflection")
    assert "📌 Maya is allergic to peanuts." in record.new_memory
    assert "yacht" not in record.new_memory and "Maya owns a yacht in Monaco" in record.unsupported

    before = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()
              and "Logs" not in p.parts}
    answer = review.approve("default", record.cycle_id)
    assert answer.status == "applied"
    memory = (root / "MEMORY.md").read_text("utf-8")
    assert [line for line in memory.splitlines() if line.startswith("## ")] == [
        "## Identity", "## Active Context", "## Persona", "## Critical Facts"]
    assert "## Reflection #1" in (root / "memory/meta/evolution.md").read_text("utf-8")
    assert "[[pixel|Pixel]]" in (root / "memory/graph/entities/maya.md").read_text("utf-8")
    assert "| [[maya]] | owns | [[pixel]] | #1 |" in (root / "memory/graph/index.md").read_text("utf-8")
    decay = DecayState.load(root / "memory/meta/decay-scores.json")
    assert decay.last_reflection == "2026-11-22T03:00:00Z" and decay.reflection_count == 1
    assert not (root / "pending-reflection.md").exists()
    log = review.review.undo_log("default")[-1]
    # Seed 001: the audit actor is reflection:SESSION_ID, the conversation the cycle reflected.
    assert record.session and record.session != record.cycle_id
    assert log["actor"] == f"reflection:{record.session}" and log["action"] == "cycle:approve"

    review.undo("default")
    after = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()
             and "Logs" not in p.parts}
    assert after == before
    assert review.show("default", record.cycle_id).status == "pending"


def test_a_pending_cycle_blocks_the_next_and_says_why(engine: Engine, service: ReflectionService) -> None:
    first = service.run_cycle("default")
    second = service.run_cycle("default")
    assert second["status"] == "nothing_to_do"
    assert first["cycle_id"] in second["error"] and "awaits review" in second["error"]


def test_rejected_operations_are_not_proposed_again(engine: Engine, service: ReflectionService) -> None:
    first = service.run_cycle("default")
    review = service.cycle_review()
    answer = review.reject("default", first["cycle_id"], "not now")
    assert answer.status == "rejected" and len(answer.rejected) == 2
    root = user_root(engine)
    assert not (root / "MEMORY.md").exists()
    assert "| rejected |" in (root / "memory/meta/reflection-log.md").read_text("utf-8")
    # The rejected cycle's turns count as reviewed; show them again to see the gate at work.
    (root / "memory/meta/decay-scores.json").unlink()
    second = service.run_cycle("default")
    record = review.show("default", second["cycle_id"])
    # Only the EVOLVE is new: the rejected cycle's log entry gave the meta-reflection a history.
    assert [o.operation for o in record.operations] == ["EVOLVE"]
    assert sum(1 for r in record.rejections if r["gate"] == "rejected_before") == 2


def test_partial_approval_with_changes(engine: Engine, service: ReflectionService) -> None:
    first = service.run_cycle("default")
    review = service.cycle_review()
    answer = review.approve("default", first["cycle_id"], ops=["op-1"], memory=False,
                            edits={"op-1": "Maya works night shifts as a nurse at St. Clair"})
    assert answer.status == "partial" and answer.rejected == ["op-2"]
    root = user_root(engine)
    assert not (root / "MEMORY.md").exists()
    assert "St. Clair" in (root / "memory/graph/entities/maya.md").read_text("utf-8")
    assert "partial" in (root / "memory/meta/reflection-log.md").read_text("utf-8")


def test_a_fading_memory_is_asked_about_in_the_queue_once(engine: Engine, service: ReflectionService) -> None:
    """Decay below 0.5 (about 52 days unseen, half-life 30): a "still true?" item, never a silent drop."""
    old = Document.new(doc_id="old0000001", kind="fact", title="Maya's old bicycle",
                       body="Maya rides an old blue bicycle to work.\n", confidence=0.8,
                       approved_at="2026-10-01T10:00:00Z", status="approved")
    engine.document_changed(engine.store.create(old, "default", "knowledge", "Facts"))
    outcome = service.run_cycle("default", "manual")
    assert any(f["memory_id"] == "old0000001" for f in outcome["fading"]), outcome["fading"]
    rechecks = [i for i in service.review.list_items("default").items if i.kind == "recheck"]
    assert [i.title for i in rechecks] == ["Still true? Maya's old bicycle"]
    service.cycle_review().reject("default", outcome["cycle_id"], reason="not now")
    service.run_cycle("default", "manual")
    assert len([i for i in service.review.list_items("default").items if i.kind == "recheck"]) == 1


def test_a_memory_pinned_by_hand_is_in_memory_md_after_a_cycle_and_a_retired_one_is_not(
        engine: Engine, service: ReflectionService) -> None:
    from curator.review.own_hand import OwnHand

    own = OwnHand(engine.review, person="Maya")
    kept = own.add("default", "Maya's passport number ends in 4471.", turns=[1])
    own.pin("default", kept.doc_id)
    own.pin("default", "peanut0001", pinned=False)  # unpinned: back to the normal lifecycle
    own.retire("default", "veggie0001", "eats fish again")
    outcome = service.run_cycle("default", "manual")
    assert outcome["status"] == "proposed", outcome
    review = service.cycle_review()
    assert review.approve("default", outcome["cycle_id"]).status == "applied"
    memory = (user_root(engine) / "MEMORY.md").read_text("utf-8")
    critical = memory.split("## Critical Facts", 1)[1]
    assert "📌 Maya's passport number ends in 4471." in critical
    assert "📌 Maya is allergic to peanuts" not in memory
    assert "vegetarian" not in memory


def approved_fact(engine: Engine, doc_id: str, body: str, turns: list[int]) -> Document:
    doc = Document.new(doc_id=doc_id, kind="fact", title=body[:40], source_turns=turns, body=body + "\n",
                       confidence=0.8, approved_at="2026-11-21T10:00:00Z", status="approved")
    engine.document_changed(engine.store.create(doc, "default", "knowledge", "Facts"))
    return doc


def stage_correction(engine: Engine, target: Document, text: str) -> Document:
    return StagingArea(engine.store, engine.clock).stage("default", StagedDraft(
        kind="correction", title="Correction: Lisbon trip", category="Corrections", source_turns=[9, 23],
        text=text, confidence=0.6, batch_id=1, origin="batch", gates=["keyword"],
        fields={"target_id": target.id, "old_text": target.body.strip(), "new_text": text}))


def cycle_with_rewrite(engine: Engine, sections: dict[str, list[str]]) -> CycleRecord:
    """One cycle whose scripted model proposes ``sections`` as MEMORY.md."""
    scripted = phase_answers()

    def answer(messages: list[dict[str, str]]) -> str:
        if messages[0]["content"].startswith("You rewrite a core memory"):
            return json.dumps(sections)
        return scripted(messages)

    service = ReflectionService(engine.reflection_parts(), runtime=ScriptedModel([answer] * 400, n_ctx=4096),
                                sleep=lambda _s: None)
    try:
        outcome = service.run_cycle("default", "manual")
        return service.cycle_review().show("default", outcome["cycle_id"])
    finally:
        service.close()


def test_core_memory_keeps_no_superseded_fact_and_no_empty_line(engine: Engine) -> None:
    """Issue 20: every MEMORY.md line says something the approved memories hold now."""
    trip = approved_fact(engine, "trip000001", "Maya and her sister Ana are going to Lisbon in October.", [9])
    correction = stage_correction(engine, trip, "Maya and her sister Ana are going to Lisbon in September.")
    review = engine.review
    review.approve("default", correction.id, review.show("default", correction.id).item.content_hash)
    corrected = engine.store.find(trip.id, "default", areas=("knowledge",))
    assert corrected is not None and corrected.get("superseded") == [
        "Maya and her sister Ana are going to Lisbon in October."]
    record = cycle_with_rewrite(engine, {
        "identity": ["Maya is a nurse who works night shifts", "2.5", "Persona"],
        "active_context": ["Maya and Ana are going to Lisbon in October", "Contradictions Detected: none"],
        "persona": [], "critical_facts": ["Maya is allergic to peanuts"]})
    assert "October" not in record.new_memory and "2.5" not in record.new_memory
    assert "Persona\n- " not in record.new_memory and "none" not in record.new_memory.lower()
    assert "Maya is a nurse who works night shifts" in record.new_memory
    assert any("Lisbon in October" in line and "superseded" in line for line in record.unsupported)


def test_memories_in_dispute_are_flagged_and_kept_out_of_memory_md(engine: Engine) -> None:
    """Issue 20: two approved memories that disagree, or one a waiting correction contests,
    are flagged as contradictions by code and stay out of MEMORY.md until the person answers."""
    approved_fact(engine, "porto00001", "Maya's sister Ana lives in Porto near the river.", [21])
    approved_fact(engine, "braga00001", "Maya's sister Ana lives in Braga near the river.", [29])
    trip = approved_fact(engine, "trip000002", "Maya and Ana are going to Lisbon in October.", [9])
    stage_correction(engine, trip, "Maya and Ana are going to Lisbon in September.")
    record = cycle_with_rewrite(engine, {
        "identity": ["Maya is a nurse who works night shifts"],
        "active_context": ["Maya's sister Ana lives in Porto", "Maya and Ana are going to Lisbon in October"],
        "persona": [], "critical_facts": []})
    flags = [o for o in record.operations if o.operation == "FLAG"]
    assert any({"memory porto00001", "memory braga00001"} <= set(o.evidence) and "Porto" in o.content
               for o in flags), flags
    assert any(o.evidence == ["memory trip000002"] and "review queue" in o.content for o in flags), flags
    assert {"porto00001", "braga00001", "trip000002"} <= set(record.disputed)
    assert "Porto" not in record.new_memory and "Braga" not in record.new_memory
    assert "October" not in record.new_memory
    pending = (engine.paths.user("default").root / "pending-reflection.md").read_text("utf-8")
    contradictions = pending.split("## ⚠️ Contradictions Detected", 1)[1].split("## ", 1)[0]
    assert "Porto" in contradictions and "- none" not in contradictions


def test_reflective_prose_only_from_a_model_that_writes(engine: Engine, scripted: ScriptedModel) -> None:
    """Issue 20: the bundled model chooses and merges; the reflective part is left to a capable
    model (``reflection.writer: model``), not filled with prose nobody can ground."""
    pending = engine.paths.user("default").root / "pending-reflection.md"
    service = ReflectionService(engine.reflection_parts(), runtime=scripted, sleep=lambda _s: None)
    try:
        first = service.run_cycle("default", "manual")
        text = pending.read_text("utf-8")
        assert "Not written: the reflective part is left to a capable model" in text
        assert "A first reflection sets the baseline." not in text
        service.cycle_review().reject("default", first["cycle_id"], "trying the writing model")
    finally:
        service.close()
    engine.settings.set("reflection.writer", "model")
    service = ReflectionService(engine.reflection_parts(), runtime=ScriptedModel([phase_answers()] * 400, n_ctx=4096),
                                sleep=lambda _s: None)
    try:
        service.run_cycle("default", "manual")
        assert "A first reflection sets the baseline." in pending.read_text("utf-8")
    finally:
        service.close()
