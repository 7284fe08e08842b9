"""Daily Markdown episode logs (seed 001): ``memory/episodes/YYYY-MM-DD.md``, appended all day.

The files are free-form. Each heading below the title (``## 14:30 ...``) starts an entry;
a file without such headings is split into top-level bullets and paragraphs. Every entry
becomes one turn, keyed by its position in the file. An ``HH:MM`` at the start of a heading
sets the entry's time on the file's date (taken as UTC, since the files carry no zone).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from curator.clock import parse_iso
from curator.sources.adapters.base import (
    Adapter,
    ReadResult,
    ReadState,
    decode_utf8,
    is_temp_name,
    relative_name,
    single_file_unit,
)
from curator.sources.turns import Turn, normalise_role

EPISODE_NAME_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:-[A-Za-z0-9_.-]+)?\.md$")
_HEADING_RE = re.compile(r"^#{2,6}\s+(.*)$")
# "## 14:30 ...", "## Heartbeat 15:50", "## Session Cleanup 03:00": the first clock time.
_TIME_RE = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?![\d:])")
# OpenClaw's session-memory hook: "# Session: 2026-01-16 14:30:00 UTC" and a summary of
# "user: ..." / "assistant: ..." lines.
_SESSION_RE = re.compile(r"^# Session:\s*(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)", re.MULTILINE)
_SESSION_ID_RE = re.compile(r"\*\*Session ID\*\*:\s*(\S+)")
_SPEAKER_LINE_RE = re.compile(r"^(user|assistant)\s*:\s?(.*)$", re.IGNORECASE)
_ROLE_PREFIX_RE = re.compile(r"^\**(user|assistant|human|ai|system)\**\s*:\s*", re.IGNORECASE)
# OpenClaw writes what its gateway knows of a message before the person's words: "Conversation
# info (untrusted metadata):" and a fenced JSON block (message id, sender id). That is the
# client's, not the person's: the turn keeps it in its extras, and its text is what they wrote
# (a card read "Conversation info (untrusted metadata): Set up the heartbeat ...").
_METADATA_RE = re.compile(r"\A(?:[^\n]{1,60}\(untrusted metadata\):\s*```[\w-]*\n.*?\n```\s*)+", re.DOTALL)
MAX_FILE_BYTES = 8 * 1024 * 1024


def split_entries(text: str) -> list[tuple[str, str]]:
    """(heading, entry text) pairs of an episode file, in order."""
    lines = text.splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    if any(_HEADING_RE.match(line) for line in lines):
        entries: list[tuple[str, list[str]]] = []
        for line in lines:
            heading = _HEADING_RE.match(line)
            if heading:
                entries.append((heading.group(1).strip(), [line]))
            elif entries:
                entries[-1][1].append(line)
            elif line.strip():
                entries.append(("", [line]))
        return [(h, "\n".join(body).strip()) for h, body in entries if "\n".join(body).strip()]
    blocks: list[list[str]] = []
    for line in lines:
        starts_bullet = line.startswith(("- ", "* ", "+ "))
        if not line.strip():
            blocks.append([])
        elif starts_bullet or not blocks:
            blocks.append([line])
        else:
            blocks[-1].append(line)
    return [("", "\n".join(b).strip()) for b in blocks if "\n".join(b).strip()]


def split_session(text: str) -> list[tuple[str, str]]:
    """(role, text) of each message in a session-memory file's conversation summary."""
    marker = text.find("## Conversation Summary")
    if marker < 0:
        return []
    messages: list[tuple[str, list[str]]] = []
    for line in text[marker:].splitlines()[1:]:
        if line.startswith("## "):
            break
        speaker = _SPEAKER_LINE_RE.match(line)
        if speaker:
            messages.append((speaker.group(1).lower(), [speaker.group(2)]))
        elif messages:
            messages[-1][1].append(line)
    return [(role, "\n".join(lines).strip()) for role, lines in messages if "\n".join(lines).strip()]


def _without_metadata(said: str) -> tuple[str, str]:
    """(the message without the client's metadata blocks before it, those blocks); a message
    of nothing but metadata is left as it is."""
    match = _METADATA_RE.match(said)
    if match is None or not said[match.end():].strip():
        return said, ""
    return said[match.end():].strip(), match.group(0).strip()


