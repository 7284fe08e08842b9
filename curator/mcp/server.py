"""``curator mcp``: the person's memory served to an agent, one vault and one user.

The tools read through the index beside a running app (SQLite WAL lets reads run while the
app writes). Saves are proposals for the single writer (``curator.mcp.inbox``). A refused
request comes back to the agent as a tool error with a one-line reason; nothing an agent
sends is ever written anywhere but the vault's agent inbox. The protocol itself is
``curator.mcp.stdio``; what is offered, ``curator.mcp.tool_specs``.
"""

from __future__ import annotations

import json
from typing import Any

from curator.mcp.agent import AgentInputError, AgentMemory
from curator.mcp.stdio import ToolRefusal


def _reply(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1, default=str)


class ServedMemory:
    """The three tools over one ``AgentMemory``, with arguments already checked against their schemas."""

    def __init__(self, memory: AgentMemory) -> None:
        self.memory = memory

    def call(self, tool: str, arguments: dict[str, Any]) -> str:
        """The tool's JSON answer.

        Raises:
            ToolRefusal: a request the memory refuses, or a vault that cannot be used just now.
        """
        try:
            return self._call(tool, arguments)
        except (AgentInputError, ValueError, TypeError) as exc:
            raise ToolRefusal(str(exc)) from None
        except OSError as exc:
            raise ToolRefusal(f"the vault could not be used: {exc}") from None

    def _call(self, tool: str, a: dict[str, Any]) -> str:
        memory = self.memory
        if tool == "memory_search":
            return _reply(memory.search(a["query"], types=list(a["type"] or []), topic=a["topic"], scope=a["scope"],
                                        min_quality=a["quality"], freshness_days=a["freshness_days"],
                                        limit=a["limit"], include_archived=a["include_archived"],
                                        include_flagged=a["include_flagged"]))
        if tool == "memory_retrieve":
            item = memory.retrieve(a["id"])
            if item is None:
                raise ToolRefusal(f"no memory with id {a['id'][:80]!r}")
            return _reply(item)
        if tool == "memory_save":
            return _reply(memory.save(a["title"], a["content"], kind=a["type"], topic=a["topic"],
                                      keywords=a["keywords"], source_turns=a["source_turns"]))
        raise ToolRefusal(f"unknown tool {tool!r}")

    def core_memory(self) -> str:
        return self.memory.core_memory()
