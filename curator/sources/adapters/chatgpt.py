"""ChatGPT data export: ``conversations.json`` (or the export zip that holds it).

A JSON array of conversations, each with ``id``/``conversation_id``, ``title``,
``mapping`` (a tree of nodes: ``message``, ``parent``, ``children``) and ``current_node``,
the leaf the person last saw. Edits and regenerations are sibling branches, so the
conversation is the path from ``current_node`` up to the root, never every node sorted by
time. Hidden system messages, tool messages, tool calls (``recipient`` not ``all``) and
non-text content (code runs, browsing, thoughts, custom instructions) are skipped and
counted. Times are float epoch seconds, or null (then time-unknown). An import: the
export is read as a whole and never changes.
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

_TEXT_TYPES = {"text", "multimodal_text"}
MAX_DEPTH = 100_000


def visible_path(mapping: dict[str, Any], current: str) -> list[dict[str, Any]]:
    """The nodes from the root to ``current`` (the branch on screen), in order.

    Without a usable ``current_node``, the newest branch: from the root, always the last child.
    """
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    node_id: Any = current if current in mapping else None
    if node_id is None:
        roots = [k for k, n in mapping.items() if not as_dict(n).get("parent")]
        node_id = roots[0] if roots else None
        while node_id is not None and node_id not in seen and len(seen) < MAX_DEPTH:
            seen.add(node_id)
            path.append(as_dict(mapping.get(node_id)))
            children = [c for c in as_list(as_dict(mapping.get(node_id)).get("children")) if c in mapping]
            node_id = children[-1] if children else None
        return path
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen and len(seen) < MAX_DEPTH:
        seen.add(node_id)
        node = as_dict(mapping[node_id])
        path.append(node)
        node_id = node.get("parent")
    path.reverse()
    return path


def message_text(message: dict[str, Any]) -> tuple[str, str]:
    """(text, content type) of a message; text is '' for content that is not text."""
    content = as_dict(message.get("content"))
    kind = as_str(content.get("content_type")) or "unknown"
    if kind not in _TEXT_TYPES:
        return "", kind
    parts = [p for p in as_list(content.get("parts")) if isinstance(p, str)]
    return "\n".join(parts), kind


class ChatGptAdapter(ExportAdapter):
    """Reads ChatGPT data exports."""

    name = "chatgpt"
    description = "ChatGPT data export (conversations.json, or the export .zip)"
    messages_key = "mapping"
    messages_type = dict

    def conversation(self, out: Emitter, index: int, conv: dict[str, Any]) -> None:
        conv_id = as_str(conv.get("conversation_id")) or as_str(conv.get("id")) or f"conversation-{index}"
        title = as_str(conv.get("title"))
        out.last_time = None
        # Messages may carry no time; the conversation's own time then orders them.
        out.fallback = parse_time(conv.get("create_time")) or out.fallback
        for position, node in enumerate(visible_path(conv["mapping"], as_str(conv.get("current_node")))):
            message = node.get("message")
            if not isinstance(message, dict):
                continue  # the root placeholder
            author = as_dict(message.get("author"))
            role = as_str(author.get("role"))
            metadata = as_dict(message.get("metadata"))
            text, kind = message_text(message)
            if metadata.get("is_visually_hidden_from_conversation"):
                out.result.skip("hidden messages")
                continue
            if role == "tool":
                out.result.skip("tool messages")
                continue
            if role not in ("user", "assistant", "system"):
                out.result.problem(f"{out.file_name} {conv_id}: unknown author role {role[:40]!r}; skipped")
                continue
            if as_str(message.get("recipient")) not in ("", "all"):
                out.result.skip("tool calls")
                continue
            if not text.strip():
                out.result.skip(f"{kind} content" if kind not in _TEXT_TYPES else "messages without text")
                continue
            speaker = {"user": "user", "assistant": "ChatGPT", "system": "system"}[role]
            extra = {"model": as_str(metadata.get("model_slug"))} if metadata.get("model_slug") else None
            message_id = as_str(message.get("id")) or as_str(node.get("id"))
            out.emit(
                conversation=conv_id, key=f"id:{message_id}" if message_id else f"pos:{position}",
                position=position, role=role, speaker=speaker, text=text,
                when=parse_time(message.get("create_time")), title=title, message_id=message_id,
                extra=extra,
            )
