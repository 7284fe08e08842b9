"""text-generation-webui (oobabooga) chat histories.

Where: ``user_data/logs/chat/<character>/<id>.json`` and ``user_data/logs/instruct/<id>.json``
(``logs/...`` before 2025-04), very old ``logs/persistent_<character>.json`` or
``logs/<character>_persistent.json``. One JSON object: ``internal`` (what the model saw)
and ``visible`` (the same pairs, HTML-escaped) as lists of ``[user, assistant]`` rows,
``data``/``data_visible`` in the oldest builds, and since 2025 ``metadata`` keyed
``user_<row>``/``assistant_<row>`` with ``timestamp`` (local time, minute resolution),
``model_name``, ``versions`` and attachments. Row 0 may be ``<|BEGIN-VISIBLE-CHAT|>`` with
the character's greeting: that is not a user turn. Files are rewritten in place (every 8
s while streaming), so a file that does not parse is read again once it changes. Messages
have no ids: a message is its row and side.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from curator.sources.adapters.common import (
    Emitter,
    FileAdapter,
    as_dict,
    as_list,
    as_str,
    load_json,
    without_reasoning,
)
from curator.sources.adapters.timestamps import parse_time

GREETING_MARK = "<|BEGIN-VISIBLE-CHAT|>"
_HEAD_RE = re.compile(rb'^\s*\{\s*"(internal|visible|data|data_visible)"\s*:\s*\[')
_PERSISTENT_RE = re.compile(r"^(?:persistent_(.+)|(.+)_persistent)$")


def character_of(parts: tuple[str, ...]) -> str:
    """The character a history belongs to, from its path ('' for instruct mode)."""
    stem = Path(parts[-1]).stem
    persistent = _PERSISTENT_RE.match(stem)
    if persistent:
        return persistent.group(1) or persistent.group(2) or ""
    if len(parts) >= 3 and parts[-3] == "chat":
        return parts[-2]
    return ""  # instruct mode, or a history copied out of the client's layout


def _cell(rows: list[Any], row: int, side: int) -> str | None:
    if row >= len(rows):
        return None
    pair = rows[row]
    if not isinstance(pair, list) or len(pair) <= side:
        return None
    return pair[side] if isinstance(pair[side], str) else None


class TextGenWebuiAdapter(FileAdapter):
    """Reads text-generation-webui chat and instruct histories."""

    name = "textgen_webui"
    description = "text-generation-webui histories (user_data/logs/chat/<character>/*.json, logs/instruct/)"
    suffixes = (".json",)

    def claim(self, path: Path, head: bytes) -> float:
        if not path.name.endswith(".json") or path.name.endswith(".conversation.json"):
            return 0.0
        return 0.9 if _HEAD_RE.match(head) else 0.0

    def parse(self, unit: Path, out: Emitter) -> None:
        doc = load_json(unit, out.file_name, out.result)
        if doc is None:
            return
        if not isinstance(doc, dict):
            out.result.problem(f"{out.file_name}: not a chat history object; skipped")
            return
        internal = as_list(doc.get("internal", doc.get("data")))
        visible = as_list(doc.get("visible", doc.get("data_visible")))
        rows = internal or visible
        metadata = as_dict(doc.get("metadata"))
        character = character_of(unit.parts)
        conversation = out.file_name[: -len(".json")]
        for row in range(len(rows)):
            if not isinstance(rows[row], list):
                out.result.problem(f"{out.file_name} row {row}: not a [user, assistant] pair; skipped")
                continue
            for side, role in ((0, "user"), (1, "assistant")):
                self._message(out, internal, visible, metadata, row, side, role, character, conversation)

    @staticmethod
    def _message(
        out: Emitter, internal: list[Any], visible: list[Any], metadata: dict[str, Any],
        row: int, side: int, role: str, character: str, conversation: str,
    ) -> None:
        raw, shown = _cell(internal, row, side), _cell(visible, row, side)
        text = raw if raw is not None else (html.unescape(shown) if shown is not None else None)
        if text is not None and raw is not None and raw == shown and html.unescape(raw) != raw:
            text = html.unescape(raw)  # builds that stored the escaped text in both lists
        if text is None:
            if internal or visible:
                out.result.problem(f"{out.file_name} row {row}: {role} cell is not text; skipped")
            return
        if side == 0 and row == 0 and text == GREETING_MARK:
            return  # the greeting row's placeholder, not something the person wrote
        if role == "assistant":
            text = without_reasoning(text)  # shown collapsed by the client: not the reply
        if not text.strip():
            out.result.skip("empty messages (a reply not written yet, or blank)")
            return
        meta = as_dict(metadata.get(f"{role}_{row}"))
        extra: dict[str, Any] = {}
        model = as_str(meta.get("model_name"))
        if model and model != "None":
            extra["model"] = model
        versions = as_list(meta.get("versions"))
        if len(versions) > 1:
            extra["versions"] = len(versions)
            extra["version_shown"] = meta.get("current_version_index")
        attachments = [as_str(as_dict(a).get("name")) for a in as_list(meta.get("attachments"))]
        if attachments:
            extra["attachments"] = [a for a in attachments if a]
        speaker = (character or "assistant") if role == "assistant" else "user"
        out.emit(
            conversation=conversation, key=f"pos:{row}.{side}", position=row * 2 + side, role=role,
            speaker=speaker, text=text, when=parse_time(meta.get("timestamp")), title=character,
            extra=extra,
        )
