"""Seed rows that issue 24 re-opened, one test each, named for the seed and section."""

from __future__ import annotations

from pathlib import Path

from fakes.reflection import USER, FakeTurns, ScriptedModel

from curator.clock import ManualClock
from curator.reflection.batch import BatchReflector
from curator.reflection.batch_records import render_turn
from curator.reflection.knowledge import VaultKnowledgeIndex
from curator.vault.paths import VaultPaths
from curator.vault.settings import Settings
from curator.vault.store import DocumentStore

CONTEXT_MD = (
    "# Turn 7\n\n## §0 Original query\nWhich tent for the Dolomites?\n\n"
    "## §1 Reflection\nworkingnote-one\n\n## §2 Gathered context\ngatheredword alpine huts\n\n"
    "## §3 Plan\nplanword route: answer\n\n## §4 Tool log\ntoollogword\n\n## §5 Draft\ndraftword\n\n"
    "## §6 Validation\nAPPROVE verdictword\n"
)


def test_seed000_s3_batch_reads_sections_0_2_3_6(vault: VaultPaths, store: DocumentStore, turns: FakeTurns,
                                                 clock: ManualClock) -> None:
    turns.add(7, "Which tent for the Dolomites?", context=CONTEXT_MD)
    block = render_turn(turns.get(USER, 7))  # type: ignore[arg-type]
    for kept in ("gatheredword", "planword", "verdictword", "Which tent"):
        assert kept in block
    for left in ("workingnote-one", "toollogword", "draftword"):
        assert left not in block
    model = ScriptedModel([{"new_facts": [], "corrections": [], "connections": [], "open_questions": []}])
    BatchReflector(vault, store, turns, VaultKnowledgeIndex(store), model, Settings(), clock=clock,
                   sleep=lambda s: None).run(USER, 0, trigger="turn_count", urgency_score=0.0)
    shown = "\n".join(model.calls[0]["variables"]["turns"])
    assert "planword" in shown and "draftword" not in shown


def test_seed000_s3_a_context_without_sections_is_read_whole(turns: FakeTurns) -> None:
    turns.add(3, "hello", context="free notes, no sections at all")
    assert "free notes, no sections at all" in render_turn(turns.get(USER, 3))  # type: ignore[arg-type]


