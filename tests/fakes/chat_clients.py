"""Small anonymous chat files in the exact shapes each client writes, one writer per client
and format version. The people and words are made up; the structure follows each client's
own writer (field names, nesting, indentation, line endings).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any


def _jsonl(path: Path, rows: list[dict[str, Any]], trailing_newline: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows)
    path.write_text(text + ("\n" if trailing_newline else ""), encoding="utf-8")
    return path


def _json(path: Path, doc: Any, indent: int | None = 4) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=indent, ensure_ascii=False), encoding="utf-8")
    return path


# ---- SillyTavern (no trailing newline: ST joins lines with "\n")

def st_message(name: str, is_user: bool, mes: str, send_date: Any, **more: Any) -> dict[str, Any]:
    return {"name": name, "is_user": is_user, "is_system": False, "send_date": send_date, "mes": mes,
            "extra": {}, **more}


def sillytavern_current(root: Path) -> Path:
    """A current-build solo chat: 'unused' header names, ISO send_date, swipes."""
    rows = [
        {"user_name": "unused", "character_name": "unused",
         "chat_metadata": {"integrity": "0b5e3c1e-1111-4c55-9a7e-000000000001"}},
        st_message("Wren", False, "*The lantern flickers.* You made it through the pass.",
                   "2025-12-01T09:00:00.000Z", swipes=["*The lantern flickers.* You made it through the pass."],
                   swipe_id=0, swipe_info=[]),
        st_message("Tam", True, "Barely. My boots are soaked through.", "2025-12-01T09:00:30.000Z"),
        st_message("Wren", False, "Sit by the stove, the kettle is on.", "2025-12-01T09:00:45.500Z",
                   swipe_id=1, swipes=["Rest.", "Sit by the stove, the kettle is on."],
                   swipe_info=[{"send_date": "2025-12-01T09:00:40.000Z"}, {"send_date": "2025-12-01T09:00:45.500Z"}]),
    ]
    return _jsonl(root / "data/default-user/chats/Wren/Wren - 2025-12-01@09h00m00s000ms.jsonl", rows, False)


def sillytavern_2024(root: Path) -> Path:
    """A 2024 solo chat: header with names, 'June 3, 2024 6:03pm' dates, a hidden notice."""
    rows = [
        {"user_name": "Tam", "character_name": "Oren", "create_date": "2024-6-3@18h03m00s",
         "chat_metadata": {"note_prompt": "", "chat_id_hash": 1234}},
        st_message("Tam", True, "Do you still keep the old maps?", "June 3, 2024 6:03pm"),
        st_message("Oren", False, "Every one of them, in the cedar chest.", "June 3, 2024 6:04pm",
                   gen_started="2024-06-03T22:03:50.000Z", gen_finished="2024-06-03T22:04:01.000Z"),
        {"name": "Tam", "is_user": False, "is_system": True, "send_date": "June 3, 2024 6:05pm",
         "mes": "[Narrator note hidden from the prompt]", "extra": {"isSmallSys": True}},
    ]
    return _jsonl(root / "data/default-user/chats/Oren/Oren - 2024-6-3@18h03m00s.jsonl", rows, False)


def sillytavern_2023(root: Path) -> Path:
    """A 2023 chat: epoch-ms create_date, server-side '2023-4-21 @20h 02m 47s 124ms' dates and epoch ms."""
    rows = [
        {"user_name": "You", "character_name": "Pell", "create_date": 1682107367124,
         "chat_metadata": {"note_prompt": ""}},
        {"name": "Pell", "is_user": False, "is_name": True, "send_date": "2023-4-21 @20h 02m 47s 124ms",
         "mes": "Welcome to the ferry, traveller."},
        {"name": "You", "is_user": True, "is_name": True, "send_date": 1682107390000,
         "mes": "How long is the crossing?"},
    ]
    return _jsonl(root / "public/chats/Pell/1682107367124.jsonl", rows, False)


def sillytavern_group(root: Path) -> Path:
    """An old group chat: no header, a system notice first, two characters."""
    rows = [
        {"name": "SillyTavern System", "force_avatar": "img/five.png", "is_user": False, "is_system": True,
         "is_group": True, "mes": "Group chat created. Say 'Hi' to lovely people!",
         "send_date": "July 20, 2024 7:48am", "extra": {"isSmallSys": True, "type": "group"}},
        st_message("Tam", True, "Who brought the bread?", "July 20, 2024 7:49am"),
        st_message("Oren", False, "Not me.", "July 20, 2024 7:50am", original_avatar="Oren.png"),
        st_message("Wren", False, "Guilty, it is rye.", "July 20, 2024 7:51am", original_avatar="Wren.png"),
    ]
    return _jsonl(root / "data/default-user/group chats/1721461680000.jsonl", rows, False)


def sillytavern_noise(root: Path, chat: Path) -> None:
    """What must never be read: a backup copy and a write-file-atomic temp file."""
    backup = root / "data/default-user/backups" / f"chat_{chat.stem}_20241201-090000.jsonl"
    backup.parent.mkdir(parents=True, exist_ok=True)
    backup.write_bytes(chat.read_bytes())
    (chat.parent / f"{chat.name}.3829104").write_bytes(chat.read_bytes())


# ---- Jan

def jan_old(root: Path) -> Path:
    """Jan 0.4-0.5: ULID ids, ``created`` in ms, thread.json with title and assistant name."""
    folder = root / "threads/jan_1723493088"
    _json(folder / "thread.json", {
        "id": "jan_1723493088", "object": "thread", "title": "Seed swap plans",
        "assistants": [{"assistant_id": "jan", "assistant_name": "Jan", "model": {"id": "m", "engine": "llama"}}],
        "created": 1723493088249, "updated": 1723493088249}, indent=2)
    def m(mid: str, role: str, text: str, created: int, **more: Any) -> dict[str, Any]:
        return {"id": mid, "thread_id": "jan_1723493088", "role": role, "status": "ready", "created": created,
                "updated": created, "object": "thread.message",
                "content": [{"type": "text", "text": {"value": text, "annotations": []}}], **more}
    _jsonl(folder / "messages.jsonl", [
        m("01J5437S21MX7S1NA1W3QZJ6B9", "user", "Which beans grow well in shade?", 1723493246017),
        m("01J5437S21MX7S1NA1W3QZJ6C0", "assistant", "<think>short list</think>Runner beans cope with part shade.",
          1723493250017),
    ])
    return folder / "messages.jsonl"


def jan_new(root: Path) -> Path:
    """Current Jan: uuid ids, ``created_at`` in ms, a tool message and a pending one."""
    folder = root / "threads/5b1f0c2e-0000-4000-8000-000000000002"
    _json(folder / "thread.json", {"id": "5b1f0c2e-0000-4000-8000-000000000002", "object": "thread",
                                   "title": "Bike gears", "assistants": [{"assistant_id": "jan",
                                   "assistant_name": "Jan"}], "created": 1767225600, "updated": 1767225600},
          indent=2)
    def m(mid: str, role: str, text: str, created: int, status: str = "ready") -> dict[str, Any]:
        return {"id": mid, "object": "thread.message", "thread_id": "5b1f0c2e-0000-4000-8000-000000000002",
                "role": role, "content": [{"type": "text", "text": {"value": text, "annotations": []}}],
                "status": status, "created_at": created, "completed_at": created, "metadata": {}}
    _jsonl(folder / "messages.jsonl", [
        m("0a6d2c8e-0000-4000-8000-00000000000a", "user", "My chain skips in third gear.", 1767225600123),
        m("0a6d2c8e-0000-4000-8000-00000000000b", "tool", "{\"result\": 1}", 1767225600500),
        m("0a6d2c8e-0000-4000-8000-00000000000c", "assistant", "Check the cable tension first.", 1767225601200),
        m("0a6d2c8e-0000-4000-8000-00000000000d", "assistant", "", 1767225602000, status="pending"),
    ])
    return folder / "messages.jsonl"


# ---- LM Studio

def lmstudio_chat(root: Path) -> Path:
    def user(text):
        return {"type": "singleStep", "role": "user", "content": [{"type": "text", "text": text}]}
    def bot(*texts: str, thinking: str = "") -> dict[str, Any]:
        steps = []
        if thinking:
            steps.append({"type": "contentBlock", "style": {"type": "thinking"},
                          "content": [{"type": "text", "text": thinking}]})
        steps += [{"type": "contentBlock", "content": [{"type": "text", "text": t}],
                   "genInfo": {"identifier": "qwen/qwen3-8b"}} for t in texts]
        return {"type": "multiStep", "role": "assistant", "steps": steps,
                "senderInfo": {"senderName": "qwen/qwen3-8b"}}
    doc = {"name": "Sourdough timing", "createdAt": 1767225600123, "tokenCount": 58, "systemPrompt": "",
           "messages": [
               {"versions": [user("How long should the levain rest?")], "currentlySelected": 0},
               {"versions": [bot("About four hours."), bot("Four to six hours, ", "until it doubles.",
                                                           thinking="warm kitchen?")],
                "currentlySelected": 1},
               {"versions": [user("First draft"), user("And the bulk ferment?")], "currentlySelected": 1},
           ]}
    return _json(root / "conversations/Baking/1767225600123.conversation.json", doc, indent=2)


# ---- text-generation-webui

def textgen_new(root: Path) -> Path:
    doc = {
        "internal": [["<|BEGIN-VISIBLE-CHAT|>", "Hello, what shall we cook?"],
                     ["Something with leeks & potatoes", "Leek and potato soup, then."],
                     ["It's settled", ""]],
        "visible": [["", "Hello, what shall we cook?"],
                    ["Something with leeks &amp; potatoes", "Leek and potato soup, then."],
                    ["It&#x27;s settled", ""]],
        "metadata": {
            "assistant_0": {"timestamp": "May 03, 2026 14:05"},
            "user_1": {"timestamp": "May 03, 2026 14:06"},
            "assistant_1": {"timestamp": "May 03, 2026 14:06", "model_name": "Qwen3-8B-Q4_K_M.gguf",
                            "versions": [{"content": "Soup.", "timestamp": "May 03, 2026 14:06"},
                                         {"content": "Leek and potato soup, then.",
                                          "timestamp": "May 03, 2026 14:06"}],
                            "current_version_index": 1},
            "user_2": {"timestamp": "May 03, 2026 14:07"},
        },
    }
    return _json(root / "user_data/logs/chat/Cook/20260503-14-05-12.json", doc)


def textgen_instruct(root: Path) -> Path:
    doc = {"internal": [["Translate 'tide' to French", "marée"]],
           "visible": [["Translate &#x27;tide&#x27; to French", "marée"]],
           "metadata": {"user_0": {"timestamp": "Feb 11, 2026 14:29"},
                        "assistant_0": {"timestamp": "Feb 11, 2026 14:29", "model_name": "None"}}}
    return _json(root / "user_data/logs/instruct/20260211-14-29-32.json", doc)


def textgen_old(root: Path) -> Path:
    """Before 2025: ``logs/persistent_<character>.json``, no metadata."""
    doc = {"internal": [["<|BEGIN-VISIBLE-CHAT|>", "*waves* Hi!"], ["Tell me about tides", "They follow the moon."]],
           "visible": [["", "*waves* Hi!"], ["Tell me about tides", "They follow the moon."]]}
    return _json(root / "logs/persistent_Maren.json", doc)


# ---- ChatGPT and Claude.ai exports

def chatgpt_conversations() -> list[dict[str, Any]]:
    def node(nid: str, parent: str | None, children: list[str], role: str | None, text: str = "",
             t: float | None = None, **meta: Any) -> dict[str, Any]:
        msg = None if role is None else {
            "id": nid, "author": {"role": role, "name": None, "metadata": {}}, "create_time": t,
            "content": {"content_type": meta.pop("content_type", "text"), "parts": [text]},
            "status": "finished_successfully", "metadata": meta.pop("metadata", {}),
            "recipient": meta.pop("recipient", "all")}
        return {"id": nid, "parent": parent, "children": children, "message": msg}
    mapping = {
        "root": node("root", None, ["sys"], None),
        "sys": node("sys", "root", ["u1"], "system", "", None,
                    metadata={"is_visually_hidden_from_conversation": True}),
        "u1": node("u1", "sys", ["a1", "a2"], "user", "Name a hardy herb.", 1738000000.5),
        "a1": node("a1", "u1", [], "assistant", "Basil.", 1738000001.0),
        "a2": node("a2", "u1", ["t1"], "assistant", "Thyme survives frost.", 1738000002.0),
        "t1": node("t1", "a2", ["t2"], "assistant", "search('thyme')", 1738000003.0, recipient="browser"),
        "t2": node("t2", "t1", ["a3"], "tool", "results", 1738000004.0),
        "a3": node("a3", "t2", [], "assistant", "Rosemary too, in a sheltered spot.", 1738000005.0),
    }
    return [{"id": "c-1", "conversation_id": "c-1", "title": "Hardy herbs", "create_time": 1738000000.1,
             "update_time": 1738000005.0, "mapping": mapping, "current_node": "a3",
             "default_model_slug": "gpt-4o"}]


def chatgpt_export(root: Path, zipped: bool = False) -> Path:
    doc = chatgpt_conversations()
    if not zipped:
        return _json(root / "conversations.json", doc, indent=None)
    path = root / "chatgpt-export.zip"
    root.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("conversations.json", json.dumps(doc))
        archive.writestr("user.json", "{}")
    return path


def claude_ai_conversations() -> list[dict[str, Any]]:
    return [{"uuid": "37f8a88b-0000-4000-8000-000000000001", "name": "Knot for a tarp", "summary": "",
             "created_at": "2025-12-01T10:00:00.123456Z", "updated_at": "2025-12-01T10:00:05.654321Z",
             "account": {"uuid": "23b8c1e9-0000-4000-8000-000000000000"},
             "chat_messages": [
                 {"uuid": "a1", "sender": "human", "text": "Which knot holds a tarp ridgeline?",
                  "content": [{"type": "text", "text": "Which knot holds a tarp ridgeline?"}],
                  "created_at": "2025-12-01T10:00:00.2Z", "attachments": [], "files": []},
                 {"uuid": "b2", "sender": "assistant", "text": "A trucker's hitch.",
                  "content": [{"type": "thinking", "thinking": "tension"},
                              {"type": "text", "text": "A trucker's hitch."}],
                  "created_at": "2025-12-01T10:00:01.1Z", "attachments": [], "files": []}]}]


def claude_ai_export(root: Path, zipped: bool = False) -> Path:
    doc = claude_ai_conversations()
    if not zipped:
        return _json(root / "conversations.json", doc, indent=None)
    path = root / "data-2025-12-01.zip"
    root.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("conversations.json", json.dumps(doc))
        archive.writestr("users.json", "[]")
    return path


# ---- Claude Code

def _cc(kind: str, uuid: str, content: Any, t: str, **more: Any) -> dict[str, Any]:
    row: dict[str, Any] = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/home/u/p",
                           "sessionId": "55604662-0000-4000-8000-000000000001", "version": "2.1.38",
                           "type": kind, "uuid": uuid, "timestamp": t}
    if kind in ("user", "assistant"):
        row["message"] = {"role": kind, "content": content}
    else:
        row["content"] = content
    row.update(more)
    return row


def claude_code_session(root: Path) -> Path:
    project = root / "projects/-home-u-p"
    rows = [
        {"type": "summary", "summary": "Dev server port clash", "leafUuid": "u7"},
        {
            "type": "file-history-snapshot",
            "messageId": "x",
            "snapshot": {},
            "isSnapshotUpdate": False,
        },
        _cc("user", "u1", "the dev server does not start", "2026-02-10T21:11:56.846Z"),
        _cc(
            "assistant", "a1", [{"type": "thinking", "thinking": "hmm"}], "2026-02-10T21:11:58.000Z"
        ),
        _cc(
            "assistant",
            "a2",
            [{"type": "text", "text": "Let me look at the config."}],
            "2026-02-10T21:11:59.000Z",
        ),
        _cc(
            "assistant",
            "a3",
            [{"type": "tool_use", "id": "t", "name": "Read", "input": {}}],
            "2026-02-10T21:12:00Z",
        ),
        _cc(
            "user",
            "u2",
            [{"type": "tool_result", "tool_use_id": "t", "content": "port=4000"}],
            "2026-02-10T21:12:01Z",
        ),
        _cc(
            "user",
            "u3",
            [{"type": "text", "text": "[Request interrupted by user for tool use]"}],
            "2026-02-10T21:12:02Z",
        ),
        _cc(
            "system",
            "s1",
            "<command-name>/model</command-name>",
            "2026-02-10T21:12:03Z",
            subtype="local_command",
        ),
        {
            "type": "queue-operation",
            "operation": "enqueue",
            "timestamp": "2026-02-10T21:12:04Z",
            "content": "/mcp",
        },
        _cc(
            "user",
            "u4",
            "<command-name>/mcp</command-name>\n<command-message>mcp</command-message>",
            "2026-02-10T21:12:05Z",
        ),
        _cc(
            "user",
            "u5",
            "<local-command-caveat>Caveat: generated by local commands</local-command-caveat>",
            "2026-02-10T21:12:06Z",
            isMeta=True,
        ),
        _cc(
            "user",
            "u6",
            "This session is being continued from a previous conversation that ran out of context.",
            "2026-02-10T21:12:07Z",
            isCompactSummary=True,
        ),
        _cc("user", "u7", "ok, the port was taken; it works now", "2026-02-10T21:12:08Z"),
        {"type": "mystery"},
        {"message": {"content": "a line with no type"}},
    ]
    path = _jsonl(project / "55604662-0000-4000-8000-000000000001.jsonl", rows)
    sub = project / "55604662-0000-4000-8000-000000000001/subagents"
    _jsonl(sub / "agent-a1b2c3.jsonl", [
        _cc("user", "s-u1", "Find the latest version of the http library", "2026-02-10T21:13:00Z", isSidechain=True,
            agentId="a1b2c3"),
        _cc("assistant", "s-a1", [{"type": "text", "text": "Version 2.4 is the latest."}], "2026-02-10T21:13:05Z",
            isSidechain=True, agentId="a1b2c3"),
    ])
    _jsonl(
        sub / "agent-acompact-9f9f9f.jsonl",
        [
            _cc(
                "user",
                "c-u1",
                "Your task is to create a detailed summary of the conversation so far",
                "2026-02-10T21:14:00Z",
            ),
            _cc(
                "assistant",
                "c-a1",
                [{"type": "text", "text": "<analysis>summary</analysis>"}],
                "2026-02-10T21:14:09Z",
            ),
        ],
    )
    return path


# ---- OpenClaw

def openclaw_home(root: Path) -> Path:
    """``~/.openclaw``: a session transcript tree and the workspace's memory logs."""
    session = root / "agents/main/sessions/9f1c0000-0000-4000-8000-000000000001.jsonl"
    _jsonl(session, [
        {"type": "session", "version": 3, "id": "9f1c0000-0000-4000-8000-000000000001",
         "timestamp": "2026-01-16T14:30:00.000Z", "cwd": "/home/u/.openclaw/workspace"},
        {"type": "model_change", "id": "e9320000", "parentId": None, "timestamp": "2026-01-16T14:30:00.001Z",
         "provider": "p", "modelId": "m"},
        {"type": "message", "id": "a1b2c3d4", "parentId": "e9320000", "timestamp": "2026-01-16T14:30:05.120Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "What did we pick for the API?"}],
                     "timestamp": 1768573805120}},
        {"type": "message", "id": "b1b2c3d4", "parentId": "a1b2c3d4", "timestamp": "2026-01-16T14:30:07.000Z",
         "message": {"role": "assistant", "content": [{"type": "thinking", "thinking": "look"},
                                                      {"type": "toolCall", "id": "c", "name": "read"}]}},
        {"type": "message", "id": "c1b2c3d4", "parentId": "b1b2c3d4", "timestamp": "2026-01-16T14:30:08.000Z",
         "message": {"role": "toolResult", "toolCallId": "c", "content": [{"type": "text", "text": "notes"}]}},
        {"type": "message", "id": "e5f6a7b8", "parentId": "c1b2c3d4", "timestamp": "2026-01-16T14:30:09.880Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "REST with cursor pagination."}],
                     "model": "m"}},
        {"type": "compaction", "id": "f0000000", "parentId": "e5f6a7b8", "timestamp": "2026-01-16T15:00:00Z",
         "summary": "talked about the API"},
    ])
    memory = root / "workspace/memory"
    memory.mkdir(parents=True)
    (memory / "2026-01-16.md").write_text(
        "# 2026-01-16 Daily Notes\n\n## Setup (morning)\n- tidied the inbox\n\n"
        "## Heartbeat 15:50\n- nothing urgent\n\n## Heartbeat 16:05\n- one reminder sent\n", encoding="utf-8")
    (memory / "2026-01-16-api-choice.md").write_text(
        "# Session: 2026-01-16 14:30:00 UTC\n\n- **Session Key**: agent:main:main\n"
        "- **Session ID**: abc123def456\n- **Source**: telegram\n\n## Conversation Summary\n\n"
        "user: Can you help me design the API?\nassistant: Sure! Start with the endpoints.\n"
        "They should be nouns.\nuser: Thanks\n", encoding="utf-8")
    return session


# ---- KoboldCpp

def kobold_story(root: Path, mode: int) -> Path:
    settings = {"opmode": mode, "chatname": "Tam", "chatopponent": "Oren||$||Wren"}
    if mode == 3:
        prompt, actions = "\nOren: The ferry leaves at dawn.", ["\nTam: Then we pack tonight.", "\nWren: I'll",
                                                               " bring the rope."]
    else:
        prompt = "{{[INPUT]}}\nList two knots.\n{{[OUTPUT]}}\n"
        actions = ["Bowline and", " clove hitch.", "\n{{[INPUT]}}\nThanks!"]
    doc = {"gamestarted": True, "prompt": prompt, "memory": "", "authorsnote": "", "actions": actions,
           "actions_metadata": {}, "worldinfo": [], "savedsettings": settings}
    return _json(root / f"saved_story_mode{mode}.json", doc, indent=None)
