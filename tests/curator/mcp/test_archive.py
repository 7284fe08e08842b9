"""Seed 004 §12 with an injected clock: turns older than 30 days go to cold storage, nothing is lost."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from mcp_helpers import write_chat

from curator.cli.main import main as curator_main
from curator.clock import ManualClock, parse_iso
from curator.engine import Engine
from curator.index.archive import Archiver, search_archived
from curator.index.search import SearchFilters

OLD = [
    ("user", "We planned the harbour kayak trip to Porto for the spring."),
    ("assistant", "A kayak trip in Porto harbour in spring, lovely."),
]
NEW = [("user", "Today I bought a new bicycle helmet."), ("assistant", "A new helmet, good idea.")]


def cli(vault: Path, *args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert curator_main(["--vault", str(vault), *args]) == 0
    return out.getvalue()


def test_old_turns_are_archived_searchable_on_request_restored_and_rebuilt_identically(tmp_path: Path) -> None:
    write_chat(tmp_path / "old", OLD, day="2026-09-01")
    write_chat(tmp_path / "new", NEW, day="2026-11-20")
    vault = tmp_path / "vault"
    clock = ManualClock(parse_iso("2026-11-22T12:00:00Z") or 0.0)
    with Engine(vault, clock=clock, triggers=False) as engine:
        engine.add_source(tmp_path / "old")
        engine.add_source(tmp_path / "new")
        engine.scan_all()
        assert [h.id for h in engine.search("kayak Porto")][:1] in (["1"], ["2"])
        before = {n: engine.index.get_turn("default", n) for n in (1, 2, 3, 4)}
        report = engine.run_lifecycle()
        assert report["archived"] == 2  # the two September turns; November stays active

        hits = engine.search("kayak Porto harbour")
        assert [h.item_type for h in hits] == ["archive"]  # one summary row for the conversation-day
        assert hits[0].provenance["turns"] == [1, 2] and hits[0].provenance["day"] == "2026-09-01"
        assert [h.id for h in engine.search("helmet")][:1] in (["3"], ["4"])
        archived = search_archived(engine.index, "kayak harbour", SearchFilters(user_id="default"))
        assert sorted(h.number for h in archived) == [1, 2]
        for n in (1, 2, 3, 4):  # every word is still there
            turn = engine.index.get_turn("default", n)
            assert turn is not None and before[n] is not None and turn.text == before[n].text
        raw = engine.index.reader().execute("SELECT text FROM turns WHERE number IN (1, 2)").fetchall()
        assert [r[0] for r in raw] == ["", ""]  # the active table no longer carries the text
        assert engine.run_lifecycle()["archived"] == 0  # idempotent
        rebuilt = engine.reindex()
        assert rebuilt.equal, rebuilt.differences
        assert engine.search("kayak Porto harbour")[0].item_type == "archive"

    shown = json.loads(cli(vault, "--json", "show", "1"))
    assert "kayak" in shown["text"]
    found = json.loads(cli(vault, "--json", "archive", "--search", "kayak"))
    assert sorted(h["number"] for h in found) == [1, 2]
    assert json.loads(cli(vault, "--json", "reindex"))["equal"] is True


def test_a_turn_read_late_behind_the_boundary_is_archived_alike_by_live_and_rebuilt_index(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    clock = ManualClock(parse_iso("2026-11-22T12:00:00Z") or 0.0)
    with Engine(vault, clock=clock, triggers=False) as engine:
        write_chat(tmp_path / "a", NEW, day="2026-11-20")
        engine.add_source(tmp_path / "a")
        engine.scan_all()
        Archiver(engine.index, engine.paths).archive(clock.now() - 30 * 86400.0)
        write_chat(tmp_path / "late", OLD, day="2026-08-01")  # an old export copied in later
        engine.import_path(tmp_path / "late")
        report = engine.reindex()
        assert report.equal, report.differences
        assert engine.search("kayak")[0].item_type == "archive"


def test_an_agent_finds_archived_turns_only_on_request(tmp_path: Path) -> None:
    from curator.mcp.agent import AgentMemory
    from curator.mcp.usage import UsageLog

    write_chat(tmp_path / "old", OLD, day="2026-09-01")
    clock = ManualClock(parse_iso("2026-11-22T12:00:00Z") or 0.0)
    with Engine(tmp_path / "vault", clock=clock, triggers=False) as engine:
        engine.add_source(tmp_path / "old")
        engine.scan_all()
        engine.run_lifecycle()
        usage = UsageLog(engine.paths.root / "usage.sqlite")
        agent = AgentMemory(engine.paths, engine.index, engine.store, usage, clock=clock)
        default = agent.search("kayak harbour")
        assert [r["type"] for r in default] == ["archive"] and default[0]["source_turns"] == [1, 2]
        on_request = agent.search("kayak harbour", include_archived=True)
        assert {r["id"] for r in on_request if r["type"] == "turn"} == {"turn:1", "turn:2"}
        assert "kayak" in (agent.retrieve("turn:1") or {})["text"]
        day = agent.retrieve(default[0]["id"])
        assert day is not None and [t["id"] for t in day["turns"]] == ["turn:1", "turn:2"]
        assert "kayak" in day["turns"][0]["text"]
        usage.close()
