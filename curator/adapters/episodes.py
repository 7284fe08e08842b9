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

from curator.adapters.base import (
    Adapter,
    ReadResult,
    ReadState,
    decode_utf8,
    is_temp_name,
    relative_name,
    single_file_unit,
    stat_fingerprint,
)
from curator.turns import Turn, normalise_role

EPISODE_NAME_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:-[A-Za-z0-9_.-]+)?\.md$")
_HEADING_RE = re.compile(r"^#{2,6}\s+(.*)$")
_TIME_RE = re.compile(r"^(\d{1,2}):(\d{2})")
_ROLE_PREFIX_RE = re.compile(r"^\**(user|assistant|human|ai|system)\**\s*:\s*", re.IGNORECASE)
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


class EpisodesAdapter(Adapter):
    """Reads daily episode logs; each entry is a turn."""

    name = "episodes"
    description = "daily Markdown logs memory/episodes/YYYY-MM-DD.md"

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
        match = EPISODE_NAME_RE.match(unit.name)
        day = datetime(int(match.group(1)), int(match.group(2)), int(match.group(3)), tzinfo=UTC) if match else None
        fallback = unit.stat().st_mtime
        for position, (heading, entry) in enumerate(split_entries(text)):
            stamp = fallback
            clock = _TIME_RE.match(heading)
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
            result.turns.append(
                Turn(source_id, where, unit.stem, f"pos:{position}", position, role, speaker, entry, stamp)
            )
        result.state = ReadState(fingerprint=stat_fingerprint([unit]))
        return result
