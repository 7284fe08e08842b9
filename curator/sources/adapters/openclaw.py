"""OpenClaw (and clawdbot/moltbot, pi) session transcripts:
``~/.openclaw/agents/<agent>/sessions/<session id>.jsonl``.

A ``session`` header line (version 3), then entries with ``type``, ``id`` and ``parentId``
(a tree, appended as it grows). ``message`` entries hold ``{role, content, timestamp}``:
``user`` and the text of ``assistant`` messages are turns; ``toolResult`` messages, thinking
and tool calls, ``compaction``, ``model_change``, ``custom`` and other records are skipped
and counted. The daily ``memory/*.md`` logs beside them are read by the episodes format.
"""

from __future__ import annotations

from typing import Any

from curator.sources.adapters.agent_jsonl import AgentJsonlAdapter
from curator.sources.adapters.base import ReadResult
from curator.sources.adapters.common import as_dict, as_list, as_str
from curator.sources.adapters.timestamps import parse_time

_ENTRY_TYPES = {
    "message", "model_change", "thinking_level_change", "compaction", "branch_summary",
    "custom", "custom_message", "label", "session_info",
}


class OpenClawAdapter(AgentJsonlAdapter):
    """Reads OpenClaw / pi session transcripts."""

    name = "openclaw"
    description = "OpenClaw sessions (~/.openclaw/agents/*/sessions/*.jsonl)"

    def claim_lines(self, lines: list[Any]) -> float:
        for obj in lines:
            if obj.get("type") == "session" and "version" in obj:
                return 0.95
            if as_str(obj.get("type")) in _ENTRY_TYPES and "parentId" in obj:
                return 0.9
        return 0.0

    def _take_object(
        self, obj: Any, where: str, line_no: int, file_name: str, source_id: str,
        fallback_time: float, result: ReadResult,
    ) -> None:
        if not isinstance(obj, dict):
            result.problem(f"{where}: not a JSON object; skipped")
            return
        kind = obj.get("type")
        if kind != "message":
            if not isinstance(kind, str) or not kind:
                result.problem(f"{where}: no 'type', so not a turn of any role; skipped")
            else:
                result.skip(f"{kind} records")
            return
        message = obj.get("message")
        if not isinstance(message, dict):
            result.problem(f"{where}: message entry without a message object; skipped")
            return
        role = message.get("role")
        if role in ("toolResult", "tool", "bashExecution"):
            result.skip("tool results")
            return
        if role not in ("user", "assistant", "system"):
            result.problem(f"{where}: unknown role {as_str(role)[:40]!r}; skipped")
            return
        content = message.get("content")
        if isinstance(content, str):
            text = content
        else:
            parts = [as_dict(p) for p in as_list(content)]
            text = "\n".join(as_str(p.get("text")) for p in parts if p.get("type") == "text")
        if not text.strip():
            result.skip("tool calls and thinking" if role == "assistant" else "messages without text")
            return
        when = parse_time(obj.get("timestamp"))
        if when is None:
            when = parse_time(message.get("timestamp"))
        extra: dict[str, Any] = {}
        if obj.get("parentId"):
            extra["parent_id"] = as_str(obj.get("parentId"))
        if role == "assistant" and message.get("model"):
            extra["model"] = as_str(message.get("model"))
        self.emit(
            result, source_id=source_id, file_name=file_name, line_no=line_no, role=role,
            speaker=role, text=text, when=when, fallback=fallback_time,
            message_id=as_str(obj.get("id")), fmt=self.name, extra=extra,
        )
