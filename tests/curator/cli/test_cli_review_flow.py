"""The review CLI keeps search in step: approve -> found by search; undo -> gone again."""

import json
import shutil
from pathlib import Path

from curator.cli.main import main
from curator.engine import Engine
from curator.review.staging import StagedDraft, StagingArea

DEMO = Path(__file__).resolve().parents[3] / "resources" / "demo"


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_approve_is_searchable_and_undo_takes_it_back(tmp_path, capsys):
    vault, source = tmp_path / "vault", tmp_path / "chats"
    shutil.copytree(DEMO, source)
    with Engine(vault, triggers=False) as engine:
        engine.add_source(source)
        engine.scan_all()
        item = StagingArea(engine.store, engine.clock).stage("default", StagedDraft(
            kind="fact", title="Pixel the border collie", text="Maya's border collie Pixel needs two long walks a day.",
            category="Facts", source_turns=[5], confidence=0.6, batch_id=1, origin="batch", gates=["keyword"]))
    v = ["--vault", str(vault)]

    shown = _json(capsys, [*v, "review", "show", item.id, "--json"])
    assert "Pixel" in json.dumps(shown)

    _json(capsys, [*v, "review", "approve", item.id, "--json"])
    hits = _json(capsys, [*v, "search", "border collie walks", "--kind", "fact", "--json"])
    assert [h["id"] for h in hits if h["item_type"] == "document"] == [item.id]

    _json(capsys, [*v, "review", "undo", "--json"])
    hits = _json(capsys, [*v, "search", "border collie walks", "--kind", "fact", "--json"])
    assert [h for h in hits if h["item_type"] == "document"] == []
    listing = _json(capsys, [*v, "review", "list", "--json"])
    assert item.id in json.dumps(listing)


def test_wrong_hash_is_refused_and_nothing_moves(tmp_path, capsys):
    vault = tmp_path / "vault"
    with Engine(vault, triggers=False) as engine:
        item = StagingArea(engine.store, engine.clock).stage("default", StagedDraft(
            kind="fact", title="Tom walks Pixel", text="Tom walks Pixel on Tuesdays and Thursdays.",
            category="Facts", source_turns=[7], confidence=0.6, batch_id=1, origin="batch"))
    assert main(["--vault", str(vault), "review", "approve", item.id, "--hash", "0" * 64]) == 1
    assert list((vault / "Users" / "default" / "Knowledge").rglob("*.md")) == []
