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

from curator.clock import parse_iso
from curator.sources.adapters.base import (
    Adapter,
    ReadResult,
    ReadState,
    decode_utf8,
    head_lines,
    is_temp_name,
    relative_name,
    sha1_hex,
    single_file_unit,
    stat_fingerprint,
)
from curator.sources.adapters.timestamps import parse_time
from curator.sources.turns import normalise_role

log = logging.getLogger(__name__)

HASH_WINDOW = 4096
MAX_LINE_BYTES = 16 * 1024 * 1024

_ROLE_KEYS = ("role", "speaker", "author", "sender", "from")
_TEXT_KEYS = ("content", "text", "mes", "body", "message")
_TIME_KEYS = ("timestamp", "created_at", "time", "date", "send_date", "ts")
_ID_KEYS = ("id", "message_id", "uuid", "msg_id")
_CONV_KEYS = ("conversation_id", "conversation", "thread_id", "session_id", "sessionId", "chat_id")


def parse_timestamp(value: Any) -> float | None:
    """A timestamp as UTC epoch seconds (see ``timestamps.parse_time``), or None when absent.

    A value that is there but implausible (NaN, negative, far future) is passed through as
    written, so ``ReadResult.add`` reports it by name and keeps the message time-unknown
    instead of the line quietly becoming time-unknown.
    """
    parsed = parse_time(value)
    if parsed is not None or value is None or isinstance(value, bool):
        return parsed
    if isinstance(value, (int, float)):
        number = float(value)
        return number / 1000.0 if number > 1e11 else number
    text = str(value).strip()
    try:
        number = float(text)
    except ValueError:
        return parse_iso(text)
    return number / 1000.0 if number > 1e11 else number


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
    merged = obj
    nested = obj.get("message")
    if isinstance(nested, dict):
        merged = dict(obj)
        merged.pop("message")
        merged.update(nested)
    raw_text = _first(merged, _TEXT_KEYS)
    raw_role = _first(merged, ("role",))
    speaker_value = _first(merged, ("speaker", "name", "author", "sender"))
    if raw_text is None and raw_role is None and speaker_value is None:
        return None  # session headers, tool events and other non-message records
    text = _text_of(raw_text).strip()
    if not text:
        if raw_role is not None and any(k in merged for k in _TEXT_KEYS):
            # A message whose text is a number, null or a list without text is said, not dropped.
            found = next(merged[k] for k in _TEXT_KEYS if k in merged)
            if not isinstance(found, str):
                return f"content is {type(found).__name__ if found is not None else 'null'}, not text"
        return None
    role = normalise_role(raw_role) if raw_role is not None else ""
    if not role and speaker_value is not None:
        role = normalise_role(speaker_value)
    if not role and isinstance(merged.get("is_user"), bool):
        role = "user" if merged["is_user"] else "assistant"
    if not role:
        if raw_role is not None:
            return f"unknown role {str(raw_role)[:40]!r}"
        # A name alone does not say who spoke; guessing "user" would put words in a mouth.
        return f"no role, and speaker {str(speaker_value)[:40]!r} is neither user nor assistant"
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

    def claim(self, path: Path, head: bytes) -> float:
        # The catch-all for JSONL: any client format that knows the file claims it higher.
        if path.suffix != ".jsonl":
            return 0.0
        lines = head_lines(head)
        return 0.2 if any(isinstance(parse_message(obj), dict) for obj in lines) else 0.05

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
        # Taken before the bytes are read: a line appended while we read must leave the stored
        # fingerprint differing from the file's, or the next check calls the file unchanged and
        # the line waits for some later write that may never come.
        fingerprint = self.fingerprint(unit)
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
            fingerprint=fingerprint,
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
        except json.JSONDecodeError as exc:
            result.problems.append(f"{where}: not valid JSON ({exc.msg} at column {exc.colno}); skipped")
            return
        except RecursionError:
            result.problems.append(f"{where}: JSON nested too deeply to read; skipped")
            return
        self._take_object(obj, where, line_no, file_name, source_id, fallback_time, result)

    def _take_object(
        self,
        obj: Any,
        where: str,
        line_no: int,
        file_name: str,
        source_id: str,
        fallback_time: float,
        result: ReadResult,
    ) -> None:
        """Turn one parsed line into a turn, a counted skip or a problem (formats override)."""
        fields = parse_message(obj)
        if fields is None:
            log.debug("%s: not a chat message; ignored", where)
            return
        if isinstance(fields, str):
            result.problems.append(f"{where}: {fields}; skipped")
            return
        message_id = fields["id"]
        result.add_message(
            source_id, file_name, fields["conversation"] or file_name,
            f"id:{message_id}" if message_id else f"pos:{line_no}", line_no, fields["role"],
            fields["speaker"], fields["text"], signal_extra(obj),
            when=fields["timestamp"], fallback=fallback_time, message_id=message_id or "",
        )


# Metadata some clients write beside a message that the batch signals read (validation,
# quality, the planner's route, prior findings) or that ends a session (a closed thread).
SIGNAL_KEYS = ("validation", "validation_result", "decision", "quality", "quality_score", "route",
               "planner_route", "prior_findings", "has_prior_findings", "contradiction",
               "thread_closed", "session_end", "closed")
_SIGNAL_KEY_SET = frozenset(SIGNAL_KEYS)


def signal_extra(obj: Any) -> dict[str, Any]:
    """The signal metadata of one JSONL message (top level, or under ``metadata``/``meta``)."""
    if not isinstance(obj, dict):
        return {}
    out: dict[str, Any] = {}
    for holder in (obj.get("metadata"), obj.get("meta"), obj):
        if not isinstance(holder, dict) or _SIGNAL_KEY_SET.isdisjoint(holder):
            continue  # most messages carry none of the keys: one set test instead of thirteen
        for key in SIGNAL_KEYS:
            value = holder.get(key)
            if isinstance(value, (str, int, float, bool)) and not (isinstance(value, str) and len(value) > 200):
                out[key] = value
    return out


def _is_complete_json(raw: bytes) -> bool:
    try:
        return isinstance(json.loads(raw.decode("utf-8")), dict)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False
