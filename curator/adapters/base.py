"""The adapter interface: how the engine reads one kind of chat source.

An adapter knows three things about its format: which folders look like it (``detect``),
which *units* a source holds (a unit is what is parsed in one go: a file, or a turn
folder), and how to turn one unit into ``Turn`` records (``read``). It never writes into
the source and never decides what is new: the ingestor compares what it reads with the
index.
"""

from __future__ import annotations

import hashlib
import os
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from curator.turns import Turn

# Names that chat clients, editors and we ourselves use for files that are not finished yet.
_TEMP_NAME_RE = re.compile(
    r"(^\..*\.tmp$)|(^\.goutputstream-)|(~$)|(^\..*\.sw[a-p]$)|(^\.curator-tmp-)|(^4913$)|(\.part$)|(\.crdownload$)"
)


def is_temp_name(name: str) -> bool:
    """True for editor/writer temp file names that must never be parsed."""
    return bool(_TEMP_NAME_RE.search(name))


@dataclass(frozen=True)
class ReadState:
    """What the index remembers about a unit between reads.

    ``fingerprint`` is a cheap summary (size, mtime, inode) used to skip unchanged units
    on a rescan. ``offset``/``lines``/``head_hash``/``tail_hash`` serve append-only files.
    """

    fingerprint: str = ""
    inode: int = 0
    size: int = 0
    offset: int = 0
    lines: int = 0
    head_hash: str = ""
    tail_hash: str = ""
    tail_open: bool = False  # the last consumed line had no newline yet

    def to_dict(self) -> dict[str, Any]:
        return {
            "fingerprint": self.fingerprint,
            "inode": self.inode,
            "size": self.size,
            "offset": self.offset,
            "lines": self.lines,
            "head_hash": self.head_hash,
            "tail_hash": self.tail_hash,
            "tail_open": self.tail_open,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReadState:
        return cls(
            fingerprint=str(data.get("fingerprint", "")),
            inode=int(data.get("inode", 0) or 0),
            size=int(data.get("size", 0) or 0),
            offset=int(data.get("offset", 0) or 0),
            lines=int(data.get("lines", 0) or 0),
            head_hash=str(data.get("head_hash", "")),
            tail_hash=str(data.get("tail_hash", "")),
            tail_open=bool(data.get("tail_open", False)),
        )


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


class Adapter(ABC):
    """One source format. Subclasses are stateless; all state lives in ``ReadState``."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    # True when a unit may be read while it is still growing (append-only files whose
    # reader ignores a half-written tail); false when it must be stable first.
    tail_safe: ClassVar[bool] = False

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
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, None


def sha1_hex(data: bytes) -> str:
    """Short content digest used for read-state head/tail checks."""
    return hashlib.sha1(data).hexdigest()  # noqa: S324 - change detection, not security
