"""What each client hides when it shows a chat is not the person's words (issue 21 item 4).

Fixtures are written here in each client's own shape: SillyTavern's /hide, a reasoning
model's <think> block in text-generation-webui, Jan's attached-files block.
"""

from __future__ import annotations

import json
from pathlib import Path

from fakes import chat_clients as cc

from curator.sources.adapters import get_adapter


def read(adapter: str, root: Path, unit: Path) -> list[tuple[str, str, str]]:
    result = get_adapter(adapter).read(root, unit, "src", None)
    return [(t.role, t.speaker, t.text) for t in result.turns]


def test_sillytavern_hidden_messages_stay_their_authors_and_notices_stay_system(tmp_path: Path) -> None:
    rows = [
        {"user_name": "Tam", "character_name": "Oren", "create_date": "2025-2-1@10h00m00s", "chat_metadata": {}},
        cc.st_message("Tam", True, "I moved to Braga last month.", "February 1, 2025 10:00am", is_system=True),
        cc.st_message("Oren", False, "Braga suits you.", "February 1, 2025 10:01am", is_system=True),
        {"name": "Oren", "is_user": False, "is_system": False, "send_date": "February 1, 2025 10:02am",
         "mes": "*Rain drums on the roof.*", "extra": {"type": "narrator"}},
        {"name": "SillyTavern System", "is_user": False, "is_system": True, "send_date": "February 1, 2025 10:03am",
         "mes": "Chat history was cleared."},
    ]
    path = tmp_path / "data/default-user/chats/Oren/Oren - 2025-2-1@10h00m00s.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(json.dumps(r) for r in rows), "utf-8")
    result = get_adapter("sillytavern").read(tmp_path, path, "src", None)
    assert [(t.role, t.speaker) for t in result.turns] == [
        ("user", "Tam"), ("assistant", "Oren"), ("system", "Oren"), ("system", "SillyTavern System")]
    assert result.turns[0].extra.get("hidden") is True and "hidden" not in result.turns[2].extra


def test_text_generation_webui_drops_the_reasoning_block(tmp_path: Path) -> None:
    doc = {"internal": [["Which tent for two in the Alps?",
                         "<think>They need a light tent; 4-season? Probably 3-season.</think>A light 3-season tent."],
                        ["And for winter?", "<think>unfinished thought"]],
           "visible": [["Which tent for two in the Alps?", "A light 3-season tent."], ["And for winter?", ""]],
           "metadata": {}}
    path = tmp_path / "user_data/logs/chat/Guide/20260301-09-00-00.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(doc), "utf-8")
    turns = read("textgen_webui", tmp_path, path)
    assert ("assistant", "Guide", "A light 3-season tent.") in turns
    assert not any("think" in text for _role, _who, text in turns)


def test_jan_hides_the_attached_files_block(tmp_path: Path) -> None:
    folder = tmp_path / "threads/7c9e0000-0000-4000-8000-000000000001"
    folder.mkdir(parents=True)
    (folder / "thread.json").write_text(json.dumps({"id": folder.name, "object": "thread", "title": "Notes",
                                                    "assistants": [{"assistant_id": "jan"}]}), "utf-8")
    text = ("Can you summarise my notes? I teach piano on Saturdays.\n\n[ATTACHED_FILES]\n"
            "- file_id: f-1, name: lessons.pdf, type: application/pdf, size: 1234\n[/ATTACHED_FILES]")
    message = {"id": "m1", "object": "thread.message", "thread_id": folder.name, "role": "user", "status": "ready",
               "content": [{"type": "text", "text": {"value": text, "annotations": []}}],
               "created_at": 1767225600123}
    (folder / "messages.jsonl").write_text(json.dumps(message) + "\n", "utf-8")
    result = get_adapter("jan").read(tmp_path, folder / "messages.jsonl", "src", None)
    [turn] = result.turns
    assert turn.text == "Can you summarise my notes? I teach piano on Saturdays."
    assert turn.extra["attachments"] == ["lessons.pdf"]
