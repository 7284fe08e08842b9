"""Generic JSONL chat log: one message per line, appended as the conversation goes.

A line is a JSON object with a role (or a speaker), the text (``content``/``text``, a
string or a list of text parts), a timestamp (ISO-8601 or epoch seconds/milliseconds),
and optionally a message id and a conversation id. Nested ``{"message": {...}}`` objects
(pi/OpenClaw, Claude Code) are read too. The file is tailed: only bytes up to the last
newline are consumed, so a half-written last line waits until it is complete.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from curator.adapters.base import (
    Adapter,
    ReadResult,
    ReadState,
    decode_utf8,
    is_temp_name,
    relative_name,
    single_file_unit,
    sha1_hex,
    stat_fingerprint,
)
from curator.clock import parse_iso
from curator.turns import Turn, normalise_role

log = logging.getLogger(__name__)

HASH_WINDOW = 4096
MAX_LINE_BYTES = 16 * 1024 * 1024

_ROLE_KEYS = ("role", "speaker", "author", "sender", "from")
_TEXT_KEYS = ("content", "text", "mes", "body", "message")
_TIME_KEYS = ("timestamp", "created_at", "time", "date", "send_date", "ts")
_ID_KEYS = ("id", "message_id", "uuid", "msg_id")
_CONV_KEYS = ("conversation_id", "conversation", "thread_id", "session_id", "sessionId", "chat_id")


def parse_timestamp(value: Any) -> float | None:
    """Epoch seconds (below 1e11), milliseconds (above), or an ISO-8601 string, as UTC seconds."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        number = float(value)
        return number / 1000.0 if number > 1e11 else number
    text = str(value).strip()
    try:
        return parse_timestamp(float(text))
    except ValueError:
        return parse_iso(text)


