"""`curator mcp` beside a running app: the app holds the writer lock and stages agent saves;
an approval in the app is found by the agent's next search."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, stdio_client
from mcp_helpers import EngineIndex, _call, _params

from curator.engine import Engine
from curator.review.actions import ReviewEngine


def test_save_waits_for_the_writer_and_an_approval_is_searchable_at_once(mcp_vault: dict[str, Any]) -> None:
    vault: Path = mcp_vault["vault"]
    staged_id = mcp_vault["staged"]["id"]
    with Engine(vault, triggers=False) as app:  # the window is open: it holds the writer lock
        review = ReviewEngine(app.paths, app.store, index=EngineIndex(app), clock=app.clock)

        async def main() -> dict[str, Any]:
            out: dict[str, Any] = {}
            async with stdio_client(_params(vault)) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                out["before"] = await _call(session, "memory_search", query="zanzibar recital")
                out["save"] = await _call(session, "memory_save", title="Favourite composer",
                                          content="The person's favourite composer is Elgar.")
                # The app's watcher tick stages what the agent dropped off.
                out["drained"] = await anyio.to_thread.run_sync(app.drain_agent_inbox)
                detail = review.show("default", staged_id)
                review.approve("default", staged_id, detail.item.content_hash)
                out["after"] = await _call(session, "memory_search", query="zanzibar recital")
            return out

        out = anyio.run(main)
        ok, before = out["before"]
        assert ok and before == []
        ok, saved = out["save"]
        assert ok and saved["status"] == "queued" and saved["lane"] == "flagged"
        assert [r.status for r in out["drained"]] == ["staged"]
        ok, after = out["after"]
        assert ok and [h["id"] for h in after] == [staged_id]
        items = {i.doc_id: i for i in review.list_items("default").items}
        assert items[out["drained"][0].item_id].lane == "flagged"
