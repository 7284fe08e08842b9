"""The stdio protocol of `curator mcp` line by line: the handshake before the vault is open,
notifications, malformed lines, argument checks and tool errors (issue 21 item 2)."""

from __future__ import annotations

import io
import json
import threading
from typing import Any

import pytest

from curator.mcp.arguments import ArgumentError, checked_arguments
from curator.mcp.stdio import Opening, StdioServer, ToolRefusal
from curator.mcp.tool_specs import SAVE_SCHEMA, SEARCH_SCHEMA


class Recorded:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def call(self, tool: str, arguments: dict[str, Any]) -> str:
        self.calls.append((tool, arguments))
        if arguments.get("query") == "refuse":
            raise ToolRefusal("the vault could not be used: disk full")
        return json.dumps({"tool": tool})

    def core_memory(self) -> str:
        return "# Core memory\n\nThe person keeps bees.\n"


def _server(open_memory: Any) -> tuple[StdioServer, io.BytesIO]:
    out = io.BytesIO()
    return StdioServer(Opening(open_memory), io.BytesIO(), out), out


def _request(server: StdioServer, method: str, params: Any = None, request_id: int = 1) -> dict[str, Any] | None:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return server.handle(json.dumps(message).encode())


def test_the_handshake_and_the_lists_are_answered_while_the_vault_is_still_opening() -> None:
    release = threading.Event()
    memory = Recorded()

    def slow_open() -> Recorded:
        release.wait()
        return memory

    server, _ = _server(slow_open)
    init = _request(server, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                           "clientInfo": {"name": "t", "version": "1"}})
    assert init is not None and init["result"]["protocolVersion"] == "2025-06-18"
    assert set(init["result"]["capabilities"]) == {"tools", "resources", "prompts"}
    tools = _request(server, "tools/list", {}, 2)
    assert tools is not None and [t["name"] for t in tools["result"]["tools"]] == [
        "memory_search", "memory_retrieve", "memory_save"]
    assert not memory.calls  # nothing needed the vault yet
    release.set()
    call = _request(server, "tools/call", {"name": "memory_search", "arguments": {"query": "bees"}}, 3)
    assert call is not None and call["result"]["isError"] is False
    assert memory.calls == [("memory_search", {**{k: v.get("default") for k, v in SEARCH_SCHEMA["properties"].items()
                                                   if "default" in v}, "query": "bees"})]


def test_an_unknown_protocol_version_is_answered_with_the_newest() -> None:
    server, _ = _server(Recorded)
    init = _request(server, "initialize", {"protocolVersion": "1999-01-01"})
    assert init is not None and init["result"]["protocolVersion"] == "2025-11-25"


def test_notifications_responses_and_bad_lines() -> None:
    server, _ = _server(Recorded)
    assert server.handle(b'{"jsonrpc":"2.0","method":"notifications/initialized"}') is None
    assert server.handle(b'{"jsonrpc":"2.0","id":7,"result":{}}') is None
    bad = server.handle(b"{not json")
    assert bad is not None and bad["error"]["code"] == -32700 and bad["id"] is None
    batch = server.handle(b"[]")
    assert batch is not None and batch["error"]["code"] == -32600
    unknown = _request(server, "sampling/createMessage", {})
    assert unknown is not None and unknown["error"]["code"] == -32601
    tool = _request(server, "tools/call", {"name": "memory_delete", "arguments": {}})
    assert tool is not None and tool["error"]["code"] == -32602


@pytest.mark.parametrize(("arguments", "reason"), [
    ({"query": "x", "limit": 0}, "limit: must be at least 1, got 0"),
    ({"query": "x", "limit": -5}, "limit: must be at least 1, got -5"),
    ({"query": "x", "limit": 1000}, "limit: must be at most 50, got 1000"),
    ({"query": "x", "limit": True}, "limit: must be a whole number, got True"),
    ({"query": "x", "scope": "everyone"}, "scope: 'everyone' is not one of: new, user, global"),
    ({"query": "x", "type": ["fact", "gossip"]}, "type[1]: 'gossip' is not one of"),
    ({"query": ""}, "query: must not be empty"),
    ({"limit": 3}, "query: required"),
    ({"query": "x", "colour": "red"}, "unknown argument 'colour'"),
    ({"query": "x", "freshness_days": 0}, "freshness_days: must be more than 0, got 0"),
])
def test_search_arguments_are_refused_with_the_reason(arguments: dict[str, Any], reason: str) -> None:
    server, _ = _server(Recorded)
    reply = _request(server, "tools/call", {"name": "memory_search", "arguments": arguments})
    assert reply is not None and reply["result"]["isError"] is True
    assert reply["result"]["content"][0]["text"].startswith(reason)


def test_checked_arguments_fill_defaults_and_take_whole_floats() -> None:
    checked = checked_arguments(SAVE_SCHEMA, {"content": "The person keeps bees.", "source_turns": [3.0]})
    assert checked == {"content": "The person keeps bees.", "title": None, "type": "fact", "topic": "",
                       "keywords": None, "source_turns": [3]}
    with pytest.raises(ArgumentError, match="title: at most 200 characters"):
        checked_arguments(SAVE_SCHEMA, {"content": "c", "title": "t" * 201})
    with pytest.raises(ArgumentError, match="arguments must be an object"):
        checked_arguments(SAVE_SCHEMA, ["c"])


def test_a_refusal_and_a_vault_that_cannot_open_are_tool_errors_and_the_server_goes_on() -> None:
    server, _ = _server(Recorded)
    refused = _request(server, "tools/call", {"name": "memory_search", "arguments": {"query": "refuse"}})
    assert refused is not None and refused["result"] == {
        "content": [{"type": "text", "text": "the vault could not be used: disk full"}], "isError": True}

    def broken() -> Recorded:
        raise OSError("index.sqlite: permission denied")

    server, _ = _server(broken)
    call = _request(server, "tools/call", {"name": "memory_search", "arguments": {"query": "bees"}})
    assert call is not None and call["result"]["isError"] is True
    assert "could not be opened" in call["result"]["content"][0]["text"]
    assert _request(server, "ping", {}, 2) == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_run_writes_one_line_per_answer_and_stops_at_end_of_input() -> None:
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "core_memory"}},
             {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "memory://other"}}]
    out = io.BytesIO()
    reader = io.BytesIO(b"".join(json.dumps(m, ensure_ascii=False).encode() + b"\n\n" for m in lines))
    StdioServer(Opening(Recorded), reader, out).run()
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [a["id"] for a in answers] == [1, 2, 3]
    assert "The person keeps bees." in answers[1]["result"]["messages"][0]["content"]["text"]
    assert answers[2]["error"]["code"] == -32002
