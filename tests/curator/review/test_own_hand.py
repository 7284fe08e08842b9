"""Issue 23: the person's own hand on memory - remember this, add, pin, retire, merge, bulk - each
one undoable step, recorded before it touches a file (a crash anywhere is rolled back)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from curator.clock import ManualClock
from curator.engine import Engine
from curator.index.search import SearchFilters
from curator.review.own_hand import OwnHand, worded
from curator.review.records import ReviewError
from curator.review.staging import StagedDraft, StagingArea

USER = "default"
CHAT = [("user", "I keep bees on the roof and my sister Rosa sells the honey."),
        ("assistant", "That sounds lovely."),
        ("user", "Ich arbeite seit drei Jahren als Krankenschwester.")]


def write_chat(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rows = [{"role": r, "content": c, "created_at": f"2026-11-20T10:0{i}:00Z"} for i, (r, c) in enumerate(CHAT)]
    (folder / "chat.jsonl").write_text("".join(json.dumps(x) + "\n" for x in rows), "utf-8")


@pytest.fixture
def engine(tmp_path: Path):
    write_chat(tmp_path / "chats")
    engine = Engine(tmp_path / "vault", clock=ManualClock(1_795_000_000.0), triggers=False)
    engine.import_path(tmp_path / "chats")
    yield engine
    engine.close()


def hand(engine: Engine) -> OwnHand:
    return OwnHand(engine.review, person="Alex")


def found(engine: Engine, word: str) -> list[str]:
    return [h.id for h in engine.search(word, SearchFilters(item_types=("document",)), 20)]


def stage(engine: Engine, text: str, turns: list[int], kind: str = "fact") -> str:
    draft = StagedDraft(kind=kind, title=text[:40], text=text, category="Facts", source_turns=turns,
                        confidence=0.6, batch_id=1, origin="batch", gates=["caps"])
    return StagingArea(engine.store, engine.clock).stage(USER, draft).id


def test_wording_follows_reflection() -> None:
    assert worded("I keep bees on the roof", "Alex") == "Alex keeps bees on the roof"
    assert worded("Ich arbeite als Krankenschwester.", "Alex") == 'Alex said: "Ich arbeite als Krankenschwester."'


def test_remember_a_selection_staged_or_approved_and_undone(engine: Engine) -> None:
    first = engine.index.turns(USER)[0]
    staged = hand(engine).remember(USER, first.number, "I keep bees on the roof")
    doc = engine.store.find(staged.doc_id, USER, areas=("staging",))
    assert doc is not None and doc.body.strip() == "Alex keeps bees on the roof"
    assert doc.source_turns == [first.number] and doc.get("origin") == "person"
    approved = hand(engine).remember(USER, first.number, "my sister Rosa sells the honey", approve=True)
    assert approved.doc_id in found(engine, "honey")
    engine.review.undo(USER)  # the approved one: out of Knowledge and search, kept in the trash
    assert approved.doc_id not in found(engine, "honey")
    assert any(e.doc_id == approved.doc_id for e in engine.store.list_trash(USER))
    with pytest.raises(ReviewError):
        hand(engine).remember(USER, first.number, "words nobody said")
    german = engine.index.turns(USER)[2]
    said = hand(engine).remember(USER, german.number)
    assert engine.store.find(said.doc_id, USER).body.startswith('Alex said: "Ich arbeite')  # type: ignore[union-attr]


def test_add_pin_retire_and_undo(engine: Engine) -> None:
    own = hand(engine)
    added = own.add(USER, "Alex's allotment is plot 14.", turns=[1])
    doc = engine.store.find(added.doc_id, USER, areas=("knowledge",))
    assert doc is not None and doc.get("reviewer_action") == "written" and doc.get("origin") == "person"
    assert added.doc_id in found(engine, "allotment")
    own.pin(USER, added.doc_id)
    assert engine.store.find(added.doc_id, USER).get("pinned") is True  # type: ignore[union-attr]
    own.retire(USER, added.doc_id, "gave up the allotment")
    retired = engine.store.find(added.doc_id, USER, areas=("knowledge",))
    assert retired is not None and retired.get("retired_reason") == "gave up the allotment"
    assert retired.get("pinned") is False  # no longer true: not core memory either
    assert added.doc_id not in found(engine, "allotment")
    engine.review.undo(USER)  # retire undone: back in search, pinned again
    assert added.doc_id in found(engine, "allotment")
    assert engine.store.find(added.doc_id, USER).get("pinned") is True  # type: ignore[union-attr]


def test_merge_keeps_all_evidence_and_is_one_undo(engine: Engine) -> None:
    own = hand(engine)
    a = stage(engine, "Alex keeps bees.", [1])
    b = stage(engine, "Alex has beehives on the roof.", [1])
    c = own.add(USER, "Alex's sister Rosa sells honey.", turns=[1]).doc_id
    merged = own.merge(USER, [a, b, c], "Alex keeps bees on the roof; Rosa sells the honey.")
    doc = engine.store.find(merged.doc_id, USER, areas=("knowledge",))
    assert doc is not None and doc.get("merged_from") == [a, b, c] and doc.source_turns == [1]
    assert engine.store.find(a, USER, areas=("staging",)) is None
    assert engine.store.find(c, USER, areas=("knowledge",)).get("merged_into") == merged.doc_id  # type: ignore[union-attr]
    assert found(engine, "honey") == [merged.doc_id]
    engine.review.undo(USER)
    assert engine.store.find(a, USER, areas=("staging",)) is not None
    assert found(engine, "honey") == [c]


def test_bulk_approve_is_one_step_and_skips_what_needs_its_own_answer(engine: Engine) -> None:
    ids = [stage(engine, f"Alex fact number {i}.", [1]) for i in range(3)]
    correction = stage(engine, "Alex moved.", [1], kind="correction")
    result = hand(engine).approve_all(USER, [*ids, correction])
    assert "skipped 1" in result.message
    assert all(engine.store.find(i, USER, areas=("knowledge",)) for i in ids)
    [undone] = engine.review.undo(USER)
    assert undone.message == "undid approving several in one step"  # words, not the log's code name
    assert all(engine.store.find(i, USER, areas=("staging",)) for i in ids)
    hand(engine).discard_all(USER, ids, "not now")
    assert not any(engine.store.find(i, USER, areas=("staging",)) for i in ids)


def test_a_kill_during_a_merge_loses_nothing(tmp_path: Path, engine: Engine) -> None:
    a = stage(engine, "Alex keeps bees.", [1])
    b = stage(engine, "Alex has beehives.", [1])
    vault = engine.paths.root
    engine.close()
    code = ("import sys\nfrom curator.engine import Engine\nfrom curator.review.own_hand import OwnHand\n"
            f"e = Engine(sys.argv[1], triggers=False)\nOwnHand(e.review).merge('default', {[a, b]!r}, 'merged text')\n")
    env = {**os.environ, "CURATOR_FAULT": "review.merge.before_log"}
    run = subprocess.run([sys.executable, "-c", code, str(vault)], env=env, capture_output=True, timeout=120)
    assert run.returncode != 0  # killed by the fault point, before the action finished
    with Engine(vault, triggers=False) as again:  # the next start rolls the half merge back
        staged = {d.id for _, d in again.store.iter_documents(USER, "staging")}
        knowledge = [d for _, d in again.store.iter_documents(USER, "knowledge")]
        assert {a, b} <= staged and not any(d.get("merged_from") for d in knowledge)


def test_the_same_from_the_command_line(engine: Engine, tmp_path: Path) -> None:
    vault = engine.paths.root
    engine.close()

    def cli(*args: str) -> dict:
        run = subprocess.run([sys.executable, "-m", "curator.cli.main", "--vault", str(vault), "--json", *args],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stdout + run.stderr
        return json.loads(run.stdout)

    remembered = cli("remember", "1", "--text", "I keep bees on the roof", "--approve")
    added = cli("add", "Alex's allotment is plot 14.")
    assert cli("pin", added["doc_id"])["action"] == "pin"
    assert cli("retire", remembered["doc_id"], "--reason", "the bees moved away")["action"] == "retire"
    with Engine(vault, triggers=False) as again:
        assert again.store.find(added.get("doc_id"), USER).get("pinned") is True  # type: ignore[union-attr]
        assert remembered["doc_id"] not in found(again, "bees")
        ids = [stage(again, f"Alex fact {i}.", [1]) for i in range(2)]
    approved = cli("approve-all", "--kind", "fact")
    assert approved["action"] == "approve_all" and "approved 2" in approved["message"]
    with Engine(vault, triggers=False) as again:
        assert all(again.store.find(i, USER, areas=("knowledge",)) for i in ids)
