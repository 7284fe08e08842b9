"""Seed 004 §10 with an injected clock: usage counts, promotion, demotion and the TTL recheck."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp_helpers import EngineIndex

from curator.clock import ManualClock, parse_iso
from curator.engine import Engine
from curator.mcp.agent import AgentMemory
from curator.mcp.usage import UsageLog
from curator.review.actions import ReviewEngine
from curator.review.lifecycle import Lifecycle
from curator.review.staging import StagedDraft
from curator.vault.documents import Document

DAY = 86400.0


class World:
    """A writer engine, its review actions, an agent's tools and the lifecycle, on one clock."""

    def __init__(self, vault: Path, clock: ManualClock, promote_after: int = 3, ttl_days: float = 10.0) -> None:
        self.clock = clock
        self.engine = Engine(vault, clock=clock, triggers=False)
        self.review = ReviewEngine(self.engine.paths, self.engine.store, index=EngineIndex(self.engine), clock=clock)
        self.review.new_ttl_days = ttl_days
        self.usage = UsageLog(self.engine.paths.root / "usage.sqlite")
        self.agent = AgentMemory(self.engine.paths, self.engine.index, self.engine.store, self.usage, clock=clock)
        self.lifecycle = Lifecycle(self.engine.store, self.usage, clock, promote_after=promote_after, ttl_days=ttl_days)

    def approve_new(self, title: str, text: str) -> str:
        saved = self.engine.memory.save(title=title, content=text, source_turns=[1])
        self.approve(saved["id"])
        return str(saved["id"])

    def approve(self, item_id: str) -> None:
        detail = self.review.show("default", item_id)
        self.review.approve("default", item_id, detail.item.content_hash, accept_flags=True)

    def doc(self, doc_id: str) -> Document:
        found = self.engine.store.find(doc_id, "default", areas=("knowledge",))
        assert found is not None
        return found

    def staged(self, kind: str) -> list[Any]:
        return [i for i in self.review.list_items("default").items if i.kind == kind]

    def use(self, query: str, times: int) -> None:
        for _ in range(times):
            self.clock.advance(60)
            self.agent.search(query)

    def close(self) -> None:
        self.usage.close()
        self.engine.close()


@pytest.fixture()
def world(mcp_vault: dict[str, Any]) -> Any:
    w = World(mcp_vault["vault"], ManualClock(parse_iso("2026-11-22T12:00:00Z") or 0.0))
    yield w
    w.close()


def test_uses_lead_to_a_promotion_the_person_confirms_new_user_global(world: World) -> None:
    doc_id = world.approve_new("Cello day", "The person practises the cello every Tuesday.")
    world.use("cello Tuesday", 2)
    assert world.lifecycle.run("default").promotions == []
    world.agent.retrieve(doc_id)  # a retrieval counts as a use too
    report = world.lifecycle.run("default")
    assert len(report.promotions) == 1
    assert world.lifecycle.run("default").promotions == []  # one pending proposal, not two
    item = world.staged("promotion")[0]
    assert item.fields["target_id"] == doc_id and world.doc(doc_id).scope == "new"  # not before the person says so
    world.approve(item.doc_id)
    assert world.doc(doc_id).scope == "user"
    assert world.doc(doc_id).get("expires_at") is None  # proven: no longer expires
    world.use("cello Tuesday", 3)
    world.lifecycle.run("default")
    world.approve(world.staged("promotion")[0].doc_id)
    assert world.doc(doc_id).scope == "global"
    world.use("cello Tuesday", 5)
    assert world.lifecycle.run("default").promotions == []  # global is the top


def test_a_correction_demotes_one_step_and_restarts_the_count(world: World) -> None:
    doc_id = world.approve_new("Cello day", "The person practises the cello every Tuesday.")
    world.use("cello Tuesday", 3)
    world.lifecycle.run("default")
    world.approve(world.staged("promotion")[0].doc_id)
    assert world.doc(doc_id).scope == "user"
    world.use("cello Tuesday", 2)
    target = world.doc(doc_id)
    assert target.path is not None
    from curator.review.staging import file_hash

    correction = world.review.staging.stage("default", StagedDraft(
        kind="correction", title="Correction: Wednesday", text="The person practises the cello every Wednesday.",
        category="Corrections", source_turns=[3], confidence=0.6, batch_id=1, origin="batch",
        fields={"target_id": doc_id, "target_hash": file_hash(target.path), "old_text": target.body}))
    world.approve(correction.id)
    assert world.doc(doc_id).scope == "new"
    assert world.doc(doc_id).get("corrected_by") == correction.id
    world.use("cello Wednesday", 2)  # 2 uses since the correction, 4 before it: no promotion yet
    assert world.lifecycle.run("default").promotions == []
    world.use("cello Wednesday", 1)
    assert len(world.lifecycle.run("default").promotions) == 1


