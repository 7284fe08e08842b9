"""Adapters: parsing the three formats, half-written and bad input, detection."""

import json
from pathlib import Path

import pytest

from curator.sources.adapters import ADAPTERS, UnknownAdapterError, detect_adapter, get_adapter
from curator.sources.adapters.episodes import split_entries
from curator.sources.adapters.jsonl import parse_timestamp
from curator.sources.adapters.turn_folder import find_validation, split_sections


def line(**fields):
    return json.dumps(fields) + "\n"


def read_all(adapter, root, unit, state=None):
    return adapter.read(root, unit, "src", state)


def test_jsonl_reads_roles_ids_timestamps_and_conversations(tmp_path):
    f = tmp_path / "chat.jsonl"
    f.write_text(
        line(
            role="user",
            content="hello there",
            timestamp="2026-11-20T18:05:00Z",
            id="m1",
            conversation_id="c1",
        )
        + line(speaker="assistant", text="hi!", timestamp=1_770_000_000)
        + line(
            role="human",
            content=[{"type": "text", "text": "part one"}, {"type": "image"}],
            timestamp=1_770_000_000_123,
        )
        + line(
            type="message",
            message={"role": "assistant", "content": [{"type": "text", "text": "nested"}]},
        )
        + line(type="session", version=3)
    )
    result = read_all(ADAPTERS["jsonl"], tmp_path, f)
    assert result.problems == []
    assert [(t.role, t.text) for t in result.turns] == [
        ("user", "hello there"), ("assistant", "hi!"), ("user", "part one"), ("assistant", "nested"),
    ]
    first, second, third = result.turns[:3]
    assert first.key == "id:m1" and first.conversation == "c1"
    assert first.timestamp == pytest.approx(parse_timestamp("2026-11-20T18:05:00Z"))
    assert second.key == "pos:1" and second.conversation == "chat.jsonl" and second.timestamp == 1_770_000_000
    assert third.timestamp == pytest.approx(1_770_000_000.123)


def test_jsonl_waits_for_a_half_written_line_and_resumes(tmp_path):
    adapter = ADAPTERS["jsonl"]
    f = tmp_path / "chat.jsonl"
    full = line(role="user", content="first message")
    second = line(role="assistant", content="second message")
    f.write_text(full + second[:15])
    one = read_all(adapter, tmp_path, f)
    assert [t.text for t in one.turns] == ["first message"] and one.problems == []
    with open(f, "a") as handle:
        handle.write(second[15:])
    two = read_all(adapter, tmp_path, f, one.state)
    assert two.full is False
    assert [(t.text, t.position) for t in two.turns] == [("second message", 1)]


def test_jsonl_unterminated_complete_last_line_is_taken_once(tmp_path):
    adapter = ADAPTERS["jsonl"]
    f = tmp_path / "chat.jsonl"
    f.write_text(line(role="user", content="a") + json.dumps({"role": "assistant", "content": "b"}))
    one = read_all(adapter, tmp_path, f)
    assert [t.text for t in one.turns] == ["a", "b"]
    with open(f, "a") as handle:
        handle.write("\n" + line(role="user", content="c"))
    two = read_all(adapter, tmp_path, f, one.state)
    assert [(t.text, t.position) for t in two.turns] == [("c", 2)]


def test_jsonl_bad_lines_are_skipped_with_reasons(tmp_path):
    f = tmp_path / "chat.jsonl"
    f.write_bytes(
        line(role="user", content="good one").encode()
        + b'{"role": "user", "content": "caf\xe9 latin-1"}\n'
        + b"this is not json\n"
        + line(role="wizard", content="who am i").encode()
        + line(role="assistant", content="good two").encode()
    )
    result = read_all(ADAPTERS["jsonl"], tmp_path, f)
    assert [t.text for t in result.turns] == ["good one", "good two"]
    assert len(result.problems) == 3
    assert "line 2: not valid UTF-8" in result.problems[0]
    assert "line 3: not valid JSON" in result.problems[1]
    assert "unknown role" in result.problems[2]


