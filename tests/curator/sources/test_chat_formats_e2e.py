"""End to end per client format: the source is watched (real watchdog), the client writes a
new message the way it writes, and the message is found by search."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes import chat_clients as cc

from curator.engine import Engine
from curator.index.search import SearchFilters

TIMEOUT = 15.0


def wait_for(predicate: Callable[[], Any], timeout: float = TIMEOUT) -> Any:
    for _ in range(int(timeout / 0.05)):  # bounded by a count of looks, not by the clock
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    return predicate()


def found(engine: Engine, word: str) -> bool:
    return bool(engine.search(word, SearchFilters(kinds=("turn",)), limit=10))


def replace_atomically(path: Path, text: str, temp_name: str) -> None:
    temp = path.with_name(temp_name)
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def append_line(path: Path, row: dict[str, Any]) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(row) + "\n")


def rewrite_json(path: Path, change: Callable[[Any], None]) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    path.write_text(json.dumps(doc, indent=4), encoding="utf-8")  # truncate-and-rewrite, like ooba


def st_write(root: Path, word: str) -> None:
    path = next(root.rglob("*.jsonl"))
    text = (
        path.read_text(encoding="utf-8")
        + "\n"
        + json.dumps(cc.st_message("Tam", True, f"say {word}", "June 3, 2024 6:09pm"))
    )
    replace_atomically(path, text, path.name + ".8f3a2c")  # write-file-atomic's temp name


def jan_write(root: Path, word: str) -> None:
    path = next(root.rglob("messages.jsonl"))
    append_line(path, {"id": "01J5437S21MX7S1NA1W3QZJ6ZZ", "thread_id": "jan_1723493088", "role": "user",
                       "status": "ready", "created": 1723493300000, "object": "thread.message",
                       "content": [{"type": "text", "text": {"value": f"say {word}", "annotations": []}}]})


def lms_write(root: Path, word: str) -> None:
    rewrite_json(next(root.rglob("*.conversation.json")), lambda d: d["messages"].append(
        {"versions": [{"type": "singleStep", "role": "user", "content": [{"type": "text", "text": f"say {word}"}]}],
         "currentlySelected": 0}))


def ooba_write(root: Path, word: str) -> None:
    def change(doc: Any) -> None:
        doc["internal"].append([f"say {word}", "ok"])
        doc["visible"].append([f"say {word}", "ok"])
    rewrite_json(next(root.rglob("*.json")), change)


def gpt_write(root: Path, word: str) -> None:
    def change(doc: Any) -> None:
        mapping = doc[0]["mapping"]
        mapping["a3"]["children"] = ["u9"]
        mapping["u9"] = {"id": "u9", "parent": "a3", "children": [], "message": {
            "id": "u9", "author": {"role": "user"}, "create_time": 1738000009.0,
            "content": {"content_type": "text", "parts": [f"say {word}"]}, "recipient": "all"}}
        doc[0]["current_node"] = "u9"
    rewrite_json(root / "conversations.json", change)


def claude_write(root: Path, word: str) -> None:
    rewrite_json(root / "conversations.json", lambda d: d[0]["chat_messages"].append(
        {"uuid": "c3", "sender": "human", "text": f"say {word}", "created_at": "2025-12-01T10:01:00Z"}))


def code_write(root: Path, word: str) -> None:
    path = next(p for p in root.rglob("*.jsonl") if "subagents" not in p.parts)
    append_line(path, {"type": "user", "uuid": "u99", "sessionId": "s", "timestamp": "2026-02-10T21:20:00Z",
                       "message": {"role": "user", "content": f"say {word}"}})


def claw_write(root: Path, word: str) -> None:
    path = next(root.rglob("*.jsonl"))
    append_line(path, {"type": "message", "id": "9a9a9a9a", "parentId": "f0000000",
                       "timestamp": "2026-01-16T15:05:00Z",
                       "message": {"role": "user", "content": [{"type": "text", "text": f"say {word}"}]}})
    with open(root / "workspace/memory/2026-01-16.md", "a", encoding="utf-8") as handle:
        handle.write(f"\n## Heartbeat 17:00\n- noted {word}memo\n")


def kobold_write(root: Path, word: str) -> None:
    rewrite_json(next(root.rglob("*.json")), lambda d: d["actions"].append(f"\nTam: say {word}"))


CLIENTS: dict[str, tuple[Callable[[Path], Any], Callable[[Path, str], None], str]] = {
    "sillytavern": (cc.sillytavern_2024, st_write, "Do you still keep the old maps?"),
    "jan": (cc.jan_old, jan_write, "Which beans grow well in shade?"),
    "lmstudio": (cc.lmstudio_chat, lms_write, "How long should the levain rest?"),
    "textgen_webui": (cc.textgen_new, ooba_write, "Leek and potato soup"),
    "chatgpt": (cc.chatgpt_export, gpt_write, "Name a hardy herb."),
    "claude_ai": (cc.claude_ai_export, claude_write, "Which knot holds a tarp ridgeline?"),
    "claude_code": (cc.claude_code_session, code_write, "the dev server does not start"),
    "auto": (cc.openclaw_home, claw_write, "What did we pick for the API?"),
    "koboldcpp": (lambda r: cc.kobold_story(r, 3), kobold_write, "Then we pack tonight."),
}


@pytest.fixture
def engines(tmp_path: Path) -> Iterator[list[Engine]]:
    made: list[Engine] = []
    yield made
    for engine in made:
        engine.close()


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_watched_client_message_is_found_by_search(tmp_path: Path, engines: list[Engine], client: str) -> None:
    make, write, first_text = CLIENTS[client]
    source = tmp_path / "source"
    source.mkdir()
    make(source)
    engine = Engine(tmp_path / "vault", triggers=False)
    engines.append(engine)
    engine.settings.set("watch.debounce_ms", 100)
    engine.settings.set("watch.max_latency_ms", 2000)
    engine.settings.set("watch.rescan_seconds", 60.0)
    added = engine.add_source(source)
    assert added.adapter == client
    engine.start_watching()
    assert wait_for(lambda: any(first_text in t.text for t in engine.index.turns("default"))), client
    word = f"zebra{client.replace('_', '')}"
    write(source, word)
    assert wait_for(lambda: found(engine, word)), f"{client}: the new message was not found"
    if client == "auto":
        assert wait_for(lambda: found(engine, f"{word}memo"))
    assert engine.index.turns("default", statuses=("removed",)) == []
