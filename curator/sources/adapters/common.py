"""Shared parts of the client adapters: reading JSON lines and files with per-part problems,
and building turns with their provenance.

Every client adapter follows the same rules: a line or part it does not understand is
skipped and named in ``ReadResult.problems``; a line left out on purpose (tool output, a
command echo) is counted in ``ReadResult.skipped``; a turn without a time the client wrote
is marked time-unknown, never silently given the file's modification time.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from curator.sources.adapters.base import (
    Adapter,
    ReadResult,
    ReadState,
    decode_utf8,
    is_temp_name,
    relative_name,
    single_file_unit,
    stat_fingerprint,
)
from curator.sources.turns import Turn
from curator.sources.validation import timestamp_problem

MAX_LINE_BYTES = 16 * 1024 * 1024
MAX_FILE_BYTES = 256 * 1024 * 1024


def text_of(value: Any) -> str:
    """The text of a message body: a string, a ``{text|value}`` object or a list of parts.

    Only text parts count; images, tool calls and reasoning parts are left out.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        kind = value.get("type", "text")
        if kind not in ("text", "input_text", "output_text"):
            return ""
        inner = value.get("text", value.get("value"))
        if isinstance(inner, dict):
            inner = inner.get("value")
        return inner if isinstance(inner, str) else ""
    if isinstance(value, list):
        return "\n".join(t for t in (text_of(part) for part in value) if t)
    return ""


# A reasoning model's thinking, which clients show collapsed or not at all (Jan,
# text-generation-webui): it is the model talking to itself, not the reply. An unclosed block
# runs to the end (a reply cut off while thinking).
_THINK_RE = re.compile(r"<(think|thinking)>.*?(</\1>|$)", re.DOTALL | re.IGNORECASE)


def without_reasoning(text: str) -> str:
    """``text`` without ``<think>…</think>`` blocks."""
    return _THINK_RE.sub("", text) if "<" in text else text


def iter_json_lines(data: bytes, file_name: str, result: ReadResult) -> Iterator[tuple[int, Any]]:
    """(line index, parsed value) of each non-blank line; bad lines become problems."""
    for index, raw in enumerate(data.split(b"\n")):
        raw = raw.rstrip(b"\r")
        if not raw.strip():
            continue
        where = f"{file_name} line {index + 1}"
        if len(raw) > MAX_LINE_BYTES:
            result.problem(f"{where}: line longer than {MAX_LINE_BYTES} bytes; skipped")
            continue
        text, problem = decode_utf8(raw, where)
        if text is None:
            result.problem(problem or where)
            continue
        try:
            yield index, json.loads(text)
        except ValueError as exc:
            result.problem(f"{where}: not valid JSON ({getattr(exc, 'msg', exc)}); skipped")
        except RecursionError:
            result.problem(f"{where}: JSON nested too deeply; skipped")


