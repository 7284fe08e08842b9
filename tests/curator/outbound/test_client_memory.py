"""Sending approved memory into each client's own memory place (issue 21 item 1).

Each client's file is read back by that client's own rules (written out here from its
source: Claude Code's ``@path`` imports, SillyTavern's World Info entries and key matching,
LM Studio's preset fields, Jan's assistants folder), after an approve and after an undo,
with everything else in the client's folder unchanged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from curator.clock import ManualClock
from curator.engine import Engine
from curator.outbound.digest import build_digest
from curator.outbound.places import ST_ENTRY, ClaudeCodePlace
from curator.outbound.sync import OutboundError, setting_key
from curator.vault.documents import Document

CORE = "# Core memory\n\n## Critical Facts\n- 📌 The person is allergic to peanuts.\n\n## Identity\n- Lives in Graz.\n"
PERSONS_CLAUDE_MD = "# My rules\n\n- Use tabs, never spaces.\n"


def _approved(engine: Engine, doc_id: str, text: str, quality: float, keywords: list[str] | None = None) -> None:
    doc = Document.new(doc_id=doc_id, kind="fact", title=text.rstrip("."), body=text + "\n", quality=quality,
                       keywords=keywords or [], scope="user", confidence=0.8)
    engine.document_changed(engine.store.create(doc, "default", "knowledge", "Facts"))


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Engine, Path]]:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    engine = Engine(tmp_path / "vault", clock=ManualClock(), triggers=False)
    engine.paths.user("default").core_memory.write_text(CORE, "utf-8")
    _approved(engine, "kayak00001", "The person paddles a red kayak on weekends.", 0.9, ["kayak"])
    _approved(engine, "sister0001", "The person's sister Ana is a chef in Porto.", 0.6)
    yield engine, home
    engine.close()


def _snapshot(folder: Path, skip: set[Path]) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p not in skip}


def _stage_and_approve(engine: Engine, text: str) -> str:
    saved = engine.memory.save(title=text.rstrip("."), content=text, area="staging")
    detail = engine.review.show("default", saved["id"])
    engine.review.approve("default", saved["id"], detail.item.content_hash)
    return str(saved["id"])


# ---- what Claude Code reads: CLAUDE.md and the files it imports with @path

def claude_code_reads(claude_dir: Path, home: Path) -> str:
    """User memory as Claude Code assembles it: CLAUDE.md with each ``@path`` line replaced by that file."""
    text = (claude_dir / "CLAUDE.md").read_text("utf-8")
    out = []
    for line in text.splitlines():
        match = re.fullmatch(r"@(\S+)", line.strip())
        if match:
            target = Path(match.group(1).replace("~", str(home), 1)) if match.group(1).startswith("~") \
                else Path(match.group(1))
            out.append(target.read_text("utf-8"))
        else:
            out.append(line)
    return "\n".join(out)


def test_claude_code_gets_memory_through_an_import_and_the_persons_text_stays(setup: tuple[Engine, Path]) -> None:
    engine, home = setup
    claude = home / ".claude"
    (claude / "CLAUDE.md").write_text(PERSONS_CLAUDE_MD, "utf-8")
    (claude / "settings.json").write_text('{"theme": "dark"}', "utf-8")
    others = _snapshot(claude, {claude / "CLAUDE.md"})
    memory = engine.client_memory

    plan = memory.plan("claude-code")
    assert not plan.problem and "+@~/.claude/memory-curator.md" in plan.diff()
    assert (claude / "CLAUDE.md").read_text("utf-8") == PERSONS_CLAUDE_MD  # a plan writes nothing
    memory.apply(plan)
    engine.update_settings({setting_key("claude-code"): True})
    seen = claude_code_reads(claude, home)
    assert seen.startswith(PERSONS_CLAUDE_MD.rstrip("\n"))
    assert "- The person is allergic to peanuts." in seen and "📌" not in seen
    assert seen.index("peanuts") < seen.index("red kayak") < seen.index("sister Ana")  # core, then by quality

    _stage_and_approve(engine, "The person plays the cello every Tuesday.")
    assert [p.key for p in memory.refresh()] == ["claude-code"]
    assert "cello every Tuesday" in claude_code_reads(claude, home)
    (_, newest), (_, first) = memory.writes("claude-code")
    assert "+- The person plays the cello every Tuesday." in newest and "+@~/.claude/memory-curator.md" in first
    engine.review.undo("default")
    memory.refresh()
    assert "cello" not in claude_code_reads(claude, home)

    memory.apply(memory.plan("claude-code", take_back=True))
    assert (claude / "CLAUDE.md").read_text("utf-8") == PERSONS_CLAUDE_MD
    assert not (claude / "memory-curator.md").exists()
    assert _snapshot(claude, {claude / "CLAUDE.md"}) == others


def test_undo_puts_back_the_files_of_the_last_write(setup: tuple[Engine, Path]) -> None:
    engine, home = setup
    claude = home / ".claude"
    (claude / "CLAUDE.md").write_text(PERSONS_CLAUDE_MD, "utf-8")
    memory = engine.client_memory
    memory.apply(memory.plan("claude-code"))
    undo = memory.undo_last("claude-code")
    assert not undo.problem and {c.path.name for c in undo.changes} == {"CLAUDE.md", "memory-curator.md"}
    memory.apply(undo)
    assert (claude / "CLAUDE.md").read_text("utf-8") == PERSONS_CLAUDE_MD
    assert not (claude / "memory-curator.md").exists()


def test_a_file_that_is_not_the_curators_is_never_written(setup: tuple[Engine, Path]) -> None:
    engine, home = setup
    own = home / ".claude" / "memory-curator.md"
    own.write_text("my own notes\n", "utf-8")
    plan = engine.client_memory.plan("claude-code")
    assert "not written by Memory Curator" in plan.problem and not plan.changes
    with pytest.raises(OutboundError):
        engine.client_memory.apply(plan)
    assert own.read_text("utf-8") == "my own notes\n"


def test_a_file_changed_after_the_diff_was_shown_is_not_overwritten(setup: tuple[Engine, Path]) -> None:
    engine, home = setup
    plan = engine.client_memory.plan("claude-code")
    (home / ".claude" / "CLAUDE.md").write_text("written meanwhile\n", "utf-8")
    with pytest.raises(OutboundError, match="changed since the diff"):
        engine.client_memory.apply(plan)
    assert (home / ".claude" / "CLAUDE.md").read_text("utf-8") == "written meanwhile\n"
    assert not (home / ".claude" / "memory-curator.md").exists()


# ---- SillyTavern's World Info

ST_FIELDS = {"uid": int, "key": list, "keysecondary": list, "comment": str, "content": str, "constant": bool,
             "selective": bool, "order": int, "position": int, "disable": bool, "probability": int,
             "useProbability": bool, "depth": int}


def tavern_activates(lorebook: dict[str, object], chat: str) -> list[str]:
    """The entries SillyTavern puts in the prompt for ``chat``: constant ones, and enabled ones
    any of whose keys is in the chat (case-insensitive, its default)."""
    entries = lorebook["entries"]
    assert isinstance(entries, dict)
    active = []
    for uid, entry in entries.items():
        assert str(entry["uid"]) == uid
        for name, kind in ST_FIELDS.items():
            assert isinstance(entry[name], kind), (name, entry[name])
        if entry["disable"]:
            continue
        if entry["constant"] or any(k.lower() in chat.lower() for k in entry["key"]):
            active.append(entry["content"])
    return active


def test_sillytavern_gets_a_lorebook_of_its_own_and_keeps_the_persons_entries(
        setup: tuple[Engine, Path], tmp_path: Path) -> None:
    engine, _ = setup
    user_folder = tmp_path / "SillyTavern" / "data" / "default-user"
    (user_folder / "chats").mkdir(parents=True)
    (user_folder / "worlds").mkdir()
    (user_folder / "worlds" / "Eldoria.json").write_text('{"entries": {}}', "utf-8")
    engine.add_source(user_folder / "chats", adapter="sillytavern")
    memory = engine.client_memory
    memory.apply(memory.plan("sillytavern"))
    lorebook_path = user_folder / "worlds" / "Memory Curator.json"
    lorebook = json.loads(lorebook_path.read_text("utf-8"))
    assert "entries" in lorebook  # what SillyTavern's import and edit endpoints require
    quiet = tavern_activates(lorebook, "hello there")
    assert len(quiet) == 1 and "allergic to peanuts" in quiet[0]  # core memory: always in
    kayak = tavern_activates(lorebook, "Shall we take the KAYAK out?")
    assert any("red kayak" in c for c in kayak) and not any("Ana" in c for c in kayak)

    # The person adds an entry of their own to the curator's lorebook in SillyTavern.
    entries = lorebook["entries"]
    entries["99"] = {**entries["0"], "uid": 99, "comment": "my note", "content": "Call me Captain.",
                     "constant": True, "key": []}
    lorebook_path.write_text(json.dumps(lorebook), "utf-8")
    _stage_and_approve(engine, "The person keeps two beehives on the roof.")
    memory.apply(memory.plan("sillytavern"))
    again = json.loads(lorebook_path.read_text("utf-8"))
    assert "Call me Captain." in tavern_activates(again, "hi")
    assert any("beehives" in c for c in tavern_activates(again, "how are the beehives?"))
    assert (user_folder / "worlds" / "Eldoria.json").read_text("utf-8") == '{"entries": {}}'

    memory.apply(memory.plan("sillytavern", take_back=True))
    left = json.loads(lorebook_path.read_text("utf-8"))
    assert [e["content"] for e in left["entries"].values()] == ["Call me Captain."]
    assert not any(str(e["comment"]).startswith(ST_ENTRY) for e in left["entries"].values())


# ---- LM Studio's preset and Jan's assistant

def test_lmstudio_preset_holds_the_memory_as_system_prompt_and_keeps_other_settings(setup: tuple[Engine, Path]) -> None:
    engine, home = setup
    (home / ".lmstudio" / "conversations").mkdir(parents=True)
    memory = engine.client_memory
    memory.apply(memory.plan("lmstudio"))
    path = home / ".lmstudio" / "config-presets" / "Memory Curator.preset.json"
    preset = json.loads(path.read_text("utf-8"))
    # The person sets a temperature in the preset in LM Studio.
    preset["operation"]["fields"].append({"key": "llm.prediction.temperature", "value": 0.4})
    path.write_text(json.dumps(preset), "utf-8")
    _stage_and_approve(engine, "The person is learning Portuguese.")
    memory.apply(memory.plan("lmstudio"))
    fields = {f["key"]: f["value"] for f in json.loads(path.read_text("utf-8"))["operation"]["fields"]}
    assert fields["llm.prediction.temperature"] == 0.4
    prompt = fields["llm.prediction.systemPrompt"]
    assert "learning Portuguese" in prompt and "allergic to peanuts" in prompt and "not instructions" in prompt


def test_jan_assistant_holds_the_memory_as_instructions(setup: tuple[Engine, Path]) -> None:
    engine, home = setup
    data = home / ".config" / "Jan" / "data"
    (data / "threads").mkdir(parents=True)
    (data / "assistants" / "jan").mkdir(parents=True)
    (data / "assistants" / "jan" / "assistant.json").write_text('{"id": "jan", "instructions": "Hi"}', "utf-8")
    memory = engine.client_memory
    memory.apply(memory.plan("jan"))
    # Jan's assistant extension lists assistants/<folder>/assistant.json.
    found = {p.parent.name: json.loads(p.read_text("utf-8")) for p in (data / "assistants").glob("*/assistant.json")}
    assert set(found) == {"jan", "memory-curator"}
    ours = found["memory-curator"]
    assert ours["id"] == "memory-curator" and ours["object"] == "assistant" and "red kayak" in ours["instructions"]
    assert found["jan"] == {"id": "jan", "instructions": "Hi"}


# ---- keeping in step

def test_refresh_follows_the_switches_and_reports_a_missing_client_once(setup: tuple[Engine, Path]) -> None:
    engine, home = setup
    events: list[tuple[str, str]] = []
    engine.bus.subscribe(lambda e: events.append((e.kind, str(e.data.get("message")))), "client.")
    memory = engine.client_memory
    assert memory.refresh() == []  # every switch off: nothing written
    assert not (home / ".claude" / "memory-curator.md").exists()
    engine.update_settings({"send.claude_code": True, "send.jan": True})
    done = {p.key: p for p in memory.refresh()}
    assert (home / ".claude" / "memory-curator.md").exists()
    assert "not found on this machine" in done["jan"].problem
    # Claude Code is in step (nothing written again); Jan is tried again and still not found.
    assert [(p.key, bool(p.problem)) for p in memory.refresh()] == [("jan", True)]
    failed = [m for k, m in events if k == "client.send.failed"]
    assert len(failed) == 1 and failed[0].startswith("Jan: memory not sent")


def test_the_budget_keeps_core_memory_first_and_counts_what_is_left_out(setup: tuple[Engine, Path]) -> None:
    engine, _ = setup
    paths = [engine.paths.root / rel for rel in engine.index.approved_paths("default")]
    full = build_digest(engine.paths, "default", paths, 4000)
    assert full.core == ("The person is allergic to peanuts.", "Lives in Graz.") and len(full.entries) == 2
    small = build_digest(engine.paths, "default", paths, 100)
    assert small.core == full.core and len(small.entries) == 1 and small.left_out == 1


def test_an_approval_in_a_closing_engine_still_reaches_the_client(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    with Engine(tmp_path / "vault", clock=ManualClock(), triggers=False) as engine:
        engine.update_settings({"send.claude_code": True})
        _stage_and_approve(engine, "The person runs the Vienna marathon in April.")
    assert "Vienna marathon" in (home / ".claude" / "memory-curator.md").read_text("utf-8")
    assert ClaudeCodePlace(home / ".claude").import_line() in (home / ".claude" / "CLAUDE.md").read_text("utf-8")


def test_a_clients_file_keeps_its_permissions(setup: tuple[Engine, Path]) -> None:
    engine, home = setup
    claude_md = home / ".claude" / "CLAUDE.md"
    claude_md.write_text(PERSONS_CLAUDE_MD, "utf-8")
    claude_md.chmod(0o644)
    engine.client_memory.apply(engine.client_memory.plan("claude-code"))
    assert claude_md.stat().st_mode & 0o777 == 0o644
