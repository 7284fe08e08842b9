"""The adapter interface: how the engine reads one kind of chat source.

An adapter knows three things about its format: which folders look like it (``detect``),
which *units* a source holds (a unit is what is parsed in one go: a file, or a turn
folder), and how to turn one unit into ``Turn`` records (``read``). It never writes into
the source and never decides what is new: the ingestor compares what it reads with the
index.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from curator.sources.read_state import ReadState
from curator.sources.turns import (
    EXTRA_FORMAT,
    EXTRA_MESSAGE_ID,
    EXTRA_TIME_UNKNOWN,
    EXTRA_TITLE,
    Turn,
    built,
)
from curator.sources.validation import timestamp_problem

# How much of a file ``Adapter.claim`` gets to look at: enough for a header line or two.
HEAD_BYTES = 16384
# Per-line problem messages kept per unit; the rest are only counted (a broken 50 MB file
# must not make a 50 MB health record).
MAX_PROBLEMS = 20

# Names that chat clients, editors and we ourselves use for files that are not finished yet.
_TEMP_NAME_RE = re.compile(
    r"(^\..*\.tmp$)|(^\.goutputstream-)|(~$)|(^\..*\.sw[a-p]$)|(^\.curator-tmp-)|(^4913$)|(\.part$)|(\.crdownload$)"
)


def is_temp_name(name: str) -> bool:
    """True for editor/writer temp file names that must never be parsed."""
    return bool(_TEMP_NAME_RE.search(name))


@dataclass
class ReadResult:
    """The outcome of reading one unit.

    Attributes:
        turns: the turns read. When ``full`` is true they are every turn the unit holds now
            (so a known turn that is missing was removed); otherwise only new ones.
        full: whether the whole unit was read.
        state: what to remember for the next read.
        problems: human-readable reasons for anything skipped (bad line, bad encoding).
        ready: false when the unit is not complete yet (read again later; not an error).
    """

    turns: list[Turn] = field(default_factory=list)
    full: bool = True
    state: ReadState = field(default_factory=ReadState)
    problems: list[str] = field(default_factory=list)
    ready: bool = True
    # Lines skipped on purpose (tool output, command echoes, notices), by reason: counted
    # for the source's health, not reported one by one.
    skipped: dict[str, int] = field(default_factory=dict)
    time_unknown: int = 0
    problems_dropped: int = 0
    # What an adapter learns from one line and needs on later lines of the same read
    # (a title written before the messages); never stored.
    scratch: dict[str, Any] = field(default_factory=dict)
    # ``_last_known_time``'s memory: which list it read, how far, and what it found.
    _known_of: list[Turn] | None = field(default=None, repr=False, compare=False)
    _known_count: int = field(default=0, repr=False, compare=False)
    _known_time: float | None = field(default=None, repr=False, compare=False)

    def problem(self, message: str) -> None:
        """Record a line or part that could not be understood (kept up to MAX_PROBLEMS)."""
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(message)
        else:
            self.problems_dropped += 1

    def _last_known_time(self) -> float | None:
        """The time of the last turn so far whose time is known.

        Remembered between calls and brought up to date with only the turns added since
        (adapters also append to ``turns`` directly): searching back through every earlier
        turn made a file of 100,000 turns without times take quadratic time.
        """
        turns = self.turns
        if self._known_of is not turns or self._known_count > len(turns):
            self._known_of, self._known_count, self._known_time = turns, 0, None
        for turn in turns[self._known_count:]:
            if turn.time_known:
                self._known_time = turn.timestamp
        self._known_count = len(turns)
        return self._known_time

    def skip(self, reason: str, count: int = 1) -> None:
        """Count a line left out on purpose, by reason."""
        self.skipped[reason] = self.skipped.get(reason, 0) + count

    def notes(self) -> list[str]:
        """Health lines: what was skipped and counted, and how many turns have no time."""
        notes = []
        if self.problems_dropped:
            notes.append(f"{self.problems_dropped} more problems like the above")
        if self.skipped:
            total = sum(self.skipped.values())
            detail = ", ".join(f"{n} {reason}" for reason, n in sorted(self.skipped.items()))
            notes.append(f"skipped {total} lines that are not chat turns ({detail})")
        if self.time_unknown:
            notes.append(f"{self.time_unknown} turns have no readable time (marked time-unknown)")
        return notes

    def add(
        self,
        turn: Turn,
        *,
        when: float | None,
        fallback: float,
        title: str = "",
        message_id: str = "",
        fmt: str = "",
    ) -> None:
        """Append ``turn`` with its provenance; a turn without ``when`` is marked time-unknown.

        Args:
            turn: the turn; its ``timestamp`` is replaced.
            when: the client's own time for the message, or None.
            fallback: the stand-in time for ordering when ``when`` is None (the previous
                known time in the unit, else the file's time); flagged, never silent.
            title: the conversation's title in the client.
            message_id: the client's id for the message.
            fmt: the format the turn was read from.
        """
        self.add_message(
            turn.source_id, turn.file, turn.conversation, turn.key, turn.position, turn.role,
            turn.speaker, turn.text, dict(turn.extra), context=turn.context, when=when,
            fallback=fallback, title=title, message_id=message_id, fmt=fmt,
        )

    def add_message(
        self,
        source_id: str,
        file: str,
        conversation: str,
        key: str,
        position: int,
        role: str,
        speaker: str,
        text: str,
        extra: dict[str, Any],
        *,
        context: str = "",
        when: float | None,
        fallback: float,
        title: str = "",
        message_id: str = "",
        fmt: str = "",
    ) -> None:
        """``add`` from a message's fields, for adapters that have no ``Turn`` yet.

        A frozen ``Turn`` built only to be rebuilt here was a visible part of reading a
        large file. ``extra`` becomes the turn's own: pass a dict nobody else holds.
        """
        if title:
            extra[EXTRA_TITLE] = title
        if message_id:
            extra[EXTRA_MESSAGE_ID] = message_id
        if fmt:
            extra[EXTRA_FORMAT] = fmt
        if when is not None:
            bad = timestamp_problem(when)
            if bad is not None:
                # A broken clock must not cost the words: the message is kept, time-unknown,
                # and the reason is reported (a NaN here once broke the ledger for good).
                self.problem(f"{file} message {position + 1}: {bad}; kept, marked time-unknown")
                when = None
        if when is None:
            extra[EXTRA_TIME_UNKNOWN] = True
            self.time_unknown += 1
            # For ordering only: the time of the previous turn that has one, when there is one.
            known = self._last_known_time()
            fallback = known if known is not None else fallback
        stamp = when if when is not None else fallback
        self.turns.append(built(Turn, {
            "source_id": source_id, "file": file, "conversation": conversation, "key": key,
            "position": position, "role": role, "speaker": speaker, "text": text, "timestamp": stamp,
            "context": context, "extra": extra,
        }))


class Adapter(ABC):
    """One source format. Subclasses are stateless; all state lives in ``ReadState``."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    # True when a unit may be read while it is still growing (append-only files whose
    # reader ignores a half-written tail); false when it must be stable first.
    tail_safe: ClassVar[bool] = False

    def claim(self, path: Path, head: bytes) -> float:
        """How strongly one file (its path and first ``HEAD_BYTES``) is in this format, 0..1.

        Detection is per file, so a folder holding two formats reads both (see
        ``adapters.mixed``). Adapters whose units are folders keep the default 0.
        """
        return 0.0

    @abstractmethod
    def detect(self, root: Path) -> float:
        """How strongly ``root`` looks like this format, 0.0 (not at all) to 1.0."""

    @abstractmethod
    def list_units(self, root: Path) -> list[Path]:
        """Every unit currently in the source, sorted."""

    @abstractmethod
    def unit_for(self, root: Path, path: Path) -> Path | None:
        """The unit a changed ``path`` belongs to, or None when it is not of interest."""

    def is_complete(self, unit: Path) -> bool:
        """Whether a unit holds everything needed to be read (default: it exists)."""
        return unit.exists()

    def fingerprint(self, unit: Path) -> str:
        """A cheap summary that changes when the unit's bytes change (size, mtime, inode)."""
        return stat_fingerprint([unit])

    @abstractmethod
    def read(self, root: Path, unit: Path, source_id: str, state: ReadState | None) -> ReadResult:
        """Parse ``unit`` into turns, starting from ``state`` when the format allows it."""


def single_file_unit(root: Path, path: Path) -> Path | None:
    """``path`` as a unit of a one-file-per-unit source rooted at ``root`` (a file or folder).

    None when the path is outside the source or under a hidden folder (our own temp files,
    editors' swap folders).
    """
    if root.is_file():
        return root if path == root else None
    try:
        rel = path.relative_to(root)
    except ValueError:
        return None
    return None if any(part.startswith(".") for part in rel.parts) else path


def stat_fingerprint(paths: list[Path]) -> str:
    """Size, mtime and inode of each existing path, as one string; '' when none exist."""
    parts = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            continue
        parts.append(f"{path.name}:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}")
    return "|".join(parts)


def relative_name(root: Path, unit: Path) -> str:
    """The unit's path relative to its source root, with forward slashes ('' for a file root)."""
    try:
        rel = unit.relative_to(root)
    except ValueError:
        return unit.name
    text = rel.as_posix()
    return unit.name if text in ("", ".") else text


def decode_utf8(data: bytes, where: str) -> tuple[str | None, str | None]:
    """Decode ``data`` as UTF-8 (a BOM is dropped); returns (text, None) or (None, reason)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, (
            f"{where}: not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); skipped"
        )
    text = text.removeprefix("\ufeff")
    return text, None


def read_head(path: Path, size: int = HEAD_BYTES) -> bytes:
    """The first ``size`` bytes of a file, b'' when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return handle.read(size)
    except OSError:
        return b""


def head_lines(head: bytes, count: int = 3) -> list[Any]:
    """The first ``count`` complete JSON lines of ``head`` that parse (others are left out)."""
    found: list[Any] = []
    for raw in head.split(b"\n")[:-1] if b"\n" in head else [head]:
        if len(found) >= count:
            break
        raw = raw.strip()
        if not raw:
            continue
        try:
            found.append(json.loads(raw.decode("utf-8", "replace")))
        except (ValueError, RecursionError):  # a deeply nested line must not stop detection
            continue
    return found


def sha1_hex(data: bytes) -> str:
    """Short content digest used for read-state head/tail checks."""
    return hashlib.sha1(data).hexdigest()
