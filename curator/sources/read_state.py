"""What the index remembers about a unit of a source between reads.

In a module of its own (not the adapters package): the index reads it on every open, and
importing the adapters package loads every adapter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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