def test_jsonl_rewrite_is_detected_and_read_in_full(tmp_path):
    adapter = ADAPTERS["jsonl"]
    f = tmp_path / "chat.jsonl"
    f.write_text(line(role="user", content="one") + line(role="assistant", content="two"))
    first = read_all(adapter, tmp_path, f)
    f.write_text(line(role="user", content="ONE"))
    again = read_all(adapter, tmp_path, f, first.state)
    assert again.full is True and [t.text for t in again.turns] == ["ONE"]


def write_turn(folder: Path, n: int, query: str, answer: str, metadata: dict | None = None) -> Path:
    unit = folder / f"turn_{n:06d}"
    unit.mkdir(parents=True)
    (unit / "context.md").write_text(
        f"# Turn {n}\n\n## §0 Original query\n{query}\n\n## §2 Gathered context\nsome context words\n\n"
        f"## §3 Plan\nroute: answer\n\n## §6 Validation\nAPPROVE, looks right\n"
    )
    (unit / "response.md").write_text(answer)
    if metadata is not None:
        (unit / "metadata.json").write_text(json.dumps(metadata))
    return unit


def test_turn_folder_gives_query_and_response_with_context_and_metadata(tmp_path):
    unit = write_turn(tmp_path, 7, "What hamster should I buy?", "A Syrian hamster.",
                      {"timestamp": 1_770_400_000, "quality_score": 0.9, "topic": "pet.hamster", "session_id": "u1"})
    adapter = ADAPTERS["turn_folder"]
    assert adapter.list_units(tmp_path) == [unit]
    assert adapter.unit_for(tmp_path, unit / "response.md") == unit
    result = read_all(adapter, tmp_path, unit)
    query, response = result.turns
    assert (query.role, query.text, query.key, query.position) == ("user", "What hamster should I buy?", "query", 14)
    assert "§2 Gathered context" in query.context
    assert (response.role, response.text, response.position) == ("assistant", "A Syrian hamster.", 15)
    assert query.extra["quality"] == 0.9 and query.extra["validation"] == "APPROVE"
    # Seed 004 §11: session_id is the user's identity, kept with the turn, not the conversation.
    assert query.extra["topic"] == "pet.hamster" and query.extra["session_id"] == "u1"
    assert query.conversation == "turns"
    assert query.timestamp == 1_770_400_000


def test_turn_folder_is_not_ready_until_complete(tmp_path):
    unit = tmp_path / "turn_000001"
    unit.mkdir()
    (unit / "context.md").write_text("## §0 q\nhello")
    adapter = ADAPTERS["turn_folder"]
    assert not adapter.is_complete(unit)
    (unit / "response.md").write_text("answer")
    # The watcher reads a folder once it is stable, so a metadata.json that does not parse
    # then is broken: the words are read without it, and the health says why.
    (unit / "metadata.json").write_text('{"timestamp": 17')
    broken = read_all(adapter, tmp_path, unit)
    assert broken.ready is True and [t.text for t in broken.turns] == ["hello", "answer"]
    assert "metadata.json" in broken.problems[0] and broken.time_unknown == 2
    (unit / "metadata.json").write_text('{"timestamp": 1770400000}')
    fixed = read_all(adapter, tmp_path, unit)
    assert fixed.ready is True and fixed.problems == [] and fixed.turns[0].timestamp == 1_770_400_000


def test_turn_folder_with_invalid_utf8_is_skipped_with_reason(tmp_path):
    unit = write_turn(tmp_path, 1, "q", "a")
    (unit / "response.md").write_bytes(b"caf\xe9")
    result = read_all(ADAPTERS["turn_folder"], tmp_path, unit)
    assert result.ready is False and result.turns == []
    assert "not valid UTF-8" in result.problems[0]


