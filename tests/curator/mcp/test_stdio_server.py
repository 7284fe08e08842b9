"""A real MCP client (the SDK's stdio client) against a real `curator mcp` process."""

from __future__ import annotations

from typing import Any

from mcp import ClientSession
from mcp_helpers import _call, _session_run

from curator.review.actions import ReviewEngine
from curator.vault.paths import VaultPaths
from curator.vault.store import DocumentStore


def test_client_lists_tools_searches_retrieves_and_saves(mcp_vault: dict[str, Any]) -> None:
    vault = mcp_vault["vault"]
    fact_id = mcp_vault["fact"]["id"]
    staged_id = mcp_vault["staged"]["id"]

    async def body(session: ClientSession) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["tools"] = sorted(t.name for t in (await session.list_tools()).tools)
        out["search"] = await _call(session, "memory_search", query="sunflower seeds hamster")
        out["filtered"] = await _call(session, "memory_search", query="sunflower", type=["fact"], scope="new")
        out["retrieve"] = await _call(session, "memory_retrieve", id=fact_id)
        out["staged_search"] = await _call(session, "memory_search", query="zanzibar recital")
        out["staged_by_id"] = await _call(session, "memory_retrieve", id=staged_id)
        out["outside"] = await _call(session, "memory_retrieve", id="../../etc/passwd")
        out["absolute"] = await _call(session, "memory_retrieve", id="/etc/passwd")
        out["save"] = await _call(session, "memory_save", title="Cello teacher",
                                  content="The person's cello teacher is called Ingrid.", type="fact")
        out["too_long"] = await _call(session, "memory_save", title="x", content="y" * 5000)
        out["core"] = await session.read_resource("memory://core")
        return out

    out = _session_run(vault, body)
    assert out["tools"] == ["memory_retrieve", "memory_save", "memory_search"]
    ok, hits = out["search"]
    assert ok and hits[0]["id"] == fact_id
    assert {
        "id",
        "type",
        "title",
        "snippet",
        "scope",
        "confidence",
        "quality",
        "created",
        "source_turns",
    } <= set(hits[0])
    assert hits[0]["scope"] == "new" and hits[0]["source_turns"] == [1] and hits[0]["type"] == "fact"
    ok, filtered = out["filtered"]
    assert ok and [h["id"] for h in filtered] == [fact_id]
    ok, doc = out["retrieve"]
    assert ok and doc["id"] == fact_id and "sunflower" in doc["text"]
    ok, staged_hits = out["staged_search"]
    assert ok and all(h["id"] != staged_id for h in staged_hits)
    assert out["staged_by_id"][0] is False
    assert out["outside"][0] is False and "outside the vault" in out["outside"][1]
    assert out["absolute"][0] is False
    ok, saved = out["save"]
    assert ok and saved["status"] == "staged" and saved["lane"] == "flagged"
    assert out["too_long"][0] is False and "limit" in out["too_long"][1]
    assert "hamster" in out["core"].contents[0].text

    # The proposal is a staged item in the flagged lane, with origin "agent"; nothing reached Knowledge.
    paths = VaultPaths(vault.resolve())
    review = ReviewEngine(paths, DocumentStore(paths))
    items = {i.doc_id: i for i in review.list_items("default").items}
    item = items[saved["id"]]
    assert item.lane == "flagged" and item.origin == "agent"
    assert not list((paths.user("default").knowledge).rglob("*cello-teacher*"))


def test_a_staged_item_is_never_returned_even_by_path(mcp_vault: dict[str, Any]) -> None:
    vault = mcp_vault["vault"]
    paths = VaultPaths(vault.resolve())
    staged = next(paths.user("default").staging.rglob("*.md"))
    rel = staged.relative_to(paths.root).as_posix()

    async def body(session: ClientSession) -> Any:
        return await _call(session, "memory_retrieve", id=rel)

    ok, _ = _session_run(vault, body)
    assert ok is False
