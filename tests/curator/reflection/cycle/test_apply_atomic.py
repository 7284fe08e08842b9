"""Applying a cycle is all or nothing, survives a crash, commits to git, and scales to 60 cycles."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from curator.engine import Engine
from curator.reflection.cycle import apply as cycle_apply
from curator.reflection.cycle.budget import approx_tokens
from curator.reflection.cycle.logs import full_entries
from curator.reflection.service import ReflectionService


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_a_failure_half_way_leaves_every_file_as_it_was(engine: Engine, service: ReflectionService,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    cycle_id = service.run_cycle("default")["cycle_id"]
    root = engine.paths.user("default").root
    before = files(root)
    real_put = cycle_apply._put
    calls: list[str] = []

    def failing_put(base: Path, rel: str, text: str | None) -> None:
        calls.append(rel)
        if len(calls) == 4:
            raise OSError("disk full")
        real_put(base, rel, text)

    monkeypatch.setattr(cycle_apply, "_put", failing_put)
    with pytest.raises(OSError, match="disk full"):
        service.cycle_review().approve("default", cycle_id)
    monkeypatch.setattr(cycle_apply, "_put", real_put)
    assert files(root) == before
    assert service.cycle_review().show("default", cycle_id).status == "pending"


def test_an_interrupted_apply_is_rolled_back_at_the_next_look(engine: Engine, service: ReflectionService) -> None:
    root = engine.paths.user("default").root
    (root / "MEMORY.md").write_text("# Core memory\n\n## Identity\n- old\n", "utf-8")
    journal = root / cycle_apply.JOURNAL
    journal.parent.mkdir(parents=True, exist_ok=True)
    # A crash after MEMORY.md was replaced and a new entity written, before the journal went.
    journal.write_text(json.dumps({"before": {"MEMORY.md": "# Core memory\n\n## Identity\n- old\n",
                                              "memory/graph/entities/maya.md": None}}), "utf-8")
    (root / "MEMORY.md").write_text("half-applied", "utf-8")
    (root / "memory/graph/entities/maya.md").write_text("half-applied", "utf-8")
    service.cycle_review().records("default")
    assert (root / "MEMORY.md").read_text("utf-8").endswith("- old\n")
    assert not (root / "memory/graph/entities/maya.md").exists() and not journal.exists()


def test_a_git_vault_gets_one_commit_per_cycle_by_the_reflection_actor(engine: Engine,
                                                                       service: ReflectionService) -> None:
    from dulwich.repo import Repo

    Repo.init(str(engine.paths.root)).close()
    cycle_id = service.run_cycle("default", "session_end", "chat <2026-11-22>.jsonl")["cycle_id"]
    review = service.cycle_review()
    assert review.show("default", cycle_id).session == "chat <2026-11-22>.jsonl"
    answer = review.approve("default", cycle_id)
    repo = Repo(str(engine.paths.root))
    try:
        head = repo[repo.head()]
        # Seed 001: committed by reflection:SESSION_ID (the session's id made safe for git).
        assert head.author.startswith(b"reflection:chat-2026-11-22-.jsonl <")
        assert head.message.decode().startswith(f"approve: reflection cycle {cycle_id}")
        assert answer.commit == repo.head().decode()
        changed = {p.decode() for p in repo.open_index()}
        assert "Users/default/MEMORY.md" in changed
    finally:
        repo.close()
    review.undo("default")
    repo = Repo(str(engine.paths.root))
    try:
        assert repo[repo.head()].message.decode().startswith("undo: reflection cycle")
    finally:
        repo.close()


def test_sixty_cycles_of_history_stay_within_the_caps(engine: Engine, service: ReflectionService,
                                                      clock: Any) -> None:
    review = service.cycle_review()
    for _ in range(60):
        outcome = service.run_cycle("default")
        assert outcome["status"] == "proposed", outcome
        review.approve("default", outcome["cycle_id"])
        clock.advance(86_400)
        assert not [p for p in outcome["problems"] if "failed" in p]  # every phase really ran
    meta = engine.paths.user("default").meta
    evolution = (meta / "evolution.md").read_text("utf-8")
    log = (meta / "reflection-log.md").read_text("utf-8")
    assert service.runtime.count_tokens(evolution) < 2_000 and approx_tokens(evolution) < 2_000
    assert full_entries(log) == 20
    assert "## Reflection #60 —" in log and "- #1-10: archived" in log
    assert "## Reflection #1 —" in (meta / "evolution-archive.md").read_text("utf-8")
    assert "## Reflection #30 —" in (meta / "reflection-archive.md").read_text("utf-8")
