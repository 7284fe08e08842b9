"""SillyTavern chats: ``data/<user>/chats/<character>/*.jsonl`` and ``group chats/*.jsonl``.

Line 0 is usually a header (``user_name``, ``character_name``, ``chat_metadata``, no
``mes``); old group chats have none. Each other line is a message: ``name``, ``is_user``,
``is_system`` (see below), ``mes`` (the swipe on screen, so the
turn), ``send_date`` in any of four shapes, ``swipes``/``swipe_id`` (alternatives, kept as
counts). Files are replaced whole (write-file-atomic), so each change is read whole.
Messages have no ids: a message is its position, and edits are found by content.
``backups/`` holds throttled copies of the same chats and is never read; write-file-atomic
temp files end in ``.jsonl.<hash>`` and never match.

``is_system`` alone does not make a system message: ``/hide`` sets it on a person's or a
character's message to keep it out of the prompt, and that message is still theirs (kept,
marked ``hidden``). SillyTavern's own notices and narrator lines carry ``extra.type``
(narrator, comment, help ...) or ``extra.isSmallSys``, or come from its system user, and are
read as system turns.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from curator.sources.adapters.base import head_lines
from curator.sources.adapters.common import Emitter, FileAdapter, as_list, as_str, iter_json_lines
from curator.sources.adapters.timestamps import parse_time

SYSTEM_USER = "SillyTavern System"


def is_notice(obj: dict[str, Any]) -> bool:
    """Whether a message is SillyTavern's own (a notice or narration), not a person's or character's."""
    extra = obj.get("extra")
    if isinstance(extra, dict) and (as_str(extra.get("type")) or extra.get("isSmallSys") is True):
        return True
    if obj.get("is_system") is not True:
        return False
    return as_str(obj.get("name")) == SYSTEM_USER or not isinstance(obj.get("is_user"), bool)


def is_header(obj: dict[str, Any]) -> bool:
    """The chat's header line: metadata and names, no message."""
    return "mes" not in obj and ("chat_metadata" in obj or "user_name" in obj or "character_name" in obj)


def is_message(obj: Any) -> bool:
    return isinstance(obj, dict) and "mes" in obj and ("is_user" in obj or "send_date" in obj)


def shown_text(obj: dict[str, Any]) -> str:
    """The text on screen: ``mes``, else the selected swipe when ``mes`` is missing."""
    mes = obj.get("mes")
    if isinstance(mes, str) and mes.strip():
        return mes
    swipes, swipe_id = as_list(obj.get("swipes")), obj.get("swipe_id")
    if isinstance(swipe_id, int) and not isinstance(swipe_id, bool) and 0 <= swipe_id < len(swipes):
        chosen = swipes[swipe_id]
        return chosen if isinstance(chosen, str) else ""
    return ""


class SillyTavernAdapter(FileAdapter):
    """Reads SillyTavern solo and group chats."""

    name = "sillytavern"
    description = "SillyTavern chats (data/<user>/chats/**.jsonl, group chats/*.jsonl)"
    suffixes = (".jsonl",)

    def accepts(self, rel_parts: tuple[str, ...]) -> bool:
        return "backups" not in rel_parts[:-1]

    def claim(self, path: Path, head: bytes) -> float:
        if not path.name.endswith(".jsonl"):
            return 0.0
        lines = head_lines(head, 2)
        if not lines or not isinstance(lines[0], dict):
            return 0.0
        if is_header(lines[0]) or is_message(lines[0]):
            return 0.9
        return 0.0

    def parse(self, unit: Path, out: Emitter) -> None:
        data = unit.read_bytes()
        title = unit.stem
        conversation = out.file_name
        names: dict[str, str] = {}
        for index, obj in iter_json_lines(data, out.file_name, out.result):
            where = f"{out.file_name} line {index + 1}"
            if not isinstance(obj, dict):
                out.result.problem(f"{where}: not a JSON object; skipped")
                continue
            if index == 0 and is_header(obj):
                names = {k: as_str(obj.get(k)) for k in ("user_name", "character_name")}
                continue
            if "mes" not in obj:
                out.result.problem(f"{where}: no 'mes' field, not a SillyTavern message; skipped")
                continue
            text = shown_text(obj)
            if not text.strip():
                out.result.skip("empty messages")
                continue
            hidden = obj.get("is_system") is True
            if is_notice(obj):
                role = "system"
            elif isinstance(obj.get("is_user"), bool):
                role = "user" if obj["is_user"] else "assistant"
            else:
                out.result.problem(f"{where}: no is_user flag, so neither user nor character; skipped")
                continue
            speaker = as_str(obj.get("name")).strip()
            if not speaker:
                fallback_name = names.get("user_name" if role == "user" else "character_name", "")
                speaker = fallback_name if fallback_name not in ("", "unused") else role
            swipes = as_list(obj.get("swipes"))
            extra: dict[str, Any] = {}
            if len(swipes) > 1:
                extra = {"swipe_id": obj.get("swipe_id"), "swipes": len(swipes)}
            if hidden and role != "system":
                extra["hidden"] = True
            out.emit(
                conversation=conversation, key=f"pos:{index}", position=index, role=role,
                speaker=speaker, text=text, when=parse_time(obj.get("send_date")), title=title,
                extra=extra,
            )
