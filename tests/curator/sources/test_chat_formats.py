"""Each client adapter on fixtures in that client's shape, one test per format version."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fakes import chat_clients as cc

from curator.sources.adapters import detect_adapter, detect_formats, get_adapter
from curator.sources.adapters.base import ReadResult
from curator.sources.adapters.jan import find_data_folder
from curator.sources.adapters.timestamps import parse_time
from curator.sources.turns import Turn


def read_source(root: Path) -> tuple[str, dict[str, ReadResult]]:
    name, _ = detect_adapter(root)
    adapter = get_adapter(name)
    results = {u.relative_to(root).as_posix() if u != root else u.name: adapter.read(root, u, "src", None)
               for u in adapter.list_units(root)}
    return name, results


def turns_of(result: ReadResult) -> list[tuple[str, str, str]]:
    return [(t.role, t.speaker, t.text) for t in result.turns]


def local(*args: int) -> float:
    return datetime(*args).timestamp()


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("June 3, 2024 6:03pm", local(2024, 6, 3, 18, 3)),
        ("March 25, 2025 9:19am", local(2025, 3, 25, 9, 19)),
        ("July 20, 2024 12:05am", local(2024, 7, 20, 0, 5)),
        ("2023-4-21 @20h 02m 47s 124ms", local(2023, 4, 21, 20, 2, 47) + 0.124),
        ("2024-5-24@16h24m11s", local(2024, 5, 24, 16, 24, 11)),
        ("May 03, 2026 14:05", local(2026, 5, 3, 14, 5)),
        ("2025-11-23T14:05:33.123Z", 1763906733.123),
        ("2026-01-01 12:00:00.123456789+01:00", 1767265200.123456),
        (1674563371558, 1674563371.558),
        (1767225600, 1767225600.0),
        ("1767225600", 1767225600.0),
    ],
)
def test_client_timestamps(value: object, expected: float) -> None:
    assert parse_time(value) == pytest.approx(expected)


@pytest.mark.parametrize("value", [None, True, "", "soon", "February 30, 2024 1:00pm", "13:99", 0, -5, 1e30,
                                   float("nan"), [], {}, "x" * 1000])
def test_unreadable_timestamps_are_none(value: object) -> None:
    assert parse_time(value) is None


def test_sillytavern_every_version(tmp_path: Path) -> None:
    current, v2024 = cc.sillytavern_current(tmp_path), cc.sillytavern_2024(tmp_path)
    cc.sillytavern_2023(tmp_path)
    group = cc.sillytavern_group(tmp_path)
    cc.sillytavern_noise(tmp_path, v2024)
    name, results = read_source(tmp_path)
    assert name == "sillytavern"
    assert not any("backups" in unit or not unit.endswith(".jsonl") for unit in results)
    assert len(results) == 4
    def rel(p):
        return p.relative_to(tmp_path).as_posix()
    now = results[rel(current)]
    assert turns_of(now) == [
        ("assistant", "Wren", "*The lantern flickers.* You made it through the pass."),
        ("user", "Tam", "Barely. My boots are soaked through."),
        ("assistant", "Wren", "Sit by the stove, the kettle is on."),  # the swipe on screen
    ]
    assert now.turns[2].timestamp == pytest.approx(1764579645.5)
    assert now.turns[2].extra["swipes"] == 2 and now.turns[2].extra["swipe_id"] == 1
    old = results[rel(v2024)]
    assert [t.role for t in old.turns] == ["user", "assistant", "system"]  # is_system is a system turn
    assert old.turns[0].timestamp == pytest.approx(local(2024, 6, 3, 18, 3))
    assert old.turns[0].title == "Oren - 2024-6-3@18h03m00s"
    legacy = results["public/chats/Pell/1682107367124.jsonl"]
    assert [t.timestamp for t in legacy.turns] == pytest.approx([local(2023, 4, 21, 20, 2, 47) + 0.124, 1682107390.0])
    crowd = results[rel(group)]
    assert turns_of(crowd)[0][:2] == ("system", "SillyTavern System")
    assert [t.speaker for t in crowd.turns[1:]] == ["Tam", "Oren", "Wren"]
    assert all(t.time_known for r in results.values() for t in r.turns)


def test_sillytavern_bad_lines_are_counted_not_guessed(tmp_path: Path) -> None:
    path = cc.sillytavern_2024(tmp_path)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write('\n{"name": "Who", "mes": "no is_user flag", "send_date": "June 3, 2024 7:00pm"}')
        handle.write('\n{"name": "Oren", "is_user": false, "mes": "", "send_date": "June 3, 2024 7:01pm"}')
        handle.write('\n{"name": "Oren", "is_user": false, "mes": "later", "send_date": "someday"}')
    _, results = read_source(tmp_path)
    (result,) = results.values()
    assert [t.text for t in result.turns][-1] == "later"
    assert not result.turns[-1].time_known and result.time_unknown == 1
    assert any("no is_user flag" in p for p in result.problems)
    assert result.skipped == {"empty messages": 1}


def test_jan_old_and_new_shapes(tmp_path: Path) -> None:
    old, new = cc.jan_old(tmp_path), cc.jan_new(tmp_path)
    name, results = read_source(tmp_path)
    assert name == "jan"
    first = results[old.relative_to(tmp_path).as_posix()]
    assert turns_of(first) == [("user", "user", "Which beans grow well in shade?"),
                               ("assistant", "Jan", "Runner beans cope with part shade.")]  # <think> dropped
    assert first.turns[0].timestamp == pytest.approx(1723493246.017)
    assert first.turns[0].title == "Seed swap plans" and first.turns[0].conversation == "jan_1723493088"
    assert first.turns[0].message_id == "01J5437S21MX7S1NA1W3QZJ6B9"
    second = results[new.relative_to(tmp_path).as_posix()]
    assert [t.text for t in second.turns] == ["My chain skips in third gear.", "Check the cable tension first."]
    assert second.turns[1].timestamp == pytest.approx(1767225601.2)
    assert second.skipped == {"tool messages": 1, "unfinished messages": 1}


def test_jan_thread_title_change_is_seen_and_data_folder_is_followed(tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere"
    path = cc.jan_old(moved)
    adapter = get_adapter("jan")
    before = adapter.fingerprint(path)
    (path.parent / "thread.json").write_text('{"title": "Renamed"}')
    assert adapter.fingerprint(path) != before
    assert adapter.unit_for(moved, path.parent / "thread.json") == path
    app = tmp_path / "Jan"
    app.mkdir()
    (app / "settings.json").write_text(f'{{"data_folder": "{moved}"}}')
    assert find_data_folder(app) == moved
    from curator.engine import Engine

    with Engine(tmp_path / "vault", triggers=False) as engine:
        source = engine.add_source(app)
        assert Path(source.path) == moved.resolve() and source.adapter == "jan"


def test_lmstudio_selected_versions_and_no_times(tmp_path: Path) -> None:
    cc.lmstudio_chat(tmp_path)
    name, results = read_source(tmp_path)
    assert name == "lmstudio"
    (result,) = results.values()
    assert turns_of(result) == [
        ("user", "user", "How long should the levain rest?"),
        ("assistant", "qwen/qwen3-8b", "Four to six hours, until it doubles."),  # thinking left out
        ("user", "user", "And the bulk ferment?"),
    ]
    assert all(not t.time_known for t in result.turns) and result.time_unknown == 3
    assert result.turns[0].title == "Sourdough timing"
    assert result.turns[0].timestamp == pytest.approx(1767225600.123)  # ordering stand-in: createdAt


def test_textgen_webui_layouts(tmp_path: Path) -> None:
    new, instruct, old = cc.textgen_new(tmp_path), cc.textgen_instruct(tmp_path), cc.textgen_old(tmp_path)
    name, results = read_source(tmp_path)
    assert name == "textgen_webui"
    chat = results[new.relative_to(tmp_path).as_posix()]
    assert turns_of(chat) == [
        ("assistant", "Cook", "Hello, what shall we cook?"),  # the greeting, no fake user turn
        ("user", "user", "Something with leeks & potatoes"),
        ("assistant", "Cook", "Leek and potato soup, then."),
        ("user", "user", "It's settled"),
    ]
    assert chat.turns[1].timestamp == pytest.approx(local(2026, 5, 3, 14, 6))
    assert chat.turns[2].extra == {**chat.turns[2].extra, "model": "Qwen3-8B-Q4_K_M.gguf", "versions": 2}
    assert chat.skipped  # the reply not written yet
    assert turns_of(results[instruct.relative_to(tmp_path).as_posix()])[0] == (
        "user", "user", "Translate 'tide' to French")
    legacy = results[old.relative_to(tmp_path).as_posix()]
    assert [t.speaker for t in legacy.turns] == ["Maren", "user", "Maren"]
    assert legacy.time_unknown == 3


@pytest.mark.parametrize("zipped", [False, True], ids=["json", "zip"])
def test_chatgpt_export_follows_the_branch_on_screen(tmp_path: Path, zipped: bool) -> None:
    cc.chatgpt_export(tmp_path, zipped=zipped)
    name, results = read_source(tmp_path)
    assert name == "chatgpt"
    (result,) = results.values()
    assert [t.text for t in result.turns] == [
        "Name a hardy herb.", "Thyme survives frost.", "Rosemary too, in a sheltered spot."]
    assert [t.role for t in result.turns] == ["user", "assistant", "assistant"]
    assert result.turns[0].title == "Hardy herbs" and result.turns[0].conversation == "c-1"
    assert result.skipped == {"hidden messages": 1, "tool calls": 1, "tool messages": 1}


@pytest.mark.parametrize("zipped", [False, True], ids=["json", "zip"])
def test_claude_ai_export(tmp_path: Path, zipped: bool) -> None:
    cc.claude_ai_export(tmp_path, zipped=zipped)
    name, results = read_source(tmp_path)
    assert name == "claude_ai"
    (result,) = results.values()
    assert turns_of(result) == [("user", "user", "Which knot holds a tarp ridgeline?"),
                                ("assistant", "Claude", "A trucker's hitch.")]
    assert result.turns[0].title == "Knot for a tarp" and result.turns[1].message_id == "b2"


def test_claude_code_only_real_prompts_and_replies(tmp_path: Path) -> None:
    main = cc.claude_code_session(tmp_path)
    name, results = read_source(tmp_path)
    assert name == "claude_code"
    session = results[main.relative_to(tmp_path).as_posix()]
    assert turns_of(session) == [("user", "user", "the dev server does not start"),
                                 ("assistant", "Claude", "Let me look at the config."),
                                 ("user", "user", "ok, the port was taken; it works now")]
    assert session.turns[0].title == "Dev server port clash"
    skipped = session.skipped
    for reason in ("command lines", "compaction lines", "interrupt notices", "meta lines", "queue-operation lines",
                   "system lines", "tool results", "tool calls and thinking"):
        assert skipped.get(reason), reason
    assert any("no 'type'" in p for p in session.problems)
    conversations = {t.conversation for r in results.values() for t in r.turns}
    assert len(conversations) == 2  # the subagent is its own conversation
    compact = next(r for u, r in results.items() if "acompact" in u)
    assert compact.turns == [] and compact.skipped == {"compaction lines": 2}


def test_openclaw_sessions_and_memory_in_one_source(tmp_path: Path) -> None:
    cc.openclaw_home(tmp_path)
    assert detect_formats(tmp_path) == {"openclaw": 1, "episodes": 2}
    name, results = read_source(tmp_path)
    assert name == "auto"
    session = next(r for u, r in results.items() if u.endswith(".jsonl"))
    assert turns_of(session) == [("user", "user", "What did we pick for the API?"),
                                 ("assistant", "assistant", "REST with cursor pagination.")]
    assert session.skipped["tool results"] == 1 and not session.problems  # never "unknown role"
    daily = results["workspace/memory/2026-01-16.md"]
    day = datetime(2026, 1, 16, tzinfo=UTC).timestamp()  # daily logs carry no zone: read as UTC
    heartbeat = next(t for t in daily.turns if "Heartbeat 15:50" in t.text)
    assert heartbeat.timestamp == pytest.approx(day + 15 * 3600 + 50 * 60)
    summary = results["workspace/memory/2026-01-16-api-choice.md"]
    assert [t.role for t in summary.turns] == ["user", "assistant", "user"]
    assert summary.turns[1].text == "Sure! Start with the endpoints.\nThey should be nouns."


def test_openclaw_session_memory_keeps_the_gateways_metadata_out_of_the_persons_words(tmp_path: Path) -> None:
    """A card read "Conversation info (untrusted metadata): Set up the heartbeat ...": the block
    the gateway writes before each message was taken for the person's words."""
    memory = tmp_path / "workspace/memory"
    memory.mkdir(parents=True)
    block = ('Conversation info (untrusted metadata):\n```json\n{\n  "message_id": "77",\n  "sender_id": "42"\n}'
             '\n```\n\n')
    (memory / "2026-03-02-garden.md").write_text(
        "# Session: 2026-03-02 09:00:00 UTC\n\n- **Session ID**: s1\n\n## Conversation Summary\n\n"
        f"user: {block}I grow tomatoes on my balcony in Leeds.\nassistant: Lovely.\nuser: {block.strip()}\n",
        encoding="utf-8")
    _name, results = read_source(tmp_path)
    [result] = results.values()
    first, _reply, bare = result.turns
    assert first.text == "I grow tomatoes on my balcony in Leeds."
    assert '"message_id": "77"' in first.extra["untrusted_metadata"]
    assert bare.text.startswith("Conversation info") and "untrusted_metadata" not in bare.extra  # nothing else said


