"""Jan: ``<data folder>/threads/<thread id>/messages.jsonl`` beside ``thread.json``.

Each line of ``messages.jsonl`` is a thread message: ``id``, ``thread_id``, ``role``,
``content`` (a list of ``{type: text, text: {value}}`` parts), ``status`` and the time,
``created`` in Jan 0.4-0.5 and ``created_at`` since, both epoch milliseconds (seconds in
some older builds). ``thread.json`` holds the title and the assistant's name. New messages
are appended, edits and deletions rewrite the file; both are read whole and matched by
message id. Tool messages and unfinished (``pending``) ones are counted, not turned into
turns. The data folder can be moved; ``data_folder`` in the app's ``settings.json`` says
where (``find_data_folder``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from curator.sources.adapters.base import head_lines, stat_fingerprint
from curator.sources.adapters.common import (
    Emitter,
    FileAdapter,
    as_dict,
    as_list,
    as_str,
    iter_json_lines,
    text_of,
    without_reasoning,
)
from curator.sources.adapters.timestamps import parse_time
from curator.sources.turns import normalise_role

# Jan appends the files attached to a message to its text and hides the block when it shows
# the message: "[ATTACHED_FILES]\n- file_id: …, name: notes.pdf …\n[/ATTACHED_FILES]".
_ATTACHED_RE = re.compile(r"\s*\[ATTACHED_FILES\](.*?)(\[/ATTACHED_FILES\]|$)", re.DOTALL)
_ATTACHED_NAME_RE = re.compile(r"\bname:\s*([^,\n]+)")


def find_data_folder(app_dir: Path) -> Path:
    """Where a Jan install keeps its threads: ``data_folder`` from ``settings.json`` when set.

    ``app_dir`` may be the app's config folder (holding ``settings.json``) or the data
    folder itself; either way the folder that holds ``threads/`` comes back.
    """
    settings = Path(app_dir) / "settings.json"
    try:
        data = json.loads(settings.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    folder = as_str(as_dict(data).get("data_folder")) if data is not None else ""
    if folder and Path(folder).expanduser().is_dir():
        return Path(folder).expanduser()
    if (Path(app_dir) / "data" / "threads").is_dir():
        return Path(app_dir) / "data"
    return Path(app_dir)


def _thread_info(folder: Path) -> dict[str, Any]:
    try:
        return as_dict(json.loads((folder / "thread.json").read_text(encoding="utf-8")))
    except (OSError, ValueError, RecursionError):
        return {}


class JanAdapter(FileAdapter):
    """Reads Jan threads."""

    name = "jan"
    description = "Jan threads (<data>/threads/<id>/messages.jsonl + thread.json)"
    suffixes = ("messages.jsonl", "thread.json")

    def unit_for(self, root: Path, path: Path) -> Path | None:
        if path.name == "thread.json":
            path = path.with_name("messages.jsonl")
        return super().unit_for(root, path)

    def claim(self, path: Path, head: bytes) -> float:
        if path.name != "messages.jsonl":
            return 0.0
        lines = [o for o in head_lines(head, 2) if isinstance(o, dict)]
        if any(o.get("object") == "thread.message" or ("thread_id" in o and "content" in o) for o in lines):
            return 0.95
        if not lines and (path.parent / "thread.json").is_file():
            return 0.7  # a thread with no message yet
        return 0.0

    def fingerprint(self, unit: Path) -> str:
        return stat_fingerprint([unit, unit.parent / "thread.json"])

    def parse(self, unit: Path, out: Emitter) -> None:
        info = _thread_info(unit.parent)
        title = as_str(info.get("title"))
        assistants = [as_dict(a) for a in as_list(info.get("assistants"))]
        bot_name = next((as_str(a.get("assistant_name")) for a in assistants if a.get("assistant_name")), "")
        thread = as_str(info.get("id")) or unit.parent.name
        for index, obj in iter_json_lines(unit.read_bytes(), out.file_name, out.result):
            where = f"{out.file_name} line {index + 1}"
            if not isinstance(obj, dict):
                out.result.problem(f"{where}: not a JSON object; skipped")
                continue
            raw_role = obj.get("role")
            role = normalise_role(raw_role) if isinstance(raw_role, str) else ""
            if role == "tool":
                out.result.skip("tool messages")
                continue
            if not role:
                out.result.problem(f"{where}: unknown role {as_str(raw_role)[:40]!r}; skipped")
                continue
            status = obj.get("status")
            if status in ("pending",):
                out.result.skip("unfinished messages")
                continue
            text = text_of(as_list(obj.get("content")) or obj.get("content"))
            extra: dict[str, Any] = {"status": status} if status not in (None, "ready") else {}
            if role == "assistant":
                text = without_reasoning(text)
            elif "[ATTACHED_FILES]" in text:
                names = [n.strip() for m in _ATTACHED_RE.finditer(text) for n in _ATTACHED_NAME_RE.findall(m.group(1))]
                text = _ATTACHED_RE.sub("", text)
                if names:
                    extra["attachments"] = names
            if not text.strip():
                out.result.skip("messages without text")
                continue
            message_id = as_str(obj.get("id"))
            when = parse_time(obj.get("created_at", obj.get("created")))
            speaker = (bot_name or as_str(obj.get("assistant_id")) or "assistant") if role == "assistant" else role
            out.emit(
                conversation=as_str(obj.get("thread_id")) or thread,
                key=f"id:{message_id}" if message_id else f"pos:{index}",
                position=index, role=role, speaker=speaker, text=text.strip(), when=when,
                title=title, message_id=message_id,
                extra=extra or None,
            )