def test_undoing_a_correction_undoes_its_demotion(world: World) -> None:
    doc_id = world.approve_new("Cello day", "The person practises the cello every Tuesday.")
    world.use("cello", 3)
    world.lifecycle.run("default")
    world.approve(world.staged("promotion")[0].doc_id)
    target = world.doc(doc_id)
    from curator.review.staging import file_hash

    assert target.path is not None
    correction = world.review.staging.stage("default", StagedDraft(
        kind="correction", title="Correction", text="Cello on Wednesday.", category="Corrections",
        source_turns=[3], confidence=0.6, batch_id=1, origin="batch",
        fields={"target_id": doc_id, "target_hash": file_hash(target.path), "old_text": target.body}))
    world.approve(correction.id)
    assert world.doc(doc_id).scope == "new"
    world.review.undo("default")
    assert world.doc(doc_id).scope == "user"


def test_a_new_document_expires_into_a_still_true_question_never_a_deletion(world: World) -> None:
    doc_id = world.approve_new("Hamster", "Biscuit the hamster eats sunflower seeds in the evening.")
    expires = parse_iso(str(world.doc(doc_id).get("expires_at")))
    assert expires == world.clock.now() + 10 * DAY
    world.clock.advance(9 * DAY)
    assert world.lifecycle.run("default").rechecks == []
    world.clock.advance(2 * DAY)
    assert len(world.lifecycle.run("default").rechecks) == 1
    assert world.lifecycle.run("default").rechecks == []
    item = world.staged("recheck")[0]
    assert item.title.startswith("Still true?") and item.fields["target_id"] == doc_id
    assert world.doc(doc_id).body.strip().startswith("Biscuit")  # still there, still searchable
    assert doc_id in [h["id"] for h in world.agent.search("sunflower evening")]
    world.approve(item.doc_id)
    assert parse_iso(str(world.doc(doc_id).get("expires_at"))) == world.clock.now() + 10 * DAY
    # Past the renewed date it is asked again; a discarded question is not asked twice.
    world.clock.advance(11 * DAY)
    world.lifecycle.run("default")
    world.review.discard("default", world.staged("recheck")[0].doc_id, "not sure")
    world.clock.advance(DAY)
    assert world.lifecycle.run("default").rechecks == []
    assert world.doc(doc_id).scope == "new"


def test_with_expiry_on_a_new_document_past_its_days_goes_to_the_trash(world: World) -> None:
    """Seed 004's TTL, offered as the setting lifecycle.new_expiry = expire."""
    doc_id = world.approve_new("Hamster", "Biscuit the hamster eats sunflower seeds in the evening.")
    kept = world.approve_new("Cello", "The person practises the cello every Tuesday.")
    pinned = world.doc(kept)
    pinned.meta["pinned"] = True
    world.engine.store.update(pinned)
    expiring = Lifecycle(world.engine.store, world.usage, world.clock, ttl_days=10.0, expire=True)
    world.clock.advance(9 * DAY)
    assert expiring.run("default").expired == []
    world.clock.advance(2 * DAY)
    report = expiring.run("default")
    # It expired without a question; the pinned one is asked "still true?", never expired.
    assert report.expired == [doc_id] and len(report.rechecks) == 1
    assert world.engine.store.find(doc_id, "default", areas=("knowledge",)) is None
    [entry] = [e for e in world.engine.store.list_trash("default") if e.doc_id == doc_id]
    assert "lifecycle.new_expiry" in entry.reason
    world.engine.store.restore(entry)  # nothing is lost: the trash gives it back
    assert world.doc(doc_id).body.startswith("Biscuit")
    assert world.doc(kept).scope == "new"  # pinned: never expires


def test_a_contradiction_resolved_against_a_document_demotes_it(world: World) -> None:
    from curator.review.staging import file_hash

    doc_id = world.approve_new("Cello day", "The person practises the cello every Tuesday.")
    world.use("cello", 3)
    world.lifecycle.run("default")
    world.approve(world.staged("promotion")[0].doc_id)
    existing = world.doc(doc_id)
    assert existing.path is not None and existing.scope == "user"
    item = world.review.staging.stage("default", StagedDraft(
        kind="contradiction", title="Cello day differs", text="The person practises the cello every Friday.",
        category="Contradictions", source_turns=[3], confidence=0.6, batch_id=2, origin="batch",
        fields={"existing_id": doc_id, "existing_hash": file_hash(existing.path), "existing_text": existing.body}))
    detail = world.review.show("default", item.id)
    world.review.resolve("default", item.id, "keep_both", detail.item.content_hash, note="Tuesdays in term time")
    assert world.doc(doc_id).scope == "new"