@pytest.mark.parametrize("mode", [3, 4])
def test_kobold_saved_story(tmp_path: Path, mode: int) -> None:
    cc.kobold_story(tmp_path, mode)
    name, results = read_source(tmp_path)
    assert name == "koboldcpp"
    (result,) = results.values()
    if mode == 3:
        assert turns_of(result) == [("assistant", "Oren", "The ferry leaves at dawn."),
                                    ("user", "Tam", "Then we pack tonight."),
                                    ("assistant", "Wren", "I'll bring the rope.")]
    else:
        assert turns_of(result) == [("user", "user", "List two knots."),
                                    ("assistant", "assistant", "Bowline and clove hitch."),
                                    ("user", "user", "Thanks!")]
    assert result.time_unknown == 3


def test_one_folder_with_every_client_reads_each_file_as_its_own(tmp_path: Path) -> None:
    cc.sillytavern_2024(tmp_path / "st")
    cc.jan_new(tmp_path / "jan")
    cc.lmstudio_chat(tmp_path / "lms")
    cc.textgen_new(tmp_path / "ooba")
    cc.chatgpt_export(tmp_path / "gpt")
    cc.claude_ai_export(tmp_path / "claude")
    cc.claude_code_session(tmp_path / "code")
    cc.openclaw_home(tmp_path / "claw")
    cc.kobold_story(tmp_path / "kobold", 3)
    formats = detect_formats(tmp_path)
    assert set(formats) == {"sillytavern", "jan", "lmstudio", "textgen_webui", "chatgpt", "claude_ai",
                            "claude_code", "openclaw", "episodes", "koboldcpp"}
    name, results = read_source(tmp_path)
    assert name == "auto"
    kinds = Counter(t.extra.get("format") for r in results.values() for t in r.turns)
    assert kinds["sillytavern"] == 3 and kinds["chatgpt"] == 3 and kinds["claude_code"] == 5


