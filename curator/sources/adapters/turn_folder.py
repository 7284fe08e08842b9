"""Per-turn folders (seeds 000/004): ``turn_NNNNNN/`` with context.md, response.md, metadata.json.

``context.md`` is the whole decision record of a turn in sections §0 (the query) to §6
(validation); ``response.md`` is the answer. A folder becomes two turns: the user query
(§0, carrying the full context.md in ``Turn.context`` for keyword gates) and the response.
A folder is read once context.md and response.md exist (the watcher also waits until the
folder's files stop changing); a metadata.json that does not parse is reported in the
source's health and the turn is read without it.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

from curator.sources.adapters.base import (
    Adapter,
    ReadResult,
    ReadState,
    decode_utf8,
    is_temp_name,
    relative_name,
    stat_fingerprint,
)
from curator.sources.adapters.jsonl import parse_timestamp
from curator.sources.turns import EXTRA_TIME_UNKNOWN, Turn
from curator.sources.validation import timestamp_problem

log = logging.getLogger(__name__)

TURN_DIR_RE = re.compile(r"^turn_(\d{1,9})$")
_SECTION_RE = re.compile(r"^#{1,6}\s*§\s*(\d+)\b[ \t:.\-–—]*(.*)$", re.MULTILINE)
_VALIDATION_RE = re.compile(r"\b(APPROVE|REVISE|RETRY|FAIL)\b")
MAX_FILE_BYTES = 8 * 1024 * 1024


def split_sections(context: str) -> dict[int, str]:
    """The §N sections of a context.md, by number, without their heading lines."""
    matches = list(_SECTION_RE.finditer(context))
    sections: dict[int, str] = {}
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(context)
        sections[int(match.group(1))] = context[match.end() : end].strip()
    return sections


def section_blocks(context: str, numbers: tuple[int, ...]) -> str:
    """Only the sections ``numbers`` of a context.md, each with its heading line, in file order.

    A context.md with no § headings is returned whole: it is some other record, not the
    seed's, and cutting it would lose what it says.
    """
    matches = list(_SECTION_RE.finditer(context))
    if not matches:
        return context.strip()
    kept = []
    for i, match in enumerate(matches):
        if int(match.group(1)) in numbers:
            end = matches[i + 1].start() if i + 1 < len(matches) else len(context)
            kept.append(context[match.start() : end].strip())
    return "\n".join(kept)


def find_validation(context: str) -> str:
    """APPROVE / REVISE / RETRY / FAIL named in §6 (validation), or ''."""
    section = split_sections(context).get(6, "")
    match = _VALIDATION_RE.search(section)
    return match.group(1) if match else ""


class TurnFolderAdapter(Adapter):
    """Reads ``turn_NNNNNN/`` folders, each once it is complete."""

    name = "turn_folder"
    description = "folders turn_NNNNNN/ with context.md (§0..§6), response.md, metadata.json"

    def detect(self, root: Path) -> float:
        return 0.9 if root.is_dir() and self.list_units(root) else 0.0

    def list_units(self, root: Path) -> list[Path]:
        if not root.is_dir():
            return []
        found = []
        for path in root.rglob("turn_*"):
            hidden = any(part.startswith(".") for part in path.relative_to(root).parts)
            if path.is_dir() and TURN_DIR_RE.match(path.name) and not hidden:
                found.append(path)
        return sorted(found)

    def unit_for(self, root: Path, path: Path) -> Path | None:
        try:
            rel = path.relative_to(root)
        except ValueError:
            return None
        if is_temp_name(path.name) or any(part.startswith(".") for part in rel.parts):
            return None
        # The nearest turn_NNNNNN folder on the way down from the root.
        current = root
        for part in rel.parts:
            current = current / part
            if TURN_DIR_RE.match(part):
                return current
        return None

    def is_complete(self, unit: Path) -> bool:
        return (unit / "context.md").is_file() and (unit / "response.md").is_file()

    def fingerprint(self, unit: Path) -> str:
        try:
            names = sorted(p for p in unit.iterdir() if p.is_file() and not is_temp_name(p.name))
        except OSError:
            return ""
        return stat_fingerprint(names)

    def read(self, root: Path, unit: Path, source_id: str, state: ReadState | None) -> ReadResult:
        result = ReadResult(full=True)
        where = relative_name(root, unit)
        fingerprint = self.fingerprint(unit)  # before the read: a write during it is read next time
        if not self.is_complete(unit):
            result.ready = False
            return result
        texts: dict[str, str] = {}
        for name in ("context.md", "response.md"):
            data = (unit / name).read_bytes()
            if len(data) > MAX_FILE_BYTES:
                result.problems.append(f"{where}/{name}: larger than {MAX_FILE_BYTES} bytes; folder skipped")
                result.ready = False
                return result
            text, problem = decode_utf8(data, f"{where}/{name}")
            if text is None:
                result.problems.append(f"{problem}; folder skipped")
                result.ready = False
                return result
            texts[name] = text
        metadata: dict[str, Any] = {}
        meta_path = unit / "metadata.json"
        if meta_path.is_file():
            try:
                loaded = json.loads(meta_path.read_bytes().decode("utf-8"))
            except (UnicodeDecodeError, ValueError, RecursionError) as exc:
                # The watcher reads a folder only once it stopped changing, so a metadata.json
                # that does not parse now is broken, not unfinished: the turn's words are still
                # read (time-unknown) and the health says why its metadata is missing.
                reason = getattr(exc, "msg", None) or type(exc).__name__
                result.problems.append(f"{where}/metadata.json: not valid JSON ({reason}); the turn is read "
                                       "without it and will be read again when it changes")
                loaded = {}
            if isinstance(loaded, dict):
                metadata = loaded
            else:
                result.problems.append(f"{where}/metadata.json: not a JSON object; the turn is read without it")
        result.turns = self._turns(unit, where, source_id, texts, metadata)
        result.time_unknown = sum(1 for t in result.turns if not t.time_known)
        result.state = ReadState(fingerprint=fingerprint)
        return result

    def _turns(
        self, unit: Path, where: str, source_id: str, texts: dict[str, str], metadata: dict[str, Any]
    ) -> list[Turn]:
        context = texts["context.md"]
        sections = split_sections(context)
        query = sections.get(0) or context.strip()
        response = texts["response.md"].strip()
        match = TURN_DIR_RE.match(unit.name)
        folder_number = int(match.group(1)) if match else 0
        stamp = parse_timestamp(metadata.get("timestamp"))
        if stamp is not None and timestamp_problem(stamp) is not None:
            stamp = None  # an impossible time is no time: the turn is kept, time-unknown
        time_unknown = stamp is None
        if stamp is None:
            # Only for ordering; the turn is marked time-unknown below, never shown as its time.
            stamp = (unit / "response.md").stat().st_mtime
        # Seed 004 §11: ``session_id`` names the user, not a conversation (its pipeline has no
        # session lifecycle). It is kept with the turn; the conversation is one the metadata
        # names, else the folder the turns sit in (one folder per user or chat, as they are laid out).
        conversation = str(metadata.get("conversation_id") or metadata.get("conversation") or "") or (
            Path(where).parent.as_posix() if Path(where).parent.as_posix() != "." else "turns"
        )
        extra: dict[str, Any] = {"folder_turn": folder_number}
        if metadata.get("session_id"):
            extra["session_id"] = str(metadata["session_id"])[:200]  # the user identity (seed 004 §11)
        validation = str(metadata.get("validation_result") or metadata.get("validation") or "")
        extra["validation"] = validation.upper() or find_validation(context)
        quality = metadata.get("quality_score", metadata.get("quality"))
        if isinstance(quality, (int, float)) and not isinstance(quality, bool):
            extra["quality"] = float(quality)
        for key in ("topic", "keywords", "intent", "content_type", "tools_used", "user_feedback_status",
                    "route", "planner_route", "user_purpose", "data_requirements"):
            if key in metadata:
                extra[key] = metadata[key]
        extra["has_prior_findings"] = (unit / "prior_findings.md").is_file()
        if time_unknown:
            extra[EXTRA_TIME_UNKNOWN] = True
        turns = []
        if query:
            turns.append(
                Turn(source_id, where, conversation, "query", folder_number * 2, "user", "user",
                     query, stamp, context=context, extra=dict(extra))
            )
        if response:
            turns.append(
                Turn(source_id, where, conversation, "response", folder_number * 2 + 1, "assistant",
                     "assistant", response, stamp, extra=dict(extra))
            )
        return turns