def test_seed002_a_summary_covers_the_working_context_not_only_turns_since_the_last(tmp_path: Path) -> None:
    import json

    from fakes.scripted import ScriptedModel as RuntimeModel

    from curator.engine import Engine
    from curator.reflection.service import ReflectionService

    chats = tmp_path / "chats"
    chats.mkdir()
    lines = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} word{i}",
              "created_at": f"2026-11-20T10:{i:02d}:00Z"} for i in range(10)]
    (chats / "talk.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    seen: list[str] = []

    def answer(messages: list[dict[str, str]]) -> str:
        seen.append(messages[-1]["content"])
        return "They talked about word1 and word9."

    engine = Engine(tmp_path / "vault", clock=ManualClock(1_795_000_000.0))
    try:
        engine.add_source(chats, adapter="jsonl", user_id="default")
        engine.scan_all()
        engine.settings.set("reflection.writer", "model")
        turns = engine.index.turns("default")
        conversation = turns[0].conversation
        service = ReflectionService(engine.reflection_parts(), runtime=RuntimeModel([answer]), sleep=lambda _s: None)
        try:
            # The last summary covered the first six messages; this one is due for the last four.
            job, _created = service.queue.enqueue("summary", "default", reason="test", trigger="inactivity",
                                        conversation=conversation, turn_range=(turns[6].number, turns[9].number))
            claimed = service.queue.claim(["summary"])
            assert claimed is not None and claimed.id == job.id
            outcome = service.run_job(claimed)
        finally:
            service.close()
    finally:
        engine.close()
    assert outcome["status"] == "completed", outcome
    assert "word1" in seen[0] and "word9" in seen[0]  # turns before the last summary are in context


def test_seed004_reflection_searches_knowledge_through_the_one_index(tmp_path: Path) -> None:
    from curator.engine import Engine
    from curator.reflection.knowledge import IndexKnowledge
    from curator.vault.documents import Document
    from curator.vault.paths import new_id

    engine = Engine(tmp_path / "vault", clock=ManualClock(1_795_000_000.0))
    try:
        def add(title: str, body: str, area: str = "knowledge", **meta: object) -> Document:
            doc = Document.new(doc_id=new_id(), kind="fact", title=title, body=body + "\n", **meta)
            engine.document_changed(engine.store.create(doc, "default", area, "Facts"))
            return doc

        kayak = add("Kayak", "The user paddles a red kayak on the lake.")
        staged = add("Kayak plan", "The user may buy a kayak.", area="staging")  # a proposal is never known
        bob = add("Bob's kayak", "Bob paddles a kayak too.", subject="author", subject_id="bob")
        lore = add("Lake rule", "Kayaks need a permit on the lake.", subject="lore")
        # A file the index was never told about is not found by search: there is no second scan.
        hidden = Document.new(doc_id=new_id(), kind="fact", title="Hidden kayak", body="A kayak nobody indexed.\n")
        engine.store.create(hidden, "default", "knowledge", "Facts")
        knowledge = IndexKnowledge(lambda: engine.index, engine.store)
        found = [d.doc_id for d in knowledge.search("default", "kayak lake", limit=10)]
        assert kayak.id in found and lore.id in found and bob.id in found
        assert hidden.id not in found and staged.id not in found
        assert knowledge.get("default", hidden.id) is not None  # an id still resolves
        # Seed 003: the facts about the excerpt's subjects, not keyword hits about someone else.
        about = [d.doc_id for d in knowledge.about("default", ["default"], "kayak", limit=20)]
        assert kayak.id in about and lore.id in about and bob.id not in about
    finally:
        engine.close()


def test_seed004_validation_of_a_turn_that_used_a_document_changes_its_trust(tmp_path: Path) -> None:
    from curator.engine import Engine
    from curator.mcp.usage import UsageLog
    from curator.vault.documents import Document
    from curator.vault.paths import new_id

    folders = tmp_path / "turns"
    engine = Engine(tmp_path / "vault", clock=ManualClock(1_795_000_000.0))
    try:
        def approved(title: str, scope: str) -> Document:
            doc = Document.new(doc_id=new_id(), kind="fact", title=title, body=title + ".\n", scope=scope,
                               approved_at="2026-11-01T10:00:00Z", scope_changed_at="2026-11-01T10:00:00Z")
            engine.document_changed(engine.store.create(doc, "default", "knowledge", "Facts"))
            return doc

        good = approved("The user rides a cargo bike", "user")
        bad = approved("The user lives in Porto", "global")
        revised = approved("The user likes figs", "user")
        for n, (doc, verdict) in enumerate([(good, "APPROVE"), (bad, "FAIL"), (revised, "REVISE")], 1):
            unit = folders / f"turn_{n:06d}"
            unit.mkdir(parents=True)
            (unit / "context.md").write_text(
                f"## §0 Query\nquestion {n}\n\n## §2 Gathered context\n- [{doc.id}] {doc.title}\n\n"
                f"## §6 Validation\n{verdict}\n", "utf-8")
            (unit / "response.md").write_text(f"answer {n}\n", "utf-8")
            (unit / "metadata.json").write_text('{"timestamp": "2026-11-20T10:00:00Z"}', "utf-8")
        engine.add_source(folders, adapter="turn_folder", user_id="default")
        engine.scan_all()
        usage = UsageLog(engine.paths.root / "usage.sqlite")
        try:
            assert (usage.uses_since(good.id, None), usage.failures_since(bad.id, None)) == (1, 1)
            assert usage.uses_since(revised.id, None) == 0 and usage.failures_since(revised.id, None) == 0
        finally:
            usage.close()
        report = engine.run_lifecycle()
        assert report["default"]["demoted"] == [bad.id]
        after = engine.store.find(bad.id, "default", areas=("knowledge",))
        assert after is not None and after.scope == "user"
        assert after.get("scope_history")[-1]["why"].endswith("failed validation")
        assert engine.store.find(good.id, "default", areas=("knowledge",)).scope == "user"  # type: ignore[union-attr]
        assert engine.index.get_document(bad.id).scope == "user"  # type: ignore[union-attr]
        assert engine.run_lifecycle()["default"]["demoted"] == []  # once per failure, not at every pass
    finally:
        engine.close()
