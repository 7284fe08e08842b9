"""A small vault for the MCP tests: two conversations, one approved fact, one staged item."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp_helpers import write_chat

from curator.engine import Engine


@pytest.fixture()
def mcp_vault(tmp_path: Path) -> dict[str, Any]:
    vault = tmp_path / "vault"
    chats = tmp_path / "chats"
    write_chat(chats)
    with Engine(vault, triggers=False) as engine:
        engine.import_path(chats)
        fact = engine.memory.save(title="Biscuit's diet", content="Biscuit the hamster eats sunflower seeds.",
                                  area="knowledge", source_turns=[1], topic="pet.hamster")
        staged = engine.memory.save(title="Secret staged cello plan",
                                    content="Staged only: cello recital plan zanzibar.", source_turns=[3])
        engine.paths.user("default").core_memory.write_text("# Core memory\n\nThe person keeps a hamster.\n",
                                                            "utf-8")
    return {"vault": vault, "fact": fact, "staged": staged, "chats": chats}