def test_turn_provenance_survives_the_index(tmp_path: Path) -> None:
    from curator.engine import Engine

    cc.jan_old(tmp_path / "jan")
    cc.lmstudio_chat(tmp_path / "lms")
    engine = Engine(tmp_path / "vault", triggers=False)
    try:
        for folder in ("jan", "lms"):
            engine.ingestor.import_path(engine.add_source(tmp_path / folder))
        turns = engine.index.turns("default")
        jan = [t for t in turns if t.source_id == engine.settings.sources[0].id]
        assert jan[0].title == "Seed swap plans" and jan[0].time_known and jan[0].speaker == "user"
        lms = [t for t in turns if t.source_id == engine.settings.sources[1].id]
        assert lms and not any(t.time_known for t in lms)
        problems = " ".join(p for _, _, p in engine.index.problems())
        assert "3 turns have no readable time" in problems
    finally:
        engine.close()


def test_turn_helpers_default_to_known_time() -> None:
    turn = Turn("s", "f", "c", "k", 0, "user", "me", "hi", 1.0)
    assert turn.time_known and turn.title == "" and turn.message_id == ""


def test_status_counts_skips_unknown_times_and_bad_lines(tmp_path: Path) -> None:
    from curator.engine import Engine

    path = cc.claude_code_session(tmp_path / "code")
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("{not json\n")
    cc.lmstudio_chat(tmp_path / "lms")
    with Engine(tmp_path / "vault", triggers=False) as engine:
        for folder in ("code", "lms"):
            engine.ingestor.import_path(engine.add_source(tmp_path / folder))
        code, lms = engine.status()["sources"]
    assert code["reading"]["skipped"] == 14 and code["reading"]["unreadable"] == 2
    assert "lines that are not chat turns skipped" in code["detail"]
    assert lms["reading"] == {"skipped": 0, "time_unknown": 3, "unreadable": 0}
    assert lms["detail"] == "3 turns time-unknown"