def load_json(unit: Path, file_name: str, result: ReadResult) -> Any:
    """The parsed JSON document of a whole file, or None with ``result`` not ready.

    A file that does not parse is often one a client is rewriting in place
    (text-generation-webui, LM Studio): it is reported, and read again once it changes.
    """
    try:
        size = unit.stat().st_size
    except OSError as exc:
        result.problem(f"{file_name}: cannot be read ({exc.strerror or exc})")
        result.ready = False
        return None
    if size > MAX_FILE_BYTES:
        result.problem(f"{file_name}: larger than {MAX_FILE_BYTES} bytes; skipped")
        result.ready = False
        return None
    text, problem = decode_utf8(unit.read_bytes(), file_name)
    if text is None:
        result.problem(problem or file_name)
        result.ready = False
        return None
    try:
        return json.loads(text)
    except ValueError as exc:
        result.problem(f"{file_name}: not valid JSON ({getattr(exc, 'msg', exc)}); will read it again once it changes")
    except RecursionError:
        result.problem(f"{file_name}: JSON nested too deeply; skipped")
    result.ready = False
    return None


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (wrong types are not fatal)."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str:
    """``value`` when it is a string (numbers as text), else ''."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return ""


@dataclass
class Emitter:
    """Builds the turns of one unit: keys, provenance and the time-unknown stand-in.

    A turn without a client time gets the previous known time of the unit for ordering
    (else the file's modification time) and is marked time-unknown and counted.
    """

    source_id: str
    file_name: str
    fmt: str
    fallback: float
    result: ReadResult = field(default_factory=ReadResult)
    last_time: float | None = None

    def emit(
        self,
        *,
        conversation: str,
        key: str,
        position: int,
        role: str,
        speaker: str,
        text: str,
        when: float | None,
        title: str = "",
        message_id: str = "",
        extra: dict[str, Any] | None = None,
    ) -> None:
        stand_in = self.last_time if self.last_time is not None else self.fallback
        if when is not None and timestamp_problem(when) is None:
            self.last_time = when
        turn = Turn(
            self.source_id, self.file_name, conversation, key, position, role, speaker,
            text, 0.0, "", dict(extra or {}),
        )
        self.result.add(turn, when=when, fallback=stand_in, title=title, message_id=message_id, fmt=self.fmt)


class FileAdapter(Adapter):
    """A format whose units are single files matched by name, re-read whole on each change."""

    suffixes: ClassVar[tuple[str, ...]] = (".json",)

    def accepts(self, rel_parts: tuple[str, ...]) -> bool:
        """Whether a file at this path (relative to the source root) may be of this format."""
        return True

    def _rel_parts(self, root: Path, path: Path) -> tuple[str, ...] | None:
        if root.is_file():
            return (path.name,) if path == root else None
        try:
            return path.relative_to(root).parts
        except ValueError:
            return None

    def unit_for(self, root: Path, path: Path) -> Path | None:
        if not path.name.endswith(self.suffixes) or is_temp_name(path.name):
            return None
        parts = self._rel_parts(root, path)
        if parts is None or not self.accepts(parts):
            return None
        return single_file_unit(root, path)

    def list_units(self, root: Path) -> list[Path]:
        if root.is_file():
            return [root] if self.unit_for(root, root) and self.claim_file(root) else []
        if not root.is_dir():
            return []
        from curator.sources.adapters.mixed import walk_files

        return sorted(p for p in walk_files(root) if self.unit_for(root, p) and self.claim_file(p))

    def claim_file(self, path: Path) -> bool:
        from curator.sources.adapters.base import read_head

        return self.claim(path, read_head(path)) > 0

    def detect(self, root: Path) -> float:
        return 0.9 if self.list_units(root) else 0.0

    def fingerprint(self, unit: Path) -> str:
        return stat_fingerprint([unit])

    def read(self, root: Path, unit: Path, source_id: str, state: ReadState | None) -> ReadResult:
        file_name = relative_name(root, unit)
        fingerprint = self.fingerprint(unit)  # before the read: a write during it is read next time
        try:
            mtime = os.stat(unit).st_mtime
        except OSError:
            mtime = 0.0
        out = Emitter(source_id, file_name, self.name, mtime)
        self.parse(unit, out)
        out.result.full = True
        if out.result.ready:
            out.result.state = ReadState(fingerprint=fingerprint)
        return out.result

    def parse(self, unit: Path, out: Emitter) -> None:
        """Fill ``out`` with the turns of ``unit``."""
        raise NotImplementedError


class ExportAdapter(FileAdapter):
    """A chat service's data export: a JSON array of conversations (``conversations.json`` or
    the export zip), each holding its messages under :attr:`messages_key`.

    Subclasses name the key and its JSON type, and read one conversation in ``conversation``.
    """

    suffixes: ClassVar[tuple[str, ...]] = (".json", ".zip")
    messages_key: ClassVar[str] = ""
    messages_type: ClassVar[type] = list

    def claim(self, path: Path, head: bytes) -> float:
        if not path.name.endswith((".json", ".zip")):
            return 0.0
        inner = export_head(path, head)
        marker = f'"{self.messages_key}"'.encode()
        return 0.95 if inner.lstrip().startswith(b"[") and marker in inner else 0.0

    def parse(self, unit: Path, out: Emitter) -> None:
        doc = load_export(unit, out.file_name, out.result)
        if doc is None:
            return
        if not isinstance(doc, list):
            out.result.problem(f"{out.file_name}: not a list of conversations; skipped")
            return
        for index, conv in enumerate(doc):
            if not isinstance(conv, dict) or not isinstance(conv.get(self.messages_key), self.messages_type):
                out.result.problem(f"{out.file_name} conversation {index}: no {self.messages_key}; skipped")
                continue
            self.conversation(out, index, conv)

    def conversation(self, out: Emitter, index: int, conv: dict[str, Any]) -> None:
        """Emit the turns of conversation ``index`` of the export."""
        raise NotImplementedError


def load_export(unit: Path, file_name: str, result: ReadResult, member: str = "conversations.json") -> Any:
    """The parsed ``conversations.json`` of a data export: the file itself or inside its zip.

    A zip is opened read-only; only ``member`` is read, with the same size limit as a file.
    """
    import zipfile

    if not unit.name.endswith(".zip"):
        return load_json(unit, file_name, result)
    try:
        with zipfile.ZipFile(unit) as archive:
            names = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == member]
            if not names:
                result.problem(f"{file_name}: the zip holds no {member}; skipped")
                result.ready = False
                return None
            info = archive.getinfo(min(names, key=len))
            if info.file_size > MAX_FILE_BYTES:
                result.problem(f"{file_name}: {member} is larger than {MAX_FILE_BYTES} bytes; skipped")
                result.ready = False
                return None
            data = archive.read(info)
    except (OSError, zipfile.BadZipFile, RuntimeError, ValueError) as exc:
        result.problem(f"{file_name}: not a readable zip ({exc}); will read it again once it changes")
        result.ready = False
        return None
    text, problem = decode_utf8(data, f"{file_name}:{member}")
    if text is None:
        result.problem(problem or file_name)
        result.ready = False
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        result.problem(f"{file_name}:{member}: not valid JSON ({getattr(exc, 'msg', exc)}); skipped")
        result.ready = False
        return None


def export_head(path: Path, head: bytes, member: str = "conversations.json") -> bytes:
    """The first bytes of an export's ``member``: ``head`` itself, or read from inside a zip."""
    import zipfile

    if not path.name.endswith(".zip"):
        return head
    try:
        with zipfile.ZipFile(path) as archive:
            names = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == member]
            if not names:
                return b""
            with archive.open(min(names, key=len)) as handle:
                return handle.read(len(head) or 16384)
    except (OSError, zipfile.BadZipFile, RuntimeError, ValueError):
        return b""