def _text_of(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        inner = value.get("text", value.get("value"))
        if isinstance(inner, dict):
            inner = inner.get("value")
        return inner if isinstance(inner, str) else ""
    if isinstance(value, list):
        parts = []
        for part in value:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and part.get("type", "text") in ("text", "input_text", "output_text"):
                parts.append(_text_of(part))
        return "\n".join(p for p in parts if p)
    return ""


def _first(obj: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in obj and obj[key] not in (None, ""):
            return obj[key]
    return None


def parse_message(obj: Any) -> dict[str, Any] | str | None:
    """Fields of one chat message, a reason string when the line is bad, None when not a message."""
    if not isinstance(obj, dict):
        return f"line is JSON but not an object ({type(obj).__name__})"
    merged = dict(obj)
    nested = obj.get("message")
    if isinstance(nested, dict):
        merged.pop("message")
        merged.update(nested)
    raw_text = _first(merged, _TEXT_KEYS)
    raw_role = _first(merged, ("role",))
    speaker_value = _first(merged, ("speaker", "name", "author", "sender"))
    if raw_text is None and raw_role is None and speaker_value is None:
        return None  # session headers, tool events and other non-message records
    text = _text_of(raw_text).strip()
    if not text:
        return None
    role = normalise_role(raw_role) if raw_role is not None else ""
    if not role and speaker_value is not None:
        role = normalise_role(speaker_value)
    if not role and isinstance(merged.get("is_user"), bool):
        role = "user" if merged["is_user"] else "assistant"
    if not role:
        if raw_role is not None:
            return f"unknown role {str(raw_role)[:40]!r}"
        # A bare speaker name we cannot classify: a person talking, as far as we can tell.
        role = "user"
    speaker = str(speaker_value) if isinstance(speaker_value, (str, int)) else role
    conversation = _first(merged, _CONV_KEYS)
    message_id = _first(merged, _ID_KEYS)
    return {
        "role": role,
        "speaker": speaker,
        "text": text,
        "timestamp": parse_timestamp(_first(merged, _TIME_KEYS)),
        "id": str(message_id) if message_id is not None else None,
        "conversation": str(conversation) if conversation is not None else None,
    }


class JsonlAdapter(Adapter):
    """Reads ``*.jsonl`` chat logs, tailing each file from where it stopped."""

    name = "jsonl"
    description = "JSONL chat log, one message per line (role/speaker, content, timestamp, ids)"
    tail_safe = True

    def detect(self, root: Path) -> float:
        if root.is_file():
            return 1.0 if root.suffix == ".jsonl" else 0.0
        return 0.6 if self.list_units(root) else 0.0

    def list_units(self, root: Path) -> list[Path]:
        if root.is_file():
            return [root] if root.suffix == ".jsonl" else []
        if not root.is_dir():
            return []
        return sorted(
            p
            for p in root.rglob("*.jsonl")
            if p.is_file()
            and not is_temp_name(p.name)
            and not any(part.startswith(".") for part in p.relative_to(root).parts)
        )

    def unit_for(self, root: Path, path: Path) -> Path | None:
        if path.suffix != ".jsonl" or is_temp_name(path.name):
            return None
        return single_file_unit(root, path)

    def fingerprint(self, unit: Path) -> str:
        return stat_fingerprint([unit])

    def read(self, root: Path, unit: Path, source_id: str, state: ReadState | None) -> ReadResult:
        st = os.stat(unit)
        with open(unit, "rb") as handle:
            start, lines, tail_open, full = 0, 0, False, True
            if state is not None and self._can_resume(handle, st, state):
                start, lines, tail_open, full = state.offset, state.lines, state.tail_open, False
            handle.seek(start)
            data = handle.read()
        if tail_open and data and not data.startswith((b"\n", b"\r\n")):
            # The writer kept writing onto a line we took as finished: read it all again.
            return self.read(root, unit, source_id, None)
        result = ReadResult(full=full)
        file_name = relative_name(root, unit)
        fallback_time = st.st_mtime
        pos = 0
        if tail_open and data:
            pos = data.index(b"\n") + 1
            tail_open = False
        while pos < len(data):
            newline = data.find(b"\n", pos)
            if newline < 0:
                rest = data[pos:]
                if rest.strip() and _is_complete_json(rest):
                    self._take_line(rest, lines, file_name, source_id, fallback_time, result)
                    lines += 1
                    pos = len(data)
                    tail_open = True
                break  # a half-written line: wait for the rest
            self._take_line(data[pos:newline], lines, file_name, source_id, fallback_time, result)
            lines += 1
            pos = newline + 1
        offset = start + pos
        with open(unit, "rb") as handle:
            head = handle.read(min(HASH_WINDOW, offset))
            handle.seek(max(0, offset - HASH_WINDOW))
            tail = handle.read(offset - max(0, offset - HASH_WINDOW))
        result.state = ReadState(
            fingerprint=stat_fingerprint([unit]),
            inode=st.st_ino,
            size=st.st_size,
            offset=offset,
            lines=lines,
            head_hash=sha1_hex(head),
            tail_hash=sha1_hex(tail),
            tail_open=tail_open,
        )
        return result

    @staticmethod
    def _can_resume(handle: Any, st: os.stat_result, state: ReadState) -> bool:
        # Same file, not shorter, same first and last consumed bytes: it was only appended to.
        if state.inode != st.st_ino or st.st_size < state.offset or state.offset <= 0:
            return False
        handle.seek(0)
        if sha1_hex(handle.read(min(HASH_WINDOW, state.offset))) != state.head_hash:
            return False
        begin = max(0, state.offset - HASH_WINDOW)
        handle.seek(begin)
        return sha1_hex(handle.read(state.offset - begin)) == state.tail_hash

    def _take_line(
        self,
        raw: bytes,
        line_no: int,
        file_name: str,
        source_id: str,
        fallback_time: float,
        result: ReadResult,
    ) -> None:
        where = f"{file_name} line {line_no + 1}"
        raw = raw.rstrip(b"\r")
        if not raw.strip():
            return
        if len(raw) > MAX_LINE_BYTES:
            result.problems.append(f"{where}: line longer than {MAX_LINE_BYTES} bytes; skipped")
            return
        text, problem = decode_utf8(raw, where)
        if text is None:
            result.problems.append(problem or where)
            return
        try:
            obj = json.loads(text)
        except ValueError as exc:
            result.problems.append(f"{where}: not valid JSON ({exc.msg} at column {exc.colno}); skipped")
            return
        fields = parse_message(obj)
        if fields is None:
            log.debug("%s: not a chat message; ignored", where)
            return
        if isinstance(fields, str):
            result.problems.append(f"{where}: {fields}; skipped")
            return
        key = f"id:{fields['id']}" if fields["id"] else f"pos:{line_no}"
        result.turns.append(
            Turn(
                source_id=source_id,
                file=file_name,
                conversation=fields["conversation"] or file_name,
                key=key,
                position=line_no,
                role=fields["role"],
                speaker=fields["speaker"],
                text=fields["text"],
                timestamp=fields["timestamp"] if fields["timestamp"] is not None else fallback_time,
            )
        )


def _is_complete_json(raw: bytes) -> bool:
    try:
        return isinstance(json.loads(raw.decode("utf-8")), dict)
    except (UnicodeDecodeError, ValueError):
        return False