def test_sections_and_validation_helpers():
    text = "## §0 Query\nhi\n## §6 Validation\nverdict: REVISE\n"
    assert split_sections(text) == {0: "hi", 6: "verdict: REVISE"}
    assert find_validation(text) == "REVISE"


def test_episodes_entries_by_heading_with_times(tmp_path):
    day = tmp_path / "memory" / "episodes" / "2026-02-04.md"
    day.parent.mkdir(parents=True)
    day.write_text("# 2026-02-04\n\n## 09:15 Morning\nTalked about reef tanks.\n\n## 14:30\nuser: I moved to Lisbon\n")
    adapter = ADAPTERS["episodes"]
    assert detect_adapter(tmp_path)[0] == "episodes"
    turns = read_all(adapter, tmp_path, day).turns
    assert len(turns) == 2
    assert "reef tanks" in turns[0].text and turns[0].role == "assistant"
    assert turns[1].role == "user"
    assert turns[0].timestamp == pytest.approx(parse_timestamp("2026-02-04T09:15:00Z"))


def test_episode_without_headings_splits_bullets_and_paragraphs():
    assert [e for _, e in split_entries("- one\n- two\n  more\n\npara")] == ["- one", "- two\n  more", "para"]


def test_detection_picks_the_format_or_says_why_not(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.jsonl").write_text("")
    assert detect_adapter(tmp_path / "a")[0] == "jsonl"
    write_turn(tmp_path / "b", 1, "q", "a")
    assert detect_adapter(tmp_path / "b")[0] == "turn_folder"
    (tmp_path / "c").mkdir()
    with pytest.raises(UnknownAdapterError, match="no adapter recognises"):
        detect_adapter(tmp_path / "c")
    with pytest.raises(UnknownAdapterError, match=r"known: .*episodes, .*jsonl, .*turn_folder"):
        get_adapter("nope")


def test_temp_files_are_not_units(tmp_path):
    adapter = ADAPTERS["jsonl"]
    for name in (".chat.jsonl.swp", ".goutputstream-AB12", "chat.jsonl~", ".curator-tmp-x"):
        assert adapter.unit_for(tmp_path, tmp_path / name) is None
    assert adapter.unit_for(tmp_path, tmp_path / "chat.jsonl") == tmp_path / "chat.jsonl"


def test_a_folder_with_two_formats_reads_both(tmp_path: Path) -> None:
    from curator.sources.adapters import detect_formats

    (tmp_path / "memory" / "episodes").mkdir(parents=True)
    (tmp_path / "memory" / "episodes" / "2026-01-02.md").write_text("## 09:15 note\nuser: hello there\n")
    (tmp_path / "chat.jsonl").write_text('{"role": "user", "content": "hi", "timestamp": 1767225600}\n')
    assert detect_formats(tmp_path) == {"episodes": 1, "jsonl": 1}
    name, _ = detect_adapter(tmp_path)
    assert name == "auto"
    adapter = get_adapter(name)
    units = adapter.list_units(tmp_path)
    assert [u.name for u in units] == ["chat.jsonl", "2026-01-02.md"]
    texts = [t.text for u in units for t in adapter.read(tmp_path, u, "s", None).turns]
    assert texts[0] == "hi" and "hello there" in texts[1]


def test_read_result_counts_skips_and_unknown_times() -> None:
    from curator.sources.adapters.base import MAX_PROBLEMS, ReadResult
    from curator.sources.turns import Turn

    result = ReadResult()
    for i in range(MAX_PROBLEMS + 3):
        result.problem(f"line {i}: bad")
    result.skip("tool results", 2)
    result.add(Turn("s", "f", "c", "k", 0, "user", "me", "hi", 0.0), when=None, fallback=5.0, title="T")
    assert len(result.problems) == MAX_PROBLEMS
    assert result.turns[0].timestamp == 5.0 and not result.turns[0].time_known
    assert result.turns[0].title == "T"
    notes = result.notes()
    assert "3 more problems" in notes[0] and "2 tool results" in notes[1] and "1 turns" in notes[2]
