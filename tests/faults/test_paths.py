"""Item 5 of issue 11: nothing is read through a link out of a source, nothing written out of the vault."""

from __future__ import annotations

import os

from faultkit import msg

from curator.engine import Engine


def test_a_file_linked_from_outside_the_source_is_not_read(tmp_path):
    source, secret = tmp_path / "chats", tmp_path / "private"
    source.mkdir()
    secret.mkdir()
    (source / "mine.jsonl").write_text(msg("user", "my own chat line", "m1"))
    (secret / "other.jsonl").write_text(msg("user", "a private line elsewhere", "p1"))
    os.symlink(secret / "other.jsonl", source / "linked.jsonl")
    os.symlink(secret, source / "linked-folder")
    with Engine(tmp_path / "vault", triggers=False) as engine:
        engine.add_source(source)
        report = engine.scan_all()
        assert [t.text for t in report.added] == ["my own chat line"]


def test_a_link_into_another_source_is_read(tmp_path):
    source, other = tmp_path / "chats", tmp_path / "more-chats"
    source.mkdir()
    other.mkdir()
    (other / "b.jsonl").write_text(msg("user", "a line of the second source", "b1"))
    os.symlink(other / "b.jsonl", source / "b-link.jsonl")
    with Engine(tmp_path / "vault", triggers=False) as engine:
        engine.add_source(other)
        engine.add_source(source)
        texts = sorted(t.text for t in engine.scan_all().added)
        assert texts == ["a line of the second source", "a line of the second source"]


def test_a_symlinked_staging_folder_stages_nothing_outside(tmp_path):
    from curator.review.staging import StagedDraft, StagingArea
    from curator.vault.paths import UnsafePathError

    outside = tmp_path / "outside"
    outside.mkdir()
    with Engine(tmp_path / "vault", triggers=False) as engine:
        staging = engine.paths.user("default").staging
        os.rmdir(staging)
        os.symlink(outside, staging)
        draft = StagedDraft(kind="fact", title="x", text="The person likes tea.", category="Facts",
                            source_turns=[1], confidence=0.6, batch_id=1, origin="batch", gates=[])
        try:
            StagingArea(engine.store, engine.clock).stage("default", draft)
        except UnsafePathError as exc:
            assert "symbolic link" in str(exc)
        assert list(outside.iterdir()) == []
