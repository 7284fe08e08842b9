"""LM Studio conversations: ``~/.lmstudio/conversations/**/<ms>.conversation.json``
(``~/.cache/lm-studio/conversations`` in early 0.3 builds).

One JSON document per chat: ``name`` (the title), ``createdAt`` (ms), ``messages``. Each
message is ``{versions: [...], currentlySelected: n}``: the versions are its edits and
regenerations, and the selected one is what the person sees, so that is the turn. A user
version holds ``content`` parts; an assistant version holds ``steps``, whose
``contentBlock`` texts are the reply (thinking and tool steps are left out). LM Studio
writes no per-message times and no message ids: every turn is marked time-unknown (the
chat's ``createdAt`` only orders them) and a message is its position.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from curator.sources.adapters.common import (
    Emitter,
    FileAdapter,
    as_dict,
    as_list,
    as_str,
    load_json,
    text_of,
)
from curator.sources.adapters.timestamps import parse_time


def _is_thinking(block: dict[str, Any]) -> bool:
    style = as_dict(block.get("style"))
    kinds = {as_str(style.get("type")), as_str(block.get("type")), as_str(block.get("kind"))}
    return any("think" in k or "reason" in k for k in kinds)


def assistant_text(version: dict[str, Any]) -> str:
    """The reply text of an assistant version: its content blocks, without thinking."""
    texts = []
    for step in as_list(version.get("steps")):
        step = as_dict(step)
        if step.get("type") != "contentBlock" or _is_thinking(step):
            continue
        for part in as_list(step.get("content")):
            part = as_dict(part)
            if part.get("type") == "text" and not _is_thinking(part):
                texts.append(as_str(part.get("text")))
    if not texts and "content" in version:
        return text_of(version.get("content"))
    return "".join(texts)


class LmStudioAdapter(FileAdapter):
    """Reads LM Studio conversation files."""

    name = "lmstudio"
    description = "LM Studio chats (~/.lmstudio/conversations/**/*.conversation.json)"
    suffixes = (".conversation.json",)

    def claim(self, path: Path, head: bytes) -> float:
        if not path.name.endswith(".conversation.json"):
            return 0.0
        return 0.95 if b'"messages"' in head or b'"versions"' in head or not head.strip() else 0.5

    def parse(self, unit: Path, out: Emitter) -> None:
        doc = load_json(unit, out.file_name, out.result)
        if doc is None:
            return
        if not isinstance(doc, dict) or not isinstance(doc.get("messages"), list):
            out.result.problem(f"{out.file_name}: no 'messages' list, not an LM Studio chat; skipped")
            return
        title = as_str(doc.get("name"))
        created = parse_time(doc.get("createdAt"))
        if created is not None:
            out.fallback = created
        conversation = out.file_name[: -len(".conversation.json")]
        for index, message in enumerate(doc["messages"]):
            self._message(out, index, as_dict(message), conversation, title)

    @staticmethod
    def _message(out: Emitter, index: int, message: dict[str, Any], conversation: str, title: str) -> None:
        where = f"{out.file_name} message {index}"
        versions = as_list(message.get("versions"))
        chosen = message.get("currentlySelected", 0)
        if not isinstance(chosen, int) or isinstance(chosen, bool) or not 0 <= chosen < len(versions):
            out.result.problem(f"{where}: no selected version to read; skipped")
            return
        version = as_dict(versions[chosen])
        role = version.get("role")
        if role == "user":
            text = text_of(version.get("content"))
            speaker = "user"
        elif role == "assistant":
            text = assistant_text(version)
            speaker = as_str(as_dict(version.get("senderInfo")).get("senderName")) or "assistant"
        elif role == "system":
            text, speaker = text_of(version.get("content")), "system"
        elif role == "tool":
            out.result.skip("tool messages")
            return
        else:
            out.result.problem(f"{where}: unknown role {as_str(role)[:40]!r}; skipped")
            return
        if not text.strip():
            out.result.skip("messages without text")
            return
        extra = {"versions": len(versions), "version_shown": chosen} if len(versions) > 1 else None
        out.emit(
            conversation=conversation, key=f"pos:{index}", position=index, role=role, speaker=speaker,
            text=text, when=None, title=title, extra=extra,
        )