def _kobold_without_settings(root: Path, prompt: str, actions: list[str]) -> None:
    # "Save with settings" unchecked: Kobold Lite writes savedsettings as null.
    doc = {"gamestarted": True, "prompt": prompt, "memory": "", "authorsnote": "", "actions": actions,
           "actions_metadata": {}, "worldinfo": [], "savedsettings": None}
    root.mkdir(parents=True, exist_ok=True)
    (root / "saved_story.json").write_text(json.dumps(doc), "utf-8")


def test_kobold_instruct_story_saved_without_settings(tmp_path: Path) -> None:
    _kobold_without_settings(
        tmp_path, "Hello! I am your assistant. Ask me anything.",
        ["{{[SYSTEM]}}Be brief.{{[SYSTEM_END]}}{{[INPUT]}}\nI keep bees on my roof.{{[INPUT_END]}}\n{{[OUTPUT]}}\n",
         "How many hives?{{[OUTPUT_END]}}", "\n{{[INPUT]}}\nTwo hives."])
    name, results = read_source(tmp_path)
    assert name == "koboldcpp"
    (result,) = results.values()
    # The greeting is the assistant's, each input the person's, and no placeholder survives.
    assert turns_of(result) == [("assistant", "assistant", "Hello! I am your assistant. Ask me anything."),
                                ("system", "system", "Be brief."),
                                ("user", "user", "I keep bees on my roof."),
                                ("assistant", "assistant", "How many hives?"),
                                ("user", "user", "Two hives.")]
    assert not any("{{[" in t.text for t in result.turns)


def test_kobold_chat_story_saved_without_settings_uses_the_default_names(tmp_path: Path) -> None:
    _kobold_without_settings(tmp_path, "\nKoboldAI: Hi there.", ["\nUser: I moved to Lyon.", "\nKoboldAI: Nice!"])
    _, results = read_source(tmp_path)
    (result,) = results.values()
    assert turns_of(result) == [("assistant", "KoboldAI", "Hi there."), ("user", "User", "I moved to Lyon."),
                                ("assistant", "KoboldAI", "Nice!")]
