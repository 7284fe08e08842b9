"""Claude Code sessions: ``~/.claude/projects/<project>/<session id>.jsonl``.

Every line has a ``type``. Only two kinds are turns: ``user`` lines that carry what the
person typed, and the text of ``assistant`` lines. Everything else is skipped and counted
by reason: ``system`` lines, command echoes (``<command-name>``, ``<local-command-stdout>``),
``queue-operation`` lines, "[Request interrupted by user]", the compaction prompt and its
summary, tool results (sent back as ``user`` lines), thinking and tool calls, progress and
file-history records. A line with no type is a problem, never a user turn. Subagent
transcripts (``<session>/subagents/agent-*.jsonl``) are their own conversations.
"""

from __future__ import annotations

import re
from typing import Any

from curator.sources.adapters.agent_jsonl import AgentJsonlAdapter
from curator.sources.adapters.base import ReadResult
from curator.sources.adapters.common import as_dict, as_list, as_str
from curator.sources.adapters.timestamps import parse_time

_TYPES = {
    "user", "assistant", "summary", "system", "file-history-snapshot", "progress",
    "queue-operation", "session_start", "custom-title", "attachment",
}
_COMMAND_RE = re.compile(r"^\s*<(command-name|command-message|command-args|local-command-stdout|"
                         r"local-command-stderr|local-command-caveat|bash-input|bash-stdout|bash-stderr)>")
_COMPACTION_STARTS = (
    "This session is being continued from a previous conversation",
    "Your task is to create a detailed summary of the conversation so far",
)


def _texts(content: Any) -> tuple[str, set[str]]:
    """The text parts of a message body, and the kinds of the other parts."""
    if isinstance(content, str):
        return content, set()
    texts, others = [], set()
    for part in as_list(content):
        part = as_dict(part)
        kind = as_str(part.get("type")) or "unknown"
        if kind == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        else:
            others.add(kind)
    return "\n".join(texts), others


class ClaudeCodeAdapter(AgentJsonlAdapter):
    """Reads Claude Code session transcripts."""

    name = "claude_code"
    description = "Claude Code sessions (~/.claude/projects/*/*.jsonl, subagents/)"

    def claim_lines(self, lines: list[Any]) -> float:
        for obj in lines:
            if as_str(obj.get("type")) in _TYPES and (
                isinstance(obj.get("message"), dict) or any(
                    k in obj for k in ("sessionId", "session_id", "parentUuid", "snapshot", "leafUuid")
                )
            ):
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
        title = obj.get("summary") if kind == "summary" else obj.get("customTitle")
        if kind in ("summary", "custom-title") and isinstance(title, str) and title.strip():
            result.scratch["title"] = title.strip()[:200]  # titles the turns read after it
        if kind not in ("user", "assistant"):
            if not isinstance(kind, str) or not kind:
                result.problem(f"{where}: no 'type', so not a turn of any role; skipped")
            else:
                result.skip(f"{kind} lines")
            return
        message = as_dict(obj.get("message"))
        text, others = _texts(message.get("content"))
        stripped = text.strip()
        subagent_compaction = "/agent-acompact" in f"/{file_name}" or file_name.startswith("agent-acompact")
        reason = self._noise(obj, kind, stripped, others, subagent_compaction)
        if reason:
            result.skip(reason)
            return
        speaker = "Claude" if kind == "assistant" else "user"
        extra = {"model": as_str(message.get("model"))} if kind == "assistant" and message.get("model") else {}
        self.emit(
            result, source_id=source_id, file_name=file_name, line_no=line_no, role=kind,
            speaker=speaker, text=text, when=parse_time(obj.get("timestamp")), fallback=fallback_time,
            message_id=as_str(obj.get("uuid")) or as_str(message.get("id")),
            fmt=self.name, extra=extra, title=as_str(result.scratch.get("title")),
        )

    @staticmethod
    def _noise(obj: dict[str, Any], kind: str, text: str, others: set[str], compaction_file: bool) -> str:
        """Why a user/assistant line is not a turn, or '' when it is one."""
        if compaction_file or obj.get("isCompactSummary") or text.startswith(_COMPACTION_STARTS):
            return "compaction lines"
        if obj.get("isMeta"):
            return "meta lines"
        if kind == "user":
            if "tool_result" in others and not text:
                return "tool results"
            if _COMMAND_RE.match(text):
                return "command lines"
            if text.startswith("[Request interrupted by user"):
                return "interrupt notices"
        if obj.get("isApiErrorMessage"):
            return "API error notices"
        if not text:
            return "tool calls and thinking" if kind == "assistant" else "user lines without text"
        return ""
