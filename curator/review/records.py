"""What review actions return and raise: the queue's records, the errors, and the diff of a refusal."""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # types only: the window names these records before the review engine loads
    from curator.review.diffing import Hunk
    from curator.review.staging import StagingProblem

MIN_HASH_PREFIX = 8
RESOLUTIONS = ("keep_a", "keep_b", "keep_both", "keep_neither")
KINDS = ("fact", "correction", "connection", "open_question", "contradiction")


class ReviewError(Exception):
    """An action that cannot be done (unknown item, wrong kind, bad arguments)."""


class FlaggedItemError(ReviewError):
    """A flagged item was to be written to Knowledge without ``accept_flags``."""


class ChangedOnDiskError(ReviewError):
    """The file is not what the person was shown; ``diff`` says how it differs."""

    def __init__(self, message: str, diff: str) -> None:
        super().__init__(message)
        self.diff = diff


@dataclass
class ReviewItem:
    """A staged item as the queue shows it."""

    doc_id: str
    kind: str
    title: str
    text: str
    category: str
    confidence: float
    promotion_count: int
    recurring: bool
    flagged: bool
    flags: list[dict[str, str]]
    gates: list[str]
    source_turns: list[int]
    staged_at: str
    origin: str
    path: str  # relative to the user folder
    content_hash: str
    lane: str  # "flagged" | "review"
    fields: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class EvidenceTurn:
    number: int
    role: str
    speaker: str
    text: str
    exists: bool


@dataclass
class ReviewDetail:
    """Everything the review pane shows for one item."""

    item: ReviewItem
    file_text: str
    revealed_text: str  # the body with invisible characters made visible
    invisible: list[str]
    evidence: list[EvidenceTurn]
    diff: list[Hunk]
    old_text: str = ""
    new_text: str = ""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["diff"] = [asdict(h) for h in self.diff]
        return data


@dataclass
class QueueListing:
    items: list[ReviewItem]
    problems: list[StagingProblem]

    def by_kind(self) -> dict[str, list[ReviewItem]]:
        out: dict[str, list[ReviewItem]] = {}
        for item in self.items:
            out.setdefault(item.kind, []).append(item)
        return out

    def lane(self, lane: str) -> list[ReviewItem]:
        return [i for i in self.items if i.lane == lane]


@dataclass
class ActionResult:
    action: str
    doc_id: str
    message: str
    paths: list[str] = field(default_factory=list)
    content_hash: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def sha_text(text: str) -> str:
    # Imported here: loading OpenSSL for hashlib was 3 ms of the window's start.
    from hashlib import sha256

    return sha256(text.encode("utf-8")).hexdigest()


def unified(old: str, new: str, old_name: str = "shown", new_name: str = "on disk") -> str:
    """A unified diff of two texts."""
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=old_name, tofile=new_name))
