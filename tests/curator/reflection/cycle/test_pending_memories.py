"""Seed 001: sub-agents' proposals in memory/pending-memories.md are read, used and marked processed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.cycle import phase_answers
from fakes.scripted import ScriptedModel

from curator.engine import Engine
from curator.reflection.cycle import pending_memories
from curator.reflection.service import ReflectionService

PENDING = """# Pending memories

- Maya's ceramics class moved to Thursday evenings
  (told to the calendar agent)
- The vet appointment for Pixel is a one-off, not worth keeping
"""

TAKE_UP = {"operation": "EXTRACT", "evidence": ["pending 1"], "entity": "Maya", "relation": "", "other": "",
           "content": "Maya's ceramics class moved to Thursday evenings", "reason": "a sub-agent heard it",
           "evolution_context": ""}


@pytest.fixture
def service(engine: Engine) -> Iterator[ReflectionService]:
    model = ScriptedModel([phase_answers([TAKE_UP])] * 400, n_ctx=4096)
    service = ReflectionService(engine.reflection_parts(), runtime=model, sleep=lambda _s: None)
    yield service
    service.close()


def user_root(engine: Engine) -> Path:
    return engine.paths.user("default").root


def test_entries_are_bullets_or_blocks_with_their_continuation_lines() -> None:
    assert pending_memories.entries(PENDING) == [
        "Maya's ceramics class moved to Thursday evenings (told to the calendar agent)",
        "The vet appointment for Pixel is a one-off, not worth keeping"]
    assert pending_memories.entries("## Allergy\nMaya cannot eat peanuts.\n") == ["Allergy Maya cannot eat peanuts."]
    assert pending_memories.entries("") == []


def test_a_cycle_reads_them_and_approval_marks_each_committed_or_rejected(engine: Engine,
                                                                           service: ReflectionService) -> None:
    root = user_root(engine)
    (root / pending_memories.PENDING_FILE).parent.mkdir(parents=True, exist_ok=True)
    (root / pending_memories.PENDING_FILE).write_text(PENDING, "utf-8")
    cycle_id = service.run_cycle("default")["cycle_id"]
    review = service.cycle_review()
    record = review.show("default", cycle_id)
    assert list(record.pending_memories) == ["pending 1", "pending 2"]
    assert any(o.evidence == ["pending 1"] and "ceramics" in o.content for o in record.operations)
    summary = (root / "pending-reflection.md").read_text("utf-8")
    assert "taken up: Maya's ceramics class" in summary and "2 sub-agent proposals" in summary
    # An agent adds another proposal while the cycle waits for the person.
    with (root / pending_memories.PENDING_FILE).open("a", encoding="utf-8") as f:
        f.write("- Maya started learning Portuguese\n")
    review.approve("default", cycle_id)
    left = (root / pending_memories.PENDING_FILE).read_text("utf-8")
    assert "ceramics" not in left and "vet appointment" not in left
    assert "- Maya started learning Portuguese" in left and left.startswith("# Pending memories")
    done = (root / pending_memories.PROCESSED_FILE).read_text("utf-8")
    assert "- committed: Maya's ceramics class moved to Thursday evenings" in done
    assert "- rejected: The vet appointment for Pixel" in done
    assert "ceramics class moved to Thursday evenings" in (root / "memory/graph/entities/maya.md").read_text("utf-8")
    review.undo("default")  # one undo puts every entry back
    assert (root / pending_memories.PENDING_FILE).read_text("utf-8").count("- ") == 3


def test_a_rejected_cycle_leaves_every_proposal_waiting(engine: Engine, service: ReflectionService) -> None:
    root = user_root(engine)
    (root / pending_memories.PENDING_FILE).parent.mkdir(parents=True, exist_ok=True)
    (root / pending_memories.PENDING_FILE).write_text(PENDING, "utf-8")
    cycle_id = service.run_cycle("default")["cycle_id"]
    service.cycle_review().reject("default", cycle_id, "not now")
    assert (root / pending_memories.PENDING_FILE).read_text("utf-8") == PENDING
    assert not (root / pending_memories.PROCESSED_FILE).exists()
