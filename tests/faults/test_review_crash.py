"""Item 2 of issue 11: review actions are all or nothing; undo is exact; nothing leaves the vault."""

from __future__ import annotations

import os

import pytest

from curator.engine import Engine
from curator.review.actions import ReviewEngine
from curator.review.staging import StagedDraft, StagingArea
from curator.vault.documents import Document
from curator.vault.paths import UnsafePathError, new_id

USER = "default"


@pytest.fixture
def vault(tmp_path):
    engine = Engine(tmp_path / "vault", triggers=False)
    yield engine
    engine.close()


def _review(engine):
    return ReviewEngine(engine.paths, engine.store, clock=engine.clock)


def _stage(engine, kind="fact", **fields):
    text = fields.pop("text", "The person keeps bees on the roof.")
    draft = StagedDraft(kind=kind, title=fields.pop("title", "Bees on the roof"), text=text, category="Facts",
                        source_turns=[1], confidence=0.6, batch_id=1, origin="batch", gates=["caps"], fields=fields)
    return StagingArea(engine.store, engine.clock).stage(USER, draft).id


def _knowledge(engine, body="The kettle is red."):
    doc = Document.new(doc_id=new_id(), kind="fact", title="Kettle", body=body + "\n", source_turns=[1],
                       confidence=0.7, created_at="2026-11-20T18:30:00Z", scope="user")
    return doc, engine.store.create(doc, USER, "knowledge", "Facts")


def test_undo_of_an_approved_correction_is_byte_identical(vault):
    target, path = _knowledge(vault)
    original = path.read_bytes()
    item = _stage(vault, kind="correction", title="Kettle colour", text="The kettle is blue.",
                  target_id=target.id, old_text="The kettle is red.", new_text="The kettle is blue.")
    review = _review(vault)
    review.approve(USER, item, review.show(USER, item).item.content_hash)
    assert b"blue" in path.read_bytes()
    review.undo(USER)
    assert path.read_bytes() == original
    assert [d.id for _, d in vault.store.iter_documents(USER, "staging")] == [item]


def test_an_exception_half_way_rolls_the_action_back(vault, monkeypatch):
    item = _stage(vault)
    review = _review(vault)
    shown = review.show(USER, item).item.content_hash

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(review.log, "append", broken)  # the file moved, then the undo log write fails
    with pytest.raises(OSError):
        review.approve(USER, item, shown)
    assert [d.id for _, d in vault.store.iter_documents(USER, "staging")] == [item]
    assert list(vault.store.iter_paths(USER, "knowledge")) == []
    assert not review.intents.file(USER).exists()


def test_a_symlinked_knowledge_folder_is_refused_before_anything_is_deleted(vault, tmp_path):
    item = _stage(vault)
    outside = tmp_path / "outside"
    outside.mkdir()
    knowledge = vault.paths.user(USER).knowledge
    os.rmdir(knowledge)
    os.symlink(outside, knowledge)
    review = _review(vault)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        review.approve(USER, item, review.show(USER, item).item.content_hash)
    assert list(outside.iterdir()) == []
    assert [d.id for _, d in vault.store.iter_documents(USER, "staging")] == [item]
    assert review.undo_log(USER) == []


def test_a_symlinked_trash_is_refused_for_discard(vault, tmp_path):
    item = _stage(vault)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    trash = vault.paths.user(USER).trash
    os.rmdir(trash)
    os.symlink(outside, trash)
    with pytest.raises(UnsafePathError):
        _review(vault).discard(USER, item, "no")
    assert list(outside.iterdir()) == []
    assert [d.id for _, d in vault.store.iter_documents(USER, "staging")] == [item]


def test_a_cli_approve_while_watch_runs_is_found_by_search_at_once(tmp_path):
    from faultkit import cli

    vault = tmp_path / "vault"
    with Engine(vault, triggers=False) as engine:
        item = _stage(engine, title="Zebra finches", text="The person breeds zebra finches.")
    with Engine(vault, triggers=False) as watcher:  # holds the writer lock, like `curator watch`
        result = cli(vault, "review", "approve", item)
        assert result.returncode == 0, result.stderr
        hits = watcher.search("zebra finches")
        assert [h.id for h in hits if h.item_type == "document"] == [item]
