"""Claude.ai data export: ``conversations.json`` (or the export zip that holds it).

A JSON array of conversations: ``uuid``, ``name`` (the title), ``chat_messages``, each
with ``uuid``, ``sender`` (``human`` or ``assistant``), ``text``, ``content`` blocks and
``created_at`` (ISO-8601). The export is linear (no branches). A message's turn text is
its ``text`` blocks (thinking, tool use and tool results left out), else its flat ``text``.
An import: the export is read as a whole and never changes.
"""

from __future__ import annotations

from typing import Any

from curator.sources.adapters.common import (
    Emitter,
    ExportAdapter,
    as_dict,
    as_list,
    as_str,
)
from curator.sources.adapters.timestamps import parse_time

_ROLES = {"human": "user", "user": "user", "assistant": "assistant"}


def message_text(message: dict[str, Any]) -> str:
    """The visible text of a message."""
    blocks = [as_dict(b) for b in as_list(message.get("content"))]
    texts = [as_str(b.get("text")) for b in blocks if b.get("type") == "text"]
    if any(t.strip() for t in texts):
        return "\n\n".join(t for t in texts if t)
    return as_str(message.get("text"))


class ClaudeAiAdapter(ExportAdapter):
    """Reads Claude.ai data exports."""

    name = "claude_ai"
    description = "Claude.ai data export (conversations.json, or the export .zip)"
    messages_key = "chat_messages"
    messages_type = list

    def conversation(self, out: Emitter, index: int, conv: dict[str, Any]) -> None:
        conv_id = as_str(conv.get("uuid")) or f"conversation-{index}"
        title = as_str(conv.get("name"))
        out.last_time = None
        for position, raw in enumerate(conv["chat_messages"]):
            message = as_dict(raw)
            role = _ROLES.get(as_str(message.get("sender")))
            if role is None:
                out.result.problem(
                    f"{out.file_name} {conv_id} message {position}: unknown sender "
                    f"{as_str(message.get('sender'))[:40]!r}; skipped"
                )
                continue
            text = message_text(message)
            if not text.strip():
                out.result.skip("messages without text")
                continue
            message_id = as_str(message.get("uuid"))
            out.emit(
                conversation=conv_id, key=f"id:{message_id}" if message_id else f"pos:{position}",
                position=position, role=role, speaker="Claude" if role == "assistant" else "user",
                text=text, when=parse_time(message.get("created_at")), title=title,
                message_id=message_id,
            )
