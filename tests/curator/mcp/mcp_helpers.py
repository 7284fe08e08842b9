"""Helpers of the MCP tests: start `curator mcp` with the SDK's stdio client; the app's index port."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from curator.engine import Engine

MESSAGES = [
    ("user", "My hamster Biscuit only eats sunflower seeds in the evening."),
    ("assistant", "Noted: Biscuit eats sunflower seeds in the evening."),
    ("user", "I am learning the cello and practise every Tuesday."),
    ("assistant", "Cello practice on Tuesdays, got it."),
]


def write_chat(folder: Path, messages: list[tuple[str, str]] = MESSAGES, day: str = "2026-11-20") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "chat.jsonl"
    lines = [json.dumps({"role": r, "content": c, "timestamp": f"{day}T18:0{i}:00Z", "id": f"m{i}",
                         "conversation": "c1"}) for i, (r, c) in enumerate(messages)]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def _params(vault: Path) -> StdioServerParameters:
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    return StdioServerParameters(command=sys.executable, args=["-m", "curator.cli.main", "--vault", str(vault), "mcp"],
                                 env=env)


async def _call(session: ClientSession, tool: str, **arguments: Any) -> tuple[bool, Any]:
    result = await session.call_tool(tool, arguments)
    text = "".join(getattr(c, "text", "") for c in result.content)
    if result.is_error:
        return False, text
    return True, json.loads(text)


def _session_run(vault: Path, body: Any) -> Any:
    async def main() -> Any:
        async with stdio_client(_params(vault)) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await body(session)

    return anyio.run(main)


class EngineIndex:
    """The app's index port: what the review pane's actions call after a write."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def upsert(self, doc: Any) -> None:
        from curator.mcp.tools import index_document_file

        index_document_file(self.engine.index, self.engine.store, doc.path)

    def remove(self, doc_id: str) -> None:
        self.engine.sync_documents()