class EpisodesAdapter(Adapter):
    """Reads daily episode logs; each entry is a turn."""

    name = "episodes"
    description = "daily Markdown logs memory/episodes/YYYY-MM-DD.md"

    def claim(self, path: Path, head: bytes) -> float:
        return 0.5 if EPISODE_NAME_RE.match(path.name) else 0.0

    def detect(self, root: Path) -> float:
        if root.is_file():
            return 0.9 if EPISODE_NAME_RE.match(root.name) else 0.0
        if (root / "memory" / "episodes").is_dir() or root.name == "episodes":
            return 0.95 if self.list_units(root) else 0.3
        return 0.7 if self.list_units(root) else 0.0

    def list_units(self, root: Path) -> list[Path]:
        if root.is_file():
            return [root] if EPISODE_NAME_RE.match(root.name) else []
        if not root.is_dir():
            return []
        return sorted(
            p
            for p in root.rglob("*.md")
            if EPISODE_NAME_RE.match(p.name)
            and p.is_file()
            and not any(part.startswith(".") for part in p.relative_to(root).parts)
        )

    def unit_for(self, root: Path, path: Path) -> Path | None:
        if is_temp_name(path.name) or not EPISODE_NAME_RE.match(path.name):
            return None
        return single_file_unit(root, path)

    def read(self, root: Path, unit: Path, source_id: str, state: ReadState | None) -> ReadResult:
        result = ReadResult(full=True)
        where = relative_name(root, unit)
        fingerprint = self.fingerprint(unit)  # before the read: a write during it is read next time
        data = unit.read_bytes()
        if len(data) > MAX_FILE_BYTES:
            result.problems.append(f"{where}: larger than {MAX_FILE_BYTES} bytes; skipped")
            result.ready = False
            return result
        text, problem = decode_utf8(data, where)
        if text is None:
            result.problems.append(problem or where)
            result.ready = False
            return result
        if not self._read_session(text, where, unit, source_id, result):
            self._read_entries(text, where, unit, source_id, result)
        result.state = ReadState(fingerprint=fingerprint)
        return result

    @staticmethod
    def _read_session(text: str, where: str, unit: Path, source_id: str, result: ReadResult) -> bool:
        header = _SESSION_RE.search(text)
        messages = split_session(text) if header else []
        if header is None or not messages:
            return False
        when = parse_iso(f"{header.group(1)}T{header.group(2)}+00:00")
        session = _SESSION_ID_RE.search(text)
        conversation = session.group(1) if session else unit.stem
        for position, (role, said) in enumerate(messages):
            body, metadata = _without_metadata(said)
            extra = {"time_from": "session header"} | ({"untrusted_metadata": metadata} if metadata else {})
            turn = Turn(source_id, where, conversation, f"pos:{position}", position, role, role, body, 0.0,
                        extra=extra)
            result.add(turn, when=when, fallback=unit.stat().st_mtime, title=unit.stem, fmt="openclaw-memory")
        return True

    @staticmethod
    def _read_entries(text: str, where: str, unit: Path, source_id: str, result: ReadResult) -> None:
        match = EPISODE_NAME_RE.match(unit.name)
        day = datetime(int(match.group(1)), int(match.group(2)), int(match.group(3)), tzinfo=UTC) if match else None
        for position, (heading, entry) in enumerate(split_entries(text)):
            stamp: float | None = None
            clock = _TIME_RE.search(heading)
            if day is not None:
                stamp = day.timestamp()
                if clock and int(clock.group(1)) < 24 and int(clock.group(2)) < 60:
                    stamp += int(clock.group(1)) * 3600 + int(clock.group(2)) * 60
            role, speaker = "assistant", "episode"
            body = entry.split("\n", 1)[1] if heading and "\n" in entry else entry
            prefix = _ROLE_PREFIX_RE.match(body.lstrip("-*+ \n"))
            if prefix:
                role = normalise_role(prefix.group(1)) or role
                speaker = prefix.group(1).lower()
            turn = Turn(source_id, where, unit.stem, f"pos:{position}", position, role, speaker, entry, 0.0)
            result.add(turn, when=stamp, fallback=unit.stat().st_mtime)
