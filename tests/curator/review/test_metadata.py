"""Seed 004 §4 metadata of reflected documents, and search ranked by relevance and quality."""

from __future__ import annotations

from pathlib import Path

from curator.clock import ManualClock
from curator.engine import Engine
from curator.index.search import SearchFilters
from curator.review.metadata import content_types, describe, keywords, primary_topic, quality
from curator.review.staging import StagedDraft, StagingArea, to_knowledge


def test_keywords_topic_and_types_come_from_the_memory_own_words() -> None:
    text = "Maya's border collie Pixel needs two long walks a day; Pixel loves the park."
    assert keywords(text)[:3] == ["pixel", "maya", "border"]
    assert primary_topic(text) == "pets.collie"
    assert primary_topic("Maya is allergic to peanuts.") == "health.diet.allergic"
    assert primary_topic("The weather was grey.") == "general"
    assert content_types("fact", "Facts", text) == ["fact", "preference"]
    assert content_types("pattern", "Patterns", "Maya runs on Mondays.") == ["pattern"]
    assert content_types("reflection", "", "We talked.") == ["context"]


def test_quality_follows_evidence_flags_and_review() -> None:
    base = {"confidence": 0.6, "source_turns": [3]}
    assert quality(base) == 0.6
    assert quality({**base, "source_turns": [3, 5, 7]}) == 0.66
    assert quality({**base, "recurring": True}) == 0.65
    assert quality({**base, "flags": [{"kind": "instruction"}]}) == 0.4
    assert quality({**base, "reviewer_action": "approved"}) == 0.7
    assert quality({**base, "reviewer_action": "edited"}) == 0.75
    assert quality({"confidence": 0.85, "source_turns": [1, 2, 3, 4, 5, 6], "recurring": True,
                    "reviewer_action": "edited"}) == 0.99


def test_describe_keeps_what_the_producer_set() -> None:
    meta = {"kind": "fact", "primary_topic": "travel.lisbon", "confidence": 0.75}
    describe(meta, "Lisbon trip", "Maya goes to Lisbon in September.")
    assert meta["primary_topic"] == "travel.lisbon"
    assert meta["keywords"][:2] == ["lisbon", "trip"]
    assert meta["quality"] == 0.75


def test_staged_and_approved_items_carry_the_metadata(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "vault", clock=ManualClock(), triggers=False)
    try:
        staging = StagingArea(engine.store, engine.clock)
        doc = staging.stage("default", StagedDraft(
            kind="fact", title="Vegetarian", text="Maya has been vegetarian for six years.", category="Facts",
            source_turns=[15], confidence=0.6, batch_id=1, origin="batch"))
        assert doc.meta["primary_topic"] == "health.diet.vegetarian"
        assert doc.meta["content_types"] == ["fact", "preference"]
        assert "vegetarian" in doc.meta["keywords"] and doc.meta["quality"] == 0.6
        to_knowledge(doc, "approved", "2026-11-23T00:00:00Z")
        assert doc.meta["quality"] == 0.7
        doc.body = "Maya has been vegetarian since 2020 and runs on Mondays.\n"
        to_knowledge(doc, "edited", "2026-11-23T00:00:00Z")
        assert doc.meta["quality"] == 0.75
    finally:
        engine.close()


def test_search_ranks_equal_relevance_by_quality(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "vault", clock=ManualClock(), triggers=False)
    try:
        low = engine.memory.save(title="Kayak note", content="Kayak trips on the river.", area="knowledge",
                                 quality=0.2)
        high = engine.memory.save(title="Kayak note", content="Kayak trips on the river.", area="knowledge",
                                  quality=0.9)
        hits = engine.search("kayak river", SearchFilters(), limit=5)
        assert [h.id for h in hits] == [high["id"], low["id"]]
    finally:
        engine.close()


def test_user_purpose_and_data_requirements_are_filled() -> None:
    meta: dict = {"kind": "fact", "confidence": 0.6}
    describe(meta, "Peanuts", "Maya is allergic to peanuts and moves to Porto next month.")
    assert meta["user_purpose"] == "remember what the person said about themselves (health.diet.peanuts)"
    assert meta["data_requirements"] == ["user_preference", "personal_fact", "time_sensitive"]
    summary: dict = {"kind": "reflection"}
    describe(summary, "Context summary", "They planned the trip.")
    assert summary["user_purpose"].startswith("recall where a conversation stood")
    assert summary["data_requirements"] == ["conversation_context"]
    # What a turn folder's first phase wrote is kept.
    kept = {"kind": "fact", "user_purpose": "compare laptops for video editing", "data_requirements": ["pricing"]}
    describe(kept, "Laptop", "The user edits video.")
    assert (kept["user_purpose"], kept["data_requirements"]) == ("compare laptops for video editing", ["pricing"])


def test_a_memory_from_a_turn_folder_keeps_the_turns_purpose() -> None:
    from fakes.reflection import FakeTurns

    from curator.reflection.gates.quality import Proposal
    from curator.reflection.pipeline import draft_for

    turn = FakeTurns().add(4, "I edit 4K video.", extra={"user_purpose": "choose a laptop for video editing",
                                                          "data_requirements": ["needs_specs"]})
    item = Proposal("fact", "new_facts", "Video", "Maya edits 4K video.", "Facts", [4])
    item.cited = [turn]
    draft = draft_for(item, 1, "batch", {})
    assert draft.fields["user_purpose"] == "choose a laptop for video editing"
    assert draft.fields["data_requirements"] == ["needs_specs"]
