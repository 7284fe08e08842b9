"""Item 1 of issue 11: every record is checked before the ledger or the index sees it."""

from __future__ import annotations

import json
import math

import pytest
from faultkit import cli, msg

from curator.clock import ManualClock
from curator.engine import Engine
from curator.sources.ledger import TurnLedger
from curator.sources.validation import record_problem, timestamp_problem


@pytest.fixture
def setup(tmp_path):
    source = tmp_path / "chats"
    source.mkdir()
    engine = Engine(tmp_path / "vault", clock=ManualClock(1_790_000_000), triggers=False)
    yield engine, source
    engine.close()


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity", 1e300, "9999999999999", -5, "3000-01-01T00:00:00Z"])
def test_a_bad_timestamp_keeps_the_message_time_unknown_and_says_why(setup, bad):
    engine, source = setup
    (source / "a.jsonl").write_text(msg("user", "first line", "m1") + msg("user", "poisoned", "m2", ts=bad)
                                    + msg("assistant", "third line", "m3"))
    engine.add_source(source)
    report = engine.scan_all()
    # Never lose a word: the message stays, its impossible time does not.
    assert [t.text for t in report.added] == ["first line", "poisoned", "third line"]
    assert report.added[1].extra.get("time_unknown") is True
    assert report.added[1].timestamp == report.added[0].timestamp  # ordered after the previous message
    assert any("timestamp" in p and "time-unknown" in p for p in report.problems)
    # The ledger never holds what the index refuses: every later start, scan and reindex work.
    for record in TurnLedger(engine.paths).read("default"):
        assert record_problem(record) is None
    with (source / "a.jsonl").open("a") as handle:
        handle.write(msg("user", "fourth line", "m4"))
    assert [t.text for t in engine.scan_all().added] == ["fourth line"]
    assert engine.reindex().equal


def test_wrong_content_types_are_reported_not_silently_dropped(setup):
    engine, source = setup
    lines = msg("user", "good one", "m1") + msg("user", 42, "m2") + msg("user", None, "m3") \
        + msg("user", ["a", "list"], "m4") + '{"role": "user", "content": ' + "[" * 5000 + "]" * 5000 + "}\n" \
        + msg("assistant", "good two", "m5")
    (source / "a.jsonl").write_text(lines)
    engine.add_source(source)
    report = engine.scan_all()
    texts = [t.text for t in report.added]
    assert texts[0] == "good one" and texts[-1] == "good two"
    assert len(report.problems) >= 3  # the number, the null and the deep nesting each say why


def test_three_messages_with_one_id_are_three_turns(setup):
    engine, source = setup
    f = source / "a.jsonl"
    f.write_text(msg("user", "alpha", "same") + msg("user", "beta", "same") + msg("user", "gamma", "same"))
    engine.add_source(source)
    report = engine.scan_all()
    assert [t.text for t in report.added] == ["alpha", "beta", "gamma"]
    assert any("reuse an id" in p for p in report.problems)
    status = engine.status()
    assert any("reuse an id" in p for p in status["sources"][0]["problems"])
    # Appending a fourth with the same id (a tail read) keeps counting; a full re-read agrees.
    with f.open("a") as handle:
        handle.write(msg("user", "delta", "same"))
    assert [t.text for t in engine.scan_all().added] == ["delta"]
    assert engine.reindex().equal
    assert engine.index.turn_counts()["default"] == {"active": 4}


def test_a_poisoned_ledger_is_repaired_at_start(tmp_path):
    vault = tmp_path / "vault"
    source = tmp_path / "chats"
    source.mkdir()
    (source / "a.jsonl").write_text(msg("user", "kept before", "m1"))
    with Engine(vault, triggers=False) as engine:
        engine.add_source(source)
        engine.scan_all()
        ledger = TurnLedger(engine.paths)
        good = list(ledger.read("default"))
    # A record written before records were checked: NaN time, then a good one after it.
    poisoned = json.loads(json.dumps(good[0]))
    poisoned.update(seq=2)
    poisoned["turn"].update(number=2, timestamp=math.nan, key="id:m2", text="poisoned")
    after = json.loads(json.dumps(good[0]))
    after.update(seq=3)
    after["turn"].update(number=3, key="id:m3", text="kept after", position=1)
    with (source / "a.jsonl").open("a") as handle:
        handle.write(msg("user", "kept after", "m3"))
    after["turn"].update(sha256=__import__("curator.sources.turns", fromlist=["text_hash"]).text_hash("kept after"))
    path = ledger.path("default")
    with path.open("a") as handle:
        handle.write(json.dumps(poisoned) + "\n" + json.dumps(after) + "\n")
    with Engine(vault, triggers=False) as engine:
        assert any("set aside" in w for w in engine.warnings)
        texts = [t.text for t in engine.index.turns("default")]
        assert texts == ["kept before", "kept after"]
    rejected = path.with_name("turns.rejected.jsonl").read_text()
    assert "poisoned" in rejected and "poisoned" not in path.read_text()
    with Engine(vault, triggers=False) as engine:  # and the next start is clean
        assert not any("set aside" in w for w in engine.warnings)
        assert engine.reindex().equal


def test_show_never_crashes_on_odd_times(tmp_path):
    vault = tmp_path / "vault"
    with Engine(vault, triggers=False) as engine:
        engine.paths.user("default").ensure()
    ledger = TurnLedger(__import__("curator.vault.paths", fromlist=["VaultPaths"]).VaultPaths(vault))
    record = {"seq": 1, "op": "add", "at": 0.0, "supersedes": None, "turn": {
        "number": 1, "user_id": "default", "source_id": "s", "file": "a.jsonl", "conversation": "c",
        "key": "id:x", "position": 0, "role": "user", "speaker": "user", "text": "far future",
        "timestamp": 1e300, "sha256": "0" * 64, "status": "active", "context": "", "extra": {}}}
    ledger.append("default", [record])
    result = cli(vault, "show", "1")
    assert result.returncode != 0 or "Traceback" not in result.stderr
    assert "Traceback" not in result.stderr


def test_timestamp_checks():
    assert timestamp_problem(1_700_000_000) is None
    assert timestamp_problem(math.nan) and timestamp_problem(math.inf) and timestamp_problem(True)
    assert timestamp_problem(1e12) and timestamp_problem(-1)


def test_a_deeply_nested_first_line_does_not_stop_detection_or_the_file(tmp_path):
    source = tmp_path / "chats"
    source.mkdir()
    (source / "a.jsonl").write_text('{"role": "user", "content": "deep", "x": ' + "[" * 5000 + "]" * 5000 + "}\n"
                                    + msg("user", "after the deep line", "m2"))
    result = cli(tmp_path / "vault", "import", str(source))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "1 new turns" in result.stdout and "nested too deeply" in result.stdout


def test_a_truncated_metadata_json_still_reads_the_turn_and_says_why(setup):
    engine, source = setup
    turn = source / "turn_000001"
    turn.mkdir()
    (turn / "context.md").write_text("## §0 Query\nWhere did I park the blue bicycle?\n")
    (turn / "response.md").write_text("By the library.\n")
    (turn / "metadata.json").write_text('{"timestamp": "2026-11-20T18:00:00Z", "session_id": "s')
    engine.add_source(source)
    report = engine.scan_all()
    assert sorted(t.text for t in report.added) == ["By the library.", "Where did I park the blue bicycle?"]
    assert any("metadata.json" in p and "not valid JSON" in p for p in report.problems)
    assert all(t.extra.get("time_unknown") for t in report.added)
    problems = engine.status()["sources"][0]["problems"]
    assert any("metadata.json" in p for p in problems)
